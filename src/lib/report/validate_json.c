/* validate_json.c - JSON of the training and inference validations
 * (schemas in docs/formats/train.md and docs/formats/infer.md).
 */
#include <jansson.h>
#include <math.h>

#include "gpuplan/validate.h"

/* A number, or null when 'v' is 0 / unknown. */
static json_t *known (double v)
{
    return v > 0 ? json_real (v) : json_null ();
}

static json_t *summary_json (const struct gp_val_summary *s)
{
    json_t *o = json_object ();
    json_object_set_new (o, "n", json_integer ((json_int_t)s->n));
    json_object_set_new (o, "n_ok", json_integer ((json_int_t)s->n_ok));
    json_object_set_new (o, "median_abs_rel_err",
                         s->n_ok ? json_real (s->median_abs_rel_err)
                                 : json_null ());
    json_object_set_new (o, "within_10pct", json_real (s->within_10));
    json_object_set_new (o, "within_20pct", json_real (s->within_20));
    json_object_set_new (o, "within_30pct", json_real (s->within_30));
    return o;
}

static json_t *train_row_json (const struct gp_val_row *r)
{
    int camp = r->kind == GP_VAL_CAMPAIGN;
    json_t *j = json_object ();
    json_object_set_new (j, "id", json_string (r->id));
    json_object_set_new (j, "kind",
                         json_string (camp ? "campaign" : "throughput"));
    json_object_set_new (j, "status",
                         json_string (r->ok ? "ok" : "unsupported"));
    json_object_set_new (j, "unit",
                         json_string (gp_val_measure_str (r->measure)));
    json_object_set_new (j, "predicted", known (r->predicted));
    json_object_set_new (j, "measured", isnan (r->measured)
                                            ? json_null ()
                                            : json_real (r->measured));
    json_object_set_new (j, "rel_err",
                         r->ok ? json_real (r->rel_err) : json_null ());
    json_object_set_new (j, "layout", r->has_layout ? json_string (r->layout)
                                                    : json_null ());
    if (r->has_layout) {
        json_object_set_new (j, "num_gpus", json_integer (r->n_gpus));
        json_object_set_new (j, "mfu", json_real (r->mfu));
        json_object_set_new (j, "step_s", json_real (r->step_s));
        json_object_set_new (j, "mem_bytes", json_real (r->mem_bytes));
    }
    if (r->has_layout) {
        json_object_set_new (j, "seq_len", json_real (r->seq_len));
        json_object_set_new (j, "global_batch", json_real (r->global_batch));
        json_object_set_new (j, "planned", json_boolean (r->planned));
        json_object_set_new (j, "seq_chosen", json_boolean (r->seq_chosen));
        json_object_set_new (j, "batch_chosen",
                             json_boolean (r->batch_chosen));
    }
    if (r->gpus_chosen) { /* only then: other rows unchanged */
        json_object_set_new (j, "gpus_chosen", json_true ());
        json_object_set_new (j, "target_days", json_real (r->target_days));
        json_object_set_new (j, "target_days_default",
                             json_boolean (r->days_default));
    }
    if (r->goodput > 0)
        json_object_set_new (j, "goodput", json_real (r->goodput));
    if (r->eval_tokens > 0)
        json_object_set_new (j, "eval_tokens", json_real (r->eval_tokens));
    if (!r->ok)
        json_object_set_new (j, "reason", json_string (r->reason));
    return j;
}

/* {family: {factors, fitted, in_sample, loso, gap, gap_flag}} of the 'n'
 * families 'fam' with their records 'fit'
 */
static json_t *fit_json (const struct gp_val_summary *fam,
                         const struct gp_val_family_fit *fit, size_t n)
{
    json_t *o = json_object ();
    for (size_t f = 0; f < n; f++) {
        const struct gp_val_family_fit *ff = &fit[f];
        const struct gp_val_summary *s = &fam[f];
        json_t *e = json_object ();
        json_object_set_new (e, "factors", json_integer (ff->factors));
        json_object_set_new (e, "fitted", json_integer (ff->fitted));
        json_object_set_new (e, "in_sample_median_abs_rel_err",
                             s->n_ok ? json_real (s->median_abs_rel_err)
                                     : json_null ());
        json_object_set_new (e, "loso_median_abs_rel_err",
                             ff->have_loso
                                 ? json_real (ff->loso.median_abs_rel_err)
                                 : json_null ());
        json_object_set_new (e, "gap", ff->have_loso ? json_real (ff->gap)
                                                     : json_null ());
        json_object_set_new (e, "gap_flag", json_boolean (ff->gap_flag));
        json_object_set_new (e, "loso_refit_rows",
                             json_integer (ff->loso_refit));
        json_object_set_new (o, s->name, e);
    }
    return o;
}

/* {family: summary} of the 'n' families 'fam' */
static json_t *families_json (const struct gp_val_summary *fam, size_t n)
{
    json_t *bf = json_object ();
    for (size_t f = 0; f < n; f++)
        json_object_set_new (bf, fam[f].name, summary_json (&fam[f]));
    return bf;
}

