/* gpuplan/plan.h - the capacity plan: a team portfolio (training runs,
 * recurring fine-tunes and experiments, inference services), constraints
 * and candidate designs (on-prem builds, cloud fleets under each pricing
 * model) in; per design the compute, network, storage, power, cost,
 * supporting infrastructure and multi-tenancy figures out, plus the
 * recommendation, a decision log and a sensitivity analysis.
 *
 * The spec format is documented in docs/formats/plan.md; the model behind
 * every figure in docs/model/cost.md and docs/model/infrastructure.md.
 * Compute sizing comes from the training and inference planners and the
 * multi-tenant behaviour from the cluster simulator; where one of those is
 * not available the figure is reported as not yet supported (GP_ENOTSUP),
 * never replaced by a stand-in number.
 */
#ifndef GPUPLAN_PLAN_H
#define GPUPLAN_PLAN_H

#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/defaults.h"
#include "gpuplan/error.h"
#include "gpuplan/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_PLAN_NAME 64
#define GP_PLAN_TEXT 256
#define GP_PLAN_MAX_TEAMS 32
#define GP_PLAN_MAX_WORKLOADS 64
#define GP_PLAN_MAX_OPTION_SPECS 32
#define GP_PLAN_MAX_PERIODS 120   /* months: horizon up to 10 years */
/* Every registry row can be a plan assumption: none is ever dropped. */
#define GP_PLAN_MAX_ASSUMPTIONS GP_DEF__COUNT
#define GP_PLAN_MAX_SENS 12
#define GP_PLAN_MAX_PRECISIONS 3   /* bf16, fp16, fp8 */
#define GP_PLAN_DAY_HOURS 24       /* periods of a service's daily profile */

/* ------------------------------ the spec ------------------------------ */

struct gp_plan_team {
    char name[GP_PLAN_NAME];
    int priority;
    double weight;              /* fair-share weight (default 1) */
    double quota_share;         /* wished share of the cluster, 0 = none */
};

struct gp_jobset;

enum gp_wl_kind {
    GP_WL_TRAINING,             /* one run: tokens by a deadline */
    GP_WL_RECURRING,            /* fine-tunes / experiments: runs/month */
    GP_WL_INFERENCE,            /* a service: traffic, growth, SLOs */
};

/* The spec keyword of 'k' ("training", "recurring", "inference"); "?" for
 * a value outside the enum.  Static storage.
 */
const char *gp_wl_kind_str (enum gp_wl_kind k);

struct gp_plan_workload {
    enum gp_wl_kind kind;
    char name[GP_PLAN_NAME];
    char team[GP_PLAN_NAME];
    char model[GP_PLAN_NAME];   /* model zoo id */
    double params;              /* total parameters (from the zoo), 0 = ? */
    char precision[16];         /* bf16, fp8 */
    /* training and recurring */
    double tokens;              /* per run */
    double deadline_s;          /* training: wall-clock limit */
    double start_month;         /* training: month the run starts */
    double runs_per_month;      /* recurring */
    double seq_len;             /* tokens per sequence */
    double global_batch;        /* sequences per step (0 = planner picks) */
    double dataset_bytes;       /* data kept hot for this workload */
    char trace[GP_PLAN_TEXT];   /* recurring: a job trace instead ("") */
    /* The trace, read when the spec loads (path relative to the spec's
     * directory; docs/formats/traces.md): one period of the workload,
     * replayed back to back over the horizon (docs/model/cost.md).
     */
    struct gp_jobset *trace_jobs;
    double trace_period_s;      /* 0 = first submit to last job end */
    double trace_gpu_hours;     /* per period: sum gpus x milli x hours */
    double trace_span_s;        /* the period used */
    int trace_max_gpus;         /* largest job */
    double trace_peak_gpus;     /* most GPUs its jobs hold at once */
    /* inference */
    double requests_per_s;      /* at the start of the horizon */
    double input_tokens, output_tokens;   /* per request */
    double growth_per_quarter;  /* traffic growth, 0.1 = +10 %/quarter */
    double ttft_s, tpot_s;      /* SLO targets (p99) */
    int line, col;              /* position in the spec */
    /* May this workload run on spot / preemptible capacity?  0 = by kind
     * (recurring fine-tunes and experiments: yes; deadline training and
     * inference services: no), 1 = yes (spec allow_spot: true), -1 = no
     * (allow_spot: false).  docs/model/cost.md, "Spot and preemption".
     */
    int allow_spot;
    char engine[16];            /* inference: serving engine (gp_engine_parse
                                 * names; default vllm) */
    /* inference: the serving precisions the service may use (spec
     * 'precision: [fp8, bf16]'); the sizing picks the cheapest per 1M
     * output tokens among them (docs/formats/plan.md).  n_precisions 0 =
     * just 'precision' (a single value); else 'precision' is the first.
     */
    char precisions[GP_PLAN_MAX_PRECISIONS][16];
    size_t n_precisions;
    /* inference: traffic over one day (spec 'profile', docs/formats/
     * plan.md), per hour from 00:00, as shares of requests_per_s (the
     * day's busiest hour is 1).  n_day_profile 0 = flat: requests_per_s
     * all day.  The plan provisions the peak; the profile sets the
     * replicas per hour the serving export's autoscaler follows.
     */
    double day_profile[GP_PLAN_DAY_HOURS];
    size_t n_day_profile;
};

/* 1 when 'w' tolerates preemption (its allow_spot, else its kind). */
int gp_plan_wl_allows_spot (const struct gp_plan_workload *w);

enum gp_option_kind {
    GP_OPT_ONPREM,
    GP_OPT_CLOUD,
    /* Cloud burst (docs/model/cost.md, "Cloud burst"): the existing
     * fleet kept for the whole horizon, the demand above its free GPUs
     * rented from the option's cloud instance under one pricing model.
     */
    GP_OPT_BURST,
};

/* The spec keyword of 'k' ("onprem", "cloud", "burst"); "?" outside the
 * enum.
 * Static storage.
 */
const char *gp_option_kind_str (enum gp_option_kind k);

/* A candidate as written in the spec; one spec gives one design option per
 * pricing model for clouds.
 */
struct gp_plan_option_spec {
    char name[GP_PLAN_NAME];
    enum gp_option_kind kind;
    char accel_id[GP_PLAN_NAME];
    const struct gp_accel *accel;       /* resolved */
    char instance[GP_PLAN_NAME];        /* cloud */
    char region[GP_PLAN_NAME];          /* cloud; "" = first in catalog */
    const struct gp_instance *inst;     /* resolved (cloud) */
    int gpus_per_node;
    long long gpus;             /* fixed size; 0 = sized from workloads */
    double node_w;              /* 0 = from the catalog */
    double node_capex;          /* USD; 0 = from the catalog */
    char switch_id[32];         /* catalog part id of the fabric switch */
    double oversub;
    int nics_per_gpu;
    int liquid;                 /* cooling: 1 liquid, 0 air */
    unsigned pricing;           /* bit (1 << enum gp_pricing) */
    int line, col;
    long long max_gpus;         /* cloud: GPUs obtainable at once under any
                                 * pricing model (spec); 0 = the capacity
                                 * catalog's, else no cap */
};

