/* gpuplan/infer.h - the inference (serving) planner: KV-cache memory,
 * prefill/decode roofline step times, a continuous-batching engine
 * simulator, and SLO-driven replica sizing.
 *
 * The model is documented formula by formula, with sources, in
 * docs/model/inference.md.  Everything here is pure and deterministic: the
 * simulator draws from its own seeded generator and never reads a clock.
 *
 * Layers of the API, bottom up:
 *   1. gp_infer_prepare()     one replica (model x accelerator x layout x
 *                             precision x engine) -> memory budget, KV
 *                             capacity, per-step constants
 *   2. gp_infer_iter_time()   time of one engine iteration for a given
 *                             load (decode sequences + prefill tokens)
 *   3. gp_infer_simulate()    discrete-event continuous-batching engine:
 *                             offline, closed-loop, fixed batch or Poisson
 *   4. gp_infer_size()        replicas that meet the SLOs at a rate
 */
#ifndef GPUPLAN_INFER_H
#define GPUPLAN_INFER_H

#include <stddef.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/defaults.h"
#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================ precisions ================================ */

enum gp_dtype {
    GP_DT_FP32,
    GP_DT_BF16,
    GP_DT_FP16,
    GP_DT_FP8,  /* E4M3, per-tensor/per-channel scales */
    GP_DT_INT8, /* W8A8 (SmoothQuant-style) */
    GP_DT_INT4, /* weight-only, group-128 scales (AWQ/GPTQ) */
    GP_DT_FP4,  /* NVFP4: 4-bit E2M1 + one FP8 scale per 16 elements */
};

/* Storage bytes per element including block scales: fp32 4, bf16/fp16 2,
 * fp8/int8 1, int4 0.5 + 2/128 (one fp16 scale per 128), fp4 0.5 + 1/16.
 */
double gp_dtype_bytes (enum gp_dtype d);
const char *gp_dtype_str (enum gp_dtype d);
/* Parse "bf16", "fp16", "fp8", "int8", "int4", "fp4" (also "nvfp4",
 * "mxfp4", "fp32").  Returns 0 or GP_EINVAL listing the choices.
 */
int gp_dtype_parse (const char *s, enum gp_dtype *out, gp_error_t *err);

/* The default KV-cache dtype for weights in 'weight' on 'a' (may be NULL:
 * no FP8), from the registry row infer.kv_dtype in 'd' (the registry's
 * value when NULL): "auto" gives FP8 for FP8/FP4 weights on an accelerator
 * with FP8 tensor cores, else BF16; a dtype name forces that dtype.
 * Returns 0 with '*out' set, or GP_EINVAL for an unknown dtype name.
 */
int gp_kv_dtype_default (const struct gp_defaults *d, enum gp_dtype weight,
                         const struct gp_accel *a, enum gp_dtype *out,
                         gp_error_t *err);

/* ============================== engines ================================= */

enum gp_engine {
    GP_ENGINE_TRTLLM, /* TensorRT-LLM (also NVIDIA NIM's default backend) */
    GP_ENGINE_VLLM,
    GP_ENGINE_SGLANG,
    GP_ENGINE_FT,     /* FasterTransformer: static batches, no paging */
};

const char *gp_engine_str (enum gp_engine e);
/* Accepts trtllm/tensorrt-llm/nim, vllm, sglang, fastertransformer/ft. */
int gp_engine_parse (const char *s, enum gp_engine *out, gp_error_t *err);

/* Scheduler and runtime constants of an engine (docs/model/inference.md,
 * "Engines").  Defaults come from gp_engine_defaults(); callers may edit.
 */
struct gp_engine_params {
    enum gp_engine engine;
    int max_batch;          /* max sequences in flight per replica */
    int max_num_tokens;     /* token budget of one iteration (chunk size) */
    int reserve_full;       /* 1: admit only with KV for prompt + output
                             * (TRT-LLM GUARANTEED_NO_EVICT); 0: allocate
                             * pages as tokens arrive and preempt (vLLM) */
    int chunked_prefill;    /* 1: prefill shares iterations with decode */
    double mem_fraction;    /* share of device memory the engine may use */
    double iter_overhead_s; /* fixed CPU/launch cost per iteration */
    double seq_overhead_s;  /* per sequence in the batch per iteration */
};

void gp_engine_defaults (enum gp_engine e, struct gp_engine_params *p);

/* ==================== hardware efficiency factors ======================= */

