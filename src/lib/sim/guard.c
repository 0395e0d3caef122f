/* guard.c - what keeps a simulation finite: range checks of the duration
 * settings, the progress check under node failures, the event cap and the
 * bounded time series (docs/model/simulator.md, "Progress guarantee").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"

int gp__config_check (const struct gp_sim_config *cfg, gp_error_t *err)
{
    static const struct {
        const char *name;
        size_t off;
    } f[] = {
        {"restart_cost_s", offsetof (struct gp_sim_config, restart_cost_s)},
        {"ckpt_interval_s", offsetof (struct gp_sim_config, ckpt_interval_s)},
        {"node_mtbf_s", offsetof (struct gp_sim_config, node_mtbf_s)},
        {"node_repair_s", offsetof (struct gp_sim_config, node_repair_s)},
        {"sample_interval_s",
         offsetof (struct gp_sim_config, sample_interval_s)},
    };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        double v;
        memcpy (&v, (const char *)cfg + f[i].off, sizeof v);
        if (!(v >= 0 && v <= GP_SIM_MAX_DURATION_S))
            return gp_errprintf (err, GP_ERANGE,
                                 "simulation: %s must be in [0, %.0f] s "
                                 "(about 31.7 years)",
                                 f[i].name, GP_SIM_MAX_DURATION_S);
    }
    return 0;
}

/* Under node failures at rate k / MTBF on the k nodes a job holds, a
 * segment of L seconds survives with probability e^(-L k / MTBF): the
 * expected number of attempts to reach the next checkpoint is
 * e^(L k / MTBF).  Refuse runs where some job needs more than
 * GP_SIM_MAX_ATTEMPTS (such a job, in practice, never finishes).
 */
int gp__progress_check (const struct gp_sim *s, gp_error_t *err)
{
    double mtbf = s->cfg.node_mtbf_s;
    if (!(mtbf > 0))
        return 0;
    double lim = log (GP_SIM_MAX_ATTEMPTS);
    for (size_t i = 0; i < s->n; i++) {
        /* before the run: no job has a state slot yet (create.c) */
        const struct gp_job *g = &s->js->jobs[i];
        if (s->st[i] == S_UNFIT)
            continue;
        double ckpt = g->ckpt_interval_s > 0 ? g->ckpt_interval_s
                                             : s->cfg.ckpt_interval_s;
        double seg = ckpt > 0 && ckpt < g->duration_s ? ckpt : g->duration_s;
        double L = s->cfg.restart_cost_s + seg;
        int gpn = s->max_gpn > 0 ? s->max_gpn : 1;
        double k = ceil ((double)(g->n_gpus > 0 ? g->n_gpus : 1) / gpn);
        double x = L * k / mtbf;
        if (x > lim) {
            return gp_errprintf (
                err, GP_EINVAL,
                "simulation cannot make progress: job %lld (line %u) needs "
                "%.6g s on %.0f node(s) without a failure to reach a "
                "checkpoint (restart cost %.6g s + %.6g s of work), but "
                "with a node MTBF of %.6g s it would need about e^%.3g "
                "attempts (limit %.0f); raise the MTBF or lower the restart "
                "cost or the checkpoint interval",
                (long long)g->id, g->line, L, k, s->cfg.restart_cost_s, seg,
                mtbf, x, GP_SIM_MAX_ATTEMPTS);
        }
    }
    return 0;
}

size_t gp__event_cap (const struct gp_sim *s)
{
    if (s->cfg.max_events)
        return s->cfg.max_events;
    return (size_t)GP_SIM_EVENTS_BASE + (size_t)GP_SIM_EVENTS_PER_JOB * s->n;
}