struct gp_plan_constraints {
    double budget_usd;          /* over the horizon; 0 = none */
    double power_w;             /* datacenter IT power; 0 = none */
    double rack_w_air;          /* per rack; 0 = catalog default */
    double rack_w_liquid;
    int floor_racks;            /* 0 = none */
    char clouds[4][16];         /* allowed clouds; empty = all */
    size_t n_clouds;
    unsigned terms;             /* allowed reservations: bit 1 = 1y, 2 = 3y;
                                 * default both */
    double min_availability;    /* 0 = none */
};

/* A number the plan uses that is not in the catalog: a documented
 * assumption with its source (docs/model/cost.md), overridable in the
 * spec's 'assumptions:' mapping.
 */
struct gp_assumption {
    const char *key;
    double value;
    const char *unit;
    const char *source;
    int overridden;             /* set by the spec */
    int used;                   /* read while planning */
};

/* A catalog value the plan used, with its source (for the report). */
struct gp_plan_source {
    char what[GP_PLAN_TEXT];    /* "qm9700 ports" */
    double value;
    char unit[32];
    char source[GP_PLAN_TEXT];
    char date[96];
};

/* Today's cluster (spec key 'existing:'; docs/formats/plan.md): owned
 * GPUs of one accelerator and their age.  An onprem option of the same
 * accelerator expands it: the owned GPUs are part of its fleet, and only
 * the rest is bought (docs/model/cost.md, "An existing fleet").
 */
struct gp_plan_existing {
    char accel_id[GP_PLAN_NAME];        /* "" = no existing fleet */
    const struct gp_accel *accel;       /* resolved */
    long long gpus;
    double age_years;           /* age of the owned hardware today */
    int line, col;
    /* existing.baseline: GPUs of the owned fleet held by work outside the
     * portfolio, rounded up to whole nodes (a value below 1 in the spec
     * is a share of 'gpus', 1 or more a GPU count); the portfolio uses
     * gpus - baseline_gpus of them.  0 = none.
     */
    double baseline;            /* as written */
    long long baseline_gpus;    /* resolved, whole nodes */
    /* existing.cluster / existing.usage (docs/formats/plan.md, "Today's
     * cluster from files"): the fleet from a cluster spec's pools, the
     * baseline from observed usage.  "" = not used.
     */
    char cluster_file[GP_PLAN_TEXT];
    char usage_file[GP_PLAN_TEXT];
    double usage_hours;         /* the usage period */
    double usage_gpu_hours;     /* GPU-hours of it on the fleet */
    size_t n_usage_teams;       /* the last slot sums the rest ("other")
                                   when there are more teams than fit */
    struct gp_plan_usage_team {
        char team[GP_PLAN_NAME];
        double mean_gpus;       /* GPU-hours / period hours */
    } usage_teams[GP_PLAN_MAX_TEAMS];
};

struct gp_plan_spec {
    char name[GP_PLAN_NAME];
    char file[GP_PLAN_TEXT];
    double horizon_years;
    char policy[32];            /* scheduling policy for the simulation */
    struct gp_plan_team teams[GP_PLAN_MAX_TEAMS];
    size_t n_teams;
    struct gp_plan_workload workloads[GP_PLAN_MAX_WORKLOADS];
    size_t n_workloads;
    struct gp_plan_option_spec options[GP_PLAN_MAX_OPTION_SPECS];
    size_t n_options;
    struct gp_plan_constraints cons;
    struct gp_assumption assume[GP_PLAN_MAX_ASSUMPTIONS];
    size_t n_assume;
    struct gp_plan_existing existing;   /* gpus 0 = none */
};

/* Load a plan spec from 'doc', resolving accelerators, instances and models
 * against 'cat' (and the model zoo).  Returns a spec the caller frees with
 * gp_plan_spec_destroy(), or NULL with 'err' naming file:line:col and the
 * field (GP_EINVAL / GP_ENOTFOUND).  The spec borrows the accelerator and
 * instance rows of 'cat', which must outlive it; trace files named by
 * workloads are read now, relative to the document's directory.
 */
struct gp_plan_spec *gp_plan_spec_from_doc (const struct gp_doc *doc,
                                            const struct gp_catalog *cat,
                                            gp_error_t *err);
/* Free 's' and the traces it holds; NULL is a no-op. */
void gp_plan_spec_destroy (struct gp_plan_spec *s);

/* The value of assumption 'key' of 's' in its unit (struct gp_assumption),
 * the spec's override when it set one; marks the entry used, so 's' is
 * written.  NAN when 's' is NULL or has no such key.
 */
double gp_plan_assume (struct gp_plan_spec *s, const char *key);

/* ------------------------------ the result ---------------------------- */

/* Status of one part of an option's figures. */
struct gp_part_status {
    int code;                   /* 0, GP_ENOTSUP, GP_EINFEASIBLE, ... */
    char text[GP_PLAN_TEXT];    /* why, when code != 0 */
};

/* Where an option's GPU count comes from (gp_plan_option.basis). */
enum gp_plan_basis {
    GP_BASIS_NONE,              /* not sized: compute.code says why */
    GP_BASIS_PLANNERS,          /* the planners sized the portfolio */
    GP_BASIS_FLEET_CHECKED,     /* the spec's fleet size, checked against
                                 * the planners' demand (sized_gpus) */
    GP_BASIS_FLEET_UNSIZED,     /* the spec's fleet size; the planners could
                                 * not size the workloads (basis_why) */
};

/* Why an option is infeasible (gp_plan_option.infeasible); the first
 * constraint that fails, in this order of checking.
 */
enum gp_plan_infeasible {
    GP_INFEAS_NONE,
    GP_INFEAS_CLOUD,            /* cloud not in constraints.clouds */
    GP_INFEAS_COMPUTE,          /* compute.code == GP_EINFEASIBLE: deadline
                                 * or SLO not met, fleet too small, too few
                                 * spare nodes for min_availability */
    GP_INFEAS_POWER,            /* IT power over constraints.power */
    GP_INFEAS_RACKS,            /* racks over constraints.floor_racks */
    GP_INFEAS_PART,             /* power, network or cost figure infeasible
                                 * (e.g. no catalog price) */
    GP_INFEAS_UNFINISHED,       /* simulated jobs never finish */
    GP_INFEAS_BUDGET,           /* TCO over constraints.budget */
    GP_INFEAS_SPOT_INTOLERANT,  /* a spot option whose demand has no part
                                 * that tolerates preemption */
    GP_INFEAS_CAPACITY,         /* the fleet needs more GPUs than the cloud
                                 * lets one obtain (max_gpus, capacity
                                 * catalog) */
};

