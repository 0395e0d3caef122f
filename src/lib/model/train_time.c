/* train_time.c - the step time of a training layout, by concept:
 * compute (GEMMs, attention, memory-bound kernels), communication (TP,
 * CP, EP, DP/ZeRO), recomputation, the pipeline (bubble, send/recv),
 * the optimizer step, and the rates that follow (tokens/s, MFU, HFU).
 * Every formula and constant is in docs/model/training.md ("Step time").
 */
#include <math.h>
#include <string.h>

#include "gpuplan/train.h"
#include "train_lora.h"
#include "train_private.h"

/* Time of one GEMM (M x N x K) on 'hw': compute at a shape-dependent
 * efficiency, bounded below by its HBM traffic, plus a kernel overhead.
 */
/* Share of ZeRO-3/FSDP parameter traffic hidden under compute, and of
 * the gradient reduction hidden under the last backward (frameworks
 * prefetch one layer ahead and bucket gradients; docs/model/training.md).
 */
#define ZERO3_OVERLAP 0.7
#define GRAD_OVERLAP 0.9
/* Kernel launches of a MoE layer's forward beyond the GEMMs: router
 * GEMM epilogue, softmax/sigmoid, top-k, auxiliary loss, token counts,
 * permute, unpermute, dispatch and combine preprocessing (about 20 in
 * Megatron-Core's MoELayer forward; docs/model/training.md).
 */
#define MOE_KERNELS 20
/* Bytes moved per element by the FP8 cast of a GEMM input (current
 * scaling: amax pass reading 2 B, then cast reading 2 B and writing 1 B;
 * docs/model/training.md, "Precision").
 */
#define FP8_CAST_BYTES 5.0

static inline double gemm_s (const struct gp_train_hw *hw, double M, double N,
                             double K)
{
    const struct gp_train_eff *e = &hw->eff;
    double d = e->gemm_dim_half;
    double eff = e->gemm_max / (1.0 + d / M + d / N + d / K);
    if (hw->prec_gemm_eff > 0)
        eff *= hw->prec_gemm_eff; /* precisions.csv gemm_eff */
    double tc = 2.0 * M * N * K / (hw->peak_flops * eff);
    double tm = 2.0 * (M * K + K * N + M * N) / (hw->mem_bw * e->hbm);
    double t = (tc > tm ? tc : tm) + e->kernel_s;
    /* FP8 (Transformer Engine recipes): the activation input is cast
     * from BF16 first, reading 2 and writing 1 byte per element, plus an
     * amax reduction: a separate memory-bound kernel.  The weight is cast
     * once per optimizer step, on the first micro-batch (TE Linear's
     * is_first_microbatch; Megatron keeps the FP8 weight for the other
     * micro-batches), so its cast is not charged per GEMM.
     */
    if (hw->fp8)
        t += (hw->cast_bytes > 0 ? hw->cast_bytes : FP8_CAST_BYTES) * M * K
                 / (hw->mem_bw * e->hbm)
             + e->kernel_s;
    return t;
}

/* A grouped GEMM (Transformer Engine / CUTLASS grouped GEMM, as used for
 * the routed experts): 'n' problems of M x N x K in one kernel, each at
 * its own shape efficiency, paying the kernel overheads once.
 */
static inline double grouped_gemm_s (const struct gp_train_hw *hw, double n,
                                     double M, double N, double K)
{
    double over = hw->eff.kernel_s * (hw->fp8 ? 2 : 1);
    return n * (gemm_s (hw, M, N, K) - over) + over;
}

double gp__train_gemm_s (const struct gp_train_hw *hw, double M, double N,
                         double K)
{
    return gemm_s (hw, M, N, K);
}

/* Ring all-reduce of 'bytes' over 'n' ranks at bus bandwidth 'bw':
 * 2(n-1)/n * bytes / bw + latency (ring or tree, whichever is smaller).
 */
static inline double allreduce_s (double bytes, double n, double bw,
                                  double lat)
{
    if (n <= 1)
        return 0;
    double ring = 2.0 * (n - 1) * lat, tree = 2.0 * log2 (n) * lat;
    return 2.0 * (n - 1) / n * bytes / bw + (ring < tree ? ring : tree);
}

/* In-network reduction (docs/model/training.md, "In-network reduction").
 * A ring all-reduce moves 2(n-1)/n x bytes through each endpoint; with
 * the reduction done in the switch each endpoint sends and receives the
 * message once.  Reduce-scatter and all-gather already move (n-1)/n x
 * bytes per endpoint, so only all-reduce gains.
 * NVLS: NCCL picks it from 2 MiB on one 8-GPU H100 node (ring/LL below,
 * NVIDIA/nccl-tests #309) and it gives ring-like bus bandwidth at 2-4
 * GPUs (NVIDIA/nccl #1455).
 */
#define NVLS_MIN_BYTES (2.0 * 1048576)
#define NVLS_MIN_RANKS 5

/* All-reduce of 'bytes' over 'n' ranks of one scale-up domain at ring bus
 * bandwidth 'bw': the ring, or NVLink SHARP at nvls x bw algorithm
 * bandwidth (one push to the switch, one multicast back) when faster.
 */
static inline double allreduce_nvls_s (double bytes, double n, double bw,
                                       double lat, double nvls)
{
    double r = allreduce_s (bytes, n, bw, lat);
    if (nvls > 0 && n >= NVLS_MIN_RANKS && bytes >= NVLS_MIN_BYTES) {
        double v = bytes / (nvls * bw) + 2.0 * lat;
        if (v < r)
            r = v;
    }
    return r;
}

double gp_train_allreduce_up_s (const struct gp_train_hw *hw, double bytes,
                                int n)
{
    double bw = hw->scale_up_bw * hw->eff.scale_up;
    return allreduce_nvls_s (bytes, n, bw, 2e-6, hw->nvls_share);
}

/* All-reduce of 'bytes' over 'nodes' nodes with 'd_in' ranks each, at
 * ring bus bandwidth 'bw' (the node's NICs, capped by NVLink): the ring,
 * or InfiniBand SHARP when the fabric has it and it is faster.  SHARP's
 * algorithm bandwidth is d_in NICs x sharp x NIC rate; the leaf switch
 * aggregates before its uplinks, so oversubscription does not slow it.
 * With d_in > 1 the node's ranks first combine over NVLink, which caps
 * it: at NVLS's algorithm bandwidth where the node's ranks can use
 * NVLink SHARP (NCCL's NVLS algorithm: NVLink SHARP inside, CollNet between nodes,
 * NVIDIA/nccl #1725), else at half the scale-up bus bandwidth (NVLink
 * carries about twice the data, NVIDIA/nccl #320).
 */
