/* plan_private.h - shared between the files of the plan module. */
#ifndef GPUPLAN_PLAN_PRIVATE_H
#define GPUPLAN_PLAN_PRIVATE_H

#include "gpuplan/cost.h"
#include "gpuplan/defaults.h"
#include "gpuplan/plan.h"

/* A planning month: a twelfth of a 365-day year. */
#define HOURS_PER_MONTH (GP_HOURS_PER_YEAR / 12)
#define MONTH_S (HOURS_PER_MONTH * 3600)

void plan_assume_defaults (struct gp_plan_spec *s);
struct gp_assumption *plan_assume_find (struct gp_plan_spec *s,
                                        const char *key);
size_t plan_assume_keys (const struct gp_plan_spec *s,
                         const char **keys,
                         size_t max);
/* The registry's values with the spec's assumptions in force (for the
 * models the plan calls); does not mark the assumptions used.
 */
void plan_assume_to_defaults (const struct gp_plan_spec *s,
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
};

/* Size the portfolio of 's' on the accelerator and node shape of 'os'
 * with the training planner's GEMM efficiency scaled by 'mfu' (1 = as
 * calibrated).  Never fails: problems land in out->code / out->text.
 */
void plan_size_compute (struct gp_plan_spec *s,
                        const struct gp_catalog *cat,
                        const struct gp_zoo *zoo,
                        const struct gp_plan_option_spec *os,
                        double mfu,
                        size_t n_periods,
                        struct plan_sizing *out);

/* Multi-tenant behaviour of the portfolio on one option (simulator):
 * fills o->sim, o->utilization and the per-team waits.
 */
void plan_simulate (struct gp_plan_spec *s,
                    const struct gp_plan_option_spec *os,
                    const struct plan_sizing *sz,
                    struct gp_plan_option *o);

/* Perturbations for the sensitivity analysis (1 = none). */
struct plan_perturb {
    double price;               /* cloud prices and capex */
    double demand;              /* GPU demand */
    double failure;             /* interruption rate */
    double power_price;         /* electricity */
    int mfu;                    /* 0 as calibrated, 1 low, 2 high */
};

#endif