json_t *gp_validation_json (const struct gp_validation *v)
{
    if (!v)
        return NULL;
    json_t *root = json_object ();
    json_t *rows = json_array ();
    for (size_t i = 0; i < v->n_rows; i++)
        json_array_append_new (rows, train_row_json (&v->rows[i]));
    json_object_set_new (root, "rows", rows);
    json_t *sum = summary_json (&v->all);
    json_t *bk = json_object ();
    json_object_set_new (bk, "throughput",
                         summary_json (&v->by_kind[GP_VAL_THROUGHPUT]));
    json_object_set_new (bk, "campaign",
                         summary_json (&v->by_kind[GP_VAL_CAMPAIGN]));
    json_object_set_new (sum, "by_kind", bk);
    json_object_set_new (sum, "by_family",
                         families_json (v->by_family, v->n_families));
    if (v->fit)
        json_object_set_new (sum, "fit", fit_json (v->by_family, v->fit,
                                                   v->n_families));
    json_object_set_new (sum, "loso", v->have_loso
                                          ? summary_json (&v->loso_all)
                                          : json_null ());
    json_object_set_new (root, "summary", sum);
    return root;
}

/* ============================== inference ============================== */

/* Rate mode: {ttft|tpot|e2e: {mean|p90|p99: {predicted_s, measured_s}}}
 * (docs/formats/infer.md). */
static json_t *rate_json (const struct gp_infer_val_row *r)
{
    static const char *q[3] = {"ttft", "tpot", "e2e"};
    static const char *st[3] = {"mean", "p90", "p99"};
    json_t *lat = json_object ();
    for (int a = 0; a < 3; a++) {
        json_t *qa = json_object ();
        for (int b = 0; b < 3; b++) {
            json_t *x = json_object ();
            json_object_set_new (x, "predicted_s",
                                 json_real (r->lat_pred_s[GP_INFER_LAT (a, b)]));
            json_object_set_new (x, "measured_s",
                                 known (r->lat_meas_s[GP_INFER_LAT (a, b)]));
            json_object_set_new (qa, st[b], x);
        }
        json_object_set_new (lat, q[a], qa);
    }
    return lat;
}

static json_t *infer_row_json (const struct gp_infer_val_row *r)
{
    json_t *j = json_object ();
    json_object_set_new (j, "id", json_string (r->id));
    json_object_set_new (j, "status",
                         json_string (r->ok ? "ok" : "unsupported"));
    json_object_set_new (j, "predicted",
                         r->ok ? json_real (r->predicted) : json_null ());
    json_object_set_new (j, "measured", known (r->measured));
    json_object_set_new (j, "rel_err",
                         r->ok ? json_real (r->rel_err) : json_null ());
    json_object_set_new (j, "layout", r->layout[0] ? json_string (r->layout)
                                                   : json_null ());
    json_object_set_new (j, "stack", r->stack[0] ? json_string (r->stack)
                                                 : json_null ());
    json_object_set_new (j, "generation",
                         r->generation[0] ? json_string (r->generation)
                                          : json_null ());
    int t1 = r->ok && r->ttft_meas_s > 0;
    int t2 = r->ok && r->tpot_meas_s > 0;
    json_object_set_new (j, "ttft_predicted_s",
                         r->ok ? json_real (r->ttft_pred_s) : json_null ());
    json_object_set_new (j, "ttft_measured_s", known (r->ttft_meas_s));
    json_object_set_new (j, "ttft_rel_err",
                         t1 ? json_real (r->ttft_rel_err) : json_null ());
    json_object_set_new (j, "tpot_predicted_s",
                         r->ok ? json_real (r->tpot_pred_s) : json_null ());
    json_object_set_new (j, "tpot_measured_s", known (r->tpot_meas_s));
    json_object_set_new (j, "tpot_rel_err",
                         t2 ? json_real (r->tpot_rel_err) : json_null ());
    if (r->ok && r->rate_mode)
        json_object_set_new (j, "latency", rate_json (r));
    if (!r->ok)
        json_object_set_new (j, "reason", json_string (r->reason));
    return j;
}

/* {n, median_abs_rel_err, within_*}: the per-metric shape, without n_ok. */
static json_t *metric_json (const struct gp_val_summary *s)
{
    json_t *o = summary_json (s);
    json_object_del (o, "n_ok");
    json_object_set_new (o, "n", json_integer ((json_int_t)s->n_ok));
    return o;
}

json_t *gp_infer_validation_json (const struct gp_infer_validation *v)
{
    if (!v)
        return NULL;
    json_t *rows = json_array ();
    for (size_t i = 0; i < v->val.n_rows; i++)
        json_array_append_new (rows, infer_row_json (&v->val.rows[i]));
    json_t *sum = metric_json (&v->throughput);
    json_object_set_new (sum, "n", json_integer ((json_int_t)v->throughput.n));
    json_object_set_new (sum, "n_ok",
                         json_integer ((json_int_t)v->throughput.n_ok));
    json_object_set_new (sum, "ttft_rel_err", metric_json (&v->ttft));
    json_object_set_new (sum, "tpot_rel_err", metric_json (&v->tpot));
    json_object_set_new (sum, "by_family",
                         families_json (v->by_family, v->n_families));
    if (v->fit)
        json_object_set_new (sum, "fit", fit_json (v->by_family, v->fit,
                                                   v->n_families));
    json_object_set_new (sum, "loso", v->fit ? summary_json (&v->loso_all)
                                             : json_null ());
    json_t *root = json_object ();
    json_object_set_new (root, "rows", rows);
    json_object_set_new (root, "summary", sum);
    return root;
}
