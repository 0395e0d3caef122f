/* compute.c - the integration layer between the plan and the planners
 * that size compute: the training planner (layout search, step time,
 * reliability; train.h), the inference planner (layout and replica sizing
 * for SLOs; infer.h); the cluster simulator's side is simulate.c.  The
 * plan never models that physics itself: this file only turns the
 * portfolio into planner inputs and their answers into a demand curve
 * (GPUs per month) and job sizes.  Formulas: docs/model/cost.md,
 * "Compute demand".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/arch.h"
#include "gpuplan/cluster.h"
#include "gpuplan/infer.h"
#include "gpuplan/policy.h"
#include "gpuplan/sim.h"
#include "gpuplan/trace.h"
#include "gpuplan/train.h"
#include "plan_private.h"
#include "../model/train_private.h"


static double A (struct gp_plan_spec *s, const char *key)
{
    double v = gp_plan_assume (s, key);
    return isnan (v) ? 0 : v;
}

static enum gp_precision precision_of (const char *p)
{
    if (!strcasecmp (p, "fp8"))
        return GP_PREC_FP8;
    if (!strcasecmp (p, "fp16"))
        return GP_PREC_FP16;
    return GP_PREC_BF16;
}

/* The scale-out bandwidth per GPU the layout 'l' needs
 * (docs/model/infrastructure.md, "Bandwidth needed vs given"): the
 * traffic the layout moves over each GPU's NIC per step, V, over the step
 * time allowed, (1 + tol) x step(inf), the step on an unlimited fabric:
 *   need = V / ((1 + tol) step(inf)).
 * A fabric below it cannot carry one step's traffic within the allowed
 * step time even if every byte overlapped with compute.  V is read from
 * the training planner itself: where the fabric is the bottleneck every
 * scale-out collective (DP/ZeRO/FSDP, pipeline P2P across nodes, MoE
 * all-to-all, CP) takes bytes / (B x efficiency / oversubscription), so
 * the step time is V / B plus terms that do not depend on B, and
 *   V = (step(B1) - step(B2)) / (1/B1 - 1/B2)
 * at two bandwidths far below any real NIC (1 and 2 MB/s).  Also the
 * slowdown step(given) / step(inf) - 1 at the option's own bandwidth, and
 * V itself ('bytes', may be NULL).  Returns 0 when the step does not
 * depend on the scale-out fabric (the traffic stays in the scale-up
 * domain).
 */
double gp_plan_scale_out_need (const struct gp_train_model *m,
                               const struct gp_train_job *job,
                               const struct gp_train_hw *hw,
                               const struct gp_layout *l, double tol,
                               double *slowdown, double *bytes)
{
    struct gp_train_hw h = *hw;
    struct gp_train_time t;
    h.scale_out_bw = 1e18;
    gp_train_time (m, job, &h, l, &t);
    double inf = t.step_s;
    gp_train_time (m, job, hw, l, &t);
    if (slowdown)
        *slowdown = inf > 0 ? t.step_s / inf - 1 : 0;
    if (bytes)
        *bytes = 0;
    const double b1 = 1e6, b2 = 2e6;
    h.scale_out_bw = b1;
    gp_train_time (m, job, &h, l, &t);
    double s1 = t.step_s;
    h.scale_out_bw = b2;
    gp_train_time (m, job, &h, l, &t);
    double s2 = t.step_s;
    double v = (s1 - s2) / (1 / b1 - 1 / b2);
    /* below a byte per step (rounding of a B-independent step): none */
    if (!(inf > 0) || !(v > 1))
        return 0;
    if (bytes)
        *bytes = v;
    return v / ((1 + tol) * inf);
}

/* The reliability inputs the plan's assumptions give the training
 * model: its restart time and checkpoint write time.
 */
static struct gp_train_rel_params plan_rel (struct gp_plan_spec *s)
{
    struct gp_train_rel_params rp;
    gp_train_rel_params_init (&rp);
    rp.restart_s = A (s, "restart_s");
    rp.ckpt_write_s = A (s, "checkpoint_write_s");
    rp.fail_per_gpu_hour = A (s, "fail_per_gpu_hour");
    /* A spec that sets the checkpoint bandwidth per node writes at it, as
     * the train command does (docs/model/cost.md, Checkpoint and data
     * bandwidth); the storage sizing uses the same rate.
     */
    const struct gp_assumption *bw =
        gp_plan_assume_find (s, "ckpt_write_bw_per_node");
    if (bw && bw->overridden) {
        rp.ckpt_write_s = -1;
        rp.storage_bw_per_node = A (s, "ckpt_write_bw_per_node");
    }
    return rp;
}

