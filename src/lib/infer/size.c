/* size.c - SLO-driven sizing: the highest Poisson request rate one replica
 * sustains while meeting every latency SLO (bisection over engine
 * simulations), the replicas for a peak and a trough rate with headroom,
 * and the choice of layout (tensor/pipeline parallel degree or MIG slice)
 * for a model on one accelerator and precision.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/infer.h"
#include "infer_private.h"

const char *gp_infer_limit_str (enum gp_infer_limit l)
{
    switch (l) {
    case GP_INFER_LIMIT_NONE: return "none";
    case GP_INFER_LIMIT_SATURATION: return "saturation";
    case GP_INFER_LIMIT_UNSTABLE: return "unstable";
    case GP_INFER_LIMIT_TTFT_P95: return "ttft_p95";
    case GP_INFER_LIMIT_TTFT_P99: return "ttft_p99";
    case GP_INFER_LIMIT_TPOT_P95: return "tpot_p95";
    case GP_INFER_LIMIT_E2E_P95: return "e2e_p95";
    case GP_INFER_LIMIT_LAYOUT: return "layout";
    case GP_INFER_LIMIT_MEMORY: return "memory";
    case GP_INFER_LIMIT_NO_LAYOUT: return "no_layout";
    case GP_INFER_LIMIT_ERROR: return "error";
    }
    return "unknown";
}

/* Which SLO 'r' misses, written into 'why'; GP_INFER_LIMIT_NONE (0) when
 * all are met.
 */
static enum gp_infer_limit misses (const struct gp_sim_result *r,
                                   const struct gp_slo *s, char *why,
                                   size_t n)
{
    if (r->unstable) {
        snprintf (why, n, "queue grows without bound");
        return GP_INFER_LIMIT_UNSTABLE;
    }
    if (s->ttft_p95_s > 0 && r->ttft_p95_s > s->ttft_p95_s) {
        snprintf (why, n, "TTFT p95 %.0f ms > %.0f ms", r->ttft_p95_s * 1e3,
                  s->ttft_p95_s * 1e3);
        return GP_INFER_LIMIT_TTFT_P95;
    }
    if (s->ttft_p99_s > 0 && r->ttft_p99_s > s->ttft_p99_s) {
        snprintf (why, n, "TTFT p99 %.0f ms > %.0f ms", r->ttft_p99_s * 1e3,
                  s->ttft_p99_s * 1e3);
        return GP_INFER_LIMIT_TTFT_P99;
    }
    if (s->tpot_p95_s > 0 && r->tpot_p95_s > s->tpot_p95_s) {
        snprintf (why, n, "TPOT p95 %.1f ms > %.1f ms", r->tpot_p95_s * 1e3,
                  s->tpot_p95_s * 1e3);
        return GP_INFER_LIMIT_TPOT_P95;
    }
    if (s->e2e_p95_s > 0 && r->e2e_p95_s > s->e2e_p95_s) {
        snprintf (why, n, "end-to-end p95 %.2f s > %.2f s", r->e2e_p95_s,
                  s->e2e_p95_s);
        return GP_INFER_LIMIT_E2E_P95;
    }
    return GP_INFER_LIMIT_NONE;
}


static int run_at (const struct gp_serve_model *m,
                   const struct gp_workload *w, double rate,
                   struct gp_sim_result *r, gp_error_t *err)
{
    struct gp_workload x = *w;
    x.arrivals = GP_ARR_POISSON;
    x.rate = rate;
    if (x.n_requests <= 0) {
        /* 800 requests, or as many as keep the run within
         * GP_INFER_SIM_TOKENS tokens (at least 100): long outputs cost
         * an iteration per token (docs/model/inference.md, "Serving
         * search").
         */
        double per = w->in_len + w->out_len;
        double n = GP_INFER_SIM_TOKENS / (per > 1 ? per : 1);
        x.n_requests = n >= 800 ? 800 : n <= 100 ? 100 : (int)n;
    }
    return gp_infer_simulate (m, &x, r, err);
}

