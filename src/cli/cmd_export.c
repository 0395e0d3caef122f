/* cmd_export.c - 'gpuplan export TARGET --cluster SPEC.yaml': write the
 * orchestrator configuration (Kueue, Volcano, Slurm) of a cluster spec.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cmd_export_help[] =
    "NAME\n"
    "    gpuplan export - orchestrator and monitoring configuration for a\n"
    "    planned cluster\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan export kueue|volcano|slurm|prometheus|grafana\n"
    "                   --cluster SPEC.yaml [--out DIR] [--json]\n"
    "                   [--kueue-api v1beta1|v1beta2] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Turns a cluster spec (pools, teams with quotas, weights, priorities,\n"
    "    cohorts with borrowing and lending limits; docs/formats/cluster.md)\n"
    "    into the objects of the engine that will enforce it:\n"
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
    "               metrics comparing the running cluster with the plan:\n"
    "               GPUs missing per pool, pools saturated or underused,\n"
    "               critical XID errors, teams above quota + borrowing\n"
    "      grafana  dashboard JSON over DCGM exporter metrics and the\n"
    "               recording rules of the prometheus target\n"
    "    The mapping rules are in docs/formats/export.md.  Without --out the\n"
    "    files are printed, each after a '# ==> NAME <==' line.\n"
    "\n"
    "OPTIONS\n"
    "    --cluster SPEC  the cluster spec (required)\n"
    "    --out DIR       write the files into DIR (created if missing)\n"
    "    --json          print {\"target\", \"files\": [{\"name\", \"text\"}]}\n"
    "    --kueue-api V   kueue.x-k8s.io version: v1beta2 (default, the\n"
    "                    storage version of Kueue 0.19) or v1beta1\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 2 bad spec, unknown target, or a name the engine rejects.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan export kueue --cluster examples/shared-cluster.yaml\n"
    "    gpuplan export slurm --cluster examples/shared-cluster.yaml --out slurm/\n";

/* Write the set into 'dir' (io.h: all or nothing); an exit status. */
static int write_set (const char *dir, const struct gp_export *x)
{
    struct gp_out_file *f = calloc (x->n_files + 1, sizeof *f);
    gp_error_t err = {0};
    if (!f)
        return EXIT_INTERNAL;
    for (size_t i = 0; i < x->n_files; i++)
        f[i] = (struct gp_out_file){x->files[i].name, x->files[i].text,
                                    strlen (x->files[i].text)};
    int rc = gp_write_dir_atomic (dir, f, x->n_files, &err);
    free (f);
    if (rc != 0)
        return cli_fail (&err);
    for (size_t i = 0; i < x->n_files; i++)
        fprintf (stderr, "gpuplan: wrote %s/%s\n", dir, x->files[i].name);
    return EXIT_OK;
}

int cmd_export (int argc, char **argv)
{
    static const struct option opts[] = {
        {"cluster", required_argument, NULL, 'C'},
        {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"kueue-api", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *spec = NULL, *out = NULL, *dir = NULL;
    int as_json = 0, o;
    struct gp_export_opts xo = {0};
    gp_error_t err = {0};
    static const char *const conflicts[] = {"json", "out", NULL};
    if (cli_opts_begin ("export", argc, argv, opts, conflicts))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'C':
            spec = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 'j':
            as_json = 1;
            break;
        case 'c':
            dir = optarg;
            break;
        case 'k':
            if (gp_export_kueue_api_parse (optarg, &xo.kueue_api, &err))
                return cli_usage_error ("export: --kueue-api: %s", err.text);
            break;
        case 'h':
            return cli_help ("export");
        default:
            return cli_usage_error ("export: unknown or incomplete option "
                                    "'%s' (see 'gpuplan export --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error ("export: expected one target: kueue, volcano, "
                                "slurm, prometheus or grafana");
    enum gp_export_target target;
    if (gp_export_target_parse (argv[optind], &target, &err) != 0)
        return cli_fail (&err);
    if (!spec)
        return cli_usage_error ("export: --cluster SPEC.yaml is required");
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    xo.catalog = cat;
    struct gp_cluster *cl = gp_cluster_load (spec, cat, &err);
    struct gp_export *x = cl ? gp_export_render_opts (cl, target, &xo, &err) : NULL;
    int rc;
    if (!x) {
        rc = cli_fail (&err);
    } else if (out) {
        rc = write_set (out, x);
    } else if (as_json) {
        rc = cli_print_json (gp_export_json (x));
    } else {
        for (size_t i = 0; i < x->n_files; i++)
            printf ("%s# ==> %s <==\n%s", i ? "\n" : "", x->files[i].name,
                    x->files[i].text);
        rc = EXIT_OK;
    }
    gp_export_destroy (x);
    gp_cluster_destroy (cl);
    gp_catalog_destroy (cat);
    return rc;
}
