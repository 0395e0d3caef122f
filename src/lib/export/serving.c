/* serving.c - the serving export target: not yet supported (docs/formats/export.md). */
#include "export_private.h"

const struct gp_export_target_ops gp__export_serving = {
    .name = "serving",
    .k8s_names = 1,
    .needs_plan = 1,
    .write = gp__export_not_yet,
};