int gp_infer_size (const struct gp_serve_model *m,
                   const struct gp_workload *w,
                   const struct gp_slo *slo,
                   double peak_rate,
                   double trough_rate,
                   double headroom,
                   struct gp_size_result *r,
                   gp_error_t *err)
{
    int rc = gp__infer_size_begin (m, w, slo, peak_rate, headroom, r, err);
    if (rc)
        return rc;
    return gp__infer_size_end (m, w, slo, peak_rate, trough_rate, headroom,
                               r, err);
}

int gp__infer_size_begin (const struct gp_serve_model *m,
                          const struct gp_workload *w,
                          const struct gp_slo *slo, double peak_rate,
                          double headroom, struct gp_size_result *r,
                          gp_error_t *err)
{
    if (!m || !w || !slo || !r || !(peak_rate > 0) || headroom < 0
        || headroom >= 1)
        return gp_errprintf (err, GP_EINVAL,
                             "size: need a peak rate > 0 and headroom in "
                             "[0, 1)");
    memset (r, 0, sizeof *r);
    /* saturation: offline throughput of the engine */
    struct gp_workload off = *w;
    off.arrivals = GP_ARR_OFFLINE;
    off.n_requests = gp__infer_offline_n (m, &off);
    struct gp_sim_result s;
    int rc = gp_infer_simulate (m, &off, &s, err);
    if (rc)
        return rc;
    r->max_rate_per_replica = s.req_s;
    return 0;
}

/* The replicas at 'peak_rate' when one replica carries 'rate' requests/s
 * with 'headroom': gp_infer_size's rule, in one place for the sizing and
 * for the bound below.
 */
static int replicas_at (double peak_rate, double rate, double headroom)
{
    double usable = rate * (1.0 - headroom);
    int n = (int)ceil (peak_rate / usable - 1e-9);
    return n < 1 ? 1 : n;
}

int gp__infer_replicas_bound (const struct gp_size_result *r,
                              double peak_rate, double headroom)
{
    /* The sized rate is at most hi = 0.98 x saturation (the bisection's
     * upper end; lo <= hi throughout), and every operation of
     * replicas_at is monotone in the rate (rounding included), so the
     * replicas at hi are a lower bound on the sized replicas.
     */
    double hi = 0.98 * r->max_rate_per_replica;
    double x = peak_rate / (hi * (1.0 - headroom));
    if (!(hi > 0) || !(x < 1e9))
        return 1; /* no bound worth the name (and no overflow) */
    return replicas_at (peak_rate, hi, headroom);
}

int gp__infer_size_end (const struct gp_serve_model *m,
                        const struct gp_workload *w,
                        const struct gp_slo *slo, double peak_rate,
                        double trough_rate, double headroom,
                        struct gp_size_result *r, gp_error_t *err)
{
    struct gp_sim_result s;
    int rc;
    double hi = 0.98 * r->max_rate_per_replica;
    /* light load must meet the SLOs, or no rate does */
    double lo = 0.02 * r->max_rate_per_replica;
    rc = run_at (m, w, lo, &s, err);
    if (rc)
        return rc;
    if ((r->limit_kind = misses (&s, slo, r->limit, sizeof r->limit))) {
        r->light_load_miss = 1;
        char tmp[160];
        snprintf (tmp, sizeof tmp, "even at light load: %s", r->limit);
        snprintf (r->limit, sizeof r->limit, "%s", tmp);
        r->at_peak = s;
        return 0;
    }
    char why[160] = "saturation throughput";
    enum gp_infer_limit kind = GP_INFER_LIMIT_SATURATION;
    rc = run_at (m, w, hi, &s, err);
    if (rc)
        return rc;
    enum gp_infer_limit k = misses (&s, slo, why, sizeof why);
    if (!k) {
        lo = hi;
        snprintf (why, sizeof why, "engine saturation (%.2f req/s)", hi);
    } else {
        kind = k;
        for (int i = 0; i < 14 && hi - lo > 0.01 * hi; i++) {
            double mid = 0.5 * (lo + hi);
            rc = run_at (m, w, mid, &s, err);
            if (rc)
                return rc;
            char w2[160];
            if ((k = misses (&s, slo, w2, sizeof w2))) {
                hi = mid;
                kind = k;
                snprintf (why, sizeof why, "%s", w2);
            } else {
                lo = mid;
            }
        }
    }
    r->feasible = 1;
    r->rate_per_replica = lo;
    snprintf (r->limit, sizeof r->limit, "%s", why);
    r->limit_kind = kind;
    double usable = lo * (1.0 - headroom);
    r->replicas = replicas_at (peak_rate, lo, headroom);
    r->replicas_min = trough_rate > 0
                          ? (int)ceil (trough_rate / usable - 1e-9)
                          : r->replicas;
    if (r->replicas_min < 1)
        r->replicas_min = 1;
    return run_at (m, w, peak_rate / r->replicas, &r->at_peak, err);
}

