/* sim_text.c - the human reports of 'simulate': one run, a sweep, and a
 * fill run, with aligned tables.  Renderers never compute.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/sim.h"
#include "report_private.h"
#include "gpuplan/units.h"

/* ---- aligned table: numeric-looking cells right-aligned, the last
 * column left-aligned without padding, two spaces between columns.
 */
#define TCOLS 6

struct ttab {
    size_t n_cols, n_rows, cap;
    char (*cells)[TCOLS][96];
    int oom;    /* a row could not be added: the report fails */
};

static void tab_add (struct ttab *t, const char *const *cells)
{
    if (t->n_rows == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 16;
        void *p = realloc (t->cells, nc * sizeof *t->cells);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->cells = p;
        t->cap = nc;
    }
    for (size_t i = 0; i < t->n_cols; i++)
        snprintf (t->cells[t->n_rows][i], sizeof t->cells[0][0], "%s",
                  cells[i] ? cells[i] : "");
    t->n_rows++;
}

static int numeric_cell (const char *s)
{
    if (*s == '$' || *s == '-')
        s++;
    return isdigit ((unsigned char)*s);
}

static void tab_print (struct ttab *t, struct rbuf *f)
{
    size_t w[TCOLS] = {0};
    if (t->oom)
        f->failed = 1; /* rows are missing: gp_rb_take reports it */
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < t->n_cols; c++)
            if (strlen (t->cells[r][c]) > w[c])
                w[c] = strlen (t->cells[r][c]);
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            const char *s = t->cells[r][c];
            int last = c + 1 == t->n_cols;
            if (r > 0 && numeric_cell (s))
                gp_rb_printf (f, "%*s", (int)w[c], s);
            else if (last)
                gp_rb_printf (f, "%s", s);
            else
                gp_rb_printf (f, "%-*s", (int)w[c], s);
            if (!last)
                gp_rb_printf (f, "%s", "  ");
        }
        gp_rb_printf (f, "%c", '\n');
    }
    free (t->cells);
    t->cells = NULL;
    t->n_rows = t->cap = 0;
}

static void fmt_dur (double s, char *b, size_t n)
{
    if (s <= 0)
        snprintf (b, n, "0");
    else
        gp_format_quantity (s, GP_Q_DURATION, 0, b, n);
}

static void wait_row (struct ttab *t, const char *label,
                      const struct gp_wait_stats *w)
{
    char nb[32], a[48], b[48], c[48], d[48];
    snprintf (nb, sizeof nb, "%zu", w->n);
    fmt_dur (w->p50_s, a, sizeof a);
    fmt_dur (w->p95_s, b, sizeof b);
    fmt_dur (w->p99_s, c, sizeof c);
    fmt_dur (w->max_s, d, sizeof d);
    const char *row[] = {label, nb, a, b, c, d};
    tab_add (t, row);
}

static void waits_table (struct rbuf *f, const struct gp_sim_metrics *m)
{
    const char *h[] = {"WAIT", "JOBS", "P50", "P95", "P99", "MAX"};
    struct ttab t = {.n_cols = 6};
    tab_add (&t, h);
    wait_row (&t, "all jobs", &m->wait);
    for (int k = 0; k < GP_SIM_N_SIZE_CLASSES; k++) {
        char lab[32];
        if (m->wait_by_size[k].n == 0)
            continue;
        snprintf (lab, sizeof lab, "%s GPU", gp_sim_size_class_str (k));
        wait_row (&t, lab, &m->wait_by_size[k]);
    }
    for (size_t k = 0; k < m->n_teams; k++) {
        char lab[96];
        if (m->teams[k].n_jobs == 0)
            continue;
        snprintf (lab, sizeof lab, "team %s", m->teams[k].name);
        wait_row (&t, lab, &m->teams[k].wait);
    }
    tab_print (&t, f);
}

