/* plan_private.h - shared between the files of the plan module. */
#ifndef GPUPLAN_PLAN_PRIVATE_H
#define GPUPLAN_PLAN_PRIVATE_H

#include "gpuplan/cost.h"
#include "gpuplan/defaults.h"
#include "gpuplan/plan.h"
#include "gpuplan/train.h"

/* A planning month: a twelfth of a 365-day year. */
#define HOURS_PER_MONTH (GP_HOURS_PER_YEAR / 12)
#define MONTH_S (HOURS_PER_MONTH * 3600)

void gp_plan_assume_defaults (struct gp_plan_spec *s);
struct gp_assumption *gp_plan_assume_find (struct gp_plan_spec *s,
                                        const char *key);
size_t gp_plan_assume_keys (const struct gp_plan_spec *s,
                         const char **keys,
                         size_t max);
/* The registry's values with the spec's assumptions in force (for the
 * models the plan calls); does not mark the assumptions used.
 */
void gp_plan_assume_to_defaults (const struct gp_plan_spec *s,
                              struct gp_defaults *d);

struct gp_zoo;

/* What the planners say about the portfolio on one accelerator/node shape
 * (compute.c, the integration layer).
 */
struct plan_sizing {
    int code;                   /* 0, GP_ENOTSUP, GP_EINFEASIBLE */
    char text[GP_PLAN_TEXT];
    double demand[GP_PLAN_MAX_PERIODS];   /* GPUs busy per month */
    double steady[GP_PLAN_MAX_PERIODS];   /* of which services and
                                           * recurring runs */
    size_t n_periods;
    long long peak_gpus;        /* to provision: whole nodes at the peak */
    double ckpt_interval_s;     /* reliability model's interval, 0 = ? */
    double scale_out_bw;        /* per GPU, given to the training planner */
    double run_gpu_hours;       /* first training run, 0 = none */
    double run_days;
    double mtok_gpu_hours;      /* GPU-hours per 1M output tokens, 0 = ? */
    double job_gpus[GP_PLAN_MAX_WORKLOADS];  /* GPUs per job */
    double job_s[GP_PLAN_MAX_WORKLOADS];     /* seconds per job */
    /* scale-out bandwidth per GPU each training job's chosen layout needs
     * (step time within comm_slowdown_max of an unlimited fabric), and
     * its slowdown at the option's bandwidth; 0 = none needed
     */
    double need_bw[GP_PLAN_MAX_WORKLOADS];
    double slowdown[GP_PLAN_MAX_WORKLOADS];
    double need_bw_max;
    int need_bw_workload;       /* the workload that sets need_bw_max */
    double slowdown_max;
    char basis[GP_PLAN_TEXT];
    /* of demand[t], the GPUs of workloads that tolerate preemption
     * (gp_plan_wl_allows_spot; cost.md, "Spot and preemption") */
    double spot_ok[GP_PLAN_MAX_PERIODS];
    /* services: requests/s one replica carries at the planned headroom
     * (rate x (1 - inference_headroom)); 0 for other workloads
     */
    double replica_rps[GP_PLAN_MAX_WORKLOADS];
    /* plan.traffic_scale and plan.growth_scale in force when sized (1, 1
     * unless a spec or a sample sets them; docs/model/uncertainty.md);
     * read only when 'scaled' (a sizing built by hand leaves both 1) */
    double traffic, growth;
    int scaled;
    double service[GP_PLAN_MAX_PERIODS];  /* of steady, the services */
    /* the rules that sized it (gp_plan_rules): deadline runs and the
     * first one's global batch in tokens, whether the spec fixed it;
     * services and the first one's chosen serving precision
     */
    int n_deadline_runs;
    double first_batch_tokens;
    int first_batch_fixed;
    int n_services;
    char first_serve_precision[16];
    /* per workload: the layout the planners chose (gp_plan_option.wl) */
    struct gp_plan_wl_plan wl[GP_PLAN_MAX_WORKLOADS];
    /* In-network reduction on the option's InfiniBand switch (sharp.c):
     * its SHARP all-reduce share (0 = none), and per training job the
     * chosen layout's step without and with SHARP (0 = not timed)
     */
    double sharp_share;
    double step_plain_s[GP_PLAN_MAX_WORKLOADS];
    double step_sharp_s[GP_PLAN_MAX_WORKLOADS];
};

