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
#include "export/quote.h"
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
    /* the names pass the target's rules (quote.h): networks are DNS-1123
     * labels; resource names are [a-zA-Z0-9_]+ (no dash, no dot) */
    for (int i = 0; i < r.n_rails; i++) {
        assert_true (gp__name_dns1123_label (r.rails[i].network));
        assert_null (strpbrk (r.rails[i].res_name, "-./"));
    }
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
    pf_init (&p, GP_OPT_BURST, 32, 8, "qm9700");
    assert_int_equal (gp__rdma_rails (&p.o, &p.c, &r, &err), 0);
    assert_int_equal (r.n_rails, 0);
    assert_non_null (strstr (r.why, "cloud burst"));
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

/* ------------------------------------------- the enterprise example */

#define EXAMPLE GP_SOURCE_DIR "/examples/enterprise-plan.yaml"

/* examples/enterprise-plan.yaml planned once for the group. */
static struct {
    struct gp_doc *doc;
    struct gp_plan_spec *spec;
    struct gp_plan_result *res;
} ex;

static int ex_setup (void **state)
{
    gp_error_t err = {0};
    if (setup (state) != 0)
        return -1;
    ex.doc = gp_doc_load (EXAMPLE, &err);
    ex.spec = ex.doc ? gp_plan_spec_from_doc (ex.doc, cat, &err) : NULL;
    ex.res = ex.spec ? gp_plan_run (ex.spec, cat, &err) : NULL;
    if (!ex.res)
        fprintf (stderr, "%s\n", err.text);
    return ex.res ? 0 : -1;
}

static int ex_teardown (void **state)
{
    gp_plan_result_destroy (ex.res);
    gp_plan_spec_destroy (ex.spec);
    gp_doc_destroy (ex.doc);
    return teardown (state);
}

/* The network export of option 'i' of the example, through the option's
 * cluster as gp_export_render_plan() builds it.
 */
static struct gp_export *ex_render (int i, enum gp_export_net_flavor net,
                                    struct gp__rdma *r)
{
    gp_error_t err = {0};
    struct gp_export_plan plan = {ex.spec, ex.res, i};
    struct gp_export_opts o = {.plan = &plan, .catalog = cat, .net = net};
    struct gp_cluster *c = gp_plan_option_cluster (ex.spec, ex.res, i, cat,
                                                   &err);
    if (!c)
        fail_msg ("%s", err.text);
    assert_int_equal (gp__rdma_rails (&o, c, r, &err), 0);
    struct gp_export *x = calloc (1, sizeof *x);
    assert_non_null (x);
    if (gp__export_network.write (c, &o, x, &err) != 0)
        fail_msg ("%s", err.text);
    gp_cluster_destroy (c);
    return x;
}

/* Every on-prem option: one network and one resource per rail of the
 * plan's fabric (8 GPUs x 1 NIC = 8 rails), InfiniBand (the spec names
 * no switch: the planner's qm9700, catalog category ib_switch).
 */
static void enterprise_onprem (void **state)
{
    (void)state;
    int seen = 0;
    for (size_t i = 0; i < ex.res->n_options; i++) {
        const struct gp_plan_option *op = &ex.res->options[i];
        if (op->kind != GP_OPT_ONPREM || op->compute.code != 0)
            continue;
        seen++;
        struct gp__rdma r;
        struct gp_export *x = ex_render ((int)i, GP_NET_NVIDIA_OPERATOR, &r);
        assert_true (op->nodes > 1);
        /* 8 GPUs per node x 1 NIC per GPU (catalog design row
         * rail-optimized.nics_per_gpu; the example sets none) */
        assert_int_equal (op->gpus_per_node, 8);
        assert_int_equal (op->fabric.rails, 8);
        assert_int_equal (r.n_rails, op->fabric.rails);
        assert_int_equal (r.kind, GP__FABRIC_IB);
        assert_int_equal (r.nodes, op->nodes);
        const char *net = file_of (x, "rdma-networks.yaml");
        assert_int_equal (count (net, "kind: IPoIBNetwork"),
                          (size_t)op->fabric.rails);
        char want[96];
        snprintf (want, sizeof want, "%d rails, %lld nodes",
                  op->fabric.rails, op->nodes);
        has (net, want);
        gp_export_destroy (x);
        x = ex_render ((int)i, GP_NET_SRIOV, &r);
        assert_int_equal (count (file_of (x, "sriov-node-policies.yaml"),
                                 "kind: SriovNetworkNodePolicy"),
                          (size_t)op->fabric.rails);
        gp_export_destroy (x);
    }
    assert_true (seen >= 1);
}

