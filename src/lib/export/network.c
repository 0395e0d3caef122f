/* network.c - the network export target (docs/formats/export-network.md):
 * the RDMA secondary networks of a plan option's fabric, one device
 * resource, one network and one NetworkAttachmentDefinition per rail.
 *
 *   NVIDIA Network Operator (default): a NicClusterPolicy whose device
 *   plugin gives one resource per rail -- the RDMA shared device plugin
 *   for InfiniBand, the SR-IOV network device plugin handing out the
 *   rail's physical function for RoCE -- and per rail an IPoIBNetwork
 *   (InfiniBand) or HostDeviceNetwork (RoCE).
 *
 *   SR-IOV Network Operator (o->net == GP_NET_SRIOV): per rail a
 *   SriovNetworkNodePolicy and a SriovIBNetwork (InfiniBand) or
 *   SriovNetwork (RoCE).
 *
 * Each network object makes its operator render the rail's
 * NetworkAttachmentDefinition (same name, namespace 'default'), so the
 * export writes no NAD of its own: one would be overwritten by, or
 * conflict with, the operator's.  Names, resources and the pod
 * annotation come from gp__rdma_rails() (rdma.h), which the serving and
 * jobs targets use too.  YAML through quote.h; the JSON strings the
 * operators embed (IPAM, device-plugin config) through jansson.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/plan.h"
#include "quote.h"
#include "rdma.h"

/* Assumptions, each documented with its source in export-network.md. */
#define NET_OPERATOR_NS "nvidia-network-operator"
#define SRIOV_OPERATOR_NS "sriov-network-operator"
#define NVIDIA_REPO "nvcr.io/nvidia/mellanox"
#define NVIDIA_VERSION "network-operator-v26.4.1"
#define MELLANOX_VENDOR "15b3"
#define RDMA_HCA_MAX 63
#define SRIOV_NUM_VFS 8
#define SRIOV_PRIORITY 90
#define MTU_IB 4000
#define MTU_ETH 9000

struct net {
    const struct gp__rdma *r;
    const char *pool;           /* node label gpuplan.io/pool, or NULL */
    const char *plan, *option;  /* for the header comment */
};

/* ------------------------------------------------------------ JSON text */

/* 'j' as compact JSON (keys in insertion order), consuming 'j'; NULL on
 * allocation failure.  The caller frees the text.
 */
static char *dump (json_t *j)
{
    char *s = j ? json_dumps (j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref (j);
    return s;
}

static char *ipam_json (const struct gp__rdma_rail *r)
{
    return dump (json_pack ("{s:s, s:s}", "type", "whereabouts", "range",
                            r->subnet));
}

/* The device plugin config of the NicClusterPolicy: one resource per
 * rail selecting the rail's netdev.
 */
static char *plugin_json (const struct gp__rdma *r)
{
    int ib = r->kind == GP__FABRIC_IB;
    json_t *list = json_array ();
    for (int i = 0; list && i < r->n_rails; i++) {
        const struct gp__rdma_rail *rl = &r->rails[i];
        json_t *e = ib
            ? json_pack ("{s:s, s:s, s:i, s:{s:[s], s:[s]}}", "resourceName",
                         rl->res_name, "resourcePrefix", r->prefix,
                         "rdmaHcaMax", RDMA_HCA_MAX, "selectors", "vendors",
                         MELLANOX_VENDOR, "ifNames", rl->ifname)
            : json_pack ("{s:s, s:s, s:{s:[s], s:[s], s:b}}", "resourceName",
                         rl->res_name, "resourcePrefix", r->prefix,
                         "selectors", "vendors", MELLANOX_VENDOR, "pfNames",
                         rl->ifname, "isRdma", 1);
        if (!e || json_array_append_new (list, e) != 0) {
            json_decref (list);
            list = NULL;
        }
    }
    return list ? dump (json_pack ("{s:o}", ib ? "configList" : "resourceList",
                                   list))
                : NULL;
}

/* ----------------------------------------------------------------- YAML */

static void doc_head (struct gp__yaml *y, const char *api, const char *kind,
                      const char *name, const char *ns)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", api);
    gp__y_kstr (y, "kind", kind);
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    if (ns)
        gp__y_kstr (y, "namespace", ns);
    gp__y_map_end (y);
}

