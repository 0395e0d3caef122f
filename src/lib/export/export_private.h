/* export_private.h - shared by the export targets: one file per target
 * (kueue.c, volcano.c, slurm.c, prometheus.c) behind an ops table, the
 * helpers they share in common.c, the registry and public calls in
 * export.c.
 */
#ifndef GPUPLAN_EXPORT_PRIVATE_H
#define GPUPLAN_EXPORT_PRIVATE_H

#include <stddef.h>

#include "gpuplan/export.h"

/* ============================ string builder =========================== */

/* A growable text; 'oom' sticks after an allocation failure. */
struct sb {
    char *s;
    size_t len, cap;
    int oom;
};

void gp__sb_printf (struct sb *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Append the text of 'b' to 'x' as file 'name' ('x' takes it).  Returns 0,
 * or -1 after an allocation failure (the text is freed).
 */
int gp__export_add_file (struct gp_export *x, const char *name,
                         struct sb *b);

/* ============================== targets ================================ */

/* One export target.  'write' adds the target's files to 'x' and returns
 * 0, or a GP_E* code with 'err' set (GP_ENOMEM after an allocation
 * failure, GP_EINVAL/GP_ENOTSUP for a cluster the target cannot express);
 * names have been checked (gp__export_check_names) before it is called,
 * and 'o' is never NULL.
 */
struct gp_export_target_ops {
    const char *name;      /* as on the command line: "kueue" */
    int k8s_names;         /* names must be DNS-1123 labels, else Slurm's
                              (quote.h) */
    int needs_plan;        /* 1: only from a plan (o->plan set) */
    int (*write) (const struct gp_cluster *c, const struct gp_export_opts *o,
                  struct gp_export *x, gp_error_t *err);
};

extern const struct gp_export_target_ops gp__export_kueue;
extern const struct gp_export_target_ops gp__export_volcano;
extern const struct gp_export_target_ops gp__export_slurm;
extern const struct gp_export_target_ops gp__export_prometheus;
extern const struct gp_export_target_ops gp__export_grafana;
extern const struct gp_export_target_ops gp__export_gpu_operator;
extern const struct gp_export_target_ops gp__export_yunikorn;
extern const struct gp_export_target_ops gp__export_network;
extern const struct gp_export_target_ops gp__export_serving;
extern const struct gp_export_target_ops gp__export_jobs;

/* The 'write' of a target that is not built yet: GP_ENOTSUP naming it. */
int gp__export_not_yet (const struct gp_cluster *c,
                        const struct gp_export_opts *o,
                        struct gp_export *x, gp_error_t *err);

/* ========================== shared helpers ============================= */

/* The cluster, pool, team and cohort names against the target's rule
 * (quote.h); 0 or GP_EINVAL naming the spec field.
 */
int gp__export_check_names (const struct gp_cluster *c, int k8s,
                            gp_error_t *err);

/* The Kubernetes extended resource of an accelerator (by vendor). */
const char *gp__k8s_resource (const struct gp_accel *a);

/* Whether pool 'i' is the first pool whose accelerators are extended
 * resource 'res'.
 */
int gp__first_of_resource (const struct gp_cluster *c, size_t i,
                           const char *res);

/* GPUs in pool 'p'. */
long long gp__pool_gpus (const struct gp_pool *p);

/* Per-pool quota arrays of one team, reused across teams. */
struct limits {
    long long *nom;  /* nominal quota per pool */
    long long *bor;  /* borrowing limit per pool, -1 = none */
    long long *len;  /* lending limit per pool, -1 = none */
    /* Scratch room for the other cohort members' limits, used by
     * gp__pool_cap() (allocated with the arrays above).
     */
    long long *o_nom, *o_bor, *o_len;
};

/* Room for 'n' pools; 0 or -1 on allocation failure. */
int gp__limits_alloc (struct limits *l, size_t n);
void gp__limits_free (struct limits *l);

/* Per-pool nominal quota, borrowing and lending limits of team 't'
 * (-1 in borrow/lend = no limit).
 */
void gp__team_limits (const struct gp_cluster *c, const struct gp_team *t,
                      long long *nominal, long long *borrow,
                      long long *lend);

/* The most GPUs team 't' may hold in pool 'i', with 'l' holding the
 * team's limits (gp__team_limits): the quota, plus in a cohort what it
 * may borrow there -- at most its borrowing limit and at most what the
 * other cohort members can lend in that pool (their quota, or their
 * lending limit when lower) -- never more than the pool.
 */
long long gp__pool_cap (const struct gp_cluster *c, const struct gp_team *t,
                        const struct limits *l, size_t i);

/* The spec's teams, or one "default" team (in 'fallback') with no quota. */
const struct gp_team *gp__teams_of (const struct gp_cluster *c, size_t *n,
                                    struct gp_team *fallback);

#endif