/* Requests/s of service 'w' in month 't' (0-based): requests_per_s grown
 * by growth_per_quarter, (1 + g)^(t / 3).  The one monthly rate rule of
 * the demand (gp_plan_service_gpus), the serving search's comparison and
 * the day view (gp_plan_service_day).
 */
double gp_plan_service_rate (const struct gp_plan_workload *w, size_t t);

/* GPUs service 'wi' (workload 'w') holds in month 't': its replicas at
 * that month's traffic (requests_per_s grown by growth_per_quarter),
 * at least one, x GPUs per replica; 0 when 'wi' is not a sized service.
 * The one rule for both the demand (compute.c) and the simulation.
 */
double gp_plan_service_gpus (const struct gp_plan_workload *w,
                             const struct plan_sizing *z, size_t wi,
                             size_t t);

/* Size the portfolio of 's' on the accelerator and node shape of 'os'
 * with the training planner's GEMM efficiency scaled by 'mfu' (1 = as
 * calibrated).  Never fails: problems land in out->code / out->text.
 */
struct plan_memo;
void gp_plan_size_compute (struct gp_plan_spec *s,
                        struct plan_memo *memo,
                        const struct gp_catalog *cat,
                        const struct gp_zoo *zoo,
                        const struct gp_plan_option_spec *os,
                        double mfu,
                        size_t n_periods,
                        struct plan_sizing *out);

struct gp_train_model;
struct gp_train_job;
struct gp_train_hw;
struct gp_layout;

/* The scale-out bandwidth per GPU (byte/s) the training layout 'l' needs
 * (compute.c; docs/model/infrastructure.md, "Bandwidth needed vs given"):
 * the bytes its step moves over each GPU's NIC, read from the training
 * model, over (1 + tol) x its step time on an unlimited fabric.  Sets
 * *slowdown (may be NULL) to step(hw) / step(unlimited) - 1 and *bytes
 * (may be NULL) to the bytes per GPU per step.  0 when the traffic stays
 * in the scale-up domain.
 */
double gp_plan_scale_out_need (const struct gp_train_model *m,
                               const struct gp_train_job *job,
                               const struct gp_train_hw *hw,
                               const struct gp_layout *l, double tol,
                               double *slowdown, double *bytes);

struct gp_accel;

/* GPUs per on-prem node when the spec gives none (onprem.c): the
 * catalog's host_accelerators, else the scale-up domain up to 8; 8 for a
 * NULL accelerator.
 */
int gp_plan_node_gpus (const struct gp_accel *a);

/* Decision-log lines of a fleet and baseline read from files (none when
 * 'existing' names no file).
 */
struct plan_ctx;
void gp__plan_existing_log (struct plan_ctx *c);
/* 'existing:' naming a cluster spec and/or a usage file (existing.c;
 * docs/formats/plan.md, "Today's cluster from files"): fills 'e' from
 * the mapping 'j' of 'doc'.  0, or an error naming file:line:col and the
 * key (the files' own errors quoted).
 */
int gp__plan_existing_files (const struct gp_doc *doc, const struct json_t *j,
                            const struct gp_catalog *cat,
                            struct gp_plan_existing *e, gp_error_t *err);

/* 1 and '*q' set when the dotted plan-spec key 'key' (as --set and
 * --sweep take it, e.g. "constraints.budget", "workloads.chat.ttft")
 * names a field with a unit (GP_F_QUANTITY); 0 otherwise (a count, a
 * share, a registry key or an unknown key).
 */
int gp__plan_key_quantity (const char *key, enum gp_quantity *q);

/* Multi-tenant behaviour of the portfolio on one option (simulate.c,
 * the cluster simulator): fills o->sim, o->utilization and the per-team
 * waits.
 */
/* 's' is the run's working copy: the restart and checkpoint assumptions
 * the simulation reads are marked used.
 */
void gp_plan_simulate (struct gp_plan_spec *s,
                       const struct gp_plan_option_spec *os,
                       const struct plan_sizing *sz,
                       struct gp_plan_option *o);

/* Memo of the planners' answers within one run (memo.c): a search on
 * the same inputs is never run twice, across options on one accelerator
 * and across the sensitivity rows.  A NULL memo disables it.
 */
