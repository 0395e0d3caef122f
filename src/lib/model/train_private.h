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

/* Hybrid Mamba-2/attention models (train_ssm.c; docs/model/training.md,
 * "Hybrid Mamba-2/attention models").  gp__ssm_prep fills the hybrid
 * fields of 'm' from 'b' (pattern counted) and 'pc'; the others replace
 * the transformer formulas when m->ssm_layers > 0.
 */
void gp__ssm_prep (const struct gp_arch *b, const struct gp_param_count *pc,
                   struct gp_train_model *m);
double gp__ssm_model_flops_per_token (const struct gp_train_model *m,
                                      double seq_len);
/* SSD chunked-scan FLOPs of one Mamba-2 layer, forward, per token
 * (whole layer, not split by TP).
 */
double gp__ssm_scan_flops_per_token (const struct gp_train_model *m);
int gp__ssm_check (const struct gp_train_model *m, const struct gp_layout *l,
                   gp_error_t *err);
/* Activation bytes per pattern layer (average over the pattern) for one
 * micro-batch; 'rec' the recompute mode to assume.
 */
double gp__ssm_act_layer_bytes (const struct gp_train_model *m,
                                const struct gp_layout *l, double seq_len,
                                int flash, enum gp_recompute rec);
/* FP8 saving in units of s*b*h bytes per pattern layer (average). */
double gp__ssm_act_fp8_save (const struct gp_train_model *m,
                             const struct gp_layout *l);
/* A proven lower bound (seconds) on the step time of layout 'l' under
 * every sharding stage and every recomputation (l->sharding ignored;
 * with l->recompute full: under full recomputation only, a higher
 * bound): <= gp_train_time(...)->step_s whenever that is not NaN; 0
 * when no bound is known.  Used by the layout search to skip layouts
 * (train_time.c has the proof).
 */
double gp__train_step_bound (const struct gp_train_model *m,
                             const struct gp_train_job *job,
                             const struct gp_train_hw *hw,
                             const struct gp_layout *l);
/* The same in two parts: S, a lower bound on one micro-batch of a
 * pipeline stage (forward, backward and logits; it reads only tp, cp, pp,
 * ep, micro_batch and seq_par of 'l'; under full recomputation the
 * higher '*S_full' when not NULL), then the step bound of layout 'l'
 * from S or S_full (nmb * S + bubble + p2p, with the rounding margin; 0
 * for DualPipe on pp < 2).
 */
double gp__train_stage_bound (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw,
                              const struct gp_layout *l, double *S_full);
double gp__train_step_bound_with (const struct gp_train_model *m,
                                  const struct gp_train_job *job,
                                  const struct gp_train_hw *hw,
                                  const struct gp_layout *l, double S);
/* The same with the last stage's logits per micro-batch ('logit', from
 * gp__train_bound_logit: it reads tp, cp and micro_batch of 'l' only)
 * given, for a caller that keeps it with S.
 */
double gp__train_bound_logit (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw,
                              const struct gp_layout *l);
double gp__train_step_bound_lg (const struct gp_train_model *m,
                                const struct gp_train_job *job,
                                const struct gp_train_hw *hw,
                                const struct gp_layout *l, double S,
                                double logit);

/* The layout search (gp_search_layouts, search.c) for a caller that only
 * needs layouts stepping faster than 'cutoff_s' seconds: layouts whose
 * proven step bound is above it are skipped.  When the full search's
 * fastest layout steps in under 'cutoff_s', top[0] is that same layout
 * (same tie-breaking); otherwise top may hold any layouts or none.
 * Returns the count kept (<= k); no statistics.
 */
size_t gp__search_layouts_below (const struct gp_train_model *m,
                                 const struct gp_train_job *job,
                                 const struct gp_train_hw *hw, int n_gpus,
                                 const struct gp_search_fix *fix,
                                 double cutoff_s,
                                 struct gp_train_result *top, size_t k);

