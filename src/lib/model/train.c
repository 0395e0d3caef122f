/* train.c - training memory, FLOPs and step time of a transformer under a
 * parallel layout (tensor, pipeline, data, context and expert parallelism,
 * ZeRO/FSDP sharding, activation recomputation).
 *
 * The model is first-principles arithmetic plus a handful of efficiency
 * factors per GPU generation (gp_train_eff_for, from the catalog): achieved GEMM throughput
 * as a function of GEMM shape, flash-attention efficiency, achieved HBM
 * bandwidth, achieved collective bus bandwidth on the scale-up and
 * scale-out links.  Every formula is written out, with its source, in
 * docs/model/training.md; the section names there match the banners here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/defaults.h"
#include "gpuplan/train.h"
#include "train_lora.h"
#include "train_private.h"

const char *gp_sharding_str (enum gp_sharding s)
{
    static const char *n[] = {"none", "zero1", "zero2", "zero3", "fsdp"};
    return (unsigned)s < 5 ? n[s] : "?";
}

const char *gp_recompute_str (enum gp_recompute r)
{
    static const char *n[] = {"none", "selective", "full"};
    return (unsigned)r < 3 ? n[r] : "?";
}

int gp_train_chunk_layers (const struct gp_layout *l, int layers)
{
    int pp = l->pp > 0 ? l->pp : 1, vpp = l->vpp > 0 ? l->vpp : 1;
    int c = (layers + pp - 1) / pp / vpp;
    return c > 0 ? c : 1;
}

double gp_train_recomp_frac (const struct gp_layout *l, int layers)
{
    if (l->recompute != GP_RECOMP_FULL)
        return 0;
    int c = gp_train_chunk_layers (l, layers);
    if (l->recompute_layers <= 0 || l->recompute_layers >= c)
        return 1;
    return (double)l->recompute_layers / c;
}

char *gp_recompute_fmt (const struct gp_layout *l, int layers, char *buf,
                        size_t n)
{
    int c = gp_train_chunk_layers (l, layers);
    if (l->recompute == GP_RECOMP_FULL && l->recompute_layers > 0
        && (layers <= 0 || l->recompute_layers < c)) {
        if (layers > 0)
            snprintf (buf, n, "full:%d/%d", l->recompute_layers, c);
        else
            snprintf (buf, n, "full:%d", l->recompute_layers);
    }
    else
        snprintf (buf, n, "%s", gp_recompute_str (l->recompute));
    return buf;
}

/* Model families trained with dropout 0 (no dropout masks stored):
 * docs/model/training.md, "Dropout masks", gives each family's source
 * (the Hugging Face config.json attention/hidden dropout 0.0 of its
 * released checkpoints, or the paper).  Others keep the masks.
 */
static int family_no_dropout (const char *fam)
{
    static const char *const f[] = {
        "llama",    "llama2",  "llama3",     "llama3.1", "llama3.2",
        "llama3.3", "llama4",  "mistral",    "mixtral",  "qwen2.5",
        "qwen3",    "deepseek", "kimi",      "gemma2",   "gemma3",
        "olmo2",    "phi4",    "yi",         "nemotron", "nemotron-h",
        "falcon",   "mpt",     "palm",
    };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (!strcasecmp (fam, f[i]))
            return 1;
    return 0;
}

const char *gp_precision_str (enum gp_precision p)
{
    static const char *n[] = {"bf16", "fp16", "fp8", "mxfp8", "nvfp4",
                              "fp8-delayed", "fp4", "mxfp4", "int8"};
    return (unsigned)p < sizeof n / sizeof *n ? n[p] : "?";
}

const char *gp_schedule_str (enum gp_schedule s)
{
    static const char *n[] = {"1f1b", "a2a-overlap", "dualpipe"};
    return (unsigned)s < 3 ? n[s] : "?";
}

/* ============================ model and job ============================ */

