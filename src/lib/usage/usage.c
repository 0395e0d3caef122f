/* usage.c - gp_usage_read(): read one usage input (kubectl, sacct or
 * Prometheus), add its GPU-hours to team x pool cells, then price every
 * pool and build the sorted per-team result.
 *
 * Pricing (docs/formats/usage.md, "Cost"): --rate prices every pool;
 * else a pool named in the cluster spec is priced by the pricing rule
 * (gp_price_gpu_hour, on-demand) for its accelerator, and unassigned
 * hours by the cluster's accelerator when it has only one.  Hours
 * without a rate leave the team's cost unknown, never 0.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/price.h"
#include "usage_private.h"
#include "../trace/trace_private.h"

static const char *const fmt_names[] = {"auto", "kubectl", "sacct",
                                        "prometheus"};

const char *gp_usage_format_str (enum gp_usage_format f)
{
    return (unsigned)f < 4 ? fmt_names[f] : "?";
}

int gp_usage_format_parse (const char *s, enum gp_usage_format *out,
                           gp_error_t *err)
{
    for (unsigned i = 0; s && i < 4; i++)
        if (strcmp (s, fmt_names[i]) == 0) {
            *out = (enum gp_usage_format)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown usage format '%s' (valid: kubectl, sacct, "
                         "prometheus)",
                         s ? s : "");
}

/* ------------------------------ input -------------------------------- */

