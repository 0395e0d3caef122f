/* test_cost.c - the cost and infrastructure model against hand-solved
 * cases (every expected value is worked out in the comment above it).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "gpuplan/cost.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-9;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

static const double G400 = 400e9 / 8; /* 400 Gb/s in byte/s */

static struct gp_fabric_in fin (long long nodes, double oversub)
{
    struct gp_fabric_in in = {
        .nodes = nodes, .gpus_per_node = 8, .nics_per_gpu = 1,
        .nic_bw = G400, .radix = 64, .port_bw = G400, .oversub = oversub,
    };
    return in;
}

/* 128 nodes x 8 rails = 1024 NICs on radix-64 switches, non-blocking:
 * 32 down / 32 up per leaf, 128/32 = 4 groups x 8 rails = 32 leaves,
 * 32 x 32 = 1024 uplinks / 64 = 16 spines (the 4-SU DGX SuperPOD shape).
 * Cables 1024 + 1024, transceivers 2 x 2048.
 */
static void test_fabric_superpod (void **state)
{
    (void)state;
    struct gp_fabric_in in = fin (128, 1);
    struct gp_fabric f;
    assert_int_equal (gp_fabric_size (&in, &f, NULL), 0);
    assert_int_equal (f.tiers, 2);
    assert_int_equal (f.rails, 8);
    assert_int_equal (f.endpoints, 1024);
    assert_int_equal (f.down_ports, 32);
    assert_int_equal (f.up_ports, 32);
    assert_int_equal (f.leaves, 32);
    assert_int_equal (f.spines, 16);
    assert_int_equal (f.cores, 0);
    assert_int_equal (f.switches, 48);
    assert_int_equal (f.cables, 2048);
    assert_int_equal (f.transceivers, 4096);
    NEAR (f.oversub, 1);
    NEAR (f.per_gpu_bw, G400);
    NEAR (f.bisection_bw, 1024 * G400 / 2);
}

/* 4 nodes x 8 = 32 NICs fit one 64-port switch: one tier. */
static void test_fabric_one_switch (void **state)
{
    (void)state;
    struct gp_fabric_in in = fin (4, 1);
    struct gp_fabric f;
    assert_int_equal (gp_fabric_size (&in, &f, NULL), 0);
    assert_int_equal (f.tiers, 1);
    assert_int_equal (f.switches, 1);
    assert_int_equal (f.cables, 32);
}

/* 16 nodes: one group (16 of 32 downlinks used) -> 8 leaves, each needs
 * only 16 uplinks: 128 / 64 = 2 spines.
 */
static void test_fabric_partial_group (void **state)
{
    (void)state;
    struct gp_fabric_in in = fin (16, 1);
    struct gp_fabric f;
    assert_int_equal (gp_fabric_size (&in, &f, NULL), 0);
    assert_int_equal (f.tiers, 2);
    assert_int_equal (f.leaves, 8);
    assert_int_equal (f.up_ports, 16);
    assert_int_equal (f.spines, 2);
    assert_int_equal (f.cables, 256);
}

/* 2:1 oversubscribed: down = floor(64 * 2/3) = 42, up 22, but 42 / 2 = 21
 * uplinks suffice; 128 nodes -> ceil(128/42) = 4 groups, 32 leaves,
 * 672 uplinks -> ceil(672/64) = 11 spines.
 */
static void test_fabric_oversub (void **state)
{
    (void)state;
    struct gp_fabric_in in = fin (128, 2);
    struct gp_fabric f;
    assert_int_equal (gp_fabric_size (&in, &f, NULL), 0);
    assert_int_equal (f.down_ports, 42);
    assert_int_equal (f.up_ports, 21);
    assert_int_equal (f.leaves, 32);
    assert_int_equal (f.spines, 11);
    NEAR (f.oversub, 2);
}