int gp_train_prep (const struct gp_arch *a, struct gp_train_model *m,
                   gp_error_t *err)
{
    if (!a || !m)
        return gp_errprintf (err, GP_EINVAL, "train: no model");
    if (a->layers <= 0 || a->hidden <= 0 || a->heads <= 0 || a->vocab <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "model '%s': layers, hidden, heads and vocab "
                             "are required", a->id);
    if (a->moe_experts <= 0 && a->ffn_hidden <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "model '%s': ffn_hidden is required", a->id);
    if (a->moe_experts > 0 && (a->moe_topk <= 0 || a->moe_ffn_hidden <= 0))
        return gp_errprintf (err, GP_EINVAL,
                             "model '%s': MoE needs moe_topk and "
                             "moe_ffn_hidden", a->id);
    struct gp_arch b = *a;
    if (b.kv_heads <= 0)
        b.kv_heads = b.heads;
    if (b.head_dim <= 0) {
        /* derived: the heads split the hidden size evenly (a remainder
         * or a head narrower than one element is no transformer)
         */
        if (b.heads <= 0 || b.hidden < b.heads || b.hidden % b.heads)
            return gp_errprintf (err, GP_EINVAL,
                                 "model '%s': hidden (%d) must be a "
                                 "multiple of heads (%d)",
                                 a->id, b.hidden, b.heads);
        b.head_dim = b.hidden / b.heads;
    }
    if (b.layer_pattern[0] && gp_arch_pattern_count (&b, err) != 0)
        return GP_EINVAL;
    if (b.layer_pattern[0] && (int)strlen (b.layer_pattern) != b.layers)
        return gp_errprintf (err, GP_EINVAL,
                             "model '%s': %d layers, but its layer_pattern "
                             "has %d (a hybrid model's layers come from the "
                             "pattern)",
                             a->id, b.layers, (int)strlen (b.layer_pattern));
    struct gp_param_count pc;
    gp_arch_params (&b, &pc);
    memset (m, 0, sizeof *m);
    m->layers = b.layers;
    m->hidden = b.hidden;
    m->heads = b.heads;
    m->kv_heads = b.kv_heads;
    m->head_dim = b.head_dim;
    m->vocab = b.vocab;
    if (b.attention == GP_ATTN_MLA && b.mla_kv_lora_rank > 0
        && b.mla_v_head_dim > 0) {
        m->mla = 1;
        m->mla_q_lora = b.mla_q_lora_rank > 0 ? b.mla_q_lora_rank : 0;
        m->mla_kv_lora = b.mla_kv_lora_rank;
        m->mla_rope = b.mla_qk_rope_head_dim;
        m->mla_v_dim = b.mla_v_head_dim;
    }
    m->mlp_mats = b.mlp == GP_MLP_SWIGLU ? 3 : 2;
    m->ffn_hidden = b.ffn_hidden;
    m->moe_ffn_hidden = b.moe_ffn_hidden;
    m->moe_experts = b.moe_experts > 0 ? b.moe_experts : 0;
    m->moe_topk = m->moe_experts ? b.moe_topk : 0;
    m->moe_shared = m->moe_experts ? b.moe_shared_experts : 0;
    m->attn_params = pc.attn_per_layer;
    m->mlp_params = pc.dense_mlp_per_layer;
    m->moe_params = pc.moe_all_per_layer;
    m->expert_params = (double)m->mlp_mats * b.hidden * b.moe_ffn_hidden;
    m->moe_layers = m->moe_experts ? pc.moe_layers : 0;
    m->dense_layers = m->moe_experts ? pc.dense_layers : b.layers;
    if (m->moe_layers + m->dense_layers != m->layers) {
        m->dense_layers = m->layers - m->moe_layers;
        if (m->dense_layers < 0)
            m->dense_layers = 0;
    }
    m->embed_params = pc.embedding;
    m->total_params = pc.total > 0 ? pc.total
                                   : m->layers * m->attn_params
                                         + m->dense_layers * m->mlp_params
                                         + m->moe_layers * m->moe_params
                                         + m->embed_params;
    double moe_active = m->moe_experts
                            ? (m->moe_topk + m->moe_shared) * m->expert_params
                            : 0;
    m->active_params = m->layers * m->attn_params
                       + m->dense_layers * m->mlp_params
                       + m->moe_layers * moe_active + m->embed_params;
    m->matmul_active = m->layers * m->attn_params
                       + m->dense_layers * m->mlp_params
                       + m->moe_layers * moe_active
                       + (double)m->vocab * m->hidden;
    if (b.layer_pattern[0])
        gp__ssm_prep (&b, &pc, m);
    m->no_dropout = family_no_dropout (b.family);
    return 0;
}

void gp_train_job_default (struct gp_train_job *job)
{
    memset (job, 0, sizeof *job);
    job->seq_len = 4096;
    job->global_batch = gp_train_batch_sequences (0, job->seq_len);
    job->precision = GP_PREC_BF16;
    job->weight_bytes = 2;
    job->grad_bytes = 4;
    job->optim_bytes = 12;
    job->flash_attn = 1;
}

double gp_train_batch_sequences (double batch_tokens, double seq_len)
{
    double bt = batch_tokens > 0
                    ? batch_tokens
                    : gp_default (NULL, GP_DEF_TRAIN_BATCH_TOKENS);
    double b = exp2 (floor (log2 (bt / seq_len) + 0.5));
    return b < 1 ? 1 : b;
}

double gp_train_model_flops_per_token (const struct gp_train_model *m,
                                       double seq_len)
{
    if (m->ssm_layers > 0)
        return gp__ssm_model_flops_per_token (m, seq_len);
    /* 12*L*s*a*d = 6*L*s*a*(d_qk + d_v): QK^T and PV, forward + backward */
    if (!m->mla)
        return 6.0 * m->matmul_active
               + 12.0 * m->layers * seq_len * (double)m->heads * m->head_dim;
    return 6.0 * m->matmul_active
           + 6.0 * m->layers * seq_len * gp_train_attn_width2 (m);
}

/* ======================= efficiency by generation ====================== */

/* The factors are catalog data (data/catalog/generations.csv), documented
 * in docs/model/training.md, "Efficiency factors"; sources are public
 * microbenchmarks, not the validation rows.  Without a generation (a
 * hand-built accelerator) the factors are ideal: 1, no kernel overhead.
 */
void gp_train_eff_for (const struct gp_generation *g, struct gp_train_eff *eff)
{
    if (!g) {
        *eff = (struct gp_train_eff){"none", 1, 0, 1, 1, 1, 1, 0, 0};
        return;
    }
    eff->generation = g->id;
    eff->gemm_max = g->train_gemm_max;
    eff->gemm_dim_half = g->train_gemm_dim_half;
    eff->attn = g->train_attn;
    eff->hbm = g->train_hbm;
    eff->scale_up = g->train_scale_up;
    eff->scale_out = g->train_scale_out;
    eff->kernel_s = g->train_kernel_s;
    eff->attn_cudnn = g->train_attn_cudnn;
}