/* Training throughput on 'n' GPUs: the fastest layout's tokens/s times
 * the reliability model's goodput.  Returns 0 when nothing fits.
 */
static double train_rate_run (struct gp_plan_spec *s,
                              const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw, int n,
                              double *interval_s,
                              struct gp_train_result *best);

/* train_rate_run, remembered per exact inputs (memo.c). */
static double train_rate (struct gp_plan_spec *s, struct plan_memo *memo,
                          const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw, int n,
                          double *interval_s, struct gp_train_result *best)
{
    struct plan_train_key key;
    struct plan_train_val val;
    memset (&key, 0, sizeof key);
    key.kind = 2;
    key.n = n;
    key.m = *m;
    key.job = *job;
    key.hw = *hw;
    key.rp = plan_rel (s);
    if (gp_plan_memo_train_get (memo, &key, &val) != 0) {
        memset (&val, 0, sizeof val);
        val.rate = train_rate_run (s, m, job, hw, n, &val.interval_s,
                                   &val.tr);
        gp_plan_memo_train_put (memo, &key, &val);
    }
    if (val.rate > 0 && interval_s)
        *interval_s = val.interval_s;
    if (val.rate > 0 && best)
        *best = val.tr;
    return val.rate;
}

static double train_rate_run (struct gp_plan_spec *s,
                              const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_train_hw *hw, int n,
                              double *interval_s,
                              struct gp_train_result *best)
{
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    struct gp_train_result top[1];
    if (gp_search_layouts (m, job, hw, n, &fix, top, 1, NULL) == 0)
        return 0;
    struct gp_train_rel_params rp = plan_rel (s);
    struct gp_reliability rel;
    gp_train_reliability_with (m, job, n, hw->gpus_per_node, &rp, &rel);
    if (interval_s)
        *interval_s = rel.interval_s;
    if (best)
        *best = top[0];
    return top[0].time.tokens_per_s * rel.goodput;
}

/* The chosen layout's scale-out need and its slowdown at the option's
 * bandwidth, kept per workload and as the option's maximum.
 */
static void record_need (struct gp_plan_spec *s, struct plan_sizing *z,
                         size_t wi, const struct gp_train_model *m,
                         const struct gp_train_job *job,
                         const struct gp_train_hw *hw,
                         const struct gp_train_result *tr)
{
    double slow = 0;
    double need = gp_plan_scale_out_need (m, job, hw, &tr->layout,
                                          A (s, "comm_slowdown_max"), &slow,
                                          NULL);
    z->need_bw[wi] = need;
    z->slowdown[wi] = slow;
    /* with InfiniBand SHARP (sharp.c): the chosen layout, or the fastest
     * layout at the same GPU count and batch when SHARP makes another one
     * faster; as the step time at the chosen layout's tokens per step
     */
    z->step_plain_s[wi] = tr->time.step_s;
    if (z->sharp_share > 0 && tr->time.tokens_per_s > 0) {
        struct gp_train_hw h = *hw;
        struct gp_train_time t;
        h.sharp_share = z->sharp_share;
        gp_train_time (m, job, &h, &tr->layout, &t);
        double tps = t.tokens_per_s;
        struct gp_search_fix fix;
        struct gp_train_result top[1];
        gp_search_fix_free (&fix);
        const struct gp_layout *l = &tr->layout;
        /* only a layout stepping faster than the chosen one matters */
        if (gp__search_layouts_below (m, job, &h,
                                      l->tp * l->pp * l->dp * l->cp, &fix,
                                      t.step_s, top, 1)
            && top[0].time.tokens_per_s > tps)
            tps = top[0].time.tokens_per_s;
        z->step_sharp_s[wi] = tr->time.step_s * tr->time.tokens_per_s / tps;
    }
    if (need > z->need_bw_max) {
        z->need_bw_max = need;
        z->need_bw_workload = (int)wi;
    }
    if (slow > z->slowdown_max)
        z->slowdown_max = slow;
}

