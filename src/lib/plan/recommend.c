/* recommend.c - the recommendation: the cheapest feasible, fully costed
 * option (options flagged by the queueing check rank after every
 * unflagged one), the reason in words (every shortfall of the chosen
 * option listed, with the nearest option without one: it "meets every
 * checked constraint" only when it has none), and the decision log: why each
 * other option lost, was rejected or was not ranked, the flags, and
 * catalog price dates that may not compare.  Decisions read the options'
 * typed state (feasible, complete, queue, basis), never their messages.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/units.h"
#include "plan_private.h"
#include "whatif_private.h"

static int flagged (const struct gp_plan_option *o)
{
    return o->queue != GP_QUEUE_OK;
}

/* The cheapest feasible, fully costed option; options flagged by the
 * queueing check rank after every unflagged one.
 */
int gp_plan_pick (const struct gp_plan_option *o, size_t n)
{
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        if (!o[i].feasible || !o[i].complete)
            continue;
        if (best < 0) {
            best = (int)i;
            continue;
        }
        int fi = flagged (&o[i]), fb = flagged (&o[best]);
        if (fi < fb || (fi == fb && o[i].tco_usd < o[best].tco_usd))
            best = (int)i;
    }
    return best;
}

/* The date a catalog price_date text points at, in years (2025.75), or
 * 0 when it names no year: the mean over the years it names, each at its
 * middle, or at the middle of the half ("2025-H2") or month ("2025-06")
 * that follows it.  "~2023-2024" gives 2024.0, ">=2025-H2" 2025.75.
 */
static double price_year (const char *d)
{
    double sum = 0;
    int n = 0;
    for (const char *p = d; p && *p; p++) {
        if (!(p[0] == '2' && p[1] == '0' && p[2] >= '0' && p[2] <= '9'
              && p[3] >= '0' && p[3] <= '9')
            || (p > d && p[-1] >= '0' && p[-1] <= '9')
            || (p[4] >= '0' && p[4] <= '9'))
            continue;
        double y = 2000 + (p[2] - '0') * 10 + (p[3] - '0');
        if (p[4] == '-' && p[5] == 'H' && (p[6] == '1' || p[6] == '2'))
            y += p[6] == '1' ? 0.25 : 0.75;
        else if (p[4] == '-' && p[5] >= '0' && p[5] <= '1' && p[6] >= '0'
                 && p[6] <= '9' && !(p[7] >= '0' && p[7] <= '9')) {
            int m = (p[5] - '0') * 10 + (p[6] - '0');
            y += m >= 1 && m <= 12 ? (m - 0.5) / 12 : 0.5;
        } else
            y += 0.5;
        sum += y;
        n++;
        p += 3;
    }
    return n ? sum / n : 0;
}

/* One shortfall 'k' of option 'o' in words, appended to 'buf'. */
static void shortfall_text (const struct gp_plan_option *o,
                            enum gp_plan_shortfall k, int all_flagged,
                            char *buf, size_t n)
{
    char a[32], g[32];
    size_t l = strlen (buf);
    if (l >= n)
        return;
    switch (k) {
    case GP_SHORT_NETWORK:
        snprintf (buf + l, n - l,
                  "network: %.40s needs %s per GPU, the fabric gives %s",
                  o->need_bw_workload,
                  gp_format_quantity (o->need_bw_per_gpu, GP_Q_BANDWIDTH,
                                      GP_FMT_BITS, a, sizeof a),
                  gp_format_quantity (o->given_bw_per_gpu, GP_Q_BANDWIDTH,
                                      GP_FMT_BITS, g, sizeof g));
        break;
    case GP_SHORT_STORAGE:
        snprintf (buf + l, n - l,
                  "storage: needs %s, the fast tier gives %s",
                  gp_format_quantity (fmax (o->stor.read_bw,
                                            o->stor.write_bw),
                                      GP_Q_BANDWIDTH, 0, a, sizeof a),
                  gp_format_quantity (o->storage_given_bw, GP_Q_BANDWIDTH,
                                      0, g, sizeof g));
        break;
    case GP_SHORT_QUEUE:
        snprintf (buf + l, n - l, "FAILS the queueing check (%.150s)%s",
                  o->queue_flag,
                  all_flagged ? ", as does every feasible option" : "");
        break;
    case GP_SHORT_QUOTA:
        snprintf (buf + l, n - l, "quotas: %.240s", o->quota_note);
        break;
    default:
        break;
    }
}

