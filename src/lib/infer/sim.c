/* sim.c - a deterministic discrete-event model of a continuous-batching
 * serving engine (iteration-level scheduling as in Orca, paged KV cache as
 * in vLLM, chunked prefill as in Sarathi-Serve / TRT-LLM in-flight
 * batching).
 *
 * The engine loop: at each iteration boundary admit waiting requests while
 * sequences and KV pages allow, give every decoding sequence one token of
 * the iteration's token budget, fill the rest of the budget with prompt
 * chunks in admission order, advance the clock by gp_infer_iter_time() of
 * that load, then emit tokens.  With incremental KV allocation (vLLM) a
 * decode step that finds no free page preempts the newest sequence, which
 * later re-prefills its prompt and generated tokens (recompute policy).
 * The only randomness is the workload (arrivals, lengths), drawn from a
 * seeded generator, so runs are reproducible.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/infer.h"
#include "infer_private.h"
#include "../core/rng.h"
#include "../core/stats.h"

struct req {
    double arrival, t_admit, t_first, t_done;
    double t_sent;    /* the client's send time: 'arrival' (when the
                       * engine sees the request) less the front end */
    int in, out;      /* prompt and output tokens */
    int target;       /* tokens to prefill (prompt, or prompt+generated
                       * after a preemption) */
    int prefilled;    /* of 'target' */
    int gen;          /* output tokens emitted */
    int chunk;        /* prompt tokens scheduled in this iteration */
    double kv;        /* KV tokens allocated */
    int admitted;
    int in_d;         /* decoding, credited lazily since step g0 */
    int fin;          /* finished in this step (lazy step) */
    long g0;
};

/* A decoder's place in the finish heap: the lazy step count at which it
 * emits its last token.
 */
struct hent {
    long key;
    int id;
};

static double rng_u01 (uint64_t *s)
{
    return gp__rng_u01 (s);
}

static int draw_len (uint64_t *s, double mean, enum gp_len_dist d,
                     double cv)
{
    double v = mean;
    if (d == GP_LEN_UNIFORM)
        v = mean * (1.0 + cv * sqrt (3.0) * (2.0 * rng_u01 (s) - 1.0));
    else if (d == GP_LEN_EXPONENTIAL)
        v = -mean * log (rng_u01 (s));
    long r = lround (v);
    return r < 1 ? 1 : r > 100000000 ? 100000000 : (int)r;
}



static double mean_of (const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return n ? s / n : 0;
}

/* Requests to simulate when the caller leaves n_requests at 0. */
static int choose_n (const struct gp_serve_model *m,
                     const struct gp_workload *w)
{
    double seq = w->in_len + w->out_len;
    double b = m->kv_capacity_tokens / (seq > 1 ? seq : 1);
    if (b > m->cfg.eng.max_batch)
        b = m->cfg.eng.max_batch;
    switch (w->arrivals) {
    case GP_ARR_BATCH:
        return w->concurrency > 0 ? w->concurrency : 1;
    case GP_ARR_CLOSED: {
        int c = w->concurrency > 0 ? w->concurrency : 1;
        int n = 12 * c;
        return n < 40 ? 40 : n;
    }
    case GP_ARR_OFFLINE: {
        double n = 4.0 * b;
        return n < 500 ? 500 : n > 8000 ? 8000 : (int)n;
    }
    case GP_ARR_POISSON:
    default:
        return 1500;
    }
}

int gp__infer_offline_n (const struct gp_serve_model *m,
                         const struct gp_workload *w)
{
    struct gp_workload x = *w;
    x.arrivals = GP_ARR_OFFLINE;
    double n = choose_n (m, &x);
    double seq = w->in_len + w->out_len;
    double most = GP_INFER_OFFLINE_TOKENS / (seq > 1 ? seq : 1);
    if (n > most)
        n = most < 100 ? 100 : most;
    return (int)n;
}

/* The engine's state during one run. */
struct engine {
    const struct gp_serve_model *m;
    const struct gp_engine_params *E;
    const struct gp_workload *w;
    int n;                 /* requests */
    int conc;              /* closed-loop clients */
    struct req *R;
    int *run;              /* running requests, admission order */
    int *wq;               /* waiting queue, a ring of n */
    int *pre;              /* indexes into run[] still prefilling */
    double *s_ttft, *s_tpot, *s_e2e, *s_q; /* per-request samples */
    uint64_t *keys;        /* 2n: sort scratch */
    double cap;            /* KV capacity, tokens */
    int wq_head, wq_len, n_run, next_arr, done, n_created;
    int len;               /* entries of run[]: n_run, and in the lazy
                            * state also the finished not yet dropped */
    double t, kv_used, kv_peak, batch_sum;
    long iters;
    int max_b, preempt, kv_limited;
    int qmax_at_last_arrival;
    int n_dec, n_pre;      /* this iteration: decoders, prefills */
    int jump;              /* take decode-only runs in one go */
    int chunked;           /* chunked local attention (jump off) */
    double dec_ctx;
    /* The lazy general step (jump 1; see lazy_step): the decoders are
     * run[0, n_d), prompts still to fill run[n_d, n_run); decoders are
     * credited one token per step through the step count G, their
     * context sum kept in ctx_d, their finishing steps in a min-heap.
     */
    int lazy_ok;           /* the lazy state matches run[] */
    int n_d;
    long G;
    long long ctx_d;
    struct hent *heap;
    int n_heap, cap_heap;
    /* The online server's front end (gp__infer_simulate_fe): one process
     * serving the requests in order of arrival, fe_req seconds each before
     * the engine sees it and fe_tok per output token after. */
    double fe_req, fe_tok;
    /* statistics over every request of a finite closed-loop run, as a
     * benchmark client reports them (gp__infer_simulate_run) */
    int whole;
};

static void engine_free (struct engine *e)
{
    free (e->R), free (e->run), free (e->wq), free (e->pre);
    free (e->s_ttft), free (e->s_tpot), free (e->s_e2e), free (e->s_q);
    free (e->keys);
    free (e->heap);
}

/* The requests start zeroed; every other array is written before it is
 * read (lists and queues up to their counts, samples and scratch by the
 * statistics), so it is not cleared (a sizing runs ~13 simulations).
 */
