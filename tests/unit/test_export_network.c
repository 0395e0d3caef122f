/* test_export_network.c - the network export target and the RDMA rails
 * (rdma.h) on hand-built plan fixtures: an InfiniBand on-prem option with
 * 8 rails, a RoCE one, a single node and a cloud fleet; both operator
 * flavours; the errors.  Expected names and ranges are worked by hand
 * from docs/formats/export-network.md.
 *
 * Run with "--write DIR" it writes the four export sets (ib-nvidia,
 * roce-nvidia, ib-sriov, roce-sriov) under DIR for validate.py --dir
 * (tests/export/network_validate.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <yaml.h>

#include "gpuplan/gpuplan.h"
#include "export_fixture.h"
#include "export/export_private.h"
#include "export/rdma.h"

/* A plan with one option: 'kind', 'nodes' nodes of 8 GPUs, fabric of
 * 'rails' rails on switch 'sw'.
 */
struct pf {
    struct gp_plan_spec *spec;
    struct gp_plan_result res;
    struct gp_plan_option opt;
    struct gp_export_plan plan;
    struct gp_export_opts o;
    struct gp_cluster c;
    struct gp_pool pool;
};

static void pf_init (struct pf *p, enum gp_option_kind kind, long long nodes,
                     int rails, const char *sw)
{
    memset (p, 0, sizeof *p);
    p->spec = calloc (1, sizeof *p->spec);
    assert_non_null (p->spec);
    snprintf (p->spec->name, sizeof p->spec->name, "lab");
    p->spec->n_options = 1;
    p->spec->options[0].kind = kind;
    p->spec->options[0].gpus_per_node = 8;
    snprintf (p->spec->options[0].name, sizeof p->spec->options[0].name,
              "opt");
    snprintf (p->spec->options[0].switch_id,
              sizeof p->spec->options[0].switch_id, "%s", sw);
    snprintf (p->res.name, sizeof p->res.name, "lab");
    p->res.options = &p->opt;
    p->res.n_options = 1;
    p->res.recommended = 0;
    snprintf (p->opt.name, sizeof p->opt.name, "opt");
    p->opt.kind = kind;
    p->opt.spec_index = 0;
    p->opt.nodes = nodes;
    p->opt.gpus_per_node = 8;
    p->opt.gpus = nodes * 8;
    p->opt.fabric.rails = rails;
    p->opt.fabric.endpoints = nodes * rails;
    p->opt.cloud_fabric = kind != GP_OPT_ONPREM;
    p->plan.spec = p->spec;
    p->plan.result = &p->res;
    p->plan.option = 0;
    p->o.plan = &p->plan;
    p->o.catalog = cat;
    snprintf (p->c.name, sizeof p->c.name, "lab");
    snprintf (p->pool.name, sizeof p->pool.name, "gpu");
    p->pool.gpus_per_node = 8;
    p->pool.nodes = (int)nodes;
    p->c.pools = &p->pool;
    p->c.n_pools = 1;
}

static void pf_free (struct pf *p)
{
    free (p->spec);
}

/* The network export of 'p'; fails the test on error. */
static struct gp_export *render (struct pf *p)
{
    gp_error_t err = {0};
    struct gp_export *x = calloc (1, sizeof *x);
    assert_non_null (x);
    x->target = GP_EXPORT_NETWORK;
    int rc = gp__export_network.write (&p->c, &p->o, x, &err);
    if (rc != 0)
        fail_msg ("%s", err.text);
    return x;
}

static const char *file_of (const struct gp_export *x, const char *name)
{
    for (size_t i = 0; i < x->n_files; i++)
        if (strcmp (x->files[i].name, name) == 0)
            return x->files[i].text;
    fail_msg ("no file %s", name);
    return NULL;
}

static size_t count (const char *text, const char *s)
{
    size_t n = 0;
    for (const char *p = strstr (text, s); p; p = strstr (p + 1, s))
        n++;
    return n;
}

/* Documents in a YAML stream, read back with libyaml; -1 if it does not
 * parse.
 */
