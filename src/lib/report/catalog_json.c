/* catalog_json.c - JSON of catalog rows, tables and 'catalog show'
 * matches, in catalog units: GB, TB/s, TFLOP/s, W, USD per node-hour;
 * null = unknown.
 */
#include <jansson.h>
#include <string.h>

#include "gpuplan/catalog.h"

static json_t *jstr (const char *s)
{
    return s && *s ? json_string (s) : json_null ();
}

/* A number, or null when 'v' is 0 / unknown. */
static json_t *known (double v)
{
    return v > 0 ? json_real (v) : json_null ();
}

static json_t *accel_json (const struct gp_accel *a)
{
    json_t *o = json_object ();
    json_object_set_new (o, "id", jstr (a->id));
    json_object_set_new (o, "name", jstr (a->name));
    json_object_set_new (o, "vendor", jstr (a->vendor));
    json_object_set_new (o, "memory_gb", known (a->mem_bytes / 1e9));
    json_object_set_new (o, "mem_bw_tbs", known (a->mem_bw / 1e12));
    json_object_set_new (o, "bf16_dense_tflops",
                         known (a->bf16_flops / 1e12));
    json_object_set_new (o, "bf16_sparse_tflops",
                         known (a->bf16_sparse_flops / 1e12));
    json_object_set_new (o, "fp16_dense_tflops",
                         known (a->fp16_flops / 1e12));
    json_object_set_new (o, "fp8_dense_tflops",
                         known (a->fp8_flops / 1e12));
    json_object_set_new (o, "fp4_dense_tflops",
                         known (a->fp4_flops / 1e12));
    json_object_set_new (o, "int8_dense_tops",
                         known (a->int8_ops / 1e12));
    json_object_set_new (o, "tf32_dense_tflops",
                         known (a->tf32_flops / 1e12));
    json_object_set_new (o, "fp32_tflops",
                         known (a->fp32_flops / 1e12));
    json_object_set_new (o, "scale_up_link", jstr (a->scale_up_link));
    json_object_set_new (o, "scale_up_bw_gbs_bidir",
                         known (a->scale_up_bw / 1e9));
    json_object_set_new (o, "scale_up_domain_gpus",
                         a->scale_up_domain > 0
                             ? json_integer (a->scale_up_domain)
                             : json_null ());
    json_object_set_new (o, "tdp_w", known (a->tdp_w));
    json_object_set_new (o, "form_factor", jstr (a->form_factor));
    json_object_set_new (o, "release_year",
                         a->release_year ? json_integer (a->release_year)
                                         : json_null ());
    json_object_set_new (o, "source", jstr (a->source));
    json_object_set_new (o, "source_date", jstr (a->source_date));
    json_object_set_new (o, "notes", jstr (a->notes));
    return o;
}

static json_t *instance_json (const struct gp_instance *in)
{
    json_t *o = json_object ();
    json_object_set_new (o, "cloud", jstr (in->cloud));
    json_object_set_new (o, "instance", jstr (in->id));
    json_object_set_new (o, "region", jstr (in->region));
    json_object_set_new (o, "accelerator_id", jstr (in->accel_id));
    json_object_set_new (o, "accelerators_per_node",
                         json_integer (in->n_accels));
    json_object_set_new (o, "vcpus",
                         in->vcpus ? json_integer (in->vcpus) : json_null ());
    json_object_set_new (o, "memory_gib",
                         known (in->mem_bytes / 1073741824.0));
    json_object_set_new (o, "network_gbps",
                         known (in->net_bw * 8.0 / 1e9));
    json_object_set_new (o, "fabric", jstr (in->fabric));
    json_object_set_new (o, "interconnect", jstr (in->interconnect));
    json_object_set_new (o, "local_nvme_tb",
                         known (in->local_nvme_bytes / 1e12));
    json_object_set_new (o, "on_demand_usd_hr",
                         known (in->on_demand_usd_hr));
    json_object_set_new (o, "spot_usd_hr", known (in->spot_usd_hr));
    json_object_set_new (o, "reserved_1y_usd_hr",
                         known (in->reserved_1y_usd_hr));
    json_object_set_new (o, "reserved_3y_usd_hr",
                         known (in->reserved_3y_usd_hr));
    json_object_set_new (o, "price_date", jstr (in->price_date));
    json_object_set_new (o, "price_as_of", jstr (in->price_as_of));
    json_object_set_new (o, "price_flags", jstr (in->price_flags));
    json_object_set_new (o, "source", jstr (in->source));
    json_object_set_new (o, "notes", jstr (in->notes));
    return o;
}

