/* cmd_export.c - 'gpuplan export TARGET --cluster SPEC.yaml' and
 * 'gpuplan export TARGET|all --plan PLAN.yaml [--option NAME]': write the
 * orchestrator, monitoring and Kubernetes-stack configuration of a
 * cluster spec or of one option of a capacity plan.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cmd_export_help[] =
    "NAME\n"
    "    gpuplan export - orchestrator, monitoring and Kubernetes-stack\n"
    "    configuration for a planned cluster\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan export kueue|volcano|slurm|prometheus|grafana|gpu-operator|\n"
    "                   yunikorn --cluster SPEC.yaml [--out DIR] [--json]\n"
    "    gpuplan export TARGET|all --plan PLAN.yaml [--option NAME]\n"
    "                   [--month N] [--network-operator nvidia|sriov] [--hpa]\n"
    "                   [--out DIR] [--json]\n"
    "    common: [--kueue-api v1beta1|v1beta2] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Turns a cluster spec (pools, teams with quotas, weights, priorities,\n"
    "    cohorts with borrowing and lending limits; docs/formats/cluster.md),\n"
    "    or one option of a capacity plan (docs/formats/plan.md), into the\n"
    "    objects of the engines that will run it:\n"
    "      kueue    ResourceFlavor per pool, ClusterQueue per team (cohort,\n"
    "               nominal quota, borrowing/lending limits, fair-sharing\n"
    "               weight), WorkloadPriorityClass per priority, Namespace and\n"
    "               LocalQueue per team (kueue.x-k8s.io/v1beta2)\n"
    "      volcano  Queue per team (weight, deserved = quota, capability =\n"
    "               quota + borrowing limit), a parent Queue per cohort\n"
    "      slurm    slurm.conf nodes/partitions/scheduling, gres.conf,\n"
    "               topology.conf (leaf per rack, one spine), accounts.sh\n"
    "               (sacctmgr QOS GrpTRES caps and Fairshare)\n"
    "      prometheus recording and alerting rules over DCGM exporter\n"
    "               metrics comparing the running cluster with the plan\n"
    "      grafana  dashboard JSON over DCGM exporter metrics and the\n"
    "               recording rules of the prometheus target\n"
    "      gpu-operator ClusterPolicy, MIG and GPU-sharing config, DCGM\n"
    "               counters\n"
    "      yunikorn yunikorn-configs ConfigMap (queues.yaml)\n"
    "      network  RDMA secondary networks per rail (plan only)\n"
    "      serving  KServe / LeaderWorkerSet and KEDA / HPA per inference\n"
    "               service (plan only)\n"
    "      jobs     TrainJob / JobSet and sbatch per training run (plan\n"
    "               only)\n"
    "      all      every target, one folder each (plan only; needs --out or\n"
    "               prints every file)\n"
    "    From a plan, the cluster is the option's: one pool of its nodes, the\n"
    "    plan's teams with the option's quotas in one cohort named after the\n"
    "    plan.  A target that does not apply to the option writes nothing and\n"
    "    says why on stderr.  The mapping rules are in docs/formats/export.md.\n"
    "    Without --out the files are printed, each after a '# ==> NAME <=='\n"
    "    line.\n"
    "\n"
    "OPTIONS\n"
    "    --cluster SPEC  the cluster spec\n"
    "    --plan PLAN     the capacity plan (one of --cluster, --plan)\n"
    "    --option NAME   the plan option to export (default: the\n"
    "                    recommended one); must be sized and feasible\n"
    "    --month N       serving: the month of the horizon (1 to its months)\n"
    "                    whose traffic the autoscaler follows (default: the\n"
    "                    last)\n"
    "    --network-operator nvidia|sriov  network: NVIDIA Network Operator\n"
    "                    (default) or the standalone SR-IOV Network Operator\n"
    "    --hpa           serving: autoscaling/v2 HPA instead of KEDA\n"
    "    --out DIR       write the files into DIR (created if missing; all or\n"
    "                    nothing)\n"
    "    --json          print {\"target\", \"files\": [{\"name\", \"text\"}]}\n"
    "                    (all: a list of them)\n"
    "    --kueue-api V   kueue.x-k8s.io version: v1beta2 (default, the\n"
    "                    storage version of Kueue 0.19) or v1beta1\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok (a target that does not apply included); 1 the option is\n"
    "    infeasible or not sized; 2 bad spec, unknown target or option,\n"
    "    --month outside the horizon, a plan-only target with --cluster, a\n"
    "    name the engine rejects, or a target not yet supported; 3 the files\n"
    "    could not be written.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan export kueue --cluster examples/shared-cluster.yaml\n"
    "    gpuplan export slurm --cluster examples/shared-cluster.yaml --out slurm/\n"
    "    gpuplan export all --plan examples/enterprise-plan.yaml --out k8s/\n";

/* What one command exports: the targets and where they go. */
struct req {
    const char *cluster, *plan, *option, *out, *catalog;
    int all, as_json;
    enum gp_export_target target;
    struct gp_export_opts xo;
};