static double allreduce_out_s (const struct gp_train_hw *hw, double bytes,
                               double n, double nodes, double d_in,
                               double bw, double lat)
{
    double r = allreduce_s (bytes, n, bw, lat);
    if (hw->sharp_share > 0 && nodes >= 2) {
        double sb = d_in * hw->scale_out_bw * hw->sharp_share;
        double up = hw->scale_up_bw * hw->eff.scale_up;
        double cap = up * (hw->nvls_share > 0 && d_in >= NVLS_MIN_RANKS
                               ? hw->nvls_share
                               : 0.5);
        if (d_in > 1 && sb > cap)
            sb = cap;
        double v = bytes / sb + 2.0 * log2 (nodes) * lat;
        if (v < r)
            r = v;
    }
    return r;
}

double gp_train_allreduce_out_s (const struct gp_train_hw *hw, double bytes,
                                 int nodes, int d_in)
{
    double bw = d_in * hw->scale_out_bw * hw->eff.scale_out / hw->oversub;
    double up = hw->scale_up_bw * hw->eff.scale_up;
    if (bw > up)
        bw = up;
    return allreduce_out_s (hw, bytes, (double)nodes * d_in, nodes, d_in, bw,
                            hw->scale_out_lat_s);
}

/* All-gather or reduce-scatter: half an all-reduce. */
static inline double gather_s (double bytes, double n, double bw, double lat)
{
    if (n <= 1)
        return 0;
    return (n - 1) / n * bytes / bw + (n - 1) * lat;
}

/* What every term of one step shares: the layout's degrees and the
 * per-micro-batch shapes.
 */
struct tctx {
    const struct gp_train_model *m;
    const struct gp_train_job *job;
    const struct gp_train_hw *hw;
    const struct gp_layout *l;
    const struct gp_train_eff *e;
    double t, pp, cp, dp, ep, h, s;
    double T;                   /* tokens per micro-batch per GPU */
    double Tm;                  /* tokens routed per GPU (MoE, with SP) */
    double qd, kvd;
    int Ls;                     /* layers per pipeline stage */
    double nmb;                 /* micro-batches per step */
    double dense_frac, moe_frac;
    int rec;
};

static void tctx_init (struct tctx *cx, const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_layout *l)
{
    cx->m = m;
    cx->job = job;
    cx->hw = hw;
    cx->l = l;
    cx->e = &hw->eff;
    cx->t = l->tp, cx->pp = l->pp, cx->cp = l->cp, cx->dp = l->dp;
    cx->ep = l->ep;
    cx->h = m->hidden, cx->s = job->seq_len;
    cx->T = cx->s / cx->cp * l->micro_batch;
    cx->qd = (double)m->heads * m->head_dim;
    cx->kvd = 2.0 * m->kv_heads * m->head_dim;
    cx->Ls = (m->layers + l->pp - 1) / l->pp;
    cx->nmb = job->global_batch / (cx->dp * l->micro_batch);
    cx->dense_frac = m->layers ? (double)m->dense_layers / m->layers : 1;
    cx->moe_frac = 1 - cx->dense_frac;
    cx->rec = l->recompute;
    cx->Tm = cx->T / cx->t;
    if (m->ssm_layers > 0) /* hybrid: no experts */
        cx->moe_frac = 0;
}

/* Unpack the context into the names the formulas use. */
#define TCTX_NAMES(c)                                                         \
    const struct gp_train_model *m = (c)->m;                                  \
    const struct gp_train_job *job = (c)->job;                                \
    const struct gp_train_hw *hw = (c)->hw;                                   \
    const struct gp_layout *l = (c)->l;                                       \
    const struct gp_train_eff *e = (c)->e;                                    \
    double t = (c)->t, pp = (c)->pp, cp = (c)->cp, dp = (c)->dp;              \
    double ep = (c)->ep, h = (c)->h, s = (c)->s, T = (c)->T, Tm = (c)->Tm;    \
    double qd = (c)->qd, kvd = (c)->kvd, nmb = (c)->nmb;                      \
    double dense_frac = (c)->dense_frac, moe_frac = (c)->moe_frac;            \
    int Ls = (c)->Ls, rec = (c)->rec;                                         \
    (void)m, (void)job, (void)hw, (void)l, (void)e, (void)t, (void)pp;        \
    (void)cp, (void)dp, (void)ep, (void)h, (void)s, (void)T, (void)Tm;        \
    (void)qd, (void)kvd, (void)nmb, (void)dense_frac, (void)moe_frac;         \
    (void)Ls, (void)rec

/* ------------------------------- compute ------------------------------ */

/* GEMMs of one layer, forward, one micro-batch. */
static double gemm_fwd (const struct tctx *cx)
{
    TCTX_NAMES (cx);
    double g;
    if (m->mla) {
        /* MLA (DeepSeek-V2 Sec. 2.1): down-projections to the latents
         * (replicated over TP), up-projections to per-head Q, K_nope and
         * V (split over TP), output projection from a*d_v.
         */
        double a = m->heads, dq = m->head_dim, dv = m->mla_v_dim;
        double ql = m->mla_q_lora, kl = m->mla_kv_lora, rr = m->mla_rope;
        g = ql > 0 ? gemm_s (hw, T, ql, h) + gemm_s (hw, T, a * dq / t, ql)
                   : gemm_s (hw, T, a * dq / t, h);
        g += gemm_s (hw, T, kl + rr, h);
        g += gemm_s (hw, T, a * (dq - rr + dv) / t, kl);
        g += gemm_s (hw, T, h, a * dv / t);
    } else
        g = gemm_s (hw, T, (qd + kvd) / t, h) + gemm_s (hw, T, h, qd / t);
    double gd = 0, gm = 0;
    if (dense_frac > 0) {
        double f = m->ffn_hidden / t;
        gd = gemm_s (hw, T, f * (m->mlp_mats - 1), h) + gemm_s (hw, T, h, f);
    }
    /* MoE: with sequence parallelism each GPU routes T/t tokens; the
     * routed experts are not tensor-split (expert tensor parallel 1), so
     * each of the E/ep local experts receives T/t * ep * top_k / E tokens
     * (token-dropless, balanced) and runs as one grouped GEMM.
     */
    if (moe_frac > 0) {
        double fm = m->moe_ffn_hidden;
        double local = (double)m->moe_experts / ep;
        double tpe = Tm * ep * m->moe_topk / m->moe_experts;
        if (tpe < 1)
            tpe = 1;
        /* the busiest rank's count, in whole tiles (train_moe.c) */
        tpe = gp__moe_expert_rows (job, tpe);
        gm = grouped_gemm_s (hw, local, tpe, fm * (m->mlp_mats - 1), h)
             + grouped_gemm_s (hw, local, tpe, h, fm);
        /* MXFP8 grouped-GEMM shortfall on Blackwell (train_moe.c) */
        gm += gp__moe_grouped_extra_s (hw, local, tpe,
                                       fm * (m->mlp_mats - 1), h)
              + gp__moe_grouped_extra_s (hw, local, tpe, h, fm);
        if (m->moe_shared > 0) {
            double fs = fm * m->moe_shared / t;
            gm += gemm_s (hw, T, fs * (m->mlp_mats - 1), h)
                  + gemm_s (hw, T, h, fs);
        }
        gm += gemm_s (hw, Tm, m->moe_experts, h); /* router */
    }
    return g + dense_frac * gd + moe_frac * gm;
}