/* 1024 nodes (8192 GPUs): 32 groups x 8 = 256 leaves > 64 -> three tiers:
 * 8192 uplinks / 32 = 256 spines, 8192 / 64 = 128 cores; one eighth of the
 * full k=64 fat tree (2048 edge, 2048 aggregation, 1024 core).
 */
static void test_fabric_three_tier (void **state)
{
    (void)state;
    struct gp_fabric_in in = fin (1024, 1);
    struct gp_fabric f;
    assert_int_equal (gp_fabric_size (&in, &f, NULL), 0);
    assert_int_equal (f.tiers, 3);
    assert_int_equal (f.leaves, 256);
    assert_int_equal (f.spines, 256);
    assert_int_equal (f.cores, 128);
    assert_int_equal (f.cables, 3 * 8192);
}

static void test_fabric_bad (void **state)
{
    (void)state;
    struct gp_fabric f;
    gp_error_t err = {0};
    struct gp_fabric_in in = fin (0, 1);
    assert_int_equal (gp_fabric_size (&in, &f, &err), GP_EINVAL);
    in = fin (8, 0.5);
    assert_int_equal (gp_fabric_size (&in, &f, &err), GP_EINVAL);
    in = fin (8, 1);
    in.radix = 2;
    assert_int_equal (gp_fabric_size (&in, &f, &err), GP_EINVAL);
    /* Radix 8: at most 8 x 4 = 32 leaves; 40 nodes x 8 rails / 4 = 80. */
    in = fin (40, 1);
    in.radix = 8;
    assert_int_equal (gp_fabric_size (&in, &f, &err), GP_EINFEASIBLE);
    assert_int_equal (gp_fabric_size (NULL, &f, &err), GP_EINVAL);
}

/* 100 TB data + 5 x 1 TB checkpoints + 10 TB artifacts = 115 TB;
 * / (1 - 0.2) = 143.75 TB.  Write 1 TB in 100 s = 10 GB/s.  At
 * 1000 MB/s per TiB the bandwidth needs 10e9 / (1e9 / 2^40) = 10 TiB
 * (< 143.75 TB); at 12 MB/s per TiB it needs 10e9 / (12e6 / 2^40)
 * = 833.33 TiB, which sets the size.
 */
static void test_storage (void **state)
{
    (void)state;
    struct gp_storage_in in = {
        .n_gpus = 1024, .dataset_bytes = 100e12, .checkpoint_bytes = 1e12,
        .checkpoints_kept = 5, .artifact_bytes = 10e12, .read_bw = 5e9,
        .ckpt_write_s = 100, .tput_per_byte = 1e9 / 1099511627776.0,
        .headroom = 0.2, .object_copies = 2,
    };
    struct gp_storage s;
    assert_int_equal (gp_storage_size (&in, &s, NULL), 0);
    assert_int_equal (s.tier, GP_TIER_PARALLEL_FS);
    NEAR (s.capacity_bytes, 115e12);
    NEAR (s.write_bw, 10e9);
    NEAR (s.bw_bytes, 10 * 1099511627776.0);
    NEAR (s.fast_bytes, 143.75e12);
    assert_false (s.bw_bound);
    NEAR (s.object_bytes, 230e12);
    in.tput_per_byte = 12e6 / 1099511627776.0;
    assert_int_equal (gp_storage_size (&in, &s, NULL), 0);
    assert_true (s.bw_bound);
    NEAR (s.fast_bytes, 10e9 / 12e6 * 1099511627776.0);
    in.headroom = 0.95;
    assert_int_equal (gp_storage_size (&in, &s, NULL), GP_EINVAL);
    assert_int_equal (gp_storage_tier_for (8), GP_TIER_LOCAL_NVME);
    assert_int_equal (gp_storage_tier_for (32), GP_TIER_NFS);
    assert_int_equal (gp_storage_tier_for (128), GP_TIER_CEPH);
    assert_int_equal (gp_storage_tier_for (129), GP_TIER_PARALLEL_FS);
    assert_string_equal (gp_storage_tier_str (GP_TIER_CEPH), "ceph-beegfs");
}