/* The queueing check's verdict (gp_plan_option.queue). */
enum gp_plan_queue {
    GP_QUEUE_OK,                /* no team over a limit, or not simulated */
    GP_QUEUE_P95_WAIT,          /* a team's p95 wait > queue_p95_wait_limit_h */
    GP_QUEUE_MAX_WAIT,          /* a team's longest wait >
                                 * queue_max_wait_limit_h */
};

/* Why an option's quotas differ from what the teams asked
 * (gp_plan_option.quota_trim; docs/model/infrastructure.md,
 * Multi-tenancy).
 */
enum gp_plan_quota_trim {
    GP_QUOTA_AS_ASKED,          /* each quota = asked share x GPUs */
    GP_QUOTA_TRIM_OVERSUBSCRIBED,   /* the asked shares add up to more
                                     * than the fleet: each scaled by
                                     * 1 / their sum */
};

struct gp_plan_quota {
    char team[GP_PLAN_NAME];
    long long gpus;             /* nominal quota; the quotas of one option
                                 * add up to at most its GPUs */
    double share;               /* gpus / the option's GPUs */
    double wished_share;        /* asked: the team's quota_share as
                                 * given (or its weight normalised when
                                 * no team gives a quota_share) */
    /* simulated (when o->sim.code == 0) */
    size_t jobs;
    double wait_mean_s, wait_p95_s, wait_max_s;
    double used_share;          /* share of GPU-seconds received */
};

/* The rule that sized an option's GPU count (gp_plan_rules.sizing). */
enum gp_plan_sizing_rule {
    GP_RULE_SIZE_NONE,          /* not sized: compute.code says why */
    GP_RULE_SIZE_PLANNERS,      /* the planners sized the portfolio (the
                                 * training and serving rules below) */
    GP_RULE_SIZE_GIVEN,         /* the spec's fleet size (gpus:), checked
                                 * against the planners where they could
                                 * size it */
};

/* How the planners sized the option's training runs. */
enum gp_plan_train_rule {
    GP_RULE_TRAIN_NONE,         /* no training run with a deadline */
    GP_RULE_TRAIN_CURVE,        /* deadline curve: the fewest GPUs that
                                 * meet the deadline, batch chosen per
                                 * GPU count */
    GP_RULE_TRAIN_CURVE_FIXED_BATCH,   /* the same with the spec's
                                        * global_batch */
};

/* How the planners sized the option's inference services. */
enum gp_plan_serve_rule {
    GP_RULE_SERVE_NONE,         /* no inference service */
    GP_RULE_SERVE_CHEAPEST_MTOK,   /* serving search: cheapest per 1M
                                    * output tokens (a priced cloud
                                    * option) */
    GP_RULE_SERVE_FEWEST_GPUS,  /* serving search: fewest whole GPUs at
                                 * the peak (on-prem: no hourly price) */
};

/* The rule that priced the option. */
enum gp_plan_pricing_rule {
    GP_RULE_PRICE_NONE,         /* not costed */
    GP_RULE_PRICE_ONPREM_TCO,   /* capex, power, staff over the horizon */
    GP_RULE_PRICE_CLOUD,        /* the cloud pricing model
                                 * (gp_plan_option.pricing) */
};

/* How much of an option may run on spot / preemptible capacity. */
enum gp_plan_spot_rule {
    GP_RULE_SPOT_NA,            /* no spot in this pricing model */
    GP_RULE_SPOT_CAPPED,        /* spot capped by the preemption-tolerant
                                 * demand (spot_tolerant_share) */
    GP_RULE_SPOT_NONE_TOLERANT, /* no demand tolerates preemption */
};

/* The rule that gave the option its verdict. */
enum gp_plan_verdict_rule {
    GP_RULE_VERDICT_CHOSEN,     /* lowest TCO of the ranked options */
    GP_RULE_VERDICT_TCO_RANK,   /* ranked, lost on TCO (rank) */
    GP_RULE_VERDICT_REJECTED,   /* a hard constraint failed (rejected_by) */
    GP_RULE_VERDICT_NOT_RANKED, /* not fully costed */
};

/* Which rule decided each of an option's numbers (set by the
 * recommendation from the option's typed state and the planners').
 */
struct gp_plan_rules {
    enum gp_plan_sizing_rule sizing;
    enum gp_plan_train_rule train;
    double train_batch_tokens;  /* GP_RULE_TRAIN_*: the global batch of the
                                 * first deadline run, tokens; 0 = none */
    enum gp_plan_serve_rule serve;
    char serve_precision[16];   /* the first service's chosen serving
                                 * precision; "" = none */
    enum gp_plan_pricing_rule pricing;
    enum gp_plan_spot_rule spot;
    long long cap_gpus;         /* obtainable-capacity cap; 0 = none */
    enum gp_plan_verdict_rule verdict;
    enum gp_plan_infeasible rejected_by;  /* GP_RULE_VERDICT_REJECTED */
    int rank;                   /* TCO rank among the ranked options (1 =
                                 * cheapest after the queueing flag); 0 =
                                 * not ranked */
    unsigned shortfalls;        /* as gp_plan_option.shortfalls */
};

/* The JSON/report keywords of the rule enums ("planners", "given",
 * "deadline_curve", "cheapest_per_mtok", "onprem_tco", "cloud", ...);
 * "?" outside the enum.  Static storage.
 */
const char *gp_plan_sizing_rule_str (enum gp_plan_sizing_rule r);
const char *gp_plan_train_rule_str (enum gp_plan_train_rule r);
const char *gp_plan_serve_rule_str (enum gp_plan_serve_rule r);
const char *gp_plan_pricing_rule_str (enum gp_plan_pricing_rule r);
const char *gp_plan_spot_rule_str (enum gp_plan_spot_rule r);
const char *gp_plan_verdict_rule_str (enum gp_plan_verdict_rule r);
/* The JSON keyword of 'w' ("none", "cloud", "compute", "power",
 * "racks", "part", "unfinished", "budget", "spot_intolerant",
 * "capacity"); "?" outside the enum.  Static storage.
 */
const char *gp_plan_infeasible_str (enum gp_plan_infeasible w);

/* The option's rules in words, one line: "sizing ...; pricing ...;
 * verdict ..." (the decision log's "rules:" line, without the option
 * name), into 'buf' of 'n' bytes.  Returns 'buf'.
 */
char *gp_plan_rules_text (const struct gp_plan_rules *r,
                          const char *pricing_model, char *buf, size_t n);

/* One point of a training run's GPUs-vs-days curve (the deadline
 * sizing's curve, gp_train_size_deadline, kept small for the plan): the
 * run's wall-clock days on 'gpus' GPUs with the fastest batch and layout
 * the planner found at that count.
 */
#define GP_PLAN_CURVE_MAX 16
struct gp_plan_curve_pt {
    long long gpus;
    double days;                /* wall-clock days, goodput included */
    double mfu;                 /* 0..1 */
};

