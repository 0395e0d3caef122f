/* train_moe.c - the MoE terms of the training step time that are not
 * plain GEMM or link physics: routing imbalance across EP ranks, the
 * tile padding of the grouped expert GEMMs, the all-to-all hidden under
 * shared-expert compute, and the host (CPU) time of eager MoE layers with
 * and without CUDA graphs.  train_time.c calls these; every formula and
 * constant is in docs/model/training.md ("MoE: routing imbalance,
 * overlap, expert GEMMs and host overhead").
 */
#include <math.h>
#include <string.h>

#include "gpuplan/train.h"
#include "train_private.h"

/* Rows of one CTA tile of a grouped GEMM: each expert's problem computes
 * whole tiles, so its M is padded to a multiple of this (CUTLASS and
 * cuBLAS Hopper/Blackwell GEMMs tile M by 128; NVIDIA "Matrix
 * Multiplication Background User's Guide", tile quantization).
 */
#define MOE_TILE_M 128.0
/* Host time of one eager PyTorch operator, from the Python call to the
 * kernel on the stream (Megatron-Bridge "CUDA Graphs" guide: 5-50 us per
 * launch depending on the operation and PyTorch dispatch).  Calibrated
 * on a published run that is not a validation row: Megatron-Bridge PR
 * #1760 (2025-12-17) gives 16.9 s per step for Qwen3-235B-A22B in MXFP8
 * on 64 DGX B200 GPUs (TP 1, PP 8, no VP, EP 8, micro-batch 1, global
 * batch 1,024, eager, no EP overlap) against 16.0 s in BF16 (VP 4): the
 * same 10.3-10.4 ms per layer and micro-batch in both precisions, a
 * host-bound step.  31 us makes the model give 16.87 s for the MXFP8 run
 * (20 us gave 13.6 s); docs/model/training.md, "MoE: host cost
 * calibrated on Megatron-Bridge PR #1760".
 */
#define HOST_OP_S 31e-6
/* Operators a MoE layer's forward issues beyond its GEMMs, attention and
 * collectives (router softmax/top-k, auxiliary loss, token counts,
 * permute/unpermute, dispatcher preprocessing); the same count as the
 * GPU-side MOE_KERNELS of train_time.c.
 */
#define MOE_HOST_OPS 20
/* Memory-bound kernels of a transformer layer's forward (train_time.c
 * mem_fwd: 10 launches).
 */
#define LAYER_MEM_OPS 10
/* Operators the dropless dispatcher issues after its device-to-host
 * synchronisation, besides the expert GEMMs: permute, all-to-all, sort by
 * local expert, and after the experts the reverse sort, all-to-all and
 * unpermute, with the split bookkeeping (Megatron-Core
 * MoEAlltoAllTokenDispatcher: token_permutation, token_unpermutation).
 */
#define MOE_POST_SYNC_OPS 8

double gp__moe_imbalance (const struct gp_train_job *job)
{
    return job->moe_imbalance > 1 ? job->moe_imbalance : 1;
}

double gp__moe_expert_rows (const struct gp_train_job *job, double tpe)
{
    double rows = tpe * gp__moe_imbalance (job);
    if (rows < 1)
        rows = 1;
    return ceil (rows / MOE_TILE_M) * MOE_TILE_M;
}

double gp__moe_shared_hidden_s (const struct gp_train_model *m,
                                const struct gp_train_job *job,
                                const struct gp_train_hw *hw,
                                const struct gp_layout *l, double T,
                                double ep_left_s)
{
    if (!job->moe_shared_overlap || m->moe_shared <= 0 || ep_left_s <= 0)
        return 0;
    double fs = (double)m->moe_ffn_hidden * m->moe_shared / l->tp;
    double h = m->hidden;
    double fwd = gp__train_gemm_s (hw, T, fs * (m->mlp_mats - 1), h)
                 + gp__train_gemm_s (hw, T, h, fs);
    /* forward + backward (2x) + a full recompute's forward */
    double win = fwd * (3.0 + gp_train_recomp_frac (l, m->layers));
    return win < ep_left_s ? win : ep_left_s;
}

