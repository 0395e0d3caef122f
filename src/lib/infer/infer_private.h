/* infer_private.h - shared between the files of the infer module. */
#ifndef GPUPLAN_INFER_PRIVATE_H
#define GPUPLAN_INFER_PRIVATE_H

#include "gpuplan/infer.h"

/* Tokens (prompt + output) a sizing run at a Poisson rate simulates at
 * most (800 requests, fewer for requests over 2,500 tokens, at least 100),
 * and the offline run that finds saturation (docs/model/inference.md,
 * "Sizing"): long outputs cost an engine iteration per token.
 */
#define GP_INFER_SIM_TOKENS 2e6

/* Front end of an online server (rate mode of `validate inference`,
 * docs/model/inference.md, "Rate mode"): the prompt is tokenized before
 * the engine sees it, GP_INFER_TOKENIZE_S seconds per prompt token (a
 * Hugging Face fast tokenizer encoding 131-token chat prompts took 1.3 to
 * 2.8 ms, 10 to 21 us per token, 10 us in steady state:
 * tenstorrent/tt-inference-server issue 2173, Feb 2026).
 */
#define GP_INFER_TOKENIZE_S 10e-6

static inline double gp__infer_frontend_s (double prompt_tokens)
{
    return prompt_tokens > 0 ? GP_INFER_TOKENIZE_S * prompt_tokens : 0.0;
}
#define GP_INFER_OFFLINE_TOKENS 2e7

/* Requests of the sizing's offline run: the simulator's own choice for
 * offline arrivals (four batches, 500 to 8,000 requests), at most
 * GP_INFER_OFFLINE_TOKENS tokens of them (at least 100 requests).
 */
int gp__infer_offline_n (const struct gp_serve_model *m,
                         const struct gp_workload *w);

/* gp_infer_simulate with decode-only runs taken in one go ('jump' 1, what
 * gp_infer_simulate does) or step by step through the general loop
 * ('jump' 0, the reference the tests compare against): the results are
 * identical bit for bit.
 */
int gp__infer_simulate_steps (const struct gp_serve_model *m,
                              const struct gp_workload *w, int jump,
                              struct gp_sim_result *res, gp_error_t *err);

/* gp__infer_simulate_steps behind an online server's front end
 * (docs/model/inference.md, "Front-end throughput"): one process that
 * holds each request 'fe_req_s' seconds before the engine sees it and
 * 'fe_tok_s' seconds per output token, in order of arrival.  TTFT, E2E
 * and the output rate are measured from the client's send time.  Both 0:
 * gp__infer_simulate_steps exactly.  Open-loop and offline arrivals only
 * (ignored for closed loop).
 */
int gp__infer_simulate_fe (const struct gp_serve_model *m,
                           const struct gp_workload *w, int jump,
                           double fe_req_s, double fe_tok_s,
                           struct gp_sim_result *res, gp_error_t *err);

/* gp__infer_simulate_fe with the statistics of a finite benchmark run
 * ('whole' 1, closed loop only): every request counts, none skipped as
 * warm-up, and the output rate is all output tokens over the time from
 * the first send to the last completion, as `benchmark_serving`
 * (vLLM, SGLang, InferenceX) computes them (docs/model/inference.md,
 * "Closed-loop benchmark runs").  'whole' 0: gp__infer_simulate_fe.
 */
int gp__infer_simulate_run (const struct gp_serve_model *m,
                            const struct gp_workload *w, int jump,
                            double fe_req_s, double fe_tok_s, int whole,
                            struct gp_sim_result *res, gp_error_t *err);

/* Front-end work per streamed output token of vLLM's OpenAI-compatible
 * server, one API-server process (incremental detokenization and the
 * response chunk), seconds (docs/model/inference.md, "Front-end
 * throughput"): derived from vllm-project/vllm pull request #17546, where
 * one API server carried 76.5 of 120 requests/s offered (10,000 ShareGPT
 * requests in 130.74 s, 2 x A100, Llama-3.2-1B): 13.07 ms per request,
 * less the per-request part already modelled (7 ms front end + 10 us x
 * 221 prompt tokens = 9.2 ms), over ~203 output tokens per ShareGPT
 * request (vllm-project/vllm pull request #18566: 203,068 tokens for
 * 1,000 requests of the same data set).
 */
