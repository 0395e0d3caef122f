/* grafana.c - a Grafana dashboard of a cluster spec over DCGM exporter
 * metrics and gpuplan's recording rules (docs/formats/export.md).
 *
 * Not yet supported: the target is registered so that the command line
 * and the library name it, and fails with GP_ENOTSUP until it is written.
 */
#include "export_private.h"

static int write_grafana (const struct gp_cluster *c,
                          const struct gp_export_opts *o, struct gp_export *x,
                          gp_error_t *err)
{
    (void)c;
    (void)o;
    (void)x;
    return gp_errprintf (err, GP_ENOTSUP,
                         "export grafana: not yet supported");
}

const struct gp_export_target_ops gp__export_grafana = {
    .name = "grafana",
    .k8s_names = 1,
    .write = write_grafana,
};