/* ============================ layout choice ============================ */

int gp_infer_option_gpus (const struct gp_infer_option *o, int reps)
{
    if (!o || reps <= 0)
        return 0;
    if (o->slice[0]) {
        int per = o->slices_per_gpu > 0 ? o->slices_per_gpu : 1;
        return (reps + per - 1) / per;
    }
    return reps * (o->gpus_per_replica > 0 ? o->gpus_per_replica : 1);
}

int gp_infer_option_nodes (const struct gp_infer_option *o, int reps,
                           int gpus_per_node)
{
    int per_node = gpus_per_node > 0 ? gpus_per_node : 1;
    int gpr = o ? o->gpus_per_replica : 0;
    if (gpr > per_node)
        return reps * ((gpr + per_node - 1) / per_node);
    return (gp_infer_option_gpus (o, reps) + per_node - 1) / per_node;
}

/* Is 'a' a better layout than 'b' when capacity is bought in nodes of
 * 'per_node' GPUs (docs/model/inference.md, "Serving search"): fewer
 * whole nodes at the peak (the cost per 1M output tokens at the peak),
 * then at the trough, then fewer whole GPUs at the peak, then the
 * smaller share of GPUs actually used (a MIG slice leaves the rest of its
 * GPU free), then the lower TTFT p95.
 */
static int better (const struct gp_infer_option *a,
                   const struct gp_infer_option *b, int per_node)
{
    if (!b->feasible)
        return a->feasible;
    if (!a->feasible)
        return 0;
    int na = gp_infer_option_nodes (a, a->size.replicas, per_node);
    int nb = gp_infer_option_nodes (b, b->size.replicas, per_node);
    if (na != nb)
        return na < nb;
    na = gp_infer_option_nodes (a, a->size.replicas_min, per_node);
    nb = gp_infer_option_nodes (b, b->size.replicas_min, per_node);
    if (na != nb)
        return na < nb;
    if (a->gpus_whole != b->gpus_whole)
        return a->gpus_whole < b->gpus_whole;
    if (fabs (a->gpus - b->gpus) > 1e-9)
        return a->gpus < b->gpus;
    return a->size.at_peak.ttft_p95_s < b->size.at_peak.ttft_p95_s;
}

/* The typed limit of a model error: a layout that cannot be built, or a
 * replica that cannot hold its weights or one sequence.
 */
static enum gp_infer_limit error_limit (int code)
{
    return code == GP_EINVAL        ? GP_INFER_LIMIT_LAYOUT
           : code == GP_EINFEASIBLE ? GP_INFER_LIMIT_MEMORY
                                    : GP_INFER_LIMIT_ERROR;
}

/* Fill 'o' for one layout, up to the saturation run of its sizing
 * (gp__infer_size_begin); '*pending' is 1 when the rest of the sizing
 * (eval_end) is still to do, 0 when the layout is already an infeasible
 * option with its reason.  Returns GP_ENOMEM (with 'err') when the
 * evaluation ran out of memory, which must not pass for infeasibility.
 */