/* "gpuplan: export X: not applicable: why" for each export in 'xs' that
 * does not apply; the number of exports that do.
 */
static size_t report_not_applicable (struct gp_export *const *xs, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (xs[i]->not_applicable[0])
            fprintf (stderr, "gpuplan: export %s: not applicable: %s\n",
                     gp_export_target_str (xs[i]->target),
                     xs[i]->not_applicable);
        else
            used++;
    }
    return used;
}

/* Write every file of 'xs' into 'dir' in one all-or-nothing step, each
 * under "<target>/" when 'sub'; an exit status.
 */
static int write_set (const char *dir, struct gp_export *const *xs, size_t n,
                      int sub)
{
    gp_error_t err = {0};
    if (gp_export_write (dir, xs, n, sub, &err) != 0)
        return cli_fail (&err);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < xs[i]->n_files; j++)
            fprintf (stderr, "gpuplan: wrote %s/%s%s%s\n", dir,
                     sub ? gp_export_target_str (xs[i]->target) : "",
                     sub ? "/" : "", xs[i]->files[j].name);
    return EXIT_OK;
}

/* Print or write the exports 'xs'; an exit status. */
static int emit (const struct req *q, struct gp_export *const *xs, size_t n)
{
    if (report_not_applicable (xs, n) == 0 && !q->as_json)
        return EXIT_OK;
    if (q->out)
        return write_set (q->out, xs, n, q->all);
    if (q->as_json) {
        if (!q->all)
            return cli_print_json (gp_export_json (xs[0]));
        json_t *a = json_array ();
        for (size_t i = 0; a && i < n; i++)
            json_array_append_new (a, gp_export_json (xs[i]));
        return cli_print_json (a);
    }
    int first = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < xs[i]->n_files; j++, first = 0)
            printf ("%s# ==> %s%s%s <==\n%s", first ? "" : "\n",
                    q->all ? gp_export_target_str (xs[i]->target) : "",
                    q->all ? "/" : "", xs[i]->files[j].name,
                    xs[i]->files[j].text);
    return EXIT_OK;
}

/* Export from the plan of q->plan; an exit status. */
static int from_plan (const struct req *q, struct gp_catalog *cat,
                      struct gp_export **xs, size_t *n, gp_error_t *err)
{
    struct gp_doc *doc = gp_doc_load (q->plan, err);
    struct gp_plan_spec *spec = doc ? gp_plan_spec_from_doc (doc, cat, err)
                                    : NULL;
    struct gp_plan_result *res = spec ? gp_plan_run (spec, cat, err) : NULL;
    int idx = res ? gp_plan_option_index (res, q->option, err) : -1;
    int rc = -1;
    if (idx >= 0) {
        struct gp_export_plan p = {spec, res, idx};
        if (q->all) {
            rc = gp_export_render_plan_all (&p, &q->xo, cat, xs, err);
            *n = rc == 0 ? GP_EXPORT__COUNT : 0;
        } else {
            xs[0] = gp_export_render_plan (&p, q->target, &q->xo, cat, err);
            *n = xs[0] ? 1 : 0;
            rc = xs[0] ? 0 : -1;
        }
    }
    gp_plan_result_destroy (res);
    gp_plan_spec_destroy (spec);
    gp_doc_destroy (doc);
    return rc == 0 ? EXIT_OK : cli_fail (err);
}

/* Export from the cluster spec q->cluster; an exit status. */
static int from_cluster (const struct req *q, struct gp_catalog *cat,
                         struct gp_export **xs, size_t *n, gp_error_t *err)
{
    struct gp_cluster *cl = gp_cluster_load (q->cluster, cat, err);
    xs[0] = cl ? gp_export_render_opts (cl, q->target, &q->xo, err) : NULL;
    gp_cluster_destroy (cl);
    *n = xs[0] ? 1 : 0;
    return xs[0] ? EXIT_OK : cli_fail (err);
}