/* The two batched GEMMs of unfused attention (Q K^T and P V), forward,
 * as a roofline: their FLOPs at the GEMM ceiling, or their HBM traffic
 * when that is longer — the s x s scores written by the first and read
 * by the second (2 bytes each) and Q, K, V and the output read or
 * written once (docs/model/training.md, "Unfused attention GEMMs").  The
 * softmax, mask and dropout traffic between them is mem_extra.
 */
static double unfused_bmm_s (const struct tctx *cx, double flops,
                             double apeak)
{
    TCTX_NAMES (cx);
    double rows = (double)m->heads / t * l->micro_batch * (s / cp);
    double bytes = 2.0 * 2.0 * rows * s + 4.0 * 2.0 * rows * m->head_dim;
    double tc = flops / (apeak * e->gemm_max);
    double tm = bytes / (hw->mem_bw * e->hbm);
    return (tc > tm ? tc : tm) + 2 * e->kernel_s;
}

/* Attention core, forward, one micro-batch and layer; its backward in
 * '*attn_b' and the HBM traffic of unfused scores in '*mem_extra'.
 */
static double attn_fwd (const struct tctx *cx, double *attn_b_out,
                        double *mem_extra_out)
{
    TCTX_NAMES (cx);
    double attn_flops = m->mla ? 2.0 * l->micro_batch * (s / cp) * s
                                     * gp_train_attn_width2 (m) / t
                               : 4.0 * l->micro_batch * (s / cp) * s * qd / t;
    double attn_f;
    double mem_extra = 0;
    /* The attention core stays 16-bit in FP8 recipes (Transformer
     * Engine's fp8_dot_product_attention is off in the Megatron-Bridge
     * and NeMo recipes): it runs at the BF16 peak, not the FP8 one.
     */
    double apeak = hw->fp8 && hw->peak_bf16_flops > 0 ? hw->peak_bf16_flops
                                                      : hw->peak_flops;
    if (job->flash_attn) {
        attn_f = 0.5 * attn_flops
                     / (apeak * gp_train_attn_eff (e, job->attn_kernel))
                 + e->kernel_s;
    } else {
        /* unfused: batched GEMMs on the full s x s scores, softmax,
         * mask and dropout through HBM (5 a s^2 b / t bytes written
         * and read).
         */
        attn_f = unfused_bmm_s (cx, attn_flops, apeak);
        mem_extra = 2.0 * 5.0 * m->heads * (s / cp) * s * l->micro_batch / t
                    / (hw->mem_bw * e->hbm);
    }
    double attn_b = 2.0 * attn_f;
    if (job->flash_attn)
        attn_b = 2.5 * attn_f; /* flash backward recomputes the scores */
    *attn_b_out = attn_b;
    *mem_extra_out = mem_extra;
    return attn_f;
}

/* Memory-bound element-wise work, forward, one micro-batch and layer. */
static double mem_fwd (const struct tctx *cx, double mem_extra)
{
    TCTX_NAMES (cx);
    /* --- memory-bound element-wise work: every stored activation is
     * written once and read twice in forward (MEM_PASSES = 3), twice
     * that in backward ---
     */
    struct gp_layout nl = *l;
    nl.recompute = GP_RECOMP_NONE;
    double act = gp_train_act_layer_bytes (m, &nl, s, 1);
    double mem_f = 3.0 * act / (hw->mem_bw * e->hbm) + mem_extra
                   + 10 * e->kernel_s;
    /* MoE: permute before dispatch and unpermute (weighted sum) after
     * combine, each reading and writing T/t*top_k h-wide 16-bit rows, plus
     * the router's softmax/top-k, auxiliary-loss and token-count kernels
     * (MOE_KERNELS launches per layer forward).
     */
    if (moe_frac > 0)
        mem_f += moe_frac * (2.0 * 2.0 * Tm * m->moe_topk * h * 2
                                 / (hw->mem_bw * e->hbm)
                             + MOE_KERNELS * e->kernel_s);
    /* MoE (train_moe.c): the dispatched copies are written and read by
     * the permute term above, not by the three passes of 'act'
     */
    if (moe_frac > 0)
        mem_f -= moe_frac * gp__moe_copies_pass_s (m, hw, Tm);
    /* MoE (train_moe.c): the NCCL dispatcher's local sort by expert */
    if (moe_frac > 0)
        mem_f += moe_frac * gp__moe_sort_s (m, job, hw, Tm, ep);
    return mem_f;
}

/* ---------------------------- communication --------------------------- */

/* TP over whole NVLink nodes (tp a multiple of the GPUs per node, the
 * node one scale-up domain): NCCL's rings cross between the nodes on
 * every GPU's NIC at once, so the ring runs at the node's NICs, d_in x
 * NIC (capped by NVLink), as the DP all-reduce does ("TP across nodes",
 * docs/model/training.md).  Returns the two forward collectives' time,
 * or 'one_nic' (the time at one NIC) where the layout is not of that
 * shape (PCIe cards, TP not in whole nodes).
 */
static double tp_nodes_s (const struct tctx *cx, double one_nic)
{
    TCTX_NAMES (cx);
    int g = hw->gpus_per_node;
    if (g < 2 || hw->scale_up_domain < g || l->tp % g != 0)
        return one_nic;
    double d_in = g, nodes = t / g;
    double bw = d_in * hw->scale_out_bw * e->scale_out / hw->oversub;
    double up = hw->scale_up_bw * e->scale_up;
    if (bw > up)
        bw = up;
    double bytes = T * h * 2, lat = hw->scale_out_lat_s;
    /* SP: reduce-scatter + all-gather, the volume of a ring all-reduce;
     * without SP the all-reduce may use IB SHARP (allreduce_out_s)
     */
    double x = l->seq_par ? allreduce_s (bytes, t, bw, lat)
                          : allreduce_out_s (hw, bytes, t, nodes, d_in, bw,
                                             lat);
    return 2.0 * x;
}

