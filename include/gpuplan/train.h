/* gpuplan/train.h - the training planner: per-GPU memory, FLOPs, step time,
 * reliability and parallel-layout search for dense and MoE transformers.
 *
 * Everything here is a pure function of plain structs: an architecture
 * (gpuplan/arch.h), a job (sequence, batch, precision, optimizer), the
 * hardware as the model sees it (one accelerator type, its scale-up domain
 * and scale-out fabric, plus a few documented efficiency factors per GPU
 * generation) and a parallel layout.  No I/O, no allocation in the
 * evaluation path, so the layout search can evaluate millions of layouts
 * per second.  Every formula and constant is documented with its source in
 * docs/model/training.md.
 */
#ifndef GPUPLAN_TRAIN_H
#define GPUPLAN_TRAIN_H

#include <stddef.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/defaults.h"
#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_precision {
    GP_PREC_BF16,
    GP_PREC_FP16,
    GP_PREC_FP8, /* FP8 GEMMs, BF16 everything else */
};

enum gp_sharding {
    GP_SHARD_NONE,
    GP_SHARD_ZERO1, /* optimizer states over DP (Megatron distributed opt.) */
    GP_SHARD_ZERO2, /* + gradients (FSDP SHARD_GRAD_OP) */
    GP_SHARD_ZERO3, /* + parameters */
    GP_SHARD_FSDP,  /* = ZeRO-3 as PyTorch FSDP FULL_SHARD */
};

enum gp_recompute {
    GP_RECOMP_NONE,
    GP_RECOMP_SELECTIVE, /* attention core (Korthikanti et al. 2022); with
                          * MLA also the Q/K/V up-projections */
    GP_RECOMP_FULL,      /* whole layer; only the layer input is kept */
};

/* Pipeline schedule and what it overlaps with compute (MoE all-to-all). */
enum gp_schedule {
    GP_SCHED_1F1B,        /* 1F1B (interleaved when vpp > 1); EP all-to-all
                           * exposed (Megatron-Core default) */
    GP_SCHED_A2A_OVERLAP, /* 1F1B with the EP all-to-all of one micro-batch
                           * under another's compute in the steady state
                           * (Megatron-Core --overlap-moe-expert-parallel-comm)
                           */
    GP_SCHED_DUALPIPE,    /* DeepSeek-V3 DualPipe: all-to-all and P2P fully
                           * overlapped, half the bubble, 2x parameters */
};

/* A parallel layout.  tp*pp*cp*dp = GPUs; ep divides tp*dp*cp: experts
 * are not tensor-split (expert tensor parallel 1) and EP is folded over
 * the TP x DP x CP ranks (Megatron-Core MoE parallel folding).
 */
struct gp_layout {
    int tp, pp, dp, cp, ep;
    int vpp;          /* virtual stages per pipeline rank; 1 = plain 1F1B */
    int micro_batch;  /* sequences per micro-batch per replica */
    int seq_par;      /* sequence parallelism with TP (1 = on) */
    enum gp_recompute recompute;
    enum gp_sharding sharding;
    enum gp_schedule schedule;
};

/* The training job. */
struct gp_train_job {
    double seq_len;           /* tokens per sequence */
    double global_batch;      /* sequences per optimizer step */
    double tokens;            /* tokens of the whole run (0 = unknown) */
    enum gp_precision precision;
    double weight_bytes;      /* per parameter, working copy (2) */
    double grad_bytes;        /* per parameter, gradient buffer (4: fp32) */
    double optim_bytes;       /* master + Adam m, v per parameter (12) */
    int flash_attn;           /* fused attention: no s x s scores kept */
    const struct gp_defaults *defaults; /* borrowed; NULL = the registry's
                                         * values (reliability.*,
                                         * train.ckpt_*) */
};

/* Efficiency factors of one GPU generation (docs/model/training.md). */
struct gp_train_eff {
    const char *generation;   /* "ampere", "hopper", ... */
    double gemm_max;          /* best achieved / peak on large GEMMs */
    double gemm_dim_half;     /* dimension at which a GEMM side halves eff */
    double attn;              /* flash-attention achieved / peak */
    double hbm;               /* achieved / peak HBM bandwidth */
    double scale_up;          /* NCCL bus bandwidth / link bandwidth */
    double scale_out;         /* NCCL bus bandwidth / NIC bandwidth */
    double kernel_s;          /* per-kernel launch/sync overhead, s */
};

/* The hardware one training job runs on (one accelerator type). */
struct gp_train_hw {
    char accel_id[64];
    double peak_flops;        /* dense tensor FLOP/s at the job precision */
    double peak_bf16_flops;   /* for MFU at 16 bit */
    double mem_bytes;         /* HBM per GPU */
    double mem_bw;            /* HBM byte/s */
    double scale_up_bw;       /* per GPU, one direction, byte/s */
    int scale_up_domain;      /* GPUs per NVLink-class domain */
    int gpus_per_node;
    double scale_out_bw;      /* per GPU, one direction, byte/s */
    double scale_out_lat_s;   /* per message hop */
    double oversub;           /* fabric oversubscription (>= 1) */
    double tdp_w;
    double util_power;        /* average power / TDP while training */
    double runtime_bytes;     /* CUDA context, NCCL, allocator reserve */
    int fp8;                  /* FP8 GEMMs: inputs cast from BF16 */
    struct gp_train_eff eff;
};

