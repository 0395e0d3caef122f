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
#include "gpuplan/price.h"

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
/* Name of 'd' ("bf16", "fp8", ...); a static string, never NULL. */
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
    GP_ENGINE_NIM,    /* NVIDIA NIM for LLMs (its TensorRT-LLM backend) */
};

/* Name of 'e' ("trtllm", "vllm", ...); a static string, never NULL. */
const char *gp_engine_str (enum gp_engine e);
/* Parse an engine name into '*out'.  Returns 0, or GP_EINVAL listing the
 * choices.  Accepts trtllm/tensorrt-llm, nim, vllm, sglang, fastertransformer/ft. */
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
    int host_overlap;       /* 1: the host work of an iteration (the two
                             * overheads above) runs while the GPU computes
                             * the previous one (SGLang's overlap
                             * scheduler): an iteration takes the larger of
                             * the two instead of their sum */
    int graph_pad;          /* 1: a decode-only iteration runs the CUDA
                             * graph of the next captured batch size
                             * (gp__infer_graph_batch), its GEMMs and
                             * collectives at that many tokens (TensorRT-LLM
                             * PyTorch backend, cuda_graph_config
                             * enable_padding); 0: at its own size */
};

/* Fill '*p' with the scheduler and runtime constants of engine 'e'
 * (docs/model/inference.md, "Engines").  Never fails.
 */
void gp_engine_defaults (enum gp_engine e, struct gp_engine_params *p);

/* Engine efficiency per vendor software stack (docs/model/inference.md,
 * "Engines and vendor stacks"; data/catalog/engines.csv, compiled into the
 * library and checked against the CSV by tests/unit/test_infer_engines.c).
 * The kernel factors multiply the generation's efficiency factors
 * (gp_hw_eff); the overheads are added to the engine's per-iteration and
 * per-sequence constants.  A stack without a row is neutral (1, 0).
 */
struct gp_engine_stack {
    const char *engine;       /* gp_engine_str() name */
    const char *stack;        /* "cuda" (NVIDIA parts) or "rocm" (AMD) */
    double gemm_mult;         /* x gp_hw_eff.gemm_eff (and expert GEMMs) */
    double attn_mult;         /* x gp_hw_eff.attn_eff */
    double hbm_mult;          /* x gp_hw_eff.hbm_eff */
    double iter_extra_s;      /* + iter_overhead_s */
    double seq_extra_s;       /* + seq_overhead_s */
    const char *source;       /* where the values come from */
    double frontend_s;        /* per-request latency of the engine's online
                               * front end (HTTP, request set-up, IPC to
                               * the engine, first streamed chunk) before
                               * and after the engine's own TTFT, seconds;
                               * 0: not measured (docs/model/inference.md,
                               * "Host work and front end") */
    int host_overlap;         /* 1: the engine's current version runs its
                               * host work while the GPU computes (vLLM
                               * >= 0.14 async scheduling); set on the
                               * prepared model (gp_infer_prepare) */
};

/* Software stack of accelerator 'a': "rocm" when its vendor is AMD, else
 * "cuda" (also for NULL).  Static string, never NULL.
 */
const char *gp_engine_stack_name (const struct gp_accel *a);

/* The row of engine 'e' on the stack of 'a' (never NULL: a neutral row
 * when the table has none).  Static storage.
 */
const struct gp_engine_stack *gp_engine_stack_for (enum gp_engine e,
                                                   const struct gp_accel *a);

/* Number of rows of the built-in table and row 'i' (< count), for the
 * catalog listing and the test that compares them with engines.csv.
 */
size_t gp_engine_stack_count (void);
const struct gp_engine_stack *gp_engine_stack_row (size_t i);

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
                             * attends to (causal: offset + position;
                             * chunked local attention: averaged over
                             * the layers, gp_arch.attn_chunk_size) */
    double n_logits;        /* sequences that need logits (decode + those
                             * finishing their prefill) */
};

struct gp_iter_time {
    double gemm_s, attn_s, comm_s, overhead_s, total_s;
    double weight_bytes, kv_bytes, flops; /* per GPU */
    int compute_bound;                    /* GEMMs above the roofline knee */
};

