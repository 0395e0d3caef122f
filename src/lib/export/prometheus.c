/* prometheus.c - Prometheus recording and alerting rules over DCGM
 * exporter metrics that compare the running cluster with the plan
 * (docs/formats/export-prometheus.md).
 *
 * Pools are selected by one label everywhere: the node label
 * gpuplan.io/pool that the Kueue ResourceFlavors select on, read from
 * kube-state-metrics' kube_node_labels and joined to the DCGM series on
 * the node name.  Team usage is counted per pool and compared with the
 * team's cap in that pool, so counts and caps always cover the same GPUs.
 * All YAML goes through libyaml's emitter, every label value in PromQL
 * through gp__promql_str().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcgm_fields.h"
#include "quote.h"

/* XID codes that need an operator (NVIDIA "XID Errors" catalogue): 48
 * double-bit ECC, 63/64 row remapping events and failures, 74 NVLink
 * error, 79 GPU fallen off the bus, 92 high single-bit ECC rate, 94/95
 * contained/uncontained ECC errors.
 */
static const int xid_critical[] = {48, 63, 64, 74, 79, 92, 94, 95};

/* The DCGM series of one GPU with the node name in 'node' (from the
 * exporter's Hostname label; 'hostname' on its main branch) and the pool
 * of that node joined from gpuplan:node_pool:info.
 */
#define GP_WITH_POOL(metric)                                                  \
    "label_replace(label_replace(" metric ", \"node\", \"$1\", "              \
    "\"hostname\", \"(.+)\"), \"node\", \"$1\", \"Hostname\", \"(.+)\") "     \
    "* on (node) group_left (pool) gpuplan:node_pool:info"

/* Recording rules that do not depend on the spec: name, expression. */
static const char *const generic_rules[][2] = {
    {"gpuplan:node_pool:info",
     "max by (node, pool) (label_replace(kube_node_labels"
     "{label_gpuplan_io_pool!=\"\"}, \"pool\", \"$1\", "
     "\"label_gpuplan_io_pool\", \"(.+)\"))"},
    {"gpuplan:gpu_util:with_pool", GP_WITH_POOL (GP__DCGM_GPU_UTIL)},
    {"gpuplan:gpu_fb_used_mib:with_pool",
     GP_WITH_POOL (GP__DCGM_FB_USED)},
    {"gpuplan:gpu_power_watts:with_pool",
     GP_WITH_POOL (GP__DCGM_POWER_USAGE)},
    {"gpuplan:pool_gpu_util:avg",
     "avg by (pool) (gpuplan:gpu_util:with_pool)"},
    {"gpuplan:pool_gpus_reporting:count",
     "count by (pool) (gpuplan:gpu_util:with_pool)"},
    {"gpuplan:pool_power_watts:sum",
     "sum by (pool) (gpuplan:gpu_power_watts:with_pool)"},
    {"gpuplan:team_pool_gpus:count",
     "count by (team, pool) (label_replace(gpuplan:gpu_util:with_pool"
     "{namespace!=\"\"}, \"team\", \"$1\", \"namespace\", \"(.+)\"))"},
    {"gpuplan:pool_gpus_unallocated:count",
     "count by (pool) (gpuplan:gpu_util:with_pool{namespace=\"\"})"},
    {"gpuplan:pool_gpus_idle:count",
     "count by (pool) (avg_over_time(gpuplan:gpu_util:with_pool"
     "{namespace!=\"\"}[30m]) < 5)"},
};

