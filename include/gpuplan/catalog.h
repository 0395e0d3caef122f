/* gpuplan/catalog.h - accelerators, cloud instances, MIG profiles and
 * infrastructure parts, each row with its source and the source's date.
 *
 * The catalog is embedded in the library at build time from data/catalog/
 * (so the tool works from any directory) and can be overridden or extended
 * from a directory holding files of the same names: a row whose key exists
 * replaces it, a new key is added.  Keys: accelerator id; instance id plus
 * region; MIG accelerator id plus profile; part id plus key.
 *
 * Quantities are held in SI units (bytes, byte/s, FLOP/s, W, USD/h).
 * A value of 0 means "not published / unknown", never "zero".
 */
#ifndef GPUPLAN_CATALOG_H
#define GPUPLAN_CATALOG_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Efficiency factors of one accelerator generation (generations.csv):
 * the shares of the catalog peaks that the training and inference models
 * achieve, and the scale-out NIC of the generation's reference node.
 * Documented in docs/model/training.md ("Efficiency factors") and
 * docs/model/inference.md ("Calibration").
 */
struct gp_generation {
    const char *id;            /* "hopper", "ampere", ..., "other" */
    const char *name;
    /* training model (struct gp_train_eff) */
    double train_gemm_max;     /* best achieved / peak on large GEMMs */
    double train_gemm_dim_half;/* GEMM dimension at which efficiency halves */
    double train_attn;         /* FlashAttention-2 (flash-attn package)
                                * forward+backward achieved / peak */
    double train_attn_cudnn;   /* cuDNN fused attention (what Transformer
                                * Engine selects on Hopper and later);
                                * 0 = column blank: no separate figure,
                                * train_attn stands for every kernel
                                * (docs/model/training.md, "Attention
                                * kernel") */
    double train_hbm;          /* achieved / peak HBM bandwidth */
    double train_scale_up;     /* NCCL bus bandwidth / link bandwidth */
    double train_scale_out;    /* NCCL bus bandwidth / NIC bandwidth */
    double train_kernel_s;     /* per-kernel launch/sync overhead, s */
    /* inference model (struct gp_hw_eff) */
    double infer_hbm, infer_gemm, infer_attn, infer_link;
    double infer_allreduce_lat_s, infer_layer_lat_s;
    double infer_moe, infer_moe_flop;
    double nic_bw;             /* scale-out NIC per accelerator, one
                                * direction, byte/s (nic_gbps) */
    double fp4_per_fp8;        /* dense FP4 / FP8 peak where an accelerator
                                * row gives no FP4 figure; 0 = no FP4 */
    double nvls_algbw;         /* NVLink SHARP (NVLS) all-reduce algorithm
                                * bandwidth / ring bus bandwidth on the
                                * generation's NVSwitch systems (column
                                * nvls_algbw_share); 0 = no NVLS
                                * (docs/model/training.md, "In-network
                                * reduction") */
    const char *source;
    const char *notes;
};

struct gp_accel {
    const char *id;            /* catalog id, e.g. "H100-SXM" */
    const char *name;          /* marketing name */
    const char *vendor;
    double mem_bytes;          /* device memory, bytes */
    double mem_bw;             /* memory bandwidth, byte/s */
    double bf16_flops;         /* dense BF16 tensor FLOP/s */
    double bf16_sparse_flops;  /* vendor headline with 2:4 sparsity */
    double fp16_flops;         /* dense FP16 tensor FLOP/s */
    double fp8_flops;          /* dense FP8 FLOP/s */
    double fp4_flops;          /* dense FP4 FLOP/s */
    double int8_ops;           /* dense INT8 op/s */
    double tf32_flops;         /* dense TF32 FLOP/s */
    double fp32_flops;         /* non-tensor FP32 FLOP/s */
    const char *scale_up_link; /* e.g. "NVLink 4 via NVSwitch" */
    double scale_up_bw;        /* per device, both directions, byte/s */
    int scale_up_domain;       /* devices in one scale-up domain */
    double tdp_w;              /* board/module power, W */
    const char *form_factor;
    int release_year;
    const char *source;
    const char *source_date;
    const char *notes;
    const char *generation;    /* generations.csv id; "" = "other" */
    int host_accels;           /* accelerators per host for training
                                * (host_accelerators); 0 = min(8, domain) */
    double nic_bw;             /* scale-out NIC per accelerator, byte/s one
                                * direction; 0 = the generation's */
    const struct gp_generation *gen; /* resolved by the catalog; NULL only
                                      * for a hand-built row */
    double cuda_mem_bytes;     /* device memory the CUDA driver reports
                                * (cuda_memory_gib; docs/model/training.md,
                                * "Memory capacity"); 0 = unknown */
};