/* Precision and CPU activation offload (train_prec.c; docs/model/
 * training.md, "Precision" and "CPU activation offload").
 * gp__prec_hw: the precision row's peak and mechanism terms and the host
 * link of accelerator 'a' into 'hw' (called by gp_train_hw_from_accel).
 * gp__prec_save_scale: how many bytes per element a low-precision GEMM
 * input saves against 16 bit, relative to FP8's 1 (1 for FP8).
 * gp__offload_act: activation bytes of layout 'l' (Ls layers of a_layer
 * bytes each) that leave HBM, and in '*host' those held in host memory.
 * gp__offload_s: exposed offload time per micro-batch given one layer's
 * forward and backward times.
 * gp__offload_fit: for a layout that does not fit, the fewest offloaded
 * layers that make it fit (sets l->offload_layers and refills '*mem');
 * 0 when offload does not apply or does not suffice.
 */
/* Exposed TP communication of one layer and micro-batch when it is
 * pipelined with the layer's GEMMs (tp_s of communication, gemm_s of
 * GEMMs): docs/model/training.md, "TP communication overlap".
 */
double gp__tp_overlap_s (double tp_s, double gemm_s);
void gp__prec_hw (const struct gp_accel *a, enum gp_precision p,
                  struct gp_train_hw *hw);
double gp__prec_save_scale (const struct gp_train_hw *hw);
double gp__offload_act (const struct gp_layout *l, int Ls, double a_layer,
                        double *host);
double gp__offload_s (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_train_hw *hw,
                      const struct gp_layout *l, double fwd, double bwd);
/* The micro-batches whose activations a pipeline stage holds at once
 * under layout 'l' (1 without pipelining; min(micro-batches, pp), pp + 1
 * for DualPipe).  It is the only way gp_train_memory reads the job's
 * global batch: the layout search keeps memory results across batches
 * by it (search.c), so a new read of the batch in the memory model must
 * go through here.
 */
double gp__train_mem_inflight (const struct gp_train_job *job,
                               const struct gp_layout *l);
/* Whether the weights, gradients and optimizer states of 'mem' (a result
 * of gp_train_memory on 'hw') with the runtime share they carry already
 * exceed the capacity: then no layout that differs only in what those
 * terms do not read (recompute, recompute_layers, micro_batch, vpp,
 * seq_par, offload_layers) fits either.  The layout search skips such
 * layouts (search.c); a new memory term must keep this a lower bound.
 */
int gp__train_mem_state_oom (const struct gp_train_hw *hw,
                             const struct gp_train_mem *mem);
/* Partial (block) recomputation (train.c; docs/model/training.md,
 * "Partial (block) recomputation"): for a layout with recompute full,
 * whose memory with every layer recomputed is '*mem', the fewest
 * recomputed layers per pipeline chunk (1 .. chunk - 1) that fit; sets
 * l->recompute_layers and '*mem' and returns 1, or returns 0 (nothing
 * changed) when '*mem' does not fit, only every layer fits, the chunk has
 * one layer or the layout fits without recomputation ('none_fits': 1 it
 * does, 0 it does not, -1 unknown: computed here).
 */
int gp__recomp_fit (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw, struct gp_layout *l,
                    struct gp_train_mem *mem, int none_fits);
int gp__offload_fit (const struct gp_train_model *m,
                     const struct gp_train_job *job,
                     const struct gp_train_hw *hw, struct gp_layout *l,
                     struct gp_train_mem *mem);