/* Operators and host-exposed seconds of one MoE layer's forward for one
 * micro-batch: '*ops' every operator the host issues (captured ones
 * excluded), '*sync_s' what the GPU waits for after the dropless
 * dispatcher's device-to-host synchronisation: each operator issued after
 * it costs max(0, host - its GPU time).  Partial CUDA graphs (attention,
 * router, EP preprocess) leave that synchronisation and the routed
 * experts eager (Megatron-LM docs/discussions/deepseek-v3-gb200-
 * optimization, Sec. 2.3: "routed experts are dynamic" and not captured;
 * Sec. 3.1: the device-host sync "to get the tokens per expert" remains),
 * so the wait applies with and without them.
 */
static void host_fwd (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_train_hw *hw,
                      const struct gp_layout *l, double tpe, double *ops,
                      double *sync_s)
{
    double c = HOST_OP_S, k = hw->eff.kernel_s;
    double cast = hw->fp8 ? 1 : 0;
    double local = (double)m->moe_experts / l->ep;
    double h = m->hidden, fm = m->moe_ffn_hidden;
    double rows = gp__moe_expert_rows (job, tpe);
    /* per local expert: fc1 and fc2, each one GEMM launch (Transformer
     * Engine GroupedLinear issues one GEMM per expert) plus its FP8 cast
     */
    double g1 = gp__train_gemm_s (hw, rows, fm * (m->mlp_mats - 1), h);
    double g2 = gp__train_gemm_s (hw, rows, h, fm);
    double per_op = c * (1 + cast);
    double ex = (per_op > g1 ? per_op - g1 : 0) + (per_op > g2 ? per_op - g2 : 0);
    double small = c > k ? c - k : 0;
    /* the layer's other operators: memory-bound kernels, attention core,
     * attention GEMMs (MLA: 5), router, shared experts, TP and EP
     * collectives
     */
    double gemms = (m->mla ? 5 : 2) + 1 + (m->moe_shared > 0 ? 2 : 0);
    double n = LAYER_MEM_OPS + 1 + gemms * (1 + cast)
               + (l->tp > 1 ? 2 : 0) + (l->ep > 1 ? 2 : 0)
               + local * 2 * (1 + cast);
    double s = local * ex + MOE_POST_SYNC_OPS * small;
    if (!job->cuda_graphs)
        n += MOE_HOST_OPS;
    *ops = n;
    *sync_s = s;
}

double gp__moe_host_s (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_layout *l, double tpe, double gpu_s)
{
    if (m->moe_experts <= 0 || l->ep < 1)
        return 0;
    double ops, sync_s;
    host_fwd (m, job, hw, l, tpe, &ops, &sync_s);
    /* backward issues about twice the forward's operators (dgrad and
     * wgrad per GEMM); a full recompute repeats the forward.  Only the
     * forward (and its recomputation) synchronises: the backward reuses
     * the split sizes already on the host.
     */
    double fwds = 1.0 + gp_train_recomp_frac (l, m->layers);
    double host = (fwds + 2.0) * ops * HOST_OP_S;
    double bound = host > gpu_s ? host - gpu_s : 0;
    double sync = fwds * sync_s;
    return sync > bound ? sync : bound;
}

/* C(n - d, r) / C(n, r): the chance that r distinct items drawn
 * uniformly from n all miss a given d of them.
 */
static double miss_all (double n, double d, int r)
{
    double miss = 1;
    for (int i = 0; i < r; i++)
        miss *= (n - d - i) > 0 ? (n - d - i) / (n - i) : 0;
    return miss;
}

static int grouped (const struct gp_train_job *job)
{
    return job->moe_groups > 0 && job->moe_group_topk > 0;
}

