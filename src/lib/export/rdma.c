/* rdma.c - the RDMA rails of a plan option (rdma.h): fabric kind from
 * the catalog's switch part, one network, resource and address range per
 * rail (docs/formats/export-network.md).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "rdma.h"

const char *gp__fabric_kind_str (enum gp__fabric_kind k)
{
    switch (k) {
    case GP__FABRIC_IB:
        return "InfiniBand";
    case GP__FABRIC_ROCE:
        return "RoCE";
    default:
        return "none";
    }
}

/* The kind of switch part 'id' from its catalog category. */
static int switch_kind (const struct gp_catalog *cat, const char *id,
                        enum gp__fabric_kind *k, gp_error_t *err)
{
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        if (strcasecmp (p->id, id) != 0)
            continue;
        if (strcmp (p->category, "ib_switch") == 0) {
            *k = GP__FABRIC_IB;
            return 0;
        }
        if (strcmp (p->category, "eth_switch") == 0) {
            *k = GP__FABRIC_ROCE;
            return 0;
        }
        return gp_errprintf (err, GP_EINVAL,
                             "export network: switch '%s' is catalog "
                             "category '%s', not ib_switch or eth_switch",
                             id, p->category);
    }
    return gp_errprintf (err, GP_EINVAL, "export network: switch '%s' is "
                         "not in the catalog's parts", id);
}

/* One address per pod per rail, at most one pod per GPU of a node: a
 * rail's /16 (65,534 usable addresses) holds this many per node.
 */
#define PODS_PER_NODE 8
#define ADDRS_PER_RAIL 65534LL

static void none (struct gp__rdma *out, const char *fmt, const char *a)
{
    out->kind = GP__FABRIC_NONE;
    out->n_rails = 0;
    snprintf (out->why, sizeof out->why, fmt, a);
}

static void fill_rails (struct gp__rdma *out)
{
    size_t used = 0;
    for (int i = 0; i < out->n_rails; i++) {
        struct gp__rdma_rail *r = &out->rails[i];
        r->index = i;
        snprintf (r->network, sizeof r->network, "rdma-rail-%d", i);
        /* The resource name is built in a local buffer and then copied
         * into both fields: formatting r->resource from r->res_name would
         * read from the object being written (snprintf's restrict).
         */
        char res_name[sizeof r->res_name];
        snprintf (res_name, sizeof res_name, "rdma_rail_%d", i);
        memcpy (r->res_name, res_name, sizeof res_name);
        snprintf (r->resource, sizeof r->resource, "%s/%s", out->prefix,
                  res_name);
        snprintf (r->ifname, sizeof r->ifname, "eth_r%d", i);
        snprintf (r->subnet, sizeof r->subnet, "172.%d.0.0/16", 16 + i);
        used += (size_t)snprintf (out->annotation + used,
                                  sizeof out->annotation - used, "%s%s/%s",
                                  i ? "," : "", out->nad_namespace,
                                  r->network);
    }
}

int gp__rdma_rails (const struct gp_export_opts *o,
                    const struct gp_cluster *c, struct gp__rdma *out,
                    gp_error_t *err)
{
    (void)c;
    if (!o || !out)
        return gp_errprintf (err, GP_EINVAL, "rdma rails: NULL argument");
    memset (out, 0, sizeof *out);
    out->flavor = o->net;
    out->prefix = o->net == GP_NET_SRIOV ? "openshift.io" : "nvidia.com";
    out->nad_namespace = GP__RDMA_NAD_NAMESPACE;
    const struct gp_export_plan *p = o->plan;
    if (!p || !p->result || !p->spec) {
        none (out, "%sno plan: the RDMA rails come from a plan's fabric",
              "");
        return 0;
    }
    if (p->option < 0 || (size_t)p->option >= p->result->n_options)
        return gp_errprintf (err, GP_EINVAL, "export network: option index "
                             "%d outside the plan's %zu options", p->option,
                             p->result->n_options);
    const struct gp_plan_option *op = &p->result->options[p->option];
    out->nodes = op->nodes;
    if (op->cloud_fabric || op->kind != GP_OPT_ONPREM) {
        none (out, "option '%s' runs on a cloud fleet: its fabric (EFA, "
              "GPUDirect-TCPX/TCPXO, ...) is the provider's, not "
              "configured by the SR-IOV or NVIDIA Network Operator",
              op->name);
        return 0;
    }
    if (op->nodes <= 1) {
        none (out, "option '%s' is one node: scale-up only, no RDMA "
              "network to attach", op->name);
        return 0;
    }
    if (op->spec_index < 0 || (size_t)op->spec_index >= p->spec->n_options)
        return gp_errprintf (err, GP_EINVAL, "export network: option '%s' "
                             "has no option spec (index %d)", op->name,
                             op->spec_index);
    const struct gp_plan_option_spec *os = &p->spec->options[op->spec_index];
    if (!o->catalog)
        return gp_errprintf (err, GP_EINVAL, "export network: the catalog "
                             "is needed to tell switch '%s' InfiniBand "
                             "from Ethernet", os->switch_id);
    int rc = switch_kind (o->catalog, os->switch_id, &out->kind, err);
    if (rc != 0)
        return rc;
    if (op->fabric.rails < 1)
        return gp_errprintf (err, GP_EINVAL, "export network: option '%s' "
                             "has a %lld-node fabric with no rails",
                             op->name, op->nodes);
    if (op->fabric.rails > GP__RDMA_MAX_RAILS)
        return gp_errprintf (err, GP_ERANGE, "export network: option '%s' "
                             "has %d rails; at most %d are written (one "
                             "172.16.0.0/12 /16 per rail)", op->name,
                             op->fabric.rails, GP__RDMA_MAX_RAILS);
    if (op->nodes * PODS_PER_NODE > ADDRS_PER_RAIL)
        return gp_errprintf (err, GP_ERANGE, "export network: option '%s' "
                             "has %lld nodes; a rail's /16 holds %d pod "
                             "addresses per node for at most %lld nodes",
                             op->name, op->nodes, PODS_PER_NODE,
                             ADDRS_PER_RAIL / PODS_PER_NODE);
    out->n_rails = op->fabric.rails;
    fill_rails (out);
    return 0;
}