static int engine_alloc (struct engine *e, gp_error_t *err)
{
    size_t n = (size_t)e->n;
    e->R = calloc (n, sizeof *e->R);
    e->run = malloc ((2 * n + 32) * sizeof *e->run); /* room for holes */
    e->wq = malloc (n * sizeof *e->wq);
    e->pre = malloc (n * sizeof *e->pre);
    e->s_ttft = malloc (n * sizeof (double));
    e->s_tpot = malloc (n * sizeof (double));
    e->s_e2e = malloc (n * sizeof (double));
    e->s_q = malloc (n * sizeof (double));
    e->keys = malloc (2 * n * sizeof *e->keys);
    e->cap_heap = 2 * e->n + 16;
    e->heap = malloc ((size_t)e->cap_heap * sizeof *e->heap);
    if (!e->R || !e->run || !e->wq || !e->pre || !e->s_ttft || !e->s_tpot
        || !e->s_e2e || !e->s_q || !e->keys || !e->heap) {
        engine_free (e);
        return gp_errprintf (err, GP_ENOMEM, "simulate: out of memory");
    }
    return 0;
}

/* The front end of an online server (docs/model/inference.md, "Front-end
 * throughput"): one process handles the requests in order of arrival.
 * Request i holds it for fe_req seconds (HTTP, tokenization, set-up)
 * before the engine sees it, then for fe_tok seconds per output token it
 * will stream (detokenization, response chunks), charged when it enters:
 * the process serves at most one request per fe_req + fe_tok * out.
 * Open-loop and offline arrivals only (a closed-loop client's cycle is
 * handled by the caller).  Does nothing without a front end.
 */
static void front_end (struct engine *e)
{
    if (!(e->fe_req > 0 || e->fe_tok > 0)
        || e->w->arrivals == GP_ARR_CLOSED)
        return;
    double free_at = 0;
    for (int i = 0; i < e->n; i++) {
        struct req *q = &e->R[i];
        double start = q->t_sent > free_at ? q->t_sent : free_at;
        q->arrival = start + e->fe_req;
        free_at = q->arrival + e->fe_tok * q->out;
    }
}

/* Create requests: lengths for all; arrival times per mode.  Then check
 * that every request fits in the KV cache on its own.
 */
static int create_requests (struct engine *e, gp_error_t *err)
{
    const struct gp_workload *w = e->w;
    const struct gp_serve_model *m = e->m;
    uint64_t seed = w->seed ? (uint64_t)w->seed : 42;
    double hit = m->cfg.prefix_hit > 0 && m->cfg.prefix_hit < 1
                     ? m->cfg.prefix_hit
                     : 0.0;
    double t_arr = 0;
    for (int i = 0; i < e->n; i++) {
        struct req *q = &e->R[i];
        q->in = draw_len (&seed, w->in_len, w->in_dist, w->in_cv);
        q->out = draw_len (&seed, w->out_len, w->out_dist, w->out_cv);
        q->target = q->in;
        q->prefilled = (int)floor (q->in * hit);
        if (q->prefilled >= q->in)
            q->prefilled = q->in - 1;
        if (w->arrivals == GP_ARR_POISSON) {
            t_arr += -log (rng_u01 (&seed)) / w->rate;
            q->arrival = t_arr;
        }
        q->t_sent = q->arrival;
    }
    front_end (e);
    for (int i = 0; i < e->n; i++) {
        double need = e->R[i].in + e->R[i].out; /* must fit whole */
        if (need > e->cap)
            return gp_errprintf (err, GP_EINFEASIBLE,
                                 "a request of %d + %d tokens does not fit "
                                 "in the KV cache (%.0f tokens per replica)",
                                 e->R[i].in, e->R[i].out, e->cap);
    }
    e->n_created = w->arrivals == GP_ARR_CLOSED
                       ? (e->conc < e->n ? e->conc : e->n)
                       : e->n;
    return 0;
}

/* Queue the arrivals up to now.  Returns 1 when the engine is idle and the
 * clock jumped to the next arrival (the caller starts over), -1 when
 * nothing is left, 0 to go on.
 */
static int take_arrivals (struct engine *e)
{
    while (e->next_arr < e->n_created && e->R[e->next_arr].arrival <= e->t) {
        e->wq[(e->wq_head + e->wq_len) % e->n] = e->next_arr;
        e->wq_len++;
        e->next_arr++;
    }
    if (e->w->arrivals == GP_ARR_POISSON && e->next_arr == e->n
        && e->qmax_at_last_arrival < 0)
        e->qmax_at_last_arrival = e->wq_len;
    if (e->n_run == 0 && e->wq_len == 0) {
        if (e->next_arr < e->n_created) {
            e->t = e->R[e->next_arr].arrival;
            return 1;
        }
        return -1; /* nothing left (should not happen) */
    }
    return 0;
}

/* Admission, FIFO, while sequences and KV space allow. */
static void admit (struct engine *e)
{
    const struct gp_engine_params *E = e->E;
    while (e->wq_len > 0 && e->n_run < E->max_batch) {
        struct req *q = &e->R[e->wq[e->wq_head]];
        double need = E->reserve_full ? q->target + (q->out - q->gen)
                                      : q->target + 1;
        if (e->kv_used + need > e->cap) {
            e->kv_limited = 1;
            break;
        }
        e->kv_used += need;
        q->kv = need;
        if (!q->admitted) {
            q->admitted = 1;
            q->t_admit = e->t;
        }
        e->run[e->len++] = e->wq[e->wq_head];
        e->n_run++;
        e->wq_head = (e->wq_head + 1) % e->n;
        e->wq_len--;
    }
}

static int is_decoding (const struct req *q)
{
    return q->prefilled >= q->target && q->gen > 0 && q->gen < q->out;
}

/* The decode set (count, context) and the prompts still to fill; with
 * incremental KV a decode step that finds no free page preempts the newest
 * sequences, which later re-prefill (recompute).
 */
/* The decode context of a model with chunked local attention: the sum
 * over the decoding sequences of gp__infer_decode_ctx, which is not a sum
 * of token counts (it falls back at every chunk boundary), so such models
 * take the step-by-step path (no decode runs, 'jump' off).
 */
static double chunked_dec_ctx (const struct engine *e)
{
    const struct gp_arch *a = e->m->cfg.arch;
    double ctx = 0;
    for (int j = 0; j < e->n_run; j++) {
        const struct req *q = &e->R[e->run[j]];
        if (is_decoding (q))
            ctx += gp__infer_decode_ctx (a, q->in + q->gen);
    }
    return ctx;
}

/* No sequence of the run outgrows one chunk (prompt plus output at most
 * attn_chunk_size): every layer then attends as full attention, and
 * gp__infer_prefill_ctx / gp__infer_decode_ctx return the token counts
 * exactly (integers below 2^53), so the decode runs apply.
 */
static int chunks_never_bind (const struct engine *e)
{
    long long c = e->m->cfg.arch->attn_chunk_size;
    for (int i = 0; i < e->n; i++)
        if ((long long)e->R[i].in + e->R[i].out > c)
            return 0;
    return 1;
}

