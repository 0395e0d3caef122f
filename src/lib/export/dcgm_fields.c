/* dcgm_fields.c - the DCGM fields gpuplan's rules and dashboard read, and
 * the dcgm-exporter counters CSV that enables them (dcgm_fields.h).
 *
 * Sources: field IDs from NVIDIA DCGM dcgmlib/dcgm_fields.h (v4.6.0);
 * types and help texts from dcgm-exporter etc/default-counters.csv
 * (4.5.3-4.8.2) where the field is listed there, commented out or not;
 * the clock-event, maximum-operating-temperature and PCIe link fields are
 * not listed there and take DCGM's field type (int64, a gauge).
 */
#include <string.h>

#include "dcgm_fields.h"

#define CAP "capacity rules, dashboard"
#define HEALTH "health alerts"

const struct gp__dcgm_field gp__dcgm_fields[] = {
    {GP__DCGM_GPU_UTIL, 203, "gauge", "GPU utilization (in %).", CAP},
    {GP__DCGM_FB_USED, 252, "gauge", "Framebuffer memory used (in MiB).",
     CAP},
    {GP__DCGM_POWER_USAGE, 155, "gauge", "Power draw (in W).", CAP},
    {GP__DCGM_XID, 230, "gauge", "Value of the last XID error encountered.",
     HEALTH},
    {GP__DCGM_GPU_TEMP, 150, "gauge", "GPU temperature (in C).", HEALTH},
    {GP__DCGM_GPU_MAX_OP_TEMP, 152, "gauge",
     "Maximum operating temperature for this GPU (in C).", HEALTH},
    {GP__DCGM_MEM_TEMP, 140, "gauge", "Memory temperature (in C).", HEALTH},
    {GP__DCGM_MEM_MAX_OP_TEMP, 151, "gauge",
     "Maximum operating temperature for the memory of this GPU (in C).",
     HEALTH},
    {GP__DCGM_CLOCK_EVENTS, 112, "gauge",
     "Current clock event reasons (bitmask of DCGM_CLOCKS_EVENT_REASON_*).",
     HEALTH},
    {GP__DCGM_THERMAL_VIOLATION, 241, "counter",
     "Throttling duration due to thermal constraints (in ns).", HEALTH},
    {GP__DCGM_ECC_DBE_VOL, 311, "counter",
     "Total number of double-bit volatile ECC errors.", HEALTH},
    {GP__DCGM_ROW_REMAP_FAILURE, 395, "gauge",
     "Whether remapping of rows has failed", HEALTH},
    {GP__DCGM_NVLINK_REPLAY, 429, "counter",
     "Total number of NVLink retries.", HEALTH},
    {GP__DCGM_NVLINK_RECOVERY, 439, "counter",
     "Total number of NVLink recovery errors.", HEALTH},
    {GP__DCGM_PCIE_REPLAY, 202, "counter", "Total number of PCIe retries.",
     HEALTH},
    {GP__DCGM_PCIE_LINK_GEN, 237, "gauge", "PCIe current link generation.",
     HEALTH},
    {GP__DCGM_PCIE_LINK_WIDTH, 238, "gauge", "PCIe current link width.",
     HEALTH},
};

const size_t gp__dcgm_n_fields = sizeof gp__dcgm_fields
                                 / sizeof *gp__dcgm_fields;

void gp__dcgm_csv (struct sb *b)
{
    gp__sb_printf (b, "# DCGM fields read by gpuplan's Prometheus rules and "
                      "Grafana dashboard.\n"
                      "# Format: DCGM FIELD, Prometheus metric type, help "
                      "message\n");
    const char *group = "";
    for (size_t i = 0; i < gp__dcgm_n_fields; i++) {
        const struct gp__dcgm_field *f = &gp__dcgm_fields[i];
        if (strcmp (group, f->used_by)) {
            group = f->used_by;
            gp__sb_printf (b, "\n# %s\n", group);
        }
        gp__sb_printf (b, "%s, %s, %s\n", f->name, f->type, f->help);
    }
}
