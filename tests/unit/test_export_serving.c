/* test_export_serving.c - the serving export (docs/formats/
 * export-serving.md) on hand-built plans: the hourly cron windows (KEDA
 * takes the maximum over its triggers, so for every hour the maximum
 * over the windows active then must be the plan's count), the KServe
 * InferenceService of a one-node replica, the LeaderWorkerSet of a
 * replica that spans nodes, the HPA alternative, and the errors.
 *
 * Expected values are worked out by hand from the fixture: a node of 224
 * CPUs and 2 TB with 8 GPUs gives a GPU 28 CPUs and 250 GB; pods request
 * 80 % of their GPUs' share (GP__SERVE_REQUEST_SHARE) in whole MiB.
 *
 * With GP_SERVE_OUT set, the rendered files are also written under that
 * folder (keda/ and hpa/) for tests/export/serving/run.sh to check with
 * the CRD validator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <yaml.h>

#include "gpuplan/gpuplan.h"
#include "export/serving.h"
#include "export_fixture.h"

static const char *CLUSTER =
    "name: plan\n"
    "pools:\n"
    "  - name: h100\n"
    "    accelerator: H100-SXM\n"
    "    gpus_per_node: 8\n"
    "    nodes: 16\n"
    "    cpus_per_node: 224\n"
    "    host_memory: 2TB\n";

/* A day: 2 replicas at night, 4 in the shoulders, 8 from 09:00 to 17:00. */
static const int DAY[24] = {2, 2, 2, 2, 2, 2, 2, 4, 4, 8, 8, 8,
                            8, 8, 8, 8, 8, 4, 4, 4, 4, 2, 2, 2};

/* A plan of one training run and one service 'chat' on option
 * 'h100-onprem' (36 months).
 */
struct fx {
    struct gp_plan_spec *sp;
    struct gp_plan_result r;
    struct gp_plan_option *opt;
    struct gp_export_plan p;
    struct gp_export_opts o;
    struct gp_cluster *c;
};

static void fx_init (struct fx *f)
{
    memset (f, 0, sizeof *f);
    f->sp = calloc (1, sizeof *f->sp);
    f->opt = calloc (1, sizeof *f->opt);
    assert_non_null (f->sp);
    assert_non_null (f->opt);
    f->sp->n_workloads = 2;
    struct gp_plan_workload *t = &f->sp->workloads[0], *w = &f->sp->workloads[1];
    t->kind = GP_WL_TRAINING;
    snprintf (t->name, sizeof t->name, "pretrain");
    w->kind = GP_WL_INFERENCE;
    snprintf (w->name, sizeof w->name, "chat");
    snprintf (w->team, sizeof w->team, "platform");
    snprintf (w->model, sizeof w->model, "llama3.1-70b");
    struct gp_plan_wl_plan *l = &f->opt->wl[1];
    l->sized = 1;
    l->gpus_per_replica = 4;
    l->replica_nodes = 1;
    snprintf (l->serve_precision, sizeof l->serve_precision, "fp8");
    snprintf (l->engine, sizeof l->engine, "vllm");
    l->replica_rps = 5;
    l->max_num_seqs = 128;
    snprintf (f->opt->name, sizeof f->opt->name, "h100-onprem");
    f->opt->n_periods = 36;
    f->r.options = f->opt;
    f->r.n_options = 1;
    f->r.n_periods = 36;
    f->p = (struct gp_export_plan){f->sp, &f->r, 0};
    f->o = (struct gp_export_opts){.plan = &f->p, .catalog = cat};
    f->c = fx_cluster_ok (CLUSTER, "serving.yaml");
}

static void fx_free (struct fx *f)
{
    gp_cluster_destroy (f->c);
    free (f->opt);
    free (f->sp);
}