/* Achieved fractions of the catalog peaks, per accelerator generation
 * (docs/model/inference.md, "Calibration").  These are the only fitted
 * constants of the model.
 */
struct gp_hw_eff {
    const char *generation; /* "hopper", "ampere", "blackwell", "cdna3"... */
    double hbm_eff;         /* achieved / peak memory bandwidth (decode) */
    double gemm_eff;        /* achieved / dense peak, large GEMMs */
    double attn_eff;        /* achieved / bf16 peak, attention kernels */
    double link_eff;        /* achieved / per-direction scale-up bandwidth */
    double allreduce_lat_s; /* latency of one small all-reduce */
    double layer_lat_s;     /* fixed kernel time per layer per iteration */
    double moe_eff;         /* expert (grouped-GEMM) weight streaming,
                             * relative to dense GEMMs */
    double moe_flop_eff;    /* expert GEMM FLOP efficiency relative to
                             * dense GEMMs */
};

/* The inference efficiency factors of 'a' from its catalog generation
 * (a->gen, generations.csv infer_* columns); ideal factors (1, zero
 * latencies, generation "none") when 'a' or a->gen is NULL.  Writes 'e'.
 */
void gp_hw_eff_for (const struct gp_accel *a, struct gp_hw_eff *e);

/* =========================== one replica =============================== */

struct gp_serve_cfg {
    const struct gp_arch *arch;
    const struct gp_accel *accel;
    double slice_mem_bytes;  /* MIG slice memory; 0 = whole device */
    int slice_compute;       /* MIG compute slices of 7; 0 = whole device */
    int tp, pp;
    int ep;                  /* MoE: expert-parallel ranks, dividing tp
                              * (each holds E/ep experts, split over tp/ep
                              * ranks); 0 = tp with attn_dp, else 1
                              * (experts tensor parallel) */
    int attn_dp;             /* MoE: attention data-parallel over tp ranks */
    double ep_skew;          /* routing skew of the busiest EP rank beyond
                              * sampling noise; 0 or 1 = uniform routing */
    double net_bw;           /* per-GPU scale-out byte/s per direction for
                              * groups wider than the scale-up domain;
                              * 0 = 50e9 (one 400 Gb/s NIC per GPU) */
    enum gp_dtype weight_dtype;
    enum gp_dtype kv_dtype;
    struct gp_engine_params eng;
    double prefix_hit;       /* share of prompt tokens found in the cache */
};

/* Derived constants of one replica, all per GPU unless named otherwise. */
struct gp_serve_model {
    struct gp_serve_cfg cfg;
    struct gp_param_count pc;
    struct gp_hw_eff eff;
    int n_gpus;                   /* tp * pp */
    double mem_bytes;             /* device (or slice) memory */
    double mem_bw;                /* byte/s (scaled for MIG slices) */
    double gemm_flops;            /* dense peak at the GEMM precision */
    double attn_flops;            /* dense peak used for attention */
    const char *gemm_precision;   /* "fp8", "bf16", ... */
    double link_bw;               /* per direction, byte/s */
    double net_bw;                /* scale-out per GPU per direction */
    double weight_bytes;          /* weights resident per GPU */
    double act_bytes;             /* activation workspace per GPU */
    double runtime_bytes;         /* CUDA context, graphs, allocator slack */
    double kv_bytes_avail;        /* per GPU, for the KV cache */
    double kv_bytes_per_token;    /* per GPU per replica token */
    double kv_capacity_tokens;    /* replica tokens the KV cache holds */
    double nonexpert_bytes;       /* weights read every step, per GPU */
    double expert_bytes_layer;    /* one routed expert of one layer, total */
};

/* Fill 'm' for 'cfg'.  Returns 0, GP_EINVAL for bad layouts (tp not
 * dividing heads, pp not dividing layers...), or GP_EINFEASIBLE when the
 * weights plus workspace leave no room for even one full-length sequence
 * (the message says how many bytes are missing).  'max_seq_tokens' is the
 * longest prompt+output the replica must hold (0 = skip that check).
 */
int gp_infer_prepare (const struct gp_serve_cfg *cfg,
                      double max_seq_tokens,
                      struct gp_serve_model *m,
                      gp_error_t *err);

/* Load of the busiest of 'ep' expert-parallel ranks relative to the mean
 * when 'slots' token-slots (tokens x topk) are routed uniformly over
 * 'experts' experts with routing skew 'skew' (>= 1): skew +
 * sqrt(2 ln(ep) (1 - 1/ep) / (slots/ep)), capped at ep*min(topk,
 * experts/ep)/topk; 1 for ep <= 1 (docs/model/inference.md).
 */