static int yaml_docs (const char *text)
{
    yaml_parser_t ps;
    yaml_event_t ev;
    int n = 0, done = 0;
    yaml_parser_initialize (&ps);
    yaml_parser_set_input_string (&ps, (const unsigned char *)text,
                                  strlen (text));
    while (!done) {
        if (!yaml_parser_parse (&ps, &ev)) {
            n = -1;
            break;
        }
        n += ev.type == YAML_DOCUMENT_START_EVENT;
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete (&ev);
    }
    yaml_parser_delete (&ps);
    return n;
}

/* ------------------------------------------------------------ the rails */

static void rails_ib_8 (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 16, 8, "qm9700");
    struct gp__rdma r;
    gp_error_t err = {0};
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_int_equal (r.kind, GP__FABRIC_IB);
    assert_int_equal (r.n_rails, 8);
    assert_int_equal (r.nodes, 16);
    assert_string_equal (r.prefix, "nvidia.com");
    assert_string_equal (r.rails[0].network, "rdma-rail-0");
    assert_string_equal (r.rails[3].res_name, "rdma_rail_3");
    assert_string_equal (r.rails[3].resource, "nvidia.com/rdma_rail_3");
    assert_string_equal (r.rails[7].ifname, "eth_r7");
    assert_string_equal (r.rails[0].subnet, "172.16.0.0/16");
    assert_string_equal (r.rails[7].subnet, "172.23.0.0/16");
    assert_string_equal (r.annotation,
                         "default/rdma-rail-0,default/rdma-rail-1,"
                         "default/rdma-rail-2,default/rdma-rail-3,"
                         "default/rdma-rail-4,default/rdma-rail-5,"
                         "default/rdma-rail-6,default/rdma-rail-7");
    assert_string_equal (r.why, "");
    /* the SR-IOV operator's prefix */
    p.o.net = GP_NET_SRIOV;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_string_equal (r.prefix, "openshift.io");
    assert_string_equal (r.rails[5].resource, "openshift.io/rdma_rail_5");
    pf_free (&p);
}

static void rails_roce (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 4, 8, "spectrum4");
    struct gp__rdma r;
    gp_error_t err = {0};
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_int_equal (r.kind, GP__FABRIC_ROCE);
    assert_int_equal (r.n_rails, 8);
    assert_string_equal (gp__fabric_kind_str (r.kind), "RoCE");
    pf_free (&p);
}

/* Two NICs per GPU: 16 rails, the most written; 17 is refused. */
static void rails_limits (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 2, 16, "qm9700");
    struct gp__rdma r;
    gp_error_t err = {0};
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_int_equal (r.n_rails, 16);
    assert_string_equal (r.rails[15].subnet, "172.31.0.0/16");
    p.opt.fabric.rails = 17;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_ERANGE);
    assert_non_null (strstr (err.text, "17 rails"));
    /* a /16 holds 65534 addresses: 8 pods per node, 8191 nodes */
    p.opt.fabric.rails = 8;
    p.opt.nodes = 8191;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    p.opt.nodes = 8192;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_ERANGE);
    assert_non_null (strstr (err.text, "8192 nodes"));
    pf_free (&p);
}

static void rails_none (void **state)
{
    (void)state;
    struct pf p;
    struct gp__rdma r;
    gp_error_t err = {0};
    pf_init (&p, GP_OPT_ONPREM, 1, 8, "qm9700");
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_int_equal (r.n_rails, 0);
    assert_int_equal (r.kind, GP__FABRIC_NONE);
    assert_string_equal (r.annotation, "");
    assert_non_null (strstr (r.why, "one node"));
    pf_free (&p);
    pf_init (&p, GP_OPT_CLOUD, 32, 0, "");
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_int_equal (r.n_rails, 0);
    assert_non_null (strstr (r.why, "cloud"));
    assert_non_null (strstr (r.why, "EFA"));
    pf_free (&p);
    /* no plan (a cluster spec) */
    struct gp_export_opts o = {0};
    assert_int_equal (gp__rdma_rails (&o, NULL, &r, &err), 0);
    assert_int_equal (r.n_rails, 0);
    assert_non_null (strstr (r.why, "no plan"));
}