/* Write the text of 'x' under $GP_SERVE_OUT/'sub'/ when set. */
static void dump (const struct gp_export *x, const char *sub)
{
    const char *d = getenv ("GP_SERVE_OUT");
    if (!d)
        return;
    char path[1024];
    snprintf (path, sizeof path, "%s/%s", d, sub);
    mkdir (path, 0755);
    for (size_t i = 0; i < x->n_files; i++) {
        snprintf (path, sizeof path, "%s/%s/%s", d, sub, x->files[i].name);
        FILE *fp = fopen (path, "w");
        assert_non_null (fp);
        fputs (x->files[i].text, fp);
        fclose (fp);
    }
}

/* The file of service 1 of 'f' with day 'rep'; fails the test on error. */
static struct gp_export *render (struct fx *f, const int *rep,
                                 const char *sub)
{
    gp_error_t err = {0};
    struct gp_export *x = calloc (1, sizeof *x);
    assert_non_null (x);
    x->target = GP_EXPORT_SERVING;
    if (gp__serve_render (f->c, &f->o, 1, rep, x, &err) != 0)
        fail_msg ("%s", err.text);
    assert_int_equal (x->n_files, 1);
    assert_string_equal (x->files[0].name, "chat.yaml");
    dump (x, sub);
    return x;
}

/* The error of rendering service 1 of 'f' (it must fail). */
static gp_error_t render_err (struct fx *f, const int *rep)
{
    gp_error_t err = {0};
    struct gp_export x = {.target = GP_EXPORT_SERVING};
    int rc = gp__serve_render (f->c, &f->o, 1, rep, &x, &err);
    for (size_t i = 0; i < x.n_files; i++)
        free (x.files[i].text);
    free (x.files);
    if (rc == 0)
        fail_msg ("rendered, expected an error");
    assert_int_equal (rc, err.code);
    return err;
}

/* ------------------------------------------------- reading the YAML back */

static yaml_node_t *get (yaml_document_t *d, yaml_node_t *m, const char *k)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *key = yaml_document_get_node (d, p->key);
        if (key->type == YAML_SCALAR_NODE
            && !strcmp ((const char *)key->data.scalar.value, k))
            return yaml_document_get_node (d, p->value);
    }
    return NULL;
}

static const char *str (yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                            : NULL;
}

/* The replicas KEDA asks for in each hour: for the ScaledObject of
 * 'text', max(minReplicaCount, the maximum over the cron triggers active
 * in the hour), where "0 S * * *" to "0 E * * *" is active in hours S to
 * E-1 (wrapping midnight when E <= S).  Also checks each cron trigger's
 * start != end, desiredReplicas >= 1 and time zone, and returns the
 * triggers seen in '*n_cron' and '*n_prom' and min/max in 'mm'.
 */
static void keda_day (const char *text, int out[24], int *n_cron,
                      int *n_prom, int mm[2])
{
    yaml_parser_t ps;
    yaml_document_t d;
    int found = 0;
    assert_true (yaml_parser_initialize (&ps));
    yaml_parser_set_input_string (&ps, (const unsigned char *)text,
                                  strlen (text));
    *n_cron = *n_prom = 0;
    for (int h = 0; h < 24; h++)
        out[h] = 0;
    for (;;) {
        assert_true (yaml_parser_load (&ps, &d));
        yaml_node_t *root = yaml_document_get_root_node (&d);
        if (!root) {
            yaml_document_delete (&d);
            break;
        }
        const char *kind = str (get (&d, root, "kind"));
        if (kind && !strcmp (kind, "ScaledObject")) {
            found++;
            yaml_node_t *spec = get (&d, root, "spec");
            mm[0] = atoi (str (get (&d, spec, "minReplicaCount")));
            mm[1] = atoi (str (get (&d, spec, "maxReplicaCount")));
            for (int h = 0; h < 24; h++)
                out[h] = mm[0];
            yaml_node_t *tr = get (&d, spec, "triggers");
            assert_non_null (tr);
            for (yaml_node_item_t *it = tr->data.sequence.items.start;
                 it < tr->data.sequence.items.top; it++) {
                yaml_node_t *t = yaml_document_get_node (&d, *it);
                yaml_node_t *md = get (&d, t, "metadata");
                if (!strcmp (str (get (&d, t, "type")), "prometheus")) {
                    ++*n_prom;
                    continue;
                }
                assert_string_equal (str (get (&d, t, "type")), "cron");
                ++*n_cron;
                assert_string_equal (str (get (&d, md, "timezone")),
                                     "Etc/UTC");
                int s = -1, e = -1, x = 0;
                assert_int_equal (sscanf (str (get (&d, md, "start")),
                                          "0 %d * * *", &s), 1);
                assert_int_equal (sscanf (str (get (&d, md, "end")),
                                          "0 %d * * *", &e), 1);
                x = atoi (str (get (&d, md, "desiredReplicas")));
                assert_true (s != e);
                assert_true (x >= 1);
                for (int h = s; h != e; h = (h + 1) % 24)
                    out[h] = out[h] > x ? out[h] : x;
            }
        }
        yaml_document_delete (&d);
    }
    yaml_parser_delete (&ps);
    assert_int_equal (found, 1);
}