#define GP_INFER_FE_TOKEN_S 19e-6

/* Attention time of one pipeline stage (docs/model/inference.md, "Step
 * time"): 'decode_ctx' KV tokens streamed, 'ctx' tokens attended (decode
 * context plus prefill context), per stage.  The coefficients depend on the
 * replica only (gp__infer_attn_coef); the time is the larger of the KV
 * stream and the attention FLOPs.  One definition, used by the iteration
 * time and by the simulator's decode runs, so both compute the same bits.
 */
struct gp__attn_coef {
    double flops_per_ctx;      /* attention FLOPs per context token, all
                                * layers */
    double n;                  /* GPUs per replica */
    double kv_bytes_per_token; /* per GPU */
    double bw;                 /* effective HBM bandwidth, bytes/s */
    double attn_peak;          /* effective attention FLOP/s */
    double prefill_flops_per_ctx; /* the same for prompt tokens: MLA
                                   * prefill runs the non-absorbed form */
};

void gp__infer_attn_coef (const struct gp_serve_model *m,
                          struct gp__attn_coef *c);

/* Attended context of 'n' prompt tokens at positions done+1 .. done+n of
 * one request, summed over the tokens and averaged over the layers
 * (docs/model/inference.md, "Chunked local attention"): sum of p for full
 * attention (causal, the token itself included); on the chunked layers of
 * a model with attn_chunk_size C, ((p - 1) mod C) + 1.  Without chunking
 * exactly n x (done + (n + 1) / 2).
 */
double gp__infer_prefill_ctx (const struct gp_arch *a, int done, int n);

/* The context a decode step of a sequence of 'len' tokens (the new one
 * included) attends to and streams from the KV cache, averaged over the
 * layers as gp__infer_prefill_ctx: 'len' without chunking; on chunked
 * layers ((len - 1) mod C) + 1.
 */
double gp__infer_decode_ctx (const struct gp_arch *a, int len);

static inline double gp__infer_attn_time (const struct gp__attn_coef *c,
                                          double decode_ctx, double ctx,
                                          double *kvbytes, double *aflops)
{
    double af = c->flops_per_ctx * ctx;
    if (c->prefill_flops_per_ctx != c->flops_per_ctx && ctx > decode_ctx)
        af = c->flops_per_ctx * decode_ctx
             + c->prefill_flops_per_ctx * (ctx - decode_ctx);
    if (c->n != 1.0) /* x / 1 is x: skip the division, same bits */
        af /= c->n;
    double kv = decode_ctx * c->kv_bytes_per_token;
    double t_kv = kv / c->bw;
    double t_af = af / c->attn_peak;
    *kvbytes = kv;
    *aflops = af;
    return t_kv > t_af ? t_kv : t_af;
}

/* The iteration time of a decode-only load (n_dec sequences, one token
 * each, no prompt tokens) as a function of its context: everything but the
 * attention depends on n_dec alone and is computed once
 * (gp__infer_decode_prep); gp__infer_decode_time() then returns exactly
 * (bit for bit) what gp_infer_iter_time() returns for
 * {n_dec, ctx, 0, 0, n_dec}.
 */
struct gp__decode_step {
    struct gp__attn_coef a;
    double gemm, comm, fixed; /* per stage, as in the iteration time */
    double pp;
    double iter_overhead, seq_overhead; /* per iteration; n_dec sequences */
    int overlap;              /* the engine's host_overlap */
};

/* An iteration of an engine whose host work overlaps the GPU's
 * (gp_engine_params.host_overlap): the larger of the GPU time 'gpu' and
 * the host time 'iter' + 'seq'.  One definition for the iteration time and
 * the decode runs (the same bits).
 */
