/* infer_text.c - the inference plan as the text report of `gpuplan infer`:
 * the request line, one table row per option, the reasons ("Why"), the
 * price each accelerator was given and where it comes from, and the
 * recommendation.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/infer.h"
#include "report_private.h"

#define N_COLS 10
#define CELL 48

static void fmt_ms (char *b, size_t n, double s)
{
    if (s >= 10)
        snprintf (b, n, "%.1f s", s);
    else
        snprintf (b, n, "%.0f ms", s * 1e3);
}

/* "tp4 pp1", plus " ep8" for MoE layouts, or "MIG 1g.10gb". */
static void fmt_layout (char *b, size_t n, const struct gp_infer_option *o)
{
    if (o->slice[0]) {
        snprintf (b, n, "MIG %s", o->slice);
        return;
    }
    char ep[16] = "";
    if (o->model.cfg.arch && o->model.cfg.arch->moe_experts > 0)
        snprintf (ep, sizeof ep, " ep%d", o->ep > 0 ? o->ep : 1);
    snprintf (b, n, "tp%d pp%d%s", o->tp, o->pp, ep);
}

static int numeric_cell (const char *s)
{
    if (*s == '$' || *s == '-')
        s++;
    return isdigit ((unsigned char)*s);
}

/* Aligned columns: numbers right-aligned below the header, two spaces
 * between columns, the last column unpadded.
 */
static void print_table (struct rbuf *out, char (*cells)[N_COLS][CELL],
                         size_t n_rows)
{
    size_t w[N_COLS] = {0};
    for (size_t r = 0; r < n_rows; r++)
        for (size_t c = 0; c < N_COLS; c++)
            if (strlen (cells[r][c]) > w[c])
                w[c] = strlen (cells[r][c]);
    for (size_t r = 0; r < n_rows; r++) {
        for (size_t c = 0; c < N_COLS; c++) {
            const char *s = cells[r][c];
            int last = c + 1 == N_COLS;
            if (r > 0 && numeric_cell (s))
                gp_rb_printf (out, "%*s", (int)w[c], s);
            else if (last)
                gp_rb_printf (out, "%s", s);
            else
                gp_rb_printf (out, "%-*s", (int)w[c], s);
            if (!last)
                gp_rb_printf (out, "  ");
        }
        gp_rb_printf (out, "\n");
    }
}

static void header_line (const struct gp_infer_plan_result *r, struct rbuf *out)
{
    const struct gp_infer_request *q = &r->request;
    const struct gp_arch *a = &r->arch;
    char b[32];
    gp_rb_printf (out, "%s: %.4g req/s peak (trough %.4g), %.0f in / %.0f out "
             "tokens; SLO", a->name[0] ? a->name : a->id, q->rps_peak,
             q->rps_trough, q->prompt, q->output);
    if (q->slo.ttft_p95_s > 0)
        fmt_ms (b, sizeof b, q->slo.ttft_p95_s), gp_rb_printf (out, " TTFT p95 %s",
                                                          b);
    if (q->slo.ttft_p99_s > 0)
        fmt_ms (b, sizeof b, q->slo.ttft_p99_s), gp_rb_printf (out, " TTFT p99 %s",
                                                          b);
    if (q->slo.tpot_p95_s > 0)
        gp_rb_printf (out, " TPOT p95 %.1f ms", q->slo.tpot_p95_s * 1e3);
    if (q->slo.e2e_p95_s > 0)
        fmt_ms (b, sizeof b, q->slo.e2e_p95_s), gp_rb_printf (out, " e2e p95 %s",
                                                         b);
    gp_rb_printf (out, "; headroom %.0f %%; engine %s\n\n", q->headroom * 100,
             gp_engine_str (q->engine));
}

