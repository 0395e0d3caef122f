/* grafana.c - a Grafana dashboard of a cluster spec over DCGM exporter
 * metrics, Kueue metrics and gpuplan's recording rules
 * (docs/formats/export-grafana.md).
 *
 * One datasource variable ${datasource} (type prometheus) feeds every
 * panel; the spec's DCGM pools and teams become the 'pool' and 'team'
 * variables, and each team gets its own usage-against-quota panel with
 * its quota and cap as thresholds.  The panels query only the series the
 * 'prometheus' target records (gpuplan:*), which join DCGM metrics to the
 * pool by the gpuplan.io/pool node label, and Kueue's own metrics.  The
 * JSON is built with jansson; team names enter PromQL through
 * gp__promql_str().
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcgm_fields.h"
#include "quote.h"

/* Grafana 10.0's dashboard schema; Grafana 11 migrates it on import. */
#define GP_GRAFANA_SCHEMA 38

/* The dashboard being built: panels and the next free grid slot. */
struct dash {
    json_t *panels;
    int id;             /* last panel id */
    int x, y, row_h;    /* grid cursor (24 columns) */
    int err;            /* an allocation failed */
};

static json_t *ds (void)
{
    return json_pack ("{s:s, s:s}", "type", "prometheus", "uid",
                      "${datasource}");
}

static void add (struct dash *d, json_t *arr, json_t *v)
{
    if (!v || json_array_append_new (arr, v) != 0)
        d->err = 1;
}

/* A row header across the grid. */
static void row (struct dash *d, const char *title)
{
    if (d->x > 0)
        d->y += d->row_h;
    d->x = 0;
    d->row_h = 0;
    add (d, d->panels,
         json_pack ("{s:i, s:s, s:s, s:b, s:{s:i, s:i, s:i, s:i}, s:[]}",
                    "id", ++d->id, "type", "row", "title", title,
                    "collapsed", 0, "gridPos", "h", 1, "w", 24, "x", 0, "y",
                    d->y, "panels"));
    d->y += 1;
}

/* Options of each panel type, as Grafana 10 writes them. */
static json_t *options (const char *type)
{
    if (!strcmp (type, "timeseries"))
        return json_pack ("{s:{s:s, s:s, s:b, s:[s, s, s]}, s:{s:s, s:s}}",
                          "legend", "displayMode", "table", "placement",
                          "right", "showLegend", 1, "calcs", "mean",
                          "lastNotNull", "max", "tooltip", "mode", "multi",
                          "sort", "none");
    if (!strcmp (type, "stat"))
        return json_pack ("{s:{s:[s], s:s, s:b}, s:s, s:s, s:s, s:s, s:s}",
                          "reduceOptions", "calcs", "lastNotNull", "fields",
                          "", "values", 0, "colorMode", "value", "graphMode",
                          "area", "textMode", "auto", "orientation", "auto",
                          "justifyMode", "auto");
    return json_pack ("{s:b, s:b}", "showHeader", 1, "cellHeight", 0);
}

/* A panel of 'type' placed at the next free slot, 'w' x 'h' grid units,
 * values in Grafana unit 'unit'; its targets are added with target().
 */
static json_t *panel (struct dash *d, const char *type, const char *title,
                      const char *desc, int w, int h, const char *unit)
{
    if (d->x + w > 24) {
        d->y += d->row_h;
        d->x = 0;
        d->row_h = 0;
    }
    json_t *p = json_pack (
        "{s:i, s:s, s:s, s:s, s:o, s:{s:i, s:i, s:i, s:i}, s:{s:{s:s, "
        "s:{s:s, s:[{s:s, s:n}]}}, s:[]}, s:o, s:[]}",
        "id", ++d->id, "type", type, "title", title, "description", desc,
        "datasource", ds (), "gridPos", "h", h, "w", w, "x", d->x, "y", d->y,
        "fieldConfig", "defaults", "unit", unit, "thresholds", "mode",
        "absolute", "steps", "color", "green", "value", "overrides",
        "options", options (type), "targets");
    /* Tables: one row per series, the instant queries' frames merged
     * into columns "Value #A", "Value #B", ..., the time column hidden.
     */
    if (p && !strcmp (type, "table")
        && json_object_set_new (
               p, "transformations",
               json_pack ("[{s:s, s:{}}, {s:s, s:{s:{s:b}}}]", "id", "merge",
                          "options", "id", "organize", "options",
                          "excludeByName", "Time", 1)))
        d->err = 1;
    d->x += w;
    if (h > d->row_h)
        d->row_h = h;
    add (d, d->panels, p);
    return p;
}