/* Every cloud option: nothing, with the reason. */
static void enterprise_cloud (void **state)
{
    (void)state;
    int seen = 0;
    for (size_t i = 0; i < ex.res->n_options; i++) {
        const struct gp_plan_option *op = &ex.res->options[i];
        if (op->kind != GP_OPT_CLOUD || op->compute.code != 0)
            continue;
        seen++;
        struct gp__rdma r;
        struct gp_export *x = ex_render ((int)i, GP_NET_NVIDIA_OPERATOR, &r);
        assert_int_equal (x->n_files, 0);
        assert_non_null (strstr (x->not_applicable, op->name));
        assert_non_null (strstr (x->not_applicable, "cloud fleet"));
        gp_export_destroy (x);
    }
    assert_true (seen >= 1);
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

static int write_files (const char *dir, const char *set,
                        const struct gp_export *x)
{
    char path[512];
    int rc = 0;
    snprintf (path, sizeof path, "%s/%s", dir, set);
    mkdir (path, 0755);
    for (size_t i = 0; rc == 0 && i < x->n_files; i++) {
        snprintf (path, sizeof path, "%s/%s/%s", dir, set, x->files[i].name);
        FILE *f = fopen (path, "w");
        if (!f || fputs (x->files[i].text, f) < 0)
            rc = -1;
        if (f && fclose (f) != 0)
            rc = -1;
    }
    return rc;
}

/* The example's recommended option when it is on-prem, else its first
 * sized on-prem option, in both flavours.
 */
static int write_enterprise (const char *dir)
{
    int pick = -1;
    for (size_t i = 0; i < ex.res->n_options; i++) {
        const struct gp_plan_option *op = &ex.res->options[i];
        if (op->kind == GP_OPT_ONPREM && op->compute.code == 0
            && (pick < 0 || (int)i == ex.res->recommended))
            pick = (int)i;
    }
    if (pick < 0)
        return -1;
    int rc = 0;
    const char *sets[] = {"enterprise-nvidia", "enterprise-sriov"};
    for (int k = 0; k < 2; k++) {
        gp_error_t err = {0};
        struct gp_export_plan plan = {ex.spec, ex.res, pick};
        struct gp_export_opts o = {.plan = &plan, .catalog = cat,
                                   .net = k ? GP_NET_SRIOV
                                            : GP_NET_NVIDIA_OPERATOR};
        struct gp_cluster *c = gp_plan_option_cluster (ex.spec, ex.res, pick,
                                                       cat, &err);
        struct gp_export x = {0};
        if (!c || gp__export_network.write (c, &o, &x, &err) != 0
            || write_files (dir, sets[k], &x) != 0) {
            fprintf (stderr, "%s: %s\n", sets[k], err.text);
            rc = -1;
        }
        for (size_t i = 0; i < x.n_files; i++)
            free (x.files[i].text);
        free (x.files);
        gp_cluster_destroy (c);
    }
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
        if (ex_setup (NULL) != 0)
            return 1;
        rc |= write_enterprise (argv[2]);
        ex_teardown (NULL);
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
    const struct CMUnitTest ex_tests[] = {
        cmocka_unit_test (enterprise_onprem),
        cmocka_unit_test (enterprise_cloud),
    };
    return cmocka_run_group_tests (tests, setup, teardown)
           | cmocka_run_group_tests (ex_tests, ex_setup, ex_teardown);
}
