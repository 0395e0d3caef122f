/* train_prec.c - training precision as data (BF16, FP8 with current or
 * delayed scaling, MXFP8, NVFP4, MXFP4, INT8 per accelerator generation;
 * the vendor alias "fp4") and CPU activation
 * offload (memory, time, and the fewest offloaded layers that fit).
 *
 * The rows are data/catalog/precisions.csv and data/catalog/
 * host_links.csv (same order, same values; tests/unit/test_train_prec.c
 * compares them), compiled in because the training model needs them
 * without a catalog handle, like the engine table of the serving model.
 * Every value and its source: docs/model/training.md, "Precision" and
 * "CPU activation offload".
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/error.h"
#include "gpuplan/train.h"
#include "train_private.h"

#define TE_CS "Transformer Engine Float8CurrentScaling: amax pass (read 2 B) then cast (read 2 B, write 1 B)"
#define TE_DS "Transformer Engine DelayedScaling: amax from history, reduction fused into the cast (read 2 B, write 1 B)"
#define TE_MX "OCP MX v1.0 (32-element blocks, E8M0 scale); Transformer Engine MXFP8BlockScaling quantizes row- and column-wise in one pass (read 2 B, write 2 x (1 + 1/32) B)"
#define TE_NV "NVFP4 (16-element blocks, E4M3 scale + FP32 tensor scale; arXiv 2509.25149): amax pass (read 2 B), then row- and column-wise quantization (read 2 B, write 2 x (0.5 + 1/16) B)"
#define MX_FP4 "OCP MX v1.0 MXFP4 (32-element blocks, E8M0 scale; no tensor amax): row- and column-wise quantization in one pass (read 2 B, write 2 x (0.5 + 1/32) B); AMD CDNA4 MXFP4 peak"
#define AQT_I8 "INT8 quantized training (MaxText AQT, quantization=int8): scale from an amax pass (read 2 B), then cast (read 2 B, write 1 B); TPU int8 peak"
#define AQT_TPU "INT8 quantized training on TPUs (MaxText AQT): cast as AQT_I8; gemm_eff 0.65 = half the 1.3x step-time reduction of AQT int8 over bf16 on TPUs (google/aqt README, 1.2x to 1.4x on 1B to 16B Transformers), every step counted as GEMM (a lower bound)"

/* Achieved share of the host link's peak for offload copies: an
 * assumption (pinned asynchronous copies; docs/model/training.md, "CPU
 * activation offload").
 */
#define HOST_EFF 0.8
/* Offloaded layers whose activations stay in HBM as transfer buffers
 * (double buffering of the offload handler: one layer being copied out
 * in forward, one being prefetched in backward).
 */
#define OFFLOAD_BUFFERS 2

static const struct gp_train_prec prec_rows[] = {
    {"bf16", "hopper", "bf16", 0, 2, 1, "H100/H200 datasheet"},
    {"bf16", "blackwell", "bf16", 0, 2, 1, "B200/GB200/GB300 datasheets"},
    {"fp8", "hopper", "fp8", 5, 1, 1, TE_CS},
    {"fp8", "blackwell", "fp8", 5, 1, 1, TE_CS},
    {"fp8-delayed", "hopper", "fp8", 3, 1, 1, TE_DS},
    {"fp8-delayed", "blackwell", "fp8", 3, 1, 1, TE_DS},
    {"mxfp8", "blackwell", "fp8", 4.0625, 1.03125, 1, TE_MX},
    {"nvfp4", "blackwell", "fp4", 5.125, 0.5625, 1, TE_NV},
    {"mxfp4", "cdna4", "fp4", 3.0625, 0.53125, 1, MX_FP4},
    {"int8", "other", "int8", 5, 1, 1, AQT_I8},
    {"int8", "tpu", "int8", 5, 1, 0.65, AQT_TPU},
};

/* "fp4" per vendor: the 4-bit training recipe each vendor's stack
 * implements (docs/model/training.md, "Precision"): NVIDIA Transformer
 * Engine NVFP4BlockScaling, AMD CDNA4 MXFP4 (OCP MX).
 */
static const struct {
    const char *vendor;
    enum gp_precision p;
} fp4_alias[] = {
    {"NVIDIA", GP_PREC_NVFP4},
    {"AMD", GP_PREC_MXFP4},
};

