/* train_lora.c - LoRA fine-tuning in the training model: low-rank adapters
 * trained on frozen weights (Hu et al. 2021, arXiv 2106.09685; QLoRA,
 * Dettmers et al. 2023, arXiv 2305.14314).
 *
 * A LoRA layer computes y = W x + B A x with W (d_out x d_in) frozen, A
 * (r x d_in) and B (d_out x r) trained.  What changes against full
 * training, each written out in docs/model/training.md, "LoRA
 * fine-tuning":
 *   - backward through a frozen GEMM computes the activation gradient
 *     only (no weight-gradient GEMM): 2N instead of 4N FLOPs per token;
 *   - the adapters cost 6 FLOPs per adapter parameter per token;
 *   - memory: frozen weights at their storage precision, no gradients or
 *     optimizer states for them; adapters with gradients and Adam states;
 *   - data parallelism reduces the adapter gradients only;
 *   - the checkpoint holds the adapters only.
 * Activations are those of full training (the adapted layers' inputs are
 * kept for the adapters' weight gradients anyway).
 */
#include <math.h>
#include <string.h>

#include "gpuplan/train.h"
#include "train_lora.h"
#include "train_private.h"

const char *gp_finetune_str (int f)
{
    static const char *n[] = {"full", "lora"};
    return (unsigned)f < 2 ? n[f] : "?";
}

const char *gp_lora_targets_str (int t)
{
    static const char *n[] = {"attention", "mlp", "all-linear"};
    return (unsigned)t < 3 ? n[t] : "?";
}

int gp_lora_targets_parse (const char *s)
{
    for (int t = 0; s && t < 3; t++)
        if (!strcmp (s, gp_lora_targets_str (t)))
            return t;
    return -1;
}

/* Adapter parameters of one layer per GPU at tensor parallel 't'.  A
 * column-parallel layer (q, k, v; MLP up and gate) keeps A (r x h) whole
 * and splits B over TP; a row-parallel one (the attention output, MLP
 * down) splits A and keeps B whole (NeMo/Megatron ParallelLinearAdapter).
 * With t = 1: r * (d_in + d_out) per adapted layer.
 */
static double layer_params (const struct gp_train_model *m, int targets,
                            double r, double t)
{
    double h = m->hidden;
    double qd = (double)m->heads * m->head_dim;
    double kv = (double)m->kv_heads * m->head_dim;
    double f = m->ffn_hidden;
    double p = 0;
    if (targets == GP_LORA_ATTN || targets == GP_LORA_ALL)
        p += r * (3 * h + (qd + 2 * kv) / t) + r * (qd / t + h);
    if (targets == GP_LORA_MLP || targets == GP_LORA_ALL)
        p += (m->mlp_mats - 1) * r * (h + f / t) + r * (f / t + h);
    return p;
}

double gp_train_lora_params (const struct gp_train_model *m, int rank,
                             int targets)
{
    if (!m || rank < 1 || (unsigned)targets > GP_LORA_ALL)
        return 0;
    return m->layers * layer_params (m, targets, rank, 1);
}

double gp__lora_frozen_bytes (const struct gp_train_job *job)
{
    if (!gp__lora_on (job))
        return job->weight_bytes;
    return job->base_bytes > 0 ? job->base_bytes : 2;
}

double gp__lora_stage_params (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_layout *l)
{
    int Ls = (m->layers + l->pp - 1) / l->pp;
    double p = Ls * layer_params (m, job->lora_targets, job->lora_rank,
                                  l->tp);
    return l->schedule == GP_SCHED_DUALPIPE ? 2 * p : p;
}

/* Per-GPU bytes: the same rules as full training (gp_train_memory) applied
 * to the adapters, and the frozen weights at base precision, sharded over
 * dp x cp only by ZeRO-3/FSDP (ZeRO-1/2 shard optimizer states and
 * gradients, which frozen weights do not have).
 */
