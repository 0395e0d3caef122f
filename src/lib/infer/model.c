/* model.c - the physics of one serving replica: precisions, engine
 * defaults, per-generation efficiency factors, the memory budget (weights,
 * activation workspace, runtime, KV cache) and the roofline time of one
 * engine iteration.  Every formula and constant is documented with its
 * source in docs/model/inference.md; section names there match the banners
 * here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/infer.h"
#include "infer_private.h"

/* ============================== precisions ============================= */

double gp_dtype_bytes (enum gp_dtype d)
{
    switch (d) {
    case GP_DT_FP32:
        return 4.0;
    case GP_DT_BF16:
    case GP_DT_FP16:
        return 2.0;
    case GP_DT_FP8:
    case GP_DT_INT8:
        return 1.0;
    case GP_DT_INT4:
        return 0.5 + 2.0 / 128.0; /* fp16 scale per group of 128 */
    case GP_DT_FP4:
        return 0.5 + 1.0 / 16.0; /* fp8 scale per block of 16 (NVFP4) */
    }
    return 2.0;
}

const char *gp_dtype_str (enum gp_dtype d)
{
    static const char *n[] = {"fp32", "bf16", "fp16", "fp8",
                              "int8", "int4", "fp4"};
    return (unsigned)d < sizeof n / sizeof n[0] ? n[d] : "?";
}

int gp_dtype_parse (const char *s, enum gp_dtype *out, gp_error_t *err)
{
    static const struct {
        const char *name;
        enum gp_dtype d;
    } t[] = {
        {"fp32", GP_DT_FP32},  {"bf16", GP_DT_BF16}, {"fp16", GP_DT_FP16},
        {"fp8", GP_DT_FP8},    {"int8", GP_DT_INT8}, {"int4", GP_DT_INT4},
        {"fp4", GP_DT_FP4},    {"nvfp4", GP_DT_FP4}, {"mxfp4", GP_DT_FP4},
        {"w4a16", GP_DT_INT4}, {"w8a8", GP_DT_INT8},
        /* names the checkpoints and engines use for the same formats:
         * Hugging Face torch_dtype values, and the weight-only 4-bit
         * schemes AWQ (arXiv 2306.00978) and GPTQ (arXiv 2210.17323),
         * both int4 weights with 16-bit activations (W4A16)
         */
        {"bfloat16", GP_DT_BF16}, {"float16", GP_DT_FP16},
        {"float32", GP_DT_FP32},  {"awq", GP_DT_INT4},
        {"gptq", GP_DT_INT4},     {"e4m3", GP_DT_FP8},
    };
    for (size_t i = 0; s && i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp (s, t[i].name)) {
            *out = t[i].d;
            return 0;
        }
    return gp_errprintf (err, GP_EINVAL,
                         "unknown precision '%s'; expected bf16, fp16, fp8, "
                         "int8, int4 or fp4 (or w4a16/awq/gptq, w8a8, "
                         "nvfp4/mxfp4, bfloat16/float16)",
                         s ? s : "");
}

/* =============================== engines =============================== */

const char *gp_engine_str (enum gp_engine e)
{
    switch (e) {
    case GP_ENGINE_TRTLLM:
        return "trtllm";
    case GP_ENGINE_VLLM:
        return "vllm";
    case GP_ENGINE_SGLANG:
        return "sglang";
    case GP_ENGINE_FT:
        return "fastertransformer";
    case GP_ENGINE_NIM:
        return "nim";
    }
    return "?";
}

int gp_engine_parse (const char *s, enum gp_engine *out, gp_error_t *err)
{
    static const struct {
        const char *name;
        enum gp_engine e;
    } t[] = {
        {"trtllm", GP_ENGINE_TRTLLM},
        {"tensorrt-llm", GP_ENGINE_TRTLLM},
        {"nim", GP_ENGINE_NIM},
        {"vllm", GP_ENGINE_VLLM},
        {"sglang", GP_ENGINE_SGLANG},
        {"fastertransformer", GP_ENGINE_FT},
        {"ft", GP_ENGINE_FT},
    };
    for (size_t i = 0; s && i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp (s, t[i].name)) {
            *out = t[i].e;
            return 0;
        }
    return gp_errprintf (err, GP_EINVAL,
                         "unknown engine '%s'; expected trtllm, nim, vllm, "
                         "sglang or fastertransformer",
                         s ? s : "");
}

/* Engines: scheduler limits are the engines' documented defaults; the two
 * overhead constants are fitted (docs/model/inference.md, "Engines").
 */