static const struct gp_host_link link_rows[] = {
    {"H100-SXM", "PCIe Gen5 x16", 32, 256, "DGX H100 user guide (PCIe Gen5 x16, two GPUs per switch uplink; 2 TB / 8 GPUs)"},
    {"H200-SXM", "PCIe Gen5 x16", 32, 256, "DGX H200 user guide (PCIe Gen5 x16, two GPUs per switch uplink; 2 TB / 8 GPUs)"},
    {"H800", "PCIe Gen5 x16", 32, 256, "H800 SXM = H100 SXM host interface (assumed DGX H100 system memory)"},
    {"B200", "PCIe Gen5 x16", 32, 256, "DGX B200 user guide (PCIe Gen5 x16, two GPUs per switch uplink; 2 TB / 8 GPUs)"},
    {"GB200", "NVLink-C2C", 225, 240, "GB200 NVL72 datasheet: NVLink-C2C 900 GB/s bidirectional per superchip (1 Grace, 2 GPUs), 480 GB LPDDR5X per Grace"},
    {"GB300", "NVLink-C2C", 225, 240, "GB300 NVL72 datasheet: NVLink-C2C 900 GB/s bidirectional per superchip (1 Grace, 2 GPUs), up to 480 GB LPDDR5X per Grace"},
    {"TPU-V6E", "PCIe", 32, 206.2, "How to Scale Your Model, 'How to Think About TPUs' (Trillium PCIe 32 GB/s per chip); cloud.google.com/tpu/docs/v6e (1536 GiB DRAM per host of 8 chips)"},
};

const struct gp_train_prec *gp_train_prec_rows (size_t *n_out)
{
    *n_out = sizeof prec_rows / sizeof *prec_rows;
    return prec_rows;
}

const struct gp_host_link *gp_host_link_rows (size_t *n_out)
{
    *n_out = sizeof link_rows / sizeof *link_rows;
    return link_rows;
}

const struct gp_train_prec *gp_train_prec_for (enum gp_precision p,
                                               const char *generation)
{
    const char *name = gp_precision_str (p);
    if (!generation)
        return NULL;
    for (size_t i = 0; i < sizeof prec_rows / sizeof *prec_rows; i++)
        if (!strcmp (prec_rows[i].precision, name)
            && !strcmp (prec_rows[i].generation, generation))
            return &prec_rows[i];
    return NULL;
}

enum gp_precision gp_train_prec_resolve (enum gp_precision p,
                                         const struct gp_accel *a)
{
    if (p != GP_PREC_FP4 || !a || !a->vendor)
        return p;
    for (size_t i = 0; i < sizeof fp4_alias / sizeof *fp4_alias; i++)
        if (!strcasecmp (fp4_alias[i].vendor, a->vendor))
            return fp4_alias[i].p;
    return p;
}

const struct gp_host_link *gp_host_link_for (const char *accel_id)
{
    if (!accel_id)
        return NULL;
    for (size_t i = 0; i < sizeof link_rows / sizeof *link_rows; i++)
        if (!strcasecmp (link_rows[i].accel_id, accel_id))
            return &link_rows[i];
    return NULL;
}

int gp_precision_parse (const char *s)
{
    if (!s)
        return -1;
    if (!strcasecmp (s, "fp8-cs") || !strcasecmp (s, "fp8-current"))
        return GP_PREC_FP8;
    for (int p = GP_PREC_BF16; p <= GP_PREC_INT8; p++)
        if (!strcasecmp (s, gp_precision_str ((enum gp_precision)p)))
            return p;
    return -1;
}

/* Peak of catalog column 'col' for 'a': FP4 falls back to the FP8 peak
 * times the generation's fp4_per_fp8 (datasheet ratio, generations.csv).
 */
static double peak_of (const struct gp_accel *a, const char *col)
{
    double v = gp_accel_peak_flops (a, col);
    if (v <= 0 && !strcmp (col, "fp4") && a->gen && a->gen->fp4_per_fp8 > 0)
        v = gp_accel_peak_flops (a, "fp8") * a->gen->fp4_per_fp8;
    return v;
}