static int uses_cudnn (const struct gp_train_eff *e, int kernel)
{
    return kernel != GP_ATTN_FA2 && e->attn_cudnn > 0;
}

double gp_train_attn_eff (const struct gp_train_eff *e, int kernel)
{
    return uses_cudnn (e, kernel) ? e->attn_cudnn : e->attn;
}

const char *gp_train_attn_figure (const struct gp_train_eff *e, int kernel)
{
    return uses_cudnn (e, kernel) ? "train_attn_cudnn" : "train_attn";
}

const char *gp_attn_kernel_str (int kernel)
{
    switch (kernel) {
    case GP_ATTN_AUTO: return "auto";
    case GP_ATTN_FA2: return "fa2";
    case GP_ATTN_CUDNN: return "cudnn";
    default: return NULL;
    }
}

void gp_train_hw_from_accel (const struct gp_accel *a,
                             enum gp_precision precision,
                             struct gp_train_hw *hw)
{
    memset (hw, 0, sizeof *hw);
    strncpy (hw->accel_id, a->id, sizeof hw->accel_id - 1);
    hw->peak_bf16_flops = gp_accel_peak_flops (a, "bf16");
    hw->peak_flops = gp_accel_peak_flops (a, gp_precision_str (precision));
    if (hw->peak_flops <= 0)
        hw->peak_flops = hw->peak_bf16_flops;
    /* The capacity an allocator can reach: the total the CUDA driver
     * reports where the catalog has it (cuda_memory_gib), else the
     * vendor's figure (docs/model/training.md, "Memory capacity").
     */
    hw->mem_bytes = a->cuda_mem_bytes > 0 ? a->cuda_mem_bytes : a->mem_bytes;
    hw->mem_bw = a->mem_bw > 0 ? a->mem_bw : 1e12;
    hw->scale_up_bw = a->scale_up_bw > 0 ? a->scale_up_bw / 2 : 32e9;
    hw->scale_up_domain = a->scale_up_domain > 0 ? a->scale_up_domain : 1;
    /* Accelerators per host: the catalog's host_accelerators (GB200/GB300
     * compute trays 4, trn1/trn2 16, TPU VM hosts 4), else the scale-up
     * domain up to 8.
     */
    hw->gpus_per_node = a->host_accels > 0 ? a->host_accels
                        : hw->scale_up_domain >= 8 ? 8
                                                   : hw->scale_up_domain;
    /* Per-GPU scale-out NIC, one direction: the accelerator's nic_gbps
     * (800 Gb/s ConnectX-8 on GB300), else its generation's (HDR 200 Gb/s
     * per A100 in a DGX A100, NDR 400 Gb/s per H100/B200/MI300X GPU);
     * 400 Gb/s without a generation.
     */
    hw->scale_out_bw = a->nic_bw > 0   ? a->nic_bw
                       : a->gen != NULL ? a->gen->nic_bw
                                        : 50e9;
    hw->scale_out_lat_s = 5e-6;
    hw->oversub = 1;
    hw->tdp_w = a->tdp_w;
    hw->util_power = 0.8;
    hw->runtime_bytes = 2.0 * 1073741824.0;
    hw->fp8 = precision == GP_PREC_FP8 && gp_accel_peak_flops (a, "fp8") > 0;
    gp_train_eff_for (a->gen, &hw->eff);
    /* NVLink SHARP: the generation's NVLS share on NVSwitch systems (an
     * 8-GPU-or-larger NVLink domain; not PCIe cards or NVLink bridges).
     */
    if (a->gen && a->gen->nvls_algbw > 0 && hw->scale_up_domain >= 8)
        hw->nvls_share = a->gen->nvls_algbw;
    /* precision mechanism terms and the host link (train_prec.c) */
    gp__prec_hw (a, precision, hw);
}

/* ============================== checks ================================ */

/* Partial (block) recomputation: 0 <= recompute_layers <= the layers of
 * a (virtual) pipeline chunk, and only with recompute full.
 */
static int recompute_layers_check (const struct gp_train_model *m,
                                   const struct gp_layout *l,
                                   gp_error_t *err)
{
    int c = gp_train_chunk_layers (l, m->layers);
    if (l->recompute_layers < 0 || l->recompute_layers > c)
        return gp_errprintf (err, GP_EINVAL,
                             "recompute_layers %d: must be 0 (every layer) "
                             "to %d, the layers of one pipeline chunk",
                             l->recompute_layers, c);
    if (l->recompute_layers > 0 && l->recompute != GP_RECOMP_FULL)
        return gp_errprintf (err, GP_EINVAL,
                             "recompute_layers %d needs recompute full",
                             l->recompute_layers);
    return 0;
}

