/* common.c - what the export targets share: the string builder, names
 * each engine accepts, the extended resource of an accelerator, and a
 * team's per-pool quota, borrowing and lending limits.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

/* ============================ string builder =========================== */

void gp__sb_printf (struct sb *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start (ap, fmt);
        int n = b->s ? vsnprintf (b->s + b->len, room, fmt, ap) : -2;
        va_end (ap);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t need = b->len + (n > 0 ? (size_t)n : 0) + 1;
        size_t nc = b->cap ? 2 * b->cap : 4096;
        while (nc < need)
            nc *= 2;
        char *p = realloc (b->s, nc);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = nc;
    }
}

/* ============================== helpers ================================ */

/* The Kubernetes extended resource of an accelerator, by vendor (device
 * plugins: NVIDIA k8s-device-plugin, AMD k8s-device-plugin, AWS Neuron
 * device plugin, GKE TPU, Intel Gaudi device plugin).
 */
const char *gp__k8s_resource (const struct gp_accel *a)
{
    if (!strcmp (a->vendor, "AMD"))
        return "amd.com/gpu";
    if (!strcmp (a->vendor, "AWS"))
        return "aws.amazon.com/neuron";
    if (!strcmp (a->vendor, "Google"))
        return "google.com/tpu";
    if (!strcmp (a->vendor, "Intel"))
        return "habana.ai/gaudi";
    return "nvidia.com/gpu";
}

long long gp__pool_gpus (const struct gp_pool *p)
{
    return (long long)p->gpus_per_node * p->nodes;
}

static long long cluster_gpus (const struct gp_cluster *c)
{
    long long n = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        n += gp__pool_gpus (&c->pools[i]);
    return n;
}

/* Split 'total' over the pools in proportion to 'w' (largest remainder,
 * ties to the earlier pool), so that the parts sum to 'total'.  With all
 * weights zero, the pools' GPU counts are the weights.
 */
static void split (const struct gp_cluster *c, long long total,
                   const long long *w, long long *out)
{
    long long all = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        all += w ? w[i] : 0;
    int by_size = all <= 0;
    if (by_size)
        all = cluster_gpus (c);
    long long given = 0;
    double *rem = calloc (c->n_pools, sizeof *rem);
    for (size_t i = 0; i < c->n_pools; i++) {
        long long wi = by_size ? gp__pool_gpus (&c->pools[i]) : w[i];
        double exact = all > 0 ? (double)total * (double)wi / (double)all
                               : 0.0;
        out[i] = (long long)floor (exact);
        if (rem)
            rem[i] = exact - (double)out[i];
        given += out[i];
    }
    while (rem && given < total) {
        size_t best = 0;
        for (size_t i = 1; i < c->n_pools; i++)
            if (rem[i] > rem[best])
                best = i;
        out[best]++;
        rem[best] = -1.0;
        given++;
    }
    free (rem);
}

int gp__limits_alloc (struct limits *l, size_t n)
{
    size_t m = n ? n : 1;
    l->nom = calloc (m, sizeof *l->nom);
    l->bor = calloc (m, sizeof *l->bor);
    l->len = calloc (m, sizeof *l->len);
    l->o_nom = calloc (m, sizeof *l->o_nom);
    l->o_bor = calloc (m, sizeof *l->o_bor);
    l->o_len = calloc (m, sizeof *l->o_len);
    return l->nom && l->bor && l->len && l->o_nom && l->o_bor && l->o_len
               ? 0
               : -1;
}

void gp__limits_free (struct limits *l)
{
    free (l->nom);
    free (l->bor);
    free (l->len);
    free (l->o_nom);
    free (l->o_bor);
    free (l->o_len);
}

/* What the cohort members other than 't' can lend in pool 'i': each
 * member's quota there, or its lending limit when that is lower (Kueue
 * lendingLimit: the most of the quota the cohort may use).  GPUs of the
 * pool outside every member's quota are nobody's to lend.  Uses the
 * scratch arrays of 'l'.
 */
static long long cohort_lendable (const struct gp_cluster *c,
                                  const struct gp_team *t,
                                  const struct limits *l, size_t i)
{
    long long sum = 0;
    for (size_t k = 0; k < c->n_teams; k++) {
        const struct gp_team *u = &c->teams[k];
        if (u == t || !u->cohort[0] || strcmp (u->cohort, t->cohort) != 0
            || !strcmp (u->name, t->name))
            continue;
        gp__team_limits (c, u, l->o_nom, l->o_bor, l->o_len);
        long long can = l->o_nom[i];
        if (l->o_len[i] >= 0 && l->o_len[i] < can)
            can = l->o_len[i];
        sum += can > 0 ? can : 0;
    }
    return sum;
}

/* The most GPUs team 't' may hold in pool 'i': quota plus what it may
 * borrow in a cohort (its borrowing limit, at most what the other members
 * can lend there), the quota alone outside one, never more than the pool.
 */
