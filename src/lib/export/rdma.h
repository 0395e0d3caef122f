/* rdma.h - the one place that names a plan's RDMA secondary networks
 * (docs/formats/export-network.md): per rail of the option's fabric, the
 * Multus network (NetworkAttachmentDefinition) name, the extended
 * resource a pod asks for that rail's NIC, and the pod annotation
 * k8s.v1.cni.cncf.io/networks that attaches every rail.
 *
 * The network target writes the objects that create these networks and
 * resources; the serving and jobs targets call gp__rdma_rails() for the
 * names their pods use, so the three never disagree.
 */
#ifndef GPUPLAN_EXPORT_RDMA_H
#define GPUPLAN_EXPORT_RDMA_H

#include "export_private.h"

/* The pod annotation Multus reads for secondary networks. */
#define GP__RDMA_NETWORKS_ANNOTATION "k8s.v1.cni.cncf.io/networks"

/* Most rails gpuplan writes (one /16 of 172.16.0.0/12 each, the
 * documented IPAM assumption).
 */
#define GP__RDMA_MAX_RAILS 16

/* The namespace that holds the rails' NetworkAttachmentDefinitions; pods
 * in any namespace attach them as "<ns>/<name>".
 */
#define GP__RDMA_NAD_NAMESPACE "default"

enum gp__fabric_kind {
    GP__FABRIC_NONE,            /* no RDMA network: n_rails 0, 'why' */
    GP__FABRIC_IB,              /* InfiniBand switches (ib_switch part) */
    GP__FABRIC_ROCE,            /* Ethernet switches, RDMA over
                                   Converged Ethernet (eth_switch part) */
};

struct gp__rdma_rail {
    int index;                  /* 0-based rail number */
    char network[64];           /* DNS-1123 label: "rdma-rail-0"; the name
                                   of the NAD and of the operator's
                                   network object */
    char res_name[64];          /* resource name without prefix, as the
                                   device plugin / SR-IOV policy spells
                                   it: "rdma_rail_0" */
    char resource[96];          /* extended resource a pod requests:
                                   "nvidia.com/rdma_rail_0" (Network
                                   Operator) or "openshift.io/rdma_rail_0"
                                   (SR-IOV Network Operator); 1 per pod */
    char ifname[16];            /* host netdev assumed for the rail's NIC
                                   (PCI-derived names differ per server,
                                   so gpuplan assumes the per-rail
                                   renaming of NVIDIA's presets):
                                   "eth_r<i>", IB and RoCE alike */
    char subnet[32];            /* whereabouts range: "172.16.0.0/16" */
};

struct gp__rdma {
    enum gp__fabric_kind kind;
    enum gp_export_net_flavor flavor;
    const char *prefix;         /* "nvidia.com" or "openshift.io" */
    const char *nad_namespace;  /* GP__RDMA_NAD_NAMESPACE */
    int n_rails;                /* 0: no RDMA network ('why' says why) */
    long long nodes;            /* nodes of the option */
    struct gp__rdma_rail rails[GP__RDMA_MAX_RAILS];
    /* Value of GP__RDMA_NETWORKS_ANNOTATION for a pod that uses every
     * rail: "default/rdma-rail-0,default/rdma-rail-1,..." ("" when
     * n_rails is 0).
     */
    char annotation[GP__RDMA_MAX_RAILS * 40];
    char why[256];              /* n_rails 0: the reason (for
                                   gp_export.not_applicable) */
};

/* The RDMA rails of the plan option 'o->plan' exports, for cluster 'c'
 * (the option's cluster; used for its name in messages, may be NULL).
 * The fabric kind comes from the catalog category of the option spec's
 * switch part (o->catalog: ib_switch = InfiniBand, eth_switch = RoCE);
 * the rails are the option's fabric rails (GPUs per node x NICs per
 * GPU); o->net picks the resource prefix.
 *
 * n_rails is 0, with 'why' set, when there is nothing to attach: no plan
 * (o->plan NULL), one node (scale-up only), or a cloud fleet (its fabric
 * -- EFA, GPUDirect-TCPX/TCPXO, ... -- is the provider's, not configured
 * by these operators).  Returns 0; GP_EINVAL (NULL 'o' or 'out', bad
 * option index, no catalog, a switch part that is not in the catalog or
 * not a switch), GP_ERANGE (more than GP__RDMA_MAX_RAILS rails, or more
 * addresses than a rail's range holds) with 'err' set.  Fills 'out'
 * (zeroed first); allocates nothing.
 */
int gp__rdma_rails (const struct gp_export_opts *o,
                    const struct gp_cluster *c, struct gp__rdma *out,
                    gp_error_t *err);

/* The kind as a word: "none", "InfiniBand", "RoCE". */
const char *gp__fabric_kind_str (enum gp__fabric_kind k);

#endif
