/* network.c - the network export target: not yet supported (docs/formats/export.md). */
#include "export_private.h"

const struct gp_export_target_ops gp__export_network = {
    .name = "network",
    .k8s_names = 1,
    .needs_plan = 1,
    .write = gp__export_not_yet,
};