/* TP, CP and EP traffic of one layer and micro-batch, forward. */
static void comm_fwd (const struct tctx *cx, double attn_f, double *tp_out,
                      double *cp_out, double *ep_out)
{
    TCTX_NAMES (cx);
    /* --- TP collectives: 2 per layer forward, 2 backward, of T*h 16-bit
     * elements; SP replaces all-reduce by all-gather + reduce-scatter of
     * the same volume ---
     */
    double tp_f = 0;
    if (t > 1) {
        int in_dom = l->tp <= hw->scale_up_domain;
        double bw = in_dom ? hw->scale_up_bw * e->scale_up
                           : hw->scale_out_bw * e->scale_out / hw->oversub;
        double lat = in_dom ? 2e-6 : hw->scale_out_lat_s;
        /* without SP the TP all-reduce may use NVLS in the domain */
        tp_f = 2.0 * (in_dom && !l->seq_par
                          ? allreduce_nvls_s (T * h * 2, t, bw, lat,
                                              hw->nvls_share)
                          : allreduce_s (T * h * 2, t, bw, lat));
        if (!in_dom)
            tp_f = tp_nodes_s (cx, tp_f);
    }
    /* --- CP: ring exchange of K,V overlapped with attention --- */
    double cp_f = 0;
    if (cp > 1) {
        int in_dom = l->tp * l->cp <= hw->scale_up_domain;
        double bw = in_dom ? hw->scale_up_bw * e->scale_up
                           : hw->scale_out_bw * e->scale_out / hw->oversub;
        double kv_bytes = T * kvd / t * 2 * (cp - 1);
        double c = kv_bytes / bw;
        cp_f = c > attn_f ? c - attn_f : 0;
    }
    /* --- EP all-to-all: dispatch and combine (forward; the backward
     * moves the same volume the other way).  The ep ranks fill scale-up
     * domains of g = min(ep, domain) GPUs, N = ep/g domains.  A token's
     * top_k copies go to uniformly spread experts: (g-1)/ep of them over
     * NVLink directly; with N > 1 the dispatcher (DeepEP / HybridEP) sends
     * one copy per distinct remote domain over the NIC, expected
     * (N-1)(1-(1-1/N)^k), and forwards it over NVLink inside that
     * domain.  NVLink and NIC traffic proceed concurrently. ---
     */
    double ep_f = 0;
    if (moe_frac > 0 && ep > 1) {
        double dom = hw->scale_up_domain > 1 ? hw->scale_up_domain : 1;
        double gi = ep < dom ? ep : dom;
        double N = ceil (ep / gi);
        double nv, ib; /* by the dispatcher (train_moe.c) */
        gp__moe_a2a_bytes (m, job, Tm, ep, gi, N, &nv, &ib);
        double t_nv = nv / (hw->scale_up_bw * e->scale_up);
        double t_ib = ib / (hw->scale_out_bw * e->scale_out / hw->oversub);
        double lat = 2e-6 * log2 (gi > 1 ? gi : 2)
                     + (N > 1 ? hw->scale_out_lat_s * log2 (N) : 0);
        /* the busiest rank (imbalance) sets the pace of the exchange */
        ep_f = moe_frac * 2.0
               * ((t_nv > t_ib ? t_nv : t_ib) * gp__moe_imbalance (job)
                  + lat);
    }
    *tp_out = tp_f;
    *cp_out = cp_f;
    *ep_out = ep_f;
}

/* One layer and micro-batch: forward, backward, recomputation and the
 * EP all-to-all, exposed and hidden.
 */
struct layer_mb {
    double gemm_f, attn_f, attn_b, mem_f, tp_f, cp_f;
    double fwd, bwd, recomp;
    double ep_mb, ep_hid, layer_mb;
    double host;                /* MoE host time (train_moe.c) */
    double gemm_b;              /* GEMMs backward (2 gemm_f; LoRA:
                                 * train_lora.c) */
    double wacc;                /* MoE wgrad fp32 accumulation (train_moe.c) */
    double ovl;                 /* MoE SMs held by hidden all-to-all */
};

/* ---------------------------- recomputation --------------------------- */

static double recompute_s (const struct tctx *cx, double fwd, double attn_f)
{
    TCTX_NAMES (cx);
    double recomp = 0;
    if (rec == GP_RECOMP_FULL) /* partial (block): that share of layers */
        recomp = gp_train_recomp_frac (l, m->layers) * fwd;
    else if (rec == GP_RECOMP_SELECTIVE && !job->flash_attn)
        recomp = attn_f;
    else if (rec == GP_RECOMP_SELECTIVE && m->mla) {
        /* MLA up-projections recomputed in backward */
        double a = m->heads, dq = m->head_dim, dv = m->mla_v_dim;
        double ql = m->mla_q_lora, kl = m->mla_kv_lora, rr = m->mla_rope;
        recomp = (ql > 0 ? gemm_s (hw, T, a * dq / t, ql) : 0)
                 + gemm_s (hw, T, a * (dq - rr + dv) / t, kl);
    }
    return recomp;
}

/* ------------------------ hybrid Mamba-2 layers ----------------------- */

/* The average pattern layer of a hybrid model (docs/model/training.md,
 * "Hybrid Mamba-2/attention models"): the transformer pieces computed
 * above are re-weighted — attention GEMMs and core by n_attn/L (the MLP
 * is already weighted by dense_frac = n_mlp/L) — and the Mamba-2 mixer
 * added with weight n_ssm/L: in_proj (T, (2 d_in + 2GN + H)/t, h),
 * out_proj (T, h, d_in/t), and the conv + SSD chunked scan.  One TP
 * collective per pattern layer instead of two per transformer block.
 */
static void ssm_mix (const struct tctx *cx, double mem_extra, double *gemm_f,
                     double *attn_f, double *attn_b, double *mem_f,
                     double *tp_f)
{
    TCTX_NAMES (cx);
    double L = m->layers;
    double fa = m->attn_layers / L, fm = m->ssm_layers / L;
    double attn_g = gemm_s (hw, T, (qd + kvd) / t, h)
                    + gemm_s (hw, T, h, qd / t);
    double H = m->ssm_heads / t, G = m->ssm_groups / t;
    double N = m->ssm_state, P = m->ssm_head_dim, din = H * P;
    double ssm_g = gemm_s (hw, T, 2 * din + 2 * G * N + H, h)
                   + gemm_s (hw, T, h, din);
    /* SSD scan on this GPU's H/t heads: tensor-core chunk products at the
     * fused-attention efficiency, at 16-bit peak (the scan is not FP8),
     * or its HBM traffic: x, B, C in and y out (16 bit), dt (fp32), the
     * fp32 chunk states written and read, and the causal conv reading and
     * writing x, B, C; five scan kernels and the conv
     */
    double flops = T * gp__ssm_scan_flops_per_token (m) / t;
    double peak16 = hw->peak_bf16_flops > 0 ? hw->peak_bf16_flops
                                            : hw->peak_flops;
    double bytes = T * (2 * din + 2 * 2 * G * N + 4 * H + 2 * din)
                   + T / m->ssm_chunk * H * P * N * 4 * 2
                   + T * (din + 2 * G * N) * 2 * 2;
    double fl_s = flops / (peak16 * e->attn);
    double by_s = bytes / (hw->mem_bw * e->hbm);
    double scan = (fl_s > by_s ? fl_s : by_s) + 6 * e->kernel_s;
    *gemm_f = *gemm_f - attn_g + fa * attn_g + fm * ssm_g;
    *mem_f = *mem_f - (1 - fa) * mem_extra;
    *attn_b = fa * *attn_b + fm * 2.5 * scan;
    *attn_f = fa * *attn_f + fm * scan;
    *tp_f *= 0.5;
}