/* Every shortfall of 'o' in words, "; "-separated, into 'buf'. */
static void shortfalls_text (const struct gp_plan_option *o,
                             int all_flagged, char *buf, size_t n)
{
    buf[0] = 0;
    for (int k = 0; k < GP_N_SHORTFALLS; k++) {
        if (!(o->shortfalls & (1u << k)))
            continue;
        if (buf[0]) {
            size_t l = strlen (buf);
            snprintf (buf + l, n - l, "; ");
        }
        shortfall_text (o, (enum gp_plan_shortfall)k, all_flagged, buf, n);
    }
}

/* The cheapest feasible, fully costed option without any shortfall, or
 * -1.
 */
static int nearest_ok (const struct gp_plan_result *r)
{
    int best = -1;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!o->feasible || !o->complete || o->shortfalls)
            continue;
        if (best < 0 || o->tco_usd < r->options[best].tco_usd)
            best = (int)i;
    }
    return best;
}

/* The reason's tail when the recommended 'b' has shortfalls: it meets
 * the hard constraints, not every check; each shortfall is a reason, and
 * the nearest option without any is named.
 */
static void reason_shortfalls (struct gp_plan_result *r, int b,
                               int all_flagged)
{
    const struct gp_plan_option *w = &r->options[b];
    char list[GP_PLAN_TEXT * 2];
    shortfalls_text (w, all_flagged, list, sizeof list);
    size_t rl = strlen (r->reason);
    snprintf (r->reason + rl, sizeof r->reason - rl,
              "; meets the hard constraints but falls short: %s", list);
    rl = strlen (r->reason);
    r->nearest_ok = nearest_ok (r);
    char u[32];
    if (r->nearest_ok >= 0) {
        const struct gp_plan_option *n = &r->options[r->nearest_ok];
        snprintf (r->reason + rl, sizeof r->reason - rl,
                  "; nearest option without a shortfall: %s (TCO %s, "
                  "%+.1f%%)",
                  n->name, gp_fmt_usd (n->tco_usd, u, sizeof u),
                  100 * (n->tco_usd / w->tco_usd - 1));
    } else
        snprintf (r->reason + rl, sizeof r->reason - rl,
                  "; no feasible option is free of shortfalls");
}

/* r->reason for the recommended option 'b'. */
static void decide_reason (struct gp_plan_result *r, int b)
{
    const struct gp_plan_option *w = &r->options[b];
    int second = -1;
    size_t n_ok = 0, n_flag = 0;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (!o->feasible || !o->complete)
            continue;
        n_ok++;
        n_flag += flagged (o);
        if ((int)i != b
            && (second < 0 || o->tco_usd < r->options[second].tco_usd))
            second = (int)i;
    }
    char u1[32], u2[32];
    if (second >= 0 && w->tco_usd <= r->options[second].tco_usd)
        snprintf (r->reason, sizeof r->reason,
                  "lowest TCO over %.3g years among %zu feasible "
                  "options: %s, %.1f%% below the runner-up %s (%s)",
                  r->horizon_years, n_ok,
                  gp_fmt_usd (w->tco_usd, u1, sizeof u1),
                  100 * (1 - w->tco_usd / r->options[second].tco_usd),
                  r->options[second].name,
                  gp_fmt_usd (r->options[second].tco_usd, u2, sizeof u2));
    else if (second >= 0)
        snprintf (r->reason, sizeof r->reason,
                  "lowest TCO over %.3g years among the %zu feasible "
                  "options that pass the queueing check: %s",
                  r->horizon_years, n_ok - n_flag,
                  gp_fmt_usd (w->tco_usd, u1, sizeof u1));
    else
        snprintf (r->reason, sizeof r->reason,
                  "the only feasible, fully costed option: TCO %s "
                  "over %.3g years",
                  gp_fmt_usd (w->tco_usd, u1, sizeof u1), r->horizon_years);
    size_t rl = strlen (r->reason);
    if (w->shortfalls)
        reason_shortfalls (r, b, n_flag == n_ok);
    else
        snprintf (r->reason + rl, sizeof r->reason - rl,
                  "; meets every checked constraint%s",
                  w->sim.code == 0 ? ", simulated queueing included"
                                   : " (queueing not simulated)");
    if (w->basis == GP_BASIS_FLEET_UNSIZED) {
        size_t len = strlen (r->reason);
        snprintf (r->reason + len, sizeof r->reason - len,
                  "; fleet sizes are as given in the plan, so the "
                  "ranking assumes they deliver the same capacity");
    }
}

