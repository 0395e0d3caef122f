/* catalog.c - the hardware catalog: embedded CSV tables, optional override
 * directory, strict column checking, lookups with "did you mean".
 *
 * Each table is described once by a column map (name, type, struct offset,
 * scale to SI) that drives parsing of both the embedded copy and a user's
 * override file, so the two can never disagree about units.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "gpuplan/catalog.h"
#include "gpuplan/csv.h"
#include "../core/embed.h"
#include "../core/strpool.h"

/* ============================== tables ================================= */

struct gp_catalog {
    struct gp__strpool strings;
    struct gp_accel *accels;
    size_t n_accels, cap_accels;
    struct gp_instance *instances;
    size_t n_instances, cap_instances;
    struct gp_mig_profile *migs;
    size_t n_migs, cap_migs;
    struct gp_part *parts;
    size_t n_parts, cap_parts;
    struct gp_generation *gens;
    size_t n_gens, cap_gens;
    struct gp_capacity *caps;
    size_t n_caps, cap_caps;
};

enum ctype { C_STR, C_NUM, C_INT };

enum cflags_b {
    C_REQUIRED = 1, /* must be non-empty */
    C_OPTCOL = 2,   /* the column may be absent (older override files):
                       its cells read as empty */
};

struct col {
    const char *name;
    enum ctype type;
    size_t off;
    double scale; /* C_NUM: multiply the cell by this to get SI */
    unsigned flags;
};

#define S(field, fl) {#field, C_STR, offsetof (struct gp_accel, field), 0, fl}
static const struct col accel_cols[] = {
    {"id", C_STR, offsetof (struct gp_accel, id), 0, C_REQUIRED},
    {"name", C_STR, offsetof (struct gp_accel, name), 0, C_REQUIRED},
    {"vendor", C_STR, offsetof (struct gp_accel, vendor), 0, C_REQUIRED},
    {"memory_gb", C_NUM, offsetof (struct gp_accel, mem_bytes), 1e9,
     C_REQUIRED},
    {"mem_bw_tbs", C_NUM, offsetof (struct gp_accel, mem_bw), 1e12, 0},
    {"bf16_dense_tflops", C_NUM, offsetof (struct gp_accel, bf16_flops), 1e12,
     0},
    {"bf16_sparse_tflops", C_NUM,
     offsetof (struct gp_accel, bf16_sparse_flops), 1e12, 0},
    {"fp16_dense_tflops", C_NUM, offsetof (struct gp_accel, fp16_flops), 1e12,
     0},
    {"fp8_dense_tflops", C_NUM, offsetof (struct gp_accel, fp8_flops), 1e12,
     0},
    {"fp4_dense_tflops", C_NUM, offsetof (struct gp_accel, fp4_flops), 1e12,
     0},
    {"int8_dense_tops", C_NUM, offsetof (struct gp_accel, int8_ops), 1e12, 0},
    {"tf32_dense_tflops", C_NUM, offsetof (struct gp_accel, tf32_flops), 1e12,
     0},
    {"fp32_tflops", C_NUM, offsetof (struct gp_accel, fp32_flops), 1e12, 0},
    {"scale_up_link", C_STR, offsetof (struct gp_accel, scale_up_link), 0, 0},
    {"scale_up_bw_gbs_bidir", C_NUM, offsetof (struct gp_accel, scale_up_bw),
     1e9, 0},
    {"scale_up_domain_gpus", C_INT,
     offsetof (struct gp_accel, scale_up_domain), 0, 0},
    {"tdp_w", C_NUM, offsetof (struct gp_accel, tdp_w), 1.0, 0},
    {"form_factor", C_STR, offsetof (struct gp_accel, form_factor), 0, 0},
    {"release_year", C_INT, offsetof (struct gp_accel, release_year), 0, 0},
    {"source", C_STR, offsetof (struct gp_accel, source), 0, C_REQUIRED},
    {"source_date", C_STR, offsetof (struct gp_accel, source_date), 0,
     C_REQUIRED},
    {"notes", C_STR, offsetof (struct gp_accel, notes), 0, 0},
    {"generation", C_STR, offsetof (struct gp_accel, generation), 0,
     C_OPTCOL},
    {"host_accelerators", C_INT, offsetof (struct gp_accel, host_accels), 0,
     C_OPTCOL},
    {"nic_gbps", C_NUM, offsetof (struct gp_accel, nic_bw), 1e9 / 8.0,
     C_OPTCOL},
    {"cuda_memory_gib", C_NUM, offsetof (struct gp_accel, cuda_mem_bytes),
     1073741824.0, C_OPTCOL},
    {NULL, C_STR, 0, 0, 0},
};
#undef S

