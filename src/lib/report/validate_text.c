/* validate_text.c - the plain-text reports of the training and inference
 * validations ('gpuplan validate training|inference FILE.csv...'): the
 * rows as a table, the error summaries, and per source family the
 * fitting record (in-sample against leave-one-source-out).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuplan/report.h"
#include "gpuplan/validate.h"
#include "report_private.h"

/* Append text table 't' (consumed) to 'b'; an allocation failure leaves
 * the table out (gp_rb_take reports the buffer's own).
 */
static void table_put (struct rbuf *b, struct gp_text_table *t)
{
    char *s = gp_text_table_take (t, NULL);
    if (s)
        gp_rb_printf (b, "%s", s);
    free (s);
}

static void summary_print (struct rbuf *b, const struct gp_val_summary *s)
{
    if (!s->n_ok) {
        gp_rb_printf (b, "  %-14s %4zu rows, %4zu ok\n", s->name, s->n, s->n_ok);
        return;
    }
    gp_rb_printf (b, "  %-14s %4zu rows, %4zu ok   median |err| %5.1f %%   within "
            "10/20/30 %%: %3.0f / %3.0f / %3.0f %%\n",
            s->name, s->n, s->n_ok, 100 * s->median_abs_rel_err,
            100 * s->within_10, 100 * s->within_20, 100 * s->within_30);
}

static const char *measure_label (enum gp_val_measure m)
{
    static const char *const l[GP_MEAS_N] = {"tok/s/gpu", "TFLOP/s/gpu",
                                             "gpu-h", "days", "ttt-min"};
    return (unsigned)m < GP_MEAS_N ? l[m] : "?";
}

static void fit_cells (struct rbuf *b, const struct gp_val_summary *s,
                       const struct gp_val_family_fit *ff, const char *alone)
{
    if (!s->n_ok) {
        gp_rb_printf (b, "          -\n");
        return;
    }
    gp_rb_printf (b, " %8.1f %%", 100 * s->median_abs_rel_err);
    if (ff->have_loso)
        gp_rb_printf (b, " %6.1f %% %+6.1f%s%s%s%s\n",
                100 * ff->loso.median_abs_rel_err, 100 * ff->gap,
                ff->gap_flag ? "  gap > 3 points: fit follows rows" : "",
                ff->loso_refit ? "" : "  (", ff->loso_refit ? "" : alone,
                ff->loso_refit ? "" : ": not held out)");
    else
        gp_rb_printf (b, "\n");
}

static void fit_print (struct rbuf *b, const struct gp_validation *v)
{
    gp_rb_printf (b, "fitting per source family (factors: efficiency factors read; "
            "fitted: constants set\non the validation rows; in-sample: "
            "shipped constants; LOSO: GEMM ceiling\nrefitted per generation "
            "without the family)\n");
    gp_rb_printf (b, "  %-14s %7s %6s %10s %8s %7s\n", "family", "factors",
            "fitted", "in-sample", "LOSO", "gap");
    for (size_t f = 0; f < v->n_families; f++) {
        const struct gp_val_summary *s = &v->by_family[f];
        const struct gp_val_family_fit *ff = &v->fit[f];
        gp_rb_printf (b, "  %-14s %7d %6d", s->name, ff->factors, ff->fitted);
        fit_cells (b, s, ff, "no other family of its generation");
    }
    if (v->have_loso && v->all.n_ok && v->loso_all.n_ok)
        gp_rb_printf (b, "  %-14s %7s %6s %8.1f %% %6.1f %%\n", "all", "", "",
                100 * v->all.median_abs_rel_err,
                100 * v->loso_all.median_abs_rel_err);
}

static void train_text (struct rbuf *b, const struct gp_validation *v)
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
        char lay[sizeof o->layout + 160], gp[64] = "";
        if (o->gpus_chosen) /* sized for the row's days or the default */
            snprintf (gp, sizeof gp, "%d GPUs for the %s%.4g days, ",
                      o->n_gpus, o->days_default ? "default " : "row's ",
                      o->target_days);
        if (o->ok && o->planned)
            snprintf (lay, sizeof lay, "planner chose %sseq %.0f%s, batch "
                      "%.0f%s: %s", gp, o->seq_len,
                      o->seq_chosen ? "" : " (row)",
                      o->global_batch, o->batch_chosen ? "" : " (row)",
                      o->layout);
        else
            snprintf (lay, sizeof lay, "%s", o->ok ? o->layout : o->reason);
        const char *c[6] = {o->id, measure_label (o->measure), p, m, e, lay};
        gp_text_table_add (t, c);
    }
    table_put (b, t);
    gp_rb_printf (b, "\nsummary (|relative error| in each row's measure)\n");
    summary_print (b, &v->all);
    summary_print (b, &v->by_kind[GP_VAL_THROUGHPUT]);
    summary_print (b, &v->by_kind[GP_VAL_CAMPAIGN]);
    gp_rb_printf (b, "by source family\n");
    for (size_t f = 0; f < v->n_families; f++)
        summary_print (b, &v->by_family[f]);
    fit_print (b, v);
}