long long gp__pool_cap (const struct gp_cluster *c,
                           const struct gp_team *t, const struct limits *l,
                           size_t i)
{
    long long pool = gp__pool_gpus (&c->pools[i]);
    long long most = l->nom[i];
    if (t->cohort[0]) {
        long long lend = cohort_lendable (c, t, l, i);
        most += l->bor[i] >= 0 && l->bor[i] < lend ? l->bor[i] : lend;
    }
    return most < pool ? most : pool;
}

/* Per-pool nominal quota, borrowing and lending limits of team 't'.
 * -1 in borrow/lend means "no limit" (the field is omitted).
 */
void gp__team_limits (const struct gp_cluster *c, const struct gp_team *t,
                         long long *nominal, long long *borrow,
                         long long *lend)
{
    /* A per-pool quota map: the simulator's own view, so that what is
     * exported is what was simulated.
     */
    if (c->teams && t >= c->teams && t < c->teams + c->n_teams
        && gp_cluster_team_pool_limits (c, (size_t)(t - c->teams), nominal,
                                        borrow, lend))
        return;
    /* A total (or no) quota: split over the pools by size; limits follow
     * the team's quota split.
     */
    if (t->quota_gpus >= 0) {
        split (c, t->quota_gpus, NULL, nominal);
    } else {
        /* No quota: the team may use the whole pool (gpuplan semantics). */
        for (size_t i = 0; i < c->n_pools; i++)
            nominal[i] = gp__pool_gpus (&c->pools[i]);
    }
    if (t->borrowing_limit >= 0)
        split (c, t->borrowing_limit, nominal, borrow);
    else
        for (size_t i = 0; i < c->n_pools; i++)
            borrow[i] = -1;
    if (t->lending_limit >= 0) {
        split (c, t->lending_limit, nominal, lend);
        for (size_t i = 0; i < c->n_pools; i++)
            if (lend[i] > nominal[i])
                lend[i] = nominal[i];
    } else {
        for (size_t i = 0; i < c->n_pools; i++)
            lend[i] = -1;
    }
}

/* Whether pool 'i' is the first pool whose accelerators are extended
 * resource 'res' (one Kueue resource group / Volcano key per resource).
 */
int gp__first_of_resource (const struct gp_cluster *c, size_t i,
                              const char *res)
{
    for (size_t k = 0; k < i; k++)
        if (!strcmp (gp__k8s_resource (c->pools[k].accel), res))
            return 0;
    return 1;
}

/* ============================== checks ================================= */

/* One name against the target's rule: 0, or GP_EINVAL naming 'field'. */
static int check_name (const char *field, const char *n, int k8s,
                       gp_error_t *err)
{
    if (k8s ? gp__name_dns1123_label (n) : gp__name_slurm (n))
        return 0;
    char shown[2 * GP_NAME_MAX];
    size_t k = 0;
    for (const char *p = n; *p && k + 5 < sizeof shown; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x20 || ch == 0x7f)
            k += (size_t)snprintf (shown + k, sizeof shown - k, "\\x%02x",
                                   ch);
        else
            shown[k++] = (char)ch;
    }
    shown[k] = '\0';
    return gp_errprintf (err, GP_EINVAL,
                         "%s '%s' is not a valid %s name (%s)", field, shown,
                         k8s ? "Kubernetes" : "Slurm",
                         k8s ? "a DNS-1123 label: lowercase letters, "
                               "digits and '-', starting and ending with "
                               "a letter or digit, at most 63"
                             : "a lowercase letter, then lowercase "
                               "letters, digits, '-' and '_', at most 63; "
                               "Slurm lowercases cluster, account and QOS "
                               "names");
}

int gp__export_check_names (const struct gp_cluster *c, int k8s,
                            gp_error_t *err)
{
    char field[64];
    int rc = check_name ("name", c->name, k8s, err);
    for (size_t i = 0; rc == 0 && i < c->n_pools; i++) {
        snprintf (field, sizeof field, "pools[%zu].name", i);
        rc = check_name (field, c->pools[i].name, k8s, err);
    }
    for (size_t i = 0; rc == 0 && i < c->n_teams; i++) {
        const struct gp_team *t = &c->teams[i];
        snprintf (field, sizeof field, "teams[%zu].name", i);
        rc = check_name (field, t->name, k8s, err);
        if (rc == 0 && t->cohort[0]) {
            snprintf (field, sizeof field, "teams[%zu].cohort", i);
            rc = check_name (field, t->cohort, k8s, err);
        }
        if (rc == 0 && k8s && t->weight > 0 && t->weight < 1e-9)
            rc = gp_errprintf (err, GP_EINVAL,
                               "teams[%zu].weight must be above 1e-9", i);
    }
    return rc;
}

/* A team list to export: the spec's teams, or one "default" team with no
 * quota when the spec names none.
 */
const struct gp_team *gp__teams_of (const struct gp_cluster *c, size_t *n,
                                       struct gp_team *fallback)
{
    if (c->n_teams > 0) {
        *n = c->n_teams;
        return c->teams;
    }
    memset (fallback, 0, sizeof *fallback);
    snprintf (fallback->name, sizeof fallback->name, "default");
    fallback->weight = 1.0;
    fallback->quota_gpus = -1;
    fallback->borrowing_limit = -1;
    fallback->lending_limit = -1;
    *n = 1;
    return fallback;
}