/* Time of one iteration of the replica under 'load', in seconds; 'out'
 * (may be NULL) receives the parts of that time and the bytes and FLOPs
 * per GPU.  Pure; never fails.
 */
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
    /* further nearest-rank percentiles (validate's rate mode) */
    double ttft_p90_s, tpot_p90_s, tpot_p99_s, e2e_p90_s, e2e_p99_s;
};

/* Run the engine of replica 'm' on workload 'w' and fill '*r' (times in
 * seconds, rates per second).  Deterministic for a given 'w->seed'.
 * Returns 0, GP_EINVAL for a bad workload (lengths < 1 token, Poisson
 * without a rate), GP_EINFEASIBLE when a request can never fit in the KV
 * cache, GP_ENOMEM.
 */
int gp_infer_simulate (const struct gp_serve_model *m,
                       const struct gp_workload *w,
                       struct gp_sim_result *r,
                       gp_error_t *err);

/* ============================== sizing ================================== */

struct gp_slo {
    double ttft_p95_s, ttft_p99_s, tpot_p95_s, e2e_p95_s; /* 0 = none */
};

/* What binds a replica (feasible) or rules a layout out (infeasible).
 * The matching text ('limit', 'reason') is rendered from the numbers and
 * never read back.
 */
enum gp_infer_limit {
    GP_INFER_LIMIT_NONE,
    GP_INFER_LIMIT_SATURATION, /* engine saturation throughput */
    GP_INFER_LIMIT_UNSTABLE,   /* the queue grows without bound */
    GP_INFER_LIMIT_TTFT_P95,   /* an SLO ... */
    GP_INFER_LIMIT_TTFT_P99,
    GP_INFER_LIMIT_TPOT_P95,
    GP_INFER_LIMIT_E2E_P95,
    GP_INFER_LIMIT_LAYOUT,     /* the layout is invalid (tp vs heads, ep) */
    GP_INFER_LIMIT_MEMORY,     /* weights + workspace + one sequence do not
                                * fit in device memory or the KV cache */
    GP_INFER_LIMIT_NO_LAYOUT,  /* no layout could be tried */
    GP_INFER_LIMIT_ERROR,      /* another model error (see the text) */
};

/* Stable name of 'l' ("ttft_p95", "memory", ...); static, never NULL. */
const char *gp_infer_limit_str (enum gp_infer_limit l);

struct gp_size_result {
    int feasible;
    double rate_per_replica;     /* highest rate meeting every SLO */
    double max_rate_per_replica; /* saturation throughput in requests/s */
    int replicas;                /* at the peak rate, with headroom */
    int replicas_min;            /* at the trough rate (autoscaling floor) */
    struct gp_sim_result at_peak;/* one replica at peak/replicas */
    char limit[160];             /* which SLO or limit binds */
    enum gp_infer_limit limit_kind; /* the same, typed */
    int light_load_miss;         /* infeasible: an SLO is missed even at
                                  * light load (2 % of saturation) */
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
    enum gp_infer_limit limit;   /* the same, typed */
    struct gp_serve_model model;
    struct gp_size_result size;
    double gpus;                 /* GPUs at peak (fractional for slices) */
    int gpus_whole;              /* whole GPUs to provision: replicas x
                                  * GPUs per replica, or for slices
                                  * ceil(replicas / slices_per_gpu) */
    int layouts_tried;           /* layouts the search evaluated */
};

/* Evaluate every layout of 'base' (its tp/pp/slice fields are ignored) and
 * keep the one that meets 'slo' with the fewest whole GPUs at the peak rate
 * (MIG slices: the whole GPUs they occupy; ties: the trough, then the share
 * of GPUs in use, then lower TTFT p95): gp_infer_choose_on() with
 * gpus_per_node 0.  'cat' supplies MIG profiles ('allow_mig').
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

/* The same search, ranking the feasible layouts by what they cost when
 * capacity is bought in whole nodes of 'gpus_per_node' GPUs (<= 0: whole
 * GPUs, the rule for an unpriced accelerator): fewest nodes at the peak
 * (the lowest cost per 1M output tokens at the peak), then at the trough,
 * then fewest whole GPUs at the peak, then the smaller share of GPUs in
 * use, then the lower TTFT p95 (docs/model/inference.md, "Serving
 * search").  MIG slices are charged as the whole GPUs they occupy
 * (gp_infer_option_gpus), at the peak and the trough alike.  Returns as
 * gp_infer_choose(), which is this call with 'gpus_per_node' 0.
 */
