/* dcgm_fields.h - the one list of DCGM fields gpuplan reads: the
 * Prometheus rules (capacity series and GPU health alerts, prometheus.c)
 * and the Grafana dashboard (grafana.c) name their metrics through these
 * macros, and the gpu-operator target writes the dcgm-exporter counters
 * CSV (dcgm-metrics.csv) that enables exactly these fields
 * (docs/formats/export-gpu-operator.md, "DCGM counters").
 *
 * dcgm-exporter names each metric after the CSV's first column as written,
 * so the metric names below are the field names.  Names are those of
 * dcgm-exporter 4.5.3-4.8.2's own counter lists (etc/default-counters.csv,
 * where several are commented out) and of DCGM's dcgm_fields.h; DCGM 4.6
 * renamed some fields and keeps these names as deprecated aliases.
 */
#ifndef GPUPLAN_EXPORT_DCGM_FIELDS_H
#define GPUPLAN_EXPORT_DCGM_FIELDS_H

#include <stddef.h>

#include "export_private.h"

/* Capacity series and dashboard. */
#define GP__DCGM_GPU_UTIL "DCGM_FI_DEV_GPU_UTIL"
#define GP__DCGM_FB_USED "DCGM_FI_DEV_FB_USED"
#define GP__DCGM_POWER_USAGE "DCGM_FI_DEV_POWER_USAGE"
/* Health alerts. */
#define GP__DCGM_XID "DCGM_FI_DEV_XID_ERRORS"
#define GP__DCGM_GPU_TEMP "DCGM_FI_DEV_GPU_TEMP"
#define GP__DCGM_GPU_MAX_OP_TEMP "DCGM_FI_DEV_GPU_MAX_OP_TEMP"
#define GP__DCGM_MEM_TEMP "DCGM_FI_DEV_MEMORY_TEMP"
#define GP__DCGM_MEM_MAX_OP_TEMP "DCGM_FI_DEV_MEM_MAX_OP_TEMP"
#define GP__DCGM_CLOCK_EVENTS "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"
/* The deprecated alias of the same field (ID 112): a CSV that lists it
 * yields metrics under this name, so the rules accept both. */
#define GP__DCGM_CLOCK_EVENTS_OLD "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
#define GP__DCGM_THERMAL_VIOLATION "DCGM_FI_DEV_THERMAL_VIOLATION"
#define GP__DCGM_ECC_DBE_VOL "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
#define GP__DCGM_ROW_REMAP_FAILURE "DCGM_FI_DEV_ROW_REMAP_FAILURE"
#define GP__DCGM_NVLINK_REPLAY "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"
#define GP__DCGM_NVLINK_RECOVERY \
    "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"
#define GP__DCGM_PCIE_REPLAY "DCGM_FI_DEV_PCIE_REPLAY_COUNTER"
#define GP__DCGM_PCIE_LINK_GEN "DCGM_FI_DEV_PCIE_LINK_GEN"
#define GP__DCGM_PCIE_LINK_WIDTH "DCGM_FI_DEV_PCIE_LINK_WIDTH"

/* DCGM_CLOCKS_EVENT_REASON_* bits (dcgm_structs.h) the alerts test. */
#define GP__DCGM_CLOCKS_HW_SLOWDOWN 0x8
#define GP__DCGM_CLOCKS_SW_THERMAL 0x20
#define GP__DCGM_CLOCKS_HW_THERMAL 0x40
#define GP__DCGM_CLOCKS_HW_POWER_BRAKE 0x80

/* One field: its name (= the metric name), DCGM field ID, Prometheus
 * type ("gauge" or "counter") and help text, and who reads it.
 */
struct gp__dcgm_field {
    const char *name;
    int id;
    const char *type;
    const char *help;
    const char *used_by;
};

/* Every field above except the deprecated alias, in CSV order. */
extern const struct gp__dcgm_field gp__dcgm_fields[];
extern const size_t gp__dcgm_n_fields;

/* Append dcgm-exporter's counters CSV for these fields ("# ..." comment
 * lines, then "NAME, type, help" rows) to 'b'.
 */
void gp__dcgm_csv (struct sb *b);

#endif
