/* strpool.h - a list of owned strings freed together (internal).
 * Tables loaded from CSV keep their text here so rows can hold plain
 * 'const char *' fields that live as long as the table.
 */
#ifndef GPUPLAN_CORE_STRPOOL_H
#define GPUPLAN_CORE_STRPOOL_H

#include <stddef.h>

struct gp__strpool {
    char **s;
    size_t n, cap;
};

/* Copy 's' into the pool; returns the copy, or NULL when out of memory. */
const char *gp__strpool_dup (struct gp__strpool *p, const char *s);

/* Free every string and the list; the pool is empty afterwards. */
void gp__strpool_free (struct gp__strpool *p);

#endif
