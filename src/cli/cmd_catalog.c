/* cmd_catalog.c - 'gpuplan catalog list|show': browse the embedded catalog. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

const char cmd_catalog_help[] =
    "NAME\n"
    "    gpuplan catalog - browse the hardware catalog\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan catalog list [accelerators|instances|mig|parts] [--json]\n"
    "                         [--catalog DIR]\n"
    "    gpuplan catalog show ID [--json] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    The catalog holds accelerators (dense tensor FLOP/s per precision,\n"
    "    memory, bandwidth, scale-up link, power), cloud instances (node\n"
    "    shape, network, on-demand/spot/reserved prices and the price date),\n"
    "    MIG profiles and infrastructure parts (switches, NICs, storage\n"
    "    tiers, power, PUE, electricity, capex estimates).  Every row keeps\n"
    "    its source and the source's date.  It is compiled into gpuplan;\n"
    "    --catalog DIR overrides or extends it with files of the same names\n"
    "    (accelerators.csv, instances.csv, mig_profiles.csv, parts.csv).\n"
    "\n"
    "    'list' prints one table (accelerators by default).  'show ID' prints\n"
    "    every row whose id is ID: an accelerator id (H100-SXM), an instance\n"
    "    type (p5.48xlarge, all regions) or a part id (qm9700).  Unknown ids\n"
    "    fail with the closest matches.\n"
    "\n"
    "OPTIONS\n"
    "    --json          print one JSON document (catalog units: GB, TB/s,\n"
    "                    TFLOP/s, W, USD per node-hour; null = unknown)\n"
    "    --catalog DIR   merge the CSV files found in DIR\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 2 unknown id, bad option or malformed catalog file.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan catalog list\n"
    "    gpuplan catalog list instances\n"
    "    gpuplan catalog show H100-SXM --json\n";

/* ======================== JSON of catalog rows ========================= */

static json_t *jstr (const char *s)
{
    return s && *s ? json_string (s) : json_null ();
}

static json_t *accel_json (const struct gp_accel *a)
{
    json_t *o = json_object ();
    json_object_set_new (o, "id", jstr (a->id));
    json_object_set_new (o, "name", jstr (a->name));
    json_object_set_new (o, "vendor", jstr (a->vendor));
    json_object_set_new (o, "memory_gb", cli_json_known (a->mem_bytes / 1e9));
    json_object_set_new (o, "mem_bw_tbs", cli_json_known (a->mem_bw / 1e12));
    json_object_set_new (o, "bf16_dense_tflops",
                         cli_json_known (a->bf16_flops / 1e12));
    json_object_set_new (o, "bf16_sparse_tflops",
                         cli_json_known (a->bf16_sparse_flops / 1e12));
    json_object_set_new (o, "fp16_dense_tflops",
                         cli_json_known (a->fp16_flops / 1e12));
    json_object_set_new (o, "fp8_dense_tflops",
                         cli_json_known (a->fp8_flops / 1e12));
    json_object_set_new (o, "fp4_dense_tflops",
                         cli_json_known (a->fp4_flops / 1e12));
    json_object_set_new (o, "int8_dense_tops",
                         cli_json_known (a->int8_ops / 1e12));
    json_object_set_new (o, "tf32_dense_tflops",
                         cli_json_known (a->tf32_flops / 1e12));
    json_object_set_new (o, "fp32_tflops",
                         cli_json_known (a->fp32_flops / 1e12));
    json_object_set_new (o, "scale_up_link", jstr (a->scale_up_link));
    json_object_set_new (o, "scale_up_bw_gbs_bidir",
                         cli_json_known (a->scale_up_bw / 1e9));
    json_object_set_new (o, "scale_up_domain_gpus",
                         a->scale_up_domain > 0
                             ? json_integer (a->scale_up_domain)
                             : json_null ());
    json_object_set_new (o, "tdp_w", cli_json_known (a->tdp_w));
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
                         cli_json_known (in->mem_bytes / 1073741824.0));
    json_object_set_new (o, "network_gbps",
                         cli_json_known (in->net_bw * 8.0 / 1e9));
    json_object_set_new (o, "fabric", jstr (in->fabric));
    json_object_set_new (o, "interconnect", jstr (in->interconnect));
    json_object_set_new (o, "local_nvme_tb",
                         cli_json_known (in->local_nvme_bytes / 1e12));
    json_object_set_new (o, "on_demand_usd_hr",
                         cli_json_known (in->on_demand_usd_hr));
    json_object_set_new (o, "spot_usd_hr", cli_json_known (in->spot_usd_hr));
    json_object_set_new (o, "reserved_1y_usd_hr",
                         cli_json_known (in->reserved_1y_usd_hr));
    json_object_set_new (o, "reserved_3y_usd_hr",
                         cli_json_known (in->reserved_3y_usd_hr));
    json_object_set_new (o, "price_date", jstr (in->price_date));
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