void gp__prec_hw (const struct gp_accel *a, enum gp_precision p,
                  struct gp_train_hw *hw)
{
    const struct gp_train_prec *r = gp_train_prec_for (
        gp_train_prec_resolve (p, a), a->gen ? a->gen->id : NULL);
    if (r && p != GP_PREC_BF16 && p != GP_PREC_FP16) {
        double peak = peak_of (a, r->peak);
        if (peak > 0) {
            hw->peak_flops = peak;
            hw->fp8 = 1;
            hw->cast_bytes = r->cast_bytes;
            hw->saved_act_bytes = r->saved_act_bytes;
            hw->prec_gemm_eff = r->gemm_eff;
        }
    }
    const struct gp_host_link *k = gp_host_link_for (a->id);
    if (k) {
        hw->host_bw = k->bw_gbs * 1e9 * HOST_EFF;
        hw->host_mem_bytes = k->host_mem_gb * 1e9;
    }
}

double gp__prec_save_scale (const struct gp_train_hw *hw)
{
    return hw->saved_act_bytes > 0 ? 2.0 - hw->saved_act_bytes : 1.0;
}

/* ========================= CPU activation offload ====================== */

double gp__offload_act (const struct gp_layout *l, int Ls, double a_layer,
                        double *host)
{
    int n = l->offload_layers < Ls - 1 ? l->offload_layers : Ls - 1;
    if (n < 1) {
        *host = 0;
        return 0;
    }
    *host = a_layer * n;
    return n > OFFLOAD_BUFFERS ? a_layer * (n - OFFLOAD_BUFFERS) : 0;
}

/* ==================== host-offloaded remat checkpoints ================= */

/* MaxText remat_policy 'custom' (maxtext_trillium_model_configs.py, the
 * Llama 3.1 8B and 70B Trillium workloads): decoder_layer_input,
 * query_proj, key_proj, value_proj (and out_proj) 'offload' = saved to
 * host memory in the forward and brought back for the backward, which
 * recomputes everything else.  The checkpoint of one layer: its input
 * (what full recomputation stores, 'a_layer') plus the Q, K, V and
 * attention-output projections, 2 B per element, split over TP.
 */
double gp__remat_ckpt_bytes (const struct gp_train_model *m,
                             const struct gp_train_job *job,
                             const struct gp_layout *l, double a_layer)
{
    double tok = job->seq_len / l->cp * l->micro_batch;
    double width = (double)m->heads * m->head_dim
                   + 2.0 * m->kv_heads * m->head_dim + m->hidden;
    return a_layer + 2.0 * tok * width / l->tp;
}

double gp__remat_offload_act (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_layout *l, int Ls,
                              double a_layer, double *host)
{
    double c = gp__remat_ckpt_bytes (m, job, l, a_layer);
    int keep = Ls < OFFLOAD_BUFFERS ? Ls : OFFLOAD_BUFFERS;
    *host = c * Ls;
    /* the Ls stored inputs leave HBM; 'keep' checkpoints stay as the
     * transfer buffers (one going out, one coming back)
     */
    return keep * c - Ls * a_layer;
}

