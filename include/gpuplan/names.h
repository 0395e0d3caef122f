/* gpuplan/names.h - the closest names to a misspelt one. */
#ifndef GPUPLAN_NAMES_H
#define GPUPLAN_NAMES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write up to 'max' ids from 'ids' closest to 'name' (edit distance,
 * case-insensitive) into 'out' as "A, B, C".  Returns the number written.
 * Shared by every "did you mean" message.
 */
size_t gp_closest_names (const char *name,
                         const char *const *ids,
                         size_t n_ids,
                         size_t max,
                         char *out,
                         size_t out_size);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_NAMES_H */