/* One log line per option other than the recommended 'b'. */
static void log_others (struct plan_ctx *c, int b)
{
    const struct gp_plan_result *r = c->r;
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if ((int)i == b)
            continue;
        if (o->compute.code == GP_ENOTSUP)
            gp_plan_log (c, "not ranked: %s (compute sizing not yet "
                            "supported: %.120s)",
                         o->name, o->compute.text);
        else if (!o->feasible)
            gp_plan_log (c, "rejected: %s (%s)", o->name, o->violation);
        else if (!o->complete)
            gp_plan_log (c, "not ranked: %s (%s)", o->name,
                         o->cost.code ? o->cost.text
                         : o->power.code ? o->power.text
                         : o->network.code ? o->network.text
                                           : o->storage.text);
        else if (b >= 0) {
            char u1[32];
            gp_plan_log (c, "lost: %s (TCO %s, %+.1f%% vs %s%s)", o->name,
                         gp_fmt_usd (o->tco_usd, u1, sizeof u1),
                         100 * (o->tco_usd / r->options[b].tco_usd - 1),
                         r->options[b].name,
                         flagged (o) ? "; flagged, see below" : "");
        }
    }
}

/* Catalog prices of different dates compare list prices from before and
 * after price cuts: say so when an option's price date is more than 6
 * months from the recommended option's.
 */
static void log_price_dates (struct plan_ctx *c, int b)
{
    const struct gp_plan_result *r = c->r;
    double yb = b >= 0 ? price_year (r->options[b].price_date) : 0;
    for (size_t i = 0; yb > 0 && i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        double yo = price_year (o->price_date);
        if ((int)i == b || !(yo > 0) || fabs (yo - yb) <= 0.5)
            continue;
        gp_plan_log (c, "price dates: %s's catalog prices (dated ~%.1f) are "
                        "~%.0f months %s the recommended %s's (~%.1f): list "
                        "prices from before and after price cuts may not "
                        "compare",
                     o->name, yo, 12 * fabs (yo - yb),
                     yo < yb ? "older than" : "newer than", r->options[b].name,
                     yb);
    }
}

#define STR_OF(fn, type, ...)                                         \
    const char *fn (type r)                                           \
    {                                                                 \
        static const char *const names[] = {__VA_ARGS__};             \
        return (size_t)r < sizeof names / sizeof *names ? names[r] : "?"; \
    }

STR_OF (gp_plan_sizing_rule_str, enum gp_plan_sizing_rule, "none",
        "planners", "given")
STR_OF (gp_plan_train_rule_str, enum gp_plan_train_rule, "none",
        "deadline_curve", "deadline_curve_fixed_batch")
STR_OF (gp_plan_serve_rule_str, enum gp_plan_serve_rule, "none",
        "cheapest_per_mtok", "fewest_gpus")
STR_OF (gp_plan_pricing_rule_str, enum gp_plan_pricing_rule, "none",
        "onprem_tco", "cloud")
STR_OF (gp_plan_spot_rule_str, enum gp_plan_spot_rule, "none",
        "capped_by_tolerant_demand", "no_tolerant_demand")