/* A threshold step at 'v' in colour 'color' (after the green base). */
static void threshold (struct dash *d, json_t *p, double v, const char *color)
{
    json_t *steps = json_object_get (
        json_object_get (
            json_object_get (json_object_get (p, "fieldConfig"), "defaults"),
            "thresholds"),
        "steps");
    if (steps)
        add (d, steps, json_pack ("{s:s, s:f}", "color", color, "value", v));
}

static void minmax (json_t *p, double lo, double hi)
{
    json_t *def =
        json_object_get (json_object_get (p, "fieldConfig"), "defaults");
    if (!def)
        return;
    json_object_set_new (def, "min", json_real (lo));
    if (hi > lo)
        json_object_set_new (def, "max", json_real (hi));
}

/* A PromQL target; 'instant' for table panels (one row per series). */
static void target (struct dash *d, json_t *p, const char *expr,
                    const char *legend, int instant)
{
    json_t *t = json_object_get (p, "targets");
    if (!p || !t) {
        d->err = 1;
        return;
    }
    char ref[2] = {(char)('A' + json_array_size (t)), '\0'};
    add (d, t,
         json_pack ("{s:s, s:o, s:s, s:s, s:b, s:b, s:s, s:s}", "refId", ref,
                    "datasource", ds (), "expr", expr, "legendFormat", legend,
                    "range", !instant, "instant", instant, "format",
                    instant ? "table" : "time_series", "editorMode",
                    "code"));
}

static void pool_panels (struct dash *d)
{
    json_t *p;
    row (d, "Pools");
    p = panel (d, "stat", "GPUs reporting / planned",
               "DCGM GPUs per pool against the plan's nodes x GPUs per node",
               8, 6, "none");
    target (d, p, "gpuplan:pool_gpus_reporting:count{pool=~\"$pool\"}",
            "{{pool}} reporting", 0);
    target (d, p, "gpuplan:pool_planned_gpus{pool=~\"$pool\"}",
            "{{pool}} planned", 0);
    p = panel (d, "stat", "Idle GPUs",
               "GPUs with no pod, and GPUs held by a pod but under 5 % "
               "busy for 30 minutes",
               8, 6, "none");
    target (d, p, "gpuplan:pool_gpus_unallocated:count{pool=~\"$pool\"}",
            "{{pool}} unallocated", 0);
    target (d, p, "gpuplan:pool_gpus_idle:count{pool=~\"$pool\"}",
            "{{pool}} allocated, idle", 0);
    p = panel (d, "stat", "Pool power",
               "Sum of " GP__DCGM_POWER_USAGE " per pool", 8, 6, "watt");
    target (d, p, "gpuplan:pool_power_watts:sum{pool=~\"$pool\"}", "{{pool}}",
            0);
    p = panel (d, "timeseries", "Pool GPU utilization",
               "Average " GP__DCGM_GPU_UTIL " per pool; the lines are the "
               "alerts' 30 % and 90 %",
               24, 8, "percent");
    minmax (p, 0, 100);
    threshold (d, p, 30, "yellow");
    threshold (d, p, 90, "red");
    target (d, p, "gpuplan:pool_gpu_util:avg{pool=~\"$pool\"}", "{{pool}}", 0);
}