struct gp_instance {
    const char *cloud;         /* aws, gcp, azure */
    const char *id;            /* instance type, e.g. "p5.48xlarge" */
    const char *accel_id;
    const struct gp_accel *accel; /* resolved, never NULL */
    int n_accels;              /* accelerators per node */
    int vcpus;
    double mem_bytes;          /* host memory, bytes */
    double net_bw;             /* node scale-out bandwidth, byte/s */
    const char *fabric;        /* efa, ib-ndr, roce, ... or "" */
    const char *interconnect;
    double local_nvme_bytes;
    const char *region;
    double on_demand_usd_hr;   /* per node-hour; 0 = not offered/unknown */
    double spot_usd_hr;
    double reserved_1y_usd_hr;
    double reserved_3y_usd_hr;
    const char *price_date;    /* the source's date text, free form */
    const char *price_as_of;   /* earliest date the source allows, e.g.
                                  "2025-H2"; "" = undated */
    const char *price_flags;   /* ';'-separated flags, e.g.
                                  "suspect_flex_start"; "" = none */
    const char *source;
    const char *notes;
};

/* Obtainable capacity (capacity.csv): how many GPUs of an accelerator a
 * cloud lets one hold at once in a region under a pricing model.
 * max_gpus 0 = no published figure (the plan applies no cap and warns).
 */
struct gp_capacity {
    const char *cloud;
    const char *region;        /* "" = every region */
    const char *accel_id;
    const char *pricing;       /* on_demand, spot, reserved_1y, ... */
    double max_gpus;           /* 0 = none published */
    const char *source;
    const char *notes;
};

struct gp_mig_profile {
    const char *accel_id;
    const char *profile;       /* e.g. "3g.40gb" */
    int compute_slices;        /* of 7 */
    double mem_bytes;
    int max_instances;
    int media_extensions;
    const char *source;
    const char *source_date;
    const char *notes;
};

struct gp_part {
    const char *category;      /* ib_switch, storage, facility, ... */
    const char *id;            /* e.g. "qm9700" */
    const char *item;          /* human name */
    const char *key;           /* quantity name, unit implied, e.g. "ports" */
    double value;              /* NAN when the row carries text only */
    int has_value;
    const char *unit;
    const char *text;
    const char *source;
    const char *source_date;
    const char *notes;
};

struct gp_catalog;

/* Load the embedded catalog, then, if 'dir' is non-NULL, merge the files
 * of the same names found in 'dir' (accelerators.csv, instances.csv,
 * mig_profiles.csv, parts.csv, generations.csv; any may be absent).
 * Every accelerator's generation is resolved to its generations.csv row
 * (an empty one to "other"; an unknown one is GP_ENOTFOUND).  Errors name
 * file:line and the column.  Returns a catalog the caller must free with
 * gp_catalog_destroy(), or NULL with 'err' set.
 */
struct gp_catalog *gp_catalog_load (const char *dir, gp_error_t *err);

/* Free a catalog and every row it holds (rows borrowed from it become
 * invalid); NULL is a no-op.
 */
void gp_catalog_destroy (struct gp_catalog *cat);