/* Add 'gpus' busy from month 'start' for 'months' (fractions spread). */
static void add_busy (double *d, size_t T, double start, double months,
                      double gpus)
{
    double end = start + months;
    for (size_t t = 0; t < T; t++) {
        double a = fmax ((double)t, start), b = fmin ((double)t + 1, end);
        if (b > a)
            d[t] += gpus * (b - a);
    }
}

/* The layout the training planner chose for workload 'wi' ('tr', at a
 * global batch of 'batch' sequences), one run of 'sec' seconds and the
 * reliability model's checkpoint interval (docs/formats/export.md,
 * "Plan view").
 */
static void record_train_layout (struct plan_sizing *z, size_t wi,
                                  const struct gp_train_result *tr,
                                  const struct gp_train_job *job,
                                  double batch, double sec,
                                  double interval_s)
{
    struct gp_plan_wl_plan *p = &z->wl[wi];
    const struct gp_layout *l = &tr->layout;
    p->sized = 1;
    p->tp = l->tp;
    p->pp = l->pp;
    p->dp = l->dp;
    p->cp = l->cp;
    p->ep = l->ep;
    p->vpp = l->vpp;
    p->gpus = (long long)l->tp * l->pp * l->dp * l->cp;
    p->micro_batch = l->micro_batch;
    p->global_batch = llround (batch);
    long long per_step = (long long)l->micro_batch * l->dp;
    p->grad_accum = per_step > 0 ? (int)(p->global_batch / per_step) : 0;
    p->seq_len = job->seq_len;
    gp_recompute_fmt (l, 0, p->recompute, sizeof p->recompute);
    snprintf (p->sharding, sizeof p->sharding, "%s",
              gp_sharding_str (l->sharding));
    p->step_s = tr->time.step_s;
    p->run_days = sec / 86400;
    p->ckpt_interval_s = interval_s;
}

/* The run's GPUs-vs-days curve for the plan (gp_plan_wl_plan.curve):
 * the sizing's sizes on the curve (not slower than a smaller one) from
 * an eighth of the answer 'n' up, as `gpuplan train` shows them, thinned
 * evenly to GP_PLAN_CURVE_MAX points that keep the first, the answer and
 * the last.
 */
static void record_curve (struct gp_plan_wl_plan *p,
                          const struct gp_train_size *sz, int n)
{
    size_t idx[GP_TRAIN_CURVE_MAX], m = 0, ans = 0;
    for (size_t i = 0; i < sz->n_curve; i++) {
        const struct gp_train_curve_pt *c = &sz->curve[i];
        if (c->slower_than || (long long)c->gpus * 8 < n || c->days <= 0)
            continue;
        if (c->gpus == n)
            ans = m;
        idx[m++] = i;
    }
    /* m > GP_PLAN_CURVE_MAX: the points at even steps from the first
     * to the last, the one nearest the answer replaced by the answer
     */
    size_t pick[GP_PLAN_CURVE_MAX], np = m < GP_PLAN_CURVE_MAX
                                             ? m
                                             : GP_PLAN_CURVE_MAX;
    for (size_t j = 0; j < np; j++)
        pick[j] = np < m ? (j * (m - 1) + (np - 1) / 2) / (np - 1) : j;
    size_t near = 0;
    for (size_t j = 1; j < np; j++)
        if ((pick[j] > ans ? pick[j] - ans : ans - pick[j])
            < (pick[near] > ans ? pick[near] - ans : ans - pick[near]))
            near = j;
    if (m)
        pick[near] = ans;
    p->n_curve = np;
    for (size_t j = 0; j < np; j++) {
        const struct gp_train_curve_pt *c = &sz->curve[idx[pick[j]]];
        p->curve[j].gpus = c->gpus;
        p->curve[j].days = c->days;
        p->curve[j].mfu = c->mfu;
    }
}

/* A training run with a deadline: the fewest whole nodes that finish
 * it in time, by the training planner's deadline sizing (the same call
 * as `gpuplan train --days`), with the plan's reliability assumptions.
 */