static void layer_times (const struct tctx *cx, struct layer_mb *x)
{
    TCTX_NAMES (cx);
    double mem_extra, ep_f;
    double gemm_f = x->gemm_f = gemm_fwd (cx);
    double attn_b;
    double attn_f = x->attn_f = attn_fwd (cx, &attn_b, &mem_extra);
    x->attn_b = attn_b;
    double mem_f = x->mem_f = mem_fwd (cx, mem_extra);
    double tp_f, cp_f;
    comm_fwd (cx, attn_f, &tp_f, &cp_f, &ep_f);
    /* TP communication overlap (train_prec.c, gp__tp_overlap_s) */
    if (job->tp_comm_overlap)
        tp_f = gp__tp_overlap_s (tp_f, gemm_f);
    if (m->ssm_layers > 0) {
        ssm_mix (cx, mem_extra, &gemm_f, &attn_f, &attn_b, &mem_f, &tp_f);
        x->gemm_f = gemm_f, x->attn_f = attn_f, x->attn_b = attn_b;
        x->mem_f = mem_f;
    }
    double gemm_b = 2.0 * gemm_f;
    if (gp__lora_on (job)) { /* frozen weights, adapters (train_lora.c) */
        gp__lora_gemm (m, job, hw, l, T, &gemm_f, &gemm_b);
        x->gemm_f = gemm_f;
    }
    x->gemm_b = gemm_b;
    x->tp_f = tp_f;
    x->cp_f = cp_f;
    double fwd = gemm_f + attn_f + mem_f + tp_f + cp_f;
    double bwd = gemm_b + attn_b + 2.0 * mem_f + tp_f + 2 * cp_f;
    double recomp = recompute_s (cx, fwd, attn_f);
    /* EP all-to-all per layer and micro-batch (forward, backward and the
     * recomputed forward) and the share hidden under compute: the
     * a2a-overlap schedule runs one micro-batch's all-to-all under
     * another's compute in the steady state (not in the warm-up and
     * cool-down micro-batches); DualPipe overlaps every chunk pair.
     */
    double ep_mb = ep_f * (2.0 + gp_train_recomp_frac (l, m->layers));
    double comp_mb = fwd + bwd + recomp;
    double ep_hid = 0;
    if (ep_mb > 0 && l->schedule != GP_SCHED_1F1B) {
        double f = 1;
        if (l->schedule == GP_SCHED_A2A_OVERLAP) {
            f = 1 - ((pp - 1) / l->vpp + 1) / nmb;
            if (f < 0)
                f = 0;
        }
        ep_hid = f * (ep_mb < comp_mb ? ep_mb : comp_mb);
    }
    /* MoE (train_moe.c): the all-to-all hidden under the shared
     * experts, and the host time the GPU waits for
     */
    if (moe_frac > 0 && ep_mb > ep_hid)
        ep_hid += moe_frac
                  * gp__moe_shared_hidden_s (m, job, hw, l, T,
                                             (ep_mb - ep_hid) / moe_frac);
    double layer_mb = comp_mb + ep_mb - ep_hid;
    /* MoE (train_moe.c): the SMs the hidden all-to-all holds */
    x->ovl = moe_frac > 0 ? gp__moe_overlap_sm_s (ep_hid) : 0;
    layer_mb += x->ovl;
    /* MoE (train_moe.c): expert weight gradients bound by their fp32
     * main-grad accumulation (backward only, once per micro-batch)
     */
    x->wacc = 0;
    if (moe_frac > 0)
        x->wacc = moe_frac
                  * gp__moe_wgrad_acc_s (
                      m, hw, l,
                      gp__moe_expert_rows (
                          job, Tm * ep * m->moe_topk / m->moe_experts));
    layer_mb += x->wacc;
    x->host = 0;
    if (moe_frac > 0)
        x->host = moe_frac
                  * gp__moe_host_s (m, job, hw, l,
                                    Tm * ep * m->moe_topk / m->moe_experts,
                                    layer_mb);
    layer_mb += x->host;
    /* MoE (train_moe.c): host cost of the a2a-overlap schedule */
    if (moe_frac > 0) {
        double ho = moe_frac * gp__moe_a2a_overlap_host_s (l);
        x->host += ho;
        layer_mb += ho;
    }
    x->fwd = fwd;
    x->bwd = bwd;
    x->recomp = recomp;
    x->ep_mb = ep_mb;
    x->ep_hid = ep_hid;
    x->layer_mb = layer_mb;
}

/* ------------------------------ pipeline ------------------------------ */

/* Logits on the last stage per micro-batch (forward + backward). */
static double logits_mb (const struct tctx *cx)
{
    TCTX_NAMES (cx);
    double V = m->vocab;
    double logit_f = gemm_s (hw, T, V / t, h)
                     + 3.0 * T * V / t * 4 / (hw->mem_bw * e->hbm);
    double logit_mb = 3.0 * logit_f;
    if (gp__lora_on (job)) /* frozen output layer: no weight gradient */
        logit_mb -= gemm_s (hw, T, V / t, h);
    return logit_mb;
}

/* The pipeline bubble and the send/recv of a stage of 'stage_mb' s per
 * micro-batch.
 */
static void pipeline (const struct tctx *cx, double stage_mb, double *bubble_out,
                      double *p2p_out)
{
    TCTX_NAMES (cx);
    double bubble = pp > 1 ? (pp - 1) / l->vpp * stage_mb : 0;
    /* DualPipe (DeepSeek-V3 Table 2): (p/2 - 1)(F&B + B - 3W) with a
     * chunk pair F&B ~ F + B, B = 2F, W = F: (p/2 - 1) * 2/3 of a stage's
     * F + B; pipeline P2P is overlapped.
     */
    if (l->schedule == GP_SCHED_DUALPIPE)
        bubble = (pp / 2 - 1) * 2.0 / 3.0 * stage_mb;
    double p2p = 0;
    if (pp > 1 && l->schedule != GP_SCHED_DUALPIPE) {
        double bytes = T * h * 2 / (l->seq_par ? t : 1);
        double bw = hw->scale_out_bw * e->scale_out;
        p2p = nmb * l->vpp * 2.0 * (bytes / bw + hw->scale_out_lat_s);
    }
    *bubble_out = bubble;
    *p2p_out = p2p;
}