int gp_infer_choose_on (const struct gp_serve_cfg *base,
                        const struct gp_catalog *cat,
                        int allow_mig,
                        const struct gp_workload *w,
                        const struct gp_slo *slo,
                        double peak_rate,
                        double trough_rate,
                        double headroom,
                        int gpus_per_node,
                        struct gp_infer_option *best,
                        gp_error_t *err);

/* Whole GPUs that 'reps' replicas of option 'o' occupy: reps x
 * gpus_per_replica, or for MIG slices ceil(reps / slices_per_gpu) (the
 * slices of a GPU the service does not use are not charged to anyone
 * else).  0 for reps <= 0 or a NULL 'o'.
 */
int gp_infer_option_gpus (const struct gp_infer_option *o, int reps);

/* Whole nodes of 'gpus_per_node' GPUs (<= 0: 1) that 'reps' replicas of
 * 'o' occupy: whole nodes per replica when a replica spans nodes, else
 * the replicas' whole GPUs packed onto shared nodes.
 */
int gp_infer_option_nodes (const struct gp_infer_option *o, int reps,
                           int gpus_per_node);

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

/* ==================== the inference plan (one call) ===================== */

#define GP_INFER_MAX_LIST 16     /* accelerators, precisions per request */
#define GP_INFER_MAX_PROFILE 288 /* periods of a day (5-minute resolution) */

/* Everything `gpuplan infer` asks, from flags or a spec.  Start from
 * gp_infer_request_defaults(); a spec (gp_infer_spec_load) and the
 * parse helpers below fill it.  Units: requests/s, tokens, seconds.
 */
struct gp_infer_request {
    char model[64];              /* zoo id; ignored when has_arch */
    int has_arch;                /* 1: 'arch' holds explicit dimensions */
    struct gp_arch arch;         /* custom model (spec mapping) */
    char accels[GP_INFER_MAX_LIST][48]; /* catalog accelerator ids */
    int n_accels;
    enum gp_dtype precisions[GP_INFER_MAX_LIST]; /* weight formats */
    int n_precisions;
    int kv_set;                  /* 1: kv_dtype given, else the default
                                  * (fp8 for fp8/fp4 weights on FP8 parts,
                                  * else bf16) */
    enum gp_dtype kv_dtype;
    enum gp_engine engine;
    int tp, pp, ep;              /* fixed layout; 0 = choose */
    int attn_dp;                 /* MoE attention data parallelism */
    double prefix_hit;           /* share of prompt tokens cached, [0, 1) */
    double rps_peak;             /* peak requests/s; 0 = profile maximum */
    double rps_trough;           /* floor; 0 or > peak = peak (profile:
                                  * its minimum) */
    double rps_mean;             /* informational (spec traffic.rps_mean) */
    double profile[GP_INFER_MAX_PROFILE]; /* rates over one day */
    size_t n_profile;            /* 0 = 12 h at peak, 12 h at trough */
    double prompt, output;       /* mean tokens, >= 1 */
    enum gp_len_dist prompt_dist, output_dist;
    double prompt_cv, output_cv; /* spread of 'uniform', <= 0.577 */
    struct gp_slo slo;
    double headroom;             /* spare share of a replica's rate, < 0.95 */
    int no_mig;                  /* 1: never consider MIG slices */
    char instance[64];           /* price from this catalog instance; "" =
                                  * the pricing rule (price.h) */
    char instance_origin[96];    /* where 'instance' came from, for errors
                                  * ("--instance", "spec.yaml:9:13: ..."); ""
                                  * = "instance" */
    unsigned long long seed;     /* workload seed */
    const struct gp_defaults *defaults; /* borrowed; the values in force
                                  * (infer.kv_dtype); NULL = the registry */
};

/* Defaults: vllm, bf16 weights, headroom 0.2, uniform spreads 0.3, seed 1,
 * MIG allowed, everything else 0/empty.
 */