int gp_train_check (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_layout *l,
                    gp_error_t *err)
{
    if (l->tp < 1 || l->pp < 1 || l->dp < 1 || l->cp < 1 || l->ep < 1
        || l->vpp < 1 || l->micro_batch < 1)
        return gp_errprintf (err, GP_EINVAL, "layout degrees must be >= 1");
    if (m->ssm_layers > 0 && gp__ssm_check (m, l, err) != 0)
        return GP_EINVAL;
    /* LoRA: the fine-tuning fields and the models it supports */
    if (gp__lora_on (job) && gp_train_lora_check (m, job, err) != 0)
        return GP_EINVAL;
    /* MoE group-limited routing (train_moe.c) */
    if (gp__moe_route_check (m, job, err) != 0)
        return GP_EINVAL;
    if (m->heads % l->tp)
        return gp_errprintf (err, GP_EINVAL, "tp %d does not divide %d heads",
                             l->tp, m->heads);
    if (m->kv_heads % l->tp && l->tp % m->kv_heads)
        return gp_errprintf (err, GP_EINVAL,
                             "tp %d and %d kv heads do not divide", l->tp,
                             m->kv_heads);
    /* the embedding and the loss may count as one pipeline layer each
     * (Megatron-Core account_for_embedding_in_pipeline_split and
     * account_for_loss_in_pipeline_split, set by the Llama 3.1 405B
     * recipes): pp*vpp up to layers + 2
     */
    if (l->pp * l->vpp > m->layers + (l->vpp > 1 ? 2 : 0))
        return gp_errprintf (err, GP_EINVAL,
                             "pp*vpp %d exceeds %d layers", l->pp * l->vpp,
                             m->layers);
    if (l->vpp > 1 && l->pp < 2)
        return gp_errprintf (err, GP_EINVAL, "vpp > 1 needs pp > 1");
    /* CPU activation offload (Megatron-Core): pp 1, no recomputation,
     * fewer offloaded layers than layers
     */
    if (l->offload_layers > 0
        && (l->pp > 1 || l->recompute != GP_RECOMP_NONE
            || l->offload_layers >= m->layers))
        return gp_errprintf (err, GP_EINVAL,
                             "activation offload needs pp 1, no "
                             "recomputation and fewer than %d layers",
                             m->layers);
    if (recompute_layers_check (m, l, err))
        return GP_EINVAL;
    /* host-offloaded remat checkpoints (train_prec.c) */
    if (job->remat_offload && gp__remat_offload_check (m, l, err))
        return GP_EINVAL;
    double rep = (double)l->dp * l->micro_batch;
    double mb = job->global_batch / rep;
    if (mb < 1 || fabs (mb - floor (mb + 0.5)) > 1e-9)
        return gp_errprintf (err, GP_EINVAL,
                             "dp %d x micro-batch %d does not divide the "
                             "global batch %.0f", l->dp, l->micro_batch,
                             job->global_batch);
    if (l->vpp > 1 && ((long long)floor (mb + 0.5)) % l->pp)
        return gp_errprintf (err, GP_EINVAL,
                             "interleaving needs micro-batches (%.0f) "
                             "divisible by pp %d", mb, l->pp);
    if (l->cp > 1 && fmod (job->seq_len, 2.0 * l->cp) != 0)
        return gp_errprintf (err, GP_EINVAL,
                             "cp %d does not divide sequence %.0f into "
                             "2*cp chunks", l->cp, job->seq_len);
    if (l->ep > 1) {
        if (!m->moe_experts || m->moe_experts % l->ep)
            return gp_errprintf (err, GP_EINVAL,
                                 "ep %d does not divide %d experts", l->ep,
                                 m->moe_experts);
        if ((l->tp * l->dp * l->cp) % l->ep)
            return gp_errprintf (err, GP_EINVAL,
                                 "ep %d does not divide tp*dp*cp %d", l->ep,
                                 l->tp * l->dp * l->cp);
    }
    if ((unsigned)l->schedule > GP_SCHED_DUALPIPE)
        return gp_errprintf (err, GP_EINVAL, "unknown pipeline schedule");
    if (l->schedule == GP_SCHED_DUALPIPE
        && (l->pp < 2 || l->pp % 2 || l->vpp > 1))
        return gp_errprintf (err, GP_EINVAL,
                             "dualpipe needs an even pp >= 2 and vpp 1 "
                             "(pp %d, vpp %d)", l->pp, l->vpp);
    return 0;
}

/* ============================== memory ================================ */

/* Korthikanti et al. 2022, Sec. 4.1: per layer s*b*h*(34 + 5*a*s/h)
 * bytes with 16-bit activations, generalised to GQA, SwiGLU and MoE by
 * counting the same stored tensors (docs/model/training.md).  'unsplit'
 * counts the h-wide tensors that TP splits only with sequence parallelism
 * (layer-norm inputs 4, dropout masks 2, QKV and MLP inputs 4 = 10).
 */