STR_OF (gp_plan_verdict_rule_str, enum gp_plan_verdict_rule, "chosen",
        "tco_rank", "rejected", "not_ranked")
STR_OF (gp_plan_infeasible_str, enum gp_plan_infeasible, "none", "cloud",
        "compute", "power", "racks", "part", "unfinished", "budget",
        "spot_intolerant", "capacity")
#undef STR_OF

/* Append printf-style text to 'buf' of 'n' bytes. */
static void cat (char *buf, size_t n, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void cat (char *buf, size_t n, const char *fmt, ...)
{
    size_t l = strlen (buf);
    if (l + 1 >= n)
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (buf + l, n - l, fmt, ap);
    va_end (ap);
}

char *gp_plan_rules_text (const struct gp_plan_rules *r,
                          const char *pricing_model, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    buf[0] = 0;
    cat (buf, n, "sizing %s", gp_plan_sizing_rule_str (r->sizing));
    if (r->train != GP_RULE_TRAIN_NONE)
        cat (buf, n, ", training %s (batch %.3gM tokens)",
             gp_plan_train_rule_str (r->train), r->train_batch_tokens / 1e6);
    if (r->serve != GP_RULE_SERVE_NONE)
        cat (buf, n, ", services %s (%s)", gp_plan_serve_rule_str (r->serve),
             r->serve_precision);
    cat (buf, n, "; pricing %s", gp_plan_pricing_rule_str (r->pricing));
    if (r->pricing == GP_RULE_PRICE_CLOUD && pricing_model)
        cat (buf, n, " %s", pricing_model);
    if (r->spot != GP_RULE_SPOT_NA)
        cat (buf, n, ", spot %s", gp_plan_spot_rule_str (r->spot));
    if (r->cap_gpus > 0)
        cat (buf, n, ", capacity cap %lld GPUs", r->cap_gpus);
    else if (r->pricing == GP_RULE_PRICE_CLOUD)
        cat (buf, n, ", no capacity cap");
    cat (buf, n, "; verdict %s", gp_plan_verdict_rule_str (r->verdict));
    if (r->verdict == GP_RULE_VERDICT_REJECTED)
        cat (buf, n, " by %s", gp_plan_infeasible_str (r->rejected_by));
    else if (r->verdict == GP_RULE_VERDICT_CHOSEN)
        cat (buf, n, " (lowest TCO)");
    else if (r->rank > 0)
        cat (buf, n, " %d", r->rank);
    for (int k = 0; k < GP_N_SHORTFALLS; k++)
        if (r->shortfalls & (1u << k))
            cat (buf, n, ", short %s",
                 gp_plan_shortfall_str ((enum gp_plan_shortfall)k));
    return buf;
}

/* 1 when ranked option 'a' ranks before ranked option 'b' (gp_plan_pick's
 * order: unflagged first, then TCO).
 */
static int ranks_before (const struct gp_plan_option *a,
                         const struct gp_plan_option *b)
{
    int fa = flagged (a), fb = flagged (b);
    return fa < fb || (fa == fb && a->tco_usd < b->tco_usd);
}

/* o->rules from the option's typed state and the planners' answer 'z'
 * (NULL: not sized); 'b' is the recommended option's index.
 */
static void set_rules (const struct gp_plan_result *r, size_t i, int b,
                       const struct plan_sizing *z)
{
    struct gp_plan_option *o = &r->options[i];
    struct gp_plan_rules *u = &o->rules;
    memset (u, 0, sizeof *u);
    u->sizing = o->basis == GP_BASIS_PLANNERS ? GP_RULE_SIZE_PLANNERS
                : o->basis == GP_BASIS_NONE   ? GP_RULE_SIZE_NONE
                                              : GP_RULE_SIZE_GIVEN;
    if (z && z->code == 0 && o->basis != GP_BASIS_FLEET_UNSIZED) {
        if (z->n_deadline_runs) {
            u->train = z->first_batch_fixed ? GP_RULE_TRAIN_CURVE_FIXED_BATCH
                                            : GP_RULE_TRAIN_CURVE;
            u->train_batch_tokens = z->first_batch_tokens;
        }
        if (z->n_services) {
            u->serve = o->kind != GP_OPT_ONPREM ? GP_RULE_SERVE_CHEAPEST_MTOK
                                                : GP_RULE_SERVE_FEWEST_GPUS;
            snprintf (u->serve_precision, sizeof u->serve_precision, "%s",
                      z->first_serve_precision);
        }
    }
    u->pricing = o->kind == GP_OPT_ONPREM ? GP_RULE_PRICE_ONPREM_TCO
                                          : GP_RULE_PRICE_CLOUD;
    /* A burst option rents its demand above the owned GPUs as a cloud
     * option does (docs/model/cost.md, "Cloud burst").
     */
    if (o->kind != GP_OPT_ONPREM
        && (o->pricing == GP_PRICE_SPOT || o->pricing == GP_PRICE_MIX))
        u->spot = o->spot_tolerant_share > 0 ? GP_RULE_SPOT_CAPPED
                                             : GP_RULE_SPOT_NONE_TOLERANT;
    u->cap_gpus = o->kind != GP_OPT_ONPREM ? o->max_gpus : 0;
    u->shortfalls = o->shortfalls;
    if (!o->feasible) {
        u->verdict = GP_RULE_VERDICT_REJECTED;
        u->rejected_by = o->infeasible;
        u->shortfalls = 0;
        return;
    }
    if (!o->complete) {
        u->verdict = GP_RULE_VERDICT_NOT_RANKED;
        return;
    }
    u->verdict = (int)i == b ? GP_RULE_VERDICT_CHOSEN
                             : GP_RULE_VERDICT_TCO_RANK;
    u->rank = 1;
    for (size_t k = 0; k < r->n_options; k++) {
        const struct gp_plan_option *q = &r->options[k];
        if (k != i && q->feasible && q->complete && ranks_before (q, o))
            u->rank++;
    }
}

/* Every option's rules, each as one "rules:" line of the log. */
static void log_rules (struct plan_ctx *c, int b)
{
    const struct gp_plan_result *r = c->r;
    for (size_t i = 0; i < r->n_options; i++) {
        struct gp_plan_option *o = &r->options[i];
        const struct plan_sizing *z =
            o->basis == GP_BASIS_NONE
                ? NULL
                : gp_plan_sizing_of (c, o->spec_index, o->n_periods);
        set_rules (r, i, b, z);
        char t[GP_PLAN_TEXT];
        gp_plan_rules_text (&o->rules,
                            o->kind != GP_OPT_ONPREM
                                ? gp_pricing_str (o->pricing)
                                : NULL,
                            t, sizeof t);
        gp_plan_log (c, "rules: %s: %.200s", o->name, t);
    }
}

void gp_plan_decide (struct plan_ctx *c)
{
    struct gp_plan_result *r = c->r;
    r->recommended = gp_plan_pick (r->options, r->n_options);
    r->nearest_ok = -1;
    int b = r->recommended;
    if (b >= 0) {
        decide_reason (r, b);
        gp_plan_log (c, "chosen: %s (%s)", r->options[b].name, r->reason);
    }
    log_others (c, b);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        if (o->feasible && o->complete && flagged (o))
            gp_plan_log (c, "flagged: %s (%.200s)", o->name, o->queue_flag);
        for (int k = GP_SHORT_NETWORK; k <= GP_SHORT_STORAGE; k++) {
            if (!(o->feasible && o->complete && (o->shortfalls & (1u << k))))
                continue;
            char t[GP_PLAN_TEXT] = "";
            shortfall_text (o, (enum gp_plan_shortfall)k, 0, t, sizeof t);
            gp_plan_log (c, "short: %s (%.200s)", o->name, t);
        }
        if (o->quota_short && o->compute.code == 0)
            gp_plan_log (c, "quotas: %s (%.200s)", o->name, o->quota_note);
    }
    log_price_dates (c, b);
    gp_plan_log_cloud (c);
    log_rules (c, b);
    if (b < 0)
        gp__plan_nearest (c);
    gp__plan_inputs (c);
}
