/* test_plan_onprem_defaults.c - on-prem defaults from the catalog: the
 * node size from the accelerator's host (8 L40S in a PCIe server, 8 H100
 * on an HGX baseboard), no scale-out fabric for a single node, racks from
 * power and density, head and management nodes by scale tier; worked out
 * by hand below.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/plan.h"

static int near (double a, double b)
{
    return fabs (a - b) <= 1e-9 * fabs (b) + 1e-6;
}
#define NEAR(a, b) assert_true (near ((a), (b)))

#include "plan_fixture.h"
/* A small L40S build: 8 cards for an 8B chat service, server quoted at
 * $80,000 and 3 kW, no gpus_per_node in the spec.  The catalog's L40S
 * host holds 8 cards (host_accelerators), so this is one node:
 *   servers   1 x $80,000 = $80,000;  network: none (one node) = $0;
 *   storage priced at 0 here, so capex = $80,000,
 *   charged 3 of 4 depreciation years = $60,000.
 *   IT 3 kW + 10 % other = 3.3 kW; one 40.8 kW air rack holds the node
 *   and the 0.3 kW of other IT: 1 rack.
 *   Energy 3.3 x 0.83 x 1.2 (PUE) x 8760 h x $0.08 = $2,303.39/year;
 *   support 10 % = 8,000, staff 5 % = 4,000, space 150 x 3.3 x 12 =
 *   5,940 a year: opex $20,243.39; TCO 60,000 + 3 x 20,243.39 =
 *   $120,730.17.
 * With the old default of one card per node the same spec bought 8
 * servers ($640,000), a switch, 8 NICs, 8 cables and 16 transceivers
 * ($51,000) and 2 racks: capex $691,000, TCO ~$1.03M.
 */
static const char l40s_spec[] =
    "name: l40s\n"
    "horizon: 3y\n"
    "workloads:\n"
    "  - {name: chat, kind: inference, model: llama3.1-8b,\n"
    "     requests_per_s: 2, input_tokens: 500, output_tokens: 200}\n"
    "assumptions: {storage_usd_per_tb: 0, object_usd_per_tb: 0}\n"
    "options:\n"
    "  - {name: l40s, kind: onprem, accelerator: L40S, gpus: 8,\n"
    "     node_power: 3kW, node_capex: $80k}\n";

static void test_l40s_one_node_by_hand (void **state)
{
    (void)state;
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, l40s_spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *o = find (f.res, "l40s");
    assert_int_equal (o->gpus_per_node, 8);
    assert_int_equal (o->gpus, 8);
    assert_int_equal (o->nodes, 1);
    assert_int_equal (o->fabric.tiers, 0);
    assert_int_equal (o->fabric.switches, 0);
    assert_int_equal (o->fabric.nics, 0);
    assert_int_equal (o->fabric.cables, 0);
    assert_int_equal (o->fabric.transceivers, 0);
    NEAR (o->capex_network, 0);
    NEAR (o->capex_servers, 80000);
    NEAR (o->onprem.capex, 80000);
    NEAR (o->onprem.capex_charged, 60000);
    NEAR (o->pow.it_w, 3300);
    assert_int_equal (o->pow.racks, 1);
    double energy = 3.3 * 0.83 * 1.2 * 8760 * 0.08;
    assert_true (fabs (energy - 2303.38944) < 1e-6);
    NEAR (o->onprem.opex_year, energy + 8000 + 4000 + 5940);
    NEAR (o->tco_usd, 60000 + 3 * (energy + 8000 + 4000 + 5940));
    assert_true (fabs (o->tco_usd - 120730.17) < 0.01);
    /* one node: its own login node, no control plane */
    assert_int_equal (o->head_nodes, 0);
    assert_int_equal (o->mgmt_nodes, 0);
    assert_true (o->feasible);
    unload (&f);
}

/* Head and management nodes by tier, and racks from power: H100 (DGX
 * H100, 10.2 kW) builds of 1, 2 and 8 nodes.  One node: 10.2 + 1.02 kW in
 * one 40.8 kW rack, no switch, 0 head / 0 management.  2 nodes (16 GPUs,
 * small tier): one rack (20.4 kW + 2.04 kW other IT), 1 head (login) + 1
 * management (K3s server).  8 nodes (64 GPUs, mid tier): 2 full compute
 * racks (4 x 10.2 = 40.8 kW each, no spare), the 8.16 kW of other IT in a
 * rack of its own: 3 racks; 2 head + 3 management (etcd quorum).
 */