/* What the planners chose for one workload on one option
 * (gp_plan_option.wl[i], i = the workload's index in the spec): the
 * layout that job manifests and serving objects are written from
 * (docs/formats/export.md).  All 0 / "" when not sized.  For a service
 * gpus, tp, pp and ep are one replica's (dp = cp = vpp = 1).
 */
struct gp_plan_wl_plan {
    int sized;                  /* 1 when the planners sized it here */
    char workload[GP_PLAN_NAME];    /* the spec workload's name (set
                                     * whenever the option was sized) */
    enum gp_wl_kind kind;           /* the spec workload's kind */
    /* training and recurring: one run's layout */
    long long gpus;             /* tp x pp x dp x cp */
    int tp, pp, dp, cp, ep, vpp;
    int micro_batch;            /* sequences per micro-batch */
    int grad_accum;             /* micro-batches per step per replica */
    long long global_batch;     /* sequences per step = micro x dp x
                                 * grad_accum */
    double seq_len;             /* tokens per sequence */
    char recompute[16];         /* activation recomputation (train.h) */
    char sharding[16];          /* optimizer/weight sharding (train.h) */
    double step_s;              /* step time */
    double run_days;            /* wall-clock days of one run */
    double ckpt_interval_s;     /* the reliability model's interval */
    /* inference: one replica */
    int gpus_per_replica;       /* whole GPUs: tp x pp */
    int replica_nodes;          /* nodes one replica spans */
    char serve_precision[16];   /* weights */
    char engine[16];
    double replica_rps;         /* requests/s one replica carries at the
                                 * planned headroom */
    int max_num_seqs;           /* the replica's planned concurrent
                                 * sequences */    /* training with a deadline: the sizing's GPUs-vs-days curve, counts
     * ascending and days not increasing (sizes not faster than a smaller
     * one dropped), at most GP_PLAN_CURVE_MAX points with the planned
     * count always among them; n_curve 0 otherwise
     */
    size_t n_curve;
    struct gp_plan_curve_pt curve[GP_PLAN_CURVE_MAX];
};

struct gp_plan_option {
    char name[96];
    enum gp_option_kind kind;
    enum gp_pricing pricing;    /* cloud */
    int spec_index;
    char accel_id[GP_PLAN_NAME];
    char instance[GP_PLAN_NAME];
    char region[GP_PLAN_NAME];
    char cloud[16];
    char price_date[96];        /* cloud: the instance row's price_date */

    /* compute */
    struct gp_part_status compute;
    enum gp_plan_basis basis;   /* where the GPU count comes from */
    long long sized_gpus;       /* the planners' GPU count (0 = unsized) */
    char basis_why[GP_PLAN_TEXT];   /* GP_BASIS_FLEET_UNSIZED: why the
                                     * planners could not size it */
    char compute_basis[GP_PLAN_TEXT];  /* 'basis' in words (rendered from
                                        * the fields above) */
    long long gpus, nodes;
    int gpus_per_node;
    int scale_up_domain;
    long long scale_up_domains;
    double demand_gpus[GP_PLAN_MAX_PERIODS];   /* per month */
    size_t n_periods;

    /* network */
    struct gp_part_status network;
    int cloud_fabric;           /* 1: the cloud's fabric, not sized here */
    char fabric_name[GP_PLAN_NAME];
    struct gp_fabric fabric;
    /* Scale-out bandwidth per GPU, one direction (docs/model/
     * infrastructure.md, "Bandwidth needed vs given").  need: the least
     * NIC bandwidth at which the training planner's step time of the
     * chosen layout is within comm_slowdown_max of an unlimited fabric,
     * largest over the training workloads; given: what the option's NICs
     * give the planner.
     */
    int need_bw_known;          /* 1 when the planners sized the option */
    double need_bw_per_gpu;     /* byte/s; 0 = traffic stays in scale-up */
    char need_bw_workload[GP_PLAN_NAME];  /* the workload that sets it */
    double given_bw_per_gpu;    /* byte/s */
    double comm_slowdown;       /* step(given) / step(unlimited) - 1 */
    int bw_short;               /* shortfall: need > given */
    /* Fabric choice, in-network reduction (docs/model/infrastructure.md,
     * "In-network reduction: the fabric choice"): on-prem options of
     * more than one node whose InfiniBand switch has SHARP rows in the
     * catalog.  The plan is sized without SHARP; these say what SHARP
     * would save.  sharp_known 0 with the reason in sharp_note otherwise
     * (Ethernet, one node, cloud, no training run).
     */
    int sharp_known;
    double sharp_step_gain;     /* largest over the training and recurring
                                 * runs: 1 - step with / without SHARP,
                                 * the planned layout */
    char sharp_gain_workload[GP_PLAN_NAME]; /* the run it belongs to;
                                 * "" when no run gains */
    double sharp_gpu_hours_saved;   /* over the horizon, every run */
    double sharp_usd_saved;     /* x usd_per_gpu_hour */
    double sharp_breakeven_usd_per_switch;  /* sharp_usd_saved / the
                                 * fabric's switches: the premium per
                                 * switch (hardware, licence) at which
                                 * SHARP-capable switches pay for
                                 * themselves over the horizon */
    char sharp_note[GP_PLAN_TEXT];

    /* storage */
    struct gp_part_status storage;
    struct gp_storage stor;
    char storage_stack[GP_PLAN_TEXT];
    double storage_given_bw;    /* provisioned bytes x throughput density */
    int storage_short;          /* shortfall: read or checkpoint write >
                                 * given */

    /* power */
    struct gp_part_status power;
    struct gp_power pow;
    double node_w;

    /* cost */
    struct gp_part_status cost;
    struct gp_onprem_cost onprem;
    double capex_usd;
    double capex_servers, capex_network, capex_storage;
    double cloud_compute_usd, cloud_storage_usd;
    double commit_usd, on_demand_usd, spot_usd;
    double tco_usd;             /* over the horizon */
    /* The two per-GPU-hour columns, defined once for every option kind
     * (docs/model/cost.md, "Cost per GPU-hour"):
     *   provisioned GPU-hours: every GPU-hour the option pays for, used or
     *     not (on-prem: GPUs x horizon hours; cloud: committed node-hours
     *     for the whole term + on-demand and spot node-hours rented, x
     *     GPUs per node);
     *   demand GPU-hours: sum over months of the planners' GPU demand x
     *     hours per month (the same for every option of one accelerator
     *     and node shape).
     */
    double provisioned_gpu_hours;
    double demand_gpu_hours;
    double usd_per_gpu_hour;    /* TCO / provisioned GPU-hours */
    double usd_per_used_gpu_hour;  /* TCO / demand GPU-hours */
    double breakeven_util;      /* on-prem vs on-demand of same GPU (0 ?) */
    double cum_cost[GP_PLAN_MAX_PERIODS];  /* cumulative USD per month */
    double spot_overhead;
    struct gp_part_status unit_costs;   /* per run, per 1M tokens */
    double usd_per_run;         /* first training workload; 0 = unknown */
    double usd_per_mtok;        /* first inference workload; 0 = unknown */

