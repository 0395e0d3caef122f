/* cmd_cluster.c - 'gpuplan cluster SPEC.yaml': load and summarise a cluster.
 *
 * The summary is plain arithmetic over catalog rows (GPUs x per-GPU value),
 * so every figure traces to a catalog row and its source.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char cmd_cluster_help[] =
    "NAME\n"
    "    gpuplan cluster - load a cluster spec and summarise its capacity\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan cluster SPEC.yaml [--json] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads a cluster spec (docs/formats/cluster.md): a name and node\n"
    "    pools, each with an accelerator id from the catalog, GPUs per node\n"
    "    and a node count.  Prints per pool and in total: nodes, GPUs, device\n"
    "    memory, memory bandwidth, dense BF16 and FP8 peak FLOP/s and the\n"
    "    accelerators' TDP, each the catalog value times the GPU count.\n"
    "    Unknown catalog values are shown as '-' and flagged.\n"
    "\n"
    "OPTIONS\n"
    "    --json          print one JSON document (SI units: bytes, byte/s,\n"
    "                    FLOP/s, W)\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 2 unreadable or invalid spec (message names file:line:col),\n"
    "    unknown accelerator (with the closest ids).\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan cluster examples/cluster.yaml\n"
    "    gpuplan cluster examples/cluster.yaml --json\n";

static void row_of (const char *name, const char *accel,
                    const struct gp_cluster_totals *t, char b[8][48],
                    const char *r[9])
{
    snprintf (b[0], 48, "%lld", t->nodes);
    snprintf (b[1], 48, "%lld", t->gpus);
    gp_format_quantity (t->hbm_bytes, GP_Q_BYTES, 0, b[2], 48);
    gp_format_quantity (t->hbm_bw, GP_Q_BANDWIDTH, 0, b[3], 48);
    gp_format_quantity (t->bf16_flops, GP_Q_FLOPS, 0, b[4], 48);
    if (t->fp8_flops > 0)
        gp_format_quantity (t->fp8_flops, GP_Q_FLOPS, 0, b[5], 48);
    else
        snprintf (b[5], 48, "-");
    gp_format_quantity (t->gpu_tdp_w, GP_Q_POWER, 0, b[6], 48);
    r[0] = name;
    r[1] = accel;
    for (int i = 0; i < 7; i++)
        r[2 + i] = b[i];
}

int cmd_cluster (int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0;
    const char *dir = NULL;
    int o;
    if (cli_opts_begin ("cluster", argc, argv, opts, NULL))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            as_json = 1;
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            return cli_help ("cluster");
        default:
            return cli_usage_error ("cluster: unknown or incomplete option "
                                    "'%s' (see 'gpuplan cluster --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error ("cluster: expected one SPEC.yaml (see "
                                "'gpuplan cluster --help')");
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_cluster *cl = gp_cluster_load (argv[optind], cat, &err);
    if (!cl) {
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    struct gp_cluster_totals all;
    gp_cluster_totals (cl, &all);
    int rc = EXIT_OK;
    if (as_json) {
        rc = cli_print_json (gp_cluster_json (cl));
    } else {
        printf ("cluster %s: %lld nodes, %lld GPUs in %zu pool%s\n\n",
                cl->name, all.nodes, all.gpus, cl->n_pools,
                cl->n_pools == 1 ? "" : "s");
        const char *h[] = {"POOL", "ACCELERATOR", "NODES", "GPUS", "MEMORY",
                           "MEM BW", "BF16 PEAK", "FP8 PEAK", "GPU TDP"};
        struct gp_text_table *t = gp_text_table_create (9, h);
        char b[8][48];
        const char *r[9];
        for (size_t i = 0; i < cl->n_pools; i++) {
            const struct gp_pool *p = &cl->pools[i];
            struct gp_cluster_totals pt;
            gp_cluster_pool_totals (cl, i, &pt, NULL);
            row_of (p->name, p->accel->id, &pt, b, r);
            gp_text_table_add (t, r);
        }
        row_of ("total", "", &all, b, r);
        gp_text_table_add (t, r);
        cli_table_print (t);
        printf ("\nPeaks are dense tensor figures from the catalog (sources: "
                "'gpuplan catalog show ID').\nTDP counts accelerators only, "
                "not hosts, network or cooling.\n");
        if (all.incomplete)
            cli_warn ("some catalog values are unknown and count as 0");
    }
    gp_cluster_destroy (cl);
    gp_catalog_destroy (cat);
    return rc;
}