static void gpu_panels (struct dash *d)
{
    json_t *p;
    row (d, "GPUs");
    p = panel (d, "timeseries", "GPU utilization",
               GP__DCGM_GPU_UTIL " per GPU", 12, 8, "percent");
    minmax (p, 0, 100);
    target (d, p,
            "gpuplan:gpu_util:with_pool{pool=~\"$pool\", node=~\"$node\"}",
            "{{node}} GPU {{gpu}}", 0);
    p = panel (d, "timeseries", "GPU framebuffer memory used",
               GP__DCGM_FB_USED " per GPU (MiB)", 12, 8, "mbytes");
    minmax (p, 0, 0);
    target (d, p,
            "gpuplan:gpu_fb_used_mib:with_pool{pool=~\"$pool\", "
            "node=~\"$node\"}",
            "{{node}} GPU {{gpu}}", 0);
    row (d, "Nodes");
    p = panel (d, "timeseries", "Node GPU utilization",
               "Average " GP__DCGM_GPU_UTIL " of each node's GPUs", 12, 8,
               "percent");
    minmax (p, 0, 100);
    target (d, p,
            "avg by (node, pool) (gpuplan:gpu_util:with_pool{pool=~\"$pool\","
            " node=~\"$node\"})",
            "{{node}}", 0);
    p = panel (d, "table", "GPUs per node",
               "GPUs reporting, GPUs held by pods, and power per node", 12,
               8, "none");
    target (d, p,
            "count by (node, pool) (gpuplan:gpu_util:with_pool{pool=~"
            "\"$pool\", node=~\"$node\"})",
            "reporting", 1);
    target (d, p,
            "count by (node, pool) (gpuplan:gpu_util:with_pool{pool=~"
            "\"$pool\", node=~\"$node\", namespace!=\"\"})",
            "in use", 1);
    target (d, p,
            "sum by (node, pool) (gpuplan:gpu_power_watts:with_pool{pool=~"
            "\"$pool\", node=~\"$node\"})",
            "watts", 1);
}

/* One panel per team: its GPUs in the selected pools against its quota
 * and cap there, with the team's whole quota and cap as thresholds.
 */
static void team_panel (struct dash *d, const struct gp_cluster *c,
                        const struct gp_team *t, struct limits *l,
                        struct sb *e)
{
    long long quota = 0, cap = 0;
    gp__team_limits (c, t, l->nom, l->bor, l->len);
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        if (strcmp (p->accel->vendor, "NVIDIA") != 0)
            continue;
        quota += l->nom[i] < gp__pool_gpus (p) ? l->nom[i] : gp__pool_gpus (p);
        cap += gp__pool_cap (c, t, l, i);
    }
    char title[GP_NAME_MAX + 48];
    snprintf (title, sizeof title, "Team %s: GPUs against quota", t->name);
    json_t *p = panel (d, "timeseries", title,
                       "GPUs the team's pods hold in the selected DCGM "
                       "pools; thresholds at its quota and its cap (quota "
                       "plus what it can borrow) in all DCGM pools",
                       8, 8, "none");
    threshold (d, p, (double)quota, "yellow");
    threshold (d, p, (double)cap + 0.5, "red");
    static const char *const what[][2] = {
        {"gpuplan:team_pool_gpus:count", "in use"},
        {"gpuplan:team_pool_quota_gpus", "quota"},
        {"gpuplan:team_pool_cap_gpus", "cap"},
    };
    for (size_t k = 0; k < 3; k++) {
        gp__sb_printf (e, "sum(%s{team=", what[k][0]);
        gp__promql_str (e, t->name);
        gp__sb_printf (e, ", pool=~\"$pool\"})");
        if (!e->oom)
            target (d, p, e->s, what[k][1], 0);
        e->len = 0;
    }
}

static void team_panels (struct dash *d, const struct gp_cluster *c,
                         struct limits *l, struct sb *e)
{
    json_t *p;
    row (d, "Teams (chargeback)");
    p = panel (d, "table", "GPU-hours by team and pool (dashboard range)",
               "GPUs held by each team's pods integrated over the range, "
               "one sample a minute",
               12, 8, "none");
    target (d, p,
            "sum by (team, pool) (sum_over_time(gpuplan:team_pool_gpus:count"
            "{pool=~\"$pool\"}[$__range:1m])) / 60",
            "GPU-hours", 1);
    p = panel (d, "timeseries", "GPUs in use by team",
               "GPUs held by each team's pods (DCGM pod mapping)", 12, 8,
               "none");
    target (d, p,
            "sum by (team) (gpuplan:team_pool_gpus:count{pool=~\"$pool\", "
            "team=~\"$team\"})",
            "{{team}}", 0);
    for (size_t i = 0; i < c->n_teams; i++)
        team_panel (d, c, &c->teams[i], l, e);
}