static void decode_set (struct engine *e)
{
    /* The context is a sum of token counts: summed as an integer (exact,
     * the same value as the double sum, without its add latency).
     */
    int n_dec = 0, n_pre = 0;
    long long ctx = 0;
    for (int j = 0; j < e->n_run; j++) {
        const struct req *q = &e->R[e->run[j]];
        if (q->prefilled < q->target)
            e->pre[n_pre++] = j;
        else if (q->gen > 0 && q->gen < q->out) {
            n_dec++;
            ctx += q->in + q->gen;
        }
    }
    e->n_dec = n_dec;
    e->n_pre = n_pre;
    e->dec_ctx = (double)ctx;
    if (e->E->reserve_full) {
        if (e->chunked)
            e->dec_ctx = chunked_dec_ctx (e);
        return;
    }
    while (e->kv_used + e->n_dec > e->cap && e->n_run > 1) {
        int v = e->run[--e->n_run];
        e->len--;
        struct req *q = &e->R[v];
        if (is_decoding (q)) {
            e->n_dec--;
            e->dec_ctx -= q->in + q->gen;
        }
        e->kv_used -= q->kv;
        q->kv = 0;
        q->target = q->in + q->gen;
        q->prefilled = 0;
        e->wq_head = (e->wq_head - 1 + e->n) % e->n;
        e->wq[e->wq_head] = v;
        e->wq_len++;
        e->preempt++;
    }
    while (e->n_pre > 0 && e->pre[e->n_pre - 1] >= e->n_run)
        e->n_pre--;
    if (e->chunked) /* chunked local attention: per sequence */
        e->dec_ctx = chunked_dec_ctx (e);
}

/* The load of this iteration: decoders first within the token budget,
 * then prefill chunks in admission order: the prompts run[base + i] (the
 * lazy state) or, with 'base' -1, run[pre[i]].
 */
static void build_load (struct engine *e, struct gp_iter_load *L, int base)
{
    const struct gp_engine_params *E = e->E;
    memset (L, 0, sizeof *L);
    double budget = E->max_num_tokens > 0 ? E->max_num_tokens : 8192;
    if (e->n_dec <= budget) {
        L->n_decode = e->n_dec;
        L->decode_ctx = e->dec_ctx;
        L->n_logits = e->n_dec;
        budget -= e->n_dec;
    } else { /* more decoders than the token budget: first come */
        for (int j = 0; j < e->n_run && budget >= 1; j++) {
            struct req *q = &e->R[e->run[j]];
            if (is_decoding (q)) {
                L->n_decode += 1;
                L->decode_ctx += e->chunked ? gp__infer_decode_ctx (
                                                  e->m->cfg.arch,
                                                  q->in + q->gen)
                                            : q->in + q->gen;
                L->n_logits += 1;
                budget -= 1;
                q->chunk = -1; /* decodes this step */
            }
        }
    }
    double pre_tok = 0;
    for (int i = 0; i < e->n_pre; i++) {
        struct req *q = &e->R[e->run[base >= 0 ? base + i : e->pre[i]]];
        int left = q->target - q->prefilled;
        int chunk = left;
        if (E->chunked_prefill) {
            if (budget < 1)
                break;
            if (chunk > budget)
                chunk = (int)budget;
        } else if (pre_tok > 0 && pre_tok + chunk > budget) {
            break;
        }
        budget -= chunk;
        pre_tok += chunk;
        L->n_prefill += chunk;
        L->prefill_ctx += gp__infer_prefill_ctx (e->m->cfg.arch,
                                                 q->prefilled, chunk);
        if (chunk == left)
            L->n_logits += 1;
        q->chunk = chunk; /* pages were allocated at admission */
    }
}

/* Advance request 'q' by the step just taken; 1 when it finished.  KV
 * tokens it takes are added to '*kv_add' (the caller adds them to
 * e->kv_used once: token counts, so the sum is exact either way).
 */
static int step_request (struct engine *e, struct req *q, int all_dec,
                         long long *kv_add)
{
    if (q->chunk > 0) { /* got a prefill chunk */
        q->prefilled += q->chunk;
        q->chunk = 0;
        if (q->prefilled >= q->target && q->gen == 0) {
            q->gen = 1;
            q->t_first = e->t;
            return q->gen >= q->out;
        }
        return 0;
    }
    if (is_decoding (q) && (all_dec || q->chunk < 0)) {
        q->chunk = 0;
        q->gen++;
        if (!e->E->reserve_full) {
            (*kv_add)++;
            q->kv += 1;
        }
        return q->gen >= q->out;
    }
    return 0;
}

/* Apply the step: emit tokens, retire finished requests (a closed-loop
 * client resubmits at once).
 */
static void apply_step (struct engine *e, int all_dec)
{
    int keep = 0;
    long long kv_add = 0; /* whole tokens: exact in any order */
    for (int j = 0; j < e->n_run; j++) {
        int id = e->run[j];
        struct req *q = &e->R[id];
        if (!step_request (e, q, all_dec, &kv_add)) {
            e->run[keep++] = id;
            continue;
        }
        q->t_done = e->t;
        kv_add -= (long long)q->kv;
        q->kv = 0;
        e->done++;
        if (e->w->arrivals == GP_ARR_CLOSED && e->n_created < e->n) {
            e->R[e->n_created].arrival = e->R[e->n_created].t_sent = e->t;
            e->n_created++;
        }
    }
    e->n_run = e->len = keep;
    e->kv_used += (double)kv_add;
    if (e->kv_used > e->kv_peak)
        e->kv_peak = e->kv_used;
}

/* The start of the next step inside a decode run, as run_engine does it:
 * queue the arrivals that are due and admit from the queue (a preemption
 * or a completion may have made room).  1 when the run must end here (a
 * request was admitted, or the next decode step would preempt).
 */
static int run_next_start (struct engine *e)
{
    if (e->next_arr < e->n_created && e->R[e->next_arr].arrival <= e->t)
        take_arrivals (e);
    if (e->wq_len > 0) {
        int before = e->n_run;
        admit (e);
        if (e->n_run != before)
            return 1;
    }
    return !e->E->reserve_full && e->kv_used + e->n_dec > e->cap;
}

/* Credit 's' decode steps to the first 'n' running requests. */
static void run_credit (struct engine *e, int n, long s)
{
    for (int j = 0; j < n; j++) {
        struct req *q = &e->R[e->run[j]];
        q->gen += (int)s;
        if (!e->E->reserve_full)
            q->kv += (double)s;
    }
}

/* Credit 's' decode steps to every running request, the last of which
 * finished some of them (at the current clock): retire those as
 * apply_step does, and set the decode set of the rest.  Returns the
 * fewest output tokens any of the rest has left.
 */
