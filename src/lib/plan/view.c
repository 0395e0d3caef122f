/* view.c - the plan as the exporters read it: the option chosen for
 * export, a service's replicas per hour of the day and an option's
 * cluster (docs/formats/export.md, "Plan view").  Every number here is
 * read from the plan result or derived by the plan's own rules
 * (gp_plan_service_rate); nothing is re-planned.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../export/quote.h"
#include "gpuplan/cluster.h"
#include "plan_private.h"

int gp_plan_option_index (const struct gp_plan_result *r, const char *name,
                          gp_error_t *err)
{
    if (!r)
        return gp_errprintf (err, GP_EINVAL, "plan option: NULL result");
    int i = -1;
    if (!name || !*name) {
        if (r->recommended < 0 || (size_t)r->recommended >= r->n_options)
            return gp_errprintf (err, GP_EINFEASIBLE,
                                 "plan '%s': no option is recommended; "
                                 "name one with --option",
                                 r->name);
        i = r->recommended;
    } else {
        for (size_t k = 0; k < r->n_options; k++)
            if (!strcmp (r->options[k].name, name))
                i = (int)k;
    }
    if (i < 0) {
        char list[GP_ERROR_TEXT_MAX] = "";
        size_t n = 0;
        for (size_t k = 0; k < r->n_options && n < sizeof list; k++) {
            int w = snprintf (list + n, sizeof list - n, "%s%s",
                              k ? ", " : "", r->options[k].name);
            if (w < 0)
                break;
            n += (size_t)w;
        }
        return gp_errprintf (err, GP_ENOTFOUND,
                             "plan '%s' has no option '%s'; options: %s",
                             r->name, name, list);
    }
    const struct gp_plan_option *o = &r->options[i];
    if (o->compute.code != 0 || o->gpus <= 0)
        return gp_errprintf (err, GP_EINFEASIBLE,
                             "option '%s' is not sized: %s", o->name,
                             o->compute.code ? o->compute.text
                                             : "no GPU count");
    if (!o->feasible)
        return gp_errprintf (err, GP_EINFEASIBLE,
                             "option '%s' is infeasible: %s", o->name,
                             o->violation[0] ? o->violation : "(no reason)");
    return i;
}

/* The spec's value of scale row 'key' (1 when absent). */
static double spec_scale (const struct gp_plan_spec *s, const char *key)
{
    for (size_t i = 0; i < s->n_assume; i++)
        if (strcmp (s->assume[i].key, key) == 0)
            return s->assume[i].value;
    return 1;
}

int gp_plan_service_day (const struct gp_plan_spec *s,
                         const struct gp_plan_option *o, size_t wi,
                         size_t month, int replicas[GP_PLAN_DAY_HOURS],
                         gp_error_t *err)
{
    if (!s || !o || !replicas)
        return gp_errprintf (err, GP_EINVAL,
                             "service replicas per hour: NULL argument");
    if (wi >= s->n_workloads || s->workloads[wi].kind != GP_WL_INFERENCE)
        return gp_errprintf (err, GP_EINVAL,
                             "workloads[%zu]: not an inference service", wi);
    const struct gp_plan_workload *w = &s->workloads[wi];
    const struct gp_plan_wl_plan *p = &o->wl[wi];
    if (!p->sized || !(p->replica_rps > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "workloads[%zu] '%s': not sized on option '%s'",
                             wi, w->name, o->name);
    if (month >= o->n_periods)
        return gp_errprintf (err, GP_EINVAL,
                             "month %zu: outside the horizon (1 to %zu)",
                             month + 1, o->n_periods);
    double rate = gp_plan_service_rate (w, month);
    /* the sizing's traffic and growth factors (gp_plan_service_gpus) */
    double fg = spec_scale (s, "growth_scale"), g = w->growth_per_quarter;
    if (fg != 1 && 1 + g > 0)
        rate *= pow ((1 + g * fg) / (1 + g), (double)month / 3);
    double ft = spec_scale (s, "traffic_scale");
    if (ft != 1)
        rate *= ft;
    for (size_t h = 0; h < GP_PLAN_DAY_HOURS; h++) {
        double share = w->n_day_profile ? w->day_profile[h] : 1;
        double reps = ceil (rate * share / p->replica_rps - 1e-9);
        replicas[h] = reps < 1 ? 1 : (int)reps;
    }
    return 0;
}

/* 'id' in DNS-1123 label form: lowercase, every run of other characters
 * one '-', no '-' at either end, at most 63 characters.
 */
static void dns_label (const char *id, char *out, size_t n)
{
    char b[GP_PLAN_NAME * 2 + 2];
    size_t k = 0;
    int dash = 0;
    for (const char *p = id; *p && k + 2 < sizeof b; p++) {
        unsigned char ch = (unsigned char)*p;
        if (!isalnum (ch)) {
            dash = 1;
            continue;
        }
        if (dash && k > 0)
            b[k++] = '-';
        dash = 0;
        b[k++] = (char)tolower (ch);
    }
    if (k > 63)
        k = 63;
    while (k > 0 && b[k - 1] == '-')
        k--;
    b[k] = 0;
    snprintf (out, n, "%s", b);
}

/* The option's teams with their planned quotas, one cohort. */
static int option_teams (const struct gp_plan_result *r,
                         const struct gp_plan_option *o,
                         struct gp_cluster *c, gp_error_t *err)
{
    if (r->n_teams == 0)
        return 0;
    c->teams = calloc (r->n_teams, sizeof *c->teams);
    if (!c->teams)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n_teams; i++) {
        struct gp_team *t = &c->teams[i];
        c->n_teams = i + 1; /* so that destroy frees pool_quota */
        t->pool_quota = malloc (sizeof *t->pool_quota);
        if (!t->pool_quota)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        t->pool_quota[0] = -1;
        snprintf (t->name, sizeof t->name, "%s", r->teams[i].name);
        snprintf (t->cohort, sizeof t->cohort, "%s", r->name);
        t->weight = r->teams[i].weight > 0 ? r->teams[i].weight : 1;
        t->priority = r->teams[i].priority;
        t->quota_gpus = -1;
        for (size_t q = 0; q < o->n_quotas; q++)
            if (!strcmp (o->quotas[q].team, t->name))
                t->quota_gpus = o->quotas[q].gpus;
        t->borrowing_limit = -1;
        t->lending_limit = -1;
    }
    return 0;
}