static void queue_panels (struct dash *d)
{
    json_t *p;
    row (d, "Queues (Kueue)");
    p = panel (d, "timeseries", "Pending workloads",
               "kueue_pending_workloads per ClusterQueue (one per team) "
               "and status (active, inadmissible)",
               12, 8, "none");
    target (d, p,
            "sum by (cluster_queue, status) (kueue_pending_workloads"
            "{cluster_queue=~\"$team\"})",
            "{{cluster_queue}} {{status}}", 0);
    p = panel (d, "timeseries", "Admitted active workloads",
               "kueue_admitted_active_workloads per ClusterQueue", 12, 8,
               "none");
    target (d, p,
            "sum by (cluster_queue) (kueue_admitted_active_workloads"
            "{cluster_queue=~\"$team\"})",
            "{{cluster_queue}}", 0);
}

/* A custom variable listing 'n' names, multi-select; "All" is the
 * alternation of exactly these names (DNS-1123 labels: no regex
 * metacharacters), so that "All" covers the spec's pools or teams only.
 */
static json_t *custom_var (const char *name, const char *label,
                           const char *const *v, size_t n, struct sb *q)
{
    json_t *opts = json_array ();
    q->len = 0;
    gp__sb_printf (q, "%s", "");
    for (size_t i = 0; i < n && opts; i++) {
        gp__sb_printf (q, "%s%s", i ? "," : "", v[i]);
        if (json_array_append_new (opts, json_pack ("{s:b, s:s, s:s}",
                                                    "selected", 0, "text",
                                                    v[i], "value", v[i])))
            q->oom = 1;
    }
    json_t *var = q->oom ? NULL : json_pack (
        "{s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:{s:[s], s:[s]}, s:o*, s:i}",
        "type", "custom", "name", name, "label", label, "query", q->s,
        "multi", 1, "includeAll", 1, "allValue", "", "current", "text",
        "All", "value", "$__all", "options", opts, "hide", 0);
    if (!var)
        return NULL;
    /* "All": each name escaped for a regex inside a PromQL string (the
     * variable lands in pool=~"$pool"), joined with '|'.
     */
    struct sb one = {0};
    q->len = 0;
    gp__sb_printf (q, "%s", n ? "" : ".*");
    for (size_t i = 0; i < n; i++) {
        one.len = 0;
        gp__promql_re (&one, v[i]);
        if (!one.oom && one.len >= 2)
            gp__sb_printf (q, "%s%.*s", i ? "|" : "", (int)(one.len - 2),
                           one.s + 1);
    }
    int bad = one.oom || q->oom
              || json_object_set_new (var, "allValue", json_string (q->s));
    free (one.s);
    if (bad) {
        json_decref (var);
        return NULL;
    }
    return var;
}

static json_t *variables (const struct gp_cluster *c, struct sb *q)
{
    const char **names = calloc (c->n_pools + c->n_teams + 1, sizeof *names);
    if (!names)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        if (!strcmp (c->pools[i].accel->vendor, "NVIDIA"))
            names[n++] = c->pools[i].name;
    json_t *list = json_pack (
        "[{s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:s, s:{}, s:[], s:i}, o*]",
        "type", "datasource", "name", "datasource", "label", "Data source",
        "query", "prometheus", "hide", 0, "multi", 0, "includeAll", 0,
        "regex", "", "current", "options", "refresh", 1,
        custom_var ("pool", "Pool", names, n, q));
    n = 0;
    for (size_t i = 0; i < c->n_teams; i++)
        names[n++] = c->teams[i].name;
    if (list)
        json_array_append_new (list, custom_var ("team", "Team", names, n, q));
    free (names);
    json_t *node = json_pack (
        "{s:s, s:s, s:s, s:o, s:s, s:{s:s, s:s}, s:i, s:b, s:b, s:s, s:i, "
        "s:{s:s, s:s}, s:[]}",
        "type", "query", "name", "node", "label", "Node", "datasource", ds (),
        "definition",
        "label_values(gpuplan:gpu_util:with_pool{pool=~\"$pool\"}, node)",
        "query", "query",
        "label_values(gpuplan:gpu_util:with_pool{pool=~\"$pool\"}, node)",
        "refId", "PrometheusVariableQueryEditor-VariableQuery", "refresh", 2,
        "multi", 1, "includeAll", 1, "allValue", ".*", "sort", 1, "current",
        "text", "All", "value", "$__all", "options");
    if (list && node)
        json_array_append_new (list, node);
    else
        json_decref (node);
    return list;
}