/* The flags' consistency; EXIT_OK or a usage error. */
static int check_req (const struct req *q, int plan_flags)
{
    if (!q->cluster == !q->plan)
        return cli_usage_error ("export: --cluster SPEC.yaml is required "
                                "(or --plan PLAN.yaml)");
    if (q->cluster && plan_flags)
        return cli_usage_error ("export: --option, --month, "
                                "--network-operator and --hpa need --plan");
    if (q->cluster && q->all)
        return cli_usage_error ("export all: needs --plan PLAN.yaml");
    if (q->cluster && gp_export_target_needs_plan (q->target))
        return cli_usage_error ("export %s: needs a plan (--plan PLAN.yaml), "
                                "not a cluster spec",
                                gp_export_target_str (q->target));
    return EXIT_OK;
}

/* --month N: a whole number >= 1 (the horizon is checked with the plan). */
static int parse_month (const char *s, int *m)
{
    char *end;
    long v = strtol (s, &end, 10);
    if (!*s || *end || v < 1 || v > 100000)
        return cli_usage_error ("export: --month '%s': expected a month of "
                                "the plan's horizon, 1 to its months", s);
    *m = (int)v;
    return EXIT_OK;
}

static int parse_args (int argc, char **argv, struct req *q)
{
    static const struct option opts[] = {
        {"cluster", required_argument, NULL, 'C'},
        {"plan", required_argument, NULL, 'P'},
        {"option", required_argument, NULL, 'O'},
        {"month", required_argument, NULL, 'm'},
        {"network-operator", required_argument, NULL, 'n'},
        {"hpa", no_argument, NULL, 'H'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"kueue-api", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const conflicts[] = {"json", "out", "cluster", "plan",
                                            NULL};
    gp_error_t err = {0};
    int o, plan_flags = 0;
    if (cli_opts_begin ("export", argc, argv, opts, conflicts))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        plan_flags |= o == 'O' || o == 'm' || o == 'n' || o == 'H';
        switch (o) {
        case 'C':
            q->cluster = optarg;
            break;
        case 'P':
            q->plan = optarg;
            break;
        case 'O':
            q->option = optarg;
            break;
        case 'o':
            q->out = optarg;
            break;
        case 'j':
            q->as_json = 1;
            break;
        case 'c':
            q->catalog = optarg;
            break;
        case 'H':
            q->xo.hpa = 1;
            break;
        case 'm':
            if (parse_month (optarg, &q->xo.month))
                return EXIT_USAGE;
            break;
        case 'n':
            if (strcmp (optarg, "nvidia") && strcmp (optarg, "sriov"))
                return cli_usage_error ("export: --network-operator '%s': "
                                        "expected nvidia or sriov", optarg);
            q->xo.net = optarg[0] == 's' ? GP_NET_SRIOV
                                         : GP_NET_NVIDIA_OPERATOR;
            break;
        case 'k':
            if (gp_export_kueue_api_parse (optarg, &q->xo.kueue_api, &err))
                return cli_usage_error ("export: --kueue-api: %s", err.text);
            break;
        case 'h':
            cli_help ("export");
            return -1;
        default:
            return cli_usage_error ("export: unknown or incomplete option "
                                    "'%s' (see 'gpuplan export --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error ("export: expected one target: kueue, volcano, "
                                "slurm, prometheus, grafana, gpu-operator, "
                                "yunikorn, network, serving, jobs or all");
    q->all = !strcmp (argv[optind], "all");
    if (!q->all && gp_export_target_parse (argv[optind], &q->target, &err))
        return cli_fail (&err);
    return check_req (q, plan_flags);
}

int cmd_export (int argc, char **argv)
{
    struct req q;
    memset (&q, 0, sizeof q);
    int rc = parse_args (argc, argv, &q);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (q.catalog, &err);
    if (!cat)
        return cli_fail (&err);
    q.xo.catalog = cat;
    struct gp_export *xs[GP_EXPORT__COUNT] = {NULL};
    size_t n = 0;
    rc = q.plan ? from_plan (&q, cat, xs, &n, &err)
                : from_cluster (&q, cat, xs, &n, &err);
    if (rc == EXIT_OK)
        rc = emit (&q, xs, n);
    for (size_t i = 0; i < n; i++)
        gp_export_destroy (xs[i]);
    gp_catalog_destroy (cat);
    return rc;
}