#define I(f) offsetof (struct gp_instance, f)
static const struct col instance_cols[] = {
    {"cloud", C_STR, I (cloud), 0, C_REQUIRED},
    {"instance", C_STR, I (id), 0, C_REQUIRED},
    {"accelerator_id", C_STR, I (accel_id), 0, C_REQUIRED},
    {"accelerators_per_node", C_INT, I (n_accels), 0, C_REQUIRED},
    {"vcpus", C_INT, I (vcpus), 0, 0},
    {"memory_gib", C_NUM, I (mem_bytes), 1073741824.0, 0},
    {"network_gbps", C_NUM, I (net_bw), 1e9 / 8.0, 0},
    {"fabric", C_STR, I (fabric), 0, 0},
    {"interconnect", C_STR, I (interconnect), 0, 0},
    {"local_nvme_tb", C_NUM, I (local_nvme_bytes), 1e12, 0},
    {"region", C_STR, I (region), 0, 0},
    {"on_demand_usd_hr", C_NUM, I (on_demand_usd_hr), 1.0, 0},
    {"spot_usd_hr", C_NUM, I (spot_usd_hr), 1.0, 0},
    {"reserved_1y_usd_hr", C_NUM, I (reserved_1y_usd_hr), 1.0, 0},
    {"reserved_3y_usd_hr", C_NUM, I (reserved_3y_usd_hr), 1.0, 0},
    {"price_date", C_STR, I (price_date), 0, 0},
    {"price_as_of", C_STR, I (price_as_of), 0, C_OPTCOL},
    {"price_flags", C_STR, I (price_flags), 0, C_OPTCOL},
    {"source", C_STR, I (source), 0, 0},
    {"notes", C_STR, I (notes), 0, 0},
    {NULL, C_STR, 0, 0, 0},
};
#undef I

#define M(f) offsetof (struct gp_mig_profile, f)
static const struct col mig_cols[] = {
    {"accelerator_id", C_STR, M (accel_id), 0, C_REQUIRED},
    {"profile", C_STR, M (profile), 0, C_REQUIRED},
    {"compute_slices", C_INT, M (compute_slices), 0, C_REQUIRED},
    {"memory_gb", C_NUM, M (mem_bytes), 1e9, C_REQUIRED},
    {"max_instances", C_INT, M (max_instances), 0, C_REQUIRED},
    {"media_extensions", C_INT, M (media_extensions), 0, 0},
    {"source", C_STR, M (source), 0, C_REQUIRED},
    {"source_date", C_STR, M (source_date), 0, C_REQUIRED},
    {"notes", C_STR, M (notes), 0, 0},
    {NULL, C_STR, 0, 0, 0},
};
#undef M

#define P(f) offsetof (struct gp_part, f)
static const struct col part_cols[] = {
    {"category", C_STR, P (category), 0, C_REQUIRED},
    {"id", C_STR, P (id), 0, C_REQUIRED},
    {"item", C_STR, P (item), 0, C_REQUIRED},
    {"key", C_STR, P (key), 0, C_REQUIRED},
    {"value", C_NUM, P (value), 1.0, 0},
    {"unit", C_STR, P (unit), 0, 0},
    {"text", C_STR, P (text), 0, 0},
    {"source", C_STR, P (source), 0, C_REQUIRED},
    {"source_date", C_STR, P (source_date), 0, C_REQUIRED},
    {"notes", C_STR, P (notes), 0, 0},
    {NULL, C_STR, 0, 0, 0},
};
#undef P