static double act_coeffs (const struct gp_train_model *m,
                          const struct gp_layout *l,
                          double s, double *attn_term)
{
    double h = m->hidden, t = l->tp;
    double qw = (double)m->heads * m->head_dim / h;
    double kvw = (double)m->kv_heads * m->head_dim / h;
    /* attention: QKV input 2, Q 2qw, K and V 4kvw, proj input 2qw, mask 1 */
    double attn_split = 2 * qw + 4 * kvw + 2 * qw;
    if (m->mla) {
        /* MLA: the latents c_q (q_lora), c_kv + k_rope (kv_lora + rope),
         * Q and K (a*d_qk each), V and the projection input (a*d_v
         * each), 2 bytes per element.  Recomputing the up-projections
         * (selective recompute; DeepSeek-V3 Sec. 3.2.3, Megatron-Core
         * recompute module mla_up_proj) drops Q, K and V.
         */
        double vw = (double)m->heads * m->mla_v_dim / h;
        double lat = 2.0 * (m->mla_q_lora + m->mla_kv_lora + m->mla_rope)
                     / h;
        attn_split = lat + 2 * qw + 2 * qw + 2 * vw + 2 * vw;
        if (l->recompute == GP_RECOMP_SELECTIVE)
            attn_split = lat + 2 * vw;
    }
    double mlp_split;
    double ffn = m->ffn_hidden;
    if (m->moe_layers > 0 && m->layers > 0) {
        double fm = m->moe_ffn_hidden;
        double per = m->mlp_mats == 3 ? 6 * fm / h : 4 * fm / h;
        /* + the dispatched copies of the input, one per routed expert */
        double moe = per * (m->moe_topk + m->moe_shared) + 2.0 * m->moe_topk;
        double dense = m->mlp_mats == 3 ? 6 * ffn / h : 4 * ffn / h;
        mlp_split = (moe * m->moe_layers + dense * m->dense_layers) / m->layers;
    } else {
        mlp_split = m->mlp_mats == 3 ? 6 * ffn / h : 4 * ffn / h;
    }
    double unsplit = 4 /* LN */ + 2 /* masks */ + 2 /* QKV in */
                     + 2 /* MLP in */;
    double split = attn_split + mlp_split;
    /* 5as/h: scores 2, softmax-dropout mask 1, dropout output 2 */
    *attn_term = 5.0 * m->heads * s / h / t;
    /* dropout 0: PyTorch's dropout returns its input, so neither the two
     * residual masks nor the attention mask and dropout output exist
     * (docs/model/training.md, "Dropout masks")
     */
    if (m->no_dropout) {
        unsplit -= 2;
        *attn_term = 2.0 * m->heads * s / h / t;
    }
    return l->seq_par ? (unsplit + split) / t : unsplit + split / t;
}

double gp_train_act_layer_bytes (const struct gp_train_model *m,
                                 const struct gp_layout *l, double seq_len,
                                 int flash)
{
    if (m->ssm_layers > 0)
        return gp__ssm_act_layer_bytes (m, l, seq_len, flash, l->recompute);
    /* micro-batch sequences, each split over cp */
    double s = seq_len / l->cp;
    double sbh = s * l->micro_batch * (double)m->hidden;
    double attn_term;
    double c = act_coeffs (m, l, s, &attn_term);
    if (l->recompute == GP_RECOMP_FULL)
        return 2.0 * sbh / (l->seq_par ? l->tp : 1);
    if (l->recompute == GP_RECOMP_SELECTIVE || flash)
        attn_term = 0;
    return sbh * (c + attn_term);
}

/* FP8 GEMMs (Transformer Engine; DeepSeek-V3 Sec. 3.3.3) keep the FP8
 * cast of each GEMM input for the backward pass: 1 byte instead of 2 per
 * element of the QKV input (MLA: and the latents), the projection input,
 * the MLP input and the second MLP GEMM's input, and of every routed
 * copy's expert input and SwiGLU output.  Returned in units of s*b*h
 * bytes per layer, split like act_coeffs.
 */
static double act_fp8_save (const struct gp_train_model *m,
                            const struct gp_layout *l)
{
    if (m->ssm_layers > 0)
        return gp__ssm_act_fp8_save (m, l);
    double h = m->hidden, t = l->tp;
    double vd = m->mla ? m->mla_v_dim : m->head_dim;
    double split = (double)m->heads * vd / h;
    if (m->mla)
        split += (m->mla_q_lora + m->mla_kv_lora) / h;
    double dense = (double)m->ffn_hidden / h;
    if (m->moe_layers > 0 && m->layers > 0) {
        double fm = (double)m->moe_ffn_hidden / h;
        double moe = m->moe_topk * (1 + fm) + m->moe_shared * fm;
        split += (moe * m->moe_layers + dense * m->dense_layers) / m->layers;
    } else
        split += dense;
    double unsplit = 2; /* QKV and MLP inputs */
    return l->seq_par ? (unsplit + split) / t : unsplit + split / t;
}

/* Stored activation bytes of one layer averaged over a stage: with
 * partial (block) recomputation the fraction f = gp_train_recomp_frac of
 * layers keeps only its input, the rest keep everything they keep
 * without recomputation (docs/model/training.md, "Partial (block)
 * recomputation").
 */
static double act_stored (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          const struct gp_layout *l)
{
    double f = gp_train_recomp_frac (l, m->layers);
    struct gp_layout kl = *l;
    if (l->recompute == GP_RECOMP_FULL && f < 1)
        kl.recompute = GP_RECOMP_NONE;
    double a = gp_train_act_layer_bytes (m, &kl, job->seq_len,
                                         job->flash_attn);
    if (hw->fp8 && kl.recompute != GP_RECOMP_FULL)
        a -= job->seq_len / l->cp * l->micro_batch * (double)m->hidden
             * act_fp8_save (m, l) * gp__prec_save_scale (hw);
    if (f <= 0 || f >= 1)
        return a;
    double in = gp_train_act_layer_bytes (m, l, job->seq_len,
                                          job->flash_attn);
    return (1 - f) * a + f * in;
}

