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
#include "gpuplan/price.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_precision {
    GP_PREC_BF16,
    GP_PREC_FP16,
    GP_PREC_FP8, /* FP8 GEMMs, BF16 everything else */
    /* Appended (docs/model/training.md, "Precision"; the mechanism terms
     * are data/catalog/precisions.csv, gp_train_prec_for).  GP_PREC_FP8
     * is per-tensor current scaling.
     */
    GP_PREC_MXFP8,       /* FP8 with 32-element E8M0 block scales */
    GP_PREC_NVFP4,       /* FP4 with 16-element E4M3 block scales */
    GP_PREC_FP8_DELAYED, /* FP8, per-tensor delayed (amax-history) scaling */
    /* Appended (docs/model/training.md, "Precision"): "fp4" is an alias
     * for the vendor's 4-bit recipe (NVFP4 on NVIDIA, MXFP4 on AMD),
     * resolved per accelerator by gp_train_prec_resolve.
     */
    GP_PREC_FP4,   /* alias: the vendor's 4-bit training recipe */
    GP_PREC_MXFP4, /* FP4 with 32-element E8M0 block scales (OCP MX) */
    GP_PREC_INT8,  /* INT8 quantized GEMMs (TPU AQT), BF16 elsewhere */
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

/* What a run trains (docs/model/training.md, "LoRA fine-tuning"). */
enum gp_finetune {
    GP_FT_FULL, /* every weight trained (pre-training, full fine-tuning) */
    GP_FT_LORA, /* low-rank adapters on frozen weights (Hu et al. 2021) */
};

/* The linear layers that carry LoRA adapters. */
enum gp_lora_targets {
    GP_LORA_ATTN, /* query, key, value and output projections (default;
                   * the MLPerf llama2_70b_lora recipe) */
    GP_LORA_MLP,  /* the MLP's up (and gate) and down projections */
    GP_LORA_ALL,  /* every linear layer of the blocks (QLoRA) */
};

#define GP_LORA_RANK_DEFAULT 16 /* the MLPerf llama2_70b_lora rank */

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
    int offload_layers; /* layers whose activations go to host memory
                         * (Megatron-Core cpu_offloading_num_layers);
                         * 0 = none.  docs/model/training.md, "CPU
                         * activation offload" */
    int recompute_layers; /* with recompute full: layers recomputed per
                           * (virtual) pipeline chunk, the rest keep
                           * their activations (Megatron --recompute-
                           * method block --recompute-num-layers N);
                           * 0 = every layer.  docs/model/training.md,
                           * "Partial (block) recomputation" */
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
    int attn_kernel;          /* enum gp_attn_kernel (0 = auto) */
    const struct gp_defaults *defaults; /* borrowed; NULL = the registry's
                                         * values (reliability.*,
                                         * train.ckpt_*) */
    int batch_free;           /* 1: global_batch is only a default; the
                               * sizing (gp_train_search_batch,
                               * gp_train_size_deadline) chooses the batch
                               * within gp_train_batch_range.  0 (the
                               * default): global_batch is fixed */
    int tp_comm_overlap;      /* 1: TP collectives pipelined with the
                               * adjacent GEMMs (Transformer Engine
                               * userbuffers, Megatron --tp-comm-overlap);
                               * 0 (default): exposed.  docs/model/
                               * training.md, "TP communication overlap" */
    int grad_reduce_after;    /* 1: the data-parallel gradient reduction
                               * runs after the last backward, nothing of
                               * it hidden (DeepSpeed's engines, Megatron-LM
                               * --DDP-impl local); 0 (default): bucketed
                               * under the last micro-batch's backward.
                               * docs/model/training.md, "Gradient
                               * reduction after the backward" */
    /* MoE (docs/model/training.md, "MoE: routing imbalance, overlap,
     * expert GEMMs and host overhead"); all 0 by default.
     */
    double moe_imbalance;     /* routed tokens of the busiest EP rank over
                               * the mean (>= 1; 0 or 1 = balanced, as
                               * with forced balancing) */
    int moe_shared_overlap;   /* 1: the shared experts run concurrently
                               * with dispatch and combine (Megatron-Core
                               * --moe-shared-expert-overlap) */
    int cuda_graphs;          /* 1: the MoE router and token preprocessing
                               * run from captured CUDA graphs (TE
                               * cuda_graph_scope moe_router,
                               * moe_preprocess); the routed experts and
                               * the dispatcher's host synchronisation
                               * per layer stay eager; 0: eager */
    int moe_a2a_nccl;         /* 1: the token dispatcher is an NCCL
                               * all-to-all (Megatron-Core 'alltoall'):
                               * one copy per token and expert, remote
                               * copies straight over the NIC.  0 (the
                               * default): DeepEP/HybridEP ('flex'): one
                               * copy per token and destination GPU, one
                               * per remote node over the NIC */    /* Fine-tuning (docs/model/training.md, "LoRA fine-tuning"); all 0
     * = full training, every weight trained (the default).
     */
    int finetune;             /* enum gp_finetune */
    int lora_rank;            /* GP_FT_LORA: adapter rank r (>= 1) */
    int lora_targets;         /* GP_FT_LORA: enum gp_lora_targets */
    double base_bytes;        /* GP_FT_LORA: bytes per frozen weight (2:
                               * bf16, 1: fp8; 0 = 2) */
    /* MoE group-limited routing (DeepSeek-V3 node-limited routing,
     * Megatron-Core --moe-router-num-groups / --moe-router-group-topk):
     * the experts form moe_groups equal groups of consecutive experts and
     * each token picks moe_group_topk groups, then moe_topk /
     * moe_group_topk experts in each.  Both 0 (the default): any expert.
     * Checked by gp_train_check (gp__moe_route_check).
     */
    int moe_groups;
    int moe_group_topk;
    /* Host-offloaded rematerialisation checkpoints (MaxText remat_policy
     * 'custom' with the decoder-layer input and the q/k/v/out projections
     * set to 'offload'; docs/model/training.md, "Host-offloaded remat
     * checkpoints"): 1 = each layer's input and saved projections live in
     * host memory, the backward recomputes the rest (needs recompute
     * full, pp 1); 0 (the default): checkpoints stay in HBM.
     */
    int remat_offload;
    /* Loss memory of an XLA program (MaxText; docs/model/training.md,
     * "Logits under XLA"): 1 = the 16-bit logits and their 16-bit
     * gradient, live only between the last layer's forward and backward
     * (not with one layer's working set nor the layer gradients); 0 (the
     * default): fp32 logits and gradient held with everything else.
     */
    int logits_xla;
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
    double attn_cudnn;        /* cuDNN fused attention achieved / peak;
                               * 0 = no separate figure: 'attn' stands
                               * for every kernel */
};