/* ============================ text output ============================== */

static const char *num (char *buf, size_t n, const char *fmt, double v)
{
    if (v > 0)
        snprintf (buf, n, fmt, v);
    else
        snprintf (buf, n, "-");
    return buf;
}

static void list_accels (const struct gp_catalog *cat)
{
    const char *h[] = {"ID", "VENDOR", "MEM GB", "BW TB/s", "BF16 TF",
                       "FP8 TF", "SCALE-UP GB/s", "DOMAIN", "TDP W"};
    struct cli_table *t = cli_table_create (9, h);
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
        cli_table_add (t, r);
    }
    cli_table_print (t);
}

static void list_instances (const struct gp_catalog *cat)
{
    const char *h[] = {"CLOUD", "INSTANCE", "REGION", "ACCELERATORS",
                       "NET Gb/s", "ON-DEMAND $/h", "SPOT $/h", "PRICE DATE"};
    struct cli_table *t = cli_table_create (8, h);
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
        cli_table_add (t, r);
    }
    cli_table_print (t);
}

static void list_mig (const struct gp_catalog *cat)
{
    const char *h[] = {"ACCELERATOR", "PROFILE", "SLICES/7", "MEM GB",
                       "MAX PER GPU"};
    struct cli_table *t = cli_table_create (5, h);
    for (size_t i = 0; i < gp_catalog_n_mig (cat); i++) {
        const struct gp_mig_profile *m = gp_catalog_mig (cat, i);
        char b[3][32];
        snprintf (b[0], 32, "%d", m->compute_slices);
        snprintf (b[1], 32, "%.4g", m->mem_bytes / 1e9);
        snprintf (b[2], 32, "%d", m->max_instances);
        const char *r[5] = {m->accel_id, m->profile, b[0], b[1], b[2]};
        cli_table_add (t, r);
    }
    cli_table_print (t);
}

static void list_parts (const struct gp_catalog *cat)
{
    const char *h[] = {"CATEGORY", "ID", "KEY", "VALUE", "UNIT"};
    struct cli_table *t = cli_table_create (5, h);
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++) {
        const struct gp_part *p = gp_catalog_part (cat, i);
        char v[64];
        if (p->has_value)
            snprintf (v, sizeof v, "%.6g", p->value);
        else
            snprintf (v, sizeof v, "(text)");
        const char *r[5] = {p->category, p->id, p->key, v, p->unit};
        cli_table_add (t, r);
    }
    cli_table_print (t);
}

/* Print a JSON object as "key: value" lines (text form of 'show'). */
static void print_kv (json_t *o)
{
    const char *k;
    json_t *v;
    json_object_foreach (o, k, v) {
        if (json_is_null (v))
            continue;
        if (json_is_string (v))
            printf ("  %-24s %s\n", k, json_string_value (v));
        else if (json_is_integer (v))
            printf ("  %-24s %lld\n", k, (long long)json_integer_value (v));
        else if (json_is_real (v))
            printf ("  %-24s %.6g\n", k, json_real_value (v));
        else if (json_is_boolean (v))
            printf ("  %-24s %s\n", k, json_is_true (v) ? "yes" : "no");
    }
}

