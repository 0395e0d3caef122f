/* gpuplan/cost.h - the cost and infrastructure model: rail-optimized
 * fat-tree sizing, storage sizing, power and racks, on-prem capex/opex,
 * cloud prices under each pricing model (with the spot interruption
 * overhead), TCO, cost per GPU-hour, build-vs-buy break-even, and the
 * cheapest reserved / on-demand / spot mix over a demand curve as a linear
 * program (GLPK).
 *
 * Everything here is a pure function of plain structs in SI units (bytes,
 * byte/s, W, s, USD); no catalog lookups, no I/O.  Callers (the plan) pick
 * the catalog rows and assumptions and pass the numbers in.  Every formula
 * is written out, with its sources, in docs/model/cost.md and
 * docs/model/infrastructure.md.
 */
#ifndef GPUPLAN_COST_H
#define GPUPLAN_COST_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_HOURS_PER_YEAR 8760.0

/* ------------------------------ network ------------------------------ */

/* A rail-optimized fat-tree: NIC r of every node plugs into the leaf of
 * rail r of the node's group; leaves connect up to a spine layer (and a
 * core layer when one spine layer cannot hold all leaves).
 */
struct gp_fabric_in {
    long long nodes;          /* compute nodes */
    int gpus_per_node;
    int nics_per_gpu;         /* scale-out NICs (rails) per GPU, >= 1 */
    double nic_bw;            /* per NIC, one direction, byte/s */
    int radix;                /* ports per switch */
    double port_bw;           /* per switch port, one direction, byte/s */
    double oversub;           /* leaf downlink:uplink ratio, >= 1 */
};

struct gp_fabric {
    int tiers;                /* 1 single switch, 2 leaf/spine, 3 + core */
    int rails;                /* gpus_per_node * nics_per_gpu */
    long long endpoints;      /* NIC ports = nodes * rails */
    long long nics;
    int down_ports;           /* per leaf */
    int up_ports;             /* per leaf (0 in one tier) */
    long long node_groups;    /* groups of down_ports nodes (one leaf/rail) */
    long long leaves, spines, cores, switches;
    long long node_links;     /* NIC-leaf cables */
    long long leaf_spine_links;
    long long spine_core_links;
    long long cables;
    long long transceivers;   /* one per cable end (all-optical) */
    double oversub;           /* achieved down:up bandwidth ratio at leaf */
    double per_gpu_bw;        /* injection per GPU, byte/s */
    double bisection_bw;      /* byte/s, one direction */
};

/* Size a rail-optimized fat tree.  Returns 0, GP_EINVAL (bad input) or
 * GP_EINFEASIBLE (more endpoints than three tiers of this radix hold).
 */
int gp_fabric_size (const struct gp_fabric_in *in,
                    struct gp_fabric *out,
                    gp_error_t *err);

/* ------------------------------ storage ------------------------------ */

enum gp_storage_tier {
    GP_TIER_LOCAL_NVME,   /* single node: local NVMe only */
    GP_TIER_NFS,          /* small cluster: NFS / Longhorn */
    GP_TIER_CEPH,         /* mid-scale: Ceph / BeeGFS */
    GP_TIER_PARALLEL_FS,  /* large: Lustre / GPFS / WekaFS + object store */
};

const char *gp_storage_tier_str (enum gp_storage_tier t);

struct gp_storage_in {
    long long n_gpus;
    double dataset_bytes;       /* training data kept hot */
    double checkpoint_bytes;    /* one full checkpoint (largest job) */
    int checkpoints_kept;       /* on the fast tier */
    double artifact_bytes;      /* models, logs, eval outputs */
    double read_bw;             /* aggregate data loading, byte/s */
    double ckpt_write_s;        /* budget to write one checkpoint, s */
    double tput_per_byte;       /* fast-tier byte/s per byte provisioned
                                 * (MB/s per TiB / 2^40 * 1e6); 0 = none */
    double headroom;            /* free fraction kept, 0..0.9 */
    double object_copies;       /* object-store copies of ckpts/datasets */
};

struct gp_storage {
    enum gp_storage_tier tier;
    double capacity_bytes;      /* needed on the fast tier */
    double write_bw;            /* checkpoint burst, byte/s */
    double read_bw;             /* byte/s */
    double bw_bytes;            /* capacity the bandwidth alone requires */
    double fast_bytes;          /* provisioned: max(capacity, bw) /
                                 * (1 - headroom) */
    double object_bytes;        /* object store */
    int bw_bound;               /* 1 when bandwidth set the size */
};

/* Tier by scale: 1-8 GPUs local NVMe, <= 32 NFS, <= 128 Ceph/BeeGFS,
 * above a parallel FS (docs/model/infrastructure.md).
 */
enum gp_storage_tier gp_storage_tier_for (long long n_gpus);

int gp_storage_size (const struct gp_storage_in *in,
                     struct gp_storage *out,
                     gp_error_t *err);

/* ------------------------------- power ------------------------------- */