static long run_retire (struct engine *e, long s)
{
    int keep = 0;
    long left = LONG_MAX;
    long long ctx = 0, freed = 0; /* whole tokens: exact */
    run_credit (e, e->n_run, s);
    for (int j = 0; j < e->n_run; j++) {
        int id = e->run[j];
        struct req *q = &e->R[id];
        if (q->gen < q->out) {
            e->run[keep++] = id;
            ctx += q->in + q->gen;
            if (q->out - q->gen < left)
                left = q->out - q->gen;
            continue;
        }
        q->t_done = e->t;
        freed += (long long)q->kv;
        q->kv = 0;
        e->done++;
        if (e->w->arrivals == GP_ARR_CLOSED && e->n_created < e->n) {
            e->R[e->n_created].arrival = e->R[e->n_created].t_sent = e->t;
            e->n_created++;
        }
    }
    e->n_run = e->n_dec = e->len = keep;
    e->dec_ctx = (double)ctx;
    e->kv_used -= (double)freed;
    if (e->kv_used > e->kv_peak)
        e->kv_peak = e->kv_used;
    return left;
}

/* Which of the attention's two times (gp__infer_attn_time: the KV stream
 * and the attention FLOPs, both proportional to the context) is the larger
 * at every context: 1 the KV stream, -1 the FLOPs, 0 too close to tell.
 * Each time is the context times a per-token ratio with at most three
 * roundings (relative error 2^-53 each); when the two ratios differ by more
 * than a factor 1 + 1e-9, far beyond those errors, the computed times
 * compare the same way for every context > 0 (at 0 both are +0).  The
 * run then computes only the larger one, with the same operations, so the
 * same bits (docs/model/inference.md, "Simulator speed").
 */
static int attn_winner (const struct gp__attn_coef *a)
{
    double kv = a->kv_bytes_per_token / a->bw;
    double af = a->flops_per_ctx / a->n / a->attn_peak;
    if (!(kv > 1e-290 && kv < 1e290 && af > 1e-290 && af < 1e290))
        return 0;
    if (kv > af * (1.0 + 1e-9))
        return 1;
    if (af > kv * (1.0 + 1e-9))
        return -1;
    return 0;
}

/* gp__infer_decode_time with the attention's winner known ('win' from
 * attn_winner): the same operations on the same values.
 */
static inline double decode_time_w (const struct gp__decode_step *d,
                                    int win, double ctx)
{
    double c = d->pp != 1.0 ? ctx / d->pp : ctx;
    double attn;
    if (win > 0) {
        attn = c * d->a.kv_bytes_per_token / d->a.bw;
    } else if (win < 0) {
        double af = d->a.flops_per_ctx * c;
        if (d->a.n != 1.0)
            af /= d->a.n;
        attn = af / d->a.attn_peak;
    } else {
        double kvb, af;
        attn = gp__infer_attn_time (&d->a, c, c, &kvb, &af);
    }
    double st = d->gemm + attn + d->comm + d->fixed;
    if (d->overlap)
        return gp__infer_overlap (d->pp * st, d->iter_overhead,
                                  d->seq_overhead);
    return d->pp * st + d->iter_overhead + d->seq_overhead;
}

/* How many of the next decode steps (each adding 'ks' whole tokens to the
 * KV use 'kv') leave room for one more: the largest j <= 'most' with
 * kv + (j + 1) ks <= cap for every step up to j.  Whole numbers below
 * 2^53, so kv + m ks is the value the step-by-step additions reach.
 */
static long kv_room (double kv, double ks, double cap, long most)
{
    if (ks <= 0)
        return kv <= cap ? most : 0;
    double est = floor ((cap - kv) / ks) - 1.0;
    long j = est < 0 ? 0 : est > (double)most ? most : (long)est;
    while (j > 0 && !(kv + (double)(j + 1) * ks <= cap))
        j--;
    while (j < most && kv + (double)(j + 2) * ks <= cap)
        j++;
    return j > 0 || kv + ks <= cap ? j : 0;
}

/* Decode steps of one decode set up to 'most', each followed by the next
 * step's start; '*stop' when that start ends the run.  Returns the steps.
 */
static inline long run_steps_k (struct engine *e,
                                 const struct gp__decode_step *dp, long most,
                                 int *stop, int plain);

static long run_steps (struct engine *e, const struct gp__decode_step *d,
                       long most, int *stop)
{
    /* The common case (one stage, the KV stream the larger attention
     * term, host work added) in a loop of its own (decode_time_plain);
     * the others through decode_time_w. */
    if (d->pp == 1.0 && !d->overlap && attn_winner (&d->a) > 0)
        return run_steps_k (e, d, most, stop, 1);
    return run_steps_k (e, d, most, stop, 0);
}

/* decode_time_w for pp 1, the KV stream the larger term and the host work
 * added: the same operations on the same values (pp x st is st when pp is
 * 1).
 */
static inline double decode_time_plain (const struct gp__decode_step *d,
                                        double ctx)
{
    double attn = ctx * d->a.kv_bytes_per_token / d->a.bw;
    double st = d->gemm + attn + d->comm + d->fixed;
    return st + d->iter_overhead + d->seq_overhead;
}

static inline long run_steps_k (struct engine *e,
                                 const struct gp__decode_step *dp, long most,
                                 int *stop, int plain)
{
    /* a private copy: no store through 'e' can change it, so its fields
     * stay in registers across the loop */
    const struct gp__decode_step dc = *dp, *d = &dc;
    int n_dec = e->n_dec;
    long long ctx = (long long)e->dec_ctx; /* a whole number of tokens */
    double kv_step = e->E->reserve_full ? 0.0 : (double)n_dec;
    long s = 0;
    int win = attn_winner (&d->a);
    /* the engine's clock and KV use in locals; the queue and the next
     * arrival change only in run_next_start (read again after it) */
    double t = e->t, kv = e->kv_used, peak = e->kv_peak, cap = e->cap;
    int quiet = e->wq_len == 0;
    double t_arr = e->next_arr < e->n_created ? e->R[e->next_arr].arrival
                                              : INFINITY;
    /* Steps after which the next start changes nothing as long as no
     * arrival is due (nobody waiting, room for the next token): taken
     * with the clock check alone, the KV use (whole tokens, exact) and
     * its peak (it only grows) brought up to date when needed.
     */
    long s0 = 0; /* the step kv was last brought up to date at */
    long room = quiet ? kv_room (kv, kv_step, cap, most) : 0;
    *stop = 0;
    while (s < most) {
        t += plain ? decode_time_plain (d, (double)ctx)
                   : decode_time_w (d, win, (double)ctx);
        s++;
        ctx += n_dec;
        if (room > 0 && !(t_arr <= t)) {
            room--;
            continue;
        }
        kv += (double)(s - s0) * kv_step;
        s0 = s;
        if (kv > peak)
            peak = kv;
        /* nothing due, nobody waiting, room for the next token: the next
         * start changes nothing */
        if (quiet && !(t_arr <= t) && kv + kv_step <= cap)
            continue;
        e->t = t;
        e->kv_used = kv;
        e->kv_peak = peak;
        if (run_next_start (e)) {
            *stop = 1;
            break;
        }
        t = e->t;
        kv = e->kv_used;
        peak = e->kv_peak;
        quiet = e->wq_len == 0;
        t_arr = e->next_arr < e->n_created ? e->R[e->next_arr].arrival
                                           : INFINITY;
        room = quiet ? kv_room (kv, kv_step, cap, most - s) : 0;
    }
    if (!*stop) {
        kv += (double)(s - s0) * kv_step;
        if (kv > peak)
            peak = kv;
        e->t = t;
        e->kv_used = kv;
        e->kv_peak = peak;
    }
    e->dec_ctx = (double)ctx;
    e->iters += s;
    e->batch_sum += (double)s * n_dec; /* whole numbers: exact */
    return s;
}