int gp__event_cap_error (const struct gp_sim *s, gp_error_t *err)
{
    static const char *const what[] = {
        "job ends (jobs restarting after preemption)",
        "node failures (jobs killed before they reach a checkpoint)",
        "node repairs",
        "re-keying of running jobs",
        "arrivals",
    };
    size_t best = 0;
    for (size_t k = 1; k < sizeof what / sizeof *what; k++)
        if (s->ev_by_kind[k] > s->ev_by_kind[best])
            best = k;
    size_t left = s->n_pending + s->n_running + (s->n - s->cursor);
    return gp_errprintf (
        err, GP_ERANGE,
        "simulation stopped at its event cap (%zu events) at simulated time "
        "%.6g s with %zu jobs unfinished: most events were %s (%zu; %zu "
        "preemptions, %zu node failures, restart cost %.6g s, node MTBF "
        "%.6g s)",
        gp__event_cap (s), s->now, left, what[best], s->ev_by_kind[best],
        s->n_preempt, s->n_fail, s->cfg.restart_cost_s, s->cfg.node_mtbf_s);
}

/* Merge buckets by 'f' (a power of two) so that bucket 'bf' exists. */
static void coarsen (struct gp_sim *s, double bf)
{
    double f = 1;
    while (bf / f >= (double)GP_SIM_SERIES_MAX)
        f *= 2;
    size_t nn = 0;
    for (size_t i = 0; i < s->n_series; i++) {
        size_t k = (size_t)floor ((double)i / f);
        struct gp_sim_sample *o = &s->series[i], *x = &s->series[k];
        if (k >= nn) {
            struct gp_sim_sample c = *o;
            memset (x, 0, sizeof *x);
            x->alloc_gpus = c.alloc_gpus / f;
            x->queue_len = c.queue_len / f;
            x->running = c.running / f;
            x->frag_gpus = c.frag_gpus / f;
            nn = k + 1;
        } else {
            x->alloc_gpus += o->alloc_gpus / f;
            x->queue_len += o->queue_len / f;
            x->running += o->running / f;
            x->frag_gpus += o->frag_gpus / f;
        }
    }
    s->series_iv *= f;
    for (size_t i = 0; i < nn; i++)
        s->series[i].t_s = (double)i * s->series_iv;
    s->n_series = nn;
}

/* Make bucket 'b' exist; 0, or -1 without memory. */
static int extend (struct gp_sim *s, size_t b)
{
    while (s->n_series <= b) {
        if (s->n_series == s->cap_series) {
            size_t nc = s->cap_series ? s->cap_series * 2 : 256;
            struct gp_sim_sample *a = realloc (s->series, nc * sizeof *a);
            if (!a)
                return -1;
            s->series = a;
            s->cap_series = nc;
        }
        struct gp_sim_sample *x = &s->series[s->n_series];
        memset (x, 0, sizeof *x);
        x->t_s = (double)s->n_series * s->series_iv;
        s->n_series++;
    }
    return 0;
}

/* Add the piecewise-constant state over [t0, t1) to the buckets.  Every
 * step moves to a later bucket, and there are at most GP_SIM_SERIES_MAX
 * buckets, so this ends whatever the interval.
 */
void gp__series_add (struct gp_sim *s, double t0, double t1)
{
    double frag = s->n_pending ? gp__fragmented (s) : 0;
    while (t0 < t1) {
        double iv = s->series_iv;
        double bf = floor (t0 / iv);
        double end = (bf + 1) * iv;
        if (!(end > t0)) { /* t0 / iv rounded down across a boundary */
            bf += 1;
            end = (bf + 1) * iv;
        }
        if (bf + 1 >= (double)GP_SIM_SERIES_MAX) {
            coarsen (s, bf + 1);
            continue;
        }
        size_t b = (size_t)bf;
        if (extend (s, b))
            return; /* series is best effort; metrics unaffected */
        if (end > t1)
            end = t1;
        double w = (end - t0) / iv;
        struct gp_sim_sample *x = &s->series[b];
        x->alloc_gpus += (double)s->alloc_u / GP_MICRO * w;
        x->queue_len += (double)s->n_pending * w;
        x->running += (double)s->n_running * w;
        x->frag_gpus += frag * w;
        t0 = end;
    }
}

double gp_sim_series_interval (const struct gp_sim *s)
{
    return s && s->cfg.sample_interval_s > 0 ? s->series_iv : 0;
}