/* Rate-mode rows: predicted (measured) TTFT, TPOT and E2E mean/p90/p99. */
static void print_rate (struct rbuf *b, const struct gp_infer_validation *v)
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
            char c[3][48];
            for (int k = 0; k < 3; k++) {
                double p = r->lat_pred_s[GP_INFER_LAT (a, k)] * 1e3;
                double m = r->lat_meas_s[GP_INFER_LAT (a, k)] * 1e3;
                if (m > 0)
                    snprintf (c[k], 48, "%.1f (%.1f)", p, m);
                else
                    snprintf (c[k], 48, "%.1f (-)", p);
            }
            const char *cells[5] = {a ? "" : r->id, q[a], c[0], c[1], c[2]};
            gp_text_table_add (t, cells);
        }
    }
    if (t) {
        gp_rb_printf (b, "\nrate mode (open loop, Poisson arrivals):\n");
        table_put (b, t);
    }
}

/* Output tokens/s per source family and its fitting record. */
static void print_fit (struct rbuf *b, const struct gp_infer_validation *v)
{
    if (!v->fit || !v->n_families)
        return;
    gp_rb_printf (b, "\nfitting per source family (output tokens/s; factors: engine-"
            "stack and generation\nvalues read; fitted: constants set on "
            "the validation rows; in-sample: shipped\nconstants; LOSO: one "
            "throughput scale per engine stack refitted without the\n"
            "family)\n");
    gp_rb_printf (b, "  %-14s %5s %5s %7s %6s %10s %8s %7s\n", "family", "rows", "ok",
            "factors", "fitted", "in-sample", "LOSO", "gap");
    for (size_t f = 0; f < v->n_families; f++) {
        const struct gp_val_summary *s = &v->by_family[f];
        const struct gp_val_family_fit *ff = &v->fit[f];
        gp_rb_printf (b, "  %-14s %5zu %5zu %7d %6d", s->name, s->n, s->n_ok,
                ff->factors, ff->fitted);
        fit_cells (b, s, ff, "alone on its engine stack");
    }
    if (v->throughput.n_ok && v->loso_all.n_ok)
        gp_rb_printf (b, "  %-14s %5s %5s %7s %6s %8.1f %% %6.1f %%\n", "all", "", "",
                "", "", 100 * v->throughput.median_abs_rel_err,
                100 * v->loso_all.median_abs_rel_err);
}

static void infer_text (struct rbuf *b, const struct gp_infer_validation *v)
{
    const char *h[] = {"ID", "STATUS", "PREDICTED tok/s", "MEASURED tok/s",
                       "ERR %", "TTFT ERR %", "TPOT ERR %", "LAYOUT"};
    struct gp_text_table *t = gp_text_table_create (8, h);
    for (size_t i = 0; i < v->val.n_rows; i++) {
        const struct gp_infer_val_row *r = &v->val.rows[i];
        char c[5][32];
        if (r->ok) {
            snprintf (c[0], 32, "%.1f", r->predicted);
            snprintf (c[2], 32, "%+.1f", 100 * r->rel_err);
        } else {
            snprintf (c[0], 32, "-");
            snprintf (c[2], 32, "-");
        }
        snprintf (c[1], 32, "%.1f", r->measured);
        if (r->ok && r->ttft_meas_s > 0)
            snprintf (c[3], 32, "%+.1f", 100 * r->ttft_rel_err);
        else
            snprintf (c[3], 32, "-");
        if (r->ok && r->tpot_meas_s > 0)
            snprintf (c[4], 32, "%+.1f", 100 * r->tpot_rel_err);
        else
            snprintf (c[4], 32, "-");
        const char *cells[8] = {r->id, r->ok ? "ok" : "unsupported",
                                c[0], c[1], c[2], c[3], c[4],
                                r->ok ? r->layout : r->reason};
        gp_text_table_add (t, cells);
    }
    table_put (b, t);
    print_rate (b, v);
    const struct gp_val_summary *s = &v->throughput;
    gp_rb_printf (b, "\n%zu rows, %zu modelled.\n", s->n, s->n_ok);
    gp_rb_printf (b, "output tokens/s: median |err| %.1f %%, within 10/20/30 %%: "
            "%.0f/%.0f/%.0f %% of rows\n",
            100 * s->median_abs_rel_err, 100 * s->within_10,
            100 * s->within_20, 100 * s->within_30);
    if (v->ttft.n_ok)
        gp_rb_printf (b, "TTFT (%zu rows): median |err| %.1f %%\n", v->ttft.n_ok,
                100 * v->ttft.median_abs_rel_err);
    if (v->tpot.n_ok)
        gp_rb_printf (b, "TPOT (%zu rows): median |err| %.1f %%\n", v->tpot.n_ok,
                100 * v->tpot.median_abs_rel_err);
    print_fit (b, v);
}


char *gp_validation_text (const struct gp_validation *v, gp_error_t *err)
{
    struct rbuf b = {0};
    if (v)
        train_text (&b, v);
    return gp_rb_take (&b, err);
}

char *gp_infer_validation_text (const struct gp_infer_validation *v,
                                gp_error_t *err)
{
    struct rbuf b = {0};
    if (v)
        infer_text (&b, v);
    return gp_rb_take (&b, err);
}