/* The attention kernel of a training job (docs/model/training.md,
 * "Attention kernel"): auto = what Transformer Engine selects (cuDNN
 * fused attention on Hopper and later, FlashAttention-2 before), fa2 =
 * the flash-attn package
 * (PyTorch SDPA's flash backend, llm-foundry, torchtitan), cudnn = cuDNN
 * fused attention.
 */
enum gp_attn_kernel {
    GP_ATTN_AUTO = 0,
    GP_ATTN_FA2,
    GP_ATTN_CUDNN,
};

/* The achieved/peak efficiency of the fused attention core for 'kernel'
 * (enum gp_attn_kernel) on the factors 'e': e->attn for fa2; e->attn_cudnn
 * for cudnn and auto where e->attn_cudnn > 0 (a generation whose catalog
 * row gives a cuDNN figure: Hopper); else e->attn, which then stands for
 * every kernel (Ampere, where Transformer Engine selects
 * FlashAttention-2; generations without a separate measurement).  No
 * errors.
 */
double gp_train_attn_eff (const struct gp_train_eff *e, int kernel);

/* "auto", "fa2" or "cudnn"; NULL for a value outside the enum. */
const char *gp_attn_kernel_str (int kernel);

/* The data/catalog/generations.csv column gp_train_attn_eff takes the
 * efficiency of 'kernel' from on 'e': "train_attn_cudnn" or "train_attn"
 * (a static string).
 */
const char *gp_train_attn_figure (const struct gp_train_eff *e, int kernel);

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
    /* In-network reduction (docs/model/training.md, "In-network
     * reduction"); 0 = none.  nvls_share: NVLink SHARP all-reduce
     * algorithm bandwidth / the ring's bus bandwidth inside the scale-up
     * domain (the generation's nvls_algbw_share on NVSwitch systems).
     * sharp_share: InfiniBand SHARP all-reduce algorithm bandwidth per
     * NIC / NIC bandwidth (the fabric switch's sharp_algbw_share; set by
     * the caller that knows the fabric: never on Ethernet/RoCE).
     */
    double nvls_share;
    double sharp_share;
    /* Precision mechanism terms (data/catalog/precisions.csv; 0 = the
     * FP8 current-scaling defaults of train_time.c): bytes moved per
     * element to quantize a GEMM's activation input, bytes per element
     * an FP8/FP4 GEMM input keeps for backward, and the GEMM efficiency
     * relative to the generation's (block-scale overhead).
     */
    double cast_bytes;
    double saved_act_bytes;
    double prec_gemm_eff;
    /* Host link for CPU activation offload (data/catalog/host_links.csv):
     * byte/s per direction per GPU as achieved (0 = no offload), and host
     * memory per GPU (bytes).
     */
    double host_bw;
    double host_mem_bytes;
};

/* One all-reduce of 'bytes' (s) as the training model times it
 * (docs/model/training.md, "In-network reduction"): over 'n' ranks of
 * one scale-up domain of 'hw' (ring at the scale-up bus bandwidth, or
 * NVLS when hw->nvls_share > 0, n >= 5 and bytes >= 2 MiB, whichever is
 * faster), or over 'nodes' nodes with 'd_in' ranks each (ring at d_in
 * NICs' bus bandwidth, or IB SHARP when hw->sharp_share > 0 and nodes >=
 * 2, whichever is faster).  No errors; 0 for n <= 1.
 */
double gp_train_allreduce_up_s (const struct gp_train_hw *hw, double bytes,
                                int n);
double gp_train_allreduce_out_s (const struct gp_train_hw *hw, double bytes,
                                 int nodes, int d_in);

