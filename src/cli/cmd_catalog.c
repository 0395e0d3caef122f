/* cmd_catalog.c - 'gpuplan catalog list|show': browse the embedded catalog. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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
    gp_error_t err = {0};
    struct gp_catalog_match *m = NULL;
    if (gp_catalog_show (cat, id, &m, &err))
        return err.code == GP_ENOTFOUND ? cli_usage_error ("%s", err.text)
                                        : cli_fail (&err);
    int rc = EXIT_OK;
    if (as_json)
        rc = cli_print_json (gp_catalog_match_json (m));
    else
        for (size_t i = 0; i < m->n_rows; i++) {
            json_t *r = gp_catalog_ref_json (&m->rows[i]);
            printf ("%s%s %s\n", i ? "\n" : "",
                    gp_catalog_kind_str (m->rows[i].kind), id);
            print_kv (r);
            json_decref (r);
        }
    gp_catalog_match_destroy (m);
    return rc;
}

static int list (const struct gp_catalog *cat, const char *what, int as_json)
{
    gp_error_t err = {0};
    enum gp_catalog_table t;
    if (gp_catalog_table_parse (what, &t, &err))
        return cli_usage_error ("catalog list: %s", err.text);
    if (as_json)
        return cli_print_json (gp_catalog_list_json (cat, t));
    switch (t) {
    case GP_CATALOG_ACCELERATORS: list_accels (cat); break;
    case GP_CATALOG_INSTANCES: list_instances (cat); break;
    case GP_CATALOG_MIG: list_mig (cat); break;
    case GP_CATALOG_PARTS: list_parts (cat); break;
    }
    return EXIT_OK;
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
        if (nw > 2)
            rc = cli_usage_error ("catalog list: too many arguments");
        else
            rc = list (cat, what, as_json);
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
