/* catalog_text.c - the text tables of `gpuplan catalog list`: one row per
 * catalog row, numbers in the units of the CSV columns, "-" for unknown.
 */
#include <stdio.h>

#include "gpuplan/catalog.h"
#include "report_private.h"

static const char *num (char *buf, size_t n, const char *fmt, double v)
{
    if (v > 0)
        snprintf (buf, n, fmt, v);
    else
        snprintf (buf, n, "-");
    return buf;
}

static int list_accels (const struct gp_catalog *cat, struct rbuf *out)
{
    const char *h[] = {"ID", "VENDOR", "MEM GB", "BW TB/s", "BF16 TF",
                       "FP8 TF", "SCALE-UP GB/s", "DOMAIN", "TDP W"};
    struct gp__ttab *t = gp__ttab_create (9, h);
    for (size_t i = 0; i < gp_catalog_n_accels (cat); i++) {
        const struct gp_accel *a = gp_catalog_accel (cat, i);
        char b[7][32];
        const char *r[9] = {
            a->id,
            a->vendor,
            num (b[0], 32, "%.4g", a->mem_bytes / 1e9),
            num (b[1], 32, "%.4g", a->mem_bw / 1e12),
            num (b[2], 32, "%.5g", gp_accel_peak_flops (a, "bf16") / 1e12),
            num (b[3], 32, "%.5g", a->fp8_flops / 1e12),
            num (b[4], 32, "%.4g", a->scale_up_bw / 1e9),
            num (b[5], 32, "%.0f", (double)a->scale_up_domain),
            num (b[6], 32, "%.0f", a->tdp_w),
        };
        gp__ttab_add (t, r);
    }
    return gp__ttab_write (t, out);
}

static int list_instances (const struct gp_catalog *cat, struct rbuf *out)
{
    const char *h[] = {"CLOUD", "INSTANCE", "REGION", "ACCELERATORS",
                       "NET Gb/s", "ON-DEMAND $/h", "SPOT $/h", "PRICE DATE"};
    struct gp__ttab *t = gp__ttab_create (8, h);
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        char acc[64], b[3][32];
        snprintf (acc, sizeof acc, "%d x %s", in->n_accels, in->accel_id);
        const char *r[8] = {
            in->cloud,
            in->id,
            in->region,
            acc,
            num (b[0], 32, "%.0f", in->net_bw * 8 / 1e9),
            num (b[1], 32, "%.2f", in->on_demand_usd_hr),
            num (b[2], 32, "%.2f", in->spot_usd_hr),
            in->price_date,
        };
        gp__ttab_add (t, r);
    }
    return gp__ttab_write (t, out);
}

static int list_mig (const struct gp_catalog *cat, struct rbuf *out)
{
    const char *h[] = {"ACCELERATOR", "PROFILE", "SLICES/7", "MEM GB",
                       "MAX PER GPU"};
    struct gp__ttab *t = gp__ttab_create (5, h);
    for (size_t i = 0; i < gp_catalog_n_mig (cat); i++) {
        const struct gp_mig_profile *m = gp_catalog_mig (cat, i);
        char b[3][32];
        snprintf (b[0], 32, "%d", m->compute_slices);
        snprintf (b[1], 32, "%.4g", m->mem_bytes / 1e9);
        snprintf (b[2], 32, "%d", m->max_instances);
        const char *r[5] = {m->accel_id, m->profile, b[0], b[1], b[2]};
        gp__ttab_add (t, r);
    }
    return gp__ttab_write (t, out);
}

static int list_parts (const struct gp_catalog *cat, struct rbuf *out)
{
    const char *h[] = {"CATEGORY", "ID", "KEY", "VALUE", "UNIT"};
    struct gp__ttab *t = gp__ttab_create (5, h);
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        char v[64];
        if (p->has_value)
            snprintf (v, sizeof v, "%.6g", p->value);
        else
            snprintf (v, sizeof v, "(text)");
        const char *r[5] = {p->category, p->id, p->key, v, p->unit};
        gp__ttab_add (t, r);
    }
    return gp__ttab_write (t, out);
}

char *gp_report_catalog_list_text (const struct gp_catalog *cat,
                                   enum gp_catalog_table t, gp_error_t *err)
{
    struct rbuf b = {0};
    int rc = -1;
    switch (t) {
    case GP_CATALOG_ACCELERATORS: rc = list_accels (cat, &b); break;
    case GP_CATALOG_INSTANCES: rc = list_instances (cat, &b); break;
    case GP_CATALOG_MIG: rc = list_mig (cat, &b); break;
    case GP_CATALOG_PARTS: rc = list_parts (cat, &b); break;
    }
    if (rc < 0)
        b.failed = 1;
    return gp_rb_take (&b, err);
}