char *gp__usage_slurp (const char *path, size_t *len, gp_error_t *err)
{
    int is_stdin = strcmp (path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen (path, "rb");
    if (!f) {
        gp_errprintf (err, GP_EIO, "%s: %s", path, strerror (errno));
        return NULL;
    }
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc (cap);
    while (buf) {
        if (cap - n < 2) {
            char *nb = realloc (buf, cap * 2);
            if (!nb) {
                free (buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread (buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = !buf || ferror (f);
    if (!is_stdin)
        fclose (f);
    if (bad) {
        free (buf);
        gp_errprintf (err, buf ? GP_EIO : GP_ENOMEM, "%s: %s",
                      is_stdin ? "<stdin>" : path,
                      buf ? "read error" : "out of memory");
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

double gp__usage_time (const char *s)
{
    char b[32];
    size_t n = s ? strlen (s) : 0;
    if (n == 0 || n >= sizeof b)
        return -1;
    memcpy (b, s, n + 1);
    if (b[n - 1] == 'Z')
        b[n - 1] = '\0';
    if (!strchr (b, 'T'))
        return -1;
    return gp__tr_datetime (b);
}

/* ---------------------------- accumulator ---------------------------- */

static int name_index (struct gp__uname *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp (t->v[i], s) == 0)
            return (int)i;
    char **nv = realloc (t->v, (t->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    t->v = nv;
    size_t l = strlen (s);
    if (!(nv[t->n] = malloc (l + 1)))
        return -1;
    memcpy (nv[t->n], s, l + 1);
    return (int)t->n++;
}

static int team_index (struct gp__usage_acc *a, const char *team)
{
    int t = name_index (&a->teams, team && *team ? team : "default");
    if (t < 0)
        return -1;
    if (a->teams.n > a->cap_teams) {
        size_t cap = a->cap_teams ? 2 * a->cap_teams : 16;
        double *us = realloc (a->util_sum, cap * sizeof *us);
        if (us)
            a->util_sum = us;
        double *uw = realloc (a->util_w, cap * sizeof *uw);
        if (uw)
            a->util_w = uw;
        size_t *it = realloc (a->items, cap * sizeof *it);
        if (it)
            a->items = it;
        if (!us || !uw || !it)
            return -1;
        for (size_t i = a->cap_teams; i < cap; i++)
            us[i] = uw[i] = 0, it[i] = 0;
        a->cap_teams = cap;
    }
    return t;
}

int gp__usage_add (struct gp__usage_acc *a, const char *team,
                   const char *pool, const char *qos, double gpu_hours,
                   int item, gp_error_t *err)
{
    int t = team_index (a, team);
    int p = name_index (&a->pools,
                        pool && *pool ? pool : GP__USAGE_UNASSIGNED);
    int q = qos && *qos ? name_index (&a->qos, qos) : -2;
    if (t < 0 || p < 0 || q == -1)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    if (item)
        a->items[t]++;
    for (size_t i = 0; i < a->n_cells; i++) {
        struct gp__ucell *c = &a->cells[i];
        if (c->team == t && c->pool == p && c->qos == q) {
            c->gpu_hours += gpu_hours;
            return 0;
        }
    }
    if (a->n_cells == a->cap_cells) {
        size_t cap = a->cap_cells ? 2 * a->cap_cells : 32;
        struct gp__ucell *nc = realloc (a->cells, cap * sizeof *nc);
        if (!nc)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
        a->cells = nc;
        a->cap_cells = cap;
    }
    a->cells[a->n_cells++] = (struct gp__ucell){t, p, q, gpu_hours};
    return 0;
}

int gp__usage_util (struct gp__usage_acc *a, const char *team, double u,
                    double w, gp_error_t *err)
{
    int t = team_index (a, team);
    if (t < 0)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    a->util_sum[t] += u * w;
    a->util_w[t] += w;
    return 0;
}

void gp__usage_span (struct gp__usage_acc *a, double t0, double t1)
{
    a->start_s = fmin (a->start_s, t0);
    a->end_s = fmax (a->end_s, t1);
}

/* ------------------------------ nodes -------------------------------- */

const char *gp__usage_node_pool (const struct gp__usage_acc *a,
                                 const char *node)
{
    if (!a->nodes || !node)
        return NULL;
    return json_string_value (json_object_get (a->nodes, node));
}

int gp__usage_nodes_from (struct gp__usage_acc *a, const json_t *root,
                          const char *name, gp_error_t *err)
{
    const json_t *items = json_object_get (root, "items");
    if (!json_is_array (items))
        return gp_errprintf (err, GP_EPARSE,
                             "%s: items: expected the list of "
                             "'kubectl get nodes -o json'",
                             name);
    if (!a->nodes && !(a->nodes = json_object ()))
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    size_t i;
    const json_t *it;
    json_array_foreach (items, i, it) {
        const char *kind = json_string_value (json_object_get (it, "kind"));
        if (!kind || strcmp (kind, "Node") != 0)
            continue;
        const json_t *md = json_object_get (it, "metadata");
        const char *nm = json_string_value (json_object_get (md, "name"));
        if (!nm)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: items[%zu].metadata.name: missing",
                                 name, i);
        const json_t *lb = json_object_get (json_object_get (md, "labels"),
                                            "gpuplan.io/pool");
        if (lb && !json_is_string (lb))
            return gp_errprintf (err, GP_EPARSE,
                                 "%s: items[%zu].metadata.labels."
                                 "gpuplan.io/pool: expected a string",
                                 name, i);
        if (lb && json_object_set (a->nodes, nm, (json_t *)lb) != 0)
            return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    return 0;
}

/* ------------------------------ result ------------------------------- */

static void acc_fini (struct gp__usage_acc *a)
{
    struct gp__uname *t[] = {&a->teams, &a->pools, &a->qos};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < t[k]->n; i++)
            free (t[k]->v[i]);
        free (t[k]->v);
    }
    free (a->cells);
    free (a->util_sum);
    free (a->util_w);
    free (a->items);
    json_decref (a->nodes);
}

void gp_usage_destroy (struct gp_usage *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->n_teams; i++) {
        free (u->teams[i].pools);
        free (u->teams[i].qos);
    }
    free (u->teams);
    free (u->rates);
    free (u);
}

double gp_usage_team_mean_gpus (const struct gp_usage *u, size_t i)
{
    if (!u || i >= u->n_teams || !(u->end_s > u->start_s))
        return 0;
    return u->teams[i].gpu_hours / ((u->end_s - u->start_s) / 3600);
}

static int cmp_team (const void *x, const void *y)
{
    return strcmp (((const struct gp_usage_team *)x)->team,
                   ((const struct gp_usage_team *)y)->team);
}

static int cmp_pool (const void *x, const void *y)
{
    return strcmp (((const struct gp_usage_pool *)x)->pool,
                   ((const struct gp_usage_pool *)y)->pool);
}

static int cmp_rate (const void *x, const void *y)
{
    return strcmp (((const struct gp_usage_rate *)x)->pool,
                   ((const struct gp_usage_rate *)y)->pool);
}

/* The rate of pool 'name' into 'r' (docs/formats/usage.md, "Cost"). */
static void price_pool (const struct gp_usage_request *req, const char *name,
                        struct gp_usage_rate *r)
{
    snprintf (r->pool, sizeof r->pool, "%s", name);
    r->usd_per_gpu_hour = -1;
    snprintf (r->basis, sizeof r->basis, "none");
    if (req->rate_usd > 0) {
        r->usd_per_gpu_hour = req->rate_usd;
        snprintf (r->basis, sizeof r->basis, "flag");
        snprintf (r->source, sizeof r->source, "--rate");
        return;
    }
    const struct gp_cluster *c = req->cluster;
    if (!c || !req->catalog) {
        snprintf (r->source, sizeof r->source, "%s",
                  c ? "no catalog to price the cluster's pools by"
                    : "no --rate and no --cluster to price by");
        return;
    }
    const struct gp_pool *hit = NULL;
    for (size_t i = 0; i < c->n_pools; i++)
        if (strcmp (c->pools[i].name, name) == 0)
            hit = &c->pools[i];
    if (!hit && strcmp (name, GP__USAGE_UNASSIGNED) == 0 && c->n_pools) {
        hit = &c->pools[0];
        for (size_t i = 1; i < c->n_pools; i++)
            if (c->pools[i].accel != hit->accel)
                hit = NULL;
        if (!hit) {
            snprintf (r->source, sizeof r->source,
                      "pool unknown and the cluster has several "
                      "accelerators");
            return;
        }
    }
    if (!hit) {
        snprintf (r->source, sizeof r->source,
                  "pool not in cluster '%s'", c->name);
        return;
    }
    struct gp_gpu_price pr;
    gp_error_t e = {0};
    if (gp_price_gpu_hour (req->catalog, hit->accel, NULL, &pr, &e) != 0) {
        snprintf (r->source, sizeof r->source, "%s", e.text);
        return;
    }
    r->usd_per_gpu_hour = pr.usd_per_gpu_hour;
    snprintf (r->basis, sizeof r->basis, "catalog");
    snprintf (r->source, sizeof r->source, "%s %s on_demand %s%s",
              hit->accel->id, pr.inst->id,
              pr.inst->price_as_of ? pr.inst->price_as_of : "undated",
              pr.flagged ? " (flagged)" : "");
}

static int build_team (const struct gp__usage_acc *a, size_t t,
                       const struct gp_usage_rate *rates,
                       struct gp_usage_team *ut)
{
    snprintf (ut->team, sizeof ut->team, "%s", a->teams.v[t]);
    ut->pools = calloc (a->pools.n ? a->pools.n : 1, sizeof *ut->pools);
    if (!ut->pools)
        return GP_ENOMEM;
    for (size_t i = 0; i < a->n_cells; i++) {
        const struct gp__ucell *c = &a->cells[i];
        if ((size_t)c->team != t)
            continue;
        struct gp_usage_pool *p = NULL;
        for (size_t k = 0; k < ut->n_pools; k++)
            if (strcmp (ut->pools[k].pool, a->pools.v[c->pool]) == 0)
                p = &ut->pools[k];
        if (!p) {
            p = &ut->pools[ut->n_pools++];
            snprintf (p->pool, sizeof p->pool, "%s", a->pools.v[c->pool]);
        }
        p->gpu_hours += c->gpu_hours;
    }
    qsort (ut->pools, ut->n_pools, sizeof *ut->pools, cmp_pool);
    if (a->qos.n && !(ut->qos = calloc (a->qos.n, sizeof *ut->qos)))
        return GP_ENOMEM;
    for (size_t i = 0; i < a->n_cells; i++) {
        const struct gp__ucell *c = &a->cells[i];
        if ((size_t)c->team != t || c->qos < 0)
            continue;
        struct gp_usage_pool *q = NULL;
        for (size_t k = 0; k < ut->n_qos; k++)
            if (strcmp (ut->qos[k].pool, a->qos.v[c->qos]) == 0)
                q = &ut->qos[k];
        if (!q) {
            q = &ut->qos[ut->n_qos++];
            snprintf (q->pool, sizeof q->pool, "%s", a->qos.v[c->qos]);
        }
        q->gpu_hours += c->gpu_hours;
    }
    if (ut->n_qos)
        qsort (ut->qos, ut->n_qos, sizeof *ut->qos, cmp_pool);
    for (size_t k = 0; k < ut->n_pools; k++) {
        struct gp_usage_pool *p = &ut->pools[k];
        const struct gp_usage_rate *r = NULL;
        for (size_t i = 0; i < a->pools.n; i++)
            if (strcmp (rates[i].pool, p->pool) == 0)
                r = &rates[i];
        ut->gpu_hours += p->gpu_hours;
        p->cost_usd = r && r->usd_per_gpu_hour >= 0
                          ? p->gpu_hours * r->usd_per_gpu_hour
                          : -1;
        if (p->cost_usd >= 0)
            ut->cost_usd += p->cost_usd;
        else
            ut->unpriced_gpu_hours += p->gpu_hours;
    }
    if (ut->unpriced_gpu_hours > 0)
        ut->cost_usd = -1;
    ut->utilization = a->util_w[t] > 0 ? a->util_sum[t] / a->util_w[t] : -1;
    ut->n_items = a->items[t];
    return 0;
}

static struct gp_usage *build (const struct gp_usage_request *req,
                               const struct gp__usage_acc *a,
                               gp_error_t *err)
{
    struct gp_usage *u = calloc (1, sizeof *u);
    if (!u)
        goto nomem;
    u->rates = calloc (a->pools.n ? a->pools.n : 1, sizeof *u->rates);
    u->teams = calloc (a->teams.n ? a->teams.n : 1, sizeof *u->teams);
    if (!u->rates || !u->teams)
        goto nomem;
    for (size_t i = 0; i < a->pools.n; i++)
        price_pool (req, a->pools.v[i], &u->rates[i]);
    u->n_rates = a->pools.n;
    for (size_t t = 0; t < a->teams.n; t++) {
        u->n_teams++; /* freed by gp_usage_destroy even when partial */
        if (build_team (a, t, u->rates, &u->teams[t]) != 0)
            goto nomem;
    }
    qsort (u->rates, u->n_rates, sizeof *u->rates, cmp_rate);
    qsort (u->teams, u->n_teams, sizeof *u->teams, cmp_team);
    for (size_t t = 0; t < u->n_teams; t++) {
        u->gpu_hours += u->teams[t].gpu_hours;
        if (u->cost_usd >= 0 && u->teams[t].cost_usd >= 0)
            u->cost_usd += u->teams[t].cost_usd;
        else
            u->cost_usd = -1;
    }
    u->start_s = isfinite (a->start_s) ? a->start_s : 0;
    u->end_s = isfinite (a->end_s) ? a->end_s : 0;
    u->idle_gpu_hours = a->idle_gpu_hours;
    u->step_s = a->step_s;
    u->n_counted = a->n_counted;
    u->n_running = a->n_running;
    u->n_pending = a->n_pending;
    u->n_no_gpu = a->n_no_gpu;
    return u;
nomem:
    gp_usage_destroy (u);
    gp_errprintf (err, GP_ENOMEM, "out of memory");
    return NULL;
}

/* The format of 'data': JSON with "items" is kubectl, JSON with "data"
 * (and "status") Prometheus, a '|'-separated header naming JobID sacct.
 */
static enum gp_usage_format detect (const char *data, const json_t *root)
{
    if (root) {
        if (json_object_get (root, "items"))
            return GP_USAGE_KUBECTL;
        if (json_object_get (root, "data") || json_object_get (root, "status"))
            return GP_USAGE_PROMETHEUS;
        return GP_USAGE_AUTO;
    }
    const char *nl = strchr (data, '\n');
    size_t n = nl ? (size_t)(nl - data) : strlen (data);
    const char *id = strstr (data, "JobID");
    if (id && (size_t)(id - data) < n && memchr (data, '|', n))
        return GP_USAGE_SACCT;
    return GP_USAGE_AUTO;
}

static int read_into (const struct gp_usage_request *req,
                      struct gp__usage_acc *a, enum gp_usage_format *fmt,
                      gp_error_t *err)
{
    size_t len = 0;
    char *data = gp__usage_slurp (req->trace_path, &len, err);
    if (!data)
        return err ? err->code : GP_EIO;
    size_t k = 0;
    while (k < len && (data[k] == ' ' || data[k] == '\n' || data[k] == '\t'
                       || data[k] == '\r'))
        k++;
    json_t *root = NULL;
    int rc = 0;
    if (k < len && data[k] == '{') {
        json_error_t je;
        root = json_loadb (data, len, 0, &je);
        if (!root)
            rc = gp_errprintf (err, GP_EPARSE, "%s:%d:%d: JSON: %s", a->name,
                               je.line, je.column, je.text);
    }
    if (rc == 0) {
        *fmt = req->format != GP_USAGE_AUTO ? req->format
                                            : detect (data, root);
        if (*fmt == GP_USAGE_AUTO)
            rc = gp_errprintf (err, GP_EPARSE,
                               "%s: not a usage input gpuplan reads "
                               "(kubectl get pods -A -o json, sacct "
                               "--parsable2, Prometheus query_range JSON; "
                               "docs/formats/usage.md)",
                               a->name);
        else if (*fmt != GP_USAGE_SACCT && !root)
            rc = gp_errprintf (err, GP_EPARSE, "%s: expected a JSON object "
                               "(--format %s)",
                               a->name, gp_usage_format_str (*fmt));
        else if (*fmt == GP_USAGE_KUBECTL)
            rc = gp__usage_kubectl (a, root, err);
        else if (*fmt == GP_USAGE_PROMETHEUS)
            rc = gp__usage_prometheus (a, root, err);
        else
            rc = gp__usage_sacct (a, data, len, err);
    }
    json_decref (root);
    free (data);
    return rc;
}

static int load_nodes (struct gp__usage_acc *a, const char *path,
                       gp_error_t *err)
{
    json_error_t je;
    json_t *root = json_load_file (path, 0, &je);
    if (!root)
        return gp_errprintf (err, je.line > 0 ? GP_EPARSE : GP_EIO,
                             "%s:%d:%d: %s", path, je.line, je.column,
                             je.text);
    int rc = gp__usage_nodes_from (a, root, path, err);
    json_decref (root);
    return rc;
}

struct gp_usage *gp_usage_read (const struct gp_usage_request *req,
                                gp_error_t *err)
{
    if (!req || !req->trace_path) {
        gp_errprintf (err, GP_EINVAL, "usage: no input given");
        return NULL;
    }
    if (req->rate_usd < 0 || !isfinite (req->rate_usd)) {
        gp_errprintf (err, GP_EINVAL, "usage: --rate must be a price >= 0");
        return NULL;
    }
    struct gp__usage_acc a;
    memset (&a, 0, sizeof a);
    a.name = strcmp (req->trace_path, "-") == 0 ? "<stdin>" : req->trace_path;
    a.until_s = -1;
    a.start_s = INFINITY;
    a.end_s = -INFINITY;
    if (req->until && (a.until_s = gp__usage_time (req->until)) < 0) {
        gp_errprintf (err, GP_EINVAL,
                      "usage: --until '%s' is not YYYY-MM-DDTHH:MM:SS[Z]",
                      req->until);
        return NULL;
    }
    enum gp_usage_format fmt = GP_USAGE_AUTO;
    int rc = req->nodes_path ? load_nodes (&a, req->nodes_path, err) : 0;
    if (rc == 0)
        rc = read_into (req, &a, &fmt, err);
    struct gp_usage *u = rc == 0 ? build (req, &a, err) : NULL;
    if (u) {
        u->format = fmt;
        snprintf (u->input, sizeof u->input, "%s", a.name);
    }
    acc_fini (&a);
    return u;
}