static void doc_tail (struct gp__yaml *y)
{
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

static void image (struct gp__yaml *y, const char *key, const char *img)
{
    gp__y_key (y, key);
    gp__y_map (y);
    gp__y_kstr (y, "image", img);
    gp__y_kstr (y, "repository", NVIDIA_REPO);
    gp__y_kstr (y, "version", NVIDIA_VERSION);
}

/* nodeAffinity: the planned pool's nodes (label gpuplan.io/pool). */
static void pool_affinity (struct gp__yaml *y, const struct net *n)
{
    gp__y_key (y, "nodeAffinity");
    gp__y_map (y);
    gp__y_key (y, "requiredDuringSchedulingIgnoredDuringExecution");
    gp__y_map (y);
    gp__y_key (y, "nodeSelectorTerms");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_key (y, "matchExpressions");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "key", "gpuplan.io/pool");
    gp__y_kstr (y, "operator", "In");
    gp__y_key (y, "values");
    gp__y_seq_flow (y);
    gp__y_str (y, n->pool);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

static int nic_cluster_policy (struct gp__yaml *y, const struct net *n)
{
    int ib = n->r->kind == GP__FABRIC_IB;
    char *cfg = plugin_json (n->r);
    if (!cfg)
        return GP_ENOMEM;
    doc_head (y, "mellanox.com/v1alpha1", "NicClusterPolicy",
              "nic-cluster-policy", NULL);
    gp__y_key (y, "spec");
    gp__y_map (y);
    if (n->pool)
        pool_affinity (y, n);
    image (y, ib ? "rdmaSharedDevicePlugin" : "sriovDevicePlugin",
           ib ? "k8s-rdma-shared-dev-plugin" : "sriov-network-device-plugin");
    gp__y_kstr (y, "config", cfg);
    gp__y_map_end (y);
    gp__y_key (y, "secondaryNetwork");
    gp__y_map (y);
    image (y, "cniPlugins", "plugins");
    gp__y_map_end (y);
    if (ib) {
        image (y, "ipoib", "ipoib-cni");
        gp__y_map_end (y);
    }
    image (y, "multus", "multus-cni");
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    doc_tail (y);
    free (cfg);
    return 0;
}

static void sriov_policy (struct gp__yaml *y, const struct net *n,
                          const struct gp__rdma_rail *rl)
{
    int ib = n->r->kind == GP__FABRIC_IB;
    char name[64];
    snprintf (name, sizeof name, "%s", rl->network);
    doc_head (y, "sriovnetwork.openshift.io/v1", "SriovNetworkNodePolicy",
              name, SRIOV_OPERATOR_NS);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kstr (y, "resourceName", rl->res_name);
    gp__y_key (y, "nodeSelector");
    gp__y_map (y);
    if (n->pool)
        gp__y_kstr (y, "gpuplan.io/pool", n->pool);
    else
        gp__y_kstr (y, "feature.node.kubernetes.io/network-sriov.capable",
                    "true");
    gp__y_map_end (y);
    gp__y_key (y, "nicSelector");
    gp__y_map (y);
    gp__y_kstr (y, "vendor", MELLANOX_VENDOR);
    gp__y_key (y, "pfNames");
    gp__y_seq_flow (y);
    gp__y_str (y, rl->ifname);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_kint (y, "numVfs", SRIOV_NUM_VFS);
    gp__y_kstr (y, "deviceType", "netdevice");
    gp__y_kbool (y, "isRdma", 1);
    gp__y_kstr (y, "linkType", ib ? "IB" : "ETH");
    gp__y_kint (y, "mtu", ib ? MTU_IB : MTU_ETH);
    gp__y_kint (y, "priority", SRIOV_PRIORITY);
    gp__y_map_end (y);
    doc_tail (y);
}

/* The rail's network object: the operator renders the rail's NAD from
 * it.
 */
static int rail_network (struct gp__yaml *y, const struct net *n,
                         const struct gp__rdma_rail *rl)
{
    int ib = n->r->kind == GP__FABRIC_IB;
    int sriov = n->r->flavor == GP_NET_SRIOV;
    char *ipam = ipam_json (rl);
    if (!ipam)
        return GP_ENOMEM;
    if (sriov)
        doc_head (y, "sriovnetwork.openshift.io/v1",
                  ib ? "SriovIBNetwork" : "SriovNetwork", rl->network,
                  SRIOV_OPERATOR_NS);
    else
        doc_head (y, "mellanox.com/v1alpha1",
                  ib ? "IPoIBNetwork" : "HostDeviceNetwork", rl->network,
                  NULL);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kstr (y, "networkNamespace", n->r->nad_namespace);
    if (sriov || !ib)
        gp__y_kstr (y, "resourceName", rl->res_name);
    else
        gp__y_kstr (y, "master", rl->ifname);
    if (sriov)
        gp__y_kstr (y, "linkState", "enable");
    gp__y_kstr (y, "ipam", ipam);
    gp__y_map_end (y);
    doc_tail (y);
    free (ipam);
    return 0;
}

/* ------------------------------------------------------------- files */

static void header (struct sb *b, const struct net *n, const char *what)
{
    const struct gp__rdma *r = n->r;
    gp__sb_printf (b, "# gpuplan export network: %s\n# plan ", what);
    gp__comment_text (b, n->plan);
    gp__sb_printf (b, ", option ");
    gp__comment_text (b, n->option);
    gp__sb_printf (b, ": %s fabric, %d rails, %lld nodes; %s\n",
                   gp__fabric_kind_str (r->kind), r->n_rails, r->nodes,
                   r->flavor == GP_NET_SRIOV ? "SR-IOV Network Operator"
                                             : "NVIDIA Network Operator");
    gp__sb_printf (b, "# Each rail's network makes the operator render the "
                   "NetworkAttachmentDefinition %s/rdma-rail-<i>.\n"
                   "# A pod using every rail: annotation %s: %s\n"
                   "#   resources %s/rdma_rail_<i>: 1 per rail, "
                   "securityContext.capabilities.add: [IPC_LOCK]\n"
                   "# Needs the whereabouts IPAM plugin "
                   "(docs/formats/export-network.md).\n",
                   r->nad_namespace, GP__RDMA_NETWORKS_ANNOTATION,
                   r->annotation, r->prefix);
}

/* Write one file: the header, then 'body' over the rails. */
static int file (struct gp_export *x, const struct net *n, const char *fname,
                 const char *what,
                 int (*body) (struct gp__yaml *, const struct net *))
{
    struct sb b = {0};
    struct gp__yaml y;
    header (&b, n, what);
    if (gp__y_open (&y, &b) != 0) {
        free (b.s);
        return GP_ENOMEM;
    }
    int rc = body (&y, n);
    if (gp__y_close (&y) != 0 && rc == 0)
        rc = GP_ENOMEM;
    if (rc != 0) {
        free (b.s);
        return rc;
    }
    return gp__export_add_file (x, fname, &b) != 0 ? GP_ENOMEM : 0;
}

static int policies (struct gp__yaml *y, const struct net *n)
{
    if (n->r->flavor != GP_NET_SRIOV)
        return nic_cluster_policy (y, n);
    for (int i = 0; i < n->r->n_rails; i++)
        sriov_policy (y, n, &n->r->rails[i]);
    return 0;
}

static int networks (struct gp__yaml *y, const struct net *n)
{
    int rc = 0;
    for (int i = 0; rc == 0 && i < n->r->n_rails; i++)
        rc = rail_network (y, n, &n->r->rails[i]);
    return rc;
}

static int write_network (const struct gp_cluster *c,
                          const struct gp_export_opts *o,
                          struct gp_export *x, gp_error_t *err)
{
    struct gp__rdma r;
    int rc = gp__rdma_rails (o, c, &r, err);
    if (rc != 0)
        return rc;
    if (r.n_rails == 0) {
        snprintf (x->not_applicable, sizeof x->not_applicable, "%s", r.why);
        return 0;
    }
    const struct gp_plan_result *res = o->plan->result;
    struct net n = {
        .r = &r,
        .pool = c && c->n_pools ? c->pools[0].name : NULL,
        .plan = res->name,
        .option = res->options[o->plan->option].name,
    };
    int sriov = r.flavor == GP_NET_SRIOV;
    rc = file (x, &n, sriov ? "sriov-node-policies.yaml"
                            : "nic-cluster-policy.yaml",
               sriov ? "one SriovNetworkNodePolicy per rail"
                     : "NicClusterPolicy, one device resource per rail",
               policies);
    if (rc == 0)
        rc = file (x, &n, "rdma-networks.yaml",
                   sriov ? (r.kind == GP__FABRIC_IB ? "one SriovIBNetwork "
                                                      "per rail"
                                                    : "one SriovNetwork per "
                                                      "rail")
                         : (r.kind == GP__FABRIC_IB ? "one IPoIBNetwork per "
                                                      "rail"
                                                    : "one HostDeviceNetwork "
                                                      "per rail"),
                   networks);
    if (rc == GP_ENOMEM)
        gp_errprintf (err, GP_ENOMEM, "out of memory");
    return rc;
}

const struct gp_export_target_ops gp__export_network = {
    .name = "network",
    .k8s_names = 1,
    .needs_plan = 1,
    .write = write_network,
};