void gp_engine_defaults (enum gp_engine e, struct gp_engine_params *p)
{
    memset (p, 0, sizeof *p);
    p->engine = e;
    p->chunked_prefill = 1;
    p->mem_fraction = 0.90;
    switch (e) {
    case GP_ENGINE_TRTLLM:
    case GP_ENGINE_NIM: /* NIM runs TensorRT-LLM engines */
        p->max_batch = 2048;
        p->max_num_tokens = 8192;
        p->reserve_full = 1;
        p->iter_overhead_s = 1.0e-3;
        p->seq_overhead_s = 4.0e-6;
        break;
    case GP_ENGINE_VLLM:
    case GP_ENGINE_SGLANG:
        p->max_batch = 1024;
        p->max_num_tokens = 8192;
        p->reserve_full = 0;
        p->iter_overhead_s = 2.0e-3;
        p->seq_overhead_s = 6.0e-6;
        /* SGLang >= 0.4 schedules the next batch while the GPU runs this
         * one (zero-overhead batch scheduler, docs/model/inference.md,
         * "Engines and vendor stacks") */
        p->host_overlap = e == GP_ENGINE_SGLANG;
        /* SGLang sizes its KV pool with mem_fraction_static by tp
         * (sglang_kv_bytes) and its request pool from the KV pool
         * (sglang_max_running, at gp_infer_prepare): 0 selects them */
        if (e == GP_ENGINE_SGLANG) {
            p->mem_fraction = 0.0;
            p->max_batch = 0;
        }
        break;
    case GP_ENGINE_FT:
        p->max_batch = 256;
        p->max_num_tokens = 1 << 20; /* whole prompts, no chunking */
        p->reserve_full = 1;
        p->chunked_prefill = 0;
        p->iter_overhead_s = 0.3e-3;
        p->seq_overhead_s = 0.0;
        break;
    }
}

/* ======================= efficiency per generation ===================== */

/* Calibration table (docs/model/inference.md, "Calibration"): catalog data,
 * the infer_* columns of the accelerator's generation in
 * data/catalog/generations.csv.  Without a generation (a hand-built
 * accelerator) the factors are ideal: 1, no latencies.
 */
void gp_hw_eff_for (const struct gp_accel *a, struct gp_hw_eff *e)
{
    const struct gp_generation *g = a ? a->gen : NULL;
    if (!g) {
        *e = (struct gp_hw_eff){"none", 1, 1, 1, 1, 0, 0, 1, 1};
        return;
    }
    e->generation = g->id;
    e->hbm_eff = g->infer_hbm;
    e->gemm_eff = g->infer_gemm;
    e->attn_eff = g->infer_attn;
    e->link_eff = g->infer_link;
    e->allreduce_lat_s = g->infer_allreduce_lat_s;
    e->layer_lat_s = g->infer_layer_lat_s;
    e->moe_eff = g->infer_moe;
    e->moe_flop_eff = g->infer_moe_flop;
}

/* ============================ memory budget ============================ */

/* Peak FLOP/s of the GEMMs for the weight format: low-precision formats run
 * low-precision tensor cores where the part has them, otherwise the weights
 * are dequantised and the GEMM runs in bf16 (weight-only kernels).
 */
static double gemm_peak (const struct gp_accel *a, enum gp_dtype w,
                         const char **prec)
{
    double bf16 = gp_accel_peak_flops (a, "bf16");
    double f = 0;
    *prec = "bf16";
    switch (w) {
    case GP_DT_FP8:
        f = a->fp8_flops, *prec = "fp8";
        break;
    case GP_DT_INT8:
        f = a->int8_ops, *prec = "int8";
        break;
    case GP_DT_FP4:
        f = a->fp4_flops, *prec = "fp4";
        break;
    default:
        break;
    }
    /* Unlisted low-precision peaks: INT8 runs at the FP8 rate where there
     * is FP8 (H100/L40S datasheets), else at 2x BF16 (A100 datasheet);
     * FP4 at the generation's fp4_per_fp8 x FP8 (Blackwell: 2, B200/GB200
     * datasheets; generations.csv).
     */
    if (f <= 0 && w == GP_DT_INT8)
        f = a->fp8_flops > 0 ? a->fp8_flops : 2.0 * bf16;
    if (f <= 0 && w == GP_DT_FP4 && a->fp8_flops > 0 && a->gen
        && a->gen->fp4_per_fp8 > 0)
        f = a->gen->fp4_per_fp8 * a->fp8_flops;
    if (f <= 0) {
        *prec = "bf16";
        f = bf16;
    }
    return f;
}