static int size_deadline (struct gp_plan_spec *s, struct plan_memo *memo,
                          size_t wi,
                          const struct gp_plan_option_spec *os,
                          const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          struct plan_sizing *z)
{
    const struct gp_plan_workload *w = &s->workloads[wi];
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    struct gp_train_rel_params rp = plan_rel (s);
    struct plan_train_key key;
    struct plan_train_val val;
    memset (&key, 0, sizeof key);
    key.kind = 1;
    key.days = w->deadline_s / 86400;
    key.m = *m;
    key.job = *job;
    key.hw = *hw;
    key.rp = rp;
    if (gp_plan_memo_train_get (memo, &key, &val) != 0) {
        memset (&val, 0, sizeof val);
        val.ok = gp_train_size_deadline (m, job, hw, &fix, &rp, key.days,
                                         GP_TRAIN_MAX_GPUS, &val.tr, 1,
                                         &val.sz);
        gp_plan_memo_train_put (memo, &key, &val);
    }
    struct gp_train_result tr = val.tr;
    struct gp_train_size sz = val.sz;
    if (val.ok) {
        int n = sz.n_gpus;
        double sec = w->tokens / (tr.time.tokens_per_s * sz.rel.goodput);
        struct gp_train_job jb = *job;
        jb.global_batch = sz.global_batch; /* the batch the sizing chose */
        if (z->n_deadline_runs++ == 0) {
            z->first_batch_tokens = sz.global_batch * job->seq_len;
            z->first_batch_fixed = !job->batch_free;
        }
        record_need (s, z, wi, m, &jb, hw, &tr);
        record_train_layout (z, wi, &tr, job, sz.global_batch, sec,
                             sz.rel.interval_s);
        record_curve (&z->wl[wi], &sz, n);
        z->job_gpus[wi] = n;
        z->job_s[wi] = sec;
        add_busy (z->demand, z->n_periods, w->start_month, sec / MONTH_S, n);
        if (z->ckpt_interval_s == 0 && sz.rel.interval_s > 0)
            z->ckpt_interval_s = sz.rel.interval_s;
        if (z->run_gpu_hours == 0) {
            z->run_gpu_hours = sec * n / 3600;
            z->run_days = sec / 86400;
        }
        return 0;
    }
    z->code = GP_EINFEASIBLE;
    if (sz.best_n)
        snprintf (z->text, sizeof z->text,
                  "workloads[%zu].deadline: %s cannot train %s on %.3g "
                  "tokens in %.1f days (best %d GPUs, %.1f days)",
                  wi, os->accel_id, w->model, w->tokens,
                  w->deadline_s / 86400, sz.best_n,
                  w->tokens / sz.best_rate / 86400);
    else
        snprintf (z->text, sizeof z->text,
                  "workloads[%zu].deadline: no layout of %s fits %s at "
                  "any size",
                  wi, w->model, os->accel_id);
    return -1;
}