struct plan_serve_key {       /* zeroed before filling: compared bytewise */
    const void *arch, *accel;
    int eng, weight_dtype;
    double in_len, out_len, ttft_s, tpot_s, peak, trough, head;
};
struct plan_serve_memo;
struct plan_train_memo;
struct plan_memo {
    struct plan_serve_memo *serve;
    size_t n_serve;
    struct plan_train_memo *train;
    size_t n_train;
    size_t hits, misses;        /* for the benchmark and the tests */
};
struct gp_infer_option;
/* Look 'key' up: 0 with *best, *e and *rc copied when found, -1 when not. */
int gp_plan_memo_serve_get (const struct plan_memo *m,
                            const struct plan_serve_key *key,
                            struct gp_infer_option *best, gp_error_t *e,
                            int *rc);
/* Remember an answer (silently skipped when out of memory). */
void gp_plan_memo_serve_put (struct plan_memo *m,
                             const struct plan_serve_key *key,
                             const struct gp_infer_option *best,
                             const gp_error_t *e, int rc);
/* The training planner's answers (compute.c): a deadline sizing
 * (gp_train_size_deadline, kind 1, 'days') or the fastest layout on 'n'
 * GPUs with its goodput (kind 2), under the exact model, job, hardware and
 * reliability inputs.  Keys are zeroed before filling (bytewise compare).
 */
struct plan_train_key {
    int kind, n;
    double days;
    struct gp_train_model m;
    struct gp_train_job job;
    struct gp_train_hw hw;
    struct gp_train_rel_params rp;
};
struct plan_train_val {
    int ok;                     /* kind 1: found; kind 2: a layout fits */
    double rate, interval_s;    /* kind 2 */
    struct gp_train_result tr;
    struct gp_train_size sz;    /* kind 1 */
};
/* 0 with *val copied when found, -1 when not. */
int gp_plan_memo_train_get (const struct plan_memo *m,
                            const struct plan_train_key *key,
                            struct plan_train_val *val);
void gp_plan_memo_train_put (struct plan_memo *m,
                             const struct plan_train_key *key,
                             const struct plan_train_val *val);
void gp_plan_memo_fini (struct plan_memo *m);

/* Perturbations for the sensitivity analysis (1 = none). */
struct plan_perturb {
    double price;               /* cloud prices and capex */
    double demand;              /* GPU demand */
    double failure;             /* interruption rate */
    double power_price;         /* electricity */
    int mfu;                    /* 0 as calibrated, 1 low, 2 high */
    /* the sampled plans (sample.c; docs/model/uncertainty.md) */
    double capex;               /* on-prem capex, on top of 'price' */
    double eff;                 /* training efficiency factor (the
                                 * sizing cache c->sz is kept per value
                                 * by the caller that changes it) */
};

#define PLAN_NO_PERTURB ((struct plan_perturb){1, 1, 1, 1, 0, 1, 1})

/* One evaluation of the plan's options (run.c): the run's own copy of the
 * spec (its assumptions get marked used), the catalog, the result that
 * records sources (NULL in the sensitivity runs) and the perturbation.
 */
struct plan_ctx {
    struct gp_plan_spec *s;
    const struct gp_catalog *cat;
    struct gp_plan_result *r;
    struct plan_perturb pt;
    struct plan_perturb base;   /* the scale rows in force (sample.c);
                                 * zeroed = none set */
    struct gp_zoo *zoo;
    /* planner answers per option spec and MFU setting, computed once */
    struct plan_sizing *sz[GP_PLAN_MAX_OPTION_SPECS][3];
    struct plan_memo memo;      /* planner searches, computed once */
    int failed;                 /* an allocation failed while recording */
};

/* Functions shared by the files of the plan module (internal: not in the
 * public headers; gp_ prefixed as every symbol the library exports).
 */

/* run.c: shared helpers of the evaluation */

/* The planners' answer for option spec 'spec_index' under c->pt.mfu
 * (cached); NULL when out of memory.
 */
const struct plan_sizing *gp_plan_sizing_of (struct plan_ctx *c,
                                             int spec_index,
                                             size_t n_periods);