/* Check the layout of 'cfg' and resolve tp, pp, ep, attn_dp and the EP
 * skew into 'c'.  Expert parallelism: routed experts sharded over 'ep' of
 * the tp ranks of a stage, each expert split over tp/ep ranks.  Default:
 * the EP group of attention data parallelism is the whole tp group; with
 * tensor-parallel attention the experts are tensor parallel (ep 1).
 */
static int resolve_layout (const struct gp_serve_cfg *cfg,
                           struct gp_serve_cfg *c, gp_error_t *err)
{
    const struct gp_arch *a = cfg->arch;
    const struct gp_accel *acc = cfg->accel;
    int tp = cfg->tp > 0 ? cfg->tp : 1, pp = cfg->pp > 0 ? cfg->pp : 1;
    if (a->layers <= 0 || a->hidden <= 0 || a->heads <= 0)
        return gp_errprintf (err, GP_EINVAL, "%s: incomplete dimensions",
                             a->id);
    if (a->heads % tp)
        return gp_errprintf (err, GP_EINVAL,
                             "tp %d does not divide %d attention heads", tp,
                             a->heads);
    if (pp > a->layers)
        return gp_errprintf (err, GP_EINVAL, "pp %d exceeds %d layers", pp,
                             a->layers);
    if (acc->mem_bytes <= 0 || acc->mem_bw <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: the catalog lacks memory size or bandwidth",
                             acc->id);
    *c = *cfg;
    c->tp = tp;
    c->pp = pp;
    if (a->moe_experts <= 0)
        c->attn_dp = 0;
    int ep = cfg->ep;
    if (a->moe_experts <= 0) {
        if (ep > 1)
            return gp_errprintf (err, GP_EINVAL,
                                 "ep %d: %s has no routed experts", ep,
                                 a->id);
        ep = 1;
    } else {
        if (ep <= 0)
            ep = c->attn_dp ? tp : 1;
        if (ep > tp || tp % ep)
            return gp_errprintf (err, GP_EINVAL,
                                 "ep %d must divide tp %d (experts are "
                                 "sharded over the tensor-parallel ranks of "
                                 "a pipeline stage)",
                                 ep, tp);
        if (a->moe_experts % ep)
            return gp_errprintf (err, GP_EINVAL,
                                 "ep %d does not divide %d routed experts",
                                 ep, a->moe_experts);
    }
    c->ep = ep;
    if (!(c->ep_skew >= 1.0))
        c->ep_skew = 1.0;
    return 0;
}

/* Device capacity: MIG slices get memory as the profile says, bandwidth
 * in proportion to memory (memory slices), compute in proportion to
 * compute slices.
 */
static int device_peaks (struct gp_serve_model *M, gp_error_t *err)
{
    const struct gp_serve_cfg *cfg = &M->cfg;
    const struct gp_accel *acc = cfg->accel;
    double mem_share = 1.0, sm_share = 1.0;
    M->mem_bytes = acc->mem_bytes;
    if (cfg->slice_mem_bytes > 0 && cfg->slice_mem_bytes < acc->mem_bytes) {
        M->mem_bytes = cfg->slice_mem_bytes;
        mem_share = cfg->slice_mem_bytes / acc->mem_bytes;
    }
    if (cfg->slice_compute > 0 && cfg->slice_compute < 7)
        sm_share = cfg->slice_compute / 7.0;
    M->mem_bw = acc->mem_bw * mem_share;
    M->gemm_flops = gemm_peak (acc, cfg->weight_dtype, &M->gemm_precision)
                    * sm_share;
    M->attn_flops = gp_accel_peak_flops (acc, "bf16") * sm_share;
    if (M->gemm_flops <= 0 || M->attn_flops <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: the catalog lacks dense tensor FLOP/s",
                             acc->id);
    M->link_bw = acc->scale_up_bw > 0 ? acc->scale_up_bw / 2.0 : 32e9;
    M->net_bw = cfg->net_bw > 0 ? cfg->net_bw : 50e9; /* 400 Gb/s per GPU */
    return 0;
}

/* Weights.  Non-expert weights are sharded over tp*pp, or replicated over
 * the tp ranks with attention data parallelism (vocabulary still
 * sharded); routed experts are spread over all GPUs of the replica.
 */