static int size_training (struct gp_plan_spec *s, struct plan_memo *memo,
                          size_t wi,
                          const struct gp_arch *arch,
                          const struct gp_catalog *cat,
                          const struct gp_plan_option_spec *os, double mfu,
                          struct plan_sizing *z)
{
    const struct gp_plan_workload *w = &s->workloads[wi];
    struct gp_train_model m;
    gp_error_t e = {0};
    if (gp_train_prep (arch, &m, &e) != 0) {
        z->code = GP_ENOTSUP;
        snprintf (z->text, sizeof z->text, "workloads[%zu].model: %s", wi,
                  e.text);
        return -1;
    }
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.precision = precision_of (w->precision);
    job.seq_len = w->seq_len > 0 ? w->seq_len : job.seq_len;
    job.global_batch = w->global_batch > 0
                           ? w->global_batch
                           : gp_train_batch_sequences (0, job.seq_len);
    job.batch_free = w->global_batch <= 0; /* as `train`: chosen per size */
    job.tokens = w->tokens;
    struct gp_train_hw hw;
    gp_train_hw_from_accel (os->accel, job.precision, &hw);
    hw.gpus_per_node = os->gpus_per_node;
    /* The scale-out bandwidth the option's network gives: the cloud
     * instance's (catalog), or the on-prem rails at the switch port rate
     * with the design's oversubscription.
     */
    if (os->inst && os->inst->net_bw > 0 && os->inst->n_accels > 0) {
        hw.scale_out_bw = os->inst->net_bw / os->inst->n_accels;
    } else if (!os->inst) {
        double gbps = 0;
        if (gp_catalog_part_value (cat, os->switch_id, "port_gbps", &gbps,
                                   NULL) == 0 && gbps > 0)
            hw.scale_out_bw = (os->nics_per_gpu > 0 ? os->nics_per_gpu : 1)
                              * gbps * 1e9 / 8;
        hw.oversub = os->oversub >= 1 ? os->oversub : 1;
        /* a SHARP-capable InfiniBand switch: timed beside, not sized
         * (as calibrated only: the sensitivity rows do not report it)
         */
        double share = 0;
        if (mfu == 1
            && gp_catalog_part_value (cat, os->switch_id, "sharp_algbw_share",
                                   &share, NULL) == 0 && share > 0)
            z->sharp_share = share;
    }
    z->scale_out_bw = hw.scale_out_bw;
    hw.eff.gemm_max *= mfu;
    hw.eff.attn *= mfu;
    hw.eff.attn_cudnn *= mfu;
    int gpn = os->gpus_per_node;
    double interval = 0;
    if (w->kind == GP_WL_TRAINING)
        return size_deadline (s, memo, wi, os, &m, &job, &hw, z);
    /* Recurring: each run on the fewest whole nodes it fits on. */
    for (int nodes = 1; nodes <= 4096; nodes *= 2) {
        int n = nodes * gpn;
        struct gp_train_result tr;
        double r = train_rate (s, memo, &m, &job, &hw, n, &interval, &tr);
        if (r > 0) {
            double sec = w->tokens / r;
            record_need (s, z, wi, &m, &job, &hw, &tr);
            record_train_layout (z, wi, &tr, &job, job.global_batch, sec,
                                 interval);
            z->job_gpus[wi] = n;
            z->job_s[wi] = sec;
            double gpus = w->runs_per_month * sec * n / MONTH_S;
            add_busy (z->demand, z->n_periods, 0, (double)z->n_periods, gpus);
            add_busy (z->steady, z->n_periods, 0, (double)z->n_periods, gpus);
            return 0;
        }
    }
    z->code = GP_EINFEASIBLE;
    snprintf (z->text, sizeof z->text,
              "workloads[%zu]: no layout of %s fits %s", wi, w->model,
              os->accel_id);
    return -1;
}

double gp_plan_service_rate (const struct gp_plan_workload *w, size_t t)
{
    return w->requests_per_s
           * pow (1 + w->growth_per_quarter, (double)t / 3);
}

double gp_plan_service_gpus (const struct gp_plan_workload *w,
                             const struct plan_sizing *z, size_t wi, size_t t)
{
    if (!(z->replica_rps[wi] > 0))
        return 0;
    double r = gp_plan_service_rate (w, t);
    /* traffic and growth factors (docs/model/uncertainty.md): both 1
     * leave r as it was, bit for bit */
    double g = w->growth_per_quarter;
    if (z->scaled && z->growth != 1 && 1 + g > 0)
        r *= pow ((1 + g * z->growth) / (1 + g), (double)t / 3);
    if (z->scaled && z->traffic != 1)
        r *= z->traffic;
    double reps = ceil (r / z->replica_rps[wi] - 1e-9);
    if (reps < 1)
        reps = 1;
    return reps * z->job_gpus[wi];
}

/* The serving search of `gpuplan infer` (gp_infer_choose_on) for service
 * 'w' at serving precision 'prec', ranked by whole GPUs: the plan packs
 * every workload's GPUs onto its nodes together, so a service's own node
 * rounding is not its cost.  Returns gp_infer_choose_on's status.
 */
