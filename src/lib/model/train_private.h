/* train_private.h - pieces of the training plan shared inside the
 * library (not installed).
 */
#ifndef GPUPLAN_TRAIN_PRIVATE_H
#define GPUPLAN_TRAIN_PRIVATE_H

#include "gpuplan/train.h"

/* Attention score and value widths summed over heads: a*(d_qk + d_v);
 * 2*a*d for MHA/GQA, a*(qk_nope + qk_rope + v) for MLA.
 */
static inline double gp_train_attn_width2 (const struct gp_train_model *m)
{
    double dv = m->mla ? m->mla_v_dim : m->head_dim;
    return (double)m->heads * (m->head_dim + dv);
}

/* The neighbours of 'best' (one change each) with why each lost, into
 * 'alt' (GP_TRAIN_ALT_MAX entries); their number in '*n'.
 */
void gp_train_neighbours (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          const struct gp_train_result *best,
                          struct gp_train_neighbour *alt, size_t *n);

#endif
