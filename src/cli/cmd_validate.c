/* cmd_validate.c - 'gpuplan validate training FILE.csv': parse the flags
 * into a gp_validate_request, call gp_validate_training() once (the
 * predictions and summaries are made in src/lib/validate/) and render the
 * result as a table or JSON.  'validate inference' is delegated to
 * cmd_validate_inference().
 */
#include <getopt.h>
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
    "    gpuplan validate training FILE.csv [FILE.csv...] [--json]\n"
    "                     [--catalog DIR]\n"
    "                     [--set GEN.KEY=V]... [--no-loso]\n"
    "    gpuplan validate inference FILE.csv [FILE.csv...] [--json]\n"
    "                     [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads a validation CSV (docs/formats/train.md, 'Validation CSV'),\n"
    "    predicts every row from its own inputs, the catalog and the model\n"
    "    zoo, and prints per row the predicted and measured value and the\n"
    "    relative error in the row's own measure: tokens/s per GPU or\n"
    "    model TFLOP/s per GPU for 'throughput' rows, GPU-hours, days or\n"
    "    time-to-train for 'campaign' rows.  Layout fields the row leaves\n"
    "    blank are chosen by the layout search; a row without seq_len or\n"
    "    global_batch is planned as 'gpuplan train --gpus N' plans it, and\n"
    "    the row shows what the planner chose.  Rows that cannot be\n"
    "    modelled are listed as 'unsupported' with the reason.  The summary\n"
    "    gives the median absolute relative error and the share of rows\n"
    "    within 10/20/30 %, per kind and per source family (the id\n"
    "    prefix), then per family the efficiency factors its rows read, the\n"
    "    constants fitted on the validation rows that they depend on, and\n"
    "    the in-sample against the leave-one-source-out error (a gap over\n"
    "    3 points is flagged: the fit follows rows, not mechanisms).\n"
    "    Several files are read as one set (each with its own header), so\n"
    "    that families of different files are held out against each other.\n"
    "    'validate inference' (docs/formats/infer.md) reports output\n"
    "    tokens/s, TTFT and TPOT, then the same fitting table per family,\n"
    "    held out with one throughput\n"
    "    scale per engine stack refitted on the other families' rows.\n"
    "\n"
    "OPTIONS\n"
    "    --json          one JSON document: {rows: [{id, kind, status,\n"
    "                    predicted, measured, rel_err, layout, reason}],\n"
    "                    summary: {n, n_ok, median_abs_rel_err,\n"
    "                    within_10pct, within_20pct, within_30pct, by_kind,\n"
    "                    by_family, fit, loso}}; errors and shares are\n"
    "                    fractions\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    --set GEN.KEY=V override one efficiency factor of a GPU generation\n"
    "                    (what-if and calibration studies; e.g.\n"
    "                    --set hopper.gemm_max=0.7); repeatable\n"
    "    --no-loso       skip the leave-one-source-out refit (36 extra\n"
    "                    passes over the rows)\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok (whatever the errors); 2 unreadable file, missing column,\n"
    "    unknown sub-word.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan validate training validation/training/training-public.csv\n";

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
    else
        rc = cli_print_text (gp_validation_text (v, &err), &err);
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
        {"no-loso", no_argument, NULL, 'n'},
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
    rq.loso = 1;
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
                                      "scale_out|kernel_s|attn_cudnn)",
                                      optarg);
            break;
        case 'n':
            rq.loso = 0;
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
    else if (optind + 2 > argc)
        rc = cli_usage_error ("validate training: expected FILE.csv");
    else {
        rq.path = argv[optind + 1];
        rq.paths = (const char *const *)&argv[optind + 1];
        rq.n_paths = (size_t)(argc - optind - 1);
        rc = run_training (&rq, as_json, dir);
    }
    free (sets);
    return rc;
}