static void test_tiers_and_racks (void **state)
{
    (void)state;
    static const char spec[] =
        "name: tiers\n"
        "horizon: 1y\n"
        "workloads:\n"
        "  - {name: ft, kind: recurring, model: llama3-8b, tokens: 1B,\n"
        "     runs_per_month: 2}\n"
        "options:\n"
        "  - {name: one, kind: onprem, accelerator: H100-SXM, gpus: 8}\n"
        "  - {name: two, kind: onprem, accelerator: H100-SXM, gpus: 16}\n"
        "  - {name: eight, kind: onprem, accelerator: H100-SXM, gpus: 64}\n";
    struct fx f;
    gp_error_t err = {0};
    if (load (&f, spec, &err) != 0)
        fail_msg ("%s", err.text);
    const struct gp_plan_option *one = find (f.res, "one");
    const struct gp_plan_option *two = find (f.res, "two");
    const struct gp_plan_option *eight = find (f.res, "eight");
    assert_int_equal (one->nodes, 1);
    assert_int_equal (one->fabric.switches, 0);
    assert_int_equal (one->fabric.transceivers, 0);
    assert_int_equal (one->pow.racks, 1);
    assert_int_equal (one->head_nodes, 0);
    assert_int_equal (one->mgmt_nodes, 0);
    assert_int_equal (two->nodes, 2);
    assert_int_equal (two->fabric.switches, 1);
    assert_int_equal (two->pow.racks, 1);
    assert_int_equal (two->head_nodes, 1);
    assert_int_equal (two->mgmt_nodes, 1);
    assert_int_equal (eight->nodes, 8);
    assert_int_equal (eight->pow.compute_racks, 2);
    assert_int_equal (eight->pow.other_racks, 1);
    assert_int_equal (eight->pow.racks, 3);
    assert_int_equal (eight->head_nodes, 2);
    assert_int_equal (eight->mgmt_nodes, 3);
    unload (&f);
}

/* The fabric model: one node needs no scale-out fabric; two need one
 * switch for their 16 rails' NICs (16 NICs, 16 cables, 32 transceivers).
 */
static void test_fabric_one_node (void **state)
{
    (void)state;
    struct gp_fabric_in in = {0};
    in.nodes = 1;
    in.gpus_per_node = 8;
    in.nics_per_gpu = 1;
    in.radix = 64;
    in.port_bw = in.nic_bw = 50e9;
    in.oversub = 1;
    struct gp_fabric f;
    gp_error_t err = {0};
    assert_int_equal (gp_fabric_size (&in, &f, &err), 0);
    assert_int_equal (f.tiers, 0);
    assert_int_equal (f.switches, 0);
    assert_int_equal (f.nics, 0);
    assert_int_equal (f.cables, 0);
    assert_int_equal (f.transceivers, 0);
    assert_true (f.per_gpu_bw == 0);
    in.nodes = 2;
    assert_int_equal (gp_fabric_size (&in, &f, &err), 0);
    assert_int_equal (f.switches, 1);
    assert_int_equal (f.nics, 16);
    assert_int_equal (f.cables, 16);
    assert_int_equal (f.transceivers, 32);
}

/* Racks from power: other IT shares the compute racks when their spare
 * power holds it.  5 nodes of 10.2 kW in 40.8 kW racks: 2 compute racks
 * (4 + 1) with 81.6 - 51 = 30.6 kW spare; 5.1 kW of other IT fits: 2
 * racks.  8 nodes: no spare, 8.16 kW other: 1 more rack.
 */
static void test_racks_by_power (void **state)
{
    (void)state;
    struct gp_power_in in = {0};
    in.nodes = 5;
    in.node_w = 10200;
    in.other_it_w = 0.1 * 5 * 10200;
    in.rack_w = 40800;
    in.pue = 1.2;
    in.load_factor = 0.83;
    in.usd_per_kwh = 0.08;
    struct gp_power p;
    gp_error_t err = {0};
    assert_int_equal (gp_power_size (&in, &p, &err), 0);
    assert_int_equal (p.nodes_per_rack, 4);
    assert_int_equal (p.compute_racks, 2);
    assert_int_equal (p.other_racks, 0);
    assert_int_equal (p.racks, 2);
    in.nodes = 8;
    in.other_it_w = 0.1 * 8 * 10200;
    assert_int_equal (gp_power_size (&in, &p, &err), 0);
    assert_int_equal (p.compute_racks, 2);
    assert_int_equal (p.other_racks, 1);
    assert_int_equal (p.racks, 3);
}

/* The catalog's hosts: 8 L40S (PCIe server), 8 H100 (HGX), 4 GB200 per
 * compute tray.
 */
static void test_catalog_hosts (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    assert_non_null (cat);
    const struct gp_accel *a = gp_catalog_find_accel (cat, "L40S", &err);
    assert_non_null (a);
    assert_int_equal (a->host_accels, 8);
    a = gp_catalog_find_accel (cat, "GB200", &err);
    assert_non_null (a);
    assert_int_equal (a->host_accels, 4);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_l40s_one_node_by_hand),
        cmocka_unit_test (test_tiers_and_racks),
        cmocka_unit_test (test_fabric_one_node),
        cmocka_unit_test (test_racks_by_power),
        cmocka_unit_test (test_catalog_hosts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