static int eval_begin (const struct gp_serve_cfg *cfg, const char *slice,
                       int per_gpu, double share,
                       const struct gp_workload *w, const struct gp_slo *slo,
                       double peak, double headroom,
                       struct gp_infer_option *o, int *pending,
                       gp_error_t *err)
{
    gp_error_t e = {0};
    *pending = 0;
    memset (o, 0, sizeof *o);
    o->accel = cfg->accel;
    snprintf (o->slice, sizeof o->slice, "%s", slice ? slice : "");
    o->slices_per_gpu = per_gpu;
    o->gpu_share = share;
    o->tp = cfg->tp;
    o->pp = cfg->pp;
    o->ep = cfg->ep;
    o->gpus_per_replica = slice && *slice ? 0 : cfg->tp * cfg->pp;
    o->weight_dtype = cfg->weight_dtype;
    o->kv_dtype = cfg->kv_dtype;
    if (gp_infer_prepare (cfg, w->in_len + w->out_len, &o->model, &e)) {
        if (e.code == GP_ENOMEM)
            return gp_errprintf (err, GP_ENOMEM, "%s", e.text);
        snprintf (o->reason, sizeof o->reason, "%s", e.text);
        o->limit = error_limit (e.code);
        return 0;
    }
    o->ep = o->model.cfg.ep;
    if (gp__infer_size_begin (&o->model, w, slo, peak, headroom, &o->size,
                              &e)) {
        if (e.code == GP_ENOMEM)
            return gp_errprintf (err, GP_ENOMEM, "%s", e.text);
        snprintf (o->reason, sizeof o->reason, "%s", e.text);
        o->limit = error_limit (e.code);
        return 0;
    }
    *pending = 1;
    return 0;
}

/* The rest of the layout's sizing (gp__infer_size_end) and its GPUs. */
static int eval_end (double share, const struct gp_workload *w,
                     const struct gp_slo *slo, double peak, double trough,
                     double headroom, struct gp_infer_option *o,
                     gp_error_t *err)
{
    gp_error_t e = {0};
    if (gp__infer_size_end (&o->model, w, slo, peak, trough, headroom,
                            &o->size, &e)) {
        if (e.code == GP_ENOMEM)
            return gp_errprintf (err, GP_ENOMEM, "%s", e.text);
        snprintf (o->reason, sizeof o->reason, "%s", e.text);
        o->limit = error_limit (e.code);
        return 0;
    }
    o->limit = o->size.limit_kind;
    if (!o->size.feasible) {
        snprintf (o->reason, sizeof o->reason, "%s", o->size.limit);
        return 0;
    }
    o->feasible = 1;
    snprintf (o->reason, sizeof o->reason, "%s", o->size.limit);
    if (o->gpus_per_replica > 0) {
        o->gpus = (double)o->size.replicas * o->gpus_per_replica;
        o->gpus_whole = (int)o->gpus;
    } else {
        o->gpus = o->size.replicas * share;
        o->gpus_whole = gp_infer_option_gpus (o, o->size.replicas);
    }
    return 0;
}

/* One layout of the search: its configuration and, once evaluated, its
 * option.
 */
struct cand {
    struct gp_serve_cfg c;
    const char *slice;       /* MIG profile, NULL for whole GPUs */
    int per_gpu;
    double share;
    int ep_label;            /* the ep the reason names */
    int pending;             /* sized up to saturation, the rest to do */
    int pruned;              /* the rest skipped: it cannot be the best */
    int bound;               /* nodes at the peak, a lower bound */
    struct gp_infer_option o;
};

/* Evaluate the layouts of one group (the MIG slices, or one pass over
 * whole-GPU layouts) as eval() of each would, except that a layout whose
 * lower bound on nodes at the peak (gp__infer_replicas_bound after its
 * saturation run) exceeds the nodes of a feasible layout of the group is
 * not sized further (pruned).  Such a layout cannot be chosen: the
 * choice (better(), over the group in its order) keeps the fewest nodes
 * at the peak first, so the chosen one is among the layouts with the
 * group's fewest nodes, and a feasible layout exists, so neither the
 * "whole GPUs work" flag nor the reason of an infeasible search reads a
 * pruned one.  The rest is sized in increasing bound order, so that a
 * good layout is found early (docs/model/inference.md, "Serving
 * search").  Returns GP_ENOMEM with 'err', else 0.
 */