void gp_infer_request_defaults (struct gp_infer_request *rq);

/* Replace rq->accels with the comma-separated ids in 's'.  Returns 0, or
 * GP_EINVAL when 's' names none or more than GP_INFER_MAX_LIST.
 */
int gp_infer_request_set_accels (struct gp_infer_request *rq, const char *s,
                                 gp_error_t *err);
/* Replace rq->precisions with the comma-separated formats in 's'.  Returns
 * 0, or GP_EINVAL for an unknown format, an empty list or too many.
 */
int gp_infer_request_set_precisions (struct gp_infer_request *rq,
                                     const char *s, gp_error_t *err);
/* Replace rq->profile with "R,R,..." (rates >= 0, at most
 * GP_INFER_MAX_PROFILE).  Returns 0 or GP_EINVAL.
 */
int gp_infer_request_set_profile (struct gp_infer_request *rq, const char *s,
                                  gp_error_t *err);
/* Parse "fixed", "uniform" or "exponential".  Returns 0 or GP_EINVAL. */
int gp_len_dist_parse (const char *s, enum gp_len_dist *out, gp_error_t *err);
/* Parse a layout degree: "" or "choose" -> 0, else an integer 1-64.
 * Returns 0 or GP_EINVAL.
 */
int gp_infer_layout_parse (const char *s, int *out, gp_error_t *err);

/* Read a `gpuplan infer` spec (docs/formats/infer.md) into 'rq', on top of
 * what it holds (normally gp_infer_request_defaults()).  Strict keys; a
 * profile sets the peak/trough/mean rates it implies.  Returns 0, or
 * GP_EIO/GP_EPARSE/GP_EINVAL with "file:line:col: ..." in 'err'.
 */
int gp_infer_spec_load (const char *path, struct gp_infer_request *rq,
                        gp_error_t *err);

/* The same from 'len' bytes of YAML at 'text', named 'name' in messages
 * ("name:line:col: ..."); reads no file.  Returns as gp_infer_spec_load()
 * (GP_EPARSE for malformed YAML).
 */
int gp_infer_spec_parse (const char *text, size_t len, const char *name,
                         struct gp_infer_request *rq, gp_error_t *err);

/* Why the recommended option was chosen. */
enum gp_infer_choice {
    GP_INFER_CHOICE_NONE,            /* no option is feasible */
    GP_INFER_CHOICE_CHEAPEST_PRICED, /* lowest $/h at the peak among the
                                      * priced feasible options */
    GP_INFER_CHOICE_FEWEST_GPUS,     /* no feasible option is priced: the
                                      * fewest GPUs at the peak */
};

/* Whether an option has a price. */
enum gp_infer_price_status {
    GP_INFER_PRICED,
    GP_INFER_UNPRICED,               /* no catalog instance with the
                                      * accelerator publishes an on-demand
                                      * price */
    GP_INFER_UNPRICED_INSTANCE,      /* the requested instance carries
                                      * another accelerator or has no
                                      * on-demand price */
};

/* Which rule chose an option's layout (docs/model/inference.md, "Serving
 * search").
 */
enum gp_infer_layout_rule {
    GP_INFER_LAYOUT_CHEAPEST,        /* fewest whole nodes of the priced
                                      * instance at the peak: the lowest
                                      * cost per 1M output tokens */
    GP_INFER_LAYOUT_FEWEST_GPUS,     /* unpriced: fewest whole GPUs */
};

/* Stable name of 'l' ("cheapest_per_1m_output_tokens", "fewest_gpus");
 * static, never NULL.
 */
const char *gp_infer_layout_rule_str (enum gp_infer_layout_rule l);

/* One accelerator x weight precision of a plan, sized, priced and
 * rounded to whole nodes.  Prices and costs are 0 when not priced.
 */