/* 16 DGX H100 at 10.2 kW in 40.8 kW racks: 4 per rack, 4 racks; 20 kW of
 * other IT -> 1 rack.  IT 183.2 kW, facility x 1.2 = 219.84 kW.  Energy
 * 183.2 x 0.8 x 1.2 = 175.872 kW x 8760 h = 1,540,638.72 kWh;
 * x $0.08 = $123,251.0976.
 */
static void test_power (void **state)
{
    (void)state;
    struct gp_power_in in = {
        .nodes = 16, .node_w = 10200, .other_it_w = 20000, .rack_w = 40800,
        .pue = 1.2, .load_factor = 0.8, .usd_per_kwh = 0.08,
    };
    struct gp_power p;
    assert_int_equal (gp_power_size (&in, &p, NULL), 0);
    assert_int_equal (p.nodes_per_rack, 4);
    assert_int_equal (p.compute_racks, 4);
    assert_int_equal (p.other_racks, 1);
    assert_int_equal (p.racks, 5);
    NEAR (p.it_w, 183200);
    NEAR (p.facility_w, 219840);
    NEAR (p.energy_kwh_year, 1540638.72);
    NEAR (p.energy_usd_year, 123251.0976);
    in.rack_units_nodes = 2;
    assert_int_equal (gp_power_size (&in, &p, NULL), 0);
    assert_int_equal (p.compute_racks, 8);
    gp_error_t err = {0};
    in.rack_w = 8000;
    assert_int_equal (gp_power_size (&in, &p, &err), GP_EINFEASIBLE);
    assert_non_null (strstr (err.text, "10.2 kW"));
    in.rack_w = 40800;
    in.pue = 0.9;
    assert_int_equal (gp_power_size (&in, &p, &err), GP_EINVAL);
}

/* Capex 4.32M + 0.5M + 0.3M = 5.12M over 4 years = 1.28M/yr.  Support 10 %
 * = 512k, staff 5 % = 256k, space $100/kW-month x 183.2 kW x 12 = 219,840,
 * power 123,249.25: opex 1,111,089.25/yr.  Three years: 5.12M x 3/4 =
 * 3.84M + 3 x opex = 7,173,267.75; 128 GPUs x 8760 x 3 = 3,363,840 GPU-h.
 */
static void test_onprem (void **state)
{
    (void)state;
    struct gp_onprem_in in = {
        .capex_servers = 4.32e6, .capex_network = 0.5e6,
        .capex_storage = 0.3e6, .depreciation_years = 4, .horizon_years = 3,
        .energy_usd_year = 123249.25, .support_share = 0.10,
        .space_usd_kw_month = 100, .it_kw = 183.2, .staff_share = 0.05,
        .n_gpus = 128,
    };
    struct gp_onprem_cost c;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.capex, 5.12e6);
    NEAR (c.depreciation_year, 1.28e6);
    NEAR (c.support_year, 512000);
    NEAR (c.staff_year, 256000);
    NEAR (c.space_year, 219840);
    NEAR (c.opex_year, 1111089.25);
    NEAR (c.capex_charged, 3.84e6);
    NEAR (c.tco, 7173267.75);
    NEAR (c.gpu_hours, 3363840);
    NEAR (c.usd_per_gpu_hour, 7173267.75 / 3363840);
    /* Break-even against $55.04/8 per GPU-hour: yearly cost 2,391,089.25
     * / (128 x 8760 x 6.88) = 0.309949...
     */
    double yr = c.depreciation_year + c.opex_year;
    NEAR (gp_breakeven_util (yr, 128, 6.88), 2391089.25 / 7714406.4);
    NEAR (gp_cost_per_gpu_hour (yr, 128, 0.5), 2391089.25 / 560640);
    assert_true (gp_cost_per_gpu_hour (yr, 128, 0) == 0);
    in.depreciation_years = 0;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), GP_EINVAL);
}

