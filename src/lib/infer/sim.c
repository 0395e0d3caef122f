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
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/infer.h"
#include "../core/rng.h"
#include "../core/stats.h"

struct req {
    double arrival, t_admit, t_first, t_done;
    int in, out;      /* prompt and output tokens */
    int target;       /* tokens to prefill (prompt, or prompt+generated
                       * after a preemption) */
    int prefilled;    /* of 'target' */
    int gen;          /* output tokens emitted */
    int chunk;        /* prompt tokens scheduled in this iteration */
    double kv;        /* KV tokens allocated */
    int admitted;
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

int gp_infer_simulate (const struct gp_serve_model *m,
                       const struct gp_workload *w,
                       struct gp_sim_result *res,
                       gp_error_t *err)
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
    const struct gp_engine_params *E = &m->cfg.eng;
    int n = w->n_requests > 0 ? w->n_requests : choose_n (m, w);
    int conc = w->concurrency > 0 ? w->concurrency : 1;
    struct req *R = calloc ((size_t)n, sizeof *R);
    int *run = calloc ((size_t)n, sizeof *run);
    int *wq = calloc ((size_t)n, sizeof *wq);
    int *pre = calloc ((size_t)n, sizeof *pre);
    double *s_ttft = calloc ((size_t)n, sizeof (double));
    double *s_tpot = calloc ((size_t)n, sizeof (double));
    double *s_e2e = calloc ((size_t)n, sizeof (double));
    double *s_q = calloc ((size_t)n, sizeof (double));
    if (!R || !run || !wq || !pre || !s_ttft || !s_tpot || !s_e2e || !s_q) {
        free (R), free (run), free (wq), free (pre);
        free (s_ttft), free (s_tpot), free (s_e2e), free (s_q);
        return gp_errprintf (err, GP_ENOMEM, "simulate: out of memory");
    }
    uint64_t seed = w->seed ? (uint64_t)w->seed : 42;
    double cap = m->kv_capacity_tokens;
    double hit = m->cfg.prefix_hit > 0 && m->cfg.prefix_hit < 1
                     ? m->cfg.prefix_hit
                     : 0.0;

    /* Create requests: lengths for all; arrival times per mode. */
    double t_arr = 0;
    int n_created;
    for (int i = 0; i < n; i++) {
        R[i].in = draw_len (&seed, w->in_len, w->in_dist, w->in_cv);
        R[i].out = draw_len (&seed, w->out_len, w->out_dist, w->out_cv);
        R[i].target = R[i].in;
        R[i].prefilled = (int)floor (R[i].in * hit);
        if (R[i].prefilled >= R[i].in)
            R[i].prefilled = R[i].in - 1;
        if (w->arrivals == GP_ARR_POISSON) {
            t_arr += -log (rng_u01 (&seed)) / w->rate;
            R[i].arrival = t_arr;
        }
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        double need = R[i].in + R[i].out; /* one sequence must fit whole */
        if (need > cap) {
            rc = gp_errprintf (err, GP_EINFEASIBLE,
                               "a request of %d + %d tokens does not fit in "
                               "the KV cache (%.0f tokens per replica)",
                               R[i].in, R[i].out, cap);
            goto out;
        }
    }
    n_created = w->arrivals == GP_ARR_CLOSED ? (conc < n ? conc : n) : n;