static int show (const struct gp_catalog *cat, const char *id, int as_json)
{
    json_t *found = json_array ();
    const struct gp_accel *a = NULL;
    for (size_t i = 0; i < gp_catalog_n_accels (cat); i++)
        if (strcasecmp (gp_catalog_accel (cat, i)->id, id) == 0)
            a = gp_catalog_accel (cat, i);
    if (a) {
        json_t *o = accel_json (a);
        json_object_set_new (o, "kind", json_string ("accelerator"));
        json_array_append_new (found, o);
        for (size_t i = 0; i < gp_catalog_n_mig (cat); i++)
            if (strcasecmp (gp_catalog_mig (cat, i)->accel_id, id) == 0) {
                json_t *m = mig_json (gp_catalog_mig (cat, i));
                json_object_set_new (m, "kind", json_string ("mig_profile"));
                json_array_append_new (found, m);
            }
    }
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
        if (strcasecmp (gp_catalog_instance (cat, i)->id, id) == 0) {
            json_t *o = instance_json (gp_catalog_instance (cat, i));
            json_object_set_new (o, "kind", json_string ("instance"));
            json_array_append_new (found, o);
        }
    for (size_t i = 0; i < gp_catalog_n_parts (cat); i++)
        if (strcasecmp (gp_catalog_part (cat, i)->id, id) == 0) {
            json_t *o = part_json (gp_catalog_part (cat, i));
            json_object_set_new (o, "kind", json_string ("part"));
            json_array_append_new (found, o);
        }
    if (json_array_size (found) == 0) {
        json_decref (found);
        /* Suggest from every id the catalog knows. */
        size_t n = gp_catalog_n_accels (cat) + gp_catalog_n_instances (cat)
                   + gp_catalog_n_parts (cat);
        const char **ids = calloc (n ? n : 1, sizeof *ids);
        size_t k = 0;
        if (ids) {
            for (size_t i = 0; i < gp_catalog_n_accels (cat); i++)
                ids[k++] = gp_catalog_accel (cat, i)->id;
            for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
                ids[k++] = gp_catalog_instance (cat, i)->id;
            for (size_t i = 0; i < gp_catalog_n_parts (cat); i++)
                ids[k++] = gp_catalog_part (cat, i)->id;
        }
        char near[256];
        size_t m = gp_closest_names (id, ids, k, 3, near, sizeof near);
        free (ids);
        if (m)
            return cli_usage_error ("unknown catalog id '%s'; did you mean "
                                    "%s?", id, near);
        return cli_usage_error ("unknown catalog id '%s' (see 'gpuplan "
                                "catalog list')", id);
    }
    if (as_json) {
        /* An accelerator id gives its object (with MIG profiles nested);
         * otherwise the list of matching rows.
         */
        if (a) {
            json_t *o = json_incref (json_array_get (found, 0));
            json_t *migs = json_array ();
            for (size_t i = 1; i < json_array_size (found); i++) {
                json_t *r = json_array_get (found, i);
                if (!strcmp (json_string_value (json_object_get (r, "kind")),
                             "mig_profile"))
                    json_array_append (migs, r);
            }
            json_object_set_new (o, "mig_profiles", migs);
            json_decref (found);
            return cli_print_json (o);
        }
        json_t *doc = json_object ();
        json_object_set_new (doc, "id", json_string (id));
        json_object_set_new (doc, "rows", found);
        return cli_print_json (doc);
    }
    size_t i;
    json_t *r;
    json_array_foreach (found, i, r) {
        printf ("%s%s %s\n", i ? "\n" : "",
                json_string_value (json_object_get (r, "kind")), id);
        print_kv (r);
    }
    json_decref (found);
    return EXIT_OK;
}