/* Empty 'b' for the next expression (keeping its buffer). */
static void take (struct sb *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

/* A recording rule 'name' = 'expr' with up to two labels (NULL keys are
 * skipped).
 */
static void record (struct gp__yaml *y, const char *name, const char *expr,
                    const char *k1, const char *v1, const char *k2,
                    const char *v2)
{
    gp__y_map (y);
    gp__y_kstr (y, "record", name);
    gp__y_kstr (y, "expr", expr);
    if (k1) {
        gp__y_key (y, "labels");
        gp__y_map (y);
        gp__y_kstr (y, k1, v1);
        if (k2)
            gp__y_kstr (y, k2, v2);
        gp__y_map_end (y);
    }
    gp__y_map_end (y);
}

/* An alert: 'name', 'expr', hold time 'hold' (NULL: none), severity, up
 * to two more labels, and the summary annotation.
 */
struct alert {
    const char *name, *expr, *hold, *severity;
    const char *k1, *v1, *k2, *v2;
    const char *summary;
};

static void alert (struct gp__yaml *y, const struct alert *a)
{
    gp__y_map (y);
    gp__y_kstr (y, "alert", a->name);
    gp__y_kstr (y, "expr", a->expr);
    if (a->hold)
        gp__y_kstr (y, "for", a->hold);
    gp__y_key (y, "labels");
    gp__y_map (y);
    gp__y_kstr (y, "severity", a->severity);
    if (a->k1)
        gp__y_kstr (y, a->k1, a->v1);
    if (a->k2)
        gp__y_kstr (y, a->k2, a->v2);
    gp__y_map_end (y);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "summary", a->summary);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

static int is_dcgm (const struct gp_pool *p)
{
    return !strcmp (p->accel->vendor, "NVIDIA");
}

/* The plan's numbers as series, so that dashboards can draw usage against
 * them: GPUs per pool, each team's quota and cap per pool.
 */
static void plan_series (const struct gp_cluster *c, struct gp__yaml *y,
                         struct limits *l, struct sb *e)
{
    char num[32];
    for (size_t i = 0; i < c->n_pools; i++) {
        if (!is_dcgm (&c->pools[i]))
            continue;
        gp__sb_printf (e, "vector(%lld)", gp__pool_gpus (&c->pools[i]));
        record (y, "gpuplan:pool_planned_gpus", e->s, "pool",
                c->pools[i].name, NULL, NULL);
        take (e);
    }
    for (size_t ti = 0; ti < c->n_teams; ti++) {
        const struct gp_team *t = &c->teams[ti];
        gp__team_limits (c, t, l->nom, l->bor, l->len);
        for (size_t i = 0; i < c->n_pools; i++) {
            const struct gp_pool *p = &c->pools[i];
            if (!is_dcgm (p))
                continue;
            long long nom = l->nom[i] < gp__pool_gpus (p) ? l->nom[i]
                                                          : gp__pool_gpus (p);
            snprintf (num, sizeof num, "vector(%lld)", nom);
            record (y, "gpuplan:team_pool_quota_gpus", num, "team", t->name,
                    "pool", p->name);
            snprintf (num, sizeof num, "vector(%lld)",
                      gp__pool_cap (c, t, l, i));
            record (y, "gpuplan:team_pool_cap_gpus", num, "team", t->name,
                    "pool", p->name);
        }
    }
}

/* Append 'metric{pool="<p>"}' to 'e'. */
static void pool_sel (struct sb *e, const char *metric, const struct gp_pool *p)
{
    gp__sb_printf (e, "%s{pool=", metric);
    gp__promql_str (e, p->name);
    gp__sb_printf (e, "}");
}

/* Write alert 'a' on pool 'p' (its expression in 'e', its summary in
 * 's'), then empty both buffers for the next one.
 */
static void pool_alert (struct gp__yaml *y, struct alert a,
                        const struct gp_pool *p, struct sb *e, struct sb *s)
{
    a.expr = e->s;
    a.summary = s->s;
    a.k1 = "pool";
    a.v1 = p->name;
    alert (y, &a);
    take (e);
    take (s);
}

static void pool_alerts (const struct gp_pool *p, struct gp__yaml *y,
                         struct sb *e, struct sb *s)
{
    long long planned = gp__pool_gpus (p);
    gp__sb_printf (e, "absent(");
    pool_sel (e, "gpuplan:pool_gpus_reporting:count", p);
    gp__sb_printf (e, ") or ");
    pool_sel (e, "gpuplan:pool_gpus_reporting:count", p);
    gp__sb_printf (e, " < %lld", planned);
    gp__sb_printf (s, "Pool %s reports fewer GPUs than the %lld planned",
                   p->name, planned);
    pool_alert (y, (struct alert){"GpuplanGPUsMissing", NULL, "15m",
                                  "warning", NULL, NULL, NULL, NULL, NULL},
                p, e, s);
    pool_sel (e, "gpuplan:pool_gpu_util:avg", p);
    gp__sb_printf (e, " > 90");
    gp__sb_printf (s, "Pool %s above 90%% GPU utilization for a day: queues "
                      "grow; re-run the plan with the observed demand",
                   p->name);
    pool_alert (y, (struct alert){"GpuplanPoolSaturated", NULL, "24h", "info",
                                  NULL, NULL, NULL, NULL, NULL},
                p, e, s);
    gp__sb_printf (e, "avg_over_time(");
    pool_sel (e, "gpuplan:pool_gpu_util:avg", p);
    gp__sb_printf (e, "[7d]) < 30");
    gp__sb_printf (s, "Pool %s below 30%% GPU utilization over a week: "
                      "capacity or quotas exceed the demand",
                   p->name);
    pool_alert (y, (struct alert){"GpuplanPoolUnderused", NULL, "1h", "info",
                                  NULL, NULL, NULL, NULL, NULL},
                p, e, s);
}

/* One alert per team and DCGM pool: the team's GPUs in that pool against
 * its cap in that pool (gp__pool_cap), the same GPUs on both sides.
 */
static void team_alerts (const struct gp_cluster *c, struct gp__yaml *y,
                         struct limits *l, struct sb *e, struct sb *s)
{
    for (size_t ti = 0; ti < c->n_teams; ti++) {
        const struct gp_team *t = &c->teams[ti];
        gp__team_limits (c, t, l->nom, l->bor, l->len);
        for (size_t i = 0; i < c->n_pools; i++) {
            const struct gp_pool *p = &c->pools[i];
            if (!is_dcgm (p))
                continue;
            long long cap = gp__pool_cap (c, t, l, i);
            gp__sb_printf (e, "gpuplan:team_pool_gpus:count{team=");
            gp__promql_str (e, t->name);
            gp__sb_printf (e, ", pool=");
            gp__promql_str (e, p->name);
            gp__sb_printf (e, "} > %lld", cap);
            gp__sb_printf (s, "Team %s holds more GPUs in pool %s than its "
                              "quota plus what it can borrow there (%lld)",
                           t->name, p->name, cap);
            alert (y, &(struct alert){"GpuplanTeamOverQuota", e->s, "30m",
                                      "warning", "team", t->name, "pool",
                                      p->name, s->s});
            take (e);
            take (s);
        }
    }
}

/* ============================ GPU health ============================== */

/* Who and where, for every per-GPU summary. */
#define GPU_AT "GPU {{ $labels.gpu }} on {{ $labels.Hostname }}{{ " \
               "$labels.hostname }}"

/* The clock-event reasons of each GPU under either name of the field
 * (one series per GPU even when a CSV lists both names).
 */
#define CLOCK_REASONS "gpuplan:gpu_clock_event_reasons"

/* Per-link-generation PCIe replay limit per minute, DCGM's health watch:
 * ceil(1e-12 bit error rate x lane rate x 60 s x lanes), lane rates 2.5,
 * 5, 8, 16, 32, 64 GT/s for generations 1 to 6: per lane and minute
 * 0.48 x 2^(gen - 3) from generation 3 on (8 GT/s: 0.48), plus 0.03 and
 * 0.06 for generations 1 and 2 (0.15, 0.3)
 * (docs/formats/export-prometheus.md, "GPU health").
 */
#define PCIE_GEN GP__DCGM_PCIE_LINK_GEN
#define PCIE_LIMIT                                                            \
    "ceil(" GP__DCGM_PCIE_LINK_WIDTH " * (0.48 * 2 ^ (" PCIE_GEN " - 3) + "  \
    "0.03 * (" PCIE_GEN " == bool 1) + 0.06 * (" PCIE_GEN " == bool 2)))"

/* "sum of floor(R / bit) % 2 over the bits of 'mask' > 0": whether any
 * bit of 'mask' is set in the reasons R (PromQL has no bitwise and).
 */
static void bits_set (struct sb *e, unsigned mask)
{
    const char *sep = "";
    for (unsigned bit = 1; bit && bit <= mask; bit <<= 1)
        if (mask & bit) {
            gp__sb_printf (e, "%sfloor(" CLOCK_REASONS " / %u) %% 2", sep,
                           bit);
            sep = " + ";
        }
    gp__sb_printf (e, " > 0");
}

/* The GPU health alerts over DCGM fields the exported dcgm-exporter
 * counters enable (dcgm_fields.h); thresholds from DCGM's health watches
 * (DCGM FAIL -> critical, WARN -> warning), sources in
 * docs/formats/export-prometheus.md.
 */
static void health_rules (struct gp__yaml *y, struct sb *e)
{
    record (y, CLOCK_REASONS,
            "max without () ({__name__=~\"" GP__DCGM_CLOCK_EVENTS "|"
            GP__DCGM_CLOCK_EVENTS_OLD "\"})",
            NULL, NULL, NULL, NULL);
    bits_set (e, GP__DCGM_CLOCKS_SW_THERMAL | GP__DCGM_CLOCKS_HW_THERMAL);
    alert (y, &(struct alert){"GpuplanGPUThermalThrottle", e->s, "2m",
                              "warning", NULL, NULL, NULL, NULL,
                              GPU_AT " is slowed down for temperature "
                              "(clock event SW_THERMAL or HW_THERMAL)"});
    take (e);
    bits_set (e, GP__DCGM_CLOCKS_HW_SLOWDOWN
                     | GP__DCGM_CLOCKS_HW_POWER_BRAKE);
    alert (y, &(struct alert){"GpuplanGPUPowerThrottle", e->s, "2m",
                              "warning", NULL, NULL, NULL, NULL,
                              GPU_AT " is slowed down by hardware (clock "
                              "event HW_SLOWDOWN or HW_POWER_BRAKE): check "
                              "power supply and cooling"});
    take (e);
    alert (y, &(struct alert){
                  "GpuplanGPUTemperatureHigh",
                  GP__DCGM_GPU_TEMP " >= (" GP__DCGM_GPU_MAX_OP_TEMP " > 0)",
                  "5m", "warning", NULL, NULL, NULL, NULL,
                  GPU_AT " at {{ $value }} C, at or above its maximum "
                  "operating temperature"});
    alert (y, &(struct alert){
                  "GpuplanGPUMemoryTemperatureHigh",
                  GP__DCGM_MEM_TEMP " >= (" GP__DCGM_MEM_MAX_OP_TEMP " > 0)",
                  "5m", "warning", NULL, NULL, NULL, NULL,
                  "Memory of " GPU_AT " at {{ $value }} C, at or above its "
                  "maximum operating temperature (slowdown)"});
    alert (y, &(struct alert){
                  "GpuplanGPUThermalViolation",
                  "increase(" GP__DCGM_THERMAL_VIOLATION "[5m]) > 0", NULL,
                  "warning", NULL, NULL, NULL, NULL,
                  GPU_AT " spent time throttled for temperature in the last "
                  "5 minutes"});
    alert (y, &(struct alert){
                  "GpuplanGPUEccDoubleBit", GP__DCGM_ECC_DBE_VOL " > 0", NULL,
                  "critical", NULL, NULL, NULL, NULL,
                  GPU_AT " has {{ $value }} double-bit ECC errors since the "
                  "driver loaded: drain the node and reset the GPU"});
    alert (y, &(struct alert){
                  "GpuplanGPURowRemapFailure",
                  GP__DCGM_ROW_REMAP_FAILURE " > 0", NULL, "critical", NULL,
                  NULL, NULL, NULL,
                  GPU_AT " failed to remap a memory row: drain the node; "
                  "the GPU counts towards replacement"});
    alert (y, &(struct alert){
                  "GpuplanGPUNVLinkErrors",
                  "increase(" GP__DCGM_NVLINK_REPLAY "[5m]) > 0 or increase("
                  GP__DCGM_NVLINK_RECOVERY "[5m]) > 0",
                  NULL, "critical", NULL, NULL, NULL, NULL,
                  GPU_AT " reported NVLink replay or recovery errors in the "
                  "last 5 minutes"});
    alert (y, &(struct alert){
                  "GpuplanGPUPCIeReplays",
                  "rate(" GP__DCGM_PCIE_REPLAY "[5m]) * 60 > " PCIE_LIMIT,
                  NULL, "warning", NULL, NULL, NULL, NULL,
                  GPU_AT " at {{ $value | humanize }} PCIe replays per "
                  "minute, above DCGM's limit for its link generation and "
                  "width"});
}

static void header (const struct gp_cluster *c, struct sb *b)
{
    gp__sb_printf (b, "# Prometheus rules for cluster '");
    gp__comment_text (b, c->name);
    gp__sb_printf (b, "', generated by gpuplan.\n"
                      "# Inputs: DCGM exporter metrics and kube-state-metrics' "
                      "kube_node_labels with the\n# node label gpuplan.io/pool "
                      "(docs/formats/export-prometheus.md).\n"
                      "# The GPU health alerts read DCGM fields that "
                      "dcgm-exporter's default counters\n# leave out: "
                      "enable them with the dcgm-metrics.csv of 'gpuplan "
                      "export gpu-operator'.\n"
                      "# Check with: promtool check rules <this file>\n");
    for (size_t i = 0; i < c->n_pools; i++)
        if (!is_dcgm (&c->pools[i])) {
            gp__sb_printf (b, "# pool ");
            gp__comment_text (b, c->pools[i].name);
            gp__sb_printf (b, " (");
            gp__comment_text (b, c->pools[i].accel->vendor);
            gp__sb_printf (b, "): no DCGM metrics; use the vendor's "
                              "exporter\n");
        }
}

static void rules (const struct gp_cluster *c, struct gp__yaml *y,
                   struct limits *l, struct sb *e, struct sb *s)
{
    char group[GP_NAME_MAX + 32];
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_key (y, "groups");
    gp__y_seq (y);
    gp__y_map (y);
    snprintf (group, sizeof group, "gpuplan-%s-capacity", c->name);
    gp__y_kstr (y, "name", group);
    gp__y_key (y, "rules");
    gp__y_seq (y);
    for (size_t i = 0; i < sizeof generic_rules / sizeof *generic_rules; i++)
        record (y, generic_rules[i][0], generic_rules[i][1], NULL, NULL, NULL,
                NULL);
    plan_series (c, y, l, e);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map (y);
    snprintf (group, sizeof group, "gpuplan-%s-alerts", c->name);
    gp__y_kstr (y, "name", group);
    gp__y_key (y, "rules");
    gp__y_seq (y);
    for (size_t i = 0; i < c->n_pools; i++)
        if (is_dcgm (&c->pools[i]))
            pool_alerts (&c->pools[i], y, e, s);
    for (size_t i = 0; i < sizeof xid_critical / sizeof *xid_critical; i++)
        gp__sb_printf (e, "%s" GP__DCGM_XID " == %d", i ? " or " : "",
                       xid_critical[i]);
    alert (y, &(struct alert){"GpuplanGPUXidCritical", e->s, NULL, "critical",
                              NULL, NULL, NULL, NULL,
                              "GPU {{ $labels.gpu }} on {{ $labels.Hostname "
                              "}}{{ $labels.hostname }} reported XID {{ "
                              "$value }}: drain the node"});
    take (e);
    team_alerts (c, y, l, e, s);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    int dcgm = 0;
    for (size_t i = 0; i < c->n_pools; i++)
        dcgm |= is_dcgm (&c->pools[i]);
    if (dcgm) {
        gp__y_map (y);
        snprintf (group, sizeof group, "gpuplan-%s-health", c->name);
        gp__y_kstr (y, "name", group);
        gp__y_key (y, "rules");
        gp__y_seq (y);
        health_rules (y, e);
        gp__y_seq_end (y);
        gp__y_map_end (y);
    }
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

static int write_prometheus (const struct gp_cluster *c,
                             const struct gp_export_opts *o,
                             struct gp_export *x, gp_error_t *err)
{
    (void)o;
    (void)err;
    struct sb b = {0}, e = {0}, s = {0};
    struct limits l;
    int bad = gp__limits_alloc (&l, c->n_pools) != 0;
    /* Expression and summary buffers start non-empty so e.s and s.s are
     * never NULL when handed to the emitter.
     */
    gp__sb_printf (&e, "%s", "");
    gp__sb_printf (&s, "%s", "");
    header (c, &b);
    struct gp__yaml y;
    if (!bad && !e.oom && !s.oom && gp__y_open (&y, &b) == 0) {
        rules (c, &y, &l, &e, &s);
        bad = gp__y_close (&y) != 0 || e.oom || s.oom;
    } else {
        bad = 1;
    }
    gp__limits_free (&l);
    free (e.s);
    free (s.s);
    if (bad) {
        free (b.s);
        return GP_ENOMEM;
    }
    return gp__export_add_file (x, "gpuplan-rules.yml", &b) ? GP_ENOMEM : 0;
}

/* Team names are Kubernetes namespaces and pool names values of the node
 * label gpuplan.io/pool, so both are held to the DNS-1123 label rule.
 */
const struct gp_export_target_ops gp__export_prometheus = {
    .name = "prometheus",
    .k8s_names = 1,
    .write = write_prometheus,
};