struct gp_cluster *gp_plan_option_cluster (const struct gp_plan_spec *s,
                                           const struct gp_plan_result *r,
                                           int option,
                                           const struct gp_catalog *cat,
                                           gp_error_t *err)
{
    (void)cat; /* the option spec's accelerator and instance rows are
                * already resolved against it */
    if (!s || !r) {
        gp_errprintf (err, GP_EINVAL, "cluster of a plan option: NULL "
                      "argument");
        return NULL;
    }
    if (option < 0 || (size_t)option >= r->n_options) {
        gp_errprintf (err, GP_EINVAL, "plan '%s': no option %d (it has "
                      "%zu)", r->name, option, r->n_options);
        return NULL;
    }
    const struct gp_plan_option *o = &r->options[option];
    if (o->compute.code != 0 || o->gpus <= 0 || o->nodes <= 0
        || o->gpus_per_node <= 0 || o->nodes > 1000000) {
        gp_errprintf (err, GP_EINVAL, "option '%s': not sized (%s)",
                      o->name, o->compute.code ? o->compute.text
                                               : "no GPU count");
        return NULL;
    }
    if (o->spec_index < 0 || (size_t)o->spec_index >= s->n_options) {
        gp_errprintf (err, GP_EINVAL, "option '%s': options[%d] is not in "
                      "the spec", o->name, o->spec_index);
        return NULL;
    }
    if (r->n_teams > 0 && !gp__name_dns1123_label (r->name)) {
        gp_errprintf (err, GP_EINVAL, "name: plan name '%s' is not a "
                      "DNS-1123 label ([a-z0-9-], at most 63 characters); "
                      "the teams' cohort is named after the plan",
                      r->name);
        return NULL;
    }
    const struct gp_plan_option_spec *os = &s->options[o->spec_index];
    struct gp_cluster *c = calloc (1, sizeof *c);
    struct gp_pool *p = c ? calloc (1, sizeof *p) : NULL;
    if (!p) {
        free (c);
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    c->pools = p;
    c->n_pools = 1;
    snprintf (c->name, sizeof c->name, "%s", r->name);
    c->spine_oversub = os->oversub >= 1 ? os->oversub : 1;
    dns_label (o->accel_id, p->name, sizeof p->name);
    snprintf (p->accel_id, sizeof p->accel_id, "%s", o->accel_id);
    p->accel = os->accel;
    p->gpus_per_node = o->gpus_per_node;
    p->nodes = (int)o->nodes;
    p->scale_up_domain = o->scale_up_domain;
    p->net_bw_per_gpu = o->given_bw_per_gpu;
    /* on-prem: the racks of the plan's power design */
    if (o->kind == GP_OPT_ONPREM && o->power.code == 0
        && o->pow.nodes_per_rack > 0)
        p->nodes_per_rack = o->pow.nodes_per_rack;
    if (os->inst) {
        p->cpus_per_node = os->inst->vcpus;
        p->host_mem_bytes = os->inst->mem_bytes;
    }
    if (!p->name[0] || !p->accel) {
        gp_errprintf (err, GP_EINVAL, "options[%d].accelerator: '%s' gives "
                      "no pool name or catalog row", o->spec_index,
                      o->accel_id);
        gp_cluster_destroy (c);
        return NULL;
    }
    if (option_teams (r, o, c, err) != 0) {
        gp_cluster_destroy (c);
        return NULL;
    }
    return c;
}