struct gp_power_in {
    long long nodes;
    double node_w;              /* maximum power per compute node, W */
    double other_it_w;          /* network, storage, CPU/head nodes, W */
    double rack_w;              /* allowed power per rack, W */
    int rack_units_nodes;       /* nodes a rack holds physically (0 = no
                                 * limit) */
    double pue;                 /* facility / IT, >= 1 */
    double load_factor;         /* average / maximum IT power, 0..1 */
    double usd_per_kwh;
};

struct gp_power {
    double it_w;                /* maximum IT power */
    double facility_w;          /* it_w * pue */
    int nodes_per_rack;
    long long compute_racks;
    long long other_racks;      /* 0 when the compute racks' spare power
                                 * holds other_it_w, else
                                 * ceil(other_it_w / rack_w) */
    long long racks;
    double energy_kwh_year;     /* it_w * load * pue * 8760 h / 1000 */
    double energy_usd_year;
};

/* Returns 0, GP_EINVAL, or GP_EINFEASIBLE when one node exceeds the rack
 * power ('err' names both figures).
 */
int gp_power_size (const struct gp_power_in *in,
                   struct gp_power *out,
                   gp_error_t *err);

/* ------------------------------ on-prem ------------------------------ */

struct gp_onprem_in {
    double capex_servers;       /* USD */
    double capex_network;
    double capex_storage;
    double capex_facility;      /* fit-out, USD (0 = colocation) */
    double depreciation_years;  /* straight line */
    double horizon_years;
    double energy_usd_year;     /* from gp_power_size */
    double support_share;       /* per year, share of hardware capex */
    double space_usd_kw_month;  /* colocation/space per kW of IT, USD */
    double it_kw;               /* for the space charge */
    double staff_share;         /* per year, share of hardware capex */
    long long n_gpus;
    /* Annual discount rate (share per year, e.g. 0.08); 0 charges
     * undiscounted cash.  Opex flows evenly over the horizon; capex is
     * paid at purchase (t = 0 and each refresh at k x depreciation) and
     * the straight-line book value left at the horizon's end is credited
     * back at its present value (docs/model/cost.md, Horizon and
     * residual value).
     */
    double discount_rate;
    /* Servers already owned (an existing fleet that the build expands):
     * their price new, USD, not part of capex_servers, and their age in
     * years today.  They are charged the straight-line book value the
     * horizon consumes, book(age) - PV(book(age + horizon)), with no
     * refresh; support and staff shares apply to them too.
     */
    double owned_servers_usd;
    double owned_age_years;
    /* Delivery lead time: the bought hardware arrives, is paid for and
     * starts its life (and its opex) 'delivery_years' into the horizon;
     * owned hardware serves from the start.  owned_gpu_share (0..1) of the
     * GPUs and of the opex is the owned hardware's.  0, 0: everything from
     * the start.
     */
    double delivery_years;
    double owned_gpu_share;
};

struct gp_onprem_cost {
    double capex;               /* all hardware + facility */
    double depreciation_year;   /* capex / depreciation_years */
    double power_year, support_year, space_year, staff_year;
    double opex_year;
    double capex_charged;       /* PV(purchases) - PV(residual); with no
                                 * discount capex * horizon / depreciation */
    double tco;                 /* capex_charged + opex_charged */
    double gpu_hours;           /* n_gpus * 8760 * horizon (available) */
    double usd_per_gpu_hour;    /* tco / gpu_hours at 100 % use */
    /* added with the discount rate and the residual value */
    double residual_usd;        /* straight-line book value left at the
                                 * horizon's end (undiscounted) */
    double residual_pv;         /* its present value */
    double opex_charged;        /* PV of opex over the horizon; with no
                                 * discount opex_year * horizon */
    double discount_rate;       /* the input's, for the report */
    int purchases;              /* the first buy plus refreshes */
    double owned_book_usd;      /* owned servers' book value today */
    double owned_charged;       /* their share of capex_charged */
    /* cloud capacity rented until delivery (the plan adds it; USD, at
     * present value), included in tco and gpu_hours by the caller
     */
    double burst_usd;
    double burst_gpu_hours;
    double delivery_years;      /* the input's */
};

/* On-prem cost over in->horizon_years: capex, yearly opex and the TCO
 *   TCO = CAPEX CHARGED + OPEX CHARGED
 *   CAPEX CHARGED = sum_k capex / (1+r)^(k D)  -  residual / (1+r)^H
 *   OPEX CHARGED  = opex_year x (1 - (1+r)^-H) / ln(1+r)   (H when r = 0)
 * with D the depreciation life, H the horizon, k = 0 .. ceil(H/D)-1 the
 * purchases and residual the last purchase's straight-line book value at
 * H.  With r = 0 this is capex x H / D + opex_year x H.  Amounts in USD.
 * Returns 0, or GP_EINVAL for a negative or non-finite amount, a
 * depreciation life or horizon <= 0, a discount rate outside [0, 1), or
 * fewer than one GPU.
 */
int gp_onprem_cost (const struct gp_onprem_in *in,
                    struct gp_onprem_cost *out,
                    gp_error_t *err);

/* -------------------------------- cloud ------------------------------- */