/* A run of decode-only steps (docs/model/inference.md, "Simulator
 * speed"): while every running request decodes, none is prefilling and the
 * decoders fit the token budget, a step changes only the clock, the
 * context (one token per decoder) and, with incremental allocation, the KV
 * use (one token per decoder).  Those steps are taken here in O(1) each,
 * with the same arithmetic as the general loop (the same bits); the tokens
 * are credited to the requests when a request finishes (retired here as
 * the general loop does), and the run goes on until a request is admitted,
 * the KV cache would preempt, or nothing runs.  The caller has prepared
 * the first step (arrivals, admission, decode set).  Returns the steps
 * taken (0: none, take the general step).
 */
static long decode_run (struct engine *e)
{
    long left = LONG_MAX, total = 0;
    for (int j = 0; j < e->n_run; j++) {
        const struct req *q = &e->R[e->run[j]];
        if (q->out - q->gen < left)
            left = q->out - q->gen;
    }
    while (e->iters <= 200000000L) {
        struct gp__decode_step d;
        gp__infer_decode_prep (e->m, e->n_dec, &d);
        int stop = 0, n = e->n_run;
        long s = left > 1 ? run_steps (e, &d, left - 1, &stop) : 0;
        total += s;
        if (stop) {
            run_credit (e, n, s);
            return total;
        }
        /* the step that finishes the requests with 'left' tokens left */
        e->t += gp__infer_decode_time (&d, e->dec_ctx);
        if (!e->E->reserve_full)
            e->kv_used += (double)e->n_dec;
        e->iters++;
        e->batch_sum += (double)e->n_dec;
        total++;
        left = run_retire (e, s + 1);
        if (e->n_run == 0 || run_next_start (e))
            return total;
    }
    return total;
}

/* ------------------------- the lazy general step ----------------------
 *
 * A general step (some prompt still filling) gives every decoder one
 * token; the eager loop (decode_set, build_load, apply_step) visits every
 * running request for that, O(batch) a step.  The lazy step visits only
 * the prompts it fills and the requests that finish (docs/model/
 * inference.md, "Simulator speed"):
 *  - run[] is always the decoders, then the prompts still filling, each in
 *    admission order (admission appends prompts; prompts are filled in
 *    order, so those that complete are the first ones and join the end of
 *    the decoders; preemption takes the newest from the end);
 *  - a decoder's tokens are q->gen + (G - q->g0) (its KV likewise with
 *    incremental allocation), G counting the lazy steps;
 *  - the decoders' context sum is kept in ctx_d (whole tokens, exact);
 *  - a min-heap holds the step at which each decoder emits its last token.
 * The numbers are the eager loop's: token counts are integers, summed
 * exactly in any order, and the clock takes the same iteration times in
 * the same order.  Decode-only runs and a step with more decoders than the
 * token budget use the eager code on materialized requests
 * (lazy_flush); the next lazy step rebuilds the state (lazy_rebuild).
 * tests/unit/test_infer_sim_runs.c compares the two bit for bit.
 */

static void heap_push (struct engine *e, long key, int id)
{
    struct hent *h = e->heap;
    int i = e->n_heap++;
    while (i > 0 && h[(i - 1) / 2].key > key) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i].key = key;
    h[i].id = id;
}

static void heap_pop (struct engine *e)
{
    struct hent *h = e->heap;
    struct hent x = h[--e->n_heap];
    int i = 0, n = e->n_heap;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].key < h[c].key)
            c++;
        if (h[c].key >= x.key)
            break;
        h[i] = h[c];
        i = c;
    }
    if (n > 0)
        h[i] = x;
}

/* The step at which decoder 'q' (in_d) emits its last token. */
static long fin_key (const struct req *q)
{
    return (long)(q->out - q->gen) + q->g0;
}

/* Make 'q' a lazily credited decoder from step G on. */
static void lazy_join (struct engine *e, struct req *q, int id)
{
    q->in_d = 1;
    q->g0 = e->G;
    e->n_d++;
    e->ctx_d += q->in + q->gen;
    if (e->n_heap < e->cap_heap) {
        heap_push (e, fin_key (q), id);
        return;
    }
    e->n_heap = 0; /* full of stale entries: the live ones, 'q' included */
    for (int j = 0; j < e->len; j++) {
        const struct req *r = &e->R[e->run[j]];
        if (r->in_d && !r->fin)
            heap_push (e, fin_key (r), e->run[j]);
    }
}

/* Credit decoder 'q' its lazy tokens; it leaves the lazy state. */
static void lazy_settle (struct engine *e, struct req *q)
{
    long c = e->G - q->g0;
    q->gen += (int)c;
    if (!e->E->reserve_full)
        q->kv += (double)c;
    q->in_d = 0;
}

static void lazy_compact (struct engine *e);

/* Every decoder settled and run[] without holes, for the eager code. */
static void lazy_flush (struct engine *e)
{
    if (!e->lazy_ok)
        return;
    for (int j = 0; j < e->len; j++) {
        struct req *q = &e->R[e->run[j]];
        if (q->in_d && !q->fin)
            lazy_settle (e, q);
    }
    lazy_compact (e);
    e->lazy_ok = 0;
}

/* The lazy state from settled requests: 0, or -1 when run[] is not
 * decoders then prompts (then the eager code runs the step).
 */