/* Per-GPU memory of the most loaded pipeline stage, bytes. */
struct gp_train_mem {
    double weights, grads, optim, activations, logits, buffers, runtime;
    double total;
    double capacity;
    double headroom;          /* capacity - total (negative = OOM) */
    int fits;
    double offload_host;      /* activation bytes in host memory per GPU
                               * (layout offload_layers; not in total) */
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
    double moe_host_s;        /* MoE host (CPU) time the GPU waits for
                               * (eager synchronisation or host-bound) */
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
    double offload_s;         /* exposed CPU activation offload (in step_s) */
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
    /* Hybrid Mamba-2/attention models (gp_arch layer_pattern; 0 layers =
     * transformer).  'layers' counts the pattern layers; attn_params is
     * then the mixer parameters (attention or Mamba-2) per pattern layer
     * on average and dense_layers the MLP layers (docs/model/training.md,
     * "Hybrid Mamba-2/attention models").
     */
    int ssm_layers, attn_layers;
    int ssm_heads, ssm_head_dim, ssm_state, ssm_groups, ssm_conv, ssm_chunk;
    double ssm_params;        /* one Mamba-2 layer */
    double attn_layer_params; /* one attention layer (hybrid) */
    int no_dropout;           /* 1: trained with dropout 0, so no dropout
                               * masks are stored (gp_train_prep sets it
                               * from the zoo family; 0 keeps the masks,
                               * docs/model/training.md, "Dropout masks") */
};

/* Fill 'm' from 'a' (parameter counts in elements).  Returns 0, or
 * GP_EINVAL naming the missing dimension ('m' then undefined).
 */
int gp_train_prep (const struct gp_arch *a,
                   struct gp_train_model *m,
                   gp_error_t *err);

/* Fill 'job' with the defaults: sequences of 4,096 tokens, the global
 * batch of the registry's GP_DEF_TRAIN_BATCH_TOKENS in sequences
 * (gp_train_batch_sequences: 1,024), bf16, weights 2 B, fp32 gradients
 * 4 B, Adam 12 B per parameter, fused attention, tokens 0 (unknown).
 */
void gp_train_job_default (struct gp_train_job *job);

/* The training efficiency factors of generation 'g' (the catalog's
 * generations.csv row, gp_accel.gen); NULL gives ideal factors (1, no
 * kernel overhead, generation "none").  Writes 'eff'; no errors.
 */
void gp_train_eff_for (const struct gp_generation *g,
                       struct gp_train_eff *eff);

/* Fill 'hw' with the hardware view of accelerator 'a' (borrowed, not
 * kept) for 'precision', with documented defaults for the fabric (per-GPU
 * NIC bandwidth by generation, byte/s) and GPUs per node.  A missing
 * peak FLOP/s or memory leaves 0 there (callers check).
 */
void gp_train_hw_from_accel (const struct gp_accel *a,
                             enum gp_precision precision,
                             struct gp_train_hw *hw);

/* Check a layout against model, job and GPU count (divisibility), and a
 * LoRA job's fields (gp_train_lora_check).  Returns 0 or GP_EINVAL with
 * the reason in 'err'.
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

/* Fill 'out' with the memory per GPU of the most loaded pipeline stage,
 * bytes, and whether it fits hw->mem_bytes.  The layout must pass
 * gp_train_check.
 */
void gp_train_memory (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_train_hw *hw,
                      const struct gp_layout *l,
                      struct gp_train_mem *out);

/* Fill 'out' with the step time (s) by term and the derived rates
 * (tokens/s, FLOP/s per GPU, MFU, HFU).  The layout must pass
 * gp_train_check.  Pure arithmetic, no allocation.
 */
void gp_train_time (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw,
                    const struct gp_layout *l,
                    struct gp_train_time *out);

/* gp_train_check, then memory and time into 'out'.  Returns 0, or
 * gp_train_check's GP_EINVAL with the reason in 'err' ('out' untouched).
 */
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

/* Fill 'out' from 'in': job MTBF (s), checkpoint write time (s), the
 * Young/Daly interval (Daly 2006, eq. 37), the lost fraction and
 * goodput, and the storage bandwidth (byte/s) that keeps checkpointing
 * within in->target_overhead (0 = 5 %).  Rates <= 0 take
 * GP_FAIL_PER_GPU_HOUR_DEFAULT.
 */
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
    int recompute_layers; /* layout recompute_layers when recompute is
                           * full; -1 = free: with recompute free too the
                           * search picks the fewest that fit, with
                           * recompute fixed full every layer
                           * (gp_search_fix_free sets -1) */
};

/* Set every field of 'f' free (-1; max_tp 0 = the scale-up domain). */
void gp_search_fix_free (struct gp_search_fix *f);

struct gp_search_stats {
    double evaluated;           /* layouts fully evaluated */
    double rejected_div;
    double rejected_oom;
    struct gp_train_result best_oom; /* the fastest layout that did not fit */
    int have_oom;
};

/* Enumerate every layout of 'n_gpus' allowed by 'fix' and keep the
 * 'k' fastest that fit in 'top' ('k' entries, sorted, fastest first).
 * Returns the number kept (0 = nothing fits; see 'st', which may be
 * NULL).
 */