/* --------------------------------------------------------------- windows */

/* The maximum over the windows active in each hour. */
static void windows_day (const struct gp__serve_step *st, int n, int out[24])
{
    for (int h = 0; h < 24; h++)
        out[h] = 0;
    for (int i = 0; i < n; i++) {
        assert_true (st[i].start != st[i].end);
        assert_true (st[i].replicas >= 1);
        for (int h = st[i].start; h != st[i].end; h = (h + 1) % 24)
            out[h] = out[h] > st[i].replicas ? out[h] : st[i].replicas;
    }
}

static void test_steps_merge (void **state)
{
    (void)state;
    struct gp__serve_step st[24];
    int n = gp__serve_steps (DAY, st);
    /* By hand: 07-09 4, 09-17 8, 17-21 4, 21-07 2 (wraps midnight). */
    assert_int_equal (n, 4);
    const int want[4][3] = {{7, 9, 4}, {9, 17, 8}, {17, 21, 4}, {21, 7, 2}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal (st[i].start, want[i][0]);
        assert_int_equal (st[i].end, want[i][1]);
        assert_int_equal (st[i].replicas, want[i][2]);
    }
    int got[24];
    windows_day (st, n, got);
    assert_memory_equal (got, DAY, sizeof got);
}

static void test_steps_edges (void **state)
{
    (void)state;
    struct gp__serve_step st[24];
    int rep[24], got[24];
    /* One count all day: two 12-hour windows (start != end). */
    for (int h = 0; h < 24; h++)
        rep[h] = 3;
    assert_int_equal (gp__serve_steps (rep, st), 2);
    assert_int_equal (st[0].start, 0);
    assert_int_equal (st[0].end, 12);
    assert_int_equal (st[1].start, 12);
    assert_int_equal (st[1].end, 0);
    windows_day (st, 2, got);
    assert_memory_equal (got, rep, sizeof got);
    /* Every hour different: 24 one-hour windows, the last ends at 0. */
    for (int h = 0; h < 24; h++)
        rep[h] = 1 + (h * 7) % 24;
    assert_int_equal (gp__serve_steps (rep, st), 24);
    assert_int_equal (st[23].start, 23);
    assert_int_equal (st[23].end, 0);
    windows_day (st, 24, got);
    assert_memory_equal (got, rep, sizeof got);
    /* A run that starts the day and one that ends it, different counts:
     * no wrap. */
    for (int h = 0; h < 24; h++)
        rep[h] = h < 12 ? 1 : 5;
    assert_int_equal (gp__serve_steps (rep, st), 2);
    assert_int_equal (st[0].start, 0);
    assert_int_equal (st[0].end, 12);
    assert_int_equal (st[0].replicas, 1);
    assert_int_equal (st[1].start, 12);
    assert_int_equal (st[1].end, 0);
    assert_int_equal (st[1].replicas, 5);
    /* A hour of 0 replicas cannot be a cron trigger. */
    rep[5] = 0;
    assert_int_equal (gp__serve_steps (rep, st), -1);
}