static void jobs_table (struct rbuf *f, const struct gp_sim_report *r)
{
    const char *jh[] = {"JOB", "SUBMIT", "GPUS", "START", "END",
                        "PREEMPTED"};
    struct ttab t = {.n_cols = 6};
    tab_add (&t, jh);
    for (size_t i = 0; i < r->n_results; i++) {
        const struct gp_job *j = &r->jobs->jobs[i];
        const struct gp_job_result *x = &r->results[i];
        char s0[32], s1[32], s2[32], s3[32] = "-", s4[32] = "-", s5[32];
        snprintf (s0, sizeof s0, "%lld", (long long)j->id);
        snprintf (s1, sizeof s1, "%g", j->submit_s);
        snprintf (s2, sizeof s2, "%d", j->n_gpus);
        if (x->first_start_s >= 0)
            snprintf (s3, sizeof s3, "%g", x->first_start_s);
        if (x->end_s >= 0)
            snprintf (s4, sizeof s4, "%g", x->end_s);
        snprintf (s5, sizeof s5, "%d", x->n_preempt);
        const char *jr[] = {s0, s1, s2, s3, s4, s5};
        tab_add (&t, jr);
    }
    tab_print (&t, f);
}

static void run_text (struct rbuf *f, const struct gp_sim_report *r)
{
    const struct gp_sim_metrics *m = r->metrics;
    const struct gp_jobset *js = r->jobs;
    char a[48], b[48], c[48], d[48], e[48];
    gp_rb_printf (f, "simulate: cluster %s (%lld GPUs), %s trace, policy %s, "
                "placement %s\n",
             r->cluster, m->total_gpus, js->format, r->policy,
             gp_placement_str (r->placement));
    gp_rb_printf (f, "jobs: %zu done, %zu unfit (larger than any pool), %zu "
                "unfinished",
             m->n_done, m->n_unfit, m->n_unfinished);
    if (js->n_skipped)
        gp_rb_printf (f, "; %zu bad rows skipped", js->n_skipped);
    if (js->n_ignored)
        gp_rb_printf (f, "; %zu rows ignored (0 GPUs, 0 s or job steps)",
                 js->n_ignored);
    gp_rb_printf (f, "\n");
    fmt_dur (m->makespan_s, a, sizeof a);
    gp_rb_printf (f, "makespan %s, utilization %.1f%%, goodput %.1f%%, "
                "fragmented %.2f%%, idle while jobs wait %.2f%%, mean queue "
                "%.1f\n\n",
             a, 100 * m->utilization, 100 * m->goodput, m->frag_pct,
             m->idle_waiting_pct, m->mean_queue_len);
    waits_table (f, m);
    fmt_dur (m->jct_p50_s, a, sizeof a);
    fmt_dur (m->jct_p95_s, b, sizeof b);
    fmt_dur (m->starve_large_max_wait_s, c, sizeof c);
    fmt_dur (m->starve_long_max_wait_s, d, sizeof d);
    fmt_dur (m->long_job_s, e, sizeof e);
    gp_rb_printf (f, "\nJCT p50 %s, p95 %s; slowdown p50 %.2f, p95 %.2f\n", a, b,
             m->slowdown_p50, m->slowdown_p95);
    gp_rb_printf (f, "starvation: longest wait of jobs >= %d GPUs %s, of jobs "
                ">= %s %s\n",
             m->large_job_gpus, c, e, d);
    if (m->jain_teams)
        gp_rb_printf (f, "fairness: Jain's index of share/entitlement over teams "
                    "%.3f\n",
                 m->jain_index);
    else
        gp_rb_printf (f, "fairness: Jain's index n/a (no team with jobs has a "
                    "quota or weight entitlement, or nothing ran)\n");
    gp_rb_printf (f, "preemptions %zu, node failures %zu, GPU-hours lost %.1f "
                "(work) + %.1f (restarts)\n",
             m->n_preemptions, m->n_failures, m->lost_gpu_s / 3600,
             m->restart_gpu_s / 3600);
    gp_rb_printf (f, "conservation: %s (GPU-seconds balance within %.1e)\n",
             m->conservation_ok ? "ok" : "FAILED", m->conservation_err);
    if (r->list_jobs) {
        gp_rb_printf (f, "\n");
        jobs_table (f, r);
    }
}

