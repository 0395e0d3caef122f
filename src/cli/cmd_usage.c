/* cmd_usage.c - 'gpuplan usage': GPU-hours and cost per team from what a
 * cluster recorded (kubectl pod list, sacct, Prometheus DCGM series).
 * Parse flags, fill a gp_usage_request, one gp_usage_read(), render.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/usage.h"

const char cmd_usage_help[] =
    "NAME\n"
    "    gpuplan usage - GPU-hours and chargeback per team from observed "
    "usage\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan usage --trace FILE [--format kubectl|sacct|prometheus]\n"
    "                  [--until TIME] [--rate USD] [--nodes NODES.json]\n"
    "                  [--cluster SPEC.yaml] [--catalog DIR] [--json]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads what a cluster recorded (docs/formats/usage.md) and sums\n"
    "    GPU-hours per team and pool:\n"
    "      kubectl     'kubectl get pods -A -o json': per namespace, the\n"
    "                  pod's effective GPU request (nvidia.com/gpu,\n"
    "                  amd.com/gpu, MIG slices, ...) x startTime to the\n"
    "                  last container's finishedAt (--until if running)\n"
    "      sacct       'sacct --parsable2' with a header: per Account,\n"
    "                  AllocTRES gres/gpu x ElapsedRaw, by Partition, QOS\n"
    "      prometheus  query_range JSON of one DCGM metric: GPUs seen\n"
    "                  allocated to a team x the step, utilization beside\n"
    "    The format is detected from the content when --format is\n"
    "    omitted.  Cost = GPU-hours x the rate: --rate, else the pricing\n"
    "    rule (on-demand) for each pool's accelerator in --cluster.\n"
    "\n"
    "OPTIONS\n"
    "    --trace FILE      the input; '-' reads standard input\n"
    "    --format F        kubectl, sacct or prometheus (default: detect)\n"
    "    --until TIME      end of running pods/jobs, YYYY-MM-DDTHH:MM:SS[Z]\n"
    "                      (required when any is running)\n"
    "    --rate USD        price of a GPU-hour for every pool\n"
    "    --nodes FILE      'kubectl get nodes -o json': pool of a node from\n"
    "                      its gpuplan.io/pool label\n"
    "    --cluster SPEC    cluster spec: pool accelerators for pricing\n"
    "    --catalog DIR     merge catalog CSV files found in DIR\n"
    "    --json            print one JSON document\n"
    "    -h, --help        show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 2 bad option or input (file:line or JSON path named), or a\n"
    "    running pod or job without --until.\n"
    "\n"
    "EXAMPLES\n"
    "    kubectl get pods -A -o json > pods.json\n"
    "    gpuplan usage --trace pods.json --until 2026-01-31T00:00:00Z \\\n"
    "        --cluster examples/cluster.yaml\n"
    "    gpuplan usage --trace tests/usage/sacct.txt --rate 2.5 --json\n";

struct uopts {
    struct gp_usage_request rq;
    const char *cluster, *catalog;
    int json;
};

static int parse (int argc, char **argv, struct uopts *o)
{
    static const struct option opts[] = {
        {"trace", required_argument, NULL, 't'},
        {"format", required_argument, NULL, 'f'},
        {"until", required_argument, NULL, 'u'},
        {"rate", required_argument, NULL, 'r'},
        {"nodes", required_argument, NULL, 'n'},
        {"cluster", required_argument, NULL, 'c'},
        {"catalog", required_argument, NULL, 'C'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    if (cli_opts_begin ("usage", argc, argv, opts, NULL))
        return EXIT_USAGE;
    while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        gp_error_t e = {0};
        switch (c) {
        case 't': o->rq.trace_path = optarg; break;
        case 'u': o->rq.until = optarg; break;
        case 'n': o->rq.nodes_path = optarg; break;
        case 'c': o->cluster = optarg; break;
        case 'C': o->catalog = optarg; break;
        case 'j': o->json = 1; break;
        case 'h': return cli_help ("usage") == EXIT_OK ? -1 : EXIT_USAGE;
        case 'f':
            if (gp_usage_format_parse (optarg, &o->rq.format, &e) != 0)
                return cli_usage_error ("usage: --format: %s", e.text);
            break;
        case 'r':
            /* USD per GPU-hour, above 0 and at most $1e6. */
            if (gp_opt_number ("--rate", optarg, GP_Q_MONEY_RATE, 0, 1e6, 0,
                               &o->rq.rate_usd, &e) != 0
                || !(o->rq.rate_usd > 0))
                return cli_usage_error ("usage: %s", e.code ? e.text
                                        : "--rate: must be above 0 USD per "
                                          "GPU-hour");
            break;
        default:
            return cli_usage_error ("usage: unknown or incomplete option "
                                    "'%s' (see 'gpuplan usage --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error ("usage: unexpected argument '%s'",
                                argv[optind]);
    if (!o->rq.trace_path)
        return cli_usage_error ("usage: --trace FILE is required (see "
                                "'gpuplan usage --help')");
    return 0;
}

int cmd_usage (int argc, char **argv)
{
    struct uopts o;
    memset (&o, 0, sizeof o);
    int rc = parse (argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    gp_error_t err = {0};
    struct gp_catalog *cat = NULL;
    struct gp_cluster *cl = NULL;
    struct gp_usage *u = NULL;
    if (o.cluster) {
        cat = gp_catalog_load (o.catalog, &err);
        cl = cat ? gp_cluster_load (o.cluster, cat, &err) : NULL;
        o.rq.cluster = cl;
        o.rq.catalog = cat;
    }
    if (!o.cluster || cl)
        u = gp_usage_read (&o.rq, &err);
    if (!u) {
        rc = cli_fail (&err);
    } else if (o.json) {
        rc = cli_print_json (gp_report_usage_json (u));
    } else {
        char *txt = gp_report_usage_text (u, &err);
        rc = txt ? (fputs (txt, stdout), EXIT_OK) : cli_fail (&err);
        free (txt);
    }
    gp_usage_destroy (u);
    gp_cluster_destroy (cl);
    gp_catalog_destroy (cat);
    return rc;
}