/* The build of test_onprem over a 1-year horizon (4-year life).
 * Undiscounted: CAPEX CHARGED = 5.12M x 1/4 = 1.28M (25 %), the book value
 * left at the end 5.12M x 3/4 = 3.84M, TCO = 1.28M + 1,111,089.25.
 * At 8 %/yr: the residual 3.84M is worth 3.84M / 1.08 = 3,555,555.56 today,
 * so CAPEX CHARGED = 5.12M - 3,555,555.56 = 1,564,444.44; opex flowing
 * evenly through the year is worth (1 - 1/1.08) / ln 1.08 = 0.0740741 /
 * 0.0769610 = 0.9624879 of its cash: 1,069,410.01.  TCO 2,633,854.45.
 * Over 5 years (one refresh at year 4): purchases 5.12M + 5.12M / 1.08^4
 * (1.36048896) = 8,883,389.94; the refresh is one year old at the end, book
 * 3.84M, PV 3.84M / 1.08^5 (1.46932808) = 2,613,476.57; CAPEX CHARGED
 * 6,269,913.37; opex x (1 - 1/1.08^5) / ln 1.08 = 4,611,431.59.
 */
static void test_onprem_horizon (void **state)
{
    (void)state;
    struct gp_onprem_in in = {
        .capex_servers = 4.32e6, .capex_network = 0.5e6,
        .capex_storage = 0.3e6, .depreciation_years = 4, .horizon_years = 1,
        .energy_usd_year = 123249.25, .support_share = 0.10,
        .space_usd_kw_month = 100, .it_kw = 183.2, .staff_share = 0.05,
        .n_gpus = 128,
    };
    struct gp_onprem_cost c;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.capex_charged, 1.28e6);
    NEAR (c.residual_usd, 3.84e6);
    NEAR (c.residual_pv, 3.84e6);
    NEAR (c.opex_charged, 1111089.25);
    NEAR (c.tco, 1.28e6 + 1111089.25);
    NEAR (c.tco, c.capex_charged + c.opex_charged);
    in.discount_rate = 0.08;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.residual_usd, 3.84e6);
    NEAR (c.residual_pv, 3555555.5556);
    NEAR (c.capex_charged, 1564444.4444);
    NEAR (c.opex_charged, 1069410.0053);
    NEAR (c.tco, 2633854.4497);
    NEAR (c.usd_per_gpu_hour, 2633854.4497 / (128 * 8760.0));
    assert_int_equal (c.purchases, 1);
    in.horizon_years = 5;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    assert_int_equal (c.purchases, 2);
    NEAR (c.capex_charged, 6269913.3697);
    NEAR (c.opex_charged, 4611431.5868);
    NEAR (c.tco, 10881344.9565);
    /* undiscounted, a refresh is paid pro rata: 5.12M x 5/4 */
    in.discount_rate = 0;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.capex_charged, 6.4e6);
    NEAR (c.residual_usd, 3.84e6);
    in.discount_rate = 1;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), GP_EINVAL);
    /* delivered 3 months into a 1-year horizon, undiscounted: 9 months of
     * a 48-month life, 5.12M x 0.75 / 4 = 0.96M; opex 1,111,089.25 x 0.75
     * = 833,316.9375; 128 x 8760 x 0.75 = 840,960 GPU-hours.  A quarter
     * of the GPUs owned: their opex runs all year, 1,111,089.25 x (0.25 +
     * 0.75 x 0.75) = 902,760.0156; 128 x 8760 x (0.25 + 0.75 x 0.75).
     */
    in.discount_rate = 0;
    in.horizon_years = 1;
    in.delivery_years = 0.25;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.capex_charged, 0.96e6);
    NEAR (c.opex_charged, 833316.9375);
    NEAR (c.gpu_hours, 840960);
    in.owned_gpu_share = 0.25;
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.opex_charged, 902760.015625);
    NEAR (c.gpu_hours, 128 * 8760 * 0.8125);
    in.delivery_years = 2;      /* after the horizon: nothing bought */
    assert_int_equal (gp_onprem_cost (&in, &c, NULL), 0);
    NEAR (c.capex_charged, 0);
    assert_int_equal (c.purchases, 0);
}