    int wq_head = 0, wq_len = 0, n_run = 0, next_arr = 0, done = 0;
    double t = 0, kv_used = 0, kv_peak = 0, batch_sum = 0;
    long iters = 0;
    int max_b = 0, preempt = 0, kv_limited = 0, unstable = 0;
    int qmax_at_last_arrival = -1;
    while (done < n) {
        /* arrivals up to now */
        while (next_arr < n_created && R[next_arr].arrival <= t) {
            wq[(wq_head + wq_len) % n] = next_arr;
            wq_len++;
            next_arr++;
        }
        if (w->arrivals == GP_ARR_POISSON && next_arr == n
            && qmax_at_last_arrival < 0)
            qmax_at_last_arrival = wq_len;
        if (n_run == 0 && wq_len == 0) {
            if (next_arr < n_created) {
                t = R[next_arr].arrival;
                continue;
            }
            break; /* nothing left (should not happen) */
        }
        /* admission, FIFO */
        while (wq_len > 0 && n_run < E->max_batch) {
            struct req *q = &R[wq[wq_head]];
            double need = E->reserve_full ? q->target + (q->out - q->gen)
                                          : q->target + 1;
            if (kv_used + need > cap) {
                kv_limited = 1;
                break;
            }
            kv_used += need;
            q->kv = need;
            if (!q->admitted) {
                q->admitted = 1;
                q->t_admit = t;
            }
            run[n_run++] = wq[wq_head];
            wq_head = (wq_head + 1) % n;
            wq_len--;
        }
        if (n_run == 0) { /* cannot happen after the fit check */
            rc = gp_errprintf (err, GP_EINTERNAL, "simulate: stalled");
            goto out;
        }
        /* decode set; incremental KV may preempt the newest sequences */
        struct gp_iter_load L;
        memset (&L, 0, sizeof L);
        /* one pass: decoders (count, context) and prompts still to fill */
        int n_dec = 0, n_pre = 0;
        double dec_ctx = 0;
        for (int j = 0; j < n_run; j++) {
            struct req *q = &R[run[j]];
            if (q->prefilled < q->target)
                pre[n_pre++] = j;
            else if (q->gen > 0 && q->gen < q->out) {
                n_dec++;
                dec_ctx += q->in + q->gen;
            }
        }
        if (!E->reserve_full) {
            while (kv_used + n_dec > cap && n_run > 1) {
                int v = run[--n_run];
                struct req *q = &R[v];
                if (q->prefilled >= q->target && q->gen > 0
                    && q->gen < q->out) {
                    n_dec--;
                    dec_ctx -= q->in + q->gen;
                }
                kv_used -= q->kv;
                q->kv = 0;
                q->target = q->in + q->gen;
                q->prefilled = 0;
                wq_head = (wq_head - 1 + n) % n;
                wq[wq_head] = v;
                wq_len++;
                preempt++;
            }
            while (n_pre > 0 && pre[n_pre - 1] >= n_run)
                n_pre--;
        }
        double budget = E->max_num_tokens > 0 ? E->max_num_tokens : 8192;
        if (n_dec <= budget) {
            L.n_decode = n_dec;
            L.decode_ctx = dec_ctx;
            L.n_logits = n_dec;
            budget -= n_dec;
        } else { /* more decoders than the token budget: first come */
            for (int j = 0; j < n_run && budget >= 1; j++) {
                struct req *q = &R[run[j]];
                if (q->prefilled >= q->target && q->gen > 0
                    && q->gen < q->out) {
                    L.n_decode += 1;
                    L.decode_ctx += q->in + q->gen;
                    L.n_logits += 1;
                    budget -= 1;
                    q->chunk = -1; /* decodes this step */
                }
            }
        }
        /* prefill chunks in admission order */
        double pre_tok = 0;
        for (int i = 0; i < n_pre; i++) {
            struct req *q = &R[run[pre[i]]];
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
            L.n_prefill += chunk;
            L.prefill_ctx += chunk * (q->prefilled + (chunk + 1) / 2.0);
            if (chunk == left)
                L.n_logits += 1;
            q->chunk = chunk; /* pages were allocated at admission */
        }
        int all_dec = n_dec <= E->max_num_tokens || E->max_num_tokens <= 0;
        double dt = gp_infer_iter_time (m, &L, NULL);
        t += dt;
        iters++;
        batch_sum += L.n_decode + (L.n_logits - L.n_decode);
        if (n_run > max_b)
            max_b = n_run;
        /* apply the step */
        int keep = 0;
        for (int j = 0; j < n_run; j++) {
            int id = run[j];
            struct req *q = &R[id];
            int finished = 0;
            if (q->chunk > 0) { /* got a prefill chunk */
                q->prefilled += q->chunk;
                q->chunk = 0;
                if (q->prefilled >= q->target && q->gen == 0) {
                    q->gen = 1;
                    q->t_first = t;
                    if (q->gen >= q->out)
                        finished = 1;
                }
            } else if (q->prefilled >= q->target && q->gen > 0
                       && q->gen < q->out && (all_dec || q->chunk < 0)) {
                q->chunk = 0;
                q->gen++;
                if (!E->reserve_full) {
                    kv_used += 1;
                    q->kv += 1;
                }
                if (q->gen >= q->out)
                    finished = 1;
            }
            if (finished) {
                q->t_done = t;
                kv_used -= q->kv;
                q->kv = 0;
                done++;
                if (w->arrivals == GP_ARR_CLOSED && n_created < n) {
                    R[n_created].arrival = t;
                    n_created++;
                }
            } else {
                run[keep++] = id;
            }
        }
        n_run = keep;
        if (kv_used > kv_peak)
            kv_peak = kv_used;
        if (iters > 200000000L) {
            rc = gp_errprintf (err, GP_EINTERNAL,
                               "simulate: iteration limit");
            goto out;
        }
    }
    if (qmax_at_last_arrival > 100 && qmax_at_last_arrival > n / 10)
        unstable = 1;