static void weights (struct gp_serve_model *M)
{
    const struct gp_arch *a = M->cfg.arch;
    int n = M->n_gpus, pp = M->cfg.pp;
    double wb = gp_dtype_bytes (M->cfg.weight_dtype);
    double expert_params = M->pc.moe_layers * M->pc.moe_all_per_layer;
    double nonexpert = M->pc.total - expert_params;
    double in_emb = (double)a->vocab * a->hidden; /* gathered, not read */
    double ne_gpu = M->cfg.attn_dp
                        ? (nonexpert - M->pc.embedding) / pp
                              + M->pc.embedding / n
                        : nonexpert / n;
    M->weight_bytes = (ne_gpu + expert_params / n) * wb;
    double ne_read = M->cfg.attn_dp
                         ? (nonexpert - M->pc.embedding) / pp
                               + (M->pc.embedding
                                  - (a->tied_embeddings ? 0 : in_emb))
                                     / n
                         : (nonexpert - (a->tied_embeddings ? 0 : in_emb))
                               / n;
    M->nonexpert_bytes = ne_read * wb;
    if (a->moe_experts > 0) {
        double mats = a->mlp == GP_MLP_SWIGLU ? 3.0 : 2.0;
        M->expert_bytes_layer = mats * a->hidden * a->moe_ffn_hidden * wb;
        /* shared experts and router are read every step */
        M->nonexpert_bytes += M->pc.moe_layers
                              * (M->pc.moe_all_per_layer
                                 - (double)a->moe_experts * mats * a->hidden
                                       * a->moe_ffn_hidden)
                              * wb / n;
    }
}

/* SGLang's static memory rule (docs/model/inference.md, "SGLang memory
 * and scheduler defaults"): the server's mem_fraction_static, by tensor
 * parallel size, is the share of the device memory the driver reports
 * that weights and the KV pool may take together (sgl-project/sglang
 * python/sglang/srt/server_args.py, ServerArgs.__post_init__, v0.3-v0.4:
 * 0.79 at tp >= 16, 0.81 at >= 8, 0.85 at >= 4, 0.87 at >= 2, else 0.88).
 * The driver's total is the datasheet's "GB" read as GiB (an H200 "141
 * GB" reports 143,771 MiB in nvidia-smi).  The KV pool is that share less
 * the weights and the CUDA context (0.5 GB, the runtime's fixed part).
 */
#define GP__GIB_PER_GB 1.073741824

double gp__sglang_static_fraction (int tp)
{
    return tp >= 16  ? 0.79
           : tp >= 8 ? 0.81
           : tp >= 4 ? 0.85
           : tp >= 2 ? 0.87
                     : 0.88;
}

static double sglang_kv_bytes (const struct gp_serve_model *M)
{
    double st = gp__sglang_static_fraction (M->cfg.tp);
    double kv = st * M->mem_bytes * GP__GIB_PER_GB - M->weight_bytes - 0.5e9;
    return kv > 0 ? kv : 0.0;
}

/* SGLang's request pool when the server is not given
 * --max-running-requests (docs/model/inference.md, "SGLang memory and
 * scheduler defaults"): KV tokens / context length x 512, between 2,048
 * and 4,096 (model_runner.py, the req_to_token pool), the most requests
 * it runs at once.  Context length: the model's maximum (its config).
 */
static int sglang_max_running (const struct gp_serve_model *M)
{
    double ctx = M->cfg.arch->max_seq_len > 0 ? M->cfg.arch->max_seq_len
                                              : 131072;
    double r = floor (M->kv_capacity_tokens / ctx * 512.0);
    return r < 2048 ? 2048 : r > 4096 ? 4096 : (int)r;
}

/* Activation workspace of the largest iteration and logits, runtime, the
 * memory left for the KV cache, and the KV bytes per replica token
 * averaged per GPU.  Returns the memory left before the engine's
 * fraction (<= 0: the weights do not fit).
 */