/* Per-GPU memory of the most loaded pipeline stage, bytes. */
struct gp_train_mem {
    double weights, grads, optim, activations, logits, buffers, runtime;
    double total;
    double capacity;
    double headroom;          /* capacity - total (negative = OOM) */
    int fits;
};

/* One training step and what follows from it. */
struct gp_train_time {
    double gemm_s;            /* dense GEMMs (incl. recompute) */
    double attn_s;            /* attention core */
    double mem_s;             /* memory-bound ops (norms, activations...) */
    double tp_comm_s;         /* exposed TP collectives */
    double cp_comm_s;
    double ep_comm_s;         /* exposed MoE all-to-all */
    double ep_hidden_s;       /* MoE all-to-all hidden under compute */
    double pp_bubble_s;
    double pp_p2p_s;
    double dp_comm_s;         /* exposed DP / ZeRO / FSDP traffic */
    double optim_s;
    double overhead_s;        /* kernel launch overheads */
    double step_s;
    double tokens_per_step;
    double tokens_per_s;
    double tokens_per_s_per_gpu;
    double model_flops_per_token;  /* 6N + attention, no recompute */
    double hw_flops_per_token;     /* incl. recompute */
    double model_flops_per_gpu;    /* achieved model FLOP/s per GPU */
    double mfu, hfu;
};

struct gp_train_result {
    struct gp_layout layout;
    struct gp_train_mem mem;
    struct gp_train_time time;
};

/* Derived quantities of an architecture, computed once (gp_train_prep). */
struct gp_train_model {
    int layers, hidden, heads, kv_heads, head_dim, vocab;
    double attn_params;       /* per layer */
    double mlp_params;        /* per dense layer */
    double expert_params;     /* one expert (MoE) */
    double moe_params;        /* routed experts + shared + router, per layer */
    int moe_layers, dense_layers;
    int mlp_mats;             /* 2 gelu, 3 swiglu */
    int ffn_hidden, moe_ffn_hidden, moe_experts, moe_topk, moe_shared;
    int mla;                  /* multi-head latent attention (DeepSeek) */
    int mla_q_lora, mla_kv_lora, mla_rope, mla_v_dim; /* qk dim = head_dim */
    double embed_params;      /* input (+ output when untied) + positions */
    double total_params;
    double active_params;     /* touched per token */
    double matmul_active;     /* active params in GEMMs (excl. input emb.) */
};

/* Fill 'm' from 'a'.  Returns 0 or GP_EINVAL when a dimension is missing. */
int gp_train_prep (const struct gp_arch *a,
                   struct gp_train_model *m,
                   gp_error_t *err);

/* Job defaults: bf16, weights 2 B, fp32 gradients 4 B, Adam 12 B. */
void gp_train_job_default (struct gp_train_job *job);

/* The training efficiency factors of generation 'g' (the catalog's
 * generations.csv row, gp_accel.gen); NULL gives ideal factors (1, no
 * kernel overhead, generation "none").  Writes 'eff'; no errors.
 */
void gp_train_eff_for (const struct gp_generation *g,
                       struct gp_train_eff *eff);

/* Hardware view of accelerator 'a' for 'precision', with documented
 * defaults for the fabric (per-GPU NIC bandwidth by generation).
 */
void gp_train_hw_from_accel (const struct gp_accel *a,
                             enum gp_precision precision,
                             struct gp_train_hw *hw);

/* Check a layout against model, job and GPU count (divisibility).
 * Returns 0 or GP_EINVAL with the reason in 'err'.
 */
int gp_train_check (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_layout *l,
                    gp_error_t *err);

/* Activation bytes of one layer for one micro-batch on one GPU
 * (Korthikanti et al. 2022, Sec. 4 and Table 2).  With 'flash' (fused
 * attention) the s x s scores are never stored: the 5as/h term is 0.
 */
double gp_train_act_layer_bytes (const struct gp_train_model *m,
                                 const struct gp_layout *l,
                                 double seq_len,
                                 int flash);

/* Memory per GPU (most loaded stage). */
void gp_train_memory (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_train_hw *hw,
                      const struct gp_layout *l,
                      struct gp_train_mem *out);

/* Step time and derived rates.  The layout must pass gp_train_check. */
void gp_train_time (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw,
                    const struct gp_layout *l,
                    struct gp_train_time *out);

/* Both of the above after gp_train_check; returns its result. */
int gp_train_eval (const struct gp_train_model *m,
                   const struct gp_train_job *job,
                   const struct gp_train_hw *hw,
                   const struct gp_layout *l,
                   struct gp_train_result *out,
                   gp_error_t *err);