size_t gp_search_layouts (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          int n_gpus,
                          const struct gp_search_fix *fix,
                          struct gp_train_result *top,
                          size_t k,
                          struct gp_search_stats *st);

/* The global batch range of a model (sequences of 'seq_len' tokens,
 * docs/model/training.md, Batch): the largest is
 * train.batch_max_ref_tokens x (total params / train.batch_max_ref_params)
 * ^ train.batch_max_exponent tokens, rounded down to a power of two and
 * converted by gp_train_batch_sequences; the smallest is the largest /
 * train.batch_range (at least 1).  'd' NULL = the registry's values.
 * Writes *min_seq and *max_seq; no errors.
 */
void gp_train_batch_range (const struct gp_train_model *m, double seq_len,
                           const struct gp_defaults *d, double *min_seq,
                           double *max_seq);

/* gp_search_layouts at 'n_gpus' for every power-of-two global batch of
 * gp_train_batch_range (job->defaults) when job->batch_free, else for
 * job->global_batch only.  Keeps the batch with the highest tokens/s (the
 * smaller on a tie) and its 'k' fastest layouts in 'top' (at most
 * GP_TRAIN_TOP_MAX when the batch is free); *batch (may be
 * NULL) receives it in sequences.  Returns the number kept (0: nothing
 * fits at any batch).  'st' may be NULL.
 */
size_t gp_train_search_batch (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw,
                              int n_gpus,
                              const struct gp_search_fix *fix,
                              struct gp_train_result *top,
                              size_t k,
                              struct gp_search_stats *st,
                              double *batch);

/* One GPU count the deadline sizing tried (its fastest batch and layout). */
struct gp_train_curve_pt {
    int gpus;
    double global_batch;        /* sequences */
    double rate;                /* tokens/s x goodput */
    double days;                /* tokens / rate, days */
    double mfu;
    struct gp_layout layout;
    int slower_than;            /* 0: on the curve; else skipped, not
                                   faster than this smaller count */
};

#define GP_TRAIN_CURVE_MAX 160

/* The answer of the deadline sizing. */
struct gp_train_size {
    int n_gpus;                 /* the answer; 0 = no size meets the date */
    int best_n;                 /* the size with the highest goodput rate */
    double best_rate;           /* its tokens/s x goodput */
    struct gp_reliability rel;  /* at n_gpus */
    double global_batch;        /* sequences, at n_gpus (the job's when
                                   the batch is fixed) */
    size_t n_curve;             /* counts tried, ascending; 0 when the job
                                   has no tokens */
    struct gp_train_curve_pt curve[GP_TRAIN_CURVE_MAX];
};

/* Inverse sizing: the fewest whole nodes whose fastest fitting layout
 * (and batch, when job->batch_free: gp_train_search_batch) trains
 * job->tokens within 'days' (throughput x goodput of
 * gp_train_reliability).  Sizes of 1, 1.25, 1.5, 1.75 x 2^j nodes are
 * tried up to 'max_gpus'; once one meets the date, every node count
 * between it and the previous candidate is tried, smallest first.  The
 * ladder goes on past the answer (at least 4 sizes and to twice it) for
 * res->curve, where a count not faster than a smaller one is marked
 * skipped (slower_than), so the counts left are monotone: more GPUs,
 * fewer days.  The answer is the fewest GPUs on the curve that meet the
 * date.
 * Returns the number of layouts in 'top' (at most 'k'; 0: no size meets
 * the date, see res->best_n and res->best_rate).  Same as
 * gp_train_size_deadline with the training model's reliability defaults.
 */
size_t gp_search_size (const struct gp_train_model *m,
                       const struct gp_train_job *job,
                       const struct gp_train_hw *hw,
                       const struct gp_search_fix *fix,
                       double days,
                       int max_gpus,
                       struct gp_train_result *top,
                       size_t k,
                       struct gp_train_size *res);

/* Reliability inputs of the deadline sizing that a caller may replace
 * (the plan passes its assumptions).  Start from
 * gp_train_rel_params_init(): a field < 0 takes the training model's
 * default (gp_train_reliability); 0 is a value (no restart cost, an
 * instant checkpoint).
 */
struct gp_train_rel_params {
    double fail_per_gpu_hour;   /* 1/GPU-hour; <= 0: the registry's
                                   reliability.fail_per_gpu_hour */
    double restart_s;           /* detect + restart + reload, s; < 0: the
                                   registry's reliability.restart_s */
    double ckpt_write_s;        /* one checkpoint write, s; < 0: checkpoint
                                   bytes / (storage_bw_per_node x nodes) */
    double storage_bw_per_node; /* byte/s per node; <= 0: the registry's
                                   train.ckpt_write_bw_per_node */
};

/* Every field -1: the training model's defaults. */
void gp_train_rel_params_init (struct gp_train_rel_params *rp);

/* gp_train_reliability with 'rp' replacing its defaults (NULL = none):
 * fills 'out' for a job on 'n_gpus' GPUs, 'gpus_per_node' per node (<= 0
 * = 8).  Pure arithmetic.
 */