#define G(f) offsetof (struct gp_generation, f)
#define GN(f) {#f, C_NUM, G (f), 1.0, C_REQUIRED}
static const struct col gen_cols[] = {
    {"id", C_STR, G (id), 0, C_REQUIRED},
    {"name", C_STR, G (name), 0, C_REQUIRED},
    GN (train_gemm_max),
    GN (train_gemm_dim_half),
    GN (train_attn),
    {"train_attn_cudnn", C_NUM, G (train_attn_cudnn), 1.0, C_OPTCOL},
    GN (train_hbm),
    GN (train_scale_up),
    GN (train_scale_out),
    GN (train_kernel_s),
    GN (infer_hbm),
    GN (infer_gemm),
    GN (infer_attn),
    GN (infer_link),
    GN (infer_allreduce_lat_s),
    GN (infer_layer_lat_s),
    GN (infer_moe),
    GN (infer_moe_flop),
    {"nic_gbps", C_NUM, G (nic_bw), 1e9 / 8.0, C_REQUIRED},
    {"fp4_per_fp8", C_NUM, G (fp4_per_fp8), 1.0, 0},
    {"nvls_algbw_share", C_NUM, G (nvls_algbw), 1.0, C_OPTCOL},
    {"source", C_STR, G (source), 0, C_REQUIRED},
    {"notes", C_STR, G (notes), 0, 0},
    {NULL, C_STR, 0, 0, 0},
};
#undef GN
#undef G

#define K(f) offsetof (struct gp_capacity, f)
static const struct col cap_cols[] = {
    {"cloud", C_STR, K (cloud), 0, C_REQUIRED},
    {"region", C_STR, K (region), 0, 0},
    {"accelerator_id", C_STR, K (accel_id), 0, C_REQUIRED},
    {"pricing", C_STR, K (pricing), 0, C_REQUIRED},
    {"max_gpus", C_NUM, K (max_gpus), 1.0, 0},
    {"source", C_STR, K (source), 0, 0},
    {"notes", C_STR, K (notes), 0, 0},
    {NULL, C_STR, 0, 0, 0},
};
#undef K

/* ============================ row loading ============================== */

enum table { T_ACCEL, T_INSTANCE, T_MIG, T_PART, T_GEN, T_CAP };

struct load {
    struct gp_catalog *cat;
    enum table table;
    const char *name;       /* file name for messages */
    const struct col *cols;
    int map[32];            /* column index in file for each col, or -1 */
    size_t n_header;
};

static const char *file_of (enum table t)
{
    static const char *const names[] = {"accelerators.csv", "instances.csv",
                                        "mig_profiles.csv", "parts.csv",
                                        "generations.csv", "capacity.csv"};
    return names[t];
}

static int parse_num (const char *s, double *v)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    double d = strtod (s, &end);
    if (end == s || *end || errno || !isfinite (d) || d < 0)
        return -1;
    *v = d;
    return 1;
}

/* Find the row in the table with the same key as 'row', or NULL. */
static void *find_same (struct gp_catalog *c, enum table t, const void *row)
{
    switch (t) {
    case T_ACCEL: {
        const struct gp_accel *r = row;
        for (size_t i = 0; i < c->n_accels; i++)
            if (strcasecmp (c->accels[i].id, r->id) == 0)
                return &c->accels[i];
        return NULL;
    }
    case T_INSTANCE: {
        const struct gp_instance *r = row;
        for (size_t i = 0; i < c->n_instances; i++)
            if (strcmp (c->instances[i].id, r->id) == 0
                && strcmp (c->instances[i].region, r->region) == 0)
                return &c->instances[i];
        return NULL;
    }
    case T_MIG: {
        const struct gp_mig_profile *r = row;
        for (size_t i = 0; i < c->n_migs; i++)
            if (strcmp (c->migs[i].accel_id, r->accel_id) == 0
                && strcmp (c->migs[i].profile, r->profile) == 0)
                return &c->migs[i];
        return NULL;
    }
    case T_PART: {
        const struct gp_part *r = row;
        for (size_t i = 0; i < c->n_parts; i++)
            if (strcmp (c->parts[i].id, r->id) == 0
                && strcmp (c->parts[i].key, r->key) == 0)
                return &c->parts[i];
        return NULL;
    }
    case T_GEN: {
        const struct gp_generation *r = row;
        for (size_t i = 0; i < c->n_gens; i++)
            if (strcasecmp (c->gens[i].id, r->id) == 0)
                return &c->gens[i];
        return NULL;
    }
    case T_CAP: {
        const struct gp_capacity *r = row;
        for (size_t i = 0; i < c->n_caps; i++)
            if (strcmp (c->caps[i].cloud, r->cloud) == 0
                && strcmp (c->caps[i].region, r->region) == 0
                && strcmp (c->caps[i].accel_id, r->accel_id) == 0
                && strcmp (c->caps[i].pricing, r->pricing) == 0)
                return &c->caps[i];
        return NULL;
    }
    }
    return NULL;
}