static void rails_errors (void **state)
{
    (void)state;
    struct pf p;
    struct gp__rdma r;
    gp_error_t err = {0};
    pf_init (&p, GP_OPT_ONPREM, 4, 8, "qm9999");
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "'qm9999' is not in the catalog"));
    /* a part that is no switch */
    snprintf (p.spec->options[0].switch_id, 32, "hgx-h100-8gpu");
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "scale_up"));
    snprintf (p.spec->options[0].switch_id, 32, "qm9700");
    p.o.catalog = NULL;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "catalog"));
    p.o.catalog = cat;
    p.plan.option = 3;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_EINVAL);
    p.plan.option = 0;
    p.opt.fabric.rails = 0;
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), GP_EINVAL);
    assert_int_equal (gp__rdma_rails (NULL, &p.c, &r, &err), GP_EINVAL);
    pf_free (&p);
}

/* ------------------------------------------------------------ the export */

static void export_ib_nvidia (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 16, 8, "qm9700");
    struct gp_export *x = render (&p);
    assert_int_equal (x->n_files, 2);
    assert_string_equal (x->not_applicable, "");
    const char *pol = file_of (x, "nic-cluster-policy.yaml");
    const char *net = file_of (x, "rdma-networks.yaml");
    assert_int_equal (yaml_docs (pol), 1);
    assert_int_equal (yaml_docs (net), 8);
    has (pol, "kind: NicClusterPolicy");
    has (pol, "name: nic-cluster-policy");
    has (pol, "rdmaSharedDevicePlugin:");
    lacks (pol, "sriovDevicePlugin:");
    has (pol, "ipoib:");
    /* one resource per rail, each selecting its rail's netdev */
    assert_int_equal (count (pol, "\\\"resourceName\\\":"), 8);
    has (pol, "{\\\"resourceName\\\":\\\"rdma_rail_7\\\",\\\"resourcePrefix"
              "\\\":\\\"nvidia.com\\\",\\\"rdmaHcaMax\\\":63,\\\"selectors"
              "\\\":{\\\"vendors\\\":[\\\"15b3\\\"],\\\"ifNames\\\":"
              "[\\\"eth_r7\\\"]}}");
    has (pol, "values: [gpu]");
    assert_int_equal (count (net, "kind: IPoIBNetwork"), 8);
    has (net, "name: rdma-rail-0\n");
    has (net, "master: eth_r3\n");
    has (net, "networkNamespace: default\n");
    has (net, "ipam: \"{\\\"type\\\":\\\"whereabouts\\\",\\\"range"
              "\\\":\\\"172.23.0.0/16\\\"}\"");
    /* the header names the annotation the jobs and serving pods carry */
    has (net, "# A pod using every rail: annotation k8s.v1.cni.cncf.io/"
              "networks: default/rdma-rail-0,");
    has (net, "InfiniBand fabric, 8 rails, 16 nodes");
    gp_export_destroy (x);
    pf_free (&p);
}

static void export_roce_nvidia (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 4, 8, "spectrum4");
    struct gp_export *x = render (&p);
    const char *pol = file_of (x, "nic-cluster-policy.yaml");
    const char *net = file_of (x, "rdma-networks.yaml");
    has (pol, "sriovDevicePlugin:");
    lacks (pol, "rdmaSharedDevicePlugin:");
    lacks (pol, "ipoib:");
    has (pol, "\\\"pfNames\\\":[\\\"eth_r2\\\"],\\\"isRdma\\\":true");
    assert_int_equal (count (net, "kind: HostDeviceNetwork"), 8);
    has (net, "resourceName: rdma_rail_4\n");
    lacks (net, "master:");
    gp_export_destroy (x);
    pf_free (&p);
}