static double memory_budget (struct gp_serve_model *M)
{
    const struct gp_serve_cfg *cfg = &M->cfg;
    const struct gp_arch *a = cfg->arch;
    int n = M->n_gpus, tp = cfg->tp, pp = cfg->pp;
    double ffn = a->ffn_hidden;
    if (a->moe_experts > 0) {
        double e = (double)a->moe_ffn_hidden
                   * (a->moe_topk + a->moe_shared_experts);
        if (e > ffn)
            ffn = e;
    }
    double chunk = cfg->eng.max_num_tokens > 0 ? cfg->eng.max_num_tokens
                                               : 8192;
    if (chunk > 16384)
        chunk = 16384;
    double mb = cfg->eng.max_batch > 0 ? cfg->eng.max_batch : 256;
    M->act_bytes = chunk * 2.0 * (6.0 * a->hidden + 3.0 * ffn / tp)
                   + mb * (double)a->vocab / tp * 4.0;
    M->runtime_bytes = 0.5e9 + 0.02 * M->mem_bytes;
    double frac = cfg->eng.mem_fraction > 0 ? cfg->eng.mem_fraction : 0.9;
    double left = M->mem_bytes - M->weight_bytes - M->act_bytes
                  - M->runtime_bytes;
    M->kv_bytes_avail = left > 0 ? frac * left : 0.0;
    /* SGLang's own rule unless the caller set a fraction */
    if (cfg->eng.engine == GP_ENGINE_SGLANG && !(cfg->eng.mem_fraction > 0)
        && left > 0)
        M->kv_bytes_avail = sglang_kv_bytes (M);

    double kb = gp_dtype_bytes (cfg->kv_dtype);
    double full = gp_arch_kv_elems_per_token (a) * kb;
    if (cfg->attn_dp) {
        M->kv_bytes_per_token = full / n;
    } else if (a->attention == GP_ATTN_MLA) {
        M->kv_bytes_per_token = full / pp; /* latent replicated over tp */
    } else {
        int kvh = a->kv_heads > 0 ? a->kv_heads : a->heads;
        double per = kvh >= tp ? (double)kvh / tp : 1.0;
        M->kv_bytes_per_token =
            2.0 * ((double)a->layers / pp) * per * a->head_dim * kb;
    }
    M->kv_capacity_tokens = M->kv_bytes_per_token > 0
                                ? floor (M->kv_bytes_avail
                                         / M->kv_bytes_per_token)
                                : 0;
    return left;
}

int gp_infer_prepare (const struct gp_serve_cfg *cfg,
                      double max_seq_tokens,
                      struct gp_serve_model *m,
                      gp_error_t *err)
{
    if (!cfg || !cfg->arch || !cfg->accel || !m)
        return gp_errprintf (err, GP_EINVAL, "infer: missing model or "
                                             "accelerator");
    const struct gp_arch *a = cfg->arch;
    const struct gp_accel *acc = cfg->accel;
    if (a->layer_pattern[0])
        return gp_errprintf (err, GP_ENOTSUP,
                             "infer: '%s' is a hybrid Mamba-2/attention "
                             "model: serving hybrid models (fixed SSM state "
                             "instead of a KV cache on the Mamba layers) is "
                             "not yet supported",
                             a->id);
    struct gp_serve_model M;
    memset (&M, 0, sizeof M);
    int rc = resolve_layout (cfg, &M.cfg, err);
    if (rc < 0)
        return rc;
    gp_arch_params (a, &M.pc);
    gp_hw_eff_for (acc, &M.eff);
    /* engine x vendor stack (docs/model/inference.md, "Engines and vendor
     * stacks"): kernel factors and extra host overheads */
    const struct gp_engine_stack *st = gp_engine_stack_for (cfg->eng.engine,
                                                            acc);
    M.eff.gemm_eff *= st->gemm_mult;
    M.eff.attn_eff *= st->attn_mult;
    M.eff.hbm_eff *= st->hbm_mult;
    M.cfg.eng.iter_overhead_s += st->iter_extra_s;
    M.cfg.eng.seq_overhead_s += st->seq_extra_s;
    if (st->host_overlap) /* the engine version's scheduler (engines.csv) */
        M.cfg.eng.host_overlap = 1;
    int n = M.cfg.tp * M.cfg.pp;
    M.n_gpus = n;
    if ((rc = device_peaks (&M, err)) < 0)
        return rc;
    weights (&M);
    double left = memory_budget (&M);
    if (left <= 0)
        return gp_errprintf (err, GP_EINFEASIBLE,
                             "%s on %d x %s (%s weights): weights %.1f GB + "
                             "workspace %.1f GB per GPU exceed %.1f GB",
                             a->id, n, acc->id,
                             gp_dtype_str (cfg->weight_dtype),
                             M.weight_bytes / 1e9,
                             (M.act_bytes + M.runtime_bytes) / 1e9,
                             M.mem_bytes / 1e9);
    if (max_seq_tokens > 0 && M.kv_capacity_tokens < max_seq_tokens)
        return gp_errprintf (err, GP_EINFEASIBLE,
                             "%s on %d x %s: KV cache holds %.0f tokens, "
                             "one request needs %.0f",
                             a->id, n, acc->id, M.kv_capacity_tokens,
                             max_seq_tokens);
    if (M.cfg.eng.engine == GP_ENGINE_SGLANG && M.cfg.eng.max_batch <= 0)
        M.cfg.eng.max_batch = sglang_max_running (&M);
    *m = M;
    return 0;
}

