/* alloc_sweep.c - allocation-failure sweep: every library entry point the
 * commands use, run on small inputs from the repository, with the N-th
 * allocation made by gpuplan's own code failing, for N = 1, 1 + stride,
 * ... up to the run's allocation count.  Each run must end with 0 (the
 * failed allocation had a documented fallback) or GP_ENOMEM with a
 * message, no crash, and (under LeakSanitizer) nothing leaked.
 *
 * Only gpuplan's allocations are counted: the test links libgpuplan with
 * -Wl,--wrap=malloc,... (tests/alloc/CMakeLists.txt), which redirects the
 * library's calls and no other's.  Shared libraries (libyaml, jansson,
 * libcsv, GLPK) allocate unwrapped; GLPK aborts on out-of-memory by design
 * and is the documented exception (docs/internals/testing.md).
 *
 *   alloc_sweep [SCENARIO] [MAX_RUNS [FIRST]]   (default: all, 120 runs
 *                                                each, from allocation 1)
 * ALLOC_SWEEP_STACK=1 prints the call stack of each failed allocation and
 * ALLOC_SWEEP_VERBOSE=1 the outcome of each run.
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cluster.h"
#include "gpuplan/defaults.h"
#include "gpuplan/export.h"
#include "gpuplan/infer.h"
#include "gpuplan/plan.h"
#include "gpuplan/policy.h"
#include "gpuplan/report.h"
#include "gpuplan/sim.h"
#include "gpuplan/spec.h"
#include "gpuplan/trace.h"
#include "gpuplan/train.h"

#include <jansson.h>

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

/* ------------------------- the counting allocator ---------------------- */

void *__real_malloc (size_t n);
void *__real_calloc (size_t n, size_t m);
void *__real_realloc (void *p, size_t n);
char *__real_strdup (const char *s);
char *__real_strndup (const char *s, size_t n);
void *__wrap_malloc (size_t n);
void *__wrap_calloc (size_t n, size_t m);
void *__wrap_realloc (void *p, size_t n);
char *__wrap_strdup (const char *s);
char *__wrap_strndup (const char *s, size_t n);

static int active;            /* count only inside the library call */
static unsigned long count;   /* allocations seen while active */
static unsigned long fail_at; /* 0 = never fail */
static int failed;            /* the failure was injected */

static int show_stack;        /* ALLOC_SWEEP_STACK=1: print where */

static int inject (void)
{
    if (!active)
        return 0;
    if (++count == fail_at) {
        failed = 1;
        if (show_stack) {
            void *pc[16];
            int n = backtrace (pc, 16);
            fprintf (stderr, "-- failing allocation %lu:\n", count);
            backtrace_symbols_fd (pc, n, 2);
        }
        return 1;
    }
    return 0;
}

void *__wrap_malloc (size_t n)
{
    return inject () ? NULL : __real_malloc (n);
}

void *__wrap_calloc (size_t n, size_t m)
{
    return inject () ? NULL : __real_calloc (n, m);
}

void *__wrap_realloc (void *p, size_t n)
{
    return inject () ? NULL : __real_realloc (p, n);
}

char *__wrap_strdup (const char *s)
{
    return inject () ? NULL : __real_strdup (s);
}

char *__wrap_strndup (const char *s, size_t n)
{
    return inject () ? NULL : __real_strndup (s, n);
}

/* ------------------------------ scenarios ------------------------------ */

#define SRC GP_SOURCE_DIR "/"

/* The catalog for every scenario but 'cluster' (which loads its own under
 * the sweep): loaded once, outside the counted window, so that the sweep
 * spends its runs on each command's own work.
 */
static struct gp_catalog *cat;

static char *dump (json_t *j)
{
    char *s = j ? json_dumps (j, JSON_COMPACT) : NULL;
    json_decref (j);
    return s;
}

/* `gpuplan cluster` and `gpuplan export` of every target. */
static int sc_cluster (gp_error_t *err)
{
    struct gp_catalog *own = gp_catalog_load (NULL, err);
    if (!own)
        return err->code;
    int rc = 0;
    struct gp_doc *doc = gp_doc_load (SRC "examples/cluster.yaml", err);
    struct gp_cluster *c = doc ? gp_cluster_from_doc (doc, own, err) : NULL;
    if (!c)
        rc = err->code;
    if (c) {
        char *s = dump (gp_cluster_json (c));
        if (!s) /* NULL only when out of memory */
            rc = gp_errprintf (err, GP_ENOMEM, "cluster json: out of memory");
        free (s);
    }
    for (int t = GP_EXPORT_KUEUE; c && !rc && t <= GP_EXPORT_PROMETHEUS; t++) {
        struct gp_export *x =
            gp_export_render_opts (c, (enum gp_export_target)t, NULL, err);
        if (!x)
            rc = err->code;
        gp_export_destroy (x);
    }
    if (c && !rc) { /* yunikorn: a cluster-level target too */
        struct gp_export *x =
            gp_export_render_opts (c, GP_EXPORT_YUNIKORN, NULL, err);
        if (!x)
            rc = err->code;
        gp_export_destroy (x);
    }
    gp_cluster_destroy (c);
    gp_doc_destroy (doc);
    gp_catalog_destroy (own);
    return rc;
}