/* ------------------------------------------------------------- services */

static void test_isvc_keda (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_export *x = render (&f, DAY, "keda");
    const char *t = x->files[0].text;
    has (t, "kind: InferenceService");
    has (t, "  name: chat\n  namespace: platform\n");
    has (t, "gpuplan.io/workload: chat");
    has (t, "serving.kserve.io/deploymentMode: Standard");
    has (t, "serving.kserve.io/autoscalerClass: external");
    has (t, "minReplicas: 2\n");
    has (t, "maxReplicas: 8\n");
    has (t, "gpuplan.io/pool: h100");
    has (t, "name: vllm");
    has (t, "runtime: kserve-vllmserver");
    has (t, "storageUri: \"pvc://models/llama3.1-70b\"");
    has (t, "- \"--served-model-name=chat\"");
    has (t, "- \"--tensor-parallel-size=4\"");
    has (t, "- \"--pipeline-parallel-size=1\"");
    has (t, "- \"--max-num-seqs=128\"");
    has (t, "- \"--quantization=fp8\"");
    /* 4 GPUs: 112 CPUs and 1 TB; 80 % = 89600m and 762939 MiB. */
    has (t, "requests:\n          cpu: \"89600m\"\n"
            "          memory: \"762939Mi\"\n          nvidia.com/gpu: 4\n");
    has (t, "limits:\n          memory: \"1T\"\n          nvidia.com/gpu: 4\n");
    has (t, "kind: ScaledObject");
    has (t, "kind: Deployment\n    name: chat-predictor\n");
    has (t, "sum(vllm:num_requests_running{model_name=\\\"chat\\\"}) + "
            "sum(vllm:num_requests_waiting{model_name=\\\"chat\\\"})");
    has (t, "threshold: \"128\"");
    has (t, "serverAddress: \"http://prometheus-operated.monitoring.svc:9090\"");
    lacks (t, "gpu_cache_usage_perc");
    lacks (t, "desiredReplicas: \"0\"");
    /* The tie: each hour, KEDA's replicas are the plan's. */
    int got[24], nc, np, mm[2];
    keda_day (t, got, &nc, &np, mm);
    assert_memory_equal (got, DAY, sizeof got);
    assert_int_equal (nc, 4);
    assert_int_equal (np, 1);
    assert_int_equal (mm[0], 2);
    assert_int_equal (mm[1], 8);
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_precision_tp_pp (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    /* The plan's own tp x pp; bf16 weights. */
    f.opt->wl[1].gpus_per_replica = 8;
    f.opt->wl[1].tp = 4;
    f.opt->wl[1].pp = 2;
    snprintf (f.opt->wl[1].serve_precision, 16, "bf16");
    struct gp_export *x = render (&f, DAY, "tp-pp");
    has (x->files[0].text, "- \"--tensor-parallel-size=4\"");
    has (x->files[0].text, "- \"--pipeline-parallel-size=2\"");
    has (x->files[0].text, "- \"--dtype=bfloat16\"");
    has (x->files[0].text, "nvidia.com/gpu: 8");
    /* 8 GPUs: the whole node, 224 CPUs and 2 TB; 80 %: 179200m, 1.6 TB
     * = 1525878 MiB. */
    has (x->files[0].text, "cpu: \"179200m\"");
    has (x->files[0].text, "memory: \"1525878Mi\"");
    has (x->files[0].text, "memory: \"2T\"");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_lws (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.opt->wl[1].gpus_per_replica = 16;
    f.opt->wl[1].replica_nodes = 2;
    snprintf (f.opt->wl[1].serve_precision, 16, "fp16");
    snprintf (f.sp->workloads[1].model, GP_PLAN_NAME, "m'; rm -rf /");
    struct gp_export *x = render (&f, DAY, "lws");
    const char *t = x->files[0].text;
    lacks (t, "InferenceService");
    has (t, "kind: LeaderWorkerSet");
    has (t, "replicas: 2\n");
    has (t, "size: 2\n");
    has (t, "multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE)");
    has (t, "multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)");
    /* TP = GPUs per node, PP = nodes; the model path shell-quoted. */
    has (t, "--tensor-parallel-size 8 --pipeline-parallel-size 2 "
            "--max-num-seqs 128 --dtype=float16");
    has (t, "--model '/models/m'\\\\''; rm -rf /'");
    has (t, "nvidia.com/gpu: 8");
    has (t, "apiVersion: leaderworkerset.x-k8s.io/v1\n    kind: LeaderWorkerSet\n"
            "    name: chat\n");
    lacks (t, "k8s.v1.cni.cncf.io/networks");   /* the option is one node */
    int got[24], nc, np, mm[2];
    keda_day (t, got, &nc, &np, mm);
    assert_memory_equal (got, DAY, sizeof got);
    gp_export_destroy (x);
    fx_free (&f);
}

/* A multi-node replica on a 16-node InfiniBand option with 8 rails: its
 * pods attach every rail (the network target's names, rdma.h) and ask
 * one NIC of each.
 */
static void test_lws_rdma (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.opt->wl[1].gpus_per_replica = 16;
    f.opt->wl[1].replica_nodes = 2;
    f.sp->n_options = 1;
    snprintf (f.sp->options[0].switch_id, 32, "qm9700");
    f.opt->kind = GP_OPT_ONPREM;
    f.opt->spec_index = 0;
    f.opt->nodes = 16;
    f.opt->gpus_per_node = 8;
    f.opt->fabric.rails = 8;
    struct gp_export *x = render (&f, DAY, "lws-rdma");
    const char *t = x->files[0].text;
    has (t, "k8s.v1.cni.cncf.io/networks: \"default/rdma-rail-0,"
            "default/rdma-rail-1,default/rdma-rail-2,default/rdma-rail-3,"
            "default/rdma-rail-4,default/rdma-rail-5,default/rdma-rail-6,"
            "default/rdma-rail-7\"");
    has (t, "nvidia.com/gpu: 8\n              nvidia.com/rdma_rail_0: 1\n");
    has (t, "nvidia.com/rdma_rail_7: 1\n");
    has (t, "- IPC_LOCK");
    gp_export_destroy (x);
    /* The SR-IOV operator's prefix. */
    f.o.net = GP_NET_SRIOV;
    x = render (&f, DAY, "lws-sriov");
    has (x->files[0].text, "openshift.io/rdma_rail_3: 1");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_hpa (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.o.hpa = 1;
    struct gp_export *x = render (&f, DAY, "hpa");
    const char *t = x->files[0].text;
    lacks (t, "ScaledObject");
    has (t, "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler");
    has (t, "minReplicas: 2\n  maxReplicas: 8\n");
    has (t, "name: gpuplan_vllm_requests_in_flight");
    has (t, "averageValue: \"128\"");
    gp_export_destroy (x);
    /* A flat day: min = max. */
    int flat[24];
    for (int h = 0; h < 24; h++)
        flat[h] = 3;
    x = render (&f, flat, "hpa-flat");
    has (x->files[0].text, "minReplicas: 3\n  maxReplicas: 3\n");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_flat_keda (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    int flat[24], got[24], nc, np, mm[2];
    for (int h = 0; h < 24; h++)
        flat[h] = 3;
    struct gp_export *x = render (&f, flat, "flat");
    keda_day (x->files[0].text, got, &nc, &np, mm);
    assert_memory_equal (got, flat, sizeof got);
    assert_int_equal (nc, 2);
    gp_export_destroy (x);
    fx_free (&f);
}

/* ------------------------------------------------ the enterprise example */

#define EXAMPLE GP_SOURCE_DIR "/examples/enterprise-plan.yaml"

/* The tie: on every exportable option of the shipped example, for the
 * last month and the first, each service's ScaledObject asks, hour by
 * hour, exactly the plan's replicas (gp_plan_service_day), its min/max
 * are the day's trough and peak, and its pods ask the planned GPUs.
 */
static void test_enterprise_tie (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_doc *d = gp_doc_load (EXAMPLE, &err);
    struct gp_plan_spec *sp = d ? gp_plan_spec_from_doc (d, cat, &err) : NULL;
    struct gp_plan_result *r = sp ? gp_plan_run (sp, cat, &err) : NULL;
    if (!r)
        fail_msg ("%s", err.text);
    int tied = 0;
    for (size_t k = 0; k < r->n_options; k++) {
        if (gp_plan_option_index (r, r->options[k].name, &err) != (int)k)
            continue;       /* not sized or infeasible: not exported */
        struct gp_cluster *c = gp_plan_option_cluster (sp, r, (int)k, cat,
                                                       &err);
        if (!c)
            fail_msg ("%s", err.text);
        const struct gp_plan_option *opt = &r->options[k];
        struct gp_export_plan p = {sp, r, (int)k};
        for (int month = 1; month <= (int)r->n_periods;
             month += (int)r->n_periods - 1) {
            struct gp_export_opts o = {.plan = &p, .catalog = cat,
                                       .month = month};
            struct gp_export *x = gp_export_render_opts (c, GP_EXPORT_SERVING,
                                                         &o, &err);
            if (!x)
                fail_msg ("%s: %s", opt->name, err.text);
            if ((int)k == r->recommended && month > 1) {
                dump (x, "enterprise");
                o.hpa = 1;
                struct gp_export *h = gp_export_render_opts (
                    c, GP_EXPORT_SERVING, &o, &err);
                if (!h)
                    fail_msg ("%s", err.text);
                dump (h, "enterprise-hpa");
                gp_export_destroy (h);
            }
            size_t f = 0;
            for (size_t i = 0; i < sp->n_workloads; i++) {
                if (sp->workloads[i].kind != GP_WL_INFERENCE)
                    continue;
                int want[24], got[24], nc, np, mm[2];
                assert_int_equal (gp_plan_service_day (sp, opt, i,
                                                       (size_t)month - 1,
                                                       want, &err), 0);
                assert_true (f < x->n_files);
                char name[96], gpus[64];
                snprintf (name, sizeof name, "%s.yaml",
                          sp->workloads[i].name);
                assert_string_equal (x->files[f].name, name);
                keda_day (x->files[f].text, got, &nc, &np, mm);
                assert_memory_equal (got, want, sizeof got);
                int lo = want[0], hi = want[0];
                for (int h = 0; h < 24; h++) {
                    lo = want[h] < lo ? want[h] : lo;
                    hi = want[h] > hi ? want[h] : hi;
                }
                assert_int_equal (mm[0], lo);
                assert_int_equal (mm[1], hi);
                const struct gp_plan_wl_plan *l = &opt->wl[i];
                int nodes = l->replica_nodes > 1 ? l->replica_nodes : 1;
                snprintf (gpus, sizeof gpus, "nvidia.com/gpu: %d\n",
                          l->gpus_per_replica / nodes);
                has (x->files[f].text, gpus);
                f++;
                tied++;
            }
            assert_int_equal (f, x->n_files);
            gp_export_destroy (x);
        }
        gp_cluster_destroy (c);
    }
    assert_true (tied >= 2);   /* at least one option, both months */
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (sp);
    gp_doc_destroy (d);
}

static void expect_err (struct fx *f, const int *rep, int code,
                        const char *text)
{
    gp_error_t e = render_err (f, rep);
    assert_int_equal (e.code, code);
    has (e.text, text);
}

static void test_errors (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_plan_workload *w = &f.sp->workloads[1];
    struct gp_plan_wl_plan *l = &f.opt->wl[1];
    snprintf (w->name, GP_PLAN_NAME, "Chat");
    expect_err (&f, DAY, GP_EINVAL, "workloads[1].name 'Chat'");
    snprintf (w->name, GP_PLAN_NAME, "9chat");
    expect_err (&f, DAY, GP_EINVAL, "DNS-1035");
    /* 54 characters: '<name>-predictor' would be 64. */
    snprintf (w->name, GP_PLAN_NAME, "%054d", 0);
    w->name[0] = 'a';
    expect_err (&f, DAY, GP_EINVAL, "at most 53");
    snprintf (w->name, GP_PLAN_NAME, "chat");
    snprintf (w->team, GP_PLAN_NAME, "Platform");
    expect_err (&f, DAY, GP_EINVAL, "workloads[1].team 'Platform'");
    snprintf (w->team, GP_PLAN_NAME, "platform");
    snprintf (l->engine, 16, "trtllm");
    expect_err (&f, DAY, GP_ENOTSUP, "engine 'trtllm'");
    snprintf (l->engine, 16, "vllm");
    snprintf (l->serve_precision, 16, "int4");
    expect_err (&f, DAY, GP_ENOTSUP, "precision 'int4'");
    snprintf (l->serve_precision, 16, "fp8");
    l->sized = 0;
    expect_err (&f, DAY, GP_EINVAL, "not sized");
    l->sized = 1;
    l->gpus_per_replica = 12;
    l->replica_nodes = 1;
    expect_err (&f, DAY, GP_EINVAL, "12 GPUs per replica");
    l->gpus_per_replica = 4;
    l->tp = 2;
    l->pp = 1;
    expect_err (&f, DAY, GP_EINVAL, "tp 2 x pp 1 != 4");
    l->tp = l->pp = 0;
    w->kind = GP_WL_RECURRING;
    expect_err (&f, DAY, GP_EINVAL, "workloads[1]: not an inference service");
    w->kind = GP_WL_INFERENCE;
    int bad[24];
    memcpy (bad, DAY, sizeof bad);
    bad[3] = 0;
    expect_err (&f, bad, GP_EINVAL, "0 replicas at hour 3");
    f.o.month = 37;
    expect_err (&f, DAY, GP_EINVAL, "--month 37: the horizon has 36");
    f.o.month = 0;
    /* No host size: the pods' CPU and memory would be unknown. */
    gp_cluster_destroy (f.c);
    f.c = fx_cluster_ok ("name: p\npools:\n  - name: x\n"
                         "    accelerator: H100-SXM\n    gpus_per_node: 8\n"
                         "    nodes: 2\n", "serving.yaml");
    f.o.catalog = NULL;
    expect_err (&f, DAY, GP_ENOTSUP, "host CPUs and memory unknown");
    fx_free (&f);
}

static void test_not_applicable (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.sp->n_workloads = 1;         /* the training run only */
    gp_error_t err = {0};
    struct gp_export *x = gp_export_render_opts (f.c, GP_EXPORT_SERVING,
                                                 &f.o, &err);
    if (!x)
        fail_msg ("%s", err.text);
    assert_int_equal (x->n_files, 0);
    has (x->not_applicable, "no inference service");
    gp_export_destroy (x);
    /* Without a plan: an error, not an empty export. */
    f.o.plan = NULL;
    x = gp_export_render_opts (f.c, GP_EXPORT_SERVING, &f.o, &err);
    assert_null (x);
    assert_int_equal (err.code, GP_EINVAL);
    fx_free (&f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_steps_merge),
        cmocka_unit_test (test_steps_edges),
        cmocka_unit_test (test_isvc_keda),
        cmocka_unit_test (test_precision_tp_pp),
        cmocka_unit_test (test_lws),
        cmocka_unit_test (test_lws_rdma),
        cmocka_unit_test (test_hpa),
        cmocka_unit_test (test_flat_keda),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_enterprise_tie),
        cmocka_unit_test (test_not_applicable),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