/* Row counts and rows by index, in file order (embedded rows first, then
 * new keys from the override directory).  A count of a NULL catalog is 0;
 * a row index out of range (or a NULL catalog) gives NULL, never a zeroed
 * row.  Rows are borrowed from 'cat'.
 */
size_t gp_catalog_n_accels (const struct gp_catalog *cat);
const struct gp_accel *gp_catalog_accel (const struct gp_catalog *cat,
                                         size_t i);
size_t gp_catalog_n_instances (const struct gp_catalog *cat);
const struct gp_instance *gp_catalog_instance (const struct gp_catalog *cat,
                                               size_t i);
size_t gp_catalog_n_mig (const struct gp_catalog *cat);
const struct gp_mig_profile *gp_catalog_mig (const struct gp_catalog *cat,
                                             size_t i);
size_t gp_catalog_n_parts (const struct gp_catalog *cat);
const struct gp_part *gp_catalog_part (const struct gp_catalog *cat, size_t i);
/* Obtainable-capacity rows (capacity.csv), in file order; borrowed. */
size_t gp_catalog_n_capacity (const struct gp_catalog *cat);
const struct gp_capacity *gp_catalog_capacity (const struct gp_catalog *cat,
                                               size_t i);
/* Accelerator generations (generations.csv), in file order; borrowed. */
size_t gp_catalog_n_generations (const struct gp_catalog *cat);
const struct gp_generation *gp_catalog_generation (
    const struct gp_catalog *cat, size_t i);
/* The generation 'id' (exact, case-insensitive), or NULL with 'err'
 * (GP_ENOTFOUND).  Borrowed from 'cat'.
 */
const struct gp_generation *gp_catalog_find_generation (
    const struct gp_catalog *cat, const char *id, gp_error_t *err);

/* Find an accelerator by exact id (case-insensitive).  On failure returns
 * NULL and sets 'err' (GP_ENOTFOUND) to a message that lists the closest
 * ids: "unknown accelerator 'H100'; did you mean H100-SXM, H100-PCIE?".
 * The result is borrowed from 'cat'.
 */
const struct gp_accel *gp_catalog_find_accel (const struct gp_catalog *cat,
                                              const char *id,
                                              gp_error_t *err);

/* Find the first instance row whose id matches (case-insensitive), and
 * whose region matches if 'region' is non-NULL.  Borrowed; NULL + err
 * (with closest matches) when none.
 */
const struct gp_instance *gp_catalog_find_instance (
    const struct gp_catalog *cat,
    const char *id,
    const char *region,
    gp_error_t *err);

/* Find a part value by id and key (exact, case-sensitive); returns 0 and
 * sets '*value' (in the row's unit), GP_ENOTFOUND for an unknown id.key or
 * a row that carries text only (never a silent 0), GP_EINVAL for NULL
 * arguments.  '*value' is untouched on failure.
 */
int gp_catalog_part_value (const struct gp_catalog *cat,
                           const char *id,
                           const char *key,
                           double *value,
                           gp_error_t *err);

/* Peak dense tensor FLOP/s of 'a' for a precision name ("bf16", "fp16",
 * "fp8", "fp4", "tf32", "fp32", "int8"), or 0 when unknown.  "bf16" falls
 * back to fp16 on parts without BF16 (e.g. V100).  Callers that must tell
 * an unknown name from an unpublished peak use gp_accel_peak_flops_lookup().
 */
double gp_accel_peak_flops (const struct gp_accel *a, const char *precision);

/* The same peak with the failure reported: returns 0 and '*flops' (FLOP/s,
 * > 0), GP_ENOTFOUND when 'precision' is not one of the names above or the
 * catalog has no peak for it on 'a' (the message says which), GP_EINVAL
 * for NULL arguments.  '*flops' is untouched on failure.
 */
int gp_accel_peak_flops_lookup (const struct gp_accel *a,
                                const char *precision,
                                double *flops,
                                gp_error_t *err);