struct gp_infer_plan_option {
    struct gp_infer_option opt;  /* layout, sizing, replica model (its
                                  * cfg.arch points into the result) */
    enum gp_engine engine;
    enum gp_infer_price_status price_status;
    struct gp_gpu_price price;   /* on-demand, from gp_price_gpu_hour();
                                  * price.inst borrowed from the catalog */
    int gpus_per_node;           /* the instance's, else the scale-up
                                  * domain capped at 8 */
    int nodes;                   /* whole nodes at the peak */
    int nodes_trough;            /* whole nodes at the trough */
    double usd_per_hour;         /* nodes x node price, at the peak */
    double usd_per_hour_trough;
    double usd_per_1m_output_tokens; /* at the peak rate */
    struct gp_fleet fleet;       /* the day, whole nodes per period (valid
                                  * when opt.feasible) */
    int *fleet_replicas;         /* fleet.n_periods replicas per period */
    enum gp_infer_layout_rule layout_rule; /* how the layout was chosen */
};

/* The result of gp_infer_plan(); owned by the caller. */
struct gp_infer_plan_result {
    struct gp_infer_request request; /* as resolved: peak, trough and mean
                                      * set, trough clamped to the peak */
    struct gp_arch arch;             /* the model planned */
    struct gp_infer_plan_option *options; /* accelerator-major, then
                                            * precision, in request order */
    size_t n_options;
    int recommended;                 /* index into options, -1 = none */
    enum gp_infer_choice choice;
    int n_undated_prices;            /* priced options whose instance has
                                      * no price_as_of */
    struct gp_zoo *zoo_;             /* private: the zoo 'arch' came from */
};

/* Plan a serving deployment: for every accelerator x weight precision of
 * 'rq', price a GPU-hour with the one pricing rule (gp_price_gpu_hour,
 * on-demand; rq->instance names the instance), choose the layout that
 * costs least per 1M output tokens at the peak (gp_infer_choose_on with
 * the instance's node size; fewest whole GPUs when unpriced), round to
 * whole nodes (MIG slices as the whole GPUs they occupy, at the peak, the
 * trough and over the day), cost the autoscaled fleet over the day
 * (the profile, else 12 h at peak and 12 h at trough) and recommend the
 * cheapest priced feasible option (fewest GPUs when none is priced).
 * Model ids resolve in the embedded zoo, accelerators in 'cat'.
 * Returns 0 with '*out' set (free with gp_infer_plan_destroy) even when no
 * option is feasible (recommended -1); GP_EINVAL for a bad request (no
 * rate, lengths < 1 token, no accelerator), GP_ENOTFOUND for an unknown
 * model, accelerator or instance (the text names rq->instance_origin),
 * GP_ENOMEM.  '*out' is NULL on error.
 */
int gp_infer_plan (const struct gp_catalog *cat,
                   const struct gp_infer_request *rq,
                   struct gp_infer_plan_result **out, gp_error_t *err);

/* Free a plan result; NULL is fine. */
void gp_infer_plan_destroy (struct gp_infer_plan_result *r);

/* The plan as one JSON document (docs/formats/infer.md).  The caller owns
 * the returned value (json_decref); NULL when out of memory.
 */
struct json_t *gp_report_infer_json (const struct gp_infer_plan_result *r);

/* The plan as the text report of `gpuplan infer` (table, "Why", prices,
 * recommendation).  Returns a NUL-terminated string the caller must
 * free(), or NULL with 'err' set (GP_EINVAL, GP_ENOMEM).
 */
char *gp_report_infer_text (const struct gp_infer_plan_result *r,
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
    /* rate mode (mode "rate"): latency statistics, seconds, in the order
     * of GP_INFER_LAT_* (TTFT, TPOT, E2E x mean, p90, p99); meas 0 =
     * the source does not give it */
    int rate_mode;
    double lat_pred_s[9], lat_meas_s[9];
    /* what the row's prediction reads (set once its configuration is
     * known, else ""): the engine and software stack ("vllm/rocm",
     * gp_engine_stack_name) and the accelerator generation
     * (generations.csv id) */
    char stack[32];
    char generation[24];
};

/* Index of a latency statistic in gp_infer_val_row.lat_*_s: quantity
 * (0 TTFT, 1 TPOT per request, 2 E2E) x 3 + statistic (0 mean, 1 p90,
 * 2 p99).
 */
#define GP_INFER_LAT(q, stat) ((q) * 3 + (stat))

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
/* Free the rows of 'v' (not 'v' itself); NULL and empty are fine. */
void gp_infer_val_free (struct gp_infer_val *v);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_INFER_H */