void gp_train_reliability_with (const struct gp_train_model *m,
                                const struct gp_train_job *job,
                                double n_gpus,
                                int gpus_per_node,
                                const struct gp_train_rel_params *rp,
                                struct gp_reliability *out);

/* Deadline sizing, the one used by `train --days` and by the plan: as
 * gp_search_size, with the reliability model's inputs from 'rp' (NULL =
 * the training model's defaults).  Returns the number of layouts written
 * to 'top' (at most 'k'); 0 when no size up to 'max_gpus' meets the date
 * (res->best_n, res->best_rate then describe the fastest size seen, or
 * are 0 when nothing fits at any size).
 */
size_t gp_train_size_deadline (const struct gp_train_model *m,
                               const struct gp_train_job *job,
                               const struct gp_train_hw *hw,
                               const struct gp_search_fix *fix,
                               const struct gp_train_rel_params *rp,
                               double days,
                               int max_gpus,
                               struct gp_train_result *top,
                               size_t k,
                               struct gp_train_size *res);

/* Largest GPU count the deadline sizing tries. */
#define GP_TRAIN_MAX_GPUS 262144

/* The global batch in sequences for a batch of 'batch_tokens' tokens
 * (<= 0: the registry's GP_DEF_TRAIN_BATCH_TOKENS) of 'seq_len'-token
 * sequences: the nearest power of two of batch_tokens / seq_len (so that
 * DP degrees and micro-batches divide it), at least 1.  seq_len must be
 * > 0.
 */
double gp_train_batch_sequences (double batch_tokens, double seq_len);

/* Short names of the enums ("none", "zero1", ...; "?" when out of
 * range).  Static strings.
 */
const char *gp_sharding_str (enum gp_sharding s);
const char *gp_recompute_str (enum gp_recompute r);

/* The recomputation of layout 'l' for a layout string: the name of
 * l->recompute, or "full:N/C" for partial (block) recomputation of N of
 * the C layers of each (virtual) pipeline chunk of a model of 'layers'
 * layers ("full:N" when 'layers' is 0, unknown).  Writes at most 'n' bytes (NUL-terminated) into 'buf' and
 * returns 'buf'.  No errors.
 */
char *gp_recompute_fmt (const struct gp_layout *l, int layers, char *buf,
                        size_t n);

/* Layers per (virtual) pipeline chunk of layout 'l' for a model of
 * 'layers' layers: ceil(layers / pp) / vpp, at least 1.  No errors.
 */
int gp_train_chunk_layers (const struct gp_layout *l, int layers);

/* Fraction of each stage's layers that are fully recomputed: 0 without
 * full recomputation, recompute_layers / chunk layers (exactly 1 when
 * recompute_layers is 0 or covers the chunk).  No errors.
 */
double gp_train_recomp_frac (const struct gp_layout *l, int layers);
const char *gp_precision_str (enum gp_precision p);

/* ------------------------- LoRA fine-tuning ---------------------------
 * train_lora.c; docs/model/training.md, "LoRA fine-tuning".
 */

/* Adapter parameters of the whole model for rank 'rank' on 'targets'
 * (enum gp_lora_targets): r * (d_in + d_out) per adapted linear layer,
 * summed over the layers.  Elements; 0 for a bad rank or targets.
 */
double gp_train_lora_params (const struct gp_train_model *m, int rank,
                             int targets);

/* Model FLOPs per token of a LoRA job: 4N (forward + activation
 * gradients of the frozen weights) + 6 x adapter parameters + the
 * attention core (forward and backward), the FLOPs actually executed
 * without recomputation.  'job' must have finetune GP_FT_LORA.
 */
double gp_train_lora_flops_per_token (const struct gp_train_model *m,
                                      const struct gp_train_job *job,
                                      double seq_len);

/* Check the fine-tuning fields of 'job' against 'm': rank >= 1, known
 * targets, base bytes 1 or 2; LoRA on MoE, MLA or hybrid Mamba models
 * is GP_EINVAL "not yet supported" naming the field.  Returns 0 (also
 * for full training).
 */
int gp_train_lora_check (const struct gp_train_model *m,
                         const struct gp_train_job *job, gp_error_t *err);

/* Names: "full"/"lora"; "attention"/"mlp"/"all-linear" ("?" when out of
 * range; static).  Parse: the enum value, or -1 when unknown.
 */
const char *gp_finetune_str (int f);
const char *gp_lora_targets_str (int t);
int gp_lora_targets_parse (const char *s);

/* One row of data/catalog/precisions.csv (docs/model/training.md,
 * "Precision"): the mechanism terms of a training precision on a GPU
 * generation.  Static data; strings are static.
 */
struct gp_train_prec {
    const char *precision;   /* gp_precision_str name */
    const char *generation;  /* generations.csv id */
    const char *peak;        /* peak column: "bf16", "fp8" or "fp4" */
    double cast_bytes;       /* bytes/element to quantize an activation */
    double saved_act_bytes;  /* bytes/element a GEMM input keeps */
    double gemm_eff;         /* GEMM efficiency / the generation's */
    const char *source;
};

/* The row for precision 'p' on generation 'generation' (an id such as
 * "hopper"), or NULL when the catalog has none: the precision is not
 * supported there (BF16/FP16 and plain FP8 need no row).
 * gp_train_prec_rows returns the whole table and its size in '*n_out'.
 */
