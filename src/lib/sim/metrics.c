/* metrics.c - summary metrics of a finished simulation and the
 * conservation checks (every job accounted for; GPU-seconds balance).
 *
 * Percentiles are nearest-rank: the smallest value with at least p % of
 * the sample at or below it (sorted[ceil(p n) - 1]), so every reported
 * figure is an observed value.  Definitions are in docs/model/simulator.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_private.h"
#include "../core/stats.h"



static uint64_t ld64 (const void *base, size_t i)
{
    uint64_t u;
    memcpy (&u, (const char *)base + 8 * i, sizeof u);
    return u;
}

static void st64 (void *base, size_t i, uint64_t u)
{
    memcpy ((char *)base + 8 * i, &u, sizeof u);
}

/* Sort doubles ascending: LSD radix sort, 8 passes of 8 bits over the
 * bit patterns mapped to unsigned order (negative values flipped), in
 * place in 'v' with 'tmp' (n entries) as the second buffer; the order is
 * qsort's with gp__cmp_double for values that are not NaN.  Falls back
 * to qsort when 'tmp' is NULL.
 */
static void sort_doubles (double *v, size_t n, uint64_t *tmp)
{
    if (!tmp) {
        qsort (v, n, sizeof *v, gp__cmp_double);
        return;
    }
    void *a = v, *b = tmp;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = ld64 (v, i);
        st64 (v, i, (u >> 63) ? ~u : u | (1ULL << 63));
    }
    for (int sh = 0; sh < 64; sh += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((ld64 (a, i) >> sh) & 0xff) + 1]++;
        int one = 0;
        for (int k = 1; k <= 256 && !one; k++)
            one = cnt[k] == n;
        if (one)
            continue; /* all equal in this byte */
        for (int k = 0; k < 256; k++)
            cnt[k + 1] += cnt[k];
        for (size_t i = 0; i < n; i++) {
            uint64_t u = ld64 (a, i);
            st64 (b, cnt[(u >> sh) & 0xff]++, u);
        }
        void *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t u = ld64 (a, i);
        st64 (v, i, (u >> 63) ? u & ~(1ULL << 63) : ~u);
    }
}

/* Sort 'v' and fill 'st' ('tmp': scratch of n entries or NULL). */
static void stats (double *v, size_t n, struct gp_wait_stats *st,
                   uint64_t *tmp)
{
    memset (st, 0, sizeof *st);
    st->n = n;
    if (n == 0)
        return;
    sort_doubles (v, n, tmp);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    st->mean_s = sum / (double)n;
    st->p50_s = gp__percentile (v, n, 0.50);
    st->p95_s = gp__percentile (v, n, 0.95);
    st->p99_s = gp__percentile (v, n, 0.99);
    st->max_s = v[n - 1];
}

static const char *const size_names[GP_SIM_N_SIZE_CLASSES] = {
    "1", "2-4", "5-8", "9-32", "33-128", ">128",
};

const char *gp_sim_size_class_str (int c)
{
    return c >= 0 && c < GP_SIM_N_SIZE_CLASSES ? size_names[c] : NULL;
}

/* GPUs of a job as the simulator counts them (create.c: 0 means 1);
 * per-job figures come from the job set and the results, finished jobs
 * having no state slot.
 */
static int job_n (const struct gp_job *g)
{
    return g->n_gpus > 0 ? g->n_gpus : 1;
}

static int size_class (int n)
{
    if (n <= 1)
        return 0;
    if (n <= 4)
        return 1;
    if (n <= 8)
        return 2;
    if (n <= 32)
        return 3;
    if (n <= 128)
        return 4;
    return 5;
}