static json_t *dashboard (const struct gp_cluster *c, struct dash *d,
                          struct limits *l, struct sb *e)
{
    pool_panels (d);
    gpu_panels (d);
    team_panels (d, c, l, e);
    queue_panels (d);
    char uid[41], title[GP_NAME_MAX + 16];
    snprintf (uid, sizeof uid, "gpuplan-%.32s", c->name);
    snprintf (title, sizeof title, "gpuplan: %s", c->name);
    json_t *vars = variables (c, e);
    /* datasource, pool, team, node */
    if (!vars || json_array_size (vars) != 4)
        d->err = 1;
    return json_pack (
        "{s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, "
        "s:s}, {s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}], "
        "s:{s:[{s:i, s:{s:s, s:s}, s:b, s:b, s:s, s:s, s:s}]}, s:s, s:b, "
        "s:i, s:n, s:[], s:o, s:s, s:i, s:[s, s, s], s:{s:o*}, "
        "s:{s:s, s:s}, s:{}, s:s, s:s, s:s, s:i, s:s}",
        "__requires", "type", "grafana", "id", "grafana", "name", "Grafana",
        "version", "10.0.0", "type", "datasource", "id", "prometheus", "name",
        "Prometheus", "version", "1.0.0", "type", "panel", "id", "timeseries",
        "name", "Time series", "version", "", "type", "panel", "id", "stat",
        "name", "Stat", "version", "", "type", "panel", "id", "table", "name",
        "Table", "version", "", "annotations", "list", "builtIn", 1,
        "datasource", "type", "grafana", "uid", "-- Grafana --", "enable", 1,
        "hide", 1, "iconColor", "rgba(0, 211, 255, 1)", "name",
        "Annotations & Alerts", "type", "dashboard", "description",
        "GPU pools, teams and queues of the cluster spec, over DCGM exporter "
        "and Kueue metrics and the recording rules of 'gpuplan export "
        "prometheus'",
        "editable", 1, "graphTooltip", 1, "id", "links", "panels",
        d->panels, "refresh", "1m", "schemaVersion", GP_GRAFANA_SCHEMA,
        "tags", "gpuplan", "gpu", "dcgm", "templating", "list", vars, "time",
        "from", "now-24h", "to", "now", "timepicker", "timezone", "", "title",
        title, "uid", uid, "version", 1, "weekStart", "");
}

static int write_grafana (const struct gp_cluster *c,
                          const struct gp_export_opts *o, struct gp_export *x,
                          gp_error_t *err)
{
    (void)o;
    (void)err;
    struct dash d = {.panels = json_array ()};
    struct sb e = {0}, b = {0};
    struct limits l;
    int bad = gp__limits_alloc (&l, c->n_pools) != 0 || !d.panels;
    json_t *j = NULL;
    if (!bad) {
        gp__sb_printf (&e, "%s", "");
        j = dashboard (c, &d, &l, &e);
        d.panels = NULL; /* owned by 'j' now (or freed with it) */
    }
    json_decref (d.panels);
    gp__limits_free (&l);
    free (e.s);
    char *text = j && !d.err && !e.oom
                     ? json_dumps (j, JSON_INDENT (2) | JSON_PRESERVE_ORDER)
                     : NULL;
    json_decref (j);
    if (!text)
        return GP_ENOMEM;
    gp__sb_printf (&b, "%s\n", text);
    free (text);
    return gp__export_add_file (x, "gpuplan-dashboard.json", &b) ? GP_ENOMEM
                                                                 : 0;
}

const struct gp_export_target_ops gp__export_grafana = {
    .name = "grafana",
    .k8s_names = 1,
    .write = write_grafana,
};