const struct gp_train_prec *gp_train_prec_for (enum gp_precision p,
                                               const char *generation);
const struct gp_train_prec *gp_train_prec_rows (size_t *n_out);

/* The precision that 'p' means on accelerator 'a': GP_PREC_FP4 (the
 * alias "fp4") becomes the 4-bit recipe of the accelerator's vendor
 * (NVIDIA: GP_PREC_NVFP4, AMD: GP_PREC_MXFP4) and stays GP_PREC_FP4 for
 * any other vendor or a NULL 'a'; every other precision is returned
 * unchanged.  Whether the result is supported on 'a' is
 * gp_train_prec_for on its generation (NULL: not supported).  The one
 * place the alias is resolved (src/lib/model/train_prec.c).
 */
enum gp_precision gp_train_prec_resolve (enum gp_precision p,
                                         const struct gp_accel *a);

/* One row of data/catalog/host_links.csv: the link between an
 * accelerator and its host memory, used for CPU activation offload.
 */
struct gp_host_link {
    const char *accel_id;
    const char *link;        /* "PCIe Gen5 x16", "NVLink-C2C" */
    double bw_gbs;           /* GB/s per direction per GPU, peak */
    double host_mem_gb;      /* host memory per GPU, GB */
    const char *source;
};
/* The row of accelerator 'accel_id', or NULL (no offload modelled). */
const struct gp_host_link *gp_host_link_for (const char *accel_id);
const struct gp_host_link *gp_host_link_rows (size_t *n_out);

/* Parse a precision name ("bf16", "fp16", "fp8", "mxfp8", "nvfp4",
 * "fp8-delayed", "fp4", "mxfp4", "int8"; "fp8-cs" is "fp8"); -1 when
 * unknown.
 */
int gp_precision_parse (const char *s);
const char *gp_schedule_str (enum gp_schedule s);

/* ---------------------- the training plan (one call) ---------------------
 * `gpuplan train` as a library call: resolve the model, build the job,
 * and for each accelerator size the cluster (fixed count or deadline),
 * search the layouts, explain the neighbours, and price the GPU-hours.
 */

#define GP_TRAIN_TOP_MAX 10    /* layouts kept per accelerator */
#define GP_TRAIN_ALT_MAX 16    /* neighbouring layouts explained */
#define GP_TRAIN_ACCEL_MAX 16  /* accelerators per request */

/* Sharding search restriction (--framework). */
enum gp_train_framework {
    GP_FW_ANY = -1,
    GP_FW_MEGATRON = 0, /* 3D parallel: no or distributed optimizer */
    GP_FW_FSDP = 1,     /* fully sharded data parallel, no pipeline */
};

/* Explicit model dimensions; 0 keeps the zoo's value (mlp: -1). */
struct gp_train_dims {
    int layers, hidden, ffn_hidden, heads, kv_heads, vocab;
    int mlp;                    /* enum gp_mlp, or -1 */
    int moe_experts, moe_topk, moe_ffn_hidden;
};

/* What to plan.  Initialise with gp_train_request_init(); every field is
 * optional unless said.  Strings are borrowed for the call.
 */
struct gp_train_request {
    const char *model;          /* zoo id; NULL/"" = "custom" from dims */
    const struct gp_zoo *zoo;   /* NULL = the embedded zoo */
    struct gp_train_dims dims;
    const char *accels;         /* comma-separated accelerator ids;
                                   NULL/"" = "H100-SXM" */
    const char *instance;       /* a cloud instance: its accelerator, GPUs
                                   per node and NIC bandwidth */
    int gpus;                   /* fixed GPU count, or 0 */
    double days;                /* deadline in days, or 0 (one of the two
                                   is required; days needs tokens) */
    double tokens;              /* training tokens, 0 = unknown */
    double seq_len;             /* tokens; 0 = 4,096 */
    double global_batch;        /* sequences; 0 = from batch_tokens */
    double batch_tokens;        /* 0 = GP_DEF_TRAIN_BATCH_TOKENS of
                                   'defaults' */
    int precision;              /* enum gp_precision, or -1 = bf16 */
    int optimizer_states;       /* 0 fp32, 1 bf16 Adam moments, -1 = 0 */
    int framework;              /* enum gp_train_framework */
    int pp_schedule;            /* enum gp_schedule, or -1 = 1F1B */
    int attn_kernel;            /* enum gp_attn_kernel, or -1 = auto */
    int top;                    /* layouts listed, 1..10; 0 = 3 */
    int gpus_per_node;          /* 0 = the accelerator's or instance's */
    int scale_up_domain;        /* 0 = the catalog's */
    double nic_bw;              /* scale-out byte/s per GPU; 0 = default */
    double nic_latency;         /* s per hop; 0 = default */
    double oversubscription;    /* >= 1; 0 = 1 */
    int sharp;                  /* in-network reduction (NVLS, IB SHARP)
                                   where the hardware has it: -1 or 1 =
                                   on (NCCL's default), 0 = off */
    const char *ib_switch;      /* catalog part id of the InfiniBand
                                   fabric's switch: its SHARP rows
                                   (sharp_algbw_share) enable IB SHARP;
                                   NULL = fabric unknown, no IB SHARP */
    const struct gp_train_rel_params *rel; /* NULL = training defaults */
    const struct gp_defaults *defaults;    /* values in force for the
                                              registry's keys (batch,
                                              reliability);
                                              NULL = the registry's */
    int tp_comm_overlap;        /* 1: TP collectives pipelined with the
                                   GEMMs (gp_train_job.tp_comm_overlap);
                                   -1 or 0 = exposed (the default) */    /* Fine-tuning (docs/model/training.md, "LoRA fine-tuning"):
     * finetune enum gp_finetune, -1 = full; lora_rank 0 = 16 (only with
     * lora); lora_targets enum gp_lora_targets, -1 = attention;
     * base_precision the frozen weights' storage, GP_PREC_BF16 or
     * GP_PREC_FP8, -1 = bf16.
     */
    int finetune, lora_rank, lora_targets, base_precision;
};