static int lazy_rebuild (struct engine *e)
{
    e->n_d = 0;
    e->ctx_d = 0;
    e->n_heap = 0;
    if (e->len != e->n_run)
        return -1; /* not after the eager code */
    int j = 0;
    while (j < e->n_run && is_decoding (&e->R[e->run[j]]))
        j++;
    for (int k = j; k < e->n_run; k++)
        if (e->R[e->run[k]].prefilled >= e->R[e->run[k]].target)
            return -1;
    for (int k = 0; k < j; k++)
        lazy_join (e, &e->R[e->run[k]], e->run[k]);
    e->lazy_ok = 1;
    return 0;
}

/* decode_set on the lazy state: the decode set, and the preemptions of
 * incremental KV (the newest first).
 */
static void lazy_decode_set (struct engine *e)
{
    e->n_dec = e->n_d;
    e->dec_ctx = (double)e->ctx_d;
    e->n_pre = e->n_run - e->n_d;
    if (e->E->reserve_full)
        return;
    while (e->kv_used + e->n_dec > e->cap && e->n_run > 1) {
        int v;
        do /* the newest; the holes of finished requests skipped */
            v = e->run[--e->len];
        while (e->R[v].fin);
        e->n_run--;
        struct req *q = &e->R[v];
        if (q->in_d) { /* a decoder */
            lazy_settle (e, q);
            e->n_d--;
            e->n_dec--;
            e->ctx_d -= q->in + q->gen;
            e->dec_ctx = (double)e->ctx_d;
        }
        e->kv_used -= q->kv;
        q->kv = 0;
        q->target = q->in + q->gen;
        q->prefilled = 0;
        e->wq_head = (e->wq_head - 1 + e->n) % e->n;
        e->wq[e->wq_head] = v;
        e->wq_len++;
        e->preempt++;
    }
    e->n_pre = e->n_run - e->n_d;
}

/* A request that finished at this step, as apply_step retires it. */
static void lazy_retire (struct engine *e, struct req *q, long long *kv_add)
{
    q->fin = 1; /* a hole in run[] from now on */
    e->n_run--;
    q->t_done = e->t;
    *kv_add -= (long long)q->kv;
    q->kv = 0;
    e->done++;
    if (e->w->arrivals == GP_ARR_CLOSED && e->n_created < e->n) {
        e->R[e->n_created].arrival = e->R[e->n_created].t_sent = e->t;
        e->n_created++;
    }
}

static long long lazy_finish (struct engine *e, int *n_fin);
static void lazy_holes (struct engine *e);

/* apply_step on the lazy state (every decoder in the load): one token to
 * every decoder, the filled prompts advanced (those complete become
 * decoders), the finished retired.
 */
static void lazy_apply (struct engine *e)
{
    long long kv_add = 0;
    int n_fin = 0, n_old = e->n_d;
    e->G++;
    e->ctx_d += n_old;
    if (!e->E->reserve_full)
        kv_add += n_old;
    int p0 = e->len - (e->n_run - n_old); /* the prompts: no holes */
    for (int j = p0; j < e->len; j++) { /* the filled prompts */
        int id = e->run[j];
        struct req *q = &e->R[id];
        if (q->chunk <= 0)
            break; /* the rest got no tokens */
        q->prefilled += q->chunk;
        q->chunk = 0;
        if (q->prefilled < q->target)
            break; /* a partial chunk is the last */
        if (q->gen == 0) {
            q->gen = 1;
            q->t_first = e->t;
            if (q->gen >= q->out) {
                lazy_retire (e, q, &kv_add);
                n_fin++;
                continue;
            }
        }
        lazy_join (e, q, id);
    }
    kv_add += lazy_finish (e, &n_fin);
    lazy_holes (e);
    e->kv_used += (double)kv_add;
    if (e->kv_used > e->kv_peak)
        e->kv_peak = e->kv_used;
}


/* The first live entry of the finish heap (stale ones dropped): the step
 * at which the next decoder finishes.  The heap holds every decoder.
 */
static long lazy_next_fin (struct engine *e)
{
    while (e->n_heap > 0) {
        const struct req *q = &e->R[e->heap[0].id];
        if (q->in_d && !q->fin && fin_key (q) == e->heap[0].key)
            return e->heap[0].key;
        heap_pop (e);
    }
    return LONG_MAX;
}

/* Retire the decoders whose last token came at step G, as apply_step and
 * run_retire do; returns minus the KV tokens they held.
 */
static long long lazy_finish (struct engine *e, int *n_fin)
{
    long long delta = 0; /* minus the KV tokens freed */
    while (lazy_next_fin (e) <= e->G) {
        struct req *q = &e->R[e->heap[0].id];
        heap_pop (e);
        lazy_settle (e, q);
        e->ctx_d -= q->in + q->gen;
        e->n_d--;
        lazy_retire (e, q, &delta);
        (*n_fin)++;
    }
    return delta;
}

/* Drop the finished requests (lazy_retire marks them for good) from
 * run[], keeping the order.
 */
static void lazy_compact (struct engine *e)
{
    int keep = 0;
    for (int j = 0; j < e->len; j++) {
        int id = e->run[j];
        e->run[keep] = id;
        keep += !e->R[id].fin;
    }
    e->len = keep;
}

/* Finished requests stay in run[] as holes (among the decoders) until
 * they outnumber both 16 and the running ones: each compaction then
 * costs O(1) per hole, and run[] (2n + 32 entries) never fills.
 */
static void lazy_holes (struct engine *e)
{
    int holes = e->len - e->n_run;
    if (holes > 16 && holes > e->n_run)
        lazy_compact (e);
}

/* decode_run on the lazy state: the same steps, the decoders credited
 * through G instead of one by one.
 */
static long lazy_decode_run (struct engine *e)
{
    long total = 0;
    while (e->iters <= 200000000L) {
        long left = lazy_next_fin (e) - e->G;
        struct gp__decode_step d;
        gp__infer_decode_prep (e->m, e->n_dec, &d);
        int stop = 0, n_d = e->n_d;
        long s = left > 1 ? run_steps (e, &d, left - 1, &stop) : 0;
        total += s;
        e->G += s;
        e->ctx_d += (long long)s * n_d;
        if (stop)
            return total;
        /* the step that finishes the decoders with 'left' tokens left */
        e->t += gp__infer_decode_time (&d, e->dec_ctx);
        if (!e->E->reserve_full)
            e->kv_used += (double)e->n_dec;
        e->iters++;
        e->batch_sum += (double)e->n_dec;
        total++;
        e->G++;
        e->ctx_d += n_d;
        int n_fin = 0;
        long long freed = -lazy_finish (e, &n_fin);
        lazy_holes (e);
        e->n_dec = e->n_d;
        e->dec_ctx = (double)e->ctx_d;
        e->kv_used -= (double)freed;
        if (e->kv_used > e->kv_peak)
            e->kv_peak = e->kv_used;
        if (e->n_run == 0 || run_next_start (e))
            return total;
    }
    return total;
}