/* Probability that a token reaches at least one of 'd' consecutive
 * experts (one EP rank: E/ep; one scale-up domain: g*E/ep), experts
 * chosen uniformly (forced balance: Megatron-Core TopKRouter draws random
 * logits before routing).  Without groups: 1 - C(E - d, k) / C(E, k).
 * With group-limited routing (G groups of S = E/G experts, G_k of them
 * picked, k/G_k experts in each: DeepSeek-V3 Sec. 2.1.2 picks a group by
 * the sum of its best k/G_k scores, so each picked group contributes):
 * a set inside one group (d <= S) is reached with (G_k/G) * (1 -
 * C(S - d, k/G_k) / C(S, k/G_k)); a set of d/S whole groups with 1 -
 * C(G - d/S, G_k) / C(G, G_k).
 */
static double set_hit (const struct gp_train_model *m,
                       const struct gp_train_job *job, double d)
{
    double E = m->moe_experts;
    int k = m->moe_topk;
    if (!grouped (job))
        return 1 - miss_all (E, d, k);
    double G = job->moe_groups, Gk = job->moe_group_topk, S = E / G;
    if (d <= S)
        return Gk / G * (1 - miss_all (S, d, k / job->moe_group_topk));
    return 1 - miss_all (G, d / S, job->moe_group_topk);
}

/* Probability that one EP rank hosts at least one of a token's top_k
 * experts, experts spread evenly (E/ep per rank).
 */
static double rank_hit (const struct gp_train_model *m,
                        const struct gp_train_job *job, double ep)
{
    return set_hit (m, job, m->moe_experts / ep);
}

int gp__moe_route_check (const struct gp_train_model *m,
                         const struct gp_train_job *job, gp_error_t *err)
{
    int G = job->moe_groups, Gk = job->moe_group_topk;
    if (G == 0 && Gk == 0)
        return 0;
    if (G < 1 || Gk < 1 || Gk > G)
        return gp_errprintf (err, GP_EINVAL,
                             "moe_groups %d, moe_group_topk %d: need 1 <= "
                             "moe_group_topk <= moe_groups",
                             G, Gk);
    if (m->moe_experts <= 0 || m->moe_experts % G || m->moe_topk % Gk)
        return gp_errprintf (err, GP_EINVAL,
                             "moe_groups %d must divide the %d routed "
                             "experts and moe_group_topk %d the top-%d",
                             G, m->moe_experts, Gk, m->moe_topk);
    return 0;
}

void gp__moe_a2a_bytes (const struct gp_train_model *m,
                        const struct gp_train_job *job, double Tm, double ep,
                        double g, double N, double *nv, double *ib)
{
    double row = (double)m->hidden * 2, k = m->moe_topk;
    if (job->moe_a2a_nccl) {
        /* one copy per token and expert: to the g - 1 other GPUs of the
         * domain over NVLink, to the ep - g remote ones over the NIC
         */
        *nv = Tm * k * row * (g - 1) / ep;
        *ib = Tm * k * row * (ep - g) / ep;
        return;
    }
    /* DeepEP / HybridEP: one copy per destination GPU hit, and across
     * domains one per remote domain hit, forwarded over NVLink there
     */
    double p = rank_hit (m, job, ep);
    *nv = Tm * row * p * (g - 1);
    *ib = 0;
    if (N > 1) {
        /* remote domains reached: with group-limited routing whole
         * groups per domain (DeepSeek-V3: at most 4 nodes per token)
         */
        double pd = grouped (job) ? set_hit (m, job, g * m->moe_experts / ep)
                                  : 1 - pow (1 - 1 / N, k);
        *ib = Tm * row * (N - 1) * pd;
        *nv += Tm * row * p * (ep - g);
    }
}

/* Bytes per weight element of the fp32 main-grad accumulation a weight
 * gradient GEMM does with gradient-accumulation fusion (beta = 1): read
 * and write 4 B (Megatron-LM arguments.py: BF16, and FP8 with BF16
 * parameters, accumulate gradients in fp32; Transformer Engine
 * fuse_wgrad_accumulation writes into main_grad).
 */
#define WGRAD_ACC_BYTES 8.0