/* Fill 'rq' with "nothing given": zeros, NULLs and -1 for the enums. */
void gp_train_request_init (struct gp_train_request *rq);

/* Which neighbour of the chosen layout (one change from it). */
enum gp_train_change {
    GP_CHG_TP_X2,
    GP_CHG_TP_HALF,
    GP_CHG_PP_X2,
    GP_CHG_PP_X2_NO_VPP,        /* pp x2 and interleaving dropped */
    GP_CHG_PP_HALF,
    GP_CHG_MB_X2,
    GP_CHG_RECOMPUTE_NONE,
    GP_CHG_RECOMPUTE_SELECTIVE,
    GP_CHG_RECOMPUTE_FULL,
    GP_CHG_SHARD_NONE,
    GP_CHG_SHARD_ZERO1,
    GP_CHG_SHARD_ZERO2,
    GP_CHG_SHARD_ZERO3,
};

/* Why a neighbour lost. */
enum gp_train_verdict {
    GP_VERDICT_INVALID,         /* fails gp_train_check ('invalid') */
    GP_VERDICT_OOM,             /* does not fit in memory */
    GP_VERDICT_AS_FAST,         /* not slower (ties lose to search order) */
    GP_VERDICT_SLOWER,          /* slower; 'term' grew the most */
};

/* Step-time terms, for the verdict's largest growing term. */
enum gp_train_term {
    GP_TERM_BUBBLE,
    GP_TERM_TP,
    GP_TERM_DP,
    GP_TERM_GEMM,               /* recompute and GEMM efficiency */
    GP_TERM_MEMORY_BOUND,
    GP_TERM_ATTENTION,
    GP_TERM_P2P,
    GP_TERM_OPTIMIZER,
    GP_TERM_EP_CP,              /* expert/context communication */
};

struct gp_train_neighbour {
    enum gp_train_change change;
    struct gp_layout layout;
    enum gp_train_verdict verdict;
    char invalid[200];          /* GP_VERDICT_INVALID: the check's reason */
    double mem_bytes;           /* OOM: needed per GPU */
    double capacity_bytes;      /* OOM: HBM per GPU */
    double slowdown;            /* step / chosen step - 1 */
    enum gp_train_term term;    /* SLOWER: the term that grew most */
    double term_delta_s;        /* its growth, s per step */
};

/* Why an accelerator has no plan. */
enum gp_train_infeasible {
    GP_TRAIN_FEASIBLE,
    GP_TRAIN_OOM_AT_COUNT,      /* fixed count: closest layout needs
                                   oom_bytes of capacity_bytes */
    GP_TRAIN_NO_LAYOUT_AT_COUNT,/* fixed count: nothing divides */
    GP_TRAIN_BATCH_CAPS,        /* deadline: best_n GPUs at best_rate is
                                   the fastest, too slow */
    GP_TRAIN_NO_FIT_ANY_SIZE,   /* deadline: nothing fits up to
                                   GP_TRAIN_MAX_GPUS */
};

/* The plan for one accelerator. */
struct gp_train_accel_plan {
    const struct gp_accel *accel;  /* borrowed from the catalog */
    struct gp_train_hw hw;
    int gpus_per_node;
    int feasible;
    enum gp_train_infeasible why;
    double oom_bytes, capacity_bytes;   /* GP_TRAIN_OOM_AT_COUNT */
    int best_n;                 /* GP_TRAIN_BATCH_CAPS */
    double best_rate;           /* tokens/s x goodput at best_n */
    int n_gpus, nodes;
    size_t n_top;
    struct gp_train_result top[GP_TRAIN_TOP_MAX]; /* fastest first */
    struct gp_reliability rel;  /* at n_gpus */
    double days, gpu_hours, energy_kwh; /* 0 = unknown (no tokens/TDP) */
    double interruptions;       /* expected over the run; 0 = unknown */
    double lost_gpu_hours;      /* gpu_hours x reliability overhead */
    int batch_limited;          /* bubble > 30 % of the step */
    struct gp_gpu_price price;  /* on-demand, gp_price_gpu_hour; inst NULL
                                   when the catalog prices none */
    double on_demand_usd;       /* gpu_hours x price; 0 = unknown */
    size_t n_alt;
    struct gp_train_neighbour alt[GP_TRAIN_ALT_MAX];
    double global_batch;        /* sequences, the batch of top[] */
    int batch_free;             /* the planner chose it */
    size_t n_curve;             /* deadline: the sizes tried (ascending) */
    struct gp_train_curve_pt curve[GP_TRAIN_CURVE_MAX];
    int batch_inefficient;      /* the user's batch: the free batch reaches
                                   an MFU over train.batch_warn_mfu_loss
                                   higher (free_* below) */
    int free_n_gpus;            /* the free batch's answer: GPUs, */
    double free_mfu;            /* MFU and batch (sequences); 0 = not */
    double free_global_batch;   /* computed (the batch was free) */
    /* In-network reduction on top[0]: innet_nvls / innet_sharp 1 when
     * the hardware has NVLS / IB SHARP and the request allows it;
     * step_s_without: top[0]'s step time with both off (the same layout);
     * equal to its step time when neither helps this layout.
     */
    int innet_nvls, innet_sharp;
    double step_s_without;
};