static int serve_search (struct gp_plan_spec *s, struct plan_memo *memo,
                         const struct gp_arch *arch,
                         const struct gp_catalog *cat,
                         const struct gp_plan_option_spec *os,
                         const struct gp_plan_workload *w, const char *prec,
                         double peak, double trough,
                         struct gp_infer_option *best, gp_error_t *e)
{
    struct gp_serve_cfg cfg;
    int rc;
    memset (&cfg, 0, sizeof cfg);
    cfg.arch = arch;
    cfg.accel = os->accel;
    /* The serving precision and engine (the spec loader checked both). */
    if (gp_dtype_parse (prec, &cfg.weight_dtype, NULL) != 0)
        cfg.weight_dtype = GP_DT_BF16;
    gp_kv_dtype_default (NULL, cfg.weight_dtype, os->accel, &cfg.kv_dtype,
                         NULL);
    enum gp_engine eng = GP_ENGINE_VLLM;
    if (w->engine[0] && gp_engine_parse (w->engine, &eng, NULL) != 0)
        eng = GP_ENGINE_VLLM;
    gp_engine_defaults (eng, &cfg.eng);
    struct gp_workload wl;
    memset (&wl, 0, sizeof wl);
    wl.arrivals = GP_ARR_POISSON;
    wl.in_len = w->input_tokens > 0 ? w->input_tokens : 1;
    wl.out_len = w->output_tokens;
    wl.in_dist = wl.out_dist = GP_LEN_FIXED;
    wl.seed = 1;
    struct gp_slo slo = {0};
    slo.ttft_p99_s = w->ttft_s;
    slo.tpot_p95_s = w->tpot_s;
    double head = A (s, "inference_headroom");
    /* The same search on the same inputs gives the same answer: options
     * on one accelerator and the sensitivity rows reuse it (memo.c).
     */
    struct plan_serve_key key;
    memset (&key, 0, sizeof key);
    key.arch = arch;
    key.accel = os->accel;
    key.eng = (int)eng;
    key.weight_dtype = (int)cfg.weight_dtype;
    key.in_len = wl.in_len;
    key.out_len = wl.out_len;
    key.ttft_s = slo.ttft_p99_s;
    key.tpot_s = slo.tpot_p95_s;
    key.peak = peak;
    key.trough = trough;
    key.head = head;
    if (gp_plan_memo_serve_get (memo, &key, best, e, &rc) == 0)
        return rc;
    memset (best, 0, sizeof *best);
    rc = gp_infer_choose_on (&cfg, cat, 0, &wl, &slo, peak, trough, head, 0,
                             best, e);
    gp_plan_memo_serve_put (memo, &key, best, e, rc);
    return rc;
}

/* GPU-months service 'w' holds over 'n' months when one replica of 'per'
 * GPUs carries 'rps' requests/s (gp_plan_service_gpus' rule).
 */
static double serve_gpu_months (const struct gp_plan_workload *w,
                                double rps, int per, size_t n)
{
    double sum = 0;
    for (size_t t = 0; t < n; t++) {
        double r = gp_plan_service_rate (w, t);
        sum += fmax (ceil (r / rps - 1e-9), 1) * per;
    }
    return sum;
}

/* One replica of service 'wi' as the serving search chose it ('best' at
 * serving precision 'prec'), on nodes of 'gpn' GPUs (docs/formats/
 * export.md, "Plan view").  Call after z->replica_rps[wi] is set.
 */
static void record_serve_layout (struct plan_sizing *z, size_t wi,
                                  const struct gp_infer_option *best,
                                  const char *prec, int gpn)
{
    struct gp_plan_wl_plan *p = &z->wl[wi];
    int per = best->gpus_per_replica > 0 ? best->gpus_per_replica : 1;
    p->sized = 1;
    p->tp = best->tp > 0 ? best->tp : 1;
    p->pp = best->pp > 0 ? best->pp : 1;
    p->ep = best->ep > 0 ? best->ep : 1;
    p->dp = p->cp = p->vpp = 1;
    p->gpus = per;
    p->gpus_per_replica = per;
    p->replica_nodes = gpn > 0 ? (per + gpn - 1) / gpn : 1;
    snprintf (p->serve_precision, sizeof p->serve_precision, "%s", prec);
    snprintf (p->engine, sizeof p->engine, "%s",
              gp_engine_str (best->model.cfg.eng.engine));
    p->replica_rps = z->replica_rps[wi];
    p->max_num_seqs = best->model.cfg.eng.max_batch;
}

/* A service: the serving search at each precision it allows (its list,
 * else its one precision), keeping the cheapest per 1M output tokens,
 * which within one option (one price per GPU) is the fewest whole GPUs
 * at the peak, then the fewest GPU-months over the horizon, then the
 * list's order (docs/formats/plan.md, "precision").
 */