/* 10 nodes at 0.01 interruptions per node-hour = 0.1/h; each loses half a
 * 2 h interval plus 0.5 h restart = 1.5 h: 15 % lost; $3 -> 3/0.85.
 */
static void test_spot (void **state)
{
    (void)state;
    double f = gp_spot_overhead (0.01, 10, 7200, 1800);
    NEAR (f, 0.15);
    NEAR (gp_effective_price (3, f), 3 / 0.85);
    assert_true (gp_spot_overhead (0, 10, 7200, 1800) == 0);
    assert_true (isinf (gp_effective_price (3, 1.0)));
    enum gp_pricing p;
    assert_int_equal (gp_pricing_parse ("reserved_3y", &p, NULL), 0);
    assert_int_equal (p, GP_PRICE_RESERVED_3Y);
    assert_string_equal (gp_pricing_str (GP_PRICE_SPOT), "spot");
    assert_int_equal (gp_pricing_parse ("cheap", &p, NULL), GP_EINVAL);
}

/* Demand [10, 4], 1 h periods, on-demand $10, a 2-period commitment at
 * $6/h (costs $12 per unit).  With r committed units: r <= 4 costs
 * 12r + 10(10 - r) + 10(4 - r) = 140 - 8r; 4 <= r <= 10 costs
 * 12r + 10(10 - r) = 100 + 2r.  Optimum r = 4, cost $108.
 */
static void test_mix_commit (void **state)
{
    (void)state;
    double d[2] = {10, 4};
    struct gp_mix_in in = {
        .n_periods = 2, .demand = d, .period_hours = 1,
        .on_demand_price = 10, .n_commit = 1,
        .commit_price = {6}, .commit_term_periods = {2},
    };
    for (int integer = 0; integer <= 1; integer++) {
        in.integer = integer;
        struct gp_mix m;
        assert_int_equal (gp_mix_solve (&in, &m, NULL), 0);
        NEAR (m.cost, 108);
        NEAR (m.commit[0], 4);
        NEAR (m.commit[1], 4);
        NEAR (m.on_demand[0], 6);
        NEAR (m.on_demand[1], 0);
        NEAR (m.commit_cost[0], 48);
        NEAR (m.on_demand_cost, 60);
        NEAR (m.demand_unit_hours, 14);
        NEAR (m.usd_per_unit_hour, 108.0 / 14);
        gp_mix_free (&m);
    }
}

/* Demand [10, 10], spot $3 with 25 % lost (useful $4) capped at half the
 * demand, on-demand $10: per period 5 useful spot = 6.667 paid x 3 = $20
 * plus 5 on-demand = $50; total $140.  Adding a 2-period commitment at $6
 * ($4 < 6 < 10): spot 5, committed 5 -> 2 x 20 + 5 x 12 = $100.
 */
static void test_mix_spot (void **state)
{
    (void)state;
    double d[2] = {10, 10};
    struct gp_mix_in in = {
        .n_periods = 2, .demand = d, .period_hours = 1,
        .on_demand_price = 10, .spot_price = 3, .spot_overhead = 0.25,
        .spot_max_share = 0.5,
    };
    struct gp_mix m;
    assert_int_equal (gp_mix_solve (&in, &m, NULL), 0);
    NEAR (m.cost, 140);
    NEAR (m.spot[0], 5 / 0.75);
    NEAR (m.on_demand[1], 5);
    gp_mix_free (&m);
    in.n_commit = 1;
    in.commit_price[0] = 6;
    in.commit_term_periods[0] = 2;
    assert_int_equal (gp_mix_solve (&in, &m, NULL), 0);
    NEAR (m.cost, 100);
    NEAR (m.commit[0], 5);
    NEAR (m.on_demand_cost, 0);
    NEAR (m.spot_cost, 40);
    gp_mix_free (&m);
}