/* The result of gp_train_plan (caller-owned). */
struct gp_train_plan_result {
    struct gp_arch arch;        /* resolved; arch.source borrowed from the
                                   zoo (NULL after the call when the
                                   embedded zoo was loaded by it) */
    struct gp_train_model model;
    struct gp_train_job job;
    double target_days;         /* the request's deadline, 0 = none */
    int fixed_gpus;             /* the request's count, 0 = deadline */
    size_t n_accels;
    struct gp_train_accel_plan *accels;
    int any_feasible;
    int sharp_off;              /* the request turned in-network
                                   reduction off */
    char ib_switch[32];         /* the request's InfiniBand switch part,
                                   "" = fabric not given */
    int default_days;           /* 1: the request gave tokens but neither
                                   gpus nor days; target_days is the
                                   default deadline train.default_days
                                   (docs/model/defaults.md) */
};

/* Plan 'rq' against 'cat'.  On success returns 0 and stores in '*out' a
 * result the caller frees with gp_train_plan_result_destroy(); a result
 * with no feasible accelerator (any_feasible 0) is still a success.
 * The result borrows accelerator and instance rows from 'cat' (and the
 * zoo's strings from rq->zoo): keep them alive while it is used.
 * A request with tokens but neither gpus nor days is sized for the
 * default deadline (train.default_days of rq->defaults; default_days 1).
 * Errors (nothing stored): GP_EINVAL for a missing model, count/deadline
 * (and no tokens), both a count and a deadline, or tokens, bad
 * dimensions or an accelerator without peak FLOP/s or memory;
 * GP_ENOTFOUND for an unknown model, accelerator or instance (the
 * message names the closest ids); GP_ENOMEM.
 */
int gp_train_plan (const struct gp_catalog *cat,
                   const struct gp_train_request *rq,
                   struct gp_train_plan_result **out,
                   gp_error_t *err);

/* Free 'r' (NULL is fine). */
void gp_train_plan_result_destroy (struct gp_train_plan_result *r);

/* The architecture 'rq' names: its zoo entry with the explicit dims
 * applied and the derived fields (heads, kv heads, head dim, attention
 * type) completed.  Returns 0, GP_EINVAL (no model) or GP_ENOTFOUND
 * (unknown id, closest ids in 'err').
 */
int gp_train_resolve_arch (const struct gp_train_request *rq,
                           struct gp_arch *out, gp_error_t *err);

/* Check the explicit dims of 'rq' against the architecture they apply to:
 * explicit heads must divide the hidden size (the head dimension becomes
 * hidden / heads) and explicit kv_heads must divide the heads.  Returns 0
 * (also when the model cannot be resolved: gp_train_plan reports that),
 * or GP_EINVAL naming the fields and their values.
 */
int gp_train_dims_check (const struct gp_train_request *rq, gp_error_t *err);

/* Text of a neighbour's verdict ("out of memory: needs ...") and of an
 * accelerator's infeasibility reason, into 'buf' of 'n' bytes.  Returns
 * 'buf'.
 */
const char *gp_train_verdict_text (const struct gp_train_neighbour *nb,
                                   char *buf, size_t n);
const char *gp_train_reason_text (const struct gp_train_plan_result *r,
                                  const struct gp_train_accel_plan *p,
                                  char *buf, size_t n);

/* Label of a neighbour's change ("tp x2", "zero1", ...); static. */
const char *gp_train_change_str (enum gp_train_change c);

/* One layout as text ("tp8 pp4 dp16 cp1 ep1 vpp1 mb1 sp none zero1"). */
void gp_train_layout_text (const struct gp_layout *l, char *buf, size_t n);

struct json_t;

/* The JSON document of `gpuplan train --json` (docs/formats/train.md).
 * Returns a new reference the caller owns (json_decref), NULL on ENOMEM.
 */
struct json_t *gp_report_train_json (const struct gp_train_plan_result *r);

/* The text report of `gpuplan train`.  Returns a malloc'd string the
 * caller frees, NULL on ENOMEM.
 */
char *gp_report_train_text (const struct gp_train_plan_result *r);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_TRAIN_H */