/* Counts, makespan and GPU-second totals; returns the end time. */
static double totals (struct gp_sim *s)
{
    struct gp_sim_metrics *m = &s->m;
    size_t n = s->n;
    double t_end = s->now;
    m->start_s = n ? s->js->jobs[s->order[0]].submit_s : 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_job_result *r = &s->res[i];
        if (r->state == GP_JOB_DONE)
            m->n_done++;
        else if (r->state == GP_JOB_UNFIT)
            m->n_unfit++;
        else
            m->n_unfinished++;
        if (r->end_s > t_end)
            t_end = r->end_s;
    }
    m->end_s = t_end;
    m->makespan_s = t_end - m->start_s;
    double cap = (double)s->total_gpus * m->makespan_s;
    m->alloc_gpu_s = s->alloc_gpu_s;
    m->useful_gpu_s = s->useful_gpu_s;
    m->lost_gpu_s = s->lost_gpu_s;
    m->restart_gpu_s = s->restart_gpu_s;
    m->slow_gpu_s = s->slow_gpu_s;
    m->frag_gpu_s = s->frag_gpu_s;
    m->utilization = cap > 0 ? s->alloc_gpu_s / cap : 0;
    m->goodput = s->alloc_gpu_s > 0 ? s->useful_gpu_s / s->alloc_gpu_s : 0;
    m->frag_pct = cap > 0 ? 100 * s->frag_gpu_s / cap : 0;
    m->idle_waiting_pct = cap > 0 ? 100 * s->idle_wait_gpu_s / cap : 0;
    m->mean_queue_len = m->makespan_s > 0 ? s->queue_s / m->makespan_s : 0;
    m->n_preemptions = s->n_preempt;
    m->n_failures = s->n_fail;
    m->n_events = s->n_events;
    return t_end;
}

/* Waits by size class, starvation, JCT and slowdown ('buf', 'tmp':
 * scratch of n entries).
 */
static void waits (struct gp_sim *s, double t_end, double *buf,
                   uint64_t *tmp)
{
    struct gp_sim_metrics *m = &s->m;
    size_t n = s->n;
    /* Waits: jobs that started (first start - submit); jobs that never
     * started count with the time they waited until the end.
     */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_job_result *r = &s->res[i];
        const struct gp_job *g = &s->js->jobs[i];
        if (r->state == GP_JOB_UNFIT)
            continue;
        double w = r->first_start_s >= 0 ? r->wait_s : t_end - g->submit_s;
        buf[k++] = w;
        if (job_n (g) >= m->large_job_gpus && w > m->starve_large_max_wait_s)
            m->starve_large_max_wait_s = w;
        if (g->duration_s >= m->long_job_s && w > m->starve_long_max_wait_s)
            m->starve_long_max_wait_s = w;
    }
    stats (buf, k, &m->wait, tmp);
    for (int c = 0; c < GP_SIM_N_SIZE_CLASSES; c++) {
        k = 0;
        for (size_t i = 0; i < n; i++) {
            const struct gp_job_result *r = &s->res[i];
            if (r->state == GP_JOB_UNFIT
                || size_class (job_n (&s->js->jobs[i])) != c)
                continue;
            buf[k++] = r->first_start_s >= 0 ? r->wait_s
                                             : t_end - s->js->jobs[i].submit_s;
        }
        stats (buf, k, &m->wait_by_size[c], tmp);
    }
    /* JCT and slowdown of completed jobs. */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        struct gp_job_result *r = &s->res[i];
        if (r->state != GP_JOB_DONE)
            continue;
        double jct = r->end_s - s->js->jobs[i].submit_s;
        r->slowdown = jct / s->js->jobs[i].duration_s;
        buf[k++] = jct;
    }
    struct gp_wait_stats st;
    stats (buf, k, &st, tmp);
    m->jct_mean_s = st.mean_s;
    m->jct_p50_s = st.p50_s;
    m->jct_p95_s = st.p95_s;
    m->jct_p99_s = st.p99_s;
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (s->res[i].state == GP_JOB_DONE)
            buf[k++] = s->res[i].slowdown;
    stats (buf, k, &st, tmp);
    m->slowdown_mean = st.mean_s;
    m->slowdown_p50 = st.p50_s;
    m->slowdown_p95 = st.p95_s;
}