static json_t *mig_json (const struct gp_mig_profile *m)
{
    json_t *o = json_object ();
    json_object_set_new (o, "accelerator_id", jstr (m->accel_id));
    json_object_set_new (o, "profile", jstr (m->profile));
    json_object_set_new (o, "compute_slices", json_integer (m->compute_slices));
    json_object_set_new (o, "memory_gb", json_real (m->mem_bytes / 1e9));
    json_object_set_new (o, "max_instances", json_integer (m->max_instances));
    json_object_set_new (o, "media_extensions",
                         json_boolean (m->media_extensions));
    json_object_set_new (o, "source", jstr (m->source));
    json_object_set_new (o, "source_date", jstr (m->source_date));
    json_object_set_new (o, "notes", jstr (m->notes));
    return o;
}

static json_t *part_json (const struct gp_part *p)
{
    json_t *o = json_object ();
    json_object_set_new (o, "category", jstr (p->category));
    json_object_set_new (o, "id", jstr (p->id));
    json_object_set_new (o, "item", jstr (p->item));
    json_object_set_new (o, "key", jstr (p->key));
    json_object_set_new (o, "value",
                         p->has_value ? json_real (p->value) : json_null ());
    json_object_set_new (o, "unit", jstr (p->unit));
    json_object_set_new (o, "text", jstr (p->text));
    json_object_set_new (o, "source", jstr (p->source));
    json_object_set_new (o, "source_date", jstr (p->source_date));
    json_object_set_new (o, "notes", jstr (p->notes));
    return o;
}

/* ============================== public ================================= */

json_t *gp_catalog_ref_json (const struct gp_catalog_ref *r)
{
    if (!r)
        return NULL;
    json_t *o = NULL;
    switch (r->kind) {
    case GP_CATALOG_ACCEL: o = accel_json (r->accel); break;
    case GP_CATALOG_MIG_PROFILE: o = mig_json (r->mig); break;
    case GP_CATALOG_INSTANCE: o = instance_json (r->instance); break;
    case GP_CATALOG_PART: o = part_json (r->part); break;
    }
    if (o)
        json_object_set_new (o, "kind",
                             json_string (gp_catalog_kind_str (r->kind)));
    return o;
}

json_t *gp_catalog_list_json (const struct gp_catalog *cat,
                              enum gp_catalog_table t)
{
    if (!cat)
        return NULL;
    json_t *arr = json_array ();
    switch (t) {
    case GP_CATALOG_ACCELERATORS:
        for (size_t i = 0; i < gp_catalog_n_accels (cat); i++)
            json_array_append_new (arr, accel_json (gp_catalog_accel (cat, i)));
        break;
    case GP_CATALOG_INSTANCES:
        for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
            json_array_append_new (
                arr, instance_json (gp_catalog_instance (cat, i)));
        break;
    case GP_CATALOG_MIG:
        for (size_t i = 0; i < gp_catalog_n_mig (cat); i++)
            json_array_append_new (arr, mig_json (gp_catalog_mig (cat, i)));
        break;
    case GP_CATALOG_PARTS:
        for (size_t i = 0; i < gp_catalog_n_parts (cat); i++)
            json_array_append_new (arr, part_json (gp_catalog_part (cat, i)));
        break;
    }
    json_t *doc = json_object ();
    json_object_set_new (doc, "table", json_string (gp_catalog_table_str (t)));
    json_object_set_new (doc, "rows", arr);
    return doc;
}

json_t *gp_catalog_match_json (const struct gp_catalog_match *m)
{
    if (!m)
        return NULL;
    if (m->accel) {
        /* the accelerator's object, its MIG profiles nested */
        json_t *o = gp_catalog_ref_json (&m->rows[0]);
        json_t *migs = json_array ();
        for (size_t i = 1; i < m->n_rows; i++)
            if (m->rows[i].kind == GP_CATALOG_MIG_PROFILE)
                json_array_append_new (migs, gp_catalog_ref_json (&m->rows[i]));
        json_object_set_new (o, "mig_profiles", migs);
        return o;
    }
    json_t *rows = json_array ();
    for (size_t i = 0; i < m->n_rows; i++)
        json_array_append_new (rows, gp_catalog_ref_json (&m->rows[i]));
    json_t *doc = json_object ();
    json_object_set_new (doc, "id", json_string (m->id));
    json_object_set_new (doc, "rows", rows);
    return doc;
}