static void option_row (const struct gp_infer_plan_option *x,
                        char row[N_COLS][CELL])
{
    const struct gp_infer_option *o = &x->opt;
    snprintf (row[0], CELL, "%s", o->accel->id);
    snprintf (row[1], CELL, "%s/%s", gp_dtype_str (o->weight_dtype),
              gp_dtype_str (o->kv_dtype));
    if (!o->feasible) {
        snprintf (row[2], CELL, "infeasible");
        for (int c = 3; c < N_COLS; c++)
            snprintf (row[c], CELL, "-");
        return;
    }
    fmt_layout (row[2], CELL, o);
    if (o->size.replicas_min != o->size.replicas)
        snprintf (row[3], CELL, "%d-%d", o->size.replicas_min,
                  o->size.replicas);
    else
        snprintf (row[3], CELL, "%d", o->size.replicas);
    snprintf (row[4], CELL, "%d", o->gpus_whole);
    snprintf (row[5], CELL, "%d", x->nodes);
    fmt_ms (row[6], CELL, o->size.at_peak.ttft_p95_s);
    snprintf (row[7], CELL, "%.1f ms", o->size.at_peak.tpot_p95_s * 1e3);
    if (x->price.inst) {
        snprintf (row[8], CELL, "%.2f", x->usd_per_hour);
        snprintf (row[9], CELL, "%.3f", x->usd_per_1m_output_tokens);
    } else {
        snprintf (row[8], CELL, "unknown");
        snprintf (row[9], CELL, "unknown");
    }
}

static int print_options_table (const struct gp_infer_plan_result *r,
                                struct rbuf *out)
{
    static const char *const h[N_COLS] = {
        "GPU", "WEIGHTS/KV", "LAYOUT", "REPLICAS", "GPUS",
        "NODES", "TTFT p95", "TPOT p95", "$/h", "$/1M OUT"};
    char (*cells)[N_COLS][CELL] = calloc (r->n_options + 1, sizeof *cells);
    if (!cells)
        return GP_ENOMEM;
    for (int c = 0; c < N_COLS; c++)
        snprintf (cells[0][c], CELL, "%s", h[c]);
    for (size_t i = 0; i < r->n_options; i++)
        option_row (&r->options[i], cells[i + 1]);
    print_table (out, cells, r->n_options + 1);
    free (cells);
    return 0;
}

static void why_line (const struct gp_infer_plan_result *r,
                      const struct gp_infer_plan_option *x, struct rbuf *out)
{
    const struct gp_infer_request *q = &r->request;
    const struct gp_infer_option *o = &x->opt;
    gp_rb_printf (out, "  %s %s: ", o->accel->id, gp_dtype_str (o->weight_dtype));
    if (!o->feasible) {
        gp_rb_printf (out, "infeasible: %s\n", o->reason);
        return;
    }
    const struct gp_serve_model *m = &o->model;
    const struct gp_instance *in = x->price.inst;
    gp_rb_printf (out, "weights %.1f GB/GPU, KV cache %.0f tokens (%.0f sequences "
             "of %.0f) per replica; one replica meets the SLOs up to %.2f "
             "req/s (saturates at %.2f), bound by %s",
             m->weight_bytes / 1e9, m->kv_capacity_tokens,
             floor (m->kv_capacity_tokens / (q->prompt + q->output)),
             q->prompt + q->output, o->size.rate_per_replica,
             o->size.max_rate_per_replica, o->reason);
    if (in)
        gp_rb_printf (out, "; price %s %s (%s) $%.2f/node-h = $%.3f/GPU-h, price "
                 "date %s\n", in->cloud, in->id, in->region,
                 x->price.usd_per_node_hour, x->price.usd_per_gpu_hour,
                 in->price_date);
    else if (x->price_status == GP_INFER_UNPRICED_INSTANCE)
        gp_rb_printf (out, "; cost unknown (instance %s has no on-demand price "
                 "for %s)\n", q->instance, o->accel->id);
    else
        gp_rb_printf (out, "; cost unknown (no priced catalog instance with %s)\n",
                 o->accel->id);
    const struct gp_fleet *f = &x->fleet;
    char rr[32];
    if (f->replicas_min != f->replicas_max)
        snprintf (rr, sizeof rr, "%d-%d", f->replicas_min, f->replicas_max);
    else
        snprintf (rr, sizeof rr, "%d", f->replicas_max);
    gp_rb_printf (out, "    over the day (%s): %s replicas, %.1f GPU-h/day",
             q->n_profile ? "traffic profile" : "12 h peak, 12 h trough", rr,
             f->gpu_hours_per_day);
    if (in)
        gp_rb_printf (out, ", $%.2f/day, $%.0f/month, $%.3f per 1M output tokens "
                 "(day average)\n", f->usd_per_day, f->usd_per_month,
                 f->usd_per_1m_output_tokens);
    else
        gp_rb_printf (out, ", cost unknown\n");
    if (x->layout_rule == GP_INFER_LAYOUT_CHEAPEST)
        gp_rb_printf (out, "    layout: the cheapest per 1M output tokens of %d "
                 "tried (fewest whole %d-GPU nodes at the peak, then at the "
                 "trough)\n", o->layouts_tried, x->gpus_per_node);
    else
        gp_rb_printf (out, "    layout: the fewest whole GPUs of %d tried (no "
                 "price to rank by cost)\n", o->layouts_tried);
}

