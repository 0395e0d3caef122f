/* cmd_assumptions.c - 'gpuplan assumptions': the defaults registry, every
 * default more than one model reads, with its value, unit, users and
 * source (gpuplan/defaults.h, docs/model/defaults.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/defaults.h"

const char cmd_assumptions_help[] =
    "NAME\n"
    "    gpuplan assumptions - the defaults the models share, with sources\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan assumptions [--json] [--set KEY=VALUE]...\n"
    "\n"
    "DESCRIPTION\n"
    "    Lists the defaults registry: every number (or word) that gpuplan\n"
    "    assumes when an input does not give it, once, with its unit, the\n"
    "    models that read it (train, infer, sim, plan) and its source.\n"
    "    docs/model/defaults.md documents each row.  A plan spec overrides\n"
    "    a row under 'assumptions:' by its full key or by the key after its\n"
    "    group (restart_s for reliability.restart_s).\n"
    "\n"
    "OPTIONS\n"
    "    --json             the registry as JSON: {\"defaults\": [{key,\n"
    "                       value, unit, users, source, overridden}]}\n"
    "    --set KEY=VALUE    show the table with KEY overridden (checks the\n"
    "                       key and the value; repeatable)\n"
    "    -h, --help         show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 2 unknown key or bad value.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan assumptions\n"
    "    gpuplan assumptions --json\n"
    "    gpuplan assumptions --set reliability.restart_s=300\n";

static void print_text (const struct gp_defaults *d)
{
    for (size_t i = 0; i < gp_defaults_count (); i++) {
        const struct gp_default_info *r = gp_default_info (i);
        if (r->text)
            printf ("%s = %s", r->key, gp_default_text (d, r->id));
        else
            printf ("%s = %.10g", r->key, gp_default (d, r->id));
        printf (" %s  [%s]%s\n    %s\n", r->unit, r->users,
                d->overridden[r->id] ? "  (overridden)" : "", r->source);
        char dist[96];
        if (gp_default_dist (r->id))
            printf ("    distribution: %s x value; %s\n",
                    gp_default_dist_str (gp_default_dist (r->id), dist,
                                         sizeof dist),
                    gp_default_dist (r->id)->source);
    }
}

int cmd_assumptions (int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"set", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gp_defaults d;
    gp_defaults_init (&d);
    gp_error_t err = {0};
    int json = 0, o;
    if (cli_opts_begin ("assumptions", argc, argv, opts, NULL))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            json = 1;
            break;
        case 's':
            if (gp_defaults_set_str (&d, optarg, &err) != 0)
                return cli_usage_error ("assumptions: --set: %s", err.text);
            break;
        case 'h':
            return cli_help ("assumptions");
        default:
            return cli_usage_error ("assumptions: unknown or incomplete "
                                    "option '%s' (see 'gpuplan assumptions "
                                    "--help')",
                                    argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error ("assumptions: unexpected argument '%s'",
                                argv[optind]);
    if (json)
        return cli_print_json (gp_defaults_json (&d));
    print_text (&d);
    return EXIT_OK;
}
