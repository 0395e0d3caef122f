/* assume.c - the documented assumptions of the capacity plan.
 *
 * Every number the plan needs that the catalog does not hold is listed here
 * once, with its unit and where it comes from; docs/model/cost.md explains
 * each.  A spec may override any of them under 'assumptions:'; the report
 * lists every assumption that was read, marking overrides.
 */
#include <math.h>
#include <string.h>

#include "plan_private.h"

static const struct gp_assumption defaults[] = {
    {"reserved_1y_discount", 0.30, "share off on-demand",
     "planning assumption; the catalog has no reserved rates (AWS Savings "
     "Plans advertise up to 72% off for 3-year terms)", 0, 0},
    {"reserved_3y_discount", 0.50, "share off on-demand",
     "planning assumption; the catalog has no reserved rates (AWS Savings "
     "Plans advertise up to 72% off for 3-year terms)", 0, 0},
    {"spot_interruptions_per_node_month", 0.20, "1/month",
     "AWS Spot Instance Advisor's highest frequency bucket (>20% per month), "
     "taken for GPU instances", 0, 0},
    {"spot_max_share", 0.50, "share of demand",
     "planning assumption: share of the demand (experiments, fine-tunes) "
     "that tolerates preemption", 0, 0},
    {"checkpoint_interval_s", 3600, "s",
     "planning assumption until the reliability model sets it", 0, 0},
    {"restart_s", 600, "s",
     "planning assumption: detect, reschedule and reload after an "
     "interruption", 0, 0},
    {"checkpoint_write_s", 120, "s",
     "planning assumption: time budget to write one checkpoint (sets the "
     "burst write bandwidth)", 0, 0},
    {"comm_slowdown_max", 0.05, "share of step time",
     "planning threshold: the scale-out bandwidth a training layout needs "
     "is the least at which its step time is within this share of the "
     "step time on an unlimited fabric (docs/model/infrastructure.md)",
     0, 0},
    {"node_repair_h", 48, "h",
     "planning assumption: a failed node is out of service for two days "
     "(diagnosis, next-business-day parts, burn-in); used for the spare "
     "nodes of constraints.min_availability", 0, 0},
    {"checkpoints_kept", 5, "count",
     "planning assumption: checkpoints kept on the fast tier per run", 0, 0},
    {"bytes_per_token", 4, "B",
     "tokenized corpora stored as 32-bit token ids", 0, 0},
    {"storage_headroom", 0.20, "free share",
     "planning assumption: free space kept on the fast tier", 0, 0},
    {"object_copies", 1, "copies",
     "planning assumption: one object-store copy of data and checkpoints",
     0, 0},
    {"depreciation_years", 4, "years",
     "planning assumption (straight line; hyperscalers depreciate servers "
     "over 5-6 years, accelerators age faster)", 0, 0},
    {"support_share_year", 0.10, "of hardware capex per year",
     "planning assumption: vendor support and spares", 0, 0},
    {"staff_share_year", 0.05, "of hardware capex per year",
     "planning assumption: operations staff as a share of capex", 0, 0},
    {"space_usd_per_kw_month", 150, "USD/kW-month",
     "planning assumption: colocation space and cooling per kW of IT", 0, 0},
    {"switch_usd", 25000, "USD",
     "planning estimate of a 64-port 400G switch; no list price in the "
     "catalog", 0, 0},
    {"nic_usd", 1500, "USD",
     "planning estimate of a 400G NIC; no list price in the catalog", 0, 0},
    {"transceiver_usd", 800, "USD",
     "planning estimate of a 400G optical transceiver", 0, 0},
    {"cable_usd", 150, "USD", "planning estimate of a fibre cable", 0, 0},
    {"storage_usd_per_tb", 300, "USD/TB",
     "planning estimate of all-flash parallel file system capacity", 0, 0},
    {"object_usd_per_tb", 30, "USD/TB",
     "planning estimate of on-prem object store capacity", 0, 0},
    {"storage_tput_mbs_per_tib", 125, "MB/s per TiB",
     "on-prem fast tier taken at the FSx for Lustre 125 MB/s/TiB tier's "
     "throughput density (catalog row fsx-lustre-p2-ssd-125)", 0, 0},
    {"other_it_share", 0.10, "of compute IT power",
     "planning assumption: network, storage, CPU and management nodes", 0, 0},
    {"load_factor", 0.83, "average / maximum power",
     "DERIVED from the catalog: DGX H100 typical 8.5 kW of 10.2 kW maximum",
     0, 0},
    {"utilization", 0.70, "share of provisioned GPU-hours used",
     "planning assumption for fixed-size fleets until the simulator gives "
     "it", 0, 0},
    {"head_nodes", 2, "count", "planning assumption: two login/head nodes "
     "for failover", 0, 0},
    {"mgmt_nodes", 3, "count", "Kubernetes docs: three control-plane "
     "nodes for an etcd quorum", 0, 0},
    {"queue_p95_wait_limit_h", 24, "h",
     "planning limit: a team whose simulated p95 queueing wait exceeds a "
     "working day is flagged in the decision log (docs/model/"
     "infrastructure.md, Multi-tenancy)", 0, 0},
    {"queue_max_wait_limit_h", 168, "h",
     "planning limit: a team whose longest simulated wait exceeds one week "
     "is flagged in the decision log (docs/model/infrastructure.md, "
     "Multi-tenancy)", 0, 0},
    {"cpu_node_preprocess_bw", 2e9, "B/s",
     "planning assumption: data a CPU node tokenizes/decodes per second", 0,
     0},
    {"inference_headroom", 0.20, "share of replica capacity",
     "planning assumption: serving replicas run at most 80% of the rate "
     "that meets the SLOs", 0, 0},
    {"sensitivity_mfu", 0.20, "+-share",
     "sensitivity range for the training planner's GEMM efficiency", 0, 0},
    {"sensitivity_price", 0.20, "+-share",
     "sensitivity range for prices and capex", 0, 0},
    {"sensitivity_demand", 0.30, "+-share",
     "sensitivity range for demand (fleet size)", 0, 0},
    {"sensitivity_failure", 2.0, "x",
     "sensitivity factor on the interruption rate", 0, 0},
};

void plan_assume_defaults (struct gp_plan_spec *s)
{
    size_t n = sizeof defaults / sizeof defaults[0];
    if (n > GP_PLAN_MAX_ASSUMPTIONS)
        n = GP_PLAN_MAX_ASSUMPTIONS;
    memcpy (s->assume, defaults, n * sizeof defaults[0]);
    s->n_assume = n;
}

struct gp_assumption *plan_assume_find (struct gp_plan_spec *s,
                                        const char *key)
{
    for (size_t i = 0; i < s->n_assume; i++)
        if (strcmp (s->assume[i].key, key) == 0)
            return &s->assume[i];
    return NULL;
}

double gp_plan_assume (struct gp_plan_spec *s, const char *key)
{
    struct gp_assumption *a = s ? plan_assume_find (s, key) : NULL;
    if (!a)
        return NAN;
    a->used = 1;
    return a->value;
}

size_t plan_assume_keys (const struct gp_plan_spec *s,
                         const char **keys,
                         size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_assume && n < max; i++)
        keys[n++] = s->assume[i].key;
    return n;
}