void gp__lora_memory (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_layout *l, double P,
                      struct gp_train_mem *o)
{
    double Pa = gp__lora_stage_params (m, job, l);
    double shard = (double)l->dp * l->cp;
    int sh = l->sharding;
    int z3 = sh == GP_SHARD_ZERO3 || sh == GP_SHARD_FSDP;
    double wb = sh == GP_SHARD_FSDP ? 0 : job->weight_bytes;
    double gb = sh == GP_SHARD_ZERO3 && job->grad_bytes > 2 ? 2
                                                            : job->grad_bytes;
    o->weights = (gp__lora_frozen_bytes (job) * P + wb * Pa)
                 / (z3 ? shard : 1);
    o->grads = gb * Pa / (sh >= GP_SHARD_ZERO2 ? shard : 1);
    o->optim = job->optim_bytes * Pa / (sh >= GP_SHARD_ZERO1 ? shard : 1);
}

/* The two adapter GEMMs of one adapted layer, forward: x A^T (T x r from
 * d_in) then (.) B^T (T x d_out from r), local widths. */
static double pair_s (const struct gp_train_hw *hw, double T, double r,
                      double din, double dout)
{
    return gp__train_gemm_s (hw, T, r, din) + gp__train_gemm_s (hw, T, dout, r);
}

void gp__lora_gemm (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw, const struct gp_layout *l,
                    double T, double *gemm_f, double *gemm_b)
{
    /* the adapters run in 16 bit: Megatron's ParallelLinearAdapter is
     * not a Transformer Engine module, so FP8 autocast leaves it alone
     * (no FP8 peak, no input cast)
     */
    struct gp_train_hw h16 = *hw;
    if (h16.peak_bf16_flops > 0)
        h16.peak_flops = h16.peak_bf16_flops;
    h16.fp8 = 0;
    h16.prec_gemm_eff = 0;
    hw = &h16;
    double t = l->tp, r = job->lora_rank, h = m->hidden;
    double qd = (double)m->heads * m->head_dim;
    double kv = (double)m->kv_heads * m->head_dim;
    double f = m->ffn_hidden;
    int tg = job->lora_targets;
    double ad = 0;
    if (tg == GP_LORA_ATTN || tg == GP_LORA_ALL)
        ad += pair_s (hw, T, r, h, qd / t) + 2 * pair_s (hw, T, r, h, kv / t)
              + pair_s (hw, T, r, qd / t, h);
    if (tg == GP_LORA_MLP || tg == GP_LORA_ALL)
        ad += (m->mlp_mats - 1) * pair_s (hw, T, r, h, f / t)
              + pair_s (hw, T, r, f / t, h);
    /* frozen: activation gradients only (one GEMM per forward GEMM);
     * adapters: activation and weight gradients (two per forward GEMM)
     */
    *gemm_b = *gemm_f + 2 * ad;
    *gemm_f += ad;
}

double gp_train_lora_flops_per_token (const struct gp_train_model *m,
                                      const struct gp_train_job *job,
                                      double seq_len)
{
    double pa = gp_train_lora_params (m, job->lora_rank, job->lora_targets);
    /* attention core: QK^T and PV forward (4 s a d per layer) and their
     * backward, which needs the gradients of Q, K and V (activations):
     * 12 L s a d, as in full training
     */
    double attn = 6.0 * m->layers * seq_len * gp_train_attn_width2 (m);
    return 4.0 * m->matmul_active + 6.0 * pa + attn;
}

void gp__lora_rates (const struct gp_train_model *m,
                     const struct gp_train_job *job, double seq_len,
                     enum gp_recompute rec, double rfrac,
                     double *model_fpt, double *hw_fpt)
{
    double pa = gp_train_lora_params (m, job->lora_rank, job->lora_targets);
    double attn = 6.0 * m->layers * seq_len * gp_train_attn_width2 (m);
    *model_fpt = gp_train_lora_flops_per_token (m, job, seq_len);
    *hw_fpt = *model_fpt;
    if (rec == GP_RECOMP_FULL)
        *hw_fpt += rfrac * (2.0 * m->matmul_active + 2.0 * pa + attn / 3.0);
    else if (rec == GP_RECOMP_SELECTIVE)
        *hw_fpt += attn / 3.0;
}