/* Per-team waits and shares, entitlements and Jain's index. */
static void teams (struct gp_sim *s, double t_end, double *buf,
                   uint64_t *tmp)
{
    struct gp_sim_metrics *m = &s->m;
    size_t n = s->n, k;
    double tot_gpu_s = 0, tot_quota = 0, tot_weight = 0;
    int any_quota = 0;
    for (size_t t = 0; t < s->n_teams; t++) {
        tot_gpu_s += s->teams[t].gpu_s;
        if (s->teams[t].quota >= 0) {
            any_quota = 1;
            tot_quota += s->teams[t].quota;
        }
    }
    for (size_t t = 0; t < s->n_teams; t++) {
        struct gp_sim_team *mt = &m->teams[t];
        const struct steam *st2 = &s->teams[t];
        mt->name = st2->name;
        mt->gpu_s = st2->gpu_s;
        mt->share = tot_gpu_s > 0 ? st2->gpu_s / tot_gpu_s : 0;
        mt->max_dominant_share =
            s->total_gpus ? st2->peak / (double)s->total_gpus : 0;
        mt->n_preempted = st2->n_preempted;
        k = 0;
        for (size_t i = 0; i < n; i++) {
            if (s->js->jobs[i].team != (int32_t)t)
                continue;
            const struct gp_job_result *r = &s->res[i];
            mt->n_jobs++;
            if (r->state == GP_JOB_DONE)
                mt->n_done++;
            if (r->state == GP_JOB_UNFIT)
                continue;
            buf[k++] = r->first_start_s >= 0 ? r->wait_s
                                             : t_end - s->js->jobs[i].submit_s;
        }
        stats (buf, k, &mt->wait, tmp);
        if (mt->n_jobs)
            tot_weight += st2->weight;
    }
    /* Jain's index over teams with jobs of x = share / entitlement, the
     * entitlement being the quota share when quotas are given, else the
     * weight share.
     */
    double sx = 0, sxx = 0;
    int nx = 0;
    for (size_t t = 0; t < s->n_teams; t++) {
        struct gp_sim_team *mt = &m->teams[t];
        const struct steam *st2 = &s->teams[t];
        if (any_quota)
            mt->entitlement = st2->quota > 0 && tot_quota > 0
                                  ? st2->quota / tot_quota
                                  : 0;
        else
            mt->entitlement = mt->n_jobs && tot_weight > 0
                                  ? st2->weight / tot_weight
                                  : 0;
        if (mt->n_jobs == 0 || mt->entitlement <= 0)
            continue;
        double x = mt->share / mt->entitlement;
        sx += x;
        sxx += x * x;
        nx++;
    }
    /* Undefined when no team with jobs has an entitlement (e.g. quotas
     * are given only to teams absent from the trace) or nothing ran:
     * jain_teams = 0 then, and jain_index keeps the neutral 1.
     */
    m->jain_teams = sxx > 0 ? (size_t)nx : 0;
    m->jain_index = nx && sxx > 0 ? sx * sx / (nx * sxx) : 1;
}

/* GPU-seconds balance and job count; GP_EINTERNAL when off. */
static int conservation (struct gp_sim *s, gp_error_t *err)
{
    struct gp_sim_metrics *m = &s->m;
    double parts = s->useful_gpu_s + s->lost_gpu_s + s->restart_gpu_s
                   + s->slow_gpu_s;
    double scale = s->alloc_gpu_s > 1 ? s->alloc_gpu_s : 1;
    double e1 = fabs (s->alloc_gpu_s - s->seg_gpu_s) / scale;
    double e2 = s->n_running ? 0 : fabs (s->seg_gpu_s - parts) / scale;
    m->conservation_err = e1 > e2 ? e1 : e2;
    m->conservation_ok =
        m->conservation_err < 1e-9
        && m->n_done + m->n_unfit + m->n_unfinished == m->n_jobs;
    if (!m->conservation_ok)
        return gp_errprintf (err, GP_EINTERNAL,
                             "simulation: conservation check failed "
                             "(allocated %.6g GPU-s, segments %.6g, "
                             "useful+lost+restart+slow %.6g)",
                             s->alloc_gpu_s, s->seg_gpu_s, parts);
    return 0;
}

int gp__metrics_finish (struct gp_sim *s, gp_error_t *err)
{
    struct gp_sim_metrics *m = &s->m;
    free (m->teams);
    memset (m, 0, sizeof *m);
    m->n_jobs = s->n;
    m->total_gpus = s->total_gpus;
    m->large_job_gpus = s->cfg.large_job_gpus;
    m->long_job_s = s->cfg.long_job_s;
    size_t n = s->n;
    double *buf = malloc ((n ? n : 1) * sizeof *buf);
    /* no memory for 'tmp': stats sort with qsort */
    uint64_t *tmp = malloc ((n ? n : 1) * sizeof *tmp);
    m->teams = calloc (s->n_teams ? s->n_teams : 1, sizeof *m->teams);
    if (!buf || !m->teams) {
        free (buf);
        free (tmp);
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    m->n_teams = s->n_teams;
    double t_end = totals (s);
    waits (s, t_end, buf, tmp);
    teams (s, t_end, buf, tmp);
    free (buf);
    free (tmp);
    for (size_t i = 0; i < s->n_series; i++)
        s->series[i].util = s->total_gpus
                                ? s->series[i].alloc_gpus
                                      / (double)s->total_gpus
                                : 0;

    return conservation (s, err);
}