/* Assumption 'key' (marked used); 0 when unknown. */
double gp_plan_assumption (struct plan_ctx *c, const char *key);
/* Catalog part value 'key' of part 'id', recorded as a source; 0 when
 * the catalog has none.
 */
double gp_plan_part (struct plan_ctx *c, const char *id, const char *key);
/* Record a catalog value the plan used, once per 'what' (no-op when
 * c->r is NULL).
 */
void gp_plan_add_source (struct plan_ctx *c, const char *what, double value,
                         const char *unit, const char *source,
                         const char *date);
/* Append a decision log line (at most GP_PLAN_TEXT - 1 characters). */
void gp_plan_log (struct plan_ctx *c, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* Whether a part of one of the 'n' options ran out of memory (run.c). */
int gp__plan_options_oom (const struct gp_plan_option *opts, size_t n);
void gp_plan_status_set (struct gp_part_status *st, int code, const char *fmt,
                         ...) __attribute__ ((format (printf, 3, 4)));

/* sharp.c: the fabric choice of an on-prem option with an InfiniBand
 * fabric: the training runs' step-time gain with SHARP-capable switches
 * and the break-even premium per switch (docs/model/infrastructure.md,
 * "In-network reduction: the fabric choice").  Needs the option's cost
 * per GPU-hour; never fails (the reason lands in o->sharp_note).
 */
void gp__plan_sharp (struct plan_ctx *c, const struct gp_plan_option_spec *os,
                     struct gp_plan_option *o);

/* onprem.c */
int gp_plan_node_power_w (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os, double *w);
int gp_plan_node_capex_usd (struct plan_ctx *c,
                            const struct gp_plan_option_spec *os, double *usd);
void gp_plan_eval_onprem (struct plan_ctx *c,
                          const struct gp_plan_option_spec *os,
                          struct gp_plan_option *o);

/* cloud.c */
const char *gp_plan_cloud_fs_row (const char *cloud);
void gp_plan_eval_cloud (struct plan_ctx *c, struct gp_plan_option *o);
/* The most GPUs option 'o' rents in a month, in whole instances: a
 * cloud option's fleet; a burst option's demand above the existing
 * fleet's free GPUs (docs/model/cost.md, "Cloud burst").
 */
long long gp_plan_rented_peak (const struct plan_ctx *c,
                               const struct gp_plan_option *o);
/* Decision-log lines for the cloud options: each flagged or undated
 * price used, and once the options whose obtainable capacity has no
 * published figure.
 */
void gp_plan_log_cloud (struct plan_ctx *c);

/* constraints.c */
void gp_plan_check_constraints (struct plan_ctx *c, struct gp_plan_option *o);
int gp_plan_availability_spares (struct plan_ctx *c,
                                 const struct gp_plan_option_spec *os,
                                 const struct plan_sizing *z,
                                 struct gp_plan_option *o);
void gp_plan_queue_check (struct plan_ctx *c, struct gp_plan_option *o);

/* quotas.c */
void gp_plan_quotas (struct plan_ctx *c, struct gp_plan_option *o);

/* evaluate.c: every option of the spec into 'out' (room for as many as
 * gp_plan_eval_all (c, NULL) counts); returns their number.
 */
size_t gp_plan_eval_all (struct plan_ctx *c, struct gp_plan_option *out);

/* recommend.c */
int gp_plan_pick (const struct gp_plan_option *o, size_t n);
void gp_plan_decide (struct plan_ctx *c);

/* sensitivity.c */
void gp_plan_sensitivity (struct plan_ctx *c);

/* sample.c: the perturbation the registry's scale rows in force set
 * (plan.cloud_price_scale, capex_scale, power_price_scale, demand_scale,
 * train_efficiency_scale; 1 each unless a spec or flag overrides them),
 * stored in c->base and c->pt.  Reads the rows without marking them
 * used unless overridden, so a plan that leaves them alone lists them
 * not.
 */
void gp__plan_perturb_in_force (struct plan_ctx *c);

/* The tornado of a sampled plan (sensitivity.c): replace r->sens with
 * the 'n' rows of 'rows' (one per sampled row of the registry, each
 * alone at its P10 and P90, sample.c), largest swing of the recommended
 * option's TCO first.
 */
void gp__plan_sens_from_samples (struct gp_plan_result *r,
                                 const struct gp_sens_row *rows, size_t n);

#endif