static int size_inference (struct gp_plan_spec *s, struct plan_memo *memo,
                           size_t wi,
                           const struct gp_arch *arch,
                           const struct gp_catalog *cat,
                           const struct gp_plan_option_spec *os,
                           struct plan_sizing *z)
{
    const struct gp_plan_workload *w = &s->workloads[wi];
    double T = (double)z->n_periods;
    double g = w->growth_per_quarter;
    double peak = w->requests_per_s * pow (1 + g, fmax (T - 1, 0) / 3);
    double trough = w->requests_per_s;
    if (g < 0) {
        double x = peak;
        peak = trough;
        trough = x;
    }
    double head = A (s, "inference_headroom");
    size_t np = w->n_precisions > 0 ? w->n_precisions : 1;
    struct gp_infer_option best, o;
    memset (&best, 0, sizeof best);
    int have = 0, pick = 0;
    double best_gm = 0;
    for (size_t k = 0; k < np; k++) {
        const char *prec = w->n_precisions ? w->precisions[k] : w->precision;
        gp_error_t e = {0};
        if (serve_search (s, memo, arch, cat, os, w, prec, peak, trough, &o,
                          &e)
            != 0) {
            z->code = GP_ENOTSUP;
            snprintf (z->text, sizeof z->text, "workloads[%zu]: %s", wi,
                      e.text);
            return -1;
        }
        if (!o.feasible || !(o.size.rate_per_replica > 0)) {
            if (!have && k == 0)
                best = o; /* its reason, when none is feasible */
            continue;
        }
        int per = o.gpus_per_replica > 0 ? o.gpus_per_replica : 1;
        double gm = serve_gpu_months (w, o.size.rate_per_replica * (1 - head),
                                      per, z->n_periods);
        if (!have || o.gpus_whole < best.gpus_whole
            || (o.gpus_whole == best.gpus_whole && gm < best_gm - 1e-9)) {
            best = o;
            best_gm = gm;
            pick = (int)k;
            have = 1;
        }
    }
    if (!have) {
        z->code = GP_EINFEASIBLE;
        snprintf (z->text, sizeof z->text,
                  "workloads[%zu]: %s cannot serve %s within the SLOs: %s",
                  wi, os->accel_id, w->model, best.reason);
        return -1;
    }
    if (z->n_services++ == 0)
        snprintf (z->first_serve_precision, sizeof z->first_serve_precision,
                  "%s", w->n_precisions ? w->precisions[pick] : w->precision);
    int per = best.gpus_per_replica > 0 ? best.gpus_per_replica : 1;
    double rate = best.size.rate_per_replica;
    z->job_gpus[wi] = per;
    z->job_s[wi] = 0;
    z->replica_rps[wi] = rate * (1 - head);
    record_serve_layout (z, wi, &best,
                         w->n_precisions ? w->precisions[pick]
                                         : w->precision,
                         os->gpus_per_node);
    for (size_t t = 0; t < z->n_periods; t++) {
        double gpus = gp_plan_service_gpus (w, z, wi, t);
        z->demand[t] += gpus;
        z->steady[t] += gpus;
        z->service[t] += gpus;
    }
    if (z->mtok_gpu_hours == 0) {
        /* GPU-hours per 1M output tokens at the planned replica rate. */
        double tok_h = rate * (1 - head) * w->output_tokens * 3600;
        z->mtok_gpu_hours = per * 1e6 / tok_h;
    }
    return 0;
}

/* Add what 'w' added to z->demand since 'before' to z->spot_ok when it
 * tolerates preemption.
 */
static void add_spot_ok (struct plan_sizing *z,
                         const struct gp_plan_workload *w,
                         const double *before)
{
    if (!gp_plan_wl_allows_spot (w))
        return;
    for (size_t t = 0; t < z->n_periods; t++)
        z->spot_ok[t] += z->demand[t] - before[t];
}

/* A scale row's value in force, marked used only when overridden (as
 * sample.c's in_force does), so a plan that leaves it alone lists it not.
 */
static double scale_in_force (struct gp_plan_spec *s, const char *key)
{
    struct gp_assumption *a = gp_plan_assume_find (s, key);
    if (!a)
        return 1;
    if (a->overridden)
        a->used = 1;
    return a->value;
}

