/* train_ssm.c - hybrid Mamba-2/attention models (Nemotron-H) in the
 * training model: parameters per pattern layer, model FLOPs, layout
 * checks and activation memory.  The step-time pieces live in
 * train_time.c ("hybrid Mamba-2 layers").  Formulas and sources:
 * docs/model/training.md, "Hybrid Mamba-2/attention models".
 *
 * The training model works on an average pattern layer: the most loaded
 * pipeline stage holds ceil(L/p) pattern layers, each the mix of the
 * whole pattern (n_attn/L attention, n_mlp/L MLP, n_ssm/L Mamba-2).
 */
#include <string.h>

#include "gpuplan/arch.h"
#include "gpuplan/train.h"
#include "train_private.h"

void gp__ssm_prep (const struct gp_arch *b, const struct gp_param_count *pc,
                   struct gp_train_model *m)
{
    double L = m->layers;
    m->ssm_layers = b->n_ssm_layers;
    m->attn_layers = b->n_attn_layers;
    m->dense_layers = b->n_mlp_layers;
    m->moe_layers = 0;
    m->ssm_heads = b->ssm_heads;
    m->ssm_head_dim = b->ssm_head_dim;
    m->ssm_state = b->ssm_state;
    m->ssm_groups = b->ssm_groups;
    m->ssm_conv = b->ssm_conv;
    m->ssm_chunk = b->ssm_chunk;
    m->ssm_params = pc->ssm_per_layer;
    m->attn_layer_params = pc->attn_per_layer;
    /* mixer parameters per pattern layer: TP splits attention and the
     * Mamba-2 mixer alike (heads, groups and projections; Megatron-Core
     * MambaMixer)
     */
    m->attn_params = (m->attn_layers * pc->attn_per_layer
                      + m->ssm_layers * pc->ssm_per_layer)
                     / L;
    m->mlp_params = pc->dense_mlp_per_layer;
    m->total_params = pc->total;
    m->active_params = pc->total;
    m->matmul_active = L * m->attn_params + m->dense_layers * m->mlp_params
                       + (double)m->vocab * m->hidden;
}

double gp__ssm_scan_flops_per_token (const struct gp_train_model *m)
{
    /* SSD with chunk Q (Dao & Gu 2024, Sec. 6): per chunk C B^T (Q x Q x
     * N, once per group), the masked (Q x Q) x (Q x P) product per head,
     * the chunk states B^T X (N x Q x P) and the state output C h
     * (Q x N x P) per head; the scan over chunk states is O(N P / Q) per
     * token and left out.
     */
    double Q = m->ssm_chunk, N = m->ssm_state, P = m->ssm_head_dim;
    double H = m->ssm_heads, G = m->ssm_groups;
    return 2.0 * Q * N * G + H * (2.0 * Q * P + 4.0 * N * P);
}

double gp__ssm_model_flops_per_token (const struct gp_train_model *m,
                                      double seq_len)
{
    /* 6N + the attention term of the attention layers only + the SSD
     * scan (forward + backward = 3x forward, as for attention)
     */
    return 6.0 * m->matmul_active
           + 12.0 * m->attn_layers * seq_len * (double)m->heads * m->head_dim
           + 3.0 * m->ssm_layers * gp__ssm_scan_flops_per_token (m);
}

int gp__ssm_check (const struct gp_train_model *m, const struct gp_layout *l,
                   gp_error_t *err)
{
    if (l->cp > 1)
        return gp_errprintf (err, GP_EINVAL,
                             "cp %d: context parallelism for Mamba-2 layers "
                             "is not yet supported by the model",
                             l->cp);
    if (m->ssm_heads % l->tp || m->ssm_groups % l->tp)
        return gp_errprintf (err, GP_EINVAL,
                             "tp %d does not divide %d Mamba heads and %d "
                             "groups",
                             l->tp, m->ssm_heads, m->ssm_groups);
    if (l->ep > 1)
        return gp_errprintf (err, GP_EINVAL,
                             "ep %d: the hybrid model has no experts", l->ep);
    return 0;
}

/* Stored activations per token of one layer of each type, in units of
 * h bytes (16 bit): 'un' not split by TP without SP, 'sp' split.
 */
static void act_types (const struct gp_train_model *m, double *un_a,
                       double *sp_a, double *un_f, double *sp_f,
                       double *un_m, double *sp_m)
{
    double h = m->hidden;
    double qw = (double)m->heads * m->head_dim / h;
    double kvw = (double)m->kv_heads * m->head_dim / h;
    double ffn = m->ffn_hidden;
    double din = (double)m->ssm_heads * m->ssm_head_dim;
    double gn = (double)m->ssm_groups * m->ssm_state;
    /* attention layer: norm input 2, QKV input 2, mask 1 | Q, K, V,
     * projection input
     */
    /* the dropout mask only where the model trains with dropout
     * (docs/model/training.md, "Dropout masks")
     */
    double mask = m->no_dropout ? 0 : 1;
    *un_a = 2 + 2 + mask;
    *sp_a = 2 * qw + 4 * kvw + 2 * qw;
    /* MLP layer: norm input 2, MLP input 2, mask 1 | 4f/h or 6f/h */
    *un_f = 2 + 2 + mask;
    *sp_f = m->mlp_mats == 3 ? 6 * ffn / h : 4 * ffn / h;
    /* Mamba-2 layer: norm input 2, in_proj input 2 | in_proj output
     * (z, x, B, C, dt), conv output (SSD input x, B, C), SSD output y,
     * gated-norm input and output (out_proj input)
     */
    *un_m = 2 + 2;
    *sp_m = 2 * (2 * din + 2 * gn + m->ssm_heads) / h
            + 2 * (din + 2 * gn) / h + 2 * din / h + 2 * din / h
            + 2 * din / h;
}

double gp__ssm_act_layer_bytes (const struct gp_train_model *m,
                                const struct gp_layout *l, double seq_len,
                                int flash, enum gp_recompute rec)
{
    double s = seq_len / l->cp, t = l->tp, L = m->layers;
    double sbh = s * l->micro_batch * (double)m->hidden;
    if (rec == GP_RECOMP_FULL)
        return 2.0 * sbh / (l->seq_par ? t : 1);
    double ua, sa, uf, sf, um, sm;
    act_types (m, &ua, &sa, &uf, &sf, &um, &sm);
    double un = (m->attn_layers * ua + m->dense_layers * uf
                 + m->ssm_layers * um)
                / L;
    double sp = (m->attn_layers * sa + m->dense_layers * sf
                 + m->ssm_layers * sm)
                / L;
    double c = l->seq_par ? (un + sp) / t : un + sp / t;
    double attn_term = 0;
    if (!flash && rec != GP_RECOMP_SELECTIVE)
        attn_term = (m->no_dropout ? 2.0 : 5.0) * m->heads * s / m->hidden
                    / t * m->attn_layers / L; /* as act_coeffs (train.c) */
    return sbh * (c + attn_term);
}

double gp__ssm_act_fp8_save (const struct gp_train_model *m,
                             const struct gp_layout *l)
{
    double h = m->hidden, t = l->tp, L = m->layers;
    double din = (double)m->ssm_heads * m->ssm_head_dim;
    /* the first GEMM input of each layer (QKV, MLP, in_proj: 1 unsplit)
     * and the second's (projection, MLP down, out_proj: split)
     */
    double sp = (m->attn_layers * (double)m->heads * m->head_dim / h
                 + m->dense_layers * (double)m->ffn_hidden / h
                 + m->ssm_layers * din / h)
                / L;
    double un = 1;
    return l->seq_par ? (un + sp) / t : un + sp / t;
}