/* The same without recompute: the working set of one layer. */
static double act_layer_full (const struct gp_train_model *m,
                              const struct gp_layout *l, double seq_len,
                              int flash)
{
    if (m->ssm_layers > 0)
        return gp__ssm_act_layer_bytes (m, l, seq_len, flash,
                                        GP_RECOMP_NONE);
    double s = seq_len / l->cp;
    double sbh = s * l->micro_batch * (double)m->hidden;
    double attn_term;
    double c = act_coeffs (m, l, s, &attn_term);
    return sbh * (c + (flash ? 0 : attn_term));
}

/* Runtime: CUDA context + NCCL (hw->runtime_bytes) and 5 % allocator
 * fragmentation of the rest ('sub'), docs/model/training.md.
 */
static double runtime_of (const struct gp_train_hw *hw, double sub)
{
    return hw->runtime_bytes + 0.05 * sub;
}

/* gp_train_memory's total is sub + runtime_of(sub) with sub = weights +
 * grads + optim + (activations, logits, buffers: each >= 0), summed left
 * to right; IEEE addition and multiplication by 0.05 are monotone, so
 * the three state terms alone give a total no larger, whatever the other
 * terms are.
 */
int gp__train_mem_state_oom (const struct gp_train_hw *hw,
                             const struct gp_train_mem *mem)
{
    double sub = mem->weights + mem->grads + mem->optim;
    return mem->capacity > 0 && mem->capacity - (sub + runtime_of (hw, sub)) < 0;
}

double gp__train_mem_inflight (const struct gp_train_job *job,
                               const struct gp_layout *l)
{
    double pp = l->pp;
    double mbs = job->global_batch / ((double)l->dp * l->micro_batch);
    /* DualPipe: PP + 1 micro-batches (DeepSeek-V3 Table 2) */
    if (l->schedule == GP_SCHED_DUALPIPE)
        return mbs < pp + 1 ? mbs : pp + 1;
    return pp > 1 ? (mbs < pp ? mbs : pp) : 1;
}

/* ZeRO-3/FSDP parameters gathered at once for layers of 'lp' parameters:
 * the layer being computed plus prefetch, at most two layers and at most
 * DeepSpeed's default live-parameter budget (stage3_max_live_parameters
 * = 1e9) beyond one layer.
 */
static double z3_live (double lp)
{
    double live = lp > 1e9 ? lp : 1e9;
    return live > 2 * lp ? 2 * lp : live;
}

void gp_train_memory (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_train_hw *hw,
                      const struct gp_layout *l,
                      struct gp_train_mem *o)
{
    memset (o, 0, sizeof *o);
    double t = l->tp, pp = l->pp;
    int Ls = (m->layers + l->pp - 1) / l->pp;
    double dense_frac = m->layers ? (double)m->dense_layers / m->layers : 1;
    double moe_frac = 1 - dense_frac;
    double routed = m->moe_experts * m->expert_params;
    double shared = m->moe_params - routed;
    /* Routed experts are split over EP only (expert tensor parallel 1),
     * everything else over TP.
     */
    double layer_p = m->attn_params / t + dense_frac * m->mlp_params / t
                     + moe_frac * shared / t;
    double layer_x = moe_frac * routed / l->ep;
    double emb = (double)m->vocab * m->hidden / t;
    /* First stage: layers + input embedding (+ positions); with pp = 1 also
     * the output layer when untied.
     */
    double P = Ls * layer_p + emb;
    if (l->pp == 1 && m->embed_params > 1.5 * m->vocab * (double)m->hidden)
        P += emb;
    double PX = Ls * layer_x;
    /* DualPipe holds two pipeline stages per rank (DeepSeek-V3 Sec.
     * 3.2.1, Table 2: 2x parameters).
     */
    if (l->schedule == GP_SCHED_DUALPIPE) {
        P *= 2;
        PX *= 2;
    }
    double shard = (double)l->dp * l->cp;
    /* experts are replicated over tp*dp*cp/ep ranks (expert DP) */
    double shard_x = (double)l->tp * l->dp * l->cp / l->ep;
    int sh = l->sharding;
    int z3 = sh == GP_SHARD_ZERO3 || sh == GP_SHARD_FSDP;
    /* Megatron style (none, ZeRO-1/2): 16-bit weights + fp32 main
     * gradients + fp32 master and Adam states = 2 + 4 + 12 B.  DeepSpeed
     * ZeRO-3 keeps 16-bit gradient partitions (ZeRO paper, Sec. 3: 2 + 2 +
     * 12 B).  PyTorch FSDP keeps no persistent 16-bit copy: the fp32
     * sharded parameter is the master (0 + 4 + 12 B).
     */
    double wb = sh == GP_SHARD_FSDP ? 0 : job->weight_bytes;
    double gbytes = sh == GP_SHARD_ZERO3 && job->grad_bytes > 2
                        ? 2
                        : job->grad_bytes;
    o->weights = wb * (P / (z3 ? shard : 1) + PX / (z3 ? shard_x : 1));
    o->grads = gbytes * (P / (sh >= GP_SHARD_ZERO2 ? shard : 1)
                         + PX / (sh >= GP_SHARD_ZERO2 ? shard_x : 1));
    o->optim = job->optim_bytes
               * (P / (sh >= GP_SHARD_ZERO1 ? shard : 1)
                  + PX / (sh >= GP_SHARD_ZERO1 ? shard_x : 1));
    /* LoRA: frozen weights, adapters (train_lora.c) */
    if (gp__lora_on (job))
        gp__lora_memory (m, job, l, P, o);