/* `gpuplan train --model llama3.1-8b --gpus 16`, text and JSON. */
static int sc_train (gp_error_t *err)
{
    struct gp_train_request rq;
    gp_train_request_init (&rq);
    rq.model = "llama3.1-8b";
    rq.gpus = 16;
    struct gp_train_plan_result *res = NULL;
    int rc = gp_train_plan (cat, &rq, &res, err);
    if (!rc) {
        char *t = gp_report_train_text (res);
        char *j = dump (gp_report_train_json (res));
        if (!t || !j) /* these renderers return NULL only when out of memory */
            rc = gp_errprintf (err, GP_ENOMEM, "train report: out of memory");
        free (t);
        free (j);
    }
    gp_train_plan_result_destroy (res);
    return rc;
}

/* `gpuplan infer --spec examples/infer-small-mig.yaml --json`, on the
 * spec's first accelerator. */
static int sc_infer (gp_error_t *err)
{
    struct gp_infer_request rq;
    gp_infer_request_defaults (&rq);
    int rc = gp_infer_spec_load (SRC "examples/infer-small-mig.yaml", &rq,
                                 err);
    rq.n_accels = 1; /* A100 and its MIG slices: each accelerator costs
                      * a serving simulation per layout */
    struct gp_infer_plan_result *res = NULL;
    if (!rc)
        rc = gp_infer_plan (cat, &rq, &res, err);
    if (!rc) {
        char *j = dump (gp_report_infer_json (res));
        if (!j) /* NULL only when out of memory */
            rc = gp_errprintf (err, GP_ENOMEM, "infer report: out of memory");
        free (j);
    }
    gp_infer_plan_destroy (res);
    return rc;
}

/* `gpuplan simulate` of a hand-worked scenario 'dir' under 'policy',
 * text and JSON.
 */
static int simulate (const char *dir, const char *policy, double restart_s,
                     gp_error_t *err)
{
    char spec[512], trace[512];
    snprintf (spec, sizeof spec, SRC "tests/scenarios/%s/cluster.yaml", dir);
    snprintf (trace, sizeof trace, SRC "tests/scenarios/%s/jobs.csv", dir);
    int rc = 0;
    struct gp_doc *doc =
        gp_doc_load (spec, err);
    struct gp_cluster *c = doc ? gp_cluster_from_doc (doc, cat, err) : NULL;
    struct gp_sim_report *r = NULL;
    if (!c) {
        rc = err->code;
    } else {
        struct gp_defaults d;
        gp_defaults_init (&d);
        struct gp_sim_request rq;
        gp_sim_request_init_defaults (&rq, &d);
        rq.cluster = c;
        rq.trace_path = trace;
        rq.cfg.policy = gp_policy_find (policy, NULL);
        rq.cfg.restart_cost_s = restart_s;
        rq.flags |= GP_SIMRQ_SCHEDULE;
        rc = gp_sim_run_request (&rq, &r, err);
    }
    if (!rc) {
        char *t = gp_report_sim_text (r, err);
        char *j = dump (gp_report_sim_json (r));
        if (!t || !j) /* the JSON renderer returns NULL only when out of
                       * memory; the text one sets 'err' */
            rc = t ? gp_errprintf (err, GP_ENOMEM, "sim report: out of memory")
                   : err->code;
        free (t);
        free (j);
    }
    gp_sim_report_destroy (r);
    gp_cluster_destroy (c);
    gp_doc_destroy (doc);
    return rc;
}

/* The trace readers, one sample of each format (traces/). */
static int sc_traces (gp_error_t *err)
{
    static const struct {
        const char *path;
        enum gp_trace_format f;
    } t[] = {
        {SRC "traces/generic/example.csv", GP_TRACE_AUTO},
        {SRC "traces/philly/philly-2000.csv", GP_TRACE_AUTO},
        {SRC "traces/tiresias/60_job.csv", GP_TRACE_AUTO},
        {SRC "traces/pollux/workload-1.csv", GP_TRACE_POLLUX},
        {SRC "traces/gavel/artifact_evaluation.trace", GP_TRACE_GAVEL},
        {SRC "traces/alibaba2023/pods.csv", GP_TRACE_AUTO},
        {SRC "traces/sacct/example.txt", GP_TRACE_SACCT},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        struct gp_trace_opts o = {
            .format = t[i].f,
            .flags = GP_TRACE_SKIP_BAD, /* pollux: unmeasured placements */
            .gavel_throughputs = SRC "traces/gavel/throughputs.csv",
            .pollux_profiles = SRC "traces/pollux/profiles",
        };
        struct gp_jobset *js = gp_trace_read (t[i].path, &o, err);
        if (!js)
            return err->code;
        gp_jobset_destroy (js);
    }
    return 0;
}