/* Host-offloaded remat checkpoints and the XLA loss phase (train_prec.c;
 * docs/model/training.md, "Host-offloaded remat checkpoints" and
 * "Logits under XLA"); all bytes per GPU.
 * gp__remat_ckpt_bytes: one layer's checkpoint for one micro-batch: its
 * input as full recomputation stores it plus the saved Q, K, V and
 * attention-output projections (16 bit).
 * gp__remat_offload_act: the change to the HBM activations of layout 'l'
 * (Ls layers storing a_layer each under full recomputation) when the
 * checkpoints live in host memory (<= 0; two layers' checkpoints stay as
 * transfer buffers); the host bytes into '*host'.
 * gp__remat_offload_check: pp 1, no CPU activation offload and, with
 * recompute full, every layer recomputed (the terms apply to recompute
 * full only); 0 or GP_EINVAL with the reason in 'err'.
 * gp__offload_s (above) also charges these copies when job->remat_offload
 * is set: the excess of one layer's copy over that layer's forward (out)
 * and backward (in).
 * gp__logits_xla: the loss phase's bytes beyond 'other' (what the layer
 * phase holds and the loss phase does not): 16-bit logits and their
 * 16-bit gradient for 'tok' tokens, vocab split over TP; >= 0.
 */
double gp__remat_ckpt_bytes (const struct gp_train_model *m,
                             const struct gp_train_job *job,
                             const struct gp_layout *l, double a_layer);
double gp__remat_offload_act (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_layout *l, int Ls,
                              double a_layer, double *host);
int gp__remat_offload_check (const struct gp_train_model *m,
                             const struct gp_layout *l, gp_error_t *err);
double gp__logits_xla (const struct gp_train_model *m,
                       const struct gp_layout *l, double tok, double other);
/* MoE terms of the step time (train_moe.c; docs/model/training.md, "MoE:
 * routing imbalance, overlap, expert GEMMs and host overhead").  No
 * errors; all return seconds or counts >= 0.
 * gp__moe_imbalance: the busiest EP rank's routed tokens over the mean
 * (job->moe_imbalance, at least 1).
 * gp__moe_expert_rows: the rows one expert's grouped-GEMM problem
 * computes for 'tpe' tokens per expert on average: the busiest rank's
 * count, padded to whole 128-row tiles.
 * gp__moe_shared_hidden_s: the part of 'ep_left_s' (exposed all-to-all
 * of one layer and micro-batch) hidden under the shared experts' GEMMs
 * when job->moe_shared_overlap is set ('T' tokens per micro-batch).
 * gp__moe_host_s: the host time of one MoE layer and micro-batch
 * (forward, backward, recompute) the GPU waits for, given the layer's
 * GPU time 'gpu_s': eager, the operators issued after the dispatcher's
 * device-to-host synchronisation; with CUDA graphs, only what the host
 * time exceeds the GPU time by.
 * gp__train_gemm_s: train_time.c's time of one M x N x K GEMM.
 */
double gp__moe_imbalance (const struct gp_train_job *job);
double gp__moe_expert_rows (const struct gp_train_job *job, double tpe);
double gp__moe_shared_hidden_s (const struct gp_train_model *m,
                                const struct gp_train_job *job,
                                const struct gp_train_hw *hw,
                                const struct gp_layout *l, double T,
                                double ep_left_s);
double gp__moe_host_s (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_layout *l, double tpe, double gpu_s);
double gp__train_gemm_s (const struct gp_train_hw *hw, double M, double N,
                         double K);
/* gp__moe_wgrad_acc_s: seconds the weight-gradient GEMMs of one MoE
 * layer's E/ep local experts take, per micro-batch, beyond the GEMM time
 * the step already charges for them, when their fp32 main-grad
 * accumulation (read + write of every expert weight) outlasts their
 * FLOPs; 'rows' is one expert's GEMM rows (gp__moe_expert_rows).  >= 0.
 */
double gp__moe_wgrad_acc_s (const struct gp_train_model *m,
                            const struct gp_train_hw *hw,
                            const struct gp_layout *l, double rows);
/* Bytes one GPU sends for one dispatch of 'Tm' routed tokens over 'ep'
 * ranks that fill scale-up domains of 'g' GPUs ('N' domains): over
 * NVLink ('*nv', direct and forwarded) and over the NIC ('*ib'), by the
 * job's dispatcher (job->moe_a2a_nccl).
 */
