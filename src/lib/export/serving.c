/* serving.c - the serving export target (docs/formats/export-serving.md):
 * per inference service of a plan, a KServe InferenceService running vLLM
 * with the planned replica layout (or a LeaderWorkerSet when a replica
 * spans nodes, serving_lws.c) and its autoscaler (serving_keda.c): a KEDA
 * ScaledObject stepping through the plan's replicas per hour of the day,
 * or an autoscaling/v2 HPA.  One file per service, <name>.yaml.
 *
 * Every number comes from the plan result (the option's wl[] layout and
 * gp_plan_service_day); nothing is sized here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"
#include "serving.h"

const char *gp__serve_dtype_flag (const char *precision)
{
    /* vLLM engine arguments: --dtype for the 16-bit weights, online FP8
     * quantization of a 16-bit checkpoint for fp8. */
    if (!strcmp (precision, "bf16"))
        return "--dtype=bfloat16";
    if (!strcmp (precision, "fp16"))
        return "--dtype=float16";
    if (!strcmp (precision, "fp8"))
        return "--quantization=fp8";
    return NULL;
}

void gp__serve_meta (struct gp__yaml *y, const struct gp__svc *s,
                     const char *name)
{
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    gp__y_kstr (y, "namespace", s->ns);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/workload", s->name);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

/* One NIC of each RDMA rail per pod (the network target's resources). */
static void rail_resources (struct gp__yaml *y, const struct gp__svc *s)
{
    for (int i = 0; s->rdma && i < s->rdma->n_rails; i++)
        gp__y_kint (y, s->rdma->rails[i].resource, 1);
}

void gp__serve_resources (struct gp__yaml *y, const struct gp__svc *s)
{
    long long gpus = s->gpus / s->nodes;
    long long cpu = (long long)((double)s->cpu_m * GP__SERVE_REQUEST_SHARE);
    long long mem = (long long)((double)s->mem * GP__SERVE_REQUEST_SHARE);
    mem -= mem % (1LL << 20);     /* whole MiB */
    gp__y_key (y, "resources");
    gp__y_map (y);
    gp__y_key (y, "requests");
    gp__y_map (y);
    gp__y_key (y, "cpu");
    gp__k8s_y_qty (y, "cpu", cpu);
    gp__y_key (y, "memory");
    gp__k8s_y_qty (y, "memory", mem);
    gp__y_key (y, s->gpu_res);
    gp__k8s_y_qty (y, s->gpu_res, gpus);
    rail_resources (y, s);
    gp__y_map_end (y);
    gp__y_key (y, "limits");
    gp__y_map (y);
    gp__y_key (y, "memory");
    gp__k8s_y_qty (y, "memory", s->mem);
    gp__y_key (y, s->gpu_res);
    gp__k8s_y_qty (y, s->gpu_res, gpus);
    rail_resources (y, s);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

static void vllm_args (struct gp__yaml *y, const struct gp__svc *s)
{
    char a[GP_PLAN_NAME + 32];
    gp__y_key (y, "args");
    gp__y_seq (y);
    snprintf (a, sizeof a, "--served-model-name=%s", s->name);
    gp__y_str (y, a);
    snprintf (a, sizeof a, "--tensor-parallel-size=%d", s->tp);
    gp__y_str (y, a);
    snprintf (a, sizeof a, "--pipeline-parallel-size=%d", s->pp);
    gp__y_str (y, a);
    snprintf (a, sizeof a, "--max-num-seqs=%d", s->max_num_seqs);
    gp__y_str (y, a);
    gp__y_str (y, gp__serve_dtype_flag (s->precision));
    gp__y_seq_end (y);
}

static void isvc (struct gp__yaml *y, const struct gp__svc *s)
{
    char uri[GP_PLAN_NAME + 16];
    snprintf (uri, sizeof uri, "pvc://models/%s", s->model);
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "serving.kserve.io/v1beta1");
    gp__y_kstr (y, "kind", "InferenceService");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", s->name);
    gp__y_kstr (y, "namespace", s->ns);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/workload", s->name);
    gp__y_kstr (y, "serving.kserve.io/deploymentMode", "Standard");
    gp__y_kstr (y, "serving.kserve.io/autoscalerClass", "external");
    gp__y_kstr (y, "serving.kserve.io/enable-prometheus-scraping", "true");
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "predictor");
    gp__y_map (y);
    gp__y_kint (y, "minReplicas", s->trough);
    gp__y_kint (y, "maxReplicas", s->peak);
    gp__y_key (y, "nodeSelector");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/pool", s->pool);
    gp__y_map_end (y);
    gp__y_key (y, "model");
    gp__y_map (y);
    gp__y_key (y, "modelFormat");
    gp__y_map (y);
    gp__y_kstr (y, "name", "vllm");
    gp__y_map_end (y);
    gp__y_kstr (y, "runtime", "kserve-vllmserver");
    gp__y_kstr (y, "storageUri", uri);
    vllm_args (y, s);
    gp__serve_resources (y, s);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

static void header (struct sb *b, const struct gp__svc *s)
{
    gp__sb_printf (b, "# Serving objects for service '");
    gp__comment_text (b, s->name);
    gp__sb_printf (b, "' of plan option '");
    gp__comment_text (b, s->option);
    gp__sb_printf (b, "', month %d, generated by gpuplan.\n# %d GPUs per "
                   "replica (tp %d x pp %d) on %d node(s); replicas %d to "
                   "%d over the day (%s).\n# Weights on PVC 'models' at "
                   "<model id>/; see docs/formats/export-serving.md.\n",
                   s->month, s->gpus, s->tp, s->pp, s->nodes, s->trough,
                   s->peak, GP__SERVE_TZ);
}

static int write_service (struct gp_export *x, const struct gp__svc *s,
                          int hpa)
{
    struct sb b = {0};
    struct gp__yaml y;
    header (&b, s);
    if (gp__y_open (&y, &b) != 0) {
        free (b.s);
        return GP_ENOMEM;
    }
    if (s->nodes > 1)
        gp__serve_lws (&y, s);
    else
        isvc (&y, s);
    if (hpa)
        gp__serve_hpa (&y, s);
    else
        gp__serve_keda (&y, s);
    if (gp__y_close (&y) != 0) {
        free (b.s);
        return GP_ENOMEM;
    }
    char name[GP_PLAN_NAME + 8];
    snprintf (name, sizeof name, "%s.yaml", s->name);
    return gp__export_add_file (x, name, &b) ? GP_ENOMEM : 0;
}

/* KServe's names: the InferenceService name is a DNS-1035 label, and
 * '<name>-predictor' (its Deployment and Service) must stay within 63.
 */
static int name_ok (const char *s)
{
    return gp__name_dns1123_label (s) && s[0] >= 'a' && s[0] <= 'z'
           && strlen (s) + strlen ("-predictor") <= 63;
}

/* The layout of service 'i' on 'opt' into 's' (everything but the day). */
static int layout (struct gp__svc *s, const struct gp_plan_workload *w,
                   const struct gp_plan_wl_plan *p, size_t i,
                   const struct gp_pool *pool, gp_error_t *err)
{
    if (!name_ok (w->name))
        return gp_errprintf (err, GP_EINVAL, "workloads[%zu].name '%s': "
                             "not a KServe name (a DNS-1035 label: a-z, "
                             "0-9 and '-', starting with a letter, at most "
                             "53 characters so that '<name>-predictor' "
                             "fits 63)", i, w->name);
    if (w->team[0] && !gp__name_dns1123_label (w->team))
        return gp_errprintf (err, GP_EINVAL, "workloads[%zu].team '%s': "
                             "not a Kubernetes namespace name (a DNS-1123 "
                             "label)", i, w->team);
    if (!p->sized || p->gpus_per_replica < 1 || p->max_num_seqs < 1)
        return gp_errprintf (err, GP_EINVAL, "workloads[%zu] '%s': not "
                             "sized on this option (no replica layout)",
                             i, w->name);
    if (p->engine[0] && strcmp (p->engine, "vllm"))
        return gp_errprintf (err, GP_ENOTSUP, "workloads[%zu] '%s': "
                             "planned on engine '%s'; the serving export "
                             "writes vLLM runtimes only", i, w->name,
                             p->engine);
    if (!gp__serve_dtype_flag (p->serve_precision))
        return gp_errprintf (err, GP_ENOTSUP, "workloads[%zu] '%s': "
                             "serving precision '%s' has no vLLM flag "
                             "(bf16, fp16, fp8)", i, w->name,
                             p->serve_precision);
    s->name = w->name;
    s->ns = w->team[0] ? w->team : "default";
    s->model = w->model;
    s->precision = p->serve_precision;
    s->gpus = p->gpus_per_replica;
    s->nodes = p->replica_nodes > 1 ? p->replica_nodes : 1;
    s->max_num_seqs = p->max_num_seqs;
    if (s->gpus % s->nodes || s->gpus / s->nodes > pool->gpus_per_node)
        return gp_errprintf (err, GP_EINVAL, "workloads[%zu] '%s': %d GPUs "
                             "per replica do not split evenly over %d "
                             "node(s) of %d GPUs", i, w->name, s->gpus,
                             s->nodes, pool->gpus_per_node);
    if (p->tp > 0 && p->pp > 0) {
        if ((long long)p->tp * p->pp != s->gpus)
            return gp_errprintf (err, GP_EINVAL, "workloads[%zu] '%s': "
                                 "planned tp %d x pp %d != %d GPUs per "
                                 "replica", i, w->name, p->tp, p->pp,
                                 s->gpus);
        s->tp = p->tp;
        s->pp = p->pp;
    } else {
        /* TP inside a node, PP across the replica's nodes (LWS's vLLM
         * example; docs/formats/export-serving.md). */
        s->tp = s->gpus / s->nodes;
        s->pp = s->nodes;
    }
    return 0;
}

/* 'rep' and the day's extremes into 's'. */
static int day (struct gp__svc *s, const int rep[GP_PLAN_DAY_HOURS],
                size_t i, gp_error_t *err)
{
    s->trough = s->peak = rep[0];
    for (int h = 0; h < GP_PLAN_DAY_HOURS; h++) {
        if (rep[h] < 1)
            return gp_errprintf (err, GP_EINVAL, "workloads[%zu] '%s': %d "
                                 "replicas at hour %d (at least 1)", i,
                                 s->name, rep[h], h);
        s->rep[h] = rep[h];
        s->trough = rep[h] < s->trough ? rep[h] : s->trough;
        s->peak = rep[h] > s->peak ? rep[h] : s->peak;
    }
    return 0;
}

/* The pool the services run on, its GPU resource and one GPU's share of
 * a node's CPUs and memory.
 */
static int pool_of (const struct gp_cluster *c, const struct gp_export_opts *o,
                    struct gp__svc *base, char res[][64], gp_error_t *err)
{
    const struct gp_pool *pl = &c->pools[0];
    long long counts[GP_MIG_MAX + 1];
    int n = gp_pool_k8s_resources (pl, "single", res, counts, GP_MIG_MAX + 1,
                                   err);
    if (n < 0)
        return n;
    if (n != 1 || strcmp (res[0], "nvidia.com/gpu") || pl->n_mig
        || pl->gpu_sharing)
        return gp_errprintf (err, GP_ENOTSUP, "pools[0] '%s': the serving "
                             "export runs vLLM's CUDA image on whole "
                             "nvidia.com/gpu devices (not %s%s)", pl->name,
                             res[0], pl->n_mig ? " MIG instances"
                             : pl->gpu_sharing ? " shared GPUs" : "");
    struct gp__k8s_res r;
    int rc = gp__k8s_res_build (&r, c, o->catalog, err);
    if (rc != 0)
        return rc;
    if (!r.host) {
        gp__k8s_res_free (&r);
        return gp_errprintf (err, GP_ENOTSUP, "pools[0] '%s': host CPUs and "
                             "memory unknown (set cpus_per_node and "
                             "host_memory, or give the catalog): the vLLM "
                             "pods need their share of the node", pl->name);
    }
    base->cpu_m = r.per_node[0];          /* per node, for now */
    base->mem = r.per_node[1];
    gp__k8s_res_free (&r);
    base->pool = pl->name;
    base->gpu_res = res[0];
    return 0;
}

/* 'g' GPUs' share of 'per_node' on a node of 'pl' (exact in 64 bits). */
static long long share (long long per_node, long long g,
                        const struct gp_pool *pl)
{
    long long n = pl->gpus_per_node;
    return per_node / n * g + per_node % n * g / n;
}

/* The option of the plan, and the month (1-based) the export follows. */
static int plan_month (const struct gp_export_opts *o,
                       const struct gp_plan_option **opt, int *month,
                       gp_error_t *err)
{
    const struct gp_export_plan *p = o->plan;
    if (!p || !p->spec || !p->result || p->option < 0
        || (size_t)p->option >= p->result->n_options)
        return gp_errprintf (err, GP_EINVAL, "export serving: no plan "
                             "option to export");
    *opt = &p->result->options[p->option];
    int months = (int)(p->result->n_periods ? p->result->n_periods
                                              : (*opt)->n_periods);
    *month = o->month ? o->month : months;
    if (*month < 1 || *month > months)
        return gp_errprintf (err, GP_EINVAL, "--month %d: the horizon has "
                             "%d months", o->month, months);
    return 0;
}

int gp__serve_render (const struct gp_cluster *c,
                      const struct gp_export_opts *o, size_t i,
                      const int rep[GP_PLAN_DAY_HOURS], struct gp_export *x,
                      gp_error_t *err)
{
    const struct gp_plan_option *opt;
    char res[GP_MIG_MAX + 1][64];
    struct gp__svc s = {0};
    int rc = plan_month (o, &opt, &s.month, err);
    if (rc == 0 && (i >= o->plan->spec->n_workloads
                    || o->plan->spec->workloads[i].kind != GP_WL_INFERENCE))
        rc = gp_errprintf (err, GP_EINVAL, "workloads[%zu]: not an "
                           "inference service", i);
    if (rc == 0)
        rc = pool_of (c, o, &s, res, err);
    if (rc == 0)
        rc = layout (&s, &o->plan->spec->workloads[i], &opt->wl[i], i,
                     &c->pools[0], err);
    if (rc == 0)
        rc = day (&s, rep, i, err);
    if (rc != 0)
        return rc;
    struct gp__rdma rd;
    if (s.nodes > 1) {
        rc = gp__rdma_rails (o, c, &rd, err);
        if (rc != 0)
            return rc;
        s.rdma = &rd;
    }
    s.option = opt->name;
    s.cpu_m = share (s.cpu_m, s.gpus / s.nodes, &c->pools[0]);
    s.mem = share (s.mem, s.gpus / s.nodes, &c->pools[0]);
    return write_service (x, &s, o->hpa);
}

static int write_serving (const struct gp_cluster *c,
                          const struct gp_export_opts *o, struct gp_export *x,
                          gp_error_t *err)
{
    const struct gp_plan_option *opt;
    int month;
    int rc = plan_month (o, &opt, &month, err);
    if (rc != 0)
        return rc;
    const struct gp_plan_spec *sp = o->plan->spec;
    size_t n = 0;
    for (size_t i = 0; i < sp->n_workloads; i++)
        n += sp->workloads[i].kind == GP_WL_INFERENCE;
    if (n == 0) {
        snprintf (x->not_applicable, sizeof x->not_applicable,
                  "the plan has no inference service");
        return 0;
    }
    for (size_t i = 0; rc == 0 && i < sp->n_workloads; i++) {
        int rep[GP_PLAN_DAY_HOURS];
        if (sp->workloads[i].kind != GP_WL_INFERENCE)
            continue;
        rc = gp_plan_service_day (sp, opt, i, (size_t)month - 1, rep, err);
        if (rc == 0)
            rc = gp__serve_render (c, o, i, rep, x, err);
    }
    return rc;
}

const struct gp_export_target_ops gp__export_serving = {
    .name = "serving",
    .k8s_names = 1,
    .needs_plan = 1,
    .write = write_serving,
};