static void export_sriov (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 16, 8, "qm9700");
    p.o.net = GP_NET_SRIOV;
    struct gp_export *x = render (&p);
    const char *pol = file_of (x, "sriov-node-policies.yaml");
    const char *net = file_of (x, "rdma-networks.yaml");
    assert_int_equal (yaml_docs (pol), 8);
    assert_int_equal (count (pol, "kind: SriovNetworkNodePolicy"), 8);
    has (pol, "namespace: sriov-network-operator\n");
    has (pol, "linkType: IB\n");
    has (pol, "mtu: 4000\n");
    has (pol, "pfNames: [eth_r6]\n");
    has (pol, "gpuplan.io/pool: gpu\n");
    assert_int_equal (count (net, "kind: SriovIBNetwork"), 8);
    has (net, "resourceName: rdma_rail_0\n");
    has (net, "resources openshift.io/rdma_rail_<i>");
    gp_export_destroy (x);
    pf_free (&p);
    pf_init (&p, GP_OPT_ONPREM, 4, 8, "spectrum4");
    p.o.net = GP_NET_SRIOV;
    x = render (&p);
    pol = file_of (x, "sriov-node-policies.yaml");
    net = file_of (x, "rdma-networks.yaml");
    has (pol, "linkType: ETH\n");
    has (pol, "mtu: 9000\n");
    assert_int_equal (count (net, "kind: SriovNetwork\n"), 8);
    gp_export_destroy (x);
    pf_free (&p);
}

static void export_not_applicable (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 1, 8, "qm9700");
    struct gp_export *x = render (&p);
    assert_int_equal (x->n_files, 0);
    assert_non_null (strstr (x->not_applicable, "one node"));
    gp_export_destroy (x);
    pf_free (&p);
    pf_init (&p, GP_OPT_CLOUD, 64, 0, "");
    x = render (&p);
    assert_int_equal (x->n_files, 0);
    assert_non_null (strstr (x->not_applicable, "cloud fleet"));
    gp_export_destroy (x);
    pf_free (&p);
}

/* A plan name that is not a comment-safe string stays inside its line. */
static void export_header_quoted (void **state)
{
    (void)state;
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 4, 8, "qm9700");
    snprintf (p.res.name, sizeof p.res.name, "x\nkind: Evil");
    struct gp_export *x = render (&p);
    lacks (file_of (x, "rdma-networks.yaml"), "\nkind: Evil");
    gp_export_destroy (x);
    pf_free (&p);
}

/* ------------------------------------------------------- --write DIR */

static int write_set (const char *dir, const char *set, const char *sw,
                      enum gp_export_net_flavor net)
{
    struct pf p;
    pf_init (&p, GP_OPT_ONPREM, 16, 8, sw);
    p.o.net = net;
    gp_error_t err = {0};
    struct gp_export x = {0};
    int rc = gp__export_network.write (&p.c, &p.o, &x, &err);
    char path[512];
    snprintf (path, sizeof path, "%s/%s", dir, set);
    mkdir (path, 0755);
    for (size_t i = 0; rc == 0 && i < x.n_files; i++) {
        snprintf (path, sizeof path, "%s/%s/%s", dir, set, x.files[i].name);
        FILE *f = fopen (path, "w");
        if (!f || fputs (x.files[i].text, f) < 0)
            rc = -1;
        if (f && fclose (f) != 0)
            rc = -1;
    }
    for (size_t i = 0; i < x.n_files; i++)
        free (x.files[i].text);
    free (x.files);
    pf_free (&p);
    if (rc != 0)
        fprintf (stderr, "%s: %s\n", set, err.text[0] ? err.text : path);
    return rc;
}

int main (int argc, char **argv)
{
    if (argc == 3 && strcmp (argv[1], "--write") == 0) {
        if (setup (NULL) != 0)
            return 1;
        int rc = write_set (argv[2], "ib-nvidia", "qm9700",
                            GP_NET_NVIDIA_OPERATOR)
                 | write_set (argv[2], "roce-nvidia", "spectrum4",
                              GP_NET_NVIDIA_OPERATOR)
                 | write_set (argv[2], "ib-sriov", "qm9700", GP_NET_SRIOV)
                 | write_set (argv[2], "roce-sriov", "spectrum4",
                              GP_NET_SRIOV);
        teardown (NULL);
        return rc ? 1 : 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (rails_ib_8),
        cmocka_unit_test (rails_roce),
        cmocka_unit_test (rails_limits),
        cmocka_unit_test (rails_none),
        cmocka_unit_test (rails_errors),
        cmocka_unit_test (export_ib_nvidia),
        cmocka_unit_test (export_roce_nvidia),
        cmocka_unit_test (export_sriov),
        cmocka_unit_test (export_not_applicable),
        cmocka_unit_test (export_header_quoted),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
