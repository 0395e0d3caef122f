/* train_private.h - pieces of the training plan shared inside the
 * library (not installed).
 */
#ifndef GPUPLAN_TRAIN_PRIVATE_H
#define GPUPLAN_TRAIN_PRIVATE_H

#include "gpuplan/train.h"

/* The neighbours of 'best' (one change each) with why each lost, into
 * 'alt' (GP_TRAIN_ALT_MAX entries); their number in '*n'.
 */
void gp_train_neighbours (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          const struct gp_train_result *best,
                          struct gp_train_neighbour *alt, size_t *n);

#endif