static int grow (void **v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 64;
    void *p = realloc (*v, nc * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = nc;
    return 0;
}

/* Append or replace 'row' (of the table's struct type) in the catalog. */
static int store (struct load *L, const void *row, size_t line,
                  gp_error_t *err, int is_override)
{
    struct gp_catalog *c = L->cat;
    void *same = find_same (c, L->table, row);
    if (same && !is_override)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: duplicate key (row repeats an earlier "
                             "one)", L->name, line);
    size_t sz = L->table == T_ACCEL      ? sizeof (struct gp_accel)
                : L->table == T_INSTANCE ? sizeof (struct gp_instance)
                : L->table == T_MIG      ? sizeof (struct gp_mig_profile)
                : L->table == T_GEN      ? sizeof (struct gp_generation)
                : L->table == T_CAP      ? sizeof (struct gp_capacity)
                                         : sizeof (struct gp_part);
    if (same) {
        memcpy (same, row, sz);
        return 0;
    }
    int rc = 0;
    switch (L->table) {
    case T_ACCEL:
        rc = grow ((void **)&c->accels, &c->cap_accels, c->n_accels, sz);
        if (!rc)
            memcpy (&c->accels[c->n_accels++], row, sz);
        break;
    case T_INSTANCE:
        rc = grow ((void **)&c->instances, &c->cap_instances, c->n_instances,
                   sz);
        if (!rc)
            memcpy (&c->instances[c->n_instances++], row, sz);
        break;
    case T_MIG:
        rc = grow ((void **)&c->migs, &c->cap_migs, c->n_migs, sz);
        if (!rc)
            memcpy (&c->migs[c->n_migs++], row, sz);
        break;
    case T_PART:
        rc = grow ((void **)&c->parts, &c->cap_parts, c->n_parts, sz);
        if (!rc)
            memcpy (&c->parts[c->n_parts++], row, sz);
        break;
    case T_GEN:
        rc = grow ((void **)&c->gens, &c->cap_gens, c->n_gens, sz);
        if (!rc)
            memcpy (&c->gens[c->n_gens++], row, sz);
        break;
    case T_CAP:
        rc = grow ((void **)&c->caps, &c->cap_caps, c->n_caps, sz);
        if (!rc)
            memcpy (&c->caps[c->n_caps++], row, sz);
        break;
    }
    if (rc)
        return gp_errprintf (err, GP_ENOMEM, "%s: out of memory", L->name);
    return 0;
}

struct load_arg {
    struct load *L;
    int is_override;
};

static int on_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct load_arg *A = arg;
    struct load *L = A->L;
    if (row->index == 0) {
        int hrc = gp_csv_header_unique (row, L->name, err);
        if (hrc)
            return hrc;
        size_t ncols = 0;
        for (const struct col *c = L->cols; c->name; c++)
            L->map[ncols++] = gp_csv_col (row, c->name);
        for (size_t i = 0; i < ncols; i++)
            if (L->map[i] < 0 && !(L->cols[i].flags & C_OPTCOL))
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: missing column '%s'", L->name,
                                     row->line, L->cols[i].name);
        for (size_t f = 0; f < row->n_fields; f++) {
            int known = 0;
            for (size_t i = 0; i < ncols; i++)
                if ((size_t)L->map[i] == f)
                    known = 1;
            if (!known)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: unknown column '%s'", L->name,
                                     row->line, row->fields[f]);
        }
        L->n_header = row->n_fields;
        return 0;
    }
    if (row->n_fields != L->n_header)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: %zu fields where the header has %zu",
                             L->name, row->line, row->n_fields, L->n_header);
    union {
        struct gp_accel a;
        struct gp_instance i;
        struct gp_mig_profile m;
        struct gp_part p;
        struct gp_generation g;
        struct gp_capacity k;
    } rec;
    memset (&rec, 0, sizeof rec);
    char *base = (char *)&rec;
    size_t k = 0;
    for (const struct col *c = L->cols; c->name; c++, k++) {
        const char *cell = L->map[k] >= 0 ? row->fields[L->map[k]] : "";
        if ((c->flags & C_REQUIRED) && !*cell)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: column '%s' must not be empty",
                                 L->name, row->line, c->name);
        switch (c->type) {
        case C_STR: {
            const char *d = gp__strpool_dup (&L->cat->strings, cell);
            if (!d)
                return gp_errprintf (err, GP_ENOMEM, "out of memory");
            memcpy (base + c->off, &d, sizeof d);
            break;
        }
        case C_NUM: {
            double v = 0.0;
            int r = parse_num (cell, &v);
            if (r < 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: column '%s': '%s' is not a "
                                     "non-negative number",
                                     L->name, row->line, c->name, cell);
            if (r > 0 && c->flags & C_REQUIRED && v <= 0)
                return gp_errprintf (err, GP_ERANGE,
                                     "%s:%zu: column '%s' must be positive",
                                     L->name, row->line, c->name);
            v *= c->scale;
            memcpy (base + c->off, &v, sizeof v);
            if (L->table == T_PART && strcmp (c->name, "value") == 0) {
                rec.p.has_value = r > 0;
                if (!rec.p.has_value)
                    rec.p.value = NAN;
            }
            break;
        }
        case C_INT: {
            double v = 0.0;
            int r = parse_num (cell, &v);
            if (r < 0 || v != floor (v) || v > 1e9)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: column '%s': '%s' is not a "
                                     "non-negative integer",
                                     L->name, row->line, c->name, cell);
            int iv = (int)v;
            memcpy (base + c->off, &iv, sizeof iv);
            break;
        }
        }
    }
    if (L->table == T_PART && !rec.p.has_value && !*rec.p.text)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: a part needs a 'value' or a 'text'",
                             L->name, row->line);
    if (L->table == T_INSTANCE && rec.i.n_accels <= 0)
        return gp_errprintf (err, GP_ERANGE,
                             "%s:%zu: accelerators_per_node must be positive",
                             L->name, row->line);
    if (L->table == T_MIG
        && (rec.m.compute_slices < 1 || rec.m.compute_slices > 7
            || rec.m.max_instances < 1))
        return gp_errprintf (err, GP_ERANGE,
                             "%s:%zu: compute_slices must be 1..7 and "
                             "max_instances positive",
                             L->name, row->line);
    return store (L, &rec, row->line, err, A->is_override);
}