/* Model FLOPs per token (PaLM appendix B / MosaicML): 6 * matmul params
 * + 12 * layers * seq * attention width (non-causal count), no recompute.
 */
double gp_train_model_flops_per_token (const struct gp_train_model *m,
                                       double seq_len);

/* ---------------------------- reliability ---------------------------- */

struct gp_reliability_in {
    double n_gpus;
    double fail_per_gpu_hour;   /* default: Llama 3 (see docs) */
    double ckpt_bytes;          /* whole checkpoint */
    double storage_bw;          /* aggregate write byte/s */
    double restart_s;           /* detect + restart + reload */
    double target_overhead;     /* e.g. 0.05 for the storage sizing */
};

struct gp_reliability {
    double mtbf_s;              /* of the whole job */
    double ckpt_write_s;
    double interval_s;          /* Young/Daly optimum */
    double overhead;            /* fraction of wall time lost */
    double goodput;             /* 1 - overhead */
    double storage_bw_needed;   /* byte/s for ckpt overhead <= target */
};

/* Default per-GPU-hour failure rate: the registry's
 * reliability.fail_per_gpu_hour (419 unexpected interruptions in 54 days
 * on 16,384 H100, Llama 3 paper, Sec. 3.3.4).
 */
#define GP_FAIL_PER_GPU_HOUR_DEFAULT                                          \
    (gp_default (NULL, GP_DEF_RELIABILITY_FAIL_PER_GPU_HOUR))

void gp_reliability_eval (const struct gp_reliability_in *in,
                          struct gp_reliability *out);

/* The reliability block of a job with the defaults in job->defaults (the
 * registry's when NULL, docs/model/defaults.md): failure rate
 * reliability.fail_per_gpu_hour, checkpoint = weights + optimizer states
 * (total_params x (weight_bytes + optim_bytes)) written at
 * train.ckpt_write_bw_per_node per node of 'gpus_per_node' (8 when <= 0),
 * reliability.restart_s per restart (600 s), train.ckpt_overhead_target
 * (5 %) for the storage sizing.  Writes 'out'; no errors.
 */
void gp_train_reliability (const struct gp_train_model *m,
                           const struct gp_train_job *job,
                           double n_gpus,
                           int gpus_per_node,
                           struct gp_reliability *out);

/* ------------------------------ search ------------------------------- */

/* Why a layout lost, for the search report. */
enum gp_reject {
    GP_REJ_NONE,
    GP_REJ_DIVISIBILITY,
    GP_REJ_OOM,
    GP_REJ_SLOWER,
};

/* Constraints: a field < 0 (or -1 for enums) is free; otherwise fixed. */
struct gp_search_fix {
    int tp, pp, dp, cp, ep, vpp, micro_batch, seq_par;
    int recompute;   /* enum gp_recompute or -1 */
    int sharding;    /* enum gp_sharding or -1 */
    int sharding_max;/* highest stage searched when free; -1 = ZeRO-3 */
    int max_tp;      /* 0 = scale-up domain */
    int schedule;    /* enum gp_schedule or -1 (= 1F1B); never searched */
};

void gp_search_fix_free (struct gp_search_fix *f);

struct gp_search_stats {
    double evaluated;           /* layouts fully evaluated */
    double rejected_div;
    double rejected_oom;
    struct gp_train_result best_oom; /* the fastest layout that did not fit */
    int have_oom;
};

/* Enumerate every layout of 'n_gpus' allowed by 'fix' and keep the
 * 'k' fastest that fit in 'top' (sorted, fastest first).  Returns the
 * number kept (0 = nothing fits; see 'st').
 */
size_t gp_search_layouts (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          int n_gpus,
                          const struct gp_search_fix *fix,
                          struct gp_train_result *top,
                          size_t k,
                          struct gp_search_stats *st);

/* Inverse sizing: the fewest whole nodes whose fastest fitting layout
 * trains job->tokens within 'days' (throughput x goodput of
 * gp_train_reliability).  Sizes of 1, 1.25, 1.5, 1.75 x 2^j nodes are
 * tried up to 'max_gpus'; once one meets the date, every node count
 * between it and the previous candidate is tried, smallest first.
 * Returns the number of layouts in 'top' (0: no size meets the date; see
 * res->best_n and res->best_rate).
 */
struct gp_train_size {
    int n_gpus;                 /* the answer; 0 = no size meets the date */
    int best_n;                 /* the size with the highest goodput rate */
    double best_rate;           /* its tokens/s x goodput */
    struct gp_reliability rel;  /* at n_gpus */
};

size_t gp_search_size (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_search_fix *fix,
                       double days,
                       int max_gpus,
                       struct gp_train_result *top,
                       size_t k,
                       struct gp_train_size *res);

const char *gp_sharding_str (enum gp_sharding s);
const char *gp_recompute_str (enum gp_recompute r);
const char *gp_precision_str (enum gp_precision p);
const char *gp_schedule_str (enum gp_schedule s);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_TRAIN_H */