int gp__remat_offload_check (const struct gp_train_model *m,
                             const struct gp_layout *l, gp_error_t *err)
{
    (void)m;
    /* the layout search checks a layout before it sets the recomputation:
     * a layout without full recomputation keeps its checkpoints in HBM
     * (the memory and time terms apply to recompute full only)
     */
    if (l->pp > 1 || l->offload_layers > 0
        || (l->recompute == GP_RECOMP_FULL && l->recompute_layers > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "remat_offload checkpoints needs pp 1, no CPU "
                             "activation offload and full recomputation of "
                             "every layer");
    return 0;
}

/* Host copies of 'n' layers holding 'bytes' in host memory in all: each
 * layer's share goes out during the next layer's forward ('fwd' s) and
 * comes back during the previous layer's backward ('bwd' s), on a copy
 * stream over the host link ('bw' B/s): only the excess over that
 * compute is exposed.
 */
static double copies_exposed_s (double bytes, int n, double bw, double fwd,
                                double bwd)
{
    double tx = bytes / n / bw;
    double out = tx > fwd ? tx - fwd : 0;
    double in = tx > bwd ? tx - bwd : 0;
    return n * (out + in);
}

/* Each layer's checkpoint goes to the host during that layer's forward
 * and comes back during the backward of the layer after it; only the
 * excess over that compute is exposed (as gp__offload_s).
 */
static double remat_offload_s (const struct gp_train_model *m,
                               const struct gp_train_job *job,
                               const struct gp_train_hw *hw,
                               const struct gp_layout *l, double fwd,
                               double bwd)
{
    if (hw->host_bw <= 0)
        return 0;
    struct gp_train_mem mem;
    gp_train_memory (m, job, hw, l, &mem);
    int Ls = (m->layers + l->pp - 1) / l->pp;
    if (Ls < 1 || mem.offload_host <= 0)
        return 0;
    return copies_exposed_s (mem.offload_host, Ls, hw->host_bw, fwd, bwd);
}

/* MaxText logits (layers/decoders.py: logits_dense in the compute dtype,
 * bf16, unless logits_dot_in_fp32; cast_logits_to_fp32 then converts):
 * under XLA the convert, the max shift, exp and the one-hot targets are
 * elementwise and fuse into the reductions of the loss and into the
 * gradient, so the vocab-wide buffers are the 16-bit dot output and its
 * 16-bit gradient (2 + 2 B per element).  They live between the last
 * layer's forward and its backward: not with one layer's recompute
 * working set nor the layer gradients the backward scan writes later
 * ('other').  Peak = max(layer phase, loss phase), so the term is the
 * excess of the loss phase.
 */
double gp__logits_xla (const struct gp_train_model *m,
                       const struct gp_layout *l, double tok, double other)
{
    double L = 4.0 * tok * m->vocab / l->tp;
    return L > other ? L - other : 0;
}

double gp__offload_s (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_train_hw *hw,
                      const struct gp_layout *l, double fwd, double bwd)
{
    if (job->remat_offload && l->recompute == GP_RECOMP_FULL)
        return remat_offload_s (m, job, hw, l, fwd, bwd);
    if (l->offload_layers <= 0 || hw->host_bw <= 0)
        return 0;
    struct gp_train_mem mem;
    gp_train_memory (m, job, hw, l, &mem);
    int Ls = (m->layers + l->pp - 1) / l->pp;
    int n = l->offload_layers < Ls - 1 ? l->offload_layers : Ls - 1;
    if (n < 1)
        return 0;
    return copies_exposed_s (mem.offload_host, n, hw->host_bw, fwd, bwd);
}

int gp__offload_fit (const struct gp_train_model *m,
                     const struct gp_train_job *job,
                     const struct gp_train_hw *hw, struct gp_layout *l,
                     struct gp_train_mem *mem)
{
    /* Megatron-Core: CPU offloading needs pp = 1, no recomputation and
     * fewer offloaded layers than layers.
     */
    if (hw->host_bw <= 0 || l->pp != 1 || l->recompute != GP_RECOMP_NONE
        || l->offload_layers > 0 || mem->fits || m->layers < 2)
        return 0;
    int Ls = m->layers;
    struct gp_layout t = *l;
    struct gp_train_mem mm;
    t.offload_layers = Ls - 1;
    gp_train_memory (m, job, hw, &t, &mm);
    if (!mm.fits || mm.offload_host <= 0)
        return 0;
    double a_layer = mm.offload_host / (Ls - 1);
    double need = -mem->headroom;
    int n = (int)ceil (need / (1.05 * a_layer)) + OFFLOAD_BUFFERS;
    if (n < OFFLOAD_BUFFERS + 1)
        n = OFFLOAD_BUFFERS + 1;
    if (n > Ls - 1)
        n = Ls - 1;
    for (; n <= Ls - 1; n++) {
        t.offload_layers = n;
        gp_train_memory (m, job, hw, &t, &mm);
        if (mm.fits)
            break;
    }
    if (n > Ls - 1 || (hw->host_mem_bytes > 0
                       && mm.offload_host > hw->host_mem_bytes))
        return 0;
    *l = t;
    *mem = mm;
    return 1;
}

/* ======================= TP communication overlap ====================== */

/* Transformer Engine's userbuffers split each TP all-gather + GEMM and
 * GEMM + reduce-scatter into chunks and run the exchange of one chunk
 * under the GEMM of another: the collectives of a layer hide under its
 * GEMMs, and only what exceeds them stays exposed.
 */
double gp__tp_overlap_s (double tp_s, double gemm_s)
{
    return tp_s > gemm_s ? tp_s - gemm_s : 0;
}