    /* statistics over the measured window */
    memset (res, 0, sizeof *res);
    int skip = 0;
    if (w->arrivals == GP_ARR_CLOSED)
        skip = conc < n / 2 ? conc : n / 4;
    else if (w->arrivals == GP_ARR_POISSON)
        skip = n / 10;
    /* order of completion: sort done times to find the window start */
    double *done_t = s_e2e; /* reuse as scratch, refilled below */
    for (int i = 0; i < n; i++)
        done_t[i] = R[i].t_done;
    qsort (done_t, (size_t)n, sizeof (double), gp__cmp_double);
    double t0 = (skip > 0 && w->arrivals == GP_ARR_CLOSED) ? done_t[skip - 1]
                                                         : 0.0;
    double t_end = done_t[n - 1];
    double tok = 0, out_sum = 0;
    size_t k = 0, kt = 0;
    for (int i = 0; i < n; i++) {
        struct req *q = &R[i];
        tok += q->out;
        if (i < skip)
            continue;
        out_sum += q->out;
        s_ttft[k] = q->t_first - q->arrival;
        s_q[k] = q->t_admit - q->arrival;
        if (q->out > 1)
            s_tpot[kt++] = (q->t_done - q->t_first) / (q->out - 1);
        k++;
    }
    for (int i = skip, j = 0; i < n; i++, j++)
        s_e2e[j] = R[i].t_done - R[i].arrival;
    res->n_done = done;
    res->makespan_s = t_end;
    res->e2e_mean_s = mean_of (s_e2e, k);
    if (w->arrivals == GP_ARR_CLOSED) {
        /* Little's law over the measured requests: conc in flight */
        double e2e = res->e2e_mean_s;
        res->req_s = e2e > 0 ? conc / e2e : 0;
        res->out_tok_s = k ? res->req_s * out_sum / k : 0;
    } else {
        double span = t_end - t0;
        if (w->arrivals == GP_ARR_POISSON)
            span = t_end - R[0].arrival;
        res->out_tok_s = span > 0 ? tok / span : 0;
        res->req_s = span > 0 ? n / span : 0;
    }
    res->ttft_mean_s = mean_of (s_ttft, k);
    res->tpot_mean_s = mean_of (s_tpot, kt);
    qsort (s_ttft, k, sizeof (double), gp__cmp_double);
    qsort (s_tpot, kt, sizeof (double), gp__cmp_double);
    qsort (s_e2e, k, sizeof (double), gp__cmp_double);
    qsort (s_q, k, sizeof (double), gp__cmp_double);
    res->ttft_p50_s = gp__percentile (s_ttft, k, 0.50);
    res->ttft_p95_s = gp__percentile (s_ttft, k, 0.95);
    res->ttft_p99_s = gp__percentile (s_ttft, k, 0.99);
    res->tpot_p50_s = gp__percentile (s_tpot, kt, 0.50);
    res->tpot_p95_s = gp__percentile (s_tpot, kt, 0.95);
    res->e2e_p95_s = gp__percentile (s_e2e, k, 0.95);
    res->queue_p95_s = gp__percentile (s_q, k, 0.95);
    res->mean_batch = iters ? batch_sum / iters : 0;
    res->max_batch_seen = max_b;
    res->kv_peak_frac = cap > 0 ? kv_peak / cap : 0;
    res->n_preempted = preempt;
    res->kv_limited = kv_limited;
    res->unstable = unstable;
out:
    free (R), free (run), free (wq), free (pre);
    free (s_ttft), free (s_tpot), free (s_e2e), free (s_q);
    return rc;
}
