/* strpool.c - owned strings freed together (see strpool.h). */
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

const char *gp__strpool_dup (struct gp__strpool *p, const char *s)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        char **v = realloc (p->s, cap * sizeof *v);
        if (!v)
            return NULL;
        p->s = v;
        p->cap = cap;
    }
    char *d = strdup (s);
    if (d)
        p->s[p->n++] = d;
    return d;
}

void gp__strpool_free (struct gp__strpool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free (p->s[i]);
    free (p->s);
    p->s = NULL;
    p->n = p->cap = 0;
}
