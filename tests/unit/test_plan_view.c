/* test_plan_view.c - the plan as the exporters read it (view.c): the
 * per-workload layouts every option carries (compute.c), a service's
 * replicas per hour of the day, the option's cluster and the option
 * chosen for export; the spec's day 'profile'.  Expected values by hand
 * (docs/formats/export.md, "Plan view").
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gpuplan/arch.h"
#include "gpuplan/cluster.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"
#include "plan/plan_private.h"

#define EXAMPLE GP_SOURCE_DIR "/examples/enterprise-plan.yaml"

struct fx {
    struct gp_catalog *cat;
    struct gp_doc *doc;
    struct gp_plan_spec *spec;
    struct gp_plan_result *res;
};

static void load (struct fx *f, struct gp_doc *doc, gp_error_t *err, int run)
{
    f->doc = doc;
    if (!f->doc)
        fail_msg ("%s", err->text);
    f->spec = gp_plan_spec_from_doc (f->doc, f->cat, err);
    if (!f->spec)
        fail_msg ("%s", err->text);
    if (run && !(f->res = gp_plan_run (f->spec, f->cat, err)))
        fail_msg ("%s", err->text);
}

static void load_file (struct fx *f, const char *path)
{
    gp_error_t err = {0};
    memset (f, 0, sizeof *f);
    f->cat = gp_catalog_load (NULL, &err);
    assert_non_null (f->cat);
    load (f, gp_doc_load (path, &err), &err, 1);
}

static void unload (struct fx *f)
{
    gp_plan_result_destroy (f->res);
    gp_plan_spec_destroy (f->spec);
    gp_doc_destroy (f->doc);
    gp_catalog_destroy (f->cat);
}

/* The enterprise example shared by the tests below (one plan run). */
static struct fx ex;

static int setup (void **state)
{
    (void)state;
    load_file (&ex, EXAMPLE);
    return 0;
}

static int teardown (void **state)
{
    (void)state;
    unload (&ex);
    return 0;
}

/* The invariants of one training or recurring layout on option 'o'. */
static void check_train (const struct gp_plan_option *o,
                         const struct gp_plan_workload *w,
                         const struct gp_plan_wl_plan *p)
{
    assert_int_equal (p->sized, 1);
    assert_true (p->tp >= 1 && p->pp >= 1 && p->dp >= 1 && p->cp >= 1);
    assert_true (p->ep >= 1 && p->vpp >= 1 && p->micro_batch >= 1);
    assert_int_equal (p->gpus, (long long)p->tp * p->pp * p->dp * p->cp);
    /* whole nodes, within the option */
    assert_int_equal (p->gpus % o->gpus_per_node, 0);
    assert_true (p->gpus <= o->gpus);
    assert_true (p->grad_accum >= 1);
    assert_int_equal ((long long)p->micro_batch * p->dp * p->grad_accum,
                      p->global_batch);
    /* the spec's sequence length (pretrain-70b: 8192), else 4096 */
    assert_true (p->seq_len == (w->seq_len > 0 ? w->seq_len : 4096));
    assert_true (p->recompute[0] && p->sharding[0]);
    assert_true (p->step_s > 0 && p->run_days > 0);
    assert_true (p->ckpt_interval_s > 0);
    if (w->kind == GP_WL_TRAINING)
        assert_true (p->run_days <= w->deadline_s / 86400 + 1e-9);
    /* one run: tokens / (tokens per step / step time) without the
     * reliability model's losses is at most the run's wall time
     */
    double ideal_s = w->tokens / (p->global_batch * p->seq_len) * p->step_s;
    assert_true (ideal_s <= p->run_days * 86400 * (1 + 1e-9));
}

static void check_service (const struct gp_plan_option *o,
                           const struct gp_plan_wl_plan *p)
{
    assert_int_equal (p->sized, 1);
    assert_true (p->gpus_per_replica >= 1);
    assert_int_equal (p->gpus_per_replica, p->tp * p->pp);
    assert_int_equal (p->replica_nodes,
                      (p->gpus_per_replica + o->gpus_per_node - 1)
                          / o->gpus_per_node);
    assert_true (p->replica_rps > 0 && p->max_num_seqs > 0);
    assert_true (p->serve_precision[0] && p->engine[0]);
    assert_string_equal (p->engine, "vllm"); /* the spec's default */
}