static void sweep_text (struct rbuf *f, const struct gp_sim_report *r)
{
    int load = r->sweep == GP_SIM_SWEEP_LOAD;
    gp_rb_printf (f, "sweep %s: limits p95 wait <= %.0f s, starvation <= %.0f s\n",
             gp_sim_sweep_str (r->sweep), r->max_p95_wait_s,
             r->max_starvation_s);
    for (size_t i = 0; i < r->n_points; i++) {
        const struct gp_sim_sweep_point *p = &r->points[i];
        gp_rb_printf (f, "  %s %-10.4g p95 wait %10.0f s  starvation %10.0f s  "
                    "%s\n",
                 load ? "load x" : "nodes", p->x, p->wait_p95_s,
                 p->starvation_s,
                 p->ok ? "ok" : p->n_unfit ? "unfit jobs" : "over");
    }
    if (r->answer < 0)
        gp_rb_printf (f, "no %s within the searched range meets the limits\n",
                 load ? "load factor" : "node count");
    else if (load)
        gp_rb_printf (f, "largest load factor within the limits: %.3g x the "
                    "trace's arrival rate\n",
                 r->answer);
    else
        gp_rb_printf (f, "smallest %s pool within the limits: %.0f nodes "
                    "(%.0f GPUs)\n",
                 r->sweep_pool, r->answer,
                 r->answer * r->sweep_gpus_per_node);
}

char *gp_report_sim_text (const struct gp_sim_report *r, gp_error_t *err)
{
    struct rbuf b = {0};
    if (r->sweep != GP_SIM_SWEEP_NONE)
        sweep_text (&b, r);
    else
        run_text (&b, r);
    return gp_rb_take (&b, err);
}

char *gp_report_fill_text (const struct gp_fill_input *in,
                           const struct gp_fill_result *r,
                           enum gp_fill_policy policy, uint64_t seed,
                           gp_error_t *err)
{
    struct rbuf sb = {0}, *f = &sb;
    gp_rb_printf (f, "fill: %zu nodes, %lld GPUs, placement %s, seed %llu\n",
             in->n_nodes, r->total_gpus, gp_fill_policy_str (policy),
             (unsigned long long)seed);
    gp_rb_printf (f, "pods arrived %zu, placed %zu, failed %zu; final GPU "
                "allocation %.1f%%\n\n",
             r->n_arrived, r->n_placed, r->n_failed, r->final_alloc_pct);
    const char *h[] = {"DEMAND %", "ALLOCATED %", "FRAGMENTED %"};
    struct ttab t = {.n_cols = 3};
    tab_add (&t, h);
    for (size_t i = 0; i < r->n_curve; i++) {
        if ((i + 1) % 10 && i + 1 != r->n_curve)
            continue;
        char a[32], b[32], c[32];
        snprintf (a, sizeof a, "%.0f", r->curve[i].demand_pct);
        snprintf (b, sizeof b, "%.1f", r->curve[i].alloc_pct);
        snprintf (c, sizeof c, "%.1f", r->curve[i].frag_pct);
        const char *row[] = {a, b, c};
        tab_add (&t, row);
    }
    tab_print (&t, f);
    return gp_rb_take (f, err);
}

/* Time series as CSV. */
char *gp_report_sim_series_csv (const struct gp_sim_report *r,
                                gp_error_t *err)
{
    struct rbuf sb = {0}, *f = &sb;
    gp_rb_printf (f, "t_s,alloc_gpus,utilization,queue_len,running,frag_gpus\n");
    for (size_t i = 0; i < r->n_series; i++) {
        const struct gp_sim_sample *x = &r->series[i];
        gp_rb_printf (f, "%.0f,%.3f,%.5f,%.3f,%.3f,%.3f\n", x->t_s, x->alloc_gpus,
                 x->util, x->queue_len, x->running, x->frag_gpus);
    }
    return gp_rb_take (f, err);
}
