/* embed.c - lookup in the table of data files compiled into the library. */
#include <string.h>

#include "embed.h"

const struct gp__embedded_file *gp__embedded_find (const char *name)
{
    for (const struct gp__embedded_file *f = gp__embedded_files; f->name; f++)
        if (strcmp (f->name, name) == 0)
            return f;
    return NULL;
}