static const struct col *cols_of (enum table t)
{
    switch (t) {
    case T_ACCEL:
        return accel_cols;
    case T_INSTANCE:
        return instance_cols;
    case T_MIG:
        return mig_cols;
    case T_PART:
        return part_cols;
    case T_GEN:
        return gen_cols;
    case T_CAP:
        return cap_cols;
    }
    return NULL;
}

static int load_table (struct gp_catalog *cat, enum table t, const char *dir,
                       gp_error_t *err)
{
    struct load L = {.cat = cat, .table = t, .cols = cols_of (t)};
    if (!dir) {
        char name[64];
        snprintf (name, sizeof name, "catalog/%s", file_of (t));
        const struct gp__embedded_file *f = gp__embedded_find (name);
        if (!f)
            return gp_errprintf (err, GP_EINTERNAL,
                                 "embedded %s is missing from the build",
                                 name);
        L.name = name;
        struct load_arg A = {&L, 0};
        return gp_csv_parse (f->data, f->len, name, ',', on_row, &A, err);
    }
    char path[4096];
    int n = snprintf (path, sizeof path, "%s/%s", dir, file_of (t));
    if (n < 0 || (size_t)n >= sizeof path)
        return gp_errprintf (err, GP_EINVAL, "--catalog: path too long");
    struct stat st;
    if (stat (path, &st) != 0)
        return 0; /* absent: keep the embedded table */
    L.name = path;
    struct load_arg A = {&L, 1};
    return gp_csv_parse_file (path, ',', on_row, &A, err);
}