static json_t *list_json (const struct gp_catalog *cat, const char *what)
{
    json_t *arr = json_array ();
    if (!strcmp (what, "accelerators"))
        for (size_t i = 0; i < gp_catalog_n_accels (cat); i++)
            json_array_append_new (arr, accel_json (gp_catalog_accel (cat, i)));
    else if (!strcmp (what, "instances"))
        for (size_t i = 0; i < gp_catalog_n_instances (cat); i++)
            json_array_append_new (arr,
                                   instance_json (gp_catalog_instance (cat, i)));
    else if (!strcmp (what, "mig"))
        for (size_t i = 0; i < gp_catalog_n_mig (cat); i++)
            json_array_append_new (arr, mig_json (gp_catalog_mig (cat, i)));
    else
        for (size_t i = 0; i < gp_catalog_n_parts (cat); i++)
            json_array_append_new (arr, part_json (gp_catalog_part (cat, i)));
    json_t *doc = json_object ();
    json_object_set_new (doc, "table", json_string (what));
    json_object_set_new (doc, "rows", arr);
    return doc;
}

int cmd_catalog (int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0;
    const char *dir = NULL;
    int o;
    optind = 0;
    opterr = 0;
    while ((o = getopt_long (argc, argv, "+h", opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            as_json = 1;
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            return cli_help ("catalog");
        default:
            return cli_usage_error ("catalog: unknown option '%s' (see "
                                    "'gpuplan catalog --help')",
                                    argv[optind - 1]);
        }
    }
    /* Options may also follow the action words. */
    const char *words[3] = {NULL, NULL, NULL};
    int nw = 0;
    for (int i = optind; i < argc; i++) {
        if (!strcmp (argv[i], "--json"))
            as_json = 1;
        else if (!strcmp (argv[i], "--catalog") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp (argv[i], "--help") || !strcmp (argv[i], "-h"))
            return cli_help ("catalog");
        else if (argv[i][0] == '-')
            return cli_usage_error ("catalog: unknown option '%s'", argv[i]);
        else if (nw < 3)
            words[nw++] = argv[i];
        else
            return cli_usage_error ("catalog: too many arguments");
    }
    if (nw == 0)
        return cli_usage_error ("catalog: expected 'list' or 'show ID' (see "
                                "'gpuplan catalog --help')");
    gp_error_t err = {0};
    struct gp_catalog *cat = cli_catalog (dir, &err);
    if (!cat)
        return cli_fail (&err);
    int rc;
    if (!strcmp (words[0], "list")) {
        const char *what = nw > 1 ? words[1] : "accelerators";
        if (nw > 2) {
            rc = cli_usage_error ("catalog list: too many arguments");
        } else if (strcmp (what, "accelerators") && strcmp (what, "instances")
                   && strcmp (what, "mig") && strcmp (what, "parts")) {
            rc = cli_usage_error ("catalog list: unknown table '%s'; expected "
                                  "accelerators, instances, mig or parts",
                                  what);
        } else if (as_json) {
            rc = cli_print_json (list_json (cat, what));
        } else {
            if (!strcmp (what, "accelerators"))
                list_accels (cat);
            else if (!strcmp (what, "instances"))
                list_instances (cat);
            else if (!strcmp (what, "mig"))
                list_mig (cat);
            else
                list_parts (cat);
            rc = EXIT_OK;
        }
    } else if (!strcmp (words[0], "show")) {
        if (nw != 2)
            rc = cli_usage_error ("catalog show: expected exactly one ID");
        else
            rc = show (cat, words[1], as_json);
    } else {
        rc = cli_usage_error ("catalog: unknown action '%s'; expected list "
                              "or show", words[0]);
    }
    gp_catalog_destroy (cat);
    return rc;
}