    double a_layer = act_stored (m, job, hw, l);
    double inflight = gp__train_mem_inflight (job, l);
    double interleave = l->vpp > 1 ? 1 + (pp - 1) / (pp * l->vpp) : 1;
    double act = a_layer * Ls * inflight * interleave;
    if (l->recompute == GP_RECOMP_FULL)
        act += act_layer_full (m, l, job->seq_len, job->flash_attn);
    /* CPU activation offload (train_prec.c, gp__offload_act) */
    if (l->offload_layers > 0)
        act -= gp__offload_act (l, Ls, a_layer, &o->offload_host);
    /* host-offloaded remat checkpoints (train_prec.c) */
    if (job->remat_offload && l->recompute == GP_RECOMP_FULL)
        act += gp__remat_offload_act (m, job, l, Ls, a_layer,
                                      &o->offload_host);
    o->activations = act;
    /* fp32 logits and their gradient on the last stage (counted when it
     * is also the first, pp = 1; otherwise the last stage holds fewer
     * micro-batches and is lighter).
     */
    double tok = job->seq_len / l->cp * l->micro_batch;
    if (l->pp == 1 && !job->logits_xla)
        o->logits = 4.0 * 2 * tok * m->vocab / t;
    /* Buffers: ZeRO-3/FSDP gathered layers (z3_live); TP/SP exchange one
     * h-wide tensor (below).
     */
    if (z3)
        o->buffers += gp__lora_frozen_bytes (job)
                      * z3_live (layer_p + layer_x);
    if (l->pp == 1 && job->logits_xla) {
        /* XLA loss phase (train_prec.c, gp__logits_xla): what only the
         * layer phase holds is one layer's recompute working set, the
         * layer gradients, the checkpoint transfer buffers and the
         * gathered layers; the loss phase gathers the output layer
         */
        double gl = gbytes * (Ls * layer_p / (sh >= GP_SHARD_ZERO2 ? shard : 1)
                              + PX / (sh >= GP_SHARD_ZERO2 ? shard_x : 1));
        double work = 0;
        if (l->recompute == GP_RECOMP_FULL)
            work = job->remat_offload
                       ? o->activations /* working set + transfer buffers */
                       : act_layer_full (m, l, job->seq_len,
                                         job->flash_attn);
        double gather = z3 ? o->buffers - 2.0 * emb : 0;
        o->logits = gp__logits_xla (m, l, tok,
                                    work + gl + (gather > 0 ? gather : 0));
    }
    o->buffers += 2.0 * tok * m->hidden * 2;
    double sub = o->weights + o->grads + o->optim + o->activations
                 + o->logits + o->buffers;
    /* Runtime: CUDA context + NCCL (hw->runtime_bytes) and 5 % allocator
     * fragmentation (docs/model/training.md).
     */
    o->runtime = runtime_of (hw, sub);
    o->total = sub + o->runtime;
    o->capacity = hw->mem_bytes;
    o->headroom = o->capacity - o->total;
    o->fits = o->capacity <= 0 || o->headroom >= 0;
    /* host-offloaded remat checkpoints must also fit the host's share */
    if (job->remat_offload && hw->host_mem_bytes > 0
        && o->offload_host > hw->host_mem_bytes)
        o->fits = 0;
}

int gp__recomp_fit (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw, struct gp_layout *l,
                    struct gp_train_mem *mem, int none_fits)
{
    int c = gp_train_chunk_layers (l, m->layers);
    if (l->recompute != GP_RECOMP_FULL || c < 2 || l->offload_layers > 0
        || job->remat_offload
        || !mem->fits || none_fits == 1)
        return 0;
    struct gp_layout t = *l;
    struct gp_train_mem mm;
    /* only where no recomputation does not fit (else that is faster) */
    if (none_fits < 0) {
        t.recompute = GP_RECOMP_NONE;
        t.recompute_layers = 0;
        gp_train_memory (m, job, hw, &t, &mm);
        if (mm.fits)
            return 0;
        t.recompute = GP_RECOMP_FULL;
    }
    /* From 1 recomputed layer to c (every layer, '*mem', which fits) the
     * memory falls by the same step per layer (each keeps its input
     * instead of all its activations; the working set of one layer is
     * there from 1 on): the fewest that fit follow from the two ends,
     * then checked against the model itself, a step at a time.
     */
    t.recompute_layers = 1;
    gp_train_memory (m, job, hw, &t, &mm);
    int k = 1;
    if (!mm.fits) {
        double step = (mm.total - mem->total) / (c - 1);
        double kd = step > 0 ? 1 + ceil ((mm.total - mm.capacity) / step)
                             : c;
        k = kd < 2 ? 2 : kd > c ? c : (int)kd;
        for (; k < c; k++) { /* up to the first that fits */
            t.recompute_layers = k;
            gp_train_memory (m, job, hw, &t, &mm);
            if (mm.fits)
                break;
        }
        if (k == c)
            mm = *mem;
        for (; k > 2; k--) { /* down while one fewer fits too */
            struct gp_train_mem below;
            t.recompute_layers = k - 1;
            gp_train_memory (m, job, hw, &t, &below);
            if (!below.fits)
                break;
            mm = below;
        }
    }
    if (k == c)
        return 0;
    t.recompute_layers = k;
    *l = t;
    *mem = mm;
    return 1;
}