/* =========================== iteration time ============================ */

void gp__infer_attn_coef (const struct gp_serve_model *m,
                          struct gp__attn_coef *c)
{
    const struct gp_arch *a = m->cfg.arch;
    double per_ctx;
    if (a->attention == GP_ATTN_MLA)
        per_ctx = 2.0 * a->heads
                  * (2.0 * a->mla_kv_lora_rank + a->mla_qk_rope_head_dim);
    else
        per_ctx = 4.0 * a->heads * a->head_dim;
    c->flops_per_ctx = per_ctx * a->layers;
    /* MLA: decode attends in the latent space (absorbed W_UK, W_UV: an
     * MQA over 512 + 64 dims), prefill in the materialised MHA form (QK
     * over nope + rope = 192 dims, PV over v = 128): the engines pick the
     * compute-friendly form for prompts and the data-movement-friendly one
     * for decode (docs/model/inference.md, "MLA") */
    c->prefill_flops_per_ctx = c->flops_per_ctx;
    if (a->attention == GP_ATTN_MLA && a->mla_qk_nope_head_dim > 0
        && a->mla_v_head_dim > 0)
        c->prefill_flops_per_ctx =
            2.0 * a->heads
            * ((double)a->mla_qk_nope_head_dim + a->mla_qk_rope_head_dim
               + a->mla_v_head_dim)
            * a->layers;
    c->n = m->n_gpus;
    c->kv_bytes_per_token = m->kv_bytes_per_token;
    c->bw = m->mem_bw * m->eff.hbm_eff;
    c->attn_peak = m->attn_flops * m->eff.attn_eff;
}

/* Sum of ((p - 1) mod C) + 1 over p = 1 .. m: q whole chunks of
 * C (C + 1) / 2 and a partial one of r (r + 1) / 2.
 */
static double chunk_sum (double m, double C)
{
    double q = floor (m / C), r = m - q * C;
    return q * C * (C + 1.0) / 2.0 + r * (r + 1.0) / 2.0;
}

double gp__infer_prefill_ctx (const struct gp_arch *a, int done, int n)
{
    double full = n * (done + (n + 1) / 2.0);
    if (!a || a->attn_chunk_size <= 0 || a->layers <= 0)
        return full;
    double C = a->attn_chunk_size, L = a->layers;
    double g = a->attn_global_interval > 0
                   ? floor (L / a->attn_global_interval)
                   : 0.0;
    double local = chunk_sum ((double)done + n, C) - chunk_sum (done, C);
    return (g * full + (L - g) * local) / L;
}

double gp__infer_decode_ctx (const struct gp_arch *a, int len)
{
    if (!a || a->attn_chunk_size <= 0 || a->layers <= 0 || len < 1)
        return len;
    double C = a->attn_chunk_size, L = a->layers, p = len;
    double g = a->attn_global_interval > 0
                   ? floor (L / a->attn_global_interval)
                   : 0.0;
    double local = p - 1.0 - C * floor ((p - 1.0) / C) + 1.0;
    return (g * p + (L - g) * local) / L;
}

/* Time for one pipeline stage to run 'L' (already divided by pp). */
static double stage_time (const struct gp_serve_model *m,
                          const struct gp_iter_load *L,
                          struct gp_iter_time *o)
{
    const struct gp_arch *a = m->cfg.arch;
    int n = m->n_gpus, tp = m->cfg.tp, pp = m->cfg.pp;
    double tok = L->n_decode + L->n_prefill;
    double bw = m->mem_bw * m->eff.hbm_eff;