    /* supporting infrastructure and stack */
    int head_nodes, mgmt_nodes, cpu_nodes;
    char scale_tier[GP_PLAN_NAME];
    char stack[GP_PLAN_TEXT];
    char stack_why[GP_PLAN_TEXT];

    /* multi-tenancy */
    struct gp_plan_quota quotas[GP_PLAN_MAX_TEAMS];
    size_t n_quotas;
    struct gp_part_status sim;
    double utilization;         /* simulated; 0 = unknown */
    double wait_p95_s;          /* simulated, all jobs */
    double starve_max_wait_s;   /* longest wait of a large job */
    double jain_index;          /* fairness over teams; -1 = n/a */
    size_t sim_jobs;
    size_t sim_unfinished;      /* jobs that never ran or never fit */
    /* Set when the teams' largest jobs together need more GPUs than the
     * option has, so some team's largest job is above its quota and runs
     * only on borrowed quota; quota_note says it in words.
     */
    int quota_short;
    char quota_note[GP_PLAN_TEXT];
    /* Queueing check (docs/model/infrastructure.md, Multi-tenancy): set
     * when a team's simulated p95 wait or longest wait exceeds the
     * queue_p95_wait_limit_h / queue_max_wait_limit_h assumptions.  The
     * option stays feasible but is ranked after every unflagged one, and
     * the decision log says why.  queue_team is the index into quotas of
     * the first team over a limit, queue_wait_h its wait and queue_limit_h
     * the limit; queue_flag says it in words ("" when GP_QUEUE_OK).
     */
    enum gp_plan_queue queue;
    int queue_team;
    double queue_wait_h, queue_limit_h;
    char queue_flag[GP_PLAN_TEXT];

    /* constraints.min_availability (on-prem, docs/model/
     * infrastructure.md): spare nodes for N + k */
    long long spare_nodes;      /* included in gpus / nodes */
    double node_down_share;     /* share of time one node is down */
    double availability;        /* P(demand's nodes all up), 0 = unchecked */

    /* constraints */
    int feasible;               /* all checked constraints hold */
    enum gp_plan_infeasible infeasible;   /* which one fails */
    char violation[GP_PLAN_TEXT];       /* 'infeasible' in words */
    int complete;               /* every part computed */

    /* cloud (cloud.c) */
    enum gp_plan_infeasible cost_why;   /* typed reason when cost.code ==
                                         * GP_EINFEASIBLE; NONE = PART */
    char price_warning[GP_PLAN_TEXT];   /* flagged or undated prices the
                                         * option uses, in words, " | " between
                                         * them; "" = none */
    double spot_tolerant_share;  /* demand GPU-hours of workloads that
                                  * tolerate preemption / all demand */
    long long max_gpus;          /* obtainable cap applied; 0 = none */
    /* Quotas against the asks: quota_trim says why they differ from the
     * asked shares, quota_trim_why in words ("" when GP_QUOTA_AS_ASKED);
     * quota_asked_total is the sum of the asked shares.
     */
    enum gp_plan_quota_trim quota_trim;
    char quota_trim_why[GP_PLAN_TEXT];
    double quota_asked_total;
    /* The simulated window (docs/model/infrastructure.md, Multi-tenancy):
     * months [sim_window_start, sim_window_start + sim_window_months) of
     * the horizon; the planners' demand GPU-hours in it and the simulated
     * fleet's GPU-hours (GPUs x window hours), against which the
     * simulated utilization is compared.
     */
    double sim_window_start, sim_window_months;
    double sim_demand_gpu_hours, sim_provisioned_gpu_hours;
    /* Shortfalls (bits of enum gp_plan_shortfall): what a feasible option
     * falls short of without breaking a hard constraint (budget, power,
     * racks, deadline and SLO are hard: they make it infeasible).  The
     * recommendation lists them as reasons and names the nearest option
     * without any (gp_plan_result.nearest_ok).  Set by the constraint
     * check from bw_short, storage_short, queue and quota_short.
     */
    unsigned shortfalls;
    /* Which rule decided this option's numbers (struct gp_plan_rules;
     * the decision log's "rules:" line, docs/model/cost.md, "Decision
     * rules").
     */
    struct gp_plan_rules rules;
    /* Per workload of the spec (same index): the planners' layout on
     * this option (struct gp_plan_wl_plan).
     */
    struct gp_plan_wl_plan wl[GP_PLAN_MAX_WORKLOADS];
};

/* One shortfall of an option (gp_plan_option.shortfalls is a mask of
 * 1u << value).
 */
enum gp_plan_shortfall {
    GP_SHORT_NETWORK,           /* bw_short: the fabric cannot carry the
                                 * chosen layout's scale-out traffic within
                                 * its step time */
    GP_SHORT_STORAGE,           /* storage_short: read or checkpoint write
                                 * rate above what the fast tier gives */
    GP_SHORT_QUEUE,             /* queue != GP_QUEUE_OK */
    GP_SHORT_QUOTA,             /* quota_short with no simulation to
                                 * show that borrowing idle quota works
                                 * (a simulated option is judged by its
                                 * queueing check instead) */
    GP_N_SHORTFALLS
};

/* The JSON/report keyword of 's' ("network", "storage", "queueing",
 * "quota"); "?" outside the enum.  Static storage.
 */
const char *gp_plan_shortfall_str (enum gp_plan_shortfall s);

struct gp_sens_row {
    char param[GP_PLAN_NAME];   /* "price +-20%" */
    double low_delta, high_delta;       /* the factor applied */
    double tco_low, tco_high;   /* of the recommended option */
    char rec_low[96], rec_high[96];     /* recommendation under each */
    struct gp_part_status status;
};

/* Ranges from sampled assumptions (gp_plan_sample; docs/model/
 * uncertainty.md).  Each uncertain assumption of the defaults registry
 * carries a distribution; N plans are evaluated with values drawn from
 * them (deterministic for a seed) and the percentiles kept per option.
 * A percentile is over the samples in which the option was fully costed
 * and feasible (n_ok of them); all 0 when n_ok is 0.
 */
struct gp_plan_pct {
    double p10, p50, p90;
};

struct gp_plan_option_range {
    size_t n_ok;                /* samples where costed and feasible */
    struct gp_plan_pct tco_usd;
    struct gp_plan_pct gpus;
    struct gp_plan_pct usd_per_gpu_hour;
    struct gp_plan_pct train_days;  /* the main (first) training run's
                                     * wall-clock days; 0s when none */
    size_t n_cheapest;          /* samples in which it was the cheapest
                                 * feasible option */
};

#define GP_PLAN_MAX_FLIPS 8