/* The stage time the 1F1B / interleaved bubble is made of: the warm-up
 * forwards and cool-down backwards run on the first p - 1 stages, which
 * hold no output layer, so the bubble is (p - 1)/v times a stage without
 * the logits (Narayanan et al. 2021, Sec. 2.2.1: t_pb = (p - 1)(t_f +
 * t_b) of those stages; docs/model/training.md, "Pipeline bubble").
 * DualPipe places both ends on every device: its stage keeps them.
 */
static double bubble_stage_mb (const struct tctx *cx, double stage_mb,
                               double logit_mb)
{
    if (cx->pp < 2 || cx->l->schedule == GP_SCHED_DUALPIPE)
        return stage_mb;
    double b = stage_mb - logit_mb;
    return b > 0 ? b : 0;
}

/* ---------------------------- data parallel --------------------------- */

/* Parameters a GPU holds outside the routed experts ('*P') and of them
 * ('*PX'), and the expert-data-parallel width ('*ndx').
 */
static void stage_params (const struct tctx *cx, double *P_out,
                          double *PX_out, double *ndx_out)
{
    TCTX_NAMES (cx);
    double V = m->vocab;
    double layer_p = m->attn_params / t + dense_frac * m->mlp_params / t
                     + moe_frac * (m->moe_params
                                   - m->moe_experts * m->expert_params)
                           / t;
    double P = Ls * layer_p + V * h / t;
    /* with one stage it also holds the output layer when untied (as the
     * memory model counts it, gp_train_memory)
     */
    if (l->pp == 1 && m->embed_params > 1.5 * V * h)
        P += V * h / t;
    /* routed experts: split over ep, gradients reduced over the
     * tp*dp*cp/ep expert-data-parallel ranks
     */
    double PX = Ls * moe_frac * m->moe_experts * m->expert_params / ep;
    double ndx = t * dp * cp / ep;
    if (l->schedule == GP_SCHED_DUALPIPE) {
        P *= 2;
        PX *= 2;
    }
    *P_out = P;
    *PX_out = PX;
    *ndx_out = ndx;
}

/* The gradient all-reduce over 'n' DP ranks, 'd_in' of them per node:
 * inside one scale-up domain (NVLS where it has it) or across nodes
 * (IB SHARP where the fabric has it).
 */
static double dp_allreduce_s (const struct gp_train_hw *hw, double bytes,
                              double n, double d_in, int in_dom, double bw,
                              double lat)
{
    if (in_dom)
        return allreduce_nvls_s (bytes, n, bw, lat, hw->nvls_share);
    double dd = d_in < n ? d_in : n;
    return allreduce_out_s (hw, bytes, n, ceil (n / dd), dd, bw, lat);
}

/* The DP / ZeRO / FSDP traffic left exposed per step. */
static double dp_exposed_s (const struct tctx *cx, const struct layer_mb *x,
                            double P, double PX, double ndx)
{
    TCTX_NAMES (cx);
    double fwd = x->fwd, bwd = x->bwd, recomp = x->recomp;
    double nd = dp * cp; /* Megatron reduces gradients over dp x cp */
    double dp_exposed = 0;
    if (nd > 1) {
        int per_node = hw->gpus_per_node / (l->tp * l->cp);
        if (per_node < 1)
            per_node = 1;
        double d_in = nd < per_node ? nd : per_node;
        double bw;
        int in_dom = d_in >= nd && l->tp * l->cp * nd <= hw->scale_up_domain;
        if (in_dom)
            bw = hw->scale_up_bw * e->scale_up;
        else {
            bw = d_in * hw->scale_out_bw * e->scale_out / hw->oversub;
            double up = hw->scale_up_bw * e->scale_up;
            if (bw > up)
                bw = up;
        }
        /* MoE (train_moe.c): the expert-data-parallel group, ep GPUs
         * apart, on its own NICs when the DP group leaves the domain
         */
        double bwx = bw, d_x = d_in;
        if (!in_dom && ndx > 1 && PX > 0)
            bwx = gp__moe_edp_bw (hw, l, ndx, &d_x);
        double lat = hw->scale_out_lat_s;
        double gb = job->grad_bytes > 2 ? 2 : job->grad_bytes; /* bf16 RS */
        int sh = l->sharding;
        if (sh == GP_SHARD_ZERO3 || sh == GP_SHARD_FSDP) {
            /* per micro-batch: gather params forward and backward,
             * reduce-scatter gradients, layer by layer over the whole DP
             * world; prefetched under that micro-batch's compute up to
             * ZERO3_OVERLAP.  PyTorch FSDP runs them as NCCL collectives
             * over all NICs of a node; DeepSpeed ZeRO-3 gathers per
             * parameter partition, which we model at one NIC per GPU.
             */
            double bw3 = bw;
            if (sh == GP_SHARD_ZERO3 && nd > d_in)
                bw3 = hw->scale_out_bw * e->scale_out / hw->oversub;
            double c = 2.0 * gather_s (job->weight_bytes * P, nd, bw3, lat)
                       + gather_s (gb * P, nd, bw3, lat);
            if (ndx > 1 && PX > 0) {
                double b3x = bwx < bw3 ? bwx : bw3;
                c += 2.0 * gather_s (job->weight_bytes * PX, ndx, b3x, lat)
                     + gather_s (gb * PX, ndx, b3x, lat);
            }
            double win = Ls * (fwd + bwd + recomp);
            double hid = ZERO3_OVERLAP * (c < win ? c : win);
            dp_exposed = nmb * (c - hid);
        } else {
            double c;
            if (sh == GP_SHARD_NONE)
                c = dp_allreduce_s (hw, gb * P, nd, d_in, in_dom, bw, lat);
            else /* reduce-scatter grads + all-gather updated params */
                c = gather_s (gb * P, nd, bw, lat)
                    + gather_s (job->weight_bytes * P, nd, bw, lat);
            if (ndx > 1 && PX > 0)
                c += sh == GP_SHARD_NONE
                         ? dp_allreduce_s (hw, gb * PX, ndx, d_x, in_dom,
                                           bwx, lat)
                         : gather_s (gb * PX, ndx, bwx, lat)
                               + gather_s (job->weight_bytes * PX, ndx, bwx,
                                           lat);
            /* overlapped with the last micro-batch's backward, unless
             * the stack reduces after it (job->grad_reduce_after)
             */
            double win = Ls * bwd;
            double ov = job->grad_reduce_after ? 0 : GRAD_OVERLAP;
            dp_exposed = c - ov * (c < win ? c : win);
        }
    }
    return dp_exposed;
}