static inline double gp__infer_overlap (double gpu, double iter, double seq)
{
    double host = iter + seq;
    return gpu > host ? gpu : host;
}

void gp__infer_decode_prep (const struct gp_serve_model *m, int n_dec,
                            struct gp__decode_step *d);

/* The tokens a decode-only iteration of 'n' sequences computes: with
 * m->cfg.eng.graph_pad, the smallest captured CUDA graph batch size >= n
 * when it is within the engine's max_batch, else 'n'; with attention data
 * parallelism per rank: tp x the graph size >= ceil(n / tp) (docs/model/
 * inference.md, "CUDA graph padding").
 */
double gp__infer_graph_batch (const struct gp_serve_model *m, double n);

/* The limits `trtllm-bench throughput` (PyTorch backend) sets when the run
 * gives none, for replica 'm' and mean lengths 'isl', 'osl': '*eng' becomes
 * m's engine with tuning.py's max_batch_size and max_num_tokens and CUDA
 * graph padding on (bench.c; docs/model/inference.md).  Returns 1, or 0
 * (eng untouched) where the heuristic does not apply here (MLA, no room).
 * With attention data parallelism the limit is per rank: max_batch is
 * tp times the harness's value.
 */
int gp__trtllm_bench_settings (const struct gp_serve_model *m, double isl,
                               double osl, struct gp_engine_params *eng);

static inline double gp__infer_decode_time (const struct gp__decode_step *d,
                                            double ctx)
{
    double kvb, af;
    double c = d->pp != 1.0 ? ctx / d->pp : ctx;
    double attn = gp__infer_attn_time (&d->a, c, c, &kvb, &af);
    double st = d->gemm + attn + d->comm + d->fixed;
    if (d->overlap)
        return gp__infer_overlap (d->pp * st, d->iter_overhead,
                                  d->seq_overhead);
    return d->pp * st + d->iter_overhead + d->seq_overhead;
}

/* gp_infer_size in two parts: the
 * argument check and the offline run that finds saturation
 * (r->max_rate_per_replica; 'r' zeroed first), then the rest (the
 * light-load check, the bisection, the replicas and the run at the
 * peak).  Together they are gp_infer_size.
 */
int gp__infer_size_begin (const struct gp_serve_model *m,
                          const struct gp_workload *w,
                          const struct gp_slo *slo, double peak_rate,
                          double headroom, struct gp_size_result *r,
                          gp_error_t *err);
int gp__infer_size_end (const struct gp_serve_model *m,
                        const struct gp_workload *w,
                        const struct gp_slo *slo, double peak_rate,
                        double trough_rate, double headroom,
                        struct gp_size_result *r, gp_error_t *err);

/* After gp__infer_size_begin: a lower bound (>= 1) on the replicas that
 * gp__infer_size_end will find for 'peak_rate' and 'headroom', whatever
 * the SLOs (the sized rate never exceeds 0.98 x saturation).  The layout
 * search skips the rest of a layout that cannot beat one it has sized
 * (docs/model/inference.md, "Serving search").
 */
int gp__infer_replicas_bound (const struct gp_size_result *r,
                              double peak_rate, double headroom);

/* gp_infer_choose_on with the bound's pruning ('prune' 1, what
 * gp_infer_choose_on does) or with every layout sized in full ('prune' 0,
 * the reference tests/unit/test_infer_prune.c compares against): the
 * chosen option is the same, bit for bit.  '*n_pruned' (may be NULL): the
 * layouts left unsized.
 */
int gp__infer_choose_prune (const struct gp_serve_cfg *base,
                            const struct gp_catalog *cat, int allow_mig,
                            const struct gp_workload *w,
                            const struct gp_slo *slo, double peak_rate,
                            double trough_rate, double headroom,
                            int gpus_per_node, int prune, int *n_pruned,
                            struct gp_infer_option *best, gp_error_t *err);

double gp__sglang_static_fraction (int tp);

#endif