void gp__moe_a2a_bytes (const struct gp_train_model *m,
                        const struct gp_train_job *job, double Tm, double ep,
                        double g, double N, double *nv, double *ib);
/* Ring bandwidth (bytes/s per GPU) of the expert-data-parallel group of
 * 'ndx' ranks when the DP group leaves the scale-up domain: EP is the
 * inner dimension of the folded expert layout, so EDP ranks sit 'ep'
 * GPUs apart and a node holds max(1, gpus_per_node/ep) of them, each
 * rank on its own NIC ('*d_x': EDP ranks per node).
 */
double gp__moe_edp_bw (const struct gp_train_hw *hw,
                       const struct gp_layout *l, double ndx, double *d_x);
/* Seconds a grouped GEMM of 'n' problems M x N x K takes beyond the
 * dense-GEMM roofline of each: on Blackwell with FP8 inputs, the
 * multi-stream cuBLAS MXFP8 grouped GEMM's measured shortfall against
 * the dense model at the measured shape (docs/model/training.md, "MoE:
 * routing imbalance, dispatch, expert GEMMs and host overhead"); 0
 * elsewhere.
 */
double gp__moe_grouped_extra_s (const struct gp_train_hw *hw, double n,
                                double M, double N, double K);
/* Seconds the computation under 'hid_s' of hidden all-to-all loses to
 * the SMs the communication kernels hold (>= 0; docs/model/training.md,
 * "MoE: routing imbalance, dispatch, expert GEMMs and host overhead").
 */
double gp__moe_overlap_sm_s (double hid_s);
/* gp__moe_a2a_overlap_host_s: host seconds the a2a-overlap schedule adds
 * to one MoE layer and micro-batch (0 for any other schedule).  >= 0.
 */
double gp__moe_a2a_overlap_host_s (const struct gp_layout *l);
/* gp__moe_route_check: the group-limited routing fields of 'job' against
 * the model: both 0, or moe_groups dividing the routed experts and
 * moe_group_topk (1 .. moe_groups) dividing moe_topk.  Returns 0 or
 * GP_EINVAL with the reason in 'err'.
 */
int gp__moe_route_check (const struct gp_train_model *m,
                         const struct gp_train_job *job, gp_error_t *err);
/* gp__moe_copies_pass_s: seconds of the three memory-bound passes that
 * mem_fwd's activation rule gives the top_k dispatched 16-bit copies of
 * the 'Tm' tokens a GPU routes in one MoE layer's forward, which the
 * explicit permute/unpermute traffic already counts (subtracted there).
 * >= 0; 0 without experts.
 */
double gp__moe_copies_pass_s (const struct gp_train_model *m,
                              const struct gp_train_hw *hw, double Tm);
/* gp__moe_sort_s: seconds of the NCCL all-to-all dispatcher's local sort
 * by expert after the dispatch and its inverse before the combine (read
 * and write of Tm * top_k 16-bit rows each), one MoE layer's forward;
 * 0 for DeepEP/HybridEP or one local expert.  >= 0.
 */
double gp__moe_sort_s (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw, double Tm, double ep);

/* The deadline sizing of gp_train_plan (`train --days`, and `train` with
 * tokens but neither GPUs nor days), shared with the campaign validation:
 * 'days' > 0 is the deadline; 'days' <= 0 takes the default deadline
 * train.default_days of 'd' (NULL: the registry's).  Stores the deadline
 * used in '*days_used' (may be NULL) and returns what
 * gp_train_size_deadline returns for it (up to GP_TRAIN_MAX_GPUS).
 */
struct gp_defaults;
size_t gp__train_plan_days (const struct gp_train_model *m,
                            const struct gp_train_job *job,
                            const struct gp_train_hw *hw,
                            const struct gp_search_fix *fix,
                            const struct gp_train_rel_params *rel,
                            const struct gp_defaults *d, double days,
                            struct gp_train_result *top, size_t k,
                            struct gp_train_size *sz, double *days_used);

#endif
