/* query.c - catalog queries: the tables 'catalog list' prints, every row
 * 'catalog show ID' matches, and checked peak-FLOP/s lookups.
 *
 * The selection lives here so that every front end answers "what does the
 * catalog hold for ID" the same way; the JSON of the rows is built in
 * report/catalog_json.c.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/catalog.h"

static const char *const table_names[] = {"accelerators", "instances", "mig",
                                          "parts"};

int gp_catalog_table_parse (const char *s, enum gp_catalog_table *t,
                            gp_error_t *err)
{
    if (!s || !t)
        return gp_errprintf (err, GP_EINVAL, "catalog table: NULL argument");
    for (int i = 0; i < 4; i++)
        if (!strcmp (s, table_names[i])) {
            *t = (enum gp_catalog_table)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown table '%s'; expected accelerators, "
                         "instances, mig or parts", s);
}

const char *gp_catalog_table_str (enum gp_catalog_table t)
{
    return (unsigned)t < 4 ? table_names[t] : "unknown";
}

const char *gp_catalog_kind_str (enum gp_catalog_kind k)
{
    switch (k) {
    case GP_CATALOG_ACCEL: return "accelerator";
    case GP_CATALOG_MIG_PROFILE: return "mig_profile";
    case GP_CATALOG_INSTANCE: return "instance";
    case GP_CATALOG_PART: return "part";
    }
    return "unknown";
}

/* ================================ show ================================= */

static int add (struct gp_catalog_match *m, size_t *cap,
                enum gp_catalog_kind kind, const void *row)
{
    if (m->n_rows == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        struct gp_catalog_ref *p = realloc (m->rows, nc * sizeof *p);
        if (!p)
            return -1;
        m->rows = p;
        *cap = nc;
    }
    struct gp_catalog_ref *r = &m->rows[m->n_rows++];
    memset (r, 0, sizeof *r);
    r->kind = kind;
    switch (kind) {
    case GP_CATALOG_ACCEL: r->accel = row; break;
    case GP_CATALOG_MIG_PROFILE: r->mig = row; break;
    case GP_CATALOG_INSTANCE: r->instance = row; break;
    case GP_CATALOG_PART: r->part = row; break;
    }
    return 0;
}

/* Every row whose id is 'id': the accelerator and its MIG profiles, the
 * instance rows (all regions), the part rows.  -1 on allocation failure.
 */
static int collect (const struct gp_catalog *cat, const char *id,
                    struct gp_catalog_match *m)
{
    size_t cap = 0;
    for (size_t i = 0; i < gp_catalog_n_accels (cat); i++)
        if (strcasecmp (gp_catalog_accel (cat, i)->id, id) == 0)
            m->accel = gp_catalog_accel (cat, i);
    if (m->accel) {
        if (add (m, &cap, GP_CATALOG_ACCEL, m->accel))
            return -1;
        for (size_t i = 0; i < gp_catalog_n_mig (cat); i++)
            if (strcasecmp (gp_catalog_mig (cat, i)->accel_id, id) == 0
                && add (m, &cap, GP_CATALOG_MIG_PROFILE,
                        gp_catalog_mig (cat, i)))
                return -1;
    }
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
        if (strcasecmp (gp_catalog_instance (cat, i)->id, id) == 0
            && add (m, &cap, GP_CATALOG_INSTANCE,
                    gp_catalog_instance (cat, i)))
            return -1;
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++)
        if (strcasecmp (gp_catalog_part (cat, i)->id, id) == 0
            && add (m, &cap, GP_CATALOG_PART, gp_catalog_part (cat, i)))
            return -1;
    return 0;
}

/* The "unknown catalog id" error, suggesting from every id the catalog
 * knows.
 */
static int unknown_id (const struct gp_catalog *cat, const char *id,
                       gp_error_t *err)
{
    size_t n = gp_catalog_n_accels (cat) + gp_catalog_n_instances (cat)
               + gp_catalog_n_parts (cat);
    const char **ids = calloc (n ? n : 1, sizeof *ids);
    if (!ids)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < gp_catalog_n_accels (cat); i++)
        ids[k++] = gp_catalog_accel (cat, i)->id;
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
        ids[k++] = gp_catalog_instance (cat, i)->id;
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++)
        ids[k++] = gp_catalog_part (cat, i)->id;
    char near[256];
    size_t m = gp_closest_names (id, ids, k, 3, near, sizeof near);
    free (ids);
    if (m)
        return gp_errprintf (err, GP_ENOTFOUND,
                             "unknown catalog id '%s'; did you mean %s?", id,
                             near);
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown catalog id '%s' (see 'gpuplan catalog "
                         "list')", id);
}

void gp_catalog_match_destroy (struct gp_catalog_match *m)
{
    if (!m)
        return;
    free (m->id);
    free (m->rows);
    free (m);
}

int gp_catalog_show (const struct gp_catalog *cat, const char *id,
                     struct gp_catalog_match **out, gp_error_t *err)
{
    if (!cat || !id || !out)
        return gp_errprintf (err, GP_EINVAL, "catalog show: NULL argument");
    struct gp_catalog_match *m = calloc (1, sizeof *m);
    if (!m || !(m->id = strdup (id)) || collect (cat, id, m)) {
        gp_catalog_match_destroy (m);
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    }
    if (m->n_rows == 0) {
        gp_catalog_match_destroy (m);
        return unknown_id (cat, id, err);
    }
    *out = m;
    return 0;
}

/* ============================ peak FLOP/s ============================== */

int gp_accel_peak_flops_lookup (const struct gp_accel *a,
                                 const char *precision, double *flops,
                                 gp_error_t *err)
{
    static const char *const known[] = {"bf16", "fp16", "fp8", "fp4",
                                        "tf32", "fp32", "int8"};
    if (!a || !precision || !flops)
        return gp_errprintf (err, GP_EINVAL, "peak FLOP/s: NULL argument");
    int found = 0;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        found |= !strcmp (precision, known[i]);
    if (!found)
        return gp_errprintf (err, GP_ENOTFOUND,
                             "unknown precision '%s'; expected bf16, fp16, "
                             "fp8, fp4, tf32, fp32 or int8", precision);
    double v = gp_accel_peak_flops (a, precision);
    if (!(v > 0))
        return gp_errprintf (err, GP_ENOTFOUND,
                             "the catalog has no %s peak for '%s'",
                             precision, a->id);
    *flops = v;
    return 0;
}