static int resolve (struct gp_catalog *cat, gp_error_t *err)
{
    for (size_t i = 0; i < cat->n_accels; i++) {
        struct gp_accel *a = &cat->accels[i];
        const char *g = a->generation && *a->generation ? a->generation
                                                        : "other";
        gp_error_t e;
        a->gen = gp_catalog_find_generation (cat, g, &e);
        if (!a->gen)
            return gp_errprintf (err, GP_ENOTFOUND, "accelerators.csv: %s: %s",
                                 a->id, e.text);
    }
    for (size_t i = 0; i < cat->n_instances; i++) {
        struct gp_instance *in = &cat->instances[i];
        gp_error_t e;
        in->accel = gp_catalog_find_accel (cat, in->accel_id, &e);
        if (!in->accel)
            return gp_errprintf (err, GP_ENOTFOUND, "instances.csv: %s (%s): %s",
                                 in->id, in->region, e.text);
    }
    for (size_t i = 0; i < cat->n_migs; i++) {
        gp_error_t e;
        if (!gp_catalog_find_accel (cat, cat->migs[i].accel_id, &e))
            return gp_errprintf (err, GP_ENOTFOUND, "mig_profiles.csv: %s: %s",
                                 cat->migs[i].profile, e.text);
    }
    return 0;
}

struct gp_catalog *gp_catalog_load (const char *dir, gp_error_t *err)
{
    struct gp_catalog *cat = calloc (1, sizeof *cat);
    if (!cat) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    if (dir) {
        struct stat st;
        if (stat (dir, &st) != 0 || !S_ISDIR (st.st_mode)) {
            gp_errprintf (err, GP_EIO, "--catalog %s: not a directory", dir);
            goto error;
        }
    }
    for (int t = T_ACCEL; t <= T_CAP; t++)
        if (load_table (cat, (enum table)t, NULL, err) != 0)
            goto error;
    if (dir)
        for (int t = T_ACCEL; t <= T_CAP; t++)
            if (load_table (cat, (enum table)t, dir, err) != 0)
                goto error;
    if (resolve (cat, err) != 0)
        goto error;
    return cat;
error:
    gp_catalog_destroy (cat);
    return NULL;
}

void gp_catalog_destroy (struct gp_catalog *cat)
{
    if (!cat)
        return;
    int saved = errno;
    gp__strpool_free (&cat->strings);
    free (cat->accels);
    free (cat->instances);
    free (cat->migs);
    free (cat->parts);
    free (cat->gens);
    free (cat->caps);
    free (cat);
    errno = saved;
}

size_t gp_catalog_n_capacity (const struct gp_catalog *c)
{
    return c ? c->n_caps : 0;
}
const struct gp_capacity *gp_catalog_capacity (const struct gp_catalog *c,
                                               size_t i)
{
    return c && i < c->n_caps ? &c->caps[i] : NULL;
}

size_t gp_catalog_n_generations (const struct gp_catalog *c)
{
    return c ? c->n_gens : 0;
}

const struct gp_generation *gp_catalog_generation (const struct gp_catalog *c,
                                                   size_t i)
{
    return c && i < c->n_gens ? &c->gens[i] : NULL;
}

const struct gp_generation *gp_catalog_find_generation (
    const struct gp_catalog *c, const char *id, gp_error_t *err)
{
    for (size_t i = 0; c && id && i < c->n_gens; i++)
        if (strcasecmp (c->gens[i].id, id) == 0)
            return &c->gens[i];
    char known[256] = "";
    size_t n = 0;
    for (size_t i = 0; c && i < c->n_gens && n < sizeof known - 1; i++)
        n += (size_t)snprintf (known + n, sizeof known - n, "%s%s",
                               i ? ", " : "", c->gens[i].id);
    gp_errprintf (err, GP_ENOTFOUND,
                  "unknown generation '%s' (generations.csv has %s)",
                  id ? id : "", known);
    return NULL;
}

size_t gp_catalog_n_accels (const struct gp_catalog *c)
{
    return c ? c->n_accels : 0;
}
const struct gp_accel *gp_catalog_accel (const struct gp_catalog *c, size_t i)
{
    return c && i < c->n_accels ? &c->accels[i] : NULL;
}
size_t gp_catalog_n_instances (const struct gp_catalog *c)
{
    return c ? c->n_instances : 0;
}
const struct gp_instance *gp_catalog_instance (const struct gp_catalog *c,
                                               size_t i)
{
    return c && i < c->n_instances ? &c->instances[i] : NULL;
}
size_t gp_catalog_n_mig (const struct gp_catalog *c)
{
    return c ? c->n_migs : 0;
}
const struct gp_mig_profile *gp_catalog_mig (const struct gp_catalog *c,
                                             size_t i)
{
    return c && i < c->n_migs ? &c->migs[i] : NULL;
}
size_t gp_catalog_n_parts (const struct gp_catalog *c)
{
    return c ? c->n_parts : 0;
}
const struct gp_part *gp_catalog_part (const struct gp_catalog *c, size_t i)
{
    return c && i < c->n_parts ? &c->parts[i] : NULL;
}