/* An assumption that flips the recommendation: in 'count' samples the
 * cheapest feasible option was not the recommended one, and this
 * assumption's draw was the one that moved furthest toward the winner
 * (docs/model/uncertainty.md says how a flip is attributed).
 */
struct gp_plan_flip {
    char key[GP_PLAN_NAME];     /* registry key, e.g. "price.scale" */
    size_t count;
    double share;               /* count / n_samples */
};

struct gp_plan_ranges {
    size_t n_samples;
    unsigned long long seed;
    struct gp_plan_option_range *options;   /* one per result option,
                                             * same index; owned */
    double win_share;           /* share of samples in which the
                                 * recommended option is the cheapest
                                 * feasible one */
    struct gp_plan_flip flips[GP_PLAN_MAX_FLIPS];   /* most frequent
                                                     * first */
    size_t n_flips;
};

/* The most samples gp_plan_sample() takes (about 50 s for the enterprise
 * example on one core).
 */
#define GP_PLAN_MAX_SAMPLES 10000

struct gp_plan_result;

/* Evaluate 'n' plans of 'spec' with the uncertain assumptions drawn from
 * their distributions (gpuplan/defaults.h GP_DEFAULT_DISTS; a Latin
 * hypercube over the rows the spec does not override, seeded by 'seed':
 * the same inputs and seed give the same ranges) and attach the ranges
 * to 'r', the result gp_plan_run() returned for the same 'spec' and
 * 'cat': per option the P10/P50/P90 of TCO, GPUs, cost per GPU-hour and
 * days of the main training run, the recommended option's win share,
 * the assumptions that flip the pick most often, and r->sens replaced by
 * the tornado drawn from the samples.  The planners' sizing is reused:
 * rules in docs/model/uncertainty.md.  Returns 0; GP_EINVAL (NULL
 * argument, 'n' outside [1, GP_PLAN_MAX_SAMPLES], 'r' not a result of
 * 'spec'), GP_ENOMEM, or the model zoo's load error, with 'err' set and
 * 'r' unchanged.  r->ranges is owned by 'r' (freed by
 * gp_plan_result_destroy); a previous one is replaced.
 */
int gp_plan_sample (const struct gp_plan_spec *spec,
                    const struct gp_catalog *cat, struct gp_plan_result *r,
                    size_t n, unsigned long long seed, gp_error_t *err);

/* gp_plan_run() of 'spec' and, when 'n' > 0, gp_plan_sample() of 'n'
 * draws seeded by 'seed' on its result: the plan command's one library
 * call.  Returns the result (caller frees with gp_plan_result_destroy),
 * or NULL with 'err' set by whichever of the two failed.
 */
struct gp_plan_result *gp_plan_run_sampled (const struct gp_plan_spec *spec,
                                            const struct gp_catalog *cat,
                                            size_t n,
                                            unsigned long long seed,
                                            gp_error_t *err);

/* The executive summary's derived values (gp_plan_summarize;
 * docs/formats/plan.md, "summary"): the renderers show them, they
 * compute nothing.
 */
enum gp_plan_risk_kind {
    GP_RISK_SHORTFALL,          /* 'shortfall' of the recommended option */
    GP_RISK_PRICE,              /* an option's price_warning */
    GP_RISK_CAPACITY_UNCAPPED,  /* cloud, no published obtainable capacity */
    GP_RISK_CAPACITY_CAPPED,    /* cloud, sized at its max_gpus cap */
    GP_RISK_QUEUE,              /* the option's queueing flag */
    GP_RISK_QUOTA,              /* quota_short: a team's largest job runs
                                 * only on borrowed quota */
    GP_RISK_SENS_FLIP,          /* sensitivity row 'sens' moves the pick */
};

enum gp_plan_decision_kind {
    GP_DECIDE_COMMIT,           /* cloud: the pricing commitment (term,
                                 * committed share) */
    GP_DECIDE_BUY,              /* on-prem: the purchase and its delivery
                                 * date (delivery_lead_time_months) */
    GP_DECIDE_FABRIC,           /* on-prem: SHARP-capable switches, worth
                                 * at most sharp_breakeven_usd_per_switch */
    GP_DECIDE_CONFIRM_PRICE,    /* confirm a flagged/undated price */
    GP_DECIDE_CONFIRM_CAPACITY, /* confirm obtainable cloud capacity */
    GP_DECIDE_QUOTAS,           /* quotas vs the teams' largest jobs */
    GP_DECIDE_SHORTFALL,        /* accept or fix the recommended option's
                                 * shortfalls */
};

#define GP_PLAN_MAX_RISKS 8
#define GP_PLAN_MAX_DECISIONS 8

struct gp_plan_risk {
    enum gp_plan_risk_kind kind;
    int option;                 /* index in options */
    enum gp_plan_shortfall shortfall;   /* GP_RISK_SHORTFALL */
    int sens;                   /* GP_RISK_SENS_FLIP: index in sens */
    int high;                   /* GP_RISK_SENS_FLIP: at the high factor */
};

struct gp_plan_decision {
    enum gp_plan_decision_kind kind;
    int option;                 /* index in options */
};

struct gp_plan_summary {
    int recommended;            /* as gp_plan_result.recommended */
    double tco_usd;             /* the recommended option's TCO */
    /* The TCO range without samples: the lowest and highest TCO of the
     * recommended option over the base and every sensitivity row that
     * ran (0s when none ran); gp_plan_result.ranges gives P10/P90 when
     * the plan was sampled.
     */
    double tco_low_usd, tco_high_usd;
    /* The runner-up: the cheapest fully costed, feasible option after
     * the recommended one (TCO rank 2), or -1.  What makes it win:
     * its TCO must fall by runner_gap_usd (runner_cut_share of its
     * TCO), or the sensitivity row runner_sens (at its high factor when
     * runner_sens_high, else low; -1 = none) picks it, or it must fix
     * its shortfalls (its gp_plan_option.shortfalls).
     */
    int runner_up;
    double runner_tco_usd;
    double runner_gap_usd;
    double runner_cut_share;
    int runner_sens;
    int runner_sens_high;
    struct gp_plan_risk risks[GP_PLAN_MAX_RISKS];   /* most severe first */
    size_t n_risks;
    struct gp_plan_decision decisions[GP_PLAN_MAX_DECISIONS];
    size_t n_decisions;
};

/* The GPUs-vs-days curve of the recommended option's main (first)
 * training run with a deadline (gp_plan_wl_plan.curve); n 0 when there
 * is none.
 */
struct gp_plan_curve {
    int option;                 /* index in options, -1 = none */
    int workload;               /* index in the spec's workloads */
    char name[GP_PLAN_NAME];    /* the workload's name */
    long long planned_gpus;     /* the run's planned GPUs (wl[].gpus) */
    double planned_days;        /* its run_days */
    double deadline_days;       /* the workload's deadline */
    size_t n;
    struct gp_plan_curve_pt pt[GP_PLAN_CURVE_MAX];
};