    /* GEMMs: weights streamed once per iteration, FLOPs per token. */
    double wbytes = m->nonexpert_bytes, ebytes = 0;
    double emb_flops = 2.0 * (double)a->vocab * a->hidden;
    double body = 2.0 * (m->pc.active - m->pc.embedding);
    double eflops = 0;
    double imb = 1.0;
    int ep = m->cfg.ep > 0 ? m->cfg.ep : 1;
    if (a->moe_experts > 0 && tok > 0) {
        double E = a->moe_experts, k = a->moe_topk;
        double touched = E * (1.0 - pow (1.0 - k / E, tok * pp));
        double mats = a->mlp == GP_MLP_SWIGLU ? 3.0 : 2.0;
        /* the busiest EP rank sets the time: imb x the mean token-slots,
         * and as many of its E/ep experts as that many slots touch */
        imb = gp_infer_ep_imbalance (tok * k, ep, a->moe_topk,
                                     a->moe_experts, m->cfg.ep_skew);
        double t_rank = touched / ep * imb;
        if (t_rank > E / ep)
            t_rank = E / ep;
        ebytes = t_rank * ep * m->expert_bytes_layer * m->pc.moe_layers / n;
        eflops = imb * 2.0 * k * mats * a->hidden * a->moe_ffn_hidden
                 * m->pc.moe_layers * tok / n;
        body -= 2.0 * k * mats * a->hidden * a->moe_ffn_hidden
                * m->pc.moe_layers;
    }
    double flops = (body * tok + emb_flops * L->n_logits) / n;
    double peak = m->gemm_flops * m->eff.gemm_eff;
    double t_w = wbytes / bw, t_f = flops / peak;
    double gemm = t_w > t_f ? t_w : t_f;
    if (ebytes > 0) {
        double me = m->eff.moe_eff > 0 ? m->eff.moe_eff : 1.0;
        double mf = m->eff.moe_flop_eff > 0 ? m->eff.moe_flop_eff : me;
        double e_w = ebytes / (bw * me), e_f = eflops / (peak * mf);
        gemm += e_w > e_f ? e_w : e_f;
        wbytes += ebytes;
        flops += eflops;
    }

    /* Attention: KV streamed, QK^T and PV FLOPs over the context. */
    struct gp__attn_coef ac;
    gp__infer_attn_coef (m, &ac);
    double kvbytes, aflops;
    double attn = gp__infer_attn_time (&ac, L->decode_ctx,
                                       L->decode_ctx + L->prefill_ctx,
                                       &kvbytes, &aflops);

    /* Collectives. */
    double comm = 0, lb = m->link_bw * m->eff.link_eff;
    double act = tok * a->hidden * 2.0; /* bf16 activations */
    double lay = (double)a->layers / pp;
    /* Groups larger than the scale-up domain cross the network: an
     * all-to-all sends the off-domain share of its bytes at the per-GPU
     * network bandwidth; a ring all-reduce runs at its slowest link.
     */
    int dom = m->cfg.accel->scale_up_domain > 0
                  ? m->cfg.accel->scale_up_domain
                  : 8;
    double nb = m->net_bw * m->eff.link_eff;
    double off = tp > dom ? (double)(tp - dom) / (tp - 1.0) : 0.0;
    if (m->cfg.attn_dp && a->moe_experts > 0) {
        /* dispatch and combine: each rank's tokens go to topk experts,
         * each held by tp/ep ranks (one copy per expert slice, at most
         * one per rank: expert TP is an all-gather), (tp-1)/tp of them
         * elsewhere; the busiest rank receives imb x the mean */
        double moe_l = (double)m->pc.moe_layers / pp;
        double copies = (double)a->moe_topk * tp / ep;
        if (copies > tp)
            copies = tp;
        double bytes = act / tp * copies * (tp - 1.0) / tp * imb;
        if (tp > 1)
            comm += 2.0 * moe_l
                    * (2.0 * m->eff.allreduce_lat_s
                       + bytes * (1.0 - off) / lb + bytes * off / nb);
    } else if (tp > 1) {
        comm += 2.0 * lay
                * (m->eff.allreduce_lat_s
                   + 2.0 * (tp - 1.0) / tp * act / (off > 0 ? nb : lb));
    }
    if (pp > 1)
        comm += m->eff.allreduce_lat_s + act / lb;
    double fixed = lay * m->eff.layer_lat_s;

    if (o) {
        o->gemm_s = gemm;
        o->attn_s = attn;
        o->comm_s = comm;
        o->weight_bytes = wbytes;
        o->kv_bytes = kvbytes;
        o->flops = flops + aflops;
        o->compute_bound = t_f > t_w;
        o->overhead_s = fixed;
    }
    return gemm + attn + comm + fixed;
}

/* Expert-parallel load imbalance: the busiest of 'ep' ranks receives
 * 'imb' times the mean of 'slots' routed token-slots (docs/model/
 * inference.md, "Expert parallelism").  Finite-sample term: the maximum of
 * ep near-binomial counts with mean mu exceeds mu by about
 * sqrt(2 ln ep) standard deviations; 'skew' is the routing skew of the
 * trained router (1 = uniform).  Capped at the most one rank can take:
 * min(topk, experts/ep) slots of every token.
 */