/* ============================== lookups ================================ */


const struct gp_accel *gp_catalog_find_accel (const struct gp_catalog *cat,
                                              const char *id,
                                              gp_error_t *err)
{
    if (!cat || !id) {
        gp_errprintf (err, GP_EINVAL, "find accelerator: NULL argument");
        return NULL;
    }
    for (size_t i = 0; i < cat->n_accels; i++)
        if (strcasecmp (cat->accels[i].id, id) == 0)
            return &cat->accels[i];
    const char *ids[256];
    size_t n = cat->n_accels < 256 ? cat->n_accels : 256;
    for (size_t i = 0; i < n; i++)
        ids[i] = cat->accels[i].id;
    char near[256];
    if (gp_closest_names (id, ids, n, 3, near, sizeof near) > 0)
        gp_errprintf (err, GP_ENOTFOUND,
                      "unknown accelerator '%s'; did you mean %s?", id, near);
    else
        gp_errprintf (err, GP_ENOTFOUND,
                      "unknown accelerator '%s' (see 'gpuplan catalog list "
                      "accelerators')", id);
    return NULL;
}

const struct gp_instance *gp_catalog_find_instance (
    const struct gp_catalog *cat,
    const char *id,
    const char *region,
    gp_error_t *err)
{
    if (!cat || !id) {
        gp_errprintf (err, GP_EINVAL, "find instance: NULL argument");
        return NULL;
    }
    for (size_t i = 0; i < cat->n_instances; i++)
        if (strcasecmp (cat->instances[i].id, id) == 0
            && (!region || strcmp (cat->instances[i].region, region) == 0))
            return &cat->instances[i];
    const char *ids[256];
    size_t n = cat->n_instances < 256 ? cat->n_instances : 256;
    for (size_t i = 0; i < n; i++)
        ids[i] = cat->instances[i].id;
    char near[256];
    if (gp_closest_names (id, ids, n, 3, near, sizeof near) > 0)
        gp_errprintf (err, GP_ENOTFOUND,
                      "unknown instance '%s'%s%s; did you mean %s?", id,
                      region ? " in region " : "", region ? region : "", near);
    else
        gp_errprintf (err, GP_ENOTFOUND, "unknown instance '%s'", id);
    return NULL;
}

int gp_catalog_part_value (const struct gp_catalog *cat,
                           const char *id,
                           const char *key,
                           double *value,
                           gp_error_t *err)
{
    if (!cat || !id || !key || !value)
        return gp_errprintf (err, GP_EINVAL, "part value: NULL argument");
    for (size_t i = 0; i < cat->n_parts; i++) {
        const struct gp_part *p = &cat->parts[i];
        if (strcmp (p->id, id) == 0 && strcmp (p->key, key) == 0) {
            if (!p->has_value)
                return gp_errprintf (err, GP_ENOTFOUND,
                                     "part %s.%s has no numeric value", id,
                                     key);
            *value = p->value;
            return 0;
        }
    }
    return gp_errprintf (err, GP_ENOTFOUND, "unknown part value %s.%s", id,
                         key);
}

double gp_accel_peak_flops (const struct gp_accel *a, const char *precision)
{
    if (!a || !precision)
        return 0.0;
    if (strcmp (precision, "bf16") == 0)
        return a->bf16_flops > 0 ? a->bf16_flops : a->fp16_flops;
    if (strcmp (precision, "fp16") == 0)
        return a->fp16_flops > 0 ? a->fp16_flops : a->bf16_flops;
    if (strcmp (precision, "fp8") == 0)
        return a->fp8_flops;
    if (strcmp (precision, "fp4") == 0)
        return a->fp4_flops;
    if (strcmp (precision, "tf32") == 0)
        return a->tf32_flops;
    if (strcmp (precision, "fp32") == 0)
        return a->fp32_flops;
    if (strcmp (precision, "int8") == 0)
        return a->int8_ops;
    return 0.0;
}