/* ------------------------------ optimizer ----------------------------- */

static double optimizer_s (const struct tctx *cx, double P, double PX,
                           double ndx)
{
    TCTX_NAMES (cx);
    double nd = dp * cp;
    /* --- optimizer: Adam reads and writes every state it holds --- */
    double shard = l->sharding >= GP_SHARD_ZERO1 ? nd : 1;
    double shard_x = l->sharding >= GP_SHARD_ZERO1 && ndx > 1 ? ndx : 1;
    double opt_bytes = 2.0 * (job->weight_bytes + job->grad_bytes
                              + job->optim_bytes)
                       * (P / shard + PX / shard_x);
    double optim = opt_bytes / (hw->mem_bw * e->hbm);
    return optim;
}

/* LoRA (train_lora.c; docs/model/training.md, "LoRA fine-tuning"): DP
 * reduces the adapter gradients only and Adam updates the adapters only;
 * ZeRO-3/FSDP still gather the frozen weights 'P' (at base precision)
 * with the adapters.  The full-training formulas with the adapters as the
 * trained parameters; for ZeRO-3/FSDP the gathered bytes per parameter of
 * P are the frozen and adapter bytes over P, the reduced ones the adapter
 * gradients over P (gather_s is linear in bytes).
 */
static void lora_dp_optim (const struct tctx *cx, const struct layer_mb *x,
                           double P, double *dp_out, double *optim_out)
{
    const struct gp_train_job *job = cx->job;
    double Pa = gp__lora_stage_params (cx->m, job, cx->l);
    struct gp_train_job j = *job;
    struct tctx c = *cx;
    c.job = &j;
    int sh = cx->l->sharding;
    if ((sh == GP_SHARD_ZERO3 || sh == GP_SHARD_FSDP) && P > 0) {
        double gb = job->grad_bytes > 2 ? 2 : job->grad_bytes;
        j.weight_bytes = (gp__lora_frozen_bytes (job) * P
                          + job->weight_bytes * Pa) / P;
        j.grad_bytes = gb * Pa / P;
        *dp_out = dp_exposed_s (&c, x, P, 0, 1);
    } else
        *dp_out = dp_exposed_s (cx, x, Pa, 0, 1);
    *optim_out = optimizer_s (cx, Pa, 0, 1);
}

/* ------------------------------- rates -------------------------------- */

/* Tokens/s, model and hardware FLOPs per token, MFU and HFU of a step of
 * o->step_s.
 */
static void rates (const struct tctx *cx, struct gp_train_time *o)
{
    TCTX_NAMES (cx);
    double n_gpus = t * pp * cp * dp;
    o->tokens_per_step = job->global_batch * s;
    o->tokens_per_s = o->tokens_per_step / o->step_s;
    o->tokens_per_s_per_gpu = o->tokens_per_s / n_gpus;
    o->model_flops_per_token = gp_train_model_flops_per_token (m, s);
    double attn_fpt = m->mla ? 6.0 * m->layers * s * gp_train_attn_width2 (m)
                             : 12.0 * m->layers * s * qd;
    o->hw_flops_per_token = o->model_flops_per_token;
    if (rec == GP_RECOMP_FULL)
        o->hw_flops_per_token += gp_train_recomp_frac (l, m->layers)
                                 * o->model_flops_per_token / 3.0;
    else if (rec == GP_RECOMP_SELECTIVE)
        o->hw_flops_per_token += attn_fpt / 3.0;
    if (gp__lora_on (job)) /* executed FLOPs of LoRA (train_lora.c) */
        gp__lora_rates (m, job, s, rec, gp_train_recomp_frac (l, m->layers),
                        &o->model_flops_per_token, &o->hw_flops_per_token);
    o->model_flops_per_gpu = o->model_flops_per_token
                             * o->tokens_per_s_per_gpu;
    if (hw->peak_flops > 0) {
        o->mfu = o->model_flops_per_gpu / hw->peak_flops;
        o->hfu = o->hw_flops_per_token * o->tokens_per_s_per_gpu
                 / hw->peak_flops;
    }
}

void gp_train_time (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw,
                    const struct gp_layout *l,
                    struct gp_train_time *o)
{
    memset (o, 0, sizeof *o);
    struct tctx cx;
    tctx_init (&cx, m, job, hw, l);
    struct layer_mb x;
    layer_times (&cx, &x);
    double nmb = cx.nmb;
    int Ls = cx.Ls;
    int rec = cx.rec;
    /* share of layers fully recomputed (1: full, < 1: block) */
    double rf = gp_train_recomp_frac (l, m->layers);
    double gemm_f = x.gemm_f, attn_f = x.attn_f, attn_b = x.attn_b;
    double mem_f = x.mem_f, tp_f = x.tp_f, cp_f = x.cp_f;
    double recomp = x.recomp, ep_mb = x.ep_mb, ep_hid = x.ep_hid;
    double logit_mb = logits_mb (&cx);
    double stage_mb = Ls * x.layer_mb + logit_mb;
    double bubble, p2p;
    pipeline (&cx, bubble_stage_mb (&cx, stage_mb, logit_mb), &bubble, &p2p);
    double P, PX, ndx;
    stage_params (&cx, &P, &PX, &ndx);
    double dp_exposed = dp_exposed_s (&cx, &x, P, PX, ndx);
    double optim = optimizer_s (&cx, P, PX, ndx);
    if (gp__lora_on (job))
        lora_dp_optim (&cx, &x, P, &dp_exposed, &optim);
    o->gemm_s = nmb * Ls * (3.0 + rf) * gemm_f
                + (rec == GP_RECOMP_SELECTIVE && m->mla ? nmb * Ls * recomp
                                                        : 0);
    if (gp__lora_on (job)) /* LoRA backward (train_lora.c) */
        o->gemm_s = nmb * Ls * (x.gemm_b + (1.0 + rf) * gemm_f);
    o->gemm_s += nmb * Ls * x.wacc; /* MoE wgrad accumulation */
    o->attn_s = nmb * Ls * (attn_f + attn_b
                            + (rec == GP_RECOMP_SELECTIVE ? attn_f
                                                          : rf * attn_f));
    o->mem_s = nmb * Ls * (3.0 + rf) * mem_f
               + nmb * logit_mb;
    o->tp_comm_s = nmb * Ls * (2.0 + rf) * tp_f;
    o->cp_comm_s = nmb * Ls * 3.0 * cp_f;
    o->ep_comm_s = nmb * Ls * (ep_mb - ep_hid);
    o->ep_hidden_s = nmb * Ls * ep_hid;
    o->moe_host_s = nmb * Ls * x.host;
    o->pp_bubble_s = bubble;
    o->pp_p2p_s = p2p;
    o->dp_comm_s = dp_exposed;
    o->optim_s = optim;
    o->step_s = nmb * stage_mb + bubble + p2p + dp_exposed + optim;
    o->overhead_s = o->step_s - (o->gemm_s + o->attn_s + o->mem_s
                                 + o->tp_comm_s + o->cp_comm_s + o->ep_comm_s
                                 + o->moe_host_s
                                 + bubble + p2p + dp_exposed + optim);
    if (o->overhead_s < 0)
        o->overhead_s = 0;
    /* CPU activation offload: the copies that compute does not hide */
    o->offload_s = nmb * gp__offload_s (m, job, hw, l, x.fwd, x.bwd);
    o->step_s += o->offload_s;
    rates (&cx, o);
}

