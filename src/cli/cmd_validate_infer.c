/* cmd_validate_infer.c - 'gpuplan validate inference FILE.csv': one call
 * to gp_validate_inference() (rows and error summaries), rendered as a
 * table or JSON.  Called by the 'validate' dispatcher with argv[0] =
 * "inference".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/validate.h"
#include "validate.h"

/* Rate-mode rows: predicted (measured) TTFT, TPOT and E2E mean/p90/p99. */
static void print_rate (const struct gp_infer_validation *v)
{
    static const char *q[3] = {"TTFT", "TPOT", "E2E"};
    const char *h[] = {"ID", "LATENCY", "MEAN ms pred (meas)",
                       "P90 ms pred (meas)", "P99 ms pred (meas)"};
    struct gp_text_table *t = NULL;
    for (size_t i = 0; i < v->val.n_rows; i++) {
        const struct gp_infer_val_row *r = &v->val.rows[i];
        if (!r->ok || !r->rate_mode)
            continue;
        if (!t)
            t = gp_text_table_create (5, h);
        for (int a = 0; a < 3; a++) {
            char b[3][48];
            for (int k = 0; k < 3; k++) {
                double p = r->lat_pred_s[GP_INFER_LAT (a, k)] * 1e3;
                double m = r->lat_meas_s[GP_INFER_LAT (a, k)] * 1e3;
                if (m > 0)
                    snprintf (b[k], 48, "%.1f (%.1f)", p, m);
                else
                    snprintf (b[k], 48, "%.1f (-)", p);
            }
            const char *cells[5] = {a ? "" : r->id, q[a], b[0], b[1], b[2]};
            gp_text_table_add (t, cells);
        }
    }
    if (t) {
        printf ("\nrate mode (open loop, Poisson arrivals):\n");
        cli_table_print (t);
    }
}

/* Output tokens/s per source family and its fitting record. */
static void print_fit (const struct gp_infer_validation *v)
{
    if (!v->fit || !v->n_families)
        return;
    printf ("\nfitting per source family (output tokens/s; factors: engine-"
            "stack and generation\nvalues read; fitted: constants set on "
            "the validation rows; in-sample: shipped\nconstants; LOSO: one "
            "throughput scale per engine stack refitted without the\n"
            "family)\n");
    printf ("  %-14s %5s %5s %7s %6s %10s %8s %7s\n", "family", "rows", "ok",
            "factors", "fitted", "in-sample", "LOSO", "gap");
    for (size_t f = 0; f < v->n_families; f++) {
        const struct gp_val_summary *s = &v->by_family[f];
        const struct gp_val_family_fit *ff = &v->fit[f];
        printf ("  %-14s %5zu %5zu %7d %6d", s->name, s->n, s->n_ok,
                ff->factors, ff->fitted);
        cli_fit_cells (s, ff, "alone on its engine stack");
    }
    if (v->throughput.n_ok && v->loso_all.n_ok)
        printf ("  %-14s %5s %5s %7s %6s %8.1f %% %6.1f %%\n", "all", "", "",
                "", "", 100 * v->throughput.median_abs_rel_err,
                100 * v->loso_all.median_abs_rel_err);
}

static void print_text (const struct gp_infer_validation *v)
{
    const char *h[] = {"ID", "STATUS", "PREDICTED tok/s", "MEASURED tok/s",
                       "ERR %", "TTFT ERR %", "TPOT ERR %", "LAYOUT"};
    struct gp_text_table *t = gp_text_table_create (8, h);
    for (size_t i = 0; i < v->val.n_rows; i++) {
        const struct gp_infer_val_row *r = &v->val.rows[i];
        char b[5][32];
        if (r->ok) {
            snprintf (b[0], 32, "%.1f", r->predicted);
            snprintf (b[2], 32, "%+.1f", 100 * r->rel_err);
        } else {
            snprintf (b[0], 32, "-");
            snprintf (b[2], 32, "-");
        }
        snprintf (b[1], 32, "%.1f", r->measured);
        if (r->ok && r->ttft_meas_s > 0)
            snprintf (b[3], 32, "%+.1f", 100 * r->ttft_rel_err);
        else
            snprintf (b[3], 32, "-");
        if (r->ok && r->tpot_meas_s > 0)
            snprintf (b[4], 32, "%+.1f", 100 * r->tpot_rel_err);
        else
            snprintf (b[4], 32, "-");
        const char *cells[8] = {r->id, r->ok ? "ok" : "unsupported",
                                b[0], b[1], b[2], b[3], b[4],
                                r->ok ? r->layout : r->reason};
        gp_text_table_add (t, cells);
    }
    cli_table_print (t);
    print_rate (v);
    const struct gp_val_summary *s = &v->throughput;
    printf ("\n%zu rows, %zu modelled.\n", s->n, s->n_ok);
    printf ("output tokens/s: median |err| %.1f %%, within 10/20/30 %%: "
            "%.0f/%.0f/%.0f %% of rows\n",
            100 * s->median_abs_rel_err, 100 * s->within_10,
            100 * s->within_20, 100 * s->within_30);
    if (v->ttft.n_ok)
        printf ("TTFT (%zu rows): median |err| %.1f %%\n", v->ttft.n_ok,
                100 * v->ttft.median_abs_rel_err);
    if (v->tpot.n_ok)
        printf ("TPOT (%zu rows): median |err| %.1f %%\n", v->tpot.n_ok,
                100 * v->tpot.median_abs_rel_err);
    print_fit (v);
}

static const char validate_infer_usage[] =
    "usage: gpuplan validate inference FILE.csv [FILE.csv ...] [--json] "
    "[--catalog DIR]";

int cmd_validate_inference (int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0, o;
    const char *dir = NULL;
    if (cli_opts_begin ("validate inference", argc, argv, opts, NULL))
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
            printf ("%s\n", validate_infer_usage);
            return EXIT_OK;
        default:
            return cli_usage_error ("validate inference: unknown or "
                                    "incomplete option '%s'; %s",
                                    argv[optind - 1], validate_infer_usage);
        }
    }
    if (optind >= argc)
        return cli_usage_error ("validate inference: expected FILE.csv; %s",
                                validate_infer_usage);
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_validate_request rq = {
        .path = argv[optind],
        .paths = (const char *const *)&argv[optind],
        .n_paths = (size_t)(argc - optind),
    };
    struct gp_infer_validation *v = NULL;
    int rc;
    if (gp_validate_inference (cat, &rq, &v, &err))
        rc = cli_fail (&err);
    else if (as_json)
        rc = cli_print_json (gp_infer_validation_json (v));
    else {
        print_text (v);
        rc = EXIT_OK;
    }
    gp_infer_validation_destroy (v);
    gp_catalog_destroy (cat);
    return rc;
}