void gp_plan_size_compute (struct gp_plan_spec *s,
                        struct plan_memo *memo,
                        const struct gp_catalog *cat,
                        const struct gp_zoo *zoo,
                        const struct gp_plan_option_spec *os,
                        double mfu,
                        size_t n_periods,
                        struct plan_sizing *z)
{
    memset (z, 0, sizeof *z);
    z->n_periods = n_periods;
    z->traffic = scale_in_force (s, "traffic_scale");
    z->growth = scale_in_force (s, "growth_scale");
    z->scaled = 1;
    if (!zoo) {
        z->code = GP_ENOTSUP;
        snprintf (z->text, sizeof z->text, "no model zoo");
        return;
    }
    long long max_job = 0;
    double trace_extra = 0; /* traces' concurrent peak over their mean */
    for (size_t i = 0; i < s->n_workloads; i++) {
        const struct gp_plan_workload *w = &s->workloads[i];
        snprintf (z->wl[i].workload, sizeof z->wl[i].workload, "%s",
                  w->name);
        z->wl[i].kind = w->kind;
        /* What this workload adds to the demand (for spot_ok). */
        double before[GP_PLAN_MAX_PERIODS];
        memcpy (before, z->demand, sizeof before);
        if (w->kind == GP_WL_RECURRING && w->trace_jobs) {
            /* A trace is one period of the workload, replayed back to
             * back: its GPU-hours over its period give the GPUs busy on
             * average, the same every month; its largest job is the job
             * size (cost.md, "Workloads given as a trace").
             */
            double gpus = w->trace_gpu_hours / (w->trace_span_s / 3600);
            add_busy (z->demand, z->n_periods, 0, (double)z->n_periods, gpus);
            add_busy (z->steady, z->n_periods, 0, (double)z->n_periods, gpus);
            z->job_gpus[i] = w->trace_max_gpus;
            z->job_s[i] = 0;
            trace_extra += fmax (w->trace_peak_gpus - gpus, 0);
            if ((long long)z->job_gpus[i] > max_job)
                max_job = (long long)z->job_gpus[i];
            add_spot_ok (z, w, before);
            continue;
        }
        const struct gp_arch *a = gp_zoo_find (zoo, w->model, NULL);
        if (!a) {
            z->code = GP_ENOTSUP;
            snprintf (z->text, sizeof z->text,
                      "workloads[%zu].model: not in the zoo", i);
            return;
        }
        int rc = w->kind == GP_WL_INFERENCE
                     ? size_inference (s, memo, i, a, cat, os, z)
                     : size_training (s, memo, i, a, cat, os, mfu, z);
        if (rc != 0)
            return;
        add_spot_ok (z, w, before);
        if ((long long)z->job_gpus[i] > max_job)
            max_job = (long long)z->job_gpus[i];
    }
    /* Provision for the peak of concurrent use: the month-average demand,
     * each training run at full size on top of the services and
     * recurring work of its months, and each recurring job at full size
     * beside the services (always on) of every month, so that its job
     * fits at all.
     */
    double peak = (double)max_job;
    for (size_t t = 0; t < n_periods; t++)
        peak = fmax (peak, z->demand[t] + trace_extra);
    double svc[GP_PLAN_MAX_PERIODS] = {0};
    for (size_t i = 0; i < s->n_workloads; i++)
        if (s->workloads[i].kind == GP_WL_INFERENCE)
            for (size_t t = 0; t < n_periods; t++)
                svc[t] += gp_plan_service_gpus (&s->workloads[i], z, i, t);
    for (size_t i = 0; i < s->n_workloads; i++) {
        const struct gp_plan_workload *w = &s->workloads[i];
        if (w->kind == GP_WL_RECURRING) {
            for (size_t t = 0; t < n_periods; t++)
                peak = fmax (peak, z->job_gpus[i] + svc[t]);
            continue;
        }
        if (w->kind != GP_WL_TRAINING)
            continue;
        double end = w->start_month + z->job_s[i] / MONTH_S;
        for (size_t t = 0; t < n_periods; t++)
            if ((double)t + 1 > w->start_month && (double)t < end)
                peak = fmax (peak, z->job_gpus[i] + ceil (z->steady[t]));
    }
    int gpn = os->gpus_per_node;
    z->peak_gpus = (long long)ceil (peak / gpn - 1e-9) * gpn;
    snprintf (z->basis, sizeof z->basis,
              "training planner (layout search, reliability) and inference "
              "planner (SLO replica sizing) on %s, %d per node",
              os->accel_id, gpn);
}