double gp__lora_ckpt_bytes (const struct gp_train_model *m,
                            const struct gp_train_job *job)
{
    return gp_train_lora_params (m, job->lora_rank, job->lora_targets)
           * (job->weight_bytes + job->optim_bytes);
}

int gp_train_lora_check (const struct gp_train_model *m,
                         const struct gp_train_job *job, gp_error_t *err)
{
    if (!gp__lora_on (job)) {
        if (job->finetune != GP_FT_FULL)
            return gp_errprintf (err, GP_EINVAL,
                                 "finetune: unknown value %d (full or lora)",
                                 job->finetune);
        return 0;
    }
    if (job->lora_rank < 1)
        return gp_errprintf (err, GP_EINVAL,
                             "lora_rank: must be >= 1 (got %d)",
                             job->lora_rank);
    if (job->lora_rank > m->hidden)
        return gp_errprintf (err, GP_EINVAL,
                             "lora_rank: %d exceeds the hidden size %d (a "
                             "low-rank adapter has r < d)",
                             job->lora_rank, m->hidden);
    if ((unsigned)job->lora_targets > GP_LORA_ALL)
        return gp_errprintf (err, GP_EINVAL,
                             "lora_targets: unknown value %d (attention, "
                             "mlp or all-linear)", job->lora_targets);
    if (job->base_bytes != 0 && job->base_bytes != 1 && job->base_bytes != 2)
        return gp_errprintf (err, GP_EINVAL,
                             "base_precision: %g bytes per weight (bf16 = "
                             "2 or fp8 = 1)", job->base_bytes);
    if (m->moe_experts > 0)
        return gp_errprintf (err, GP_EINVAL,
                             "finetune: lora on a MoE model (%d experts) is "
                             "not yet supported", m->moe_experts);
    if (m->mla)
        return gp_errprintf (err, GP_EINVAL,
                             "finetune: lora on multi-head latent attention "
                             "is not yet supported");
    if (m->ssm_layers > 0)
        return gp_errprintf (err, GP_EINVAL,
                             "finetune: lora on a hybrid Mamba model is not "
                             "yet supported");
    return 0;
}

int gp__lora_request (const struct gp_train_request *rq,
                      const struct gp_train_model *m,
                      struct gp_train_job *job, gp_error_t *err)
{
    if (rq->finetune != GP_FT_LORA) {
        if (rq->finetune > GP_FT_LORA || rq->finetune < -1)
            return gp_errprintf (err, GP_EINVAL,
                                 "train: finetune: unknown value %d (full "
                                 "or lora)", rq->finetune);
        if (rq->lora_rank != 0 || rq->lora_targets >= 0
            || rq->base_precision >= 0)
            return gp_errprintf (err, GP_EINVAL,
                                 "train: lora_rank, lora_targets and "
                                 "base_precision need finetune: lora (flag "
                                 "--finetune lora)");
        return 0;
    }
    job->finetune = GP_FT_LORA;
    job->lora_rank = rq->lora_rank != 0 ? rq->lora_rank
                                        : GP_LORA_RANK_DEFAULT;
    job->lora_targets = rq->lora_targets >= 0 ? rq->lora_targets
                                              : GP_LORA_ATTN;
    if (rq->base_precision >= 0 && rq->base_precision != GP_PREC_BF16
        && rq->base_precision != GP_PREC_FP8)
        return gp_errprintf (err, GP_EINVAL,
                             "train: base_precision: %s is not a storage "
                             "precision for frozen weights (bf16 or fp8)",
                             gp_precision_str (rq->base_precision));
    job->base_bytes = rq->base_precision == GP_PREC_FP8 ? 1 : 2;
    gp_error_t e = {0};
    int rc = gp_train_lora_check (m, job, &e);
    return rc ? gp_errprintf (err, rc, "train: %s", e.text) : 0;
}