/* ============================== queries ================================= */

/* The tables of 'gpuplan catalog list'. */
enum gp_catalog_table {
    GP_CATALOG_ACCELERATORS,
    GP_CATALOG_INSTANCES,
    GP_CATALOG_MIG,
    GP_CATALOG_PARTS,
};

/* Parse "accelerators", "instances", "mig" or "parts".  Returns 0, or
 * GP_ENOTFOUND ("unknown table 'x'; expected ...") / GP_EINVAL for NULL.
 */
int gp_catalog_table_parse (const char *s,
                            enum gp_catalog_table *t,
                            gp_error_t *err);

/* The name of a table ("accelerators", ...); a static string. */
const char *gp_catalog_table_str (enum gp_catalog_table t);

/* The kind of one catalog row. */
enum gp_catalog_kind {
    GP_CATALOG_ACCEL,
    GP_CATALOG_MIG_PROFILE,
    GP_CATALOG_INSTANCE,
    GP_CATALOG_PART,
};

/* "accelerator", "mig_profile", "instance", "part"; a static string. */
const char *gp_catalog_kind_str (enum gp_catalog_kind k);

/* One row of any table, borrowed from the catalog: the member that
 * 'kind' names is set.
 */
struct gp_catalog_ref {
    enum gp_catalog_kind kind;
    const struct gp_accel *accel;
    const struct gp_mig_profile *mig;
    const struct gp_instance *instance;
    const struct gp_part *part;
};

/* Every row whose id is the one asked for. */
struct gp_catalog_match {
    char *id;                    /* the id as asked */
    const struct gp_accel *accel;/* the accelerator of that id, or NULL */
    struct gp_catalog_ref *rows; /* the accelerator, then its MIG profiles,
                                    then instance rows (every region), then
                                    part rows */
    size_t n_rows;               /* >= 1 */
};

/* Find every row whose id is 'id' (case-insensitive): an accelerator with
 * its MIG profiles, instance rows of every region, part rows.  Returns 0
 * and '*out' (free with gp_catalog_match_destroy(); the rows stay borrowed
 * from 'cat', which must outlive it), or GP_ENOTFOUND with the closest
 * ids of all tables in the message ("unknown catalog id 'x'; did you mean
 * A, B?"), GP_EINVAL for NULL arguments, GP_ENOMEM.
 */
int gp_catalog_show (const struct gp_catalog *cat,
                     const char *id,
                     struct gp_catalog_match **out,
                     gp_error_t *err);

/* Free a match (not the rows, which belong to the catalog); NULL is a
 * no-op.
 */
void gp_catalog_match_destroy (struct gp_catalog_match *m);

/* ============================ JSON renderers ============================ */

struct json_t;

/* JSON of one table: {"table": name, "rows": [...]} in catalog units (GB,
 * TB/s, TFLOP/s, W, USD per node-hour; null = unknown).  A new reference
 * the caller releases with json_decref(); NULL on allocation failure or a
 * NULL catalog.
 */
struct json_t *gp_catalog_list_json (const struct gp_catalog *cat,
                                     enum gp_catalog_table t);

/* The text table of 'table' (`gpuplan catalog list`): one row per catalog
 * row.  Returns a string the caller must free, or NULL with 'err' set
 * (GP_ENOMEM).
 */
char *gp_report_catalog_list_text (const struct gp_catalog *cat,
                                   enum gp_catalog_table table,
                                   gp_error_t *err);

/* JSON of one row in the units above, ending with "kind".  Caller owns;
 * NULL on allocation failure.
 */
struct json_t *gp_catalog_ref_json (const struct gp_catalog_ref *r);

/* JSON of a match: for an accelerator id its object with "mig_profiles"
 * nested, otherwise {"id", "rows": [...]}.  Caller owns; NULL on
 * allocation failure.
 */
struct json_t *gp_catalog_match_json (const struct gp_catalog_match *m);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_CATALOG_H */