static int eval_group (struct cand *cs, size_t n, const struct gp_workload *w,
                       const struct gp_slo *slo, double peak, double trough,
                       double headroom, int per_node, int prune,
                       int *n_pruned, gp_error_t *err)
{
    size_t order[256];
    size_t n_ord = 0;
    for (size_t i = 0; i < n; i++) {
        struct cand *x = &cs[i];
        if (eval_begin (&x->c, x->slice, x->per_gpu, x->share, w, slo, peak,
                        headroom, &x->o, &x->pending, err))
            return GP_ENOMEM;
        if (!x->pending)
            continue;
        int reps = gp__infer_replicas_bound (&x->o.size, peak, headroom);
        x->bound = gp_infer_option_nodes (&x->o, reps, per_node);
        /* insertion by (bound, index): the group is small */
        size_t j = n_ord++;
        while (j > 0 && cs[order[j - 1]].bound > x->bound) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    int have = 0, least = 0; /* the fewest nodes of a feasible layout */
    for (size_t k = 0; k < n_ord; k++) {
        struct cand *x = &cs[order[k]];
        if (prune && have && x->bound > least) {
            x->pruned = 1;
            (*n_pruned)++;
            continue;
        }
        if (eval_end (x->share, w, slo, peak, trough, headroom, &x->o, err))
            return GP_ENOMEM;
        if (!x->o.feasible)
            continue;
        int nodes = gp_infer_option_nodes (&x->o, x->o.size.replicas,
                                           per_node);
        if (!have || nodes < least)
            least = nodes;
        have = 1;
    }
    return 0;
}

int gp_infer_choose (const struct gp_serve_cfg *base,
                     const struct gp_catalog *cat,
                     int allow_mig,
                     const struct gp_workload *w,
                     const struct gp_slo *slo,
                     double peak_rate,
                     double trough_rate,
                     double headroom,
                     struct gp_infer_option *best,
                     gp_error_t *err)
{
    return gp_infer_choose_on (base, cat, allow_mig, w, slo, peak_rate,
                               trough_rate, headroom, 0, best, err);
}

/* Whether whole-GPU layout tp x pp is left out of pass 'pass' (0: within
 * one node; 1: pipelines of full nodes) of gp_infer_choose_on().
 */
static int layout_skipped (const struct gp_serve_cfg *base, int dom,
                           int pass, int tp, int pp)
{
    if (base->arch->heads % tp)
        return 1;
    int in_node = tp * pp <= dom;
    /* In-node pipelines only where there is no NVLink-class fabric (the
     * TensorRT-LLM perf overview recommends PP for PCIe RTX 6000
     * systems); NVLink parts use tensor parallel.
     */
    if (pass == 0 && pp > 1 && base->pp <= 0
        && base->accel->scale_up_domain > 2)
        return 1;
    if (pass == 0 && !in_node && (base->tp <= 0 || base->pp <= 0))
        return 1;
    if (pass == 1 && (in_node || tp < dom) && base->tp <= 0)
        return 1;
    /* A fixed layout was tried in pass 0. */
    return pass == 1 && base->tp > 0 && base->pp > 0;
}

/* The MIG slices of 'base' worth trying, as candidates ('cs' has room
 * for every profile of the catalog).  Returns how many.
 */
static size_t mig_cands (const struct gp_serve_cfg *base,
                         const struct gp_catalog *cat, struct cand *cs)
{
    const struct gp_accel *acc = base->accel;
    size_t n = 0;
    for (size_t i = 0; i < gp_catalog_n_mig (cat); i++) {
        const struct gp_mig_profile *p = gp_catalog_mig (cat, i);
        if (strcasecmp (p->accel_id, acc->id) || strstr (p->profile, "+")
            || p->compute_slices >= 7)
            continue;
        struct cand *x = &cs[n++];
        memset (x, 0, sizeof *x);
        x->c = *base;
        x->c.tp = x->c.pp = 1;
        x->c.slice_mem_bytes = p->mem_bytes;
        x->c.slice_compute = p->compute_slices;
        x->slice = p->profile;
        x->per_gpu = p->max_instances;
        x->share = fmax (p->compute_slices / 7.0,
                         p->mem_bytes / acc->mem_bytes);
    }
    return n;
}

/* The whole-GPU layouts of pass 'pass' (see layout_skipped), in the
 * search's order, into 'cs' (room for 'room').  Returns how many.
 */
static size_t whole_cands (const struct gp_serve_cfg *base, int dom,
                           int pass, struct cand *cs, size_t room)
{
    size_t n = 0;
    for (int pp = 1; pp <= 8; pp *= 2) {
        if (base->pp > 0 && pp != base->pp)
            continue;
        int tp_max = base->tp > dom ? base->tp : dom;
        for (int tp = 1; tp <= tp_max; tp *= 2) {
            if (base->tp > 0 && tp != base->tp)
                continue;
            if (layout_skipped (base, dom, pass, tp, pp))
                continue;
            /* MoE: expert parallel over the whole tp group or expert
             * tensor parallel (ep 1), unless 'base' fixes ep */
            int eps[2] = {1, tp}, n_ep = 1;
            if (base->arch->moe_experts <= 0)
                eps[0] = base->ep > 1 ? base->ep : 0; /* error */
            else if (base->ep > 0)
                eps[0] = base->ep;
            else if (tp > 1 && base->arch->moe_experts % tp == 0)
                n_ep = 2;
            for (int j = 0; j < n_ep && n < room; j++) {
                struct cand *x = &cs[n++];
                memset (x, 0, sizeof *x);
                x->c = *base;
                x->c.tp = tp;
                x->c.pp = pp;
                x->c.ep = eps[j];
                x->c.slice_mem_bytes = 0;
                x->c.slice_compute = 0;
                x->share = 1.0;
                x->ep_label = eps[j] > 0 ? eps[j] : 1;
            }
        }
    }
    return n;
}

int gp_infer_choose_on (const struct gp_serve_cfg *base,
                        const struct gp_catalog *cat,
                        int allow_mig,
                        const struct gp_workload *w,
                        const struct gp_slo *slo,
                        double peak_rate,
                        double trough_rate,
                        double headroom,
                        int gpus_per_node,
                        struct gp_infer_option *best,
                        gp_error_t *err)
{
    return gp__infer_choose_prune (base, cat, allow_mig, w, slo, peak_rate,
                                   trough_rate, headroom, gpus_per_node, 1,
                                   NULL, best, err);
}

int gp__infer_choose_prune (const struct gp_serve_cfg *base,
                            const struct gp_catalog *cat, int allow_mig,
                            const struct gp_workload *w,
                            const struct gp_slo *slo, double peak_rate,
                            double trough_rate, double headroom,
                            int gpus_per_node, int prune, int *n_pruned,
                            struct gp_infer_option *best, gp_error_t *err)
{
    int pruned = 0;
    if (!base || !base->arch || !base->accel || !w || !slo || !best)
        return gp_errprintf (err, GP_EINVAL, "choose: missing argument");
    memset (best, 0, sizeof *best);
    best->accel = base->accel;
    best->weight_dtype = base->weight_dtype;
    best->kv_dtype = base->kv_dtype;
    char first_reason[240] = "";
    enum gp_infer_limit first_limit = GP_INFER_LIMIT_NO_LAYOUT;
    int tried = 0;
    const struct gp_accel *acc = base->accel;
    int dom = acc->scale_up_domain > 1 ? acc->scale_up_domain : 8;
    if (dom > 8)
        dom = 8; /* one 8-GPU node / tray group per replica */
    size_t n_mig = allow_mig && cat ? gp_catalog_n_mig (cat) : 0;
    size_t room = n_mig > 256 ? n_mig : 256;
    struct cand *cs = malloc (room * sizeof *cs);
    if (!cs)
        return gp_errprintf (err, GP_ENOMEM, "choose: out of memory");

    /* MIG slices first: cheapest when the model fits. */
    if (allow_mig && cat && base->tp <= 1 && base->pp <= 1 && base->ep <= 1) {
        size_t n = mig_cands (base, cat, cs);
        if (n > 256)
            n = 256; /* eval_group's order holds 256 */
        if (eval_group (cs, n, w, slo, peak_rate, trough_rate, headroom,
                        gpus_per_node, prune, &pruned, err)) {
            free (cs);
            return GP_ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            const struct gp_infer_option *cur = &cs[i].o;
            tried++;
            if (cs[i].pruned)
                continue;
            if (!first_reason[0] && !cur->feasible) {
                snprintf (first_reason, sizeof first_reason, "%s: %s",
                          cs[i].slice, cur->reason);
                first_limit = cur->limit;
            }
            if (better (cur, best, gpus_per_node))
                *best = *cur;
        }
    }
    /* Whole GPUs, always (a slice is not cheaper by being tried first):
     * first the layouts within one node (tensor parallel; also pipeline
     * stages on PCIe parts, which avoid per-layer all-reduces), then
     * pipelines of full nodes when no single-node layout works.
     */
    int whole_ok = 0;
    for (int pass = 0; pass < 2 && !whole_ok; pass++) {
        size_t n = whole_cands (base, dom, pass, cs, 256);
        if (eval_group (cs, n, w, slo, peak_rate, trough_rate, headroom,
                        gpus_per_node, prune, &pruned, err)) {
            free (cs);
            return GP_ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            const struct gp_infer_option *cur = &cs[i].o;
            tried++;
            if (cs[i].pruned)
                continue;
            if (!cur->feasible) {
                snprintf (first_reason, sizeof first_reason,
                          "tp%d pp%d ep%d: %s", cs[i].c.tp, cs[i].c.pp,
                          cs[i].ep_label, cur->reason);
                first_limit = cur->limit;
            }
            whole_ok |= cur->feasible;
            if (better (cur, best, gpus_per_node))
                *best = *cur;
        }
    }
    free (cs);
    if (n_pruned)
        *n_pruned = pruned;
    best->layouts_tried = tried;
    if (!best->feasible) {
        best->accel = acc;
        best->weight_dtype = base->weight_dtype;
        best->kv_dtype = base->kv_dtype;
        snprintf (best->reason, sizeof best->reason, "%s",
                  tried ? first_reason : "no layout to try (tp must divide "
                                         "the attention heads)");
        best->limit = tried ? first_limit : GP_INFER_LIMIT_NO_LAYOUT;
    }
    return 0;
}

/* ============================= fleet cost ============================== */

int gp_infer_fleet (double rate_per_replica, double headroom,
                    const double *rates, size_t n,
                    double gpus_per_replica, double usd_per_gpu_hour,
                    double output_tokens, int *replicas, struct gp_fleet *f,
                    gp_error_t *err)
{
    if (!rates || !n || !f || !(rate_per_replica > 0) || headroom < 0
        || headroom >= 1 || !(gpus_per_replica > 0) || usd_per_gpu_hour < 0
        || !(output_tokens > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "fleet: need rates, a rate per replica > 0, "
                             "headroom in [0, 1), GPUs per replica > 0 and "
                             "output tokens > 0");
    memset (f, 0, sizeof *f);
    f->n_periods = n;
    f->hours_per_period = 24.0 / (double)n;
    double usable = rate_per_replica * (1.0 - headroom);
    for (size_t i = 0; i < n; i++) {
        if (!(rates[i] >= 0))
            return gp_errprintf (err, GP_EINVAL,
                                 "fleet: rate %zu is not >= 0", i);
        int r = (int)ceil (rates[i] / usable - 1e-9);
        if (r < 1)
            r = 1; /* one warm replica; no scale to zero */
        if (replicas)
            replicas[i] = r;
        if (i == 0 || r < f->replicas_min)
            f->replicas_min = r;
        if (r > f->replicas_max)
            f->replicas_max = r;
        f->replica_hours_per_day += r * f->hours_per_period;
        f->output_tokens_per_day += rates[i] * output_tokens * 3600.0
                                    * f->hours_per_period;
    }
    f->gpu_hours_per_day = f->replica_hours_per_day * gpus_per_replica;
    f->usd_per_day = f->gpu_hours_per_day * usd_per_gpu_hour;
    f->usd_per_month = f->usd_per_day * 365.0 / 12.0;
    f->usd_per_1m_output_tokens = f->output_tokens_per_day > 0
                                      ? f->usd_per_day
                                            / f->output_tokens_per_day * 1e6
                                      : 0.0;
    return 0;
}
