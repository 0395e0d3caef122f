/* embed.h - data files compiled into the library (generated gp_embedded.c).
 * Internal: not installed.
 */
#ifndef GPUPLAN_CORE_EMBED_H
#define GPUPLAN_CORE_EMBED_H

#include <stddef.h>

struct gp__embedded_file {
    const char *name; /* path under data/, e.g. "catalog/accelerators.csv" */
    const char *data; /* NUL-terminated contents */
    size_t len;       /* bytes, without the terminating NUL */
};

/* NULL-terminated table generated at build time from data/. */
extern const struct gp__embedded_file gp__embedded_files[];

/* Return the embedded file called 'name', or NULL. */
const struct gp__embedded_file *gp__embedded_find (const char *name);

#endif