/* One line per accelerator: the instance its GPU-hour is priced from,
 * the price's date, flags and catalog source.
 */
static void prices (const struct gp_infer_plan_result *r, struct rbuf *out)
{
    const struct gp_infer_request *q = &r->request;
    gp_rb_printf (out, "\nPrices (on-demand; %s):\n",
             q->instance[0] ? "the instance asked for"
                            : "the cheapest unflagged catalog instance per "
                              "GPU-hour");
    for (size_t i = 0; i < r->n_options; i += (size_t)q->n_precisions) {
        const struct gp_infer_plan_option *x = &r->options[i];
        const struct gp_instance *in = x->price.inst;
        gp_rb_printf (out, "  %s: ", x->opt.accel->id);
        if (!in) {
            if (x->price_status == GP_INFER_UNPRICED_INSTANCE)
                gp_rb_printf (out, "unpriced (instance %s has no on-demand price "
                         "for it)\n", q->instance);
            else
                gp_rb_printf (out, "unpriced (no catalog instance with it "
                         "publishes an on-demand price)\n");
            continue;
        }
        gp_rb_printf (out, "%s %s (%s) $%.3f/GPU-h, as of %s", in->cloud, in->id,
                 in->region, x->price.usd_per_gpu_hour,
                 x->price.undated ? "(undated)" : in->price_as_of);
        if (x->price.flagged)
            gp_rb_printf (out, ", flagged %s (no unflagged price)",
                     in->price_flags);
        gp_rb_printf (out, "; source: %s\n", in->source ? in->source : "");
        if (x->price.flagged || x->price.undated)
            gp_rb_printf (out, "  WARNING: the price of %s is %s (no unflagged, "
                          "dated on-demand price for this accelerator)\n",
                     in->id, x->price.flagged ? "flagged in the catalog"
                                              : "undated");
    }
}

char *gp_report_infer_text (const struct gp_infer_plan_result *r,
                            gp_error_t *err)
{
    if (!r) {
        gp_errprintf (err, GP_EINVAL, "infer report: no result");
        return NULL;
    }
    struct rbuf b = {0}, *out = &b;
    header_line (r, out);
    if (print_options_table (r, out))
        b.failed = 1;
    gp_rb_printf (out, "\nWhy:\n");
    for (size_t i = 0; i < r->n_options; i++)
        why_line (r, &r->options[i], out);
    prices (r, out);
    if (r->recommended >= 0) {
        const struct gp_infer_plan_option *x = &r->options[r->recommended];
        const struct gp_infer_option *o = &x->opt;
        char lay[64];
        fmt_layout (lay, sizeof lay, o);
        gp_rb_printf (out, "\nRecommended: %s %s/%s, %s, %d replicas at peak (%d "
                 "at trough), %d GPUs on %d nodes (%s)\n", o->accel->id,
                 gp_dtype_str (o->weight_dtype), gp_dtype_str (o->kv_dtype),
                 lay, o->size.replicas, o->size.replicas_min, o->gpus_whole,
                 x->nodes,
                 r->choice == GP_INFER_CHOICE_CHEAPEST_PRICED
                     ? "cheapest priced option"
                     : "fewest GPUs; no option is priced");
    }
    return gp_rb_take (&b, err);
}
