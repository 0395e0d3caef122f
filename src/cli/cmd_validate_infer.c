/* cmd_validate_infer.c - 'gpuplan validate inference FILE.csv': predict
 * published serving measurements row by row and summarise the errors.
 * Called by the 'validate' dispatcher with argv[0] = "inference".
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/infer.h"
#include "validate.h"

static int cmp_dbl (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct errsum {
    size_t n;
    double median, w10, w20, w30;
};

/* Summary of absolute relative errors 'v' (sorted in place). */
static struct errsum summarise (double *v, size_t n)
{
    struct errsum s = {n, 0, 0, 0, 0};
    if (n == 0)
        return s;
    qsort (v, n, sizeof *v, cmp_dbl);
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    for (size_t i = 0; i < n; i++) {
        s.w10 += v[i] <= 0.10;
        s.w20 += v[i] <= 0.20;
        s.w30 += v[i] <= 0.30;
    }
    s.w10 /= n, s.w20 /= n, s.w30 /= n;
    return s;
}

static json_t *errsum_json (const struct errsum *s)
{
    json_t *o = json_object ();
    json_object_set_new (o, "n", json_integer ((json_int_t)s->n));
    json_object_set_new (o, "median_abs_rel_err",
                         s->n ? json_real (s->median) : json_null ());
    json_object_set_new (o, "within_10pct", json_real (s->w10));
    json_object_set_new (o, "within_20pct", json_real (s->w20));
    json_object_set_new (o, "within_30pct", json_real (s->w30));
    return o;
}

static const char validate_infer_usage[] =
    "usage: gpuplan validate inference FILE.csv [--json] [--catalog DIR]";

int gp_validate_inference_cli (int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0, o;
    const char *dir = NULL;
    optind = 0;
    opterr = 0;
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
    if (optind != argc - 1)
        return cli_usage_error ("validate inference: expected one FILE.csv; "
                                "%s",
                                validate_infer_usage);
    gp_error_t err = {0};
    struct gp_catalog *cat = cli_catalog (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    if (!zoo) {
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    struct gp_infer_val v;
    if (gp_infer_validate (argv[optind], cat, zoo, &v, &err)) {
        gp_zoo_destroy (zoo);
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    size_t n = v.n_rows;
    double *e_thr = calloc (n + 1, sizeof (double));
    double *e_ttft = calloc (n + 1, sizeof (double));
    double *e_tpot = calloc (n + 1, sizeof (double));
    size_t n_ok = 0, n_ttft = 0, n_tpot = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_infer_val_row *r = &v.rows[i];
        if (!r->ok)
            continue;
        e_thr[n_ok++] = fabs (r->rel_err);
        if (r->ttft_meas_s > 0)
            e_ttft[n_ttft++] = fabs (r->ttft_rel_err);
        if (r->tpot_meas_s > 0)
            e_tpot[n_tpot++] = fabs (r->tpot_rel_err);
    }
    int rc = EXIT_OK;
    if (as_json) {
        json_t *rows = json_array ();
        for (size_t i = 0; i < n; i++) {
            const struct gp_infer_val_row *r = &v.rows[i];
            json_t *j = json_object ();
            json_object_set_new (j, "id", json_string (r->id));
            json_object_set_new (j, "status",
                                 json_string (r->ok ? "ok" : "unsupported"));
            json_object_set_new (j, "predicted",
                                 r->ok ? json_real (r->predicted)
                                       : json_null ());
            json_object_set_new (j, "measured", cli_json_known (r->measured));
            json_object_set_new (j, "rel_err",
                                 r->ok ? json_real (r->rel_err)
                                       : json_null ());
            json_object_set_new (j, "layout",
                                 r->layout[0] ? json_string (r->layout)
                                              : json_null ());
            int t1 = r->ok && r->ttft_meas_s > 0;
            int t2 = r->ok && r->tpot_meas_s > 0;
            json_object_set_new (j, "ttft_predicted_s",
                                 r->ok ? json_real (r->ttft_pred_s)
                                       : json_null ());
            json_object_set_new (j, "ttft_measured_s",
                                 cli_json_known (r->ttft_meas_s));
            json_object_set_new (j, "ttft_rel_err",
                                 t1 ? json_real (r->ttft_rel_err)
                                    : json_null ());
            json_object_set_new (j, "tpot_predicted_s",
                                 r->ok ? json_real (r->tpot_pred_s)
                                       : json_null ());
            json_object_set_new (j, "tpot_measured_s",
                                 cli_json_known (r->tpot_meas_s));
            json_object_set_new (j, "tpot_rel_err",
                                 t2 ? json_real (r->tpot_rel_err)
                                    : json_null ());
            if (!r->ok)
                json_object_set_new (j, "reason", json_string (r->reason));
            json_array_append_new (rows, j);
        }
        struct errsum s = summarise (e_thr, n_ok);
        json_t *sum = errsum_json (&s);
        json_object_set_new (sum, "n", json_integer ((json_int_t)n));
        json_object_set_new (sum, "n_ok", json_integer ((json_int_t)n_ok));
        struct errsum s1 = summarise (e_ttft, n_ttft);
        struct errsum s2 = summarise (e_tpot, n_tpot);
        json_object_set_new (sum, "ttft_rel_err", errsum_json (&s1));
        json_object_set_new (sum, "tpot_rel_err", errsum_json (&s2));
        json_t *root = json_object ();
        json_object_set_new (root, "rows", rows);
        json_object_set_new (root, "summary", sum);
        rc = cli_print_json (root);
    } else {
        const char *h[] = {"ID", "STATUS", "PREDICTED tok/s", "MEASURED tok/s",
                           "ERR %", "TTFT ERR %", "TPOT ERR %", "LAYOUT"};
        struct cli_table *t = cli_table_create (8, h);
        for (size_t i = 0; i < n; i++) {
            const struct gp_infer_val_row *r = &v.rows[i];
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
            cli_table_add (t, cells);
        }
        cli_table_print (t);
        struct errsum s = summarise (e_thr, n_ok);
        struct errsum s1 = summarise (e_ttft, n_ttft);
        struct errsum s2 = summarise (e_tpot, n_tpot);
        printf ("\n%zu rows, %zu modelled.\n", n, n_ok);
        printf ("output tokens/s: median |err| %.1f %%, within 10/20/30 %%: "
                "%.0f/%.0f/%.0f %% of rows\n",
                100 * s.median, 100 * s.w10, 100 * s.w20, 100 * s.w30);
        if (s1.n)
            printf ("TTFT (%zu rows): median |err| %.1f %%\n", s1.n,
                    100 * s1.median);
        if (s2.n)
            printf ("TPOT (%zu rows): median |err| %.1f %%\n", s2.n,
                    100 * s2.median);
    }
    free (e_thr), free (e_ttft), free (e_tpot);
    gp_infer_val_free (&v);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
    return rc;
}