/* Every sized workload of every sized option of the example: the layout
 * invariants, and the layout equals what the planners answer for that
 * option spec (gp_plan_size_compute, no memo): gpus = the job's GPUs,
 * the service's replica rate and GPUs per replica.
 */
static void test_example_layouts (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    assert_non_null (zoo);
    struct plan_sizing *z = calloc (1, sizeof *z);
    assert_non_null (z);
    int last_spec = -1, checked = 0;
    for (size_t k = 0; k < ex.res->n_options; k++) {
        const struct gp_plan_option *o = &ex.res->options[k];
        if (o->compute.code != 0 || o->basis != GP_BASIS_PLANNERS)
            continue;
        if (o->spec_index != last_spec) {
            gp_plan_size_compute (ex.spec, NULL, ex.cat, zoo,
                                  &ex.spec->options[o->spec_index], 1,
                                  o->n_periods, z);
            assert_int_equal (z->code, 0);
            last_spec = o->spec_index;
        }
        for (size_t i = 0; i < ex.spec->n_workloads; i++) {
            const struct gp_plan_workload *w = &ex.spec->workloads[i];
            const struct gp_plan_wl_plan *p = &o->wl[i];
            assert_string_equal (p->workload, w->name);
            assert_int_equal (p->kind, w->kind);
            if (w->kind == GP_WL_INFERENCE) {
                check_service (o, p);
                assert_true (p->replica_rps == z->replica_rps[i]);
                assert_true ((double)p->gpus_per_replica == z->job_gpus[i]);
            } else {
                check_train (o, w, p);
                assert_true ((double)p->gpus == z->job_gpus[i]);
                assert_true (fabs (p->run_days * 86400 - z->job_s[i])
                             <= 1e-6 * z->job_s[i]);
            }
            assert_memory_equal (p, &z->wl[i], sizeof *p);
            checked++;
        }
        /* the first deadline run's batch in tokens (the rules line) */
        assert_true (o->rules.train_batch_tokens
                     == (double)o->wl[0].global_batch * o->wl[0].seq_len);
    }
    assert_true (checked >= 9 * 4); /* 9 sized options x 4 workloads */
    free (z);
    gp_zoo_destroy (zoo);
}

/* By hand: 10 requests/s growing 20 % a quarter, a replica carries 3
 * requests/s.  Month 1 (index 0): 10 requests/s; hour shares 0.05, 0.3,
 * 0.31, 0, 1 give 0.5, 3, 3.1, 0, 10 requests/s -> ceil(/3) = 1, 1
 * (exactly one replica's rate), 2, 1 (at least one), 4.  Month 4 (index
 * 3): 10 x 1.2 = 12 -> at share 1: 4 (exactly 4 x 3); share 0.31: 3.72
 * -> 2.  Month 7 (index 6): 10 x 1.2^2 = 14.4 -> share 1: 4.8 -> 5;
 * share 0.31: 4.464 -> 2; share 0.5: 7.2 -> 3.  Flat: 4 every hour in
 * month 1.
 */