double gp_infer_ep_imbalance (double slots, int ep, int topk, int experts,
                              double skew)
{
    if (ep <= 1 || !(slots > 0) || topk <= 0 || experts <= 0)
        return 1.0;
    if (!(skew >= 1.0))
        skew = 1.0;
    double mu = slots / ep;
    double imb = skew
                 + sqrt (2.0 * log ((double)ep) * (1.0 - 1.0 / ep) / mu);
    /* one token reaches at most min(k, E/ep) experts on one rank */
    double per_rank = (double)experts / ep;
    double kk = topk < per_rank ? topk : per_rank;
    double cap = ep * kk / topk;
    return imb < cap ? imb : cap;
}

/* Batch sizes of the CUDA graphs captured by the TensorRT-LLM perf-overview
 * recipe (its llm_options.yml, cuda_graph_config batch_sizes, with
 * enable_padding: docs/model/inference.md, "trtllm-bench settings and
 * CUDA graph padding").
 */
static const int graph_sizes[] = {1,   2,   4,   8,    16,   32,   64,  128,
                                  256, 384, 512, 1024, 2048, 4096, 8192};

double gp__infer_graph_batch (const struct gp_serve_model *m, double n)
{
    if (!m->cfg.eng.graph_pad || !(n > 0))
        return n;
    /* attention data parallelism: every rank runs its own batch and its
     * own graphs (max_batch_size per rank): n/tp per rank, rounded up */
    double r = m->cfg.attn_dp && m->cfg.tp > 1 ? m->cfg.tp : 1.0;
    double per = r > 1 ? ceil (n / r) : n;
    for (size_t i = 0; i < sizeof graph_sizes / sizeof graph_sizes[0]; i++)
        if (graph_sizes[i] >= per) {
            /* a padded batch above the engine's max_batch_size runs
             * without a graph, at its own size */
            double g = graph_sizes[i] * r;
            return g <= m->cfg.eng.max_batch && g > n ? g : n;
        }
    return n;
}

double gp_infer_iter_time (const struct gp_serve_model *m,
                           const struct gp_iter_load *load,
                           struct gp_iter_time *out)
{
    struct gp_iter_time o;
    memset (&o, 0, sizeof o);
    int pp = m->cfg.pp > 0 ? m->cfg.pp : 1;
    struct gp_iter_load s = *load;
    if (s.n_prefill == 0 && m->cfg.eng.graph_pad) {
        /* decode only: the padded CUDA graph's GEMMs; the padding
         * requests attend to no context */
        s.n_decode = gp__infer_graph_batch (m, s.n_decode);
        s.n_logits = gp__infer_graph_batch (m, s.n_logits);
    }
    s.n_decode /= pp;
    s.decode_ctx /= pp;
    s.n_prefill /= pp;
    s.prefill_ctx /= pp;
    s.n_logits /= pp;
    double st = stage_time (m, &s, &o);
    double t = pp * st;
    o.gemm_s *= pp;
    o.attn_s *= pp;
    o.comm_s *= pp;
    o.overhead_s = o.overhead_s * pp + m->cfg.eng.iter_overhead_s
                   + m->cfg.eng.seq_overhead_s * load->n_logits;
    if (m->cfg.eng.host_overlap) /* host work hidden behind the GPU's */
        o.total_s = gp__infer_overlap (t, m->cfg.eng.iter_overhead_s,
                                       m->cfg.eng.seq_overhead_s
                                           * load->n_logits);
    else
        o.total_s = t + m->cfg.eng.iter_overhead_s
                    + m->cfg.eng.seq_overhead_s * load->n_logits;
    if (out)
        *out = o;
    return o.total_s;
}

void gp__infer_decode_prep (const struct gp_serve_model *m, int n_dec,
                            struct gp__decode_step *d)
{
    struct gp_iter_time o;
    memset (&o, 0, sizeof o);
    int pp = m->cfg.pp > 0 ? m->cfg.pp : 1;
    /* the stage load of gp_infer_iter_time without its context */
    double g = gp__infer_graph_batch (m, n_dec);
    struct gp_iter_load s = {g / pp, 0.0, 0.0 / pp, 0.0 / pp, g / pp};
    stage_time (m, &s, &o);
    gp__infer_attn_coef (m, &d->a);
    d->gemm = o.gemm_s;
    d->comm = o.comm_s;
    d->fixed = o.overhead_s;
    d->pp = pp;
    d->iter_overhead = m->cfg.eng.iter_overhead_s;
    d->seq_overhead = m->cfg.eng.seq_overhead_s * (double)n_dec;
    d->overlap = m->cfg.eng.host_overlap;
}
