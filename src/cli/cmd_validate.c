/* cmd_validate.c - 'gpuplan validate training FILE.csv': parse the flags
 * into a gp_validate_request, call gp_validate_training() once (the
 * predictions and summaries are made in src/lib/validate/) and render the
 * result as a table or JSON.  'validate inference' is delegated to
 * cmd_validate_inference().
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/validate.h"
#include "validate.h"

const char cmd_validate_help[] =
    "NAME\n"
    "    gpuplan validate - predict published measurements and report the "
    "error\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan validate training FILE.csv [--json] [--catalog DIR]\n"
    "    gpuplan validate inference FILE.csv [--json] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads a validation CSV (docs/formats/train.md, 'Validation CSV'),\n"
    "    predicts every row from its own inputs, the catalog and the model\n"
    "    zoo, and prints per row the predicted and measured value and the\n"
    "    relative error: tokens/s per GPU for 'throughput' rows, GPU-hours\n"
    "    for 'campaign' rows.  Layout fields the row leaves blank are chosen\n"
    "    by the layout search.  Rows that cannot be modelled are listed as\n"
    "    'unsupported' with the reason.  The summary gives the median\n"
    "    absolute relative error and the share of rows within 10/20/30 %,\n"
    "    per kind and per source family (the id prefix).\n"
    "\n"
    "OPTIONS\n"
    "    --json          one JSON document: {rows: [{id, kind, status,\n"
    "                    predicted, measured, rel_err, layout, reason}],\n"
    "                    summary: {n, n_ok, median_abs_rel_err,\n"
    "                    within_10pct, within_20pct, within_30pct, by_kind,\n"
    "                    by_family}}; errors and shares are fractions\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    --set GEN.KEY=V override one efficiency factor of a GPU generation\n"
    "                    (what-if and calibration studies; e.g.\n"
    "                    --set hopper.gemm_max=0.7); repeatable\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok (whatever the errors); 2 unreadable file, missing column,\n"
    "    unknown sub-word.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan validate training validation/training/training-public.csv\n";

/* ============================== rendering ============================= */

static void summary_print (const struct gp_val_summary *s)
{
    if (!s->n_ok) {
        printf ("  %-14s %4zu rows, %4zu ok\n", s->name, s->n, s->n_ok);
        return;
    }
    printf ("  %-14s %4zu rows, %4zu ok   median |err| %5.1f %%   within "
            "10/20/30 %%: %3.0f / %3.0f / %3.0f %%\n",
            s->name, s->n, s->n_ok, 100 * s->median_abs_rel_err,
            100 * s->within_10, 100 * s->within_20, 100 * s->within_30);
}

static void print_text (const struct gp_validation *v)
{
    const char *h[] = {"ID", "KIND", "PREDICTED", "MEASURED", "ERR",
                       "LAYOUT / REASON"};
    struct gp_text_table *t = gp_text_table_create (6, h);
    for (size_t i = 0; i < v->n_rows; i++) {
        const struct gp_val_row *o = &v->rows[i];
        char p[32], m[32], e[32];
        snprintf (p, sizeof p, o->predicted > 0 ? "%.1f" : "-",
                  o->predicted);
        if (isnan (o->measured))
            snprintf (m, sizeof m, "-");
        else
            snprintf (m, sizeof m, "%.1f", o->measured);
        if (o->ok)
            snprintf (e, sizeof e, "%+.1f%%", 100 * o->rel_err);
        else
            snprintf (e, sizeof e, "unsupported");
        const char *c[6] = {o->id,
                            o->kind == GP_VAL_CAMPAIGN ? "gpu-h"
                                                       : "tok/s/gpu",
                            p, m, e, o->ok ? o->layout : o->reason};
        gp_text_table_add (t, c);
    }
    cli_table_print (t);
    printf ("\nsummary (|relative error|; throughput rows in tokens/s "
            "per GPU, campaign rows in GPU-hours)\n");
    summary_print (&v->all);
    summary_print (&v->by_kind[GP_VAL_THROUGHPUT]);
    summary_print (&v->by_kind[GP_VAL_CAMPAIGN]);
    printf ("by source family\n");
    for (size_t f = 0; f < v->n_families; f++)
        summary_print (&v->by_family[f]);
}

static int run_training (const struct gp_validate_request *rq, int as_json,
                         const char *dir)
{
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_validation *v = NULL;
    int rc;
    if (gp_validate_training (cat, rq, &v, &err))
        rc = cli_fail (&err);
    else if (as_json)
        rc = cli_print_json (gp_validation_json (v));
    else {
        print_text (v);
        rc = EXIT_OK;
    }
    gp_validation_destroy (v);
    gp_catalog_destroy (cat);
    return rc;
}

int cmd_validate (int argc, char **argv)
{
    /* 'validate [opts] inference ...': hand the rest, with the sub-word
     * as argv[0], to the inference validator.
     */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            if ((!strcmp (argv[i], "--catalog") || !strcmp (argv[i], "--set"))
                && i + 1 < argc)
                i++;
            continue;
        }
        if (strcmp (argv[i], "inference"))
            break;
        char *sub[64];
        int n = 0;
        sub[n++] = argv[i];
        for (int j = 1; j < argc && n < 63; j++)
            if (j != i)
                sub[n++] = argv[j];
        sub[n] = NULL;
        return cmd_validate_inference (n, sub);
    }
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0;
    const char *dir = NULL;
    int o;
    if (cli_opts_begin ("validate", argc, argv, opts, NULL))
        return EXIT_USAGE;
    /* at most one override per two arguments */
    struct gp_validate_request rq = {0};
    struct gp_eff_override *sets = calloc ((size_t)argc, sizeof *sets);
    if (!sets)
        return cli_usage_error ("validate: out of memory");
    rq.overrides = sets;
    int rc = -1;
    while (rc < 0 && (o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            as_json = 1;
            break;
        case 's':
            if (gp_eff_override_parse (optarg, &sets[rq.n_overrides++], NULL))
                rc = cli_usage_error ("validate: bad --set '%s' (GEN.KEY="
                                      "VALUE, GEN ampere|hopper|blackwell|"
                                      "cdna3|other|all, KEY gemm_max|"
                                      "gemm_dim_half|attn|hbm|scale_up|"
                                      "scale_out|kernel_s)", optarg);
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            rc = cli_help ("validate");
            break;
        default:
            rc = cli_usage_error ("validate: unknown or incomplete option "
                                  "'%s' (see 'gpuplan validate --help')",
                                  argv[optind - 1]);
        }
    }
    if (rc >= 0)
        ;
    else if (optind >= argc)
        rc = cli_usage_error ("validate: expected 'training FILE.csv' or "
                              "'inference FILE.csv'");
    else if (strcmp (argv[optind], "training"))
        rc = cli_usage_error ("validate: unknown sub-word '%s' (expected "
                              "training or inference)", argv[optind]);
    else if (optind + 2 != argc)
        rc = cli_usage_error ("validate training: expected one FILE.csv");
    else {
        rq.path = argv[optind + 1];
        rc = run_training (&rq, as_json, dir);
    }
    free (sets);
    return rc;
}