double gp__moe_wgrad_acc_s (const struct gp_train_model *m,
                            const struct gp_train_hw *hw,
                            const struct gp_layout *l, double rows)
{
    if (m->moe_experts <= 0 || l->ep < 1 || hw->mem_bw <= 0)
        return 0;
    double local = (double)m->moe_experts / l->ep;
    double h = m->hidden, fm = m->moe_ffn_hidden, mats = m->mlp_mats;
    double in_b = hw->fp8 ? 1 : 2;
    /* per expert: fc1 reads X (rows x h) and dY (rows x (mats-1) fm),
     * fc2 reads the activation (rows x fm) and dY (rows x h)
     */
    double bytes = WGRAD_ACC_BYTES * mats * h * fm
                   + in_b * rows * (2 * h + mats * fm);
    double mem = local * bytes / (hw->mem_bw * hw->eff.hbm);
    /* what the step already charges for the two weight-gradient GEMMs:
     * the forward GEMMs' roofline (same FLOPs), less their launches, and
     * without the FP8 input cast, which is a kernel of its own
     */
    struct gp_train_hw nc = *hw;
    nc.fp8 = 0;
    double k = hw->eff.kernel_s;
    double g = local * (gp__train_gemm_s (&nc, rows, fm * (mats - 1), h) - k
                        + gp__train_gemm_s (&nc, rows, h, fm) - k);
    return mem > g ? mem - g : 0;
}

double gp__moe_edp_bw (const struct gp_train_hw *hw,
                       const struct gp_layout *l, double ndx, double *d_x)
{
    double per = l->ep > 0 ? (double)hw->gpus_per_node / l->ep : 1;
    double d = per > 1 ? floor (per) : 1;
    if (d > ndx)
        d = ndx;
    if (d < 1)
        d = 1;
    *d_x = d;
    double bw = d * hw->scale_out_bw * hw->eff.scale_out / hw->oversub;
    double up = hw->scale_up_bw * hw->eff.scale_up;
    return bw < up ? bw : up;
}

/* Multi-stream cuBLAS MXFP8 grouped GEMM on Blackwell (Transformer
 * Engine GroupedLinear, Megatron-Core --moe-grouped-gemm): 2,672 TFLOP/s
 * measured with L2 flushed on the shape K = 7,168, N = 2,048 on GB200
 * (Megatron-LM docs/discussions/deepseek-v3-gb200-optimization, Sec. 1,
 * item 3), against GB200's 5,000 TFLOP/s dense FP8 peak (catalog).  M is
 * not stated; taken as the tokens per expert of that post's layout (EP
 * 32, micro-batch 1 of 4,096 tokens, top-8 of 256 experts, balanced:
 * 4,096 rows).
 */
#define GG_MEAS_FLOPS 2672e12
#define GG_PEAK_FLOPS 5000e12
#define GG_M 4096.0
#define GG_N 2048.0
#define GG_K 7168.0

double gp__moe_grouped_extra_s (const struct gp_train_hw *hw, double n,
                                double M, double N, double K)
{
    const struct gp_train_eff *e = &hw->eff;
    if (!hw->fp8 || !e->generation || strcmp (e->generation, "blackwell")
        || hw->peak_flops <= 0 || e->gemm_max <= 0)
        return 0;
    /* the model's dense GEMM efficiency at the measured shape, and what
     * the grouped kernel reached there
     */
    double d = e->gemm_dim_half;
    double pe = hw->prec_gemm_eff > 0 ? hw->prec_gemm_eff : 1;
    double model = pe * e->gemm_max / (1.0 + d / GG_M + d / GG_N + d / GG_K);
    double r = GG_MEAS_FLOPS / (GG_PEAK_FLOPS * model);
    if (r >= 1)
        return 0;
    double eff = pe * e->gemm_max / (1.0 + d / M + d / N + d / K);
    double tc = 2.0 * M * N * K / (hw->peak_flops * eff);
    return n * tc * (1.0 / r - 1.0);
}

/* Share of the SMs the communication kernels hold while they run under
 * computation: DeepSeek-V3 allocates 20 of the H800's 132 SMs to its
 * overlapped all-to-all kernels, which "will limit the computational
 * throughput" (DeepSeek-V3 Technical Report, arXiv 2412.19437, Sec.
 * 3.5.1; warp-specialised kernels on 20 SMs, Sec. 3.2.2).
 */
#define COMM_SM_SHARE (20.0 / 132.0)