/* A 3-period commitment over a 4-period horizon is bought in two blocks
 * and the second is paid for its whole term: demand [1,1,1,1], commit
 * $5/h (term 3) vs on-demand $7/h.  Block 1 covers periods 0-2 for $15
 * (on-demand $21); block 2 would cost $15 for one period (on-demand $7).
 * Optimum: one block + on-demand in period 3 = $22.
 */
static void test_mix_term_past_horizon (void **state)
{
    (void)state;
    double d[4] = {1, 1, 1, 1};
    struct gp_mix_in in = {
        .n_periods = 4, .demand = d, .period_hours = 1,
        .on_demand_price = 7, .n_commit = 1,
        .commit_price = {5}, .commit_term_periods = {3},
    };
    struct gp_mix m;
    assert_int_equal (gp_mix_solve (&in, &m, NULL), 0);
    NEAR (m.cost, 22);
    NEAR (m.commit[3], 0);
    NEAR (m.on_demand[3], 1);
    gp_mix_free (&m);
}

static void test_mix_bad (void **state)
{
    (void)state;
    double d[2] = {10, 10};
    struct gp_mix_in in = {
        .n_periods = 2, .demand = d, .period_hours = 1,
        .spot_price = 3, .spot_overhead = 0.1, .spot_max_share = 0.5,
    };
    struct gp_mix m;
    gp_error_t err = {0};
    assert_int_equal (gp_mix_solve (&in, &m, &err), GP_EINFEASIBLE);
    in.period_hours = 0;
    assert_int_equal (gp_mix_solve (&in, &m, &err), GP_EINVAL);
    in.period_hours = 1;
    d[1] = -1;
    assert_int_equal (gp_mix_solve (&in, &m, &err), GP_EINVAL);
    assert_int_equal (gp_mix_solve (NULL, &m, &err), GP_EINVAL);
    gp_mix_free (NULL);
}

/* The one money format (cost.h): thresholds by hand. */
static void test_fmt_usd (void **state)
{
    (void)state;
    char b[32];
    assert_string_equal (gp_fmt_usd (915000, b, sizeof b), "$915k");
    assert_string_equal (gp_fmt_usd (4.407e6, b, sizeof b), "$4.41M");
    assert_string_equal (gp_fmt_usd (59400, b, sizeof b), "$59.4k");
    assert_string_equal (gp_fmt_usd (3690, b, sizeof b), "$3.69k");
    assert_string_equal (gp_fmt_usd (812, b, sizeof b), "$812");
    assert_string_equal (gp_fmt_usd (1.5e9, b, sizeof b), "$1.50B");
    assert_string_equal (gp_fmt_usd (-2.5e6, b, sizeof b), "$-2.50M");
    assert_string_equal (gp_fmt_usd (NAN, b, sizeof b), "-");
    char tiny[4];
    assert_string_equal (gp_fmt_usd (915000, tiny, sizeof tiny), "$91");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_fabric_superpod),
        cmocka_unit_test (test_fabric_one_switch),
        cmocka_unit_test (test_fabric_partial_group),
        cmocka_unit_test (test_fabric_oversub),
        cmocka_unit_test (test_fabric_three_tier),
        cmocka_unit_test (test_fabric_bad),
        cmocka_unit_test (test_storage),
        cmocka_unit_test (test_power),
        cmocka_unit_test (test_onprem),
        cmocka_unit_test (test_onprem_horizon),
        cmocka_unit_test (test_spot),
        cmocka_unit_test (test_mix_commit),
        cmocka_unit_test (test_mix_spot),
        cmocka_unit_test (test_mix_term_past_horizon),
        cmocka_unit_test (test_mix_bad),
        cmocka_unit_test (test_fmt_usd),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
