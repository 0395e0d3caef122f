/* cmd_catalog.c - 'gpuplan catalog list|show': browse the embedded catalog. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
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
    char *text = gp_report_catalog_list_text (cat, t, &err);
    if (!text)
        return cli_fail (&err);
    fputs (text, stdout);
    free (text);
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
    if (cli_opts_begin ("catalog", argc, argv, opts, NULL))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
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
    /* The action words, wherever the options were (getopt permutes). */
    const char *const *words = (const char *const *)argv + optind;
    int nw = argc - optind;
    if (nw > 3)
        return cli_usage_error ("catalog: too many arguments");
    if (nw == 0)
        return cli_usage_error ("catalog: expected 'list' or 'show ID' (see "
                                "'gpuplan catalog --help')");
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
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
