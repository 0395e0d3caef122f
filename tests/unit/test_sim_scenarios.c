/* test_sim_scenarios.c - scheduler scenarios with hand-computed schedules.
 *
 * Every directory under tests/scenarios/ holds a tiny cluster
 * (cluster.yaml), a job list in the generic trace format (jobs.csv), the
 * simulation settings (sim.yaml: policy, placement, restart_cost,
 * checkpoint_interval, comm_share, las_threshold) and the schedule worked
 * out by hand (expected.csv: id, start, end, preempted and optionally
 * lost_gpu_s, nodes, racks).  The harness runs the real policy and checks
 * every job, plus the simulator's conservation checks (the Slurm
 * backfill_test pattern).  tests/scenarios/README.md explains each case.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/csv.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/spec.h"
#include "gpuplan/trace.h"

#define SCEN GP_SOURCE_DIR "/tests/scenarios"

struct settings {
    char policy[32];
    char placement[32];
    double restart_cost;
    double ckpt;
    double comm;
    double las;
};

static const struct gp_field set_fields[] = {
    {"policy", GP_F_STRING, offsetof (struct settings, policy), 32,
     GP_F_REQUIRED, 0, NULL, 0, 0},
    {"placement", GP_F_STRING, offsetof (struct settings, placement), 32, 0,
     0, NULL, 0, 0},
    {"restart_cost", GP_F_QUANTITY, offsetof (struct settings, restart_cost),
     0, 0, GP_Q_DURATION, NULL, 0, 0},
    {"checkpoint_interval", GP_F_QUANTITY, offsetof (struct settings, ckpt),
     0, 0, GP_Q_DURATION, NULL, 0, 0},
    {"comm_share", GP_F_DOUBLE, offsetof (struct settings, comm), 0, 0, 0,
     NULL, 0, 0},
    {"las_threshold", GP_F_DOUBLE, offsetof (struct settings, las), 0, 0, 0,
     NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};

struct expect {
    const struct gp_jobset *js;
    const struct gp_job_result *res;
    const char *name;
    int col[8];
    size_t n_checked;
};

static double fld (const struct gp_csv_row *row, int c)
{
    return c >= 0 && (size_t)c < row->n_fields ? strtod (row->fields[c], NULL)
                                               : NAN;
}

static int on_expect (const struct gp_csv_row *row, void *arg,
                      gp_error_t *err)
{
    struct expect *e = arg;
    static const char *const names[] = {"id", "start", "end", "preempted",
                                        "lost_gpu_s", "nodes", "racks"};
    (void)err;
    if (row->index == 0) {
        for (int i = 0; i < 7; i++)
            e->col[i] = gp_csv_col (row, names[i]);
        assert_true (e->col[0] >= 0 && e->col[1] >= 0 && e->col[2] >= 0
                     && e->col[3] >= 0);
        return 0;
    }
    long long id = (long long)fld (row, e->col[0]);
    size_t j;
    for (j = 0; j < e->js->n_jobs; j++)
        if (e->js->jobs[j].id == id)
            break;
    if (j == e->js->n_jobs)
        fail_msg ("%s: expected.csv:%zu: no job %lld", e->name, row->line, id);
    const struct gp_job_result *r = &e->res[j];
    double want[7];
    double got[7] = {(double)id, r->first_start_s, r->end_s, r->n_preempt,
                     r->lost_gpu_s, r->n_nodes, r->n_racks};
    for (int i = 1; i < 7; i++) {
        if (e->col[i] < 0)
            continue;
        want[i] = fld (row, e->col[i]);
        if (fabs (want[i] - got[i]) > 1e-9)
            fail_msg ("%s: job %lld: %s = %g, expected %g (expected.csv:%zu)",
                      e->name, id, names[i], got[i], want[i], row->line);
    }
    e->n_checked++;
    return 0;
}

static void run_scenario (const char *name)
{
    char path[512];
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    snprintf (path, sizeof path, "%s/%s/cluster.yaml", SCEN, name);
    struct gp_doc *cdoc = gp_doc_load (path, &err);
    if (!cdoc)
        fail_msg ("%s", err.text);
    struct gp_cluster *cl = gp_cluster_from_doc (cdoc, cat, &err);
    if (!cl)
        fail_msg ("%s", err.text);
    snprintf (path, sizeof path, "%s/%s/sim.yaml", SCEN, name);
    struct gp_doc *sdoc = gp_doc_load (path, &err);
    if (!sdoc)
        fail_msg ("%s", err.text);
    struct settings st;
    memset (&st, 0, sizeof st);
    struct gp_sim_config cfg;
    gp_sim_config_init (&cfg);
    st.restart_cost = cfg.restart_cost_s;
    st.ckpt = cfg.ckpt_interval_s;
    st.comm = cfg.comm_share;
    st.las = 0; /* 0 = the LAS policy's default */
    if (gp_doc_unpack (sdoc, gp_doc_root (sdoc), "sim", set_fields, &st,
                       &err))
        fail_msg ("%s", err.text);
    cfg.cluster = cl;
    cfg.policy = gp_policy_find (st.policy, &err);
    if (!cfg.policy)
        fail_msg ("%s: %s", name, err.text);
    if (st.placement[0]
        && gp_placement_parse (st.placement, &cfg.placement, &err))
        fail_msg ("%s: %s", name, err.text);
    cfg.restart_cost_s = st.restart_cost;
    cfg.ckpt_interval_s = st.ckpt;
    cfg.comm_share = st.comm;
    struct gp_policy_setting las = {"threshold_gpu_s", st.las};
    if (st.las > 0) {
        cfg.policy_params = &las;
        cfg.n_policy_params = 1;
    }
    snprintf (path, sizeof path, "%s/%s/jobs.csv", SCEN, name);
    struct gp_trace_opts to = {.format = GP_TRACE_GENERIC};
    struct gp_jobset *js = gp_trace_read (path, &to, &err);
    if (!js)
        fail_msg ("%s", err.text);
    struct gp_sim *sim = gp_sim_create (&cfg, js, &err);
    if (!sim)
        fail_msg ("%s: %s", name, err.text);
    if (gp_sim_run (sim, &err))
        fail_msg ("%s: %s", name, err.text);
    const struct gp_sim_metrics *m = gp_sim_get_metrics (sim);
    assert_true (m->conservation_ok);
    assert_int_equal (m->n_done, js->n_jobs);
    struct expect e = {js, gp_sim_get_results (sim, NULL), name, {0}, 0};
    snprintf (path, sizeof path, "%s/%s/expected.csv", SCEN, name);
    if (gp_csv_parse_file (path, ',', on_expect, &e, &err))
        fail_msg ("%s", err.text);
    assert_int_equal (e.n_checked, js->n_jobs);
    gp_sim_destroy (sim);
    gp_jobset_destroy (js);
    gp_doc_destroy (sdoc);
    gp_cluster_destroy (cl);
    gp_doc_destroy (cdoc);
    gp_catalog_destroy (cat);
}