/* The engine loop until every request is done. */
static int run_engine (struct engine *e, gp_error_t *err)
{
    const struct gp_engine_params *E = e->E;
    while (e->done < e->n) {
        int a = take_arrivals (e);
        if (a > 0)
            continue;
        if (a < 0)
            break;
        admit (e);
        if (e->n_run == 0) /* cannot happen after the fit check */
            return gp_errprintf (err, GP_EINTERNAL, "simulate: stalled");
        if (e->jump && !e->lazy_ok)
            lazy_rebuild (e); /* else (-1) eager for this step */
        if (e->lazy_ok)
            lazy_decode_set (e);
        else
            decode_set (e);
        int all_dec = e->n_dec <= E->max_num_tokens || E->max_num_tokens <= 0;
        double budget = E->max_num_tokens > 0 ? E->max_num_tokens : 8192;
        if (e->jump && all_dec && e->n_pre == 0 && e->n_dec == e->n_run
            && e->n_dec <= budget) {
            if (e->n_run > e->max_b)
                e->max_b = e->n_run;
            if ((e->lazy_ok ? lazy_decode_run (e) : decode_run (e)) > 0)
                continue;
        }
        int lazy = e->lazy_ok && all_dec && e->n_dec <= budget;
        if (e->lazy_ok && !lazy) { /* the eager step on settled requests */
            lazy_flush (e);
            decode_set (e); /* the same set, and pre[] */
        }
        struct gp_iter_load L;
        build_load (e, &L, lazy ? e->len - e->n_pre : -1);
        e->t += gp_infer_iter_time (e->m, &L, NULL);
        e->iters++;
        e->batch_sum += L.n_decode + (L.n_logits - L.n_decode);
        if (e->n_run > e->max_b)
            e->max_b = e->n_run;
        if (lazy)
            lazy_apply (e);
        else
            apply_step (e, all_dec);
        if (e->iters > 200000000L)
            return gp_errprintf (err, GP_EINTERNAL,
                                 "simulate: iteration limit");
    }
    return 0;
}

/* Sort 'v' (n values, no NaN) ascending: an LSD radix sort, eight bits a
 * pass, of the IEEE-754 bit patterns mapped to unsigned integers in the
 * order of the values (sign bit set on non-negatives, all bits flipped on
 * negatives); passes where every key has the same byte are skipped.  The
 * result is the array any correct sort gives (equal keys are equal
 * values), faster than qsort's comparator calls.  'k' has room for 2n.
 */
static void sort_values (double *v, size_t n, uint64_t *k)
{
    static const uint64_t top = 0x8000000000000000ULL;
    uint64_t *a = k, *b = k + n;
    size_t cnt[8][256];
    memset (cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy (&u, &v[i], sizeof u);
        u = (u & top) ? ~u : u | top;
        a[i] = u;
        for (int d = 0; d < 8; d++)
            cnt[d][(u >> (8 * d)) & 0xff]++;
    }
    for (int d = 0; d < 8; d++) {
        size_t *c = cnt[d], sum = 0;
        if (n == 0 || c[(a[0] >> (8 * d)) & 0xff] == n)
            continue; /* one bucket: the order stands */
        for (int j = 0; j < 256; j++) {
            size_t x = c[j];
            c[j] = sum;
            sum += x;
        }
        for (size_t i = 0; i < n; i++)
            b[c[(a[i] >> (8 * d)) & 0xff]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = (a[i] & top) ? a[i] & ~top : ~a[i];
        memcpy (&v[i], &u, sizeof u);
    }
}

/* The k-th smallest (0-based) of the n values of 'v' (no NaN), the value
 * v[k] holds once 'v' is sorted: a quickselect (median-of-three pivot,
 * insertion sort under 16 values) that permutes 'v'.  After 64 rounds
 * (a sample that defeats the pivots) the rest is sorted.  The values are
 * never -0 (differences of equal times are +0), so equal keys are equal
 * values and the answer is the sorted array's, bit for bit.
 */
static double kth_smallest (double *v, size_t n, size_t k, uint64_t *keys)
{
    size_t lo = 0, hi = n - 1;
    for (int round = 0; hi > lo; round++) {
        if (hi - lo < 16 || round == 64) {
            if (hi - lo < 16) {
                for (size_t i = lo + 1; i <= hi; i++) {
                    double x = v[i];
                    size_t j = i;
                    for (; j > lo && v[j - 1] > x; j--)
                        v[j] = v[j - 1];
                    v[j] = x;
                }
            } else {
                sort_values (v + lo, hi - lo + 1, keys);
            }
            break;
        }
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double p = a < b ? (b < c ? b : (a < c ? c : a))
                         : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        for (;;) { /* Hoare: [lo, j] <= p <= [i, hi], j < i */
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i >= j)
                break;
            double t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        if (i == j) { /* v[i] == p, in its place */
            if (k == i)
                break;
            if (k < i)
                hi = i - 1;
            else
                lo = i + 1;
        } else if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            break; /* between: equal to the pivot */
        }
    }
    return v[k];
}

/* gp__percentile of 'v' as if sorted (nearest rank): its k-th value.
 * Percentiles of one sample are asked in increasing order: '*from' (0 at
 * first) is where the previous one was selected plus one; every value
 * from there on is at least that one, so the next is selected there.
 */
static double pct (double *v, size_t n, double p, uint64_t *keys,
                   size_t *from)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)ceil (p * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    size_t f = *from;
    double x;
    if (k == f) /* the previous one */
        x = v[k - 1];
    else if (k > f)
        x = kth_smallest (v + f, n - f, k - 1 - f, keys);
    else
        x = kth_smallest (v, n, k - 1, keys);
    *from = k;
    return x;
}