double gp_infer_ep_imbalance (double slots, int ep, int topk, int experts,
                              double skew);

/* The work of one engine iteration. */
struct gp_iter_load {
    double n_decode;        /* sequences producing one token */
    double decode_ctx;      /* sum of their context lengths (tokens) */
    double n_prefill;       /* prompt tokens processed this iteration */
    double prefill_ctx;     /* sum over those tokens of the context each
                             * attends to (causal: offset + position) */
    double n_logits;        /* sequences that need logits (decode + those
                             * finishing their prefill) */
};

struct gp_iter_time {
    double gemm_s, attn_s, comm_s, overhead_s, total_s;
    double weight_bytes, kv_bytes, flops; /* per GPU */
    int compute_bound;                    /* GEMMs above the roofline knee */
};

/* Time of one iteration of the replica under 'load'; 'out' may be NULL. */
double gp_infer_iter_time (const struct gp_serve_model *m,
                           const struct gp_iter_load *load,
                           struct gp_iter_time *out);

/* ============================ simulation ================================ */

enum gp_len_dist {
    GP_LEN_FIXED,
    GP_LEN_UNIFORM,     /* mean +- sqrt(3)*cv*mean */
    GP_LEN_EXPONENTIAL, /* geometric, mean as given (cv ignored) */
};

enum gp_arrivals {
    GP_ARR_OFFLINE,  /* all requests at t = 0 (max-throughput benchmarks) */
    GP_ARR_CLOSED,   /* 'concurrency' clients, each resubmits at once */
    GP_ARR_POISSON,  /* open loop, 'rate' requests/s */
    GP_ARR_BATCH,    /* one static batch of 'concurrency' requests */
};

struct gp_workload {
    enum gp_arrivals arrivals;
    int concurrency;
    double rate;                 /* requests/s for GP_ARR_POISSON */
    int n_requests;              /* 0 = choose */
    double in_len, out_len;      /* means, tokens */
    enum gp_len_dist in_dist, out_dist;
    double in_cv, out_cv;
    unsigned long long seed;
};

struct gp_sim_result {
    int n_done;
    double makespan_s;
    double out_tok_s;            /* output tokens/s over the window */
    double req_s;
    double ttft_mean_s, ttft_p50_s, ttft_p95_s, ttft_p99_s;
    double tpot_mean_s, tpot_p50_s, tpot_p95_s;
    double e2e_mean_s, e2e_p95_s;
    double queue_p95_s;          /* arrival -> admission */
    double mean_batch;           /* mean sequences per iteration */
    int max_batch_seen;
    double kv_peak_frac;         /* peak KV occupancy / capacity */
    int n_preempted;
    int kv_limited;              /* admission ever blocked by KV space */
    int unstable;                /* Poisson: queue grew without bound */
};

/* Run the engine on 'w'.  Returns 0, GP_EINFEASIBLE when a request can
 * never fit in the KV cache, GP_ENOMEM.
 */
int gp_infer_simulate (const struct gp_serve_model *m,
                       const struct gp_workload *w,
                       struct gp_sim_result *r,
                       gp_error_t *err);

/* ============================== sizing ================================== */

struct gp_slo {
    double ttft_p95_s, ttft_p99_s, tpot_p95_s, e2e_p95_s; /* 0 = none */
};

struct gp_size_result {
    int feasible;
    double rate_per_replica;     /* highest rate meeting every SLO */
    double max_rate_per_replica; /* saturation throughput in requests/s */
    int replicas;                /* at the peak rate, with headroom */
    int replicas_min;            /* at the trough rate (autoscaling floor) */
    struct gp_sim_result at_peak;/* one replica at peak/replicas */
    char limit[160];             /* which SLO or limit binds */
};

/* Find the largest per-replica Poisson rate meeting 'slo' (bisection over
 * simulations), then the replicas for 'peak_rate' / (1 - headroom) and for
 * 'trough_rate'.  'w' gives lengths and seed (its arrivals are ignored).
 * Returns 0 (r->feasible 0 with r->limit when even a lightly loaded
 * replica misses an SLO) or a negative gp_err.
 */
int gp_infer_size (const struct gp_serve_model *m,
                   const struct gp_workload *w,
                   const struct gp_slo *slo,
                   double peak_rate,
                   double trough_rate,
                   double headroom,
                   struct gp_size_result *r,
                   gp_error_t *err);