int gp_train_eval (const struct gp_train_model *m,
                   const struct gp_train_job *job,
                   const struct gp_train_hw *hw,
                   const struct gp_layout *l,
                   struct gp_train_result *out,
                   gp_error_t *err)
{
    int rc = gp_train_check (m, job, l, err);
    if (rc)
        return rc;
    out->layout = *l;
    gp_train_memory (m, job, hw, l, &out->mem);
    gp_train_time (m, job, hw, l, &out->time);
    return 0;
}

/* ============================ reliability ============================= */

void gp_reliability_eval (const struct gp_reliability_in *in,
                          struct gp_reliability *o)
{
    memset (o, 0, sizeof *o);
    double rate = in->fail_per_gpu_hour > 0
                      ? in->fail_per_gpu_hour
                      : gp_default (NULL, GP_DEF_RELIABILITY_FAIL_PER_GPU_HOUR);
    double n = in->n_gpus > 0 ? in->n_gpus : 1;
    double M = 3600.0 / (rate * n);
    o->mtbf_s = M;
    double d = in->storage_bw > 0 ? in->ckpt_bytes / in->storage_bw : 0;
    o->ckpt_write_s = d;
    /* Daly 2006, eq. 37: tau = sqrt(2 d M) [1 + sqrt(d/2M)/3 + d/(18M)] - d
     * for d < 2M, else M.
     */
    double tau;
    if (d <= 0)
        tau = 0;
    else if (d < 2 * M)
        tau = sqrt (2 * d * M) * (1 + sqrt (d / (2 * M)) / 3 + d / (18 * M))
              - d;
    else
        tau = M;
    o->interval_s = tau;
    /* lost fraction: checkpoint writes d/(tau+d), plus per failure the
     * restart R and on average half an interval of lost work.
     */
    double R = in->restart_s;
    double ov = (tau > 0 ? d / (tau + d) : 0) + (R + (tau + d) / 2) / M;
    if (ov > 1)
        ov = 1;
    o->overhead = ov;
    o->goodput = 1 - ov;
    /* storage bandwidth so that checkpointing costs <= target: with
     * Young's interval d/tau = sqrt(d/(2M))... solve d/tau + tau/(2M) =
     * target at the optimum: 2*sqrt(d/(2M)) = target -> d = M*target^2/2.
     */
    double tgt = in->target_overhead > 0
                     ? in->target_overhead
                     : gp_default (NULL, GP_DEF_TRAIN_CKPT_OVERHEAD_TARGET);
    double dmax = M * tgt * tgt / 2;
    o->storage_bw_needed = dmax > 0 ? in->ckpt_bytes / dmax : 0;
}

void gp_train_rel_params_init (struct gp_train_rel_params *rp)
{
    rp->fail_per_gpu_hour = -1;
    rp->restart_s = -1;
    rp->ckpt_write_s = -1;
    rp->storage_bw_per_node = -1;
}

void gp_train_reliability_with (const struct gp_train_model *m,
                                const struct gp_train_job *job,
                                double n_gpus,
                                int gpus_per_node,
                                const struct gp_train_rel_params *rp,
                                struct gp_reliability *out)
{
    struct gp_train_rel_params dflt;
    gp_train_rel_params_init (&dflt);
    if (!rp)
        rp = &dflt;
    const struct gp_defaults *d = job->defaults; /* NULL: the registry */
    struct gp_reliability_in ri;
    memset (&ri, 0, sizeof ri);
    ri.n_gpus = n_gpus;
    ri.fail_per_gpu_hour =
        rp->fail_per_gpu_hour > 0
            ? rp->fail_per_gpu_hour
            : gp_default (d, GP_DEF_RELIABILITY_FAIL_PER_GPU_HOUR);
    ri.ckpt_bytes = m->total_params * (job->weight_bytes + job->optim_bytes);
    if (gp__lora_on (job)) /* the adapters only (train_lora.c) */
        ri.ckpt_bytes = gp__lora_ckpt_bytes (m, job);
    /* Checkpoint storage bandwidth per node and restart time from the
     * defaults registry (docs/model/defaults.md) unless overridden.
     */
    double bw_node = rp->storage_bw_per_node > 0
                         ? rp->storage_bw_per_node
                         : gp_default (d, GP_DEF_TRAIN_CKPT_WRITE_BW_PER_NODE);
    if (rp->ckpt_write_s > 0)
        ri.storage_bw = ri.ckpt_bytes / rp->ckpt_write_s;
    else if (rp->ckpt_write_s == 0)
        ri.storage_bw = 0; /* no checkpoint cost */
    else
        ri.storage_bw = bw_node * n_gpus
                        / (gpus_per_node > 0 ? gpus_per_node : 8);
    ri.restart_s = rp->restart_s >= 0
                       ? rp->restart_s
                       : gp_default (d, GP_DEF_RELIABILITY_RESTART_S);
    ri.target_overhead = gp_default (d, GP_DEF_TRAIN_CKPT_OVERHEAD_TARGET);
    gp_reliability_eval (&ri, out);
}

void gp_train_reliability (const struct gp_train_model *m,
                           const struct gp_train_job *job,
                           double n_gpus,
                           int gpus_per_node,
                           struct gp_reliability *out)
{
    gp_train_reliability_with (m, job, n_gpus, gpus_per_node, NULL, out);
}