static void test_service_day_by_hand (void **state)
{
    (void)state;
    struct gp_plan_spec *s = calloc (1, sizeof *s);
    struct gp_plan_option *o = calloc (1, sizeof *o);
    assert_non_null (s);
    assert_non_null (o);
    s->n_workloads = 2;
    struct gp_plan_workload *w = &s->workloads[1];
    w->kind = GP_WL_INFERENCE;
    snprintf (w->name, sizeof w->name, "chat");
    w->requests_per_s = 10;
    w->growth_per_quarter = 0.2;
    s->workloads[0].kind = GP_WL_TRAINING;
    snprintf (o->name, sizeof o->name, "hand");
    o->n_periods = 12;
    o->wl[1].sized = 1;
    o->wl[1].replica_rps = 3;
    int reps[GP_PLAN_DAY_HOURS];
    gp_error_t err = {0};
    /* flat */
    assert_int_equal (gp_plan_service_day (s, o, 1, 0, reps, &err), 0);
    for (int h = 0; h < GP_PLAN_DAY_HOURS; h++)
        assert_int_equal (reps[h], 4);
    /* a profile: 0.5 everywhere but hours 0-4 */
    for (int h = 0; h < GP_PLAN_DAY_HOURS; h++)
        w->day_profile[h] = 0.5;
    w->day_profile[0] = 0.05;
    w->day_profile[1] = 0.3;
    w->day_profile[2] = 0.31;
    w->day_profile[3] = 0;
    w->day_profile[4] = 1;
    w->n_day_profile = GP_PLAN_DAY_HOURS;
    static const int m0[5] = {1, 1, 2, 1, 4};
    assert_int_equal (gp_plan_service_day (s, o, 1, 0, reps, &err), 0);
    for (int h = 0; h < 5; h++)
        assert_int_equal (reps[h], m0[h]);
    assert_int_equal (reps[5], 2); /* 5 / 3 -> 2 */
    assert_int_equal (gp_plan_service_day (s, o, 1, 3, reps, &err), 0);
    assert_int_equal (reps[4], 4);
    assert_int_equal (reps[2], 2);
    assert_int_equal (gp_plan_service_day (s, o, 1, 6, reps, &err), 0);
    assert_int_equal (reps[4], 5);
    assert_int_equal (reps[2], 2);
    assert_int_equal (reps[5], 3);
    /* errors: outside the horizon, not a service, not sized */
    assert_int_equal (gp_plan_service_day (s, o, 1, 12, reps, &err),
                      GP_EINVAL);
    assert_non_null (strstr (err.text, "1 to 12"));
    assert_int_equal (gp_plan_service_day (s, o, 0, 0, reps, &err),
                      GP_EINVAL);
    assert_int_equal (gp_plan_service_day (s, o, 2, 0, reps, &err),
                      GP_EINVAL);
    o->wl[1].sized = 0;
    assert_int_equal (gp_plan_service_day (s, o, 1, 0, reps, &err),
                      GP_EINVAL);
    assert_non_null (strstr (err.text, "not sized"));
    free (o);
    free (s);
}

/* On the example: the peak hour of the day is the month's replicas of
 * the plan's demand (gp_plan_service_gpus / GPUs per replica) in every
 * month, with the example's profile or flat.
 */
static void test_service_day_example (void **state)
{
    (void)state;
    int reps[GP_PLAN_DAY_HOURS];
    gp_error_t err = {0};
    struct plan_sizing *z = calloc (1, sizeof *z);
    assert_non_null (z);
    size_t wi = 3; /* assistant */
    assert_int_equal (ex.spec->workloads[wi].kind, GP_WL_INFERENCE);
    const struct gp_plan_option *o = &ex.res->options[ex.res->recommended];
    z->replica_rps[wi] = o->wl[wi].replica_rps;
    z->job_gpus[wi] = o->wl[wi].gpus_per_replica;
    for (size_t t = 0; t < o->n_periods; t++) {
        assert_int_equal (gp_plan_service_day (ex.spec, o, wi, t, reps, &err),
                          0);
        int most = 0, least = 1 << 30;
        for (int h = 0; h < GP_PLAN_DAY_HOURS; h++) {
            most = reps[h] > most ? reps[h] : most;
            least = reps[h] < least ? reps[h] : least;
        }
        double gpus = gp_plan_service_gpus (&ex.spec->workloads[wi], z, wi, t);
        assert_true ((double)most * o->wl[wi].gpus_per_replica == gpus);
        assert_true (least >= 1 && least <= most);
    }
    free (z);
}

/* The option's cluster: one pool of the option's nodes, the plan's teams
 * with the option's quotas in one cohort named after the plan.
 */