/* One serving option for a model on one accelerator (or MIG slice) and
 * precision: the layout chosen among tp in {1,2,4,8} (x pp when a node is
 * not enough; MoE models also ep in {1, tp}) and, for small models, the
 * catalog's MIG profiles.
 */
struct gp_infer_option {
    const struct gp_accel *accel;
    char slice[32];              /* MIG profile, "" = whole GPUs */
    int slices_per_gpu;          /* MIG instances of that profile per GPU */
    double gpu_share;            /* share of one GPU a slice costs */
    int tp, pp, gpus_per_replica;/* gpus_per_replica 0 for a slice */
    int ep;                      /* expert-parallel ranks (1 for dense) */
    enum gp_dtype weight_dtype, kv_dtype;
    int feasible;
    char reason[240];            /* why not, or the binding limit */
    struct gp_serve_model model;
    struct gp_size_result size;
    double gpus;                 /* GPUs at peak (fractional for slices) */
    int gpus_whole;              /* whole GPUs to provision */
};

/* Evaluate every layout of 'base' (its tp/pp/slice fields are ignored) and
 * keep the one that meets 'slo' with the fewest GPUs at the peak rate
 * (ties: lower TTFT p95).  'cat' supplies MIG profiles ('allow_mig').
 * Always returns 0 with best->feasible 0 and best->reason set when nothing
 * works; negative gp_err only for bad arguments or memory.
 */
int gp_infer_choose (const struct gp_serve_cfg *base,
                     const struct gp_catalog *cat,
                     int allow_mig,
                     const struct gp_workload *w,
                     const struct gp_slo *slo,
                     double peak_rate,
                     double trough_rate,
                     double headroom,
                     struct gp_infer_option *best,
                     gp_error_t *err);

/* ========================= fleet over a day ============================= */

/* Time-averaged cost of an autoscaled fleet over one day. */
struct gp_fleet {
    size_t n_periods;             /* the day split into equal periods */
    double hours_per_period;      /* 24 / n_periods */
    int replicas_min, replicas_max;
    double replica_hours_per_day;
    double gpu_hours_per_day;
    double output_tokens_per_day;
    double usd_per_day;           /* 0 when usd_per_gpu_hour is 0 */
    double usd_per_month;         /* usd_per_day * 365 / 12 */
    double usd_per_1m_output_tokens; /* usd_per_day / tokens per day */
};

/* The day is 'n' equal periods with mean request rates 'rates' (req/s).
 * Each period runs max(1, ceil(rate / ((1 - headroom) * rate_per_replica)))
 * replicas (the sizing's rule at the peak; 'replicas' receives them when
 * not NULL); a replica costs 'gpus_per_replica' GPUs (a MIG slice: its GPU
 * share) at 'usd_per_gpu_hour' (0 = unknown: costs stay 0).  Returns 0 or
 * GP_EINVAL for bad arguments (docs/model/inference.md, "Fleet cost").
 */
int gp_infer_fleet (double rate_per_replica, double headroom,
                    const double *rates, size_t n,
                    double gpus_per_replica, double usd_per_gpu_hour,
                    double output_tokens, int *replicas, struct gp_fleet *f,
                    gp_error_t *err);

/* ============================ validation ================================ */

/* One row of the inference validation schema, predicted. */
struct gp_infer_val_row {
    char id[96];
    int ok;                      /* 0 = unsupported (see 'reason') */
    char reason[200];
    char layout[96];
    double predicted, measured;  /* output tokens/s, whole system */
    double rel_err;
    double ttft_pred_s, ttft_meas_s, ttft_rel_err; /* meas 0 = absent */
    double tpot_pred_s, tpot_meas_s, tpot_rel_err;
};

struct gp_infer_val {
    struct gp_infer_val_row *rows;
    size_t n_rows;
};

/* Read a validation CSV (schema in docs/formats/infer.md) and predict every
 * row from its own inputs, the catalog and (for rows naming one) the zoo.
 * Rows the model cannot handle are kept with ok = 0 and a reason.
 * Returns 0 or a negative gp_err ("file:line: column 'x': ...").
 * The caller frees with gp_infer_val_free().
 */
int gp_infer_validate (const char *path,
                       const struct gp_catalog *cat,
                       const struct gp_zoo *zoo,
                       struct gp_infer_val *out,
                       gp_error_t *err);
void gp_infer_val_free (struct gp_infer_val *v);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_INFER_H */