/* Statistics over the measured window (warm-up requests skipped). */
static void statistics (struct engine *e, struct gp_sim_result *res)
{
    const struct gp_workload *w = e->w;
    int n = e->n, conc = e->conc;
    struct req *R = e->R;
    memset (res, 0, sizeof *res);
    int skip = 0;
    if (w->arrivals == GP_ARR_CLOSED && !e->whole)
        skip = conc < n / 2 ? conc : n / 4;
    else if (w->arrivals == GP_ARR_POISSON)
        skip = n / 10;
    /* order of completion: the skip-th and the last done time (the
     * window's start and end) */
    double *done_t = e->s_e2e; /* reuse as scratch, refilled below */
    double t_end = 0;
    for (int i = 0; i < n; i++) {
        done_t[i] = R[i].t_done;
        if (i == 0 || done_t[i] > t_end)
            t_end = done_t[i];
    }
    double t0 = (skip > 0 && w->arrivals == GP_ARR_CLOSED)
                    ? kth_smallest (done_t, (size_t)n, (size_t)skip - 1,
                                    e->keys)
                    : 0.0;
    double tok = 0, out_sum = 0;
    size_t k = 0, kt = 0;
    for (int i = 0; i < n; i++) {
        struct req *q = &R[i];
        tok += q->out;
        if (i < skip)
            continue;
        out_sum += q->out;
        e->s_ttft[k] = q->t_first - q->t_sent;
        e->s_q[k] = q->t_admit - q->t_sent;
        if (q->out > 1)
            e->s_tpot[kt++] = (q->t_done - q->t_first) / (q->out - 1);
        k++;
    }
    for (int i = skip, j = 0; i < n; i++, j++)
        e->s_e2e[j] = R[i].t_done - R[i].t_sent;
    res->n_done = e->done;
    res->makespan_s = t_end;
    res->e2e_mean_s = mean_of (e->s_e2e, k);
    if (w->arrivals == GP_ARR_CLOSED && e->whole) {
        /* the client's figure: every output token over the run, from
         * the first send (t = 0) to the last completion */
        res->out_tok_s = t_end > 0 ? tok / t_end : 0;
        res->req_s = t_end > 0 ? n / t_end : 0;
    } else if (w->arrivals == GP_ARR_CLOSED) {
        /* Little's law over the measured requests: conc in flight */
        double e2e = res->e2e_mean_s;
        res->req_s = e2e > 0 ? conc / e2e : 0;
        res->out_tok_s = k ? res->req_s * out_sum / k : 0;
    } else {
        double span = t_end - t0;
        if (w->arrivals == GP_ARR_POISSON)
            span = t_end - R[0].t_sent;
        res->out_tok_s = span > 0 ? tok / span : 0;
        res->req_s = span > 0 ? n / span : 0;
    }
    res->ttft_mean_s = mean_of (e->s_ttft, k);
    res->tpot_mean_s = mean_of (e->s_tpot, kt);
    /* nearest-rank percentiles: selected, not sorted (the same values) */
    size_t f_ttft = 0, f_tpot = 0, f_e2e = 0, f_q = 0;
    res->ttft_p50_s = pct (e->s_ttft, k, 0.50, e->keys, &f_ttft);
    res->ttft_p90_s = pct (e->s_ttft, k, 0.90, e->keys, &f_ttft);
    res->ttft_p95_s = pct (e->s_ttft, k, 0.95, e->keys, &f_ttft);
    res->ttft_p99_s = pct (e->s_ttft, k, 0.99, e->keys, &f_ttft);
    res->tpot_p50_s = pct (e->s_tpot, kt, 0.50, e->keys, &f_tpot);
    res->tpot_p90_s = pct (e->s_tpot, kt, 0.90, e->keys, &f_tpot);
    res->tpot_p95_s = pct (e->s_tpot, kt, 0.95, e->keys, &f_tpot);
    res->tpot_p99_s = pct (e->s_tpot, kt, 0.99, e->keys, &f_tpot);
    res->e2e_p90_s = pct (e->s_e2e, k, 0.90, e->keys, &f_e2e);
    res->e2e_p95_s = pct (e->s_e2e, k, 0.95, e->keys, &f_e2e);
    res->e2e_p99_s = pct (e->s_e2e, k, 0.99, e->keys, &f_e2e);
    res->queue_p95_s = pct (e->s_q, k, 0.95, e->keys, &f_q);
    res->mean_batch = e->iters ? e->batch_sum / e->iters : 0;
    res->max_batch_seen = e->max_b;
    res->kv_peak_frac = e->cap > 0 ? e->kv_peak / e->cap : 0;
    res->n_preempted = e->preempt;
    res->kv_limited = e->kv_limited;
    res->unstable = e->qmax_at_last_arrival > 100
                    && e->qmax_at_last_arrival > n / 10;
}

int gp_infer_simulate (const struct gp_serve_model *m,
                       const struct gp_workload *w,
                       struct gp_sim_result *res,
                       gp_error_t *err)
{
    return gp__infer_simulate_steps (m, w, 1, res, err);
}

int gp__infer_simulate_steps (const struct gp_serve_model *m,
                              const struct gp_workload *w, int jump,
                              struct gp_sim_result *res, gp_error_t *err)
{
    return gp__infer_simulate_fe (m, w, jump, 0.0, 0.0, res, err);
}

int gp__infer_simulate_fe (const struct gp_serve_model *m,
                           const struct gp_workload *w, int jump,
                           double fe_req_s, double fe_tok_s,
                           struct gp_sim_result *res, gp_error_t *err)
{
    return gp__infer_simulate_run (m, w, jump, fe_req_s, fe_tok_s, 0, res,
                                   err);
}

int gp__infer_simulate_run (const struct gp_serve_model *m,
                            const struct gp_workload *w, int jump,
                            double fe_req_s, double fe_tok_s, int whole,
                            struct gp_sim_result *res, gp_error_t *err)
{
    if (!m || !w || !res)
        return gp_errprintf (err, GP_EINVAL, "simulate: missing argument");
    if (w->in_len < 1 || w->out_len < 1)
        return gp_errprintf (err, GP_EINVAL,
                             "simulate: prompt and output lengths must be "
                             ">= 1 token");
    if (w->arrivals == GP_ARR_POISSON && !(w->rate > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "simulate: Poisson arrivals need a rate > 0");
    struct engine e;
    memset (&e, 0, sizeof e);
    e.m = m;
    e.E = &m->cfg.eng;
    e.w = w;
    e.n = w->n_requests > 0 ? w->n_requests : choose_n (m, w);
    e.conc = w->concurrency > 0 ? w->concurrency : 1;
    e.cap = m->kv_capacity_tokens;
    e.qmax_at_last_arrival = -1;
    e.chunked = m->cfg.arch && m->cfg.arch->attn_chunk_size > 0;
    e.jump = e.chunked ? 0 : jump;
    e.fe_req = fe_req_s > 0 ? fe_req_s : 0.0;
    e.fe_tok = fe_tok_s > 0 ? fe_tok_s : 0.0;
    e.whole = whole != 0;
    int rc = engine_alloc (&e, err);
    if (rc)
        return rc;
    rc = create_requests (&e, err);
    if (!rc && e.chunked && chunks_never_bind (&e))
        e.chunked = 0, e.jump = jump; /* the same bits, decode runs kept */
    if (!rc)
        rc = run_engine (&e, err);
    if (!rc)
        statistics (&e, res);
    engine_free (&e);
    return rc;
}
