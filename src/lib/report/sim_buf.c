/* sim_buf.c - a growable text buffer for the simulation renderers. */
#include "sim_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow (struct gp_sbuf *b, size_t need)
{
    if (b->failed)
        return -1;
    if (b->len + need + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (b->len + need + 1 > cap)
        cap *= 2;
    char *p = realloc (b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void gp_sbuf_printf (struct gp_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (grow (b, (size_t)n))
        return;
    va_start (ap, fmt);
    vsnprintf (b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end (ap);
    b->len += (size_t)n;
}

void gp_sbuf_puts (struct gp_sbuf *b, const char *s)
{
    size_t n = strlen (s);
    if (grow (b, n))
        return;
    memcpy (b->p + b->len, s, n + 1);
    b->len += n;
}

void gp_sbuf_putc (struct gp_sbuf *b, char c)
{
    if (grow (b, 1))
        return;
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

char *gp_sbuf_take (struct gp_sbuf *b, gp_error_t *err)
{
    if (!b->failed && !b->p)
        grow (b, 0);
    if (b->failed || !b->p) {
        free (b->p);
        b->p = NULL;
        gp_errprintf (err, GP_ENOMEM, "simulate: out of memory");
        return NULL;
    }
    if (b->len == 0)
        b->p[0] = '\0';
    char *p = b->p;
    memset (b, 0, sizeof *b);
    return p;
}