/* The nearest feasible change (nearest.c; docs/formats/plan.md,
 * "Nearest feasible change"): when no option is feasible, the least
 * relaxation of the constraints that block an option, found by checking
 * the evaluated option again with the constraint relaxed (budget, power,
 * racks, clouds: the option's figures do not depend on them, so the
 * least value is the option's own TCO, IT power or racks), or by
 * bisection on a training run's deadline with the options evaluated
 * again at each step.
 */
enum gp_plan_change_kind {
    GP_CHANGE_BUDGET,           /* constraints.budget up to 'to' USD */
    GP_CHANGE_POWER,            /* constraints.power up to 'to' W */
    GP_CHANGE_RACKS,            /* constraints.floor_racks up to 'to' */
    GP_CHANGE_CLOUD,            /* allow cloud 'cloud' in
                                 * constraints.clouds */
    GP_CHANGE_DEADLINE,         /* workloads.<name>.deadline up to 'to' s */
};

/* The JSON keyword of 'k' ("budget", "power", "racks", "cloud",
 * "deadline"); "?" outside the enum.  Static storage.
 */
const char *gp_plan_change_kind_str (enum gp_plan_change_kind k);

#define GP_PLAN_MAX_RELAX 4
#define GP_PLAN_MAX_CHANGES 4

/* One relaxed constraint of a change. */
struct gp_plan_relax {
    enum gp_plan_change_kind kind;
    char key[GP_PLAN_NAME + 32]; /* the spec key, as --set takes it:
                                  * "constraints.budget",
                                  * "workloads.pretrain.deadline" */
    double from;                /* the value now (0 = no limit) */
    double to;                  /* the least value that works; in USD, W,
                                 * racks or s as 'kind' says */
    char cloud[16];             /* GP_CHANGE_CLOUD: the cloud to allow */
};

/* A change that makes option 'option' feasible: every relaxation it
 * needs (n_relax of them); 'text' says it in words.
 */
struct gp_plan_change {
    int option;                 /* index in gp_plan_result.options */
    char option_name[96];
    double tco_usd;             /* the option's TCO once feasible (for a
                                 * deadline change: at the new deadline) */
    long long gpus;             /* its GPUs (likewise) */
    struct gp_plan_relax relax[GP_PLAN_MAX_RELAX];
    size_t n_relax;
    char text[GP_PLAN_TEXT];
};

/* The spec's inputs a result echoes (docs/formats/plan.md, "inputs"), so
 * that two results can be compared without their specs (gp_plan_diff):
 * copies of the spec's fields, catalog and trace pointers cleared.
 */
struct gp_plan_inputs {
    int set;                    /* 1 when filled (by gp_plan_run) */
    double horizon_years;
    char policy[32];
    struct gp_plan_constraints cons;
    struct gp_plan_workload workloads[GP_PLAN_MAX_WORKLOADS];
    size_t n_workloads;
    struct gp_plan_option_spec options[GP_PLAN_MAX_OPTION_SPECS];
    size_t n_options;
    struct gp_plan_existing existing;
};

struct gp_plan_result {
    char name[GP_PLAN_NAME];
    double horizon_years;
    size_t n_periods;
    struct gp_plan_option *options;     /* n_options: one per on-prem
                                         * option spec, one per allowed
                                         * pricing model of a cloud one;
                                         * owned by the result */
    size_t n_options;
    int recommended;            /* index, or -1 */
    char reason[512];
    char **log;                 /* n_log decision log lines, each at most
                                 * GP_PLAN_TEXT - 1 characters; owned by
                                 * the result */
    size_t n_log;
    struct gp_sens_row sens[GP_PLAN_MAX_SENS];
    size_t n_sens;
    struct gp_assumption assume[GP_PLAN_MAX_ASSUMPTIONS];
    size_t n_assume;
    struct gp_plan_source *sources;     /* n_sources catalog values used,
                                         * each once; owned by the result */
    size_t n_sources;
    struct gp_plan_team teams[GP_PLAN_MAX_TEAMS];
    size_t n_teams;
    /* When the recommended option has shortfalls: the cheapest feasible,
     * fully costed option without any, or -1 (none, or no shortfall).
     */
    int nearest_ok;
    /* Ranges from sampled assumptions; NULL unless gp_plan_sample() ran
     * on this result.  Owned by the result.
     */
    struct gp_plan_ranges *ranges;
    /* The executive summary and the main run's curve
     * (gp_plan_summarize).
     */
    struct gp_plan_summary summary;
    struct gp_plan_curve curve;
    /* When no option is recommended: the nearest feasible changes, the
     * nearest first (fewest constraints relaxed, then the smallest
     * relative change, then the lowest TCO); n_changes 0 when an option
     * is recommended or no relaxation of budget, power, racks, clouds or
     * a deadline makes one feasible.  nearest.c.
     */
    struct gp_plan_change changes[GP_PLAN_MAX_CHANGES];
    size_t n_changes;
    /* The spec's inputs, echoed for comparisons (inputs.c). */
    struct gp_plan_inputs inputs;
};

/* Build every option of 'spec', cost it, check the constraints, pick the
 * recommendation and run the sensitivity analysis.  'spec' is not
 * modified (the assumptions read are marked in the result's copy, see
 * gp_plan_result.assume); it and 'cat' must stay alive during the call
 * only: the result borrows nothing from them.  Returns a result the
 * caller frees with gp_plan_result_destroy(), or NULL with 'err' set:
 * GP_EINVAL (missing argument; an on-prem option whose node power or
 * capex the catalog lacks), GP_ENOMEM, or the model zoo's load error.
 * A result with recommended == -1 and options that are all infeasible is
 * still returned; gp_plan_status() says what the exit status should be.
 */
struct gp_plan_result *gp_plan_run (const struct gp_plan_spec *spec,
                                    const struct gp_catalog *cat,
                                    gp_error_t *err);
/* Fill r->summary and r->curve from the result's typed fields (the
 * recommendation, TCO ranks, sensitivity rows, shortfalls, price
 * warnings, capacity caps, queueing and quota flags, the recommended
 * option's first deadline training run): gp_plan_run calls it; call it
 * again after changing a result.  'spec' (may be NULL) gives the curve's
 * deadline_days (0 without it).  NULL 'r' is a no-op.
 */
void gp_plan_summarize (struct gp_plan_result *r,
                        const struct gp_plan_spec *spec);

/* Replicas of service 'wi' in each hour of the day in month 'month'
 * (0-based; the horizon's months) on option 'o': the month's rate
 * (requests_per_s grown by growth_per_quarter, the rule the plan's
 * demand uses) x the day profile's share for the hour, over the
 * replica's planned rate (o->wl[wi].replica_rps), rounded up, at least
 * 1.  Returns 0, or GP_EINVAL ('wi' not a sized service of 'o', month
 * outside the horizon, NULL arguments) with 'err' set.
 */