/* ------------------------- lower bound (search) ------------------------ */

/* A proven lower bound on gp_train_time(m, job, hw, l)->step_s for every
 * recomputation and sharding stage of layout 'l' (the layout search skips
 * a layout whose bound exceeds the slowest step it keeps).
 *
 * With full recomputation of every layer (gp_train_recomp_frac 1) recomp
 * is fwd itself (1.0 * fwd, exact) and the bound uses S_full; partial
 * (block) recomputation (recomp = f * fwd >= 0) uses S like the others,
 * and S_full = Ls * (fwd + bwd + fwd) + logit,
 * the same rounded comp; it is then valid for every sharding stage.
 *
 * Proof.  gp_train_time returns
 *   step = nmb * stage + bubble + p2p + dp_exposed + optim,
 *   stage = Ls * layer + logit,  layer = (fwd + bwd + recomp) + ep - hid
 *   (+ the MoE host time, gp__moe_host_s, >= 0, and the SMs held by the
 *   hidden all-to-all, gp__moe_overlap_sm_s, >= 0; hid stays <= ep with
 *   the shared-expert overlap, gp__moe_shared_hidden_s).
 * fwd, bwd (layer_times), logit (logits_mb) and p2p (pipeline) do not
 * read l->recompute or l->sharding (mem_fwd sets recompute to none
 * itself), so the values below are the very doubles gp_train_time uses.
 * Every omitted term is >= 0: recomp is 0, a forward or a few GEMMs;
 * hid = f * min(ep, comp) with 0 <= f <= 1, so ep - hid >= 0;
 * dp_exposed = c - 0.9 min(c, win) or nmb (c - 0.7 min(c, win)) with
 * c, win >= 0; optim is bytes over bandwidth.  The bubble is
 * k * stage with k = (pp - 1) / vpp >= 0, or (pp/2 - 1) * 2/3 for
 * DualPipe, >= 0 when pp >= 2 (pp < 2 with DualPipe: no bound, 0), so
 * with stage >= S = Ls * (fwd + bwd) + logit it is >= k * S.  Hence
 * step >= nmb * S + k * S + p2p in exact arithmetic.  Rounding: IEEE
 * addition and multiplication are monotone, so adding the omitted
 * non-negative terms can only raise each rounded partial sum; the one
 * subtraction (- hid) loses at most 2 ulp of max(comp, ep) <= 2 ulp of
 * the layer time, and the two sides differ by fewer than 20 roundings
 * (relative 20 * 2^-53 < 3e-15): the factor 1 - 1e-12 covers that.  A
 * NaN anywhere makes the bound NaN, and the search never skips on NaN.
 * tests/unit/test_train_bound.c checks bound <= step on random layouts.
 *
 * S (gp__train_stage_bound) reads only tp, cp, pp (through Ls), ep,
 * micro_batch and seq_par of the layout, with the model, the job's
 * sequence length and attention, and the hardware: not dp, vpp, the
 * schedule or the global batch (nmb enters layer_times only through the
 * hidden all-to-all, outside fwd and bwd), so the search computes it once
 * for every vpp and passes it to gp__train_step_bound_with.
 */
double gp__train_stage_bound (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw,
                              const struct gp_layout *l, double *S_full)
{
    struct gp_layout nl = *l;
    nl.recompute = GP_RECOMP_NONE;
    struct tctx cx;
    tctx_init (&cx, m, job, hw, &nl);
    struct layer_mb x;
    layer_times (&cx, &x);
    double logit = logits_mb (&cx);
    /* full recomputation: recomp is fwd itself (recompute_s), so
     * comp = (fwd + bwd) + fwd, rounded as in layer_times
     */
    if (S_full)
        *S_full = cx.Ls * (x.fwd + x.bwd + x.fwd) + logit;
    return cx.Ls * (x.fwd + x.bwd) + logit;
}

/* Only what pipeline() and logits_mb() read, by tctx_init's expressions
 * (the same doubles): the search calls the bound for every layout.
 */
static void bound_ctx (struct tctx *cx, const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw, const struct gp_layout *l)
{
    *cx = (struct tctx){.m = m, .job = job, .hw = hw, .l = l, .e = &hw->eff};
    cx->t = l->tp, cx->pp = l->pp, cx->cp = l->cp, cx->dp = l->dp;
    cx->h = m->hidden, cx->s = job->seq_len;
    cx->T = cx->s / cx->cp * l->micro_batch;
    cx->nmb = job->global_batch / (cx->dp * l->micro_batch);
}

double gp__train_bound_logit (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw,
                              const struct gp_layout *l)
{
    struct tctx cx;
    bound_ctx (&cx, m, job, hw, l);
    return logits_mb (&cx);
}

double gp__train_step_bound_lg (const struct gp_train_model *m,
                                const struct gp_train_job *job,
                                const struct gp_train_hw *hw,
                                const struct gp_layout *l, double S,
                                double logit)
{
    if (l->schedule == GP_SCHED_DUALPIPE && l->pp < 2)
        return 0;
    struct tctx cx;
    bound_ctx (&cx, m, job, hw, l);
    double bubble, p2p;
    pipeline (&cx, bubble_stage_mb (&cx, S, logit), &bubble, &p2p);
    return (cx.nmb * S + bubble + p2p) * (1 - 1e-12);
}

double gp__train_step_bound_with (const struct gp_train_model *m,
                                  const struct gp_train_job *job,
                                  const struct gp_train_hw *hw,
                                  const struct gp_layout *l, double S)
{
    return gp__train_step_bound_lg (m, job, hw, l, S,
                                    gp__train_bound_logit (m, job, hw, l));
}

double gp__train_step_bound (const struct gp_train_model *m,
                             const struct gp_train_job *job,
                             const struct gp_train_hw *hw,
                             const struct gp_layout *l)
{
    double S_full;
    double S = gp__train_stage_bound (m, job, hw, l, &S_full);
    return gp__train_step_bound_with (
        m, job, hw, l,
        gp_train_recomp_frac (l, m->layers) >= 1 ? S_full : S);
}