static void test_all_scenarios (void **state)
{
    (void)state;
    DIR *d = opendir (SCEN);
    assert_non_null (d);
    char names[64][128];
    int n = 0;
    struct dirent *de;
    while ((de = readdir (d)) && n < 64) {
        if (de->d_name[0] == '.' || strchr (de->d_name, '.')
            || strcmp (de->d_name, "invalid") == 0)
            continue;
        snprintf (names[n++], sizeof names[0], "%s", de->d_name);
    }
    closedir (d);
    assert_true (n >= 10);
    /* Every policy has at least one scenario. */
    for (size_t p = 0; gp_policies[p]; p++) {
        int found = 0;
        for (int i = 0; i < n && !found; i++) {
            char path[512];
            snprintf (path, sizeof path, "%s/%s/sim.yaml", SCEN, names[i]);
            FILE *f = fopen (path, "r");
            char line[128];
            while (f && fgets (line, sizeof line, f))
                if (strncmp (line, "policy: ", 8) == 0) {
                    line[strcspn (line, "\n")] = '\0';
                    found |= strcmp (line + 8, gp_policies[p]->name) == 0;
                }
            if (f)
                fclose (f);
        }
        if (!found)
            fail_msg ("policy %s has no scenario", gp_policies[p]->name);
    }
    for (int i = 0; i < n; i++)
        run_scenario (names[i]);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_all_scenarios),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