static void test_option_cluster_example (void **state)
{
    (void)state;
    gp_error_t err = {0};
    int n = 0;
    for (size_t k = 0; k < ex.res->n_options; k++) {
        const struct gp_plan_option *o = &ex.res->options[k];
        if (o->compute.code != 0)
            continue;
        struct gp_cluster *c =
            gp_plan_option_cluster (ex.spec, ex.res, (int)k, ex.cat, &err);
        if (!c)
            fail_msg ("%s: %s", o->name, err.text);
        n++;
        assert_string_equal (c->name, "enterprise-2027");
        assert_int_equal (c->n_pools, 1);
        const struct gp_pool *p = &c->pools[0];
        assert_int_equal ((long long)p->nodes, o->nodes);
        assert_int_equal ((long long)p->nodes * p->gpus_per_node, o->gpus);
        assert_int_equal (p->gpus_per_node, o->gpus_per_node);
        assert_int_equal (p->scale_up_domain, o->scale_up_domain);
        assert_true (p->net_bw_per_gpu == o->given_bw_per_gpu);
        assert_string_equal (p->accel_id, o->accel_id);
        if (!strcmp (o->accel_id, "H100-SXM"))
            assert_string_equal (p->name, "h100-sxm");
        if (!strcmp (o->instance, "p5.48xlarge")) {
            assert_int_equal (p->cpus_per_node, 192); /* AWS: 192 vCPUs */
            assert_true (p->host_mem_bytes == 2048.0 * 1024 * 1024 * 1024);
        }
        if (o->kind == GP_OPT_ONPREM)
            assert_int_equal (p->cpus_per_node, 0);
        assert_int_equal (c->n_teams, 3);
        long long sum = 0;
        static const char *const names[] = {"foundation", "applied",
                                            "platform"};
        static const double weights[] = {3, 2, 1};
        static const int prios[] = {10, 5, 1};
        for (size_t t = 0; t < 3; t++) {
            const struct gp_team *tm = &c->teams[t];
            assert_string_equal (tm->name, names[t]);
            assert_string_equal (tm->cohort, "enterprise-2027");
            assert_true (tm->weight == weights[t]);
            assert_int_equal (tm->priority, prios[t]);
            assert_string_equal (o->quotas[t].team, names[t]);
            assert_int_equal (tm->quota_gpus, o->quotas[t].gpus);
            assert_int_equal (tm->borrowing_limit, -1);
            assert_int_equal (tm->lending_limit, -1);
            sum += tm->quota_gpus;
        }
        assert_true (sum <= o->gpus && sum > 0);
        gp_cluster_destroy (c);
    }
    assert_true (n >= 9);
    /* errors: bad index */
    assert_null (gp_plan_option_cluster (ex.spec, ex.res, -1, ex.cat, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_null (gp_plan_option_cluster (ex.spec, ex.res,
                                         (int)ex.res->n_options, ex.cat,
                                         &err));
}

/* Pool names in DNS-1123 form; a plan name that cannot name the cohort
 * is an error naming the spec field; an unsized option is an error.
 */
static void test_option_cluster_names (void **state)
{
    (void)state;
    struct gp_plan_result r;
    struct gp_plan_option *o = calloc (1, sizeof *o);
    assert_non_null (o);
    memset (&r, 0, sizeof r);
    r.options = o;
    r.n_options = 1;
    snprintf (r.name, sizeof r.name, "Lab_2027");
    r.n_teams = 1;
    snprintf (r.teams[0].name, sizeof r.teams[0].name, "ml");
    snprintf (o->name, sizeof o->name, "x");
    snprintf (o->accel_id, sizeof o->accel_id, "H100--SXM 80GB_");
    o->gpus = 16;
    o->nodes = 2;
    o->gpus_per_node = 8;
    o->scale_up_domain = 8;
    o->n_quotas = 1;
    snprintf (o->quotas[0].team, sizeof o->quotas[0].team, "ml");
    o->quotas[0].gpus = 12;
    struct gp_plan_spec *s = calloc (1, sizeof *s);
    assert_non_null (s);
    s->n_options = 1;
    s->options[0].accel = gp_catalog_find_accel (ex.cat, "H100-SXM", NULL);
    assert_non_null (s->options[0].accel);
    gp_error_t err = {0};
    assert_null (gp_plan_option_cluster (s, &r, 0, ex.cat, &err));
    assert_int_equal (err.code, GP_EINVAL);
    assert_non_null (strstr (err.text, "name: plan name 'Lab_2027'"));
    snprintf (r.name, sizeof r.name, "lab-2027");
    struct gp_cluster *c = gp_plan_option_cluster (s, &r, 0, ex.cat, &err);
    if (!c)
        fail_msg ("%s", err.text);
    assert_string_equal (c->pools[0].name, "h100-sxm-80gb");
    assert_int_equal (c->teams[0].quota_gpus, 12);
    gp_cluster_destroy (c);
    o->compute.code = GP_EINFEASIBLE;
    snprintf (o->compute.text, sizeof o->compute.text, "deadline missed");
    assert_null (gp_plan_option_cluster (s, &r, 0, ex.cat, &err));
    assert_non_null (strstr (err.text, "not sized (deadline missed)"));
    free (s);
    free (o);
}

/* The option chosen for export: the recommended by default, a name, an
 * unknown name listing the options, an infeasible one.
 */
static void test_option_index (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (gp_plan_option_index (ex.res, NULL, &err),
                      ex.res->recommended);
    assert_int_equal (gp_plan_option_index (ex.res, "", &err),
                      ex.res->recommended);
    int k = gp_plan_option_index (ex.res, "aws-p5/mix", &err);
    assert_true (k >= 0);
    assert_string_equal (ex.res->options[k].name, "aws-p5/mix");
    assert_int_equal (gp_plan_option_index (ex.res, "aws-p9", &err),
                      GP_ENOTFOUND);
    assert_non_null (strstr (err.text, "no option 'aws-p9'"));
    assert_non_null (strstr (err.text, "h100-onprem, h200-onprem"));
    /* h100-onprem breaks the power constraint (3 MW) */
    assert_int_equal (gp_plan_option_index (ex.res, "h100-onprem", &err),
                      GP_EINFEASIBLE);
    assert_non_null (strstr (err.text, "option 'h100-onprem' is "
                                       "infeasible"));
}

static const char profile_head[] =
    "name: p\n"
    "horizon: 1y\n"
    "workloads:\n"
    "  - name: chat\n"
    "    kind: inference\n"
    "    model: llama3.1-8b\n"
    "    requests_per_s: 10\n"
    "    output_tokens: 100\n";
static const char profile_tail[] =
    "options:\n"
    "  - {name: a, kind: onprem, accelerator: H100-SXM}\n";

/* The spec with 'extra' after the service; 0 or the error code. */
static int parse_profile (const char *extra, struct fx *f, gp_error_t *err)
{
    char text[2048];
    snprintf (text, sizeof text, "%s%s%s", profile_head, extra, profile_tail);
    memset (f, 0, sizeof *f);
    f->cat = ex.cat;
    f->doc = gp_doc_parse (text, strlen (text), "plan.yaml", err);
    assert_non_null (f->doc);
    f->spec = gp_plan_spec_from_doc (f->doc, f->cat, err);
    return f->spec ? 0 : err->code;
}

static void profile_fails (const char *extra, const char *where,
                           const char *what)
{
    struct fx f;
    gp_error_t err = {0};
    assert_int_equal (parse_profile (extra, &f, &err), GP_EPARSE);
    if (!strstr (err.text, where) || !strstr (err.text, what))
        fail_msg ("'%s' lacks '%s' / '%s'", err.text, where, what);
    gp_doc_destroy (f.doc);
}

static void test_profile_key (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    static const char ok[] =
        "    profile: [0.2, 0.1, 0.1, 0.1, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1,"
        " 1, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.5, 0.5, 0.4, 0.3, 0]\n";
    assert_int_equal (parse_profile (ok, &f, &err), 0);
    assert_int_equal (f.spec->workloads[0].n_day_profile, 24);
    assert_true (f.spec->workloads[0].day_profile[10] == 1);
    assert_true (f.spec->workloads[0].day_profile[7] == 0.5);
    assert_true (f.spec->workloads[0].day_profile[23] == 0);
    gp_plan_spec_destroy (f.spec);
    gp_doc_destroy (f.doc);
    /* 23 shares: line 9 col 14 is the list */
    profile_fails ("    profile: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
                   " 1, 1, 1, 1, 1, 1, 1, 1]\n",
                   "plan.yaml:9:14", "workloads[0].profile: expected a list "
                                     "of 24");
    profile_fails ("    profile: [1, 1, 1, 1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
                   " 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n",
                   "plan.yaml:9:", "workloads[0].profile[3]: expected a "
                                   "share in [0, 1]");
    profile_fails ("    profile: [1, 1, 1, -0.1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
                   " 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n",
                   "plan.yaml:9:", "workloads[0].profile[3]");
    profile_fails ("    profile: [1, 1, 1, peak, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
                   " 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n",
                   "plan.yaml:9:", "workloads[0].profile[3]");
    profile_fails ("    profile: [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9,"
                   " 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9,"
                   " 0.9, 0.9, 0.9, 0.5]\n",
                   "plan.yaml:9:14", "busiest hour must be 1");
    profile_fails ("    profile: flat\n", "plan.yaml:9:14",
                   "workloads[0].profile: expected a list");
}

/* 'profile' on a training run is an error naming the field. */
static void test_profile_not_training (void **state)
{
    (void)state;
    static const char text[] =
        "name: p\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - name: pre\n"
        "    kind: training\n"
        "    model: llama3.1-8b\n"
        "    tokens: 1T\n"
        "    deadline: 30d\n"
        "    profile: [1]\n"
        "options:\n"
        "  - {name: a, kind: onprem, accelerator: H100-SXM}\n";
    gp_error_t err = {0};
    struct gp_doc *d = gp_doc_parse (text, strlen (text), "plan.yaml", &err);
    assert_non_null (d);
    assert_null (gp_plan_spec_from_doc (d, ex.cat, &err));
    assert_non_null (strstr (err.text, "plan.yaml:9:14"));
    assert_non_null (strstr (err.text, "workloads[0].profile: for an "
                                       "inference service only"));
    gp_doc_destroy (d);
}

/* The plan JSON's per-option "workloads" carry the same layouts. */
static void test_json_workloads (void **state)
{
    (void)state;
    json_t *j = gp_report_json (ex.res);
    assert_non_null (j);
    json_t *opts = json_object_get (j, "options");
    for (size_t k = 0; k < ex.res->n_options; k++) {
        const struct gp_plan_option *o = &ex.res->options[k];
        json_t *ws = json_object_get (json_array_get (opts, k), "workloads");
        assert_true (json_is_array (ws));
        if (o->compute.code != 0)
            continue;
        assert_int_equal (json_array_size (ws), ex.spec->n_workloads);
        for (size_t i = 0; i < ex.spec->n_workloads; i++) {
            json_t *w = json_array_get (ws, i);
            const struct gp_plan_wl_plan *p = &o->wl[i];
            assert_string_equal (json_string_value (json_object_get (w,
                                 "workload")), ex.spec->workloads[i].name);
            assert_true (json_is_true (json_object_get (w, "sized")));
            const char *key = p->kind == GP_WL_INFERENCE ? "gpus_per_replica"
                                                         : "gpus";
            long long want = p->kind == GP_WL_INFERENCE ? p->gpus_per_replica
                                                        : p->gpus;
            assert_int_equal (json_integer_value (json_object_get (w, key)),
                              want);
            if (p->kind != GP_WL_INFERENCE)
                assert_int_equal (json_integer_value (json_object_get (
                                      w, "grad_accum")),
                                  p->grad_accum);
        }
    }
    json_decref (j);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_example_layouts),
        cmocka_unit_test (test_service_day_by_hand),
        cmocka_unit_test (test_service_day_example),
        cmocka_unit_test (test_option_cluster_example),
        cmocka_unit_test (test_option_cluster_names),
        cmocka_unit_test (test_option_index),
        cmocka_unit_test (test_profile_key),
        cmocka_unit_test (test_profile_not_training),
        cmocka_unit_test (test_json_workloads),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