double gp__moe_overlap_sm_s (double hid_s)
{
    if (!(hid_s > 0))
        return 0;
    /* the computation under 'hid_s' of communication runs on the
     * remaining SMs: it takes hid / (1 - share), hid * share / (1 - share)
     * longer
     */
    return hid_s * COMM_SM_SHARE / (1.0 - COMM_SM_SHARE);
}

/* Host time the a2a-overlap schedule adds per MoE layer and micro-batch
 * (Megatron-Core's combined 1F1B with EP communication overlap,
 * moe_a2a_overlap / overlap_moe_expert_parallel_comm).  Calibrated on one
 * published pair that is not a validation row: Megatron-Bridge PR #1760
 * (2025-12-17, "Improving Qwen3-235B-A22B B200 performance") disabled
 * moe_a2a_overlap "due to CPU overhead" and the BF16 step went from 17.2
 * to 16.0 s (DGX B200, 64 GPUs, TP 1, PP 8, VP 4, EP 8, micro-batch 1,
 * global batch 1,024, sequence 4,096; VP kept).  The model predicts that
 * pair 15.85 s with the overlap and 17.16 s without (it only hides the
 * all-to-all), so the schedule's own cost is what makes the measured
 * difference: (17.2 - 16.0 + 17.16 - 15.85) s over 128 micro-batches x
 * 12 layers per stage, plus the bubble's share, = 1.6 ms
 * (docs/model/training.md, "MoE: host cost of the a2a-overlap schedule").
 */
#define A2A_OVERLAP_HOST_S 1.6e-3

double gp__moe_a2a_overlap_host_s (const struct gp_layout *l)
{
    return l->schedule == GP_SCHED_A2A_OVERLAP ? A2A_OVERLAP_HOST_S : 0;
}

/* Memory-bound passes of mem_fwd (train_time.c): every stored activation
 * byte is written once and read twice in the forward (3 passes, a rule
 * fitted on dense layers).  The stored activations of a MoE layer count
 * the top_k dispatched copies of each routed token (2 * top_k bytes per
 * token and hidden unit, gp_train_act_layer_bytes), and the same copies
 * are the permute's writes and the unpermute's reads, which mem_fwd
 * charges explicitly (2 x read + write of T/t * top_k rows): their
 * producer and consumer are the permute kernels and the expert GEMMs,
 * not element-wise passes.  Counting them under both double-counts them;
 * this is the share of the 3 passes to remove
 * (docs/model/training.md, "MoE: dispatched copies counted once").
 */
double gp__moe_copies_pass_s (const struct gp_train_model *m,
                              const struct gp_train_hw *hw, double Tm)
{
    if (m->moe_experts <= 0 || hw->mem_bw <= 0)
        return 0;
    double bytes = 2.0 * m->moe_topk * Tm * (double)m->hidden;
    return 3.0 * bytes / (hw->mem_bw * hw->eff.hbm);
}

/* The NCCL all-to-all dispatcher (Megatron-Core MoEAlltoAllTokenDispatcher)
 * permutes the tokens globally before the all-to-all and sorts the
 * received chunks by local expert after it (sort_chunks_by_idxs, when a
 * GPU holds more than one expert), and undoes both around the combine:
 * "the AlltoAll dispatcher using the NCCL backend requires one global
 * and one local permute before and after EP communication", while
 * DeepEP/HybridEP fuse the global one into the communication kernel
 * (Megatron-LM docs/discussions/deepseek-v3-gb200-optimization, Sec.
 * 2.1.1).  mem_fwd counts one permute and one unpermute (read + write of
 * T/t * top_k rows each); this is the local sort and unsort on top.
 */
double gp__moe_sort_s (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw, double Tm, double ep)
{
    if (!job->moe_a2a_nccl || m->moe_experts <= 0 || ep < 1
        || m->moe_experts / ep <= 1 || hw->mem_bw <= 0)
        return 0;
    double rows = Tm * m->moe_topk, h = m->hidden;
    return 2.0 * 2.0 * rows * h * 2 / (hw->mem_bw * hw->eff.hbm);
}