enum gp_pricing {
    GP_PRICE_ON_DEMAND,
    GP_PRICE_RESERVED_1Y,
    GP_PRICE_RESERVED_3Y,
    GP_PRICE_SPOT,
    GP_PRICE_MIX,               /* the LP's cheapest mix */
    GP_PRICE_CAPACITY_BLOCK,    /* AWS EC2 Capacity Blocks: prepaid,
                                 * non-interruptible blocks of whole
                                 * instances (parts.csv rates and terms) */
};
#define GP_N_PRICING 6

const char *gp_pricing_str (enum gp_pricing p);
int gp_pricing_parse (const char *s, enum gp_pricing *out, gp_error_t *err);

/* Spot interruptions.  A job on 'nodes' nodes is interrupted at rate
 * nodes * rate_per_node_hour; each interruption loses on average half a
 * checkpoint interval plus the restart time.  Returns the fraction of
 * paid time that is lost (0 when rate is 0), or a value >= 1 when the job
 * cannot progress.
 */
double gp_spot_overhead (double rate_per_node_hour,
                         double nodes,
                         double ckpt_interval_s,
                         double restart_s);

/* Price per useful node-hour for a raw price and a lost-time fraction:
 * price / (1 - overhead); +inf when overhead >= 1.
 */
double gp_effective_price (double price, double overhead);

/* ------------------------------ fleet mix ---------------------------- */

/* The cheapest mix of commitments, on-demand and spot covering a demand
 * curve (units: nodes or GPUs, per period).  Commitment product j has a
 * term of term_periods[j] periods; it can be bought at the start of each
 * block of that many periods and is paid for the whole term even past the
 * horizon.  Spot capacity delivers (1 - spot_overhead) useful units per
 * paid unit and may serve at most spot_max_share of each period's demand.
 *
 *   min  sum_j sum_b c_j T_j h x_jb + sum_t h (p_od o_t + p_sp s_t)
 *   s.t. sum_{j, b covers t} x_jb + o_t + (1 - f) s_t >= d_t
 *        (1 - f) s_t <= share * d_t,   all variables >= 0
 */
#define GP_MIX_MAX_COMMIT 4
struct gp_mix_in {
    size_t n_periods;
    const double *demand;          /* n_periods values, >= 0 */
    double period_hours;
    double on_demand_price;        /* per unit-hour; 0 = not offered */
    double spot_price;             /* per unit-hour; 0 = not offered */
    double spot_overhead;          /* f, 0..1 */
    double spot_max_share;         /* 0..1 */
    size_t n_commit;
    double commit_price[GP_MIX_MAX_COMMIT];  /* per unit-hour */
    int commit_term_periods[GP_MIX_MAX_COMMIT];
    int integer;                   /* 1: whole units of each commitment
                                    * (MIP); on-demand and spot stay
                                    * continuous (fractional node-months) */
    /* Optional caps (0 / NULL = none).  spot_cap[t]: useful spot units
     * period t may get, replacing spot_max_share x d_t when smaller (the
     * demand that tolerates preemption); max_on_demand / max_spot: upper
     * bounds on o_t and s_t (units obtainable per period); max_commit[j]:
     * upper bound on each block of commitment j.
     */
    const double *spot_cap;
    double max_on_demand, max_spot;
    double max_commit[GP_MIX_MAX_COMMIT];
};

struct gp_mix {
    double cost;                   /* USD over the horizon */
    double commit_cost[GP_MIX_MAX_COMMIT];
    double on_demand_cost, spot_cost;
    double *commit;                /* [j * n_periods + t] units active */
    double *on_demand;             /* [t] */
    double *spot;                  /* [t] paid units */
    double demand_unit_hours;      /* sum d_t h */
    double usd_per_unit_hour;      /* cost / demand_unit_hours */
};

/* Solve the mix.  Fills 'out' (arrays the caller frees with
 * gp_mix_free()).  Returns 0, GP_EINVAL, GP_EINFEASIBLE (demand cannot be
 * covered by the offered products) or GP_EINTERNAL (solver failure).
 */
int gp_mix_solve (const struct gp_mix_in *in,
                  struct gp_mix *out,
                  gp_error_t *err);

void gp_mix_free (struct gp_mix *m);

/* --------------------------- derived figures ------------------------- */

/* Cost per used GPU-hour of a fixed yearly cost at utilization 'util':
 * cost_year / (n_gpus * 8760 * util); 0 when an input is 0.
 */
double gp_cost_per_gpu_hour (double cost_year, long long n_gpus, double util);

/* The utilization at which owning costs as much per used GPU-hour as
 * renting at 'cloud_usd_gpu_hour': cost_year / (n_gpus * 8760 * price).
 * Above 1 means renting is cheaper even at full use.
 */
double gp_breakeven_util (double cost_year,
                          long long n_gpus,
                          double cloud_usd_gpu_hour);

/* The one money format of every plan figure (report tables, the
 * recommendation, the decision log): "$1.23B", "$4.41M", "$915k",
 * "$59.4k", "$3.69k", "$812"; "-" when not finite.  Writes at most n bytes
 * of 'buf' and returns it.
 */
const char *gp_fmt_usd (double v, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_COST_H */