int gp_plan_service_day (const struct gp_plan_spec *s,
                         const struct gp_plan_option *o, size_t wi,
                         size_t month, int replicas[GP_PLAN_DAY_HOURS],
                         gp_error_t *err);

struct gp_cluster;

/* The cluster option 'option' of 'r' builds (for the exporters): one
 * pool of its accelerator with its nodes, GPUs per node, scale-up domain
 * and NIC bandwidth per GPU, and the plan's teams with the option's
 * quotas (gp_plan_option.quotas), weights and priorities, in one cohort
 * named after the plan so idle quota is lent as the plan's simulation
 * assumes.  Returns a cluster the caller frees with gp_cluster_destroy(),
 * or NULL with 'err' set (GP_EINVAL: bad index or an unsized option;
 * GP_ENOMEM).
 */
struct gp_cluster *gp_plan_option_cluster (const struct gp_plan_spec *s,
                                           const struct gp_plan_result *r,
                                           int option,
                                           const struct gp_catalog *cat,
                                           gp_error_t *err);

/* The index in r->options of the option named 'name' (gp_plan_option
 * .name, e.g. "aws-p5/mix"), or of the recommended option when 'name' is
 * NULL or "".  The option must be sized (compute.code 0) and feasible:
 * the exporters build only a decided cluster.  Returns the index (>= 0),
 * or a negative GP_E* code with 'err' set: GP_ENOTFOUND listing the
 * option names, GP_EINFEASIBLE naming the option and its violation (or
 * when nothing is recommended), GP_EINVAL for NULL 'r'.
 */
int gp_plan_option_index (const struct gp_plan_result *r, const char *name,
                          gp_error_t *err);

/* Free 'r' with its log and sources; NULL is a no-op. */
void gp_plan_result_destroy (struct gp_plan_result *r);

/* 0 when an option is recommended; GP_EINFEASIBLE with the reason when
 * every option violates a constraint; GP_ENOTSUP when no option could be
 * completed because a planner it needs is not yet supported.
 */
int gp_plan_status (const struct gp_plan_result *r, gp_error_t *err);

/* ------------------- what-if: overrides and sweeps -------------------- */

/* Read the plan spec of 'doc' with the overrides 'sets' applied
 * (override.c; docs/formats/plan.md, "Overrides and sweeps"): 'n_sets'
 * strings "KEY=VALUE".
 * KEY is a dotted path into the document, list entries addressed by
 * their 'name' (or index): "constraints.budget",
 * "workloads.pretrain.tokens", "options.h100-onprem.gpus"; or a defaults
 * registry key the plan reads ("plan.reserved_1y_discount" or
 * "reserved_1y_discount"), which sets "assumptions.<key>".  VALUE is one
 * YAML value ("5e6", "$5M", "[aws, gcp]").  The values replace the
 * document's before the spec is read, so the spec's own checks, ranges
 * and messages apply.  'doc' is changed during the call and restored
 * before it returns (not safe on one doc from two threads).
 * Returns a spec as gp_plan_spec_from_doc() does, or NULL with 'err'
 * set: GP_EINVAL for a malformed assignment, an unknown key or a value
 * the spec rejects, the message starting "--set KEY: " (the spec
 * reader's message and allowed range follow); the spec's own errors
 * otherwise.
 */
struct gp_plan_spec *gp_plan_spec_from_doc_set (const struct gp_doc *doc,
                                                const char *const *sets,
                                                size_t n_sets,
                                                const struct gp_catalog *cat,
                                                gp_error_t *err);

#define GP_PLAN_SWEEP_STEPS 11      /* default points of a sweep */
#define GP_PLAN_SWEEP_MAX_STEPS 101 /* at most */

/* What a sweep reuses between its points (gp_plan_sweep.reuse). */
enum gp_plan_sweep_reuse {
    GP_SWEEP_REUSE_SPEC,        /* each point reads the spec with the
                                 * value set and plans it in full; the
                                 * document and catalog are read once */
    GP_SWEEP_REUSE_OPTIONS,     /* a constraint key (constraints.budget,
                                 * .power, .floor_racks): the options are
                                 * evaluated once and each point checks
                                 * the constraints and picks again */
};

/* One point of a sweep. */
struct gp_plan_sweep_point {
    double value;               /* the key's value (its spec unit) */
    int status;                 /* 0, or the point's gp_plan_status() code
                                 * (GP_EINFEASIBLE: nothing feasible) */
    char recommended[96];       /* "" when none */
    double tco_usd;             /* the recommended option's; 0 = none */
    long long gpus;             /* likewise */
    size_t n_feasible;          /* options feasible and fully costed */
    int changed;                /* 1 when the recommendation differs from
                                 * the previous point's */
};

struct gp_plan_sweep {
    char key[GP_PLAN_TEXT];
    double from, to;            /* canonical unit (USD, W, s, counts) */
    int has_quantity;           /* 1: the key is a spec field with a unit */
    enum gp_quantity quantity;  /* its kind, when has_quantity */
    char unit[64];              /* a registry key's unit ("share off
                                 * on-demand"), else "" */
    size_t n_points;
    enum gp_plan_sweep_reuse reuse;
    struct gp_plan_sweep_point *points;     /* owned */
};

/* Parse a sweep "KEY=A..B[:STEPS]" into 'key' (of 'n' bytes), '*a',
 * '*b' and '*steps' (GP_PLAN_SWEEP_STEPS when absent; 2 to
 * GP_PLAN_SWEEP_MAX_STEPS; A < B).  A and B are plain numbers in the
 * key's canonical unit, or, for a spec field with a unit, quantities as
 * the spec writes them ("500k..2M" for a budget, "1MW..3MW", "50ms..1s"),
 * returned in the canonical unit.  Returns 0 or GP_EINVAL with 'err'
 * saying why.
 */
int gp_plan_sweep_parse (const char *arg, char *key, size_t n, double *a,
                         double *b, int *steps, gp_error_t *err);

/* Plan 'doc' with 'sets' (as gp_plan_spec_from_doc_set) at each of the
 * sweep's evenly spaced values of KEY (gp_plan_sweep_parse), A and B
 * included; integer-valued keys (an integer in the document or a
 * count such as floor_racks) take rounded values.  Returns a sweep the
 * caller frees with gp_plan_sweep_destroy(), or NULL with 'err' set (the
 * errors of gp_plan_sweep_parse, of the spec read at a point, naming
 * "--sweep KEY=VALUE", of gp_plan_run).
 */
struct gp_plan_sweep *gp_plan_sweep_run (const struct gp_doc *doc,
                                         const char *const *sets,
                                         size_t n_sets, const char *sweep,
                                         const struct gp_catalog *cat,
                                         gp_error_t *err);
/* Free 'sw'; NULL is a no-op. */
void gp_plan_sweep_destroy (struct gp_plan_sweep *sw);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_PLAN_H */