/* EASY backfill (tests/scenarios/README.md). */
static int sc_simulate (gp_error_t *err)
{
    return simulate ("hol-fifo-backfill", "fifo-backfill", 0, err);
}

/* Preemption with checkpoints and a restart cost. */
static int sc_preempt (gp_error_t *err)
{
    return simulate ("priority-ckpt4", "priority", 1, err);
}

/* `gpuplan plan tests/cli/specs/plan-small.yaml --format json`. */
static int sc_plan (gp_error_t *err)
{
    int rc = 0;
    struct gp_doc *doc = gp_doc_load (SRC "tests/cli/specs/plan-small.yaml",
                                      err);
    struct gp_plan_spec *s = doc ? gp_plan_spec_from_doc (doc, cat, err)
                                 : NULL;
    struct gp_plan_result *r = s ? gp_plan_run (s, cat, err) : NULL;
    if (!r) {
        rc = err->code;
    } else {
        char *t = gp_report_render (r, GP_REPORT_JSON, err);
        if (!t)
            rc = err->code;
        free (t);
    }
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (doc);
    return rc;
}

static const struct {
    const char *name;
    int (*run) (gp_error_t *err);
} scenarios[] = {
    {"cluster", sc_cluster}, {"train", sc_train}, {"infer", sc_infer},
    {"traces", sc_traces},     {"simulate", sc_simulate},
    {"preempt", sc_preempt},   {"plan", sc_plan},
};

/* ------------------------------- driver -------------------------------- */

static int run_once (int (*fn) (gp_error_t *), unsigned long n,
                     gp_error_t *err)
{
    memset (err, 0, sizeof *err);
    count = 0;
    fail_at = n;
    failed = 0;
    active = 1;
    int rc = fn (err);
    active = 0;
    return rc;
}

static unsigned long first = 1;
static int verbose;

static int sweep (const char *name, int (*fn) (gp_error_t *),
                  unsigned long max_runs)
{
    gp_error_t err;
    int rc = run_once (fn, 0, &err);
    unsigned long total = count;
    if (rc != 0) {
        fprintf (stderr, "%s: fails without injection: %s\n", name, err.text);
        return 1;
    }
    unsigned long stride = total / max_runs + 1;
    unsigned long runs = 0, ok = 0, nomem = 0;
    int bad = 0;
    for (unsigned long n = first; n <= total; n += stride) {
        rc = run_once (fn, n, &err);
        runs++;
        if (verbose)
            fprintf (stderr, "%s: allocation %lu: rc %d '%s'\n", name, n, rc,
                     err.text);
        if (rc == 0 && failed)
            ok++;
        else if (rc == GP_ENOMEM && err.text[0])
            nomem++;
        else {
            fprintf (stderr,
                     "%s: allocation %lu of %lu failed: rc %d (want "
                     "GP_ENOMEM with a message): '%s'\n",
                     name, n, total, rc, err.text);
            bad = 1;
        }
#ifdef HAVE_LSAN
        if (__lsan_do_recoverable_leak_check ()) {
            fprintf (stderr, "%s: leak after failing allocation %lu\n", name,
                     n);
            bad = 1;
        }
#endif
        if (bad)
            break;
    }
    printf ("%-9s %7lu allocations, stride %4lu: %4lu runs, %4lu GP_ENOMEM, "
            "%3lu recovered%s\n",
            name, total, stride, runs, nomem, ok, bad ? "  FAILED" : "");
    return bad;
}

int main (int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    unsigned long max_runs = argc > 2 ? strtoul (argv[2], NULL, 10) : 120;
    if (!max_runs)
        max_runs = 1;
    if (argc > 3 && !(first = strtoul (argv[3], NULL, 10)))
        first = 1;
    show_stack = getenv ("ALLOC_SWEEP_STACK") != NULL;
    verbose = getenv ("ALLOC_SWEEP_VERBOSE") != NULL;
    gp_error_t err = {0};
    if (!(cat = gp_catalog_load (NULL, &err))) {
        fprintf (stderr, "alloc_sweep: %s\n", err.text);
        return 1;
    }
    int fail = 0, found = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
        if (only && strcmp (only, scenarios[i].name) != 0)
            continue;
        found = 1;
        fail |= sweep (scenarios[i].name, scenarios[i].run, max_runs);
    }
    gp_catalog_destroy (cat);
    if (!found) {
        fprintf (stderr, "alloc_sweep: no scenario '%s'\n", only);
        return 2;
    }
    return fail;
}
