/* cmd_plan.c - 'gpuplan plan PLAN.yaml': the capacity plan of a team
 * portfolio, as text, Markdown, self-contained HTML or JSON.
 *
 * Loading and checking the spec, planning and rendering are library calls
 * (plan.h, report.h); this file parses arguments, writes the output and
 * maps the plan's status to the exit code.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/opts.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"

const char cmd_plan_help[] =
    "NAME\n"
    "    gpuplan plan - design options, costs and a recommendation for a\n"
    "    workload portfolio\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan plan PLAN.yaml [--format text|md|html|json] [--json]\n"
    "                 [--out FILE] [--catalog DIR] [--samples N [--seed S]]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads a plan spec (docs/formats/plan.md): teams, workloads\n"
    "    (training runs, recurring fine-tunes and experiments, inference\n"
    "    services), constraints (budget, power, racks, clouds, reservation\n"
    "    terms) and candidate designs (on-prem builds per accelerator, cloud\n"
    "    fleets per pricing model).  For each design it sizes the network\n"
    "    (rail-optimized fat tree), storage (capacity, read and checkpoint\n"
    "    bandwidth, tier), power and racks, costs it over the horizon\n"
    "    (capex, opex, cloud spend; the cheapest reserved/on-demand/spot mix\n"
    "    as a linear program), checks the constraints, recommends one with\n"
    "    a decision log, and shows how the recommendation moves with prices,\n"
    "    demand and failure rates.  Every number traces to a formula\n"
    "    (docs/model/cost.md, docs/model/infrastructure.md), a catalog row\n"
    "    with its source, or a listed assumption.  Figures that need a\n"
    "    planner not yet available are reported as not yet supported.\n"
    "\n"
    "OPTIONS\n"
    "    --format F      text (default), md, html (one self-contained page\n"
    "                    with SVG charts) or json (docs/formats/plan.md)\n"
    "    --json          same as --format json\n"
    "    --out FILE      write the report to FILE and print a summary\n"
    "    --catalog DIR   merge catalog CSV files found in DIR\n"
    "    --samples N     also evaluate N plans with the uncertain assumptions\n"
    "                    drawn from their distributions (1 to 10000): P10/\n"
    "                    P50/P90 per option, the recommendation's win share\n"
    "                    and what flips it (docs/model/uncertainty.md)\n"
    "    --seed S        seed of the draws (0 to 9e15, default 1): the same\n"
    "                    seed gives the same ranges\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 an option is recommended; 1 the plan is valid but no option meets\n"
    "    the constraints (the reason is printed); 2 invalid spec (message\n"
    "    names file:line:col and the field), unknown accelerator, instance\n"
    "    or model, or no option could be sized because a planner is not yet\n"
    "    supported; 3 internal error.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan plan examples/startup-plan.yaml\n"
    "    gpuplan plan examples/enterprise-plan.yaml --format html --out "
    "plan.html\n"
    "    gpuplan plan examples/startup-plan.yaml --json\n"
    "    gpuplan plan examples/enterprise-plan.yaml --samples 200 --seed 7\n";

int cmd_plan (int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},
        {"out", required_argument, NULL, 'o'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {"samples", required_argument, NULL, 'N'},
        {"seed", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    enum gp_report_format fmt = GP_REPORT_TEXT;
    const char *dir = NULL, *out = NULL;
    gp_error_t err = {0};
    int o;
    double samples = 0, seed = 1;   /* --samples, --seed */
    int seed_given = 0;
    static const char *const conflicts[] = {"json", "format", NULL};
    if (cli_opts_begin ("plan", argc, argv, opts, conflicts))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'f':
            if (gp_report_format_parse (optarg, &fmt, &err) != 0)
                return cli_usage_error ("plan: --format: %s", err.text);
            break;
        case 'j':
            fmt = GP_REPORT_JSON;
            break;
        case 'o':
            out = optarg;
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            return cli_help ("plan");
        case 'N':
            if (gp_opt_number ("--samples", optarg, GP_Q_COUNT, 1,
                               GP_PLAN_MAX_SAMPLES, GP_OPT_WHOLE, &samples,
                               &err) != 0)
                return cli_usage_error ("plan: %s", err.text);
            break;
        case 'S':
            if (gp_opt_number ("--seed", optarg, GP_Q_COUNT, 0, 9e15,
                               GP_OPT_WHOLE, &seed, &err) != 0)
                return cli_usage_error ("plan: %s", err.text);
            seed_given = 1;
            break;
        default:
            return cli_usage_error ("plan: unknown or incomplete option '%s' "
                                    "(see 'gpuplan plan --help')",
                                    argv[optind - 1]);
        }
    }
    if (seed_given && samples == 0)
        return cli_usage_error ("plan: --seed: needs --samples N");
    if (optind != argc - 1)
        return cli_usage_error ("plan: expected one PLAN.yaml (see 'gpuplan "
                                "plan --help')");
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_doc *doc = gp_doc_load (argv[optind], &err);
    struct gp_plan_spec *spec = doc ? gp_plan_spec_from_doc (doc, cat, &err)
                                    : NULL;
    struct gp_plan_result *res = spec ? gp_plan_run (spec, cat, &err) : NULL;
    if (res && samples > 0
        && gp_plan_sample (spec, cat, res, (size_t)samples,
                           (unsigned long long)seed, &err) != 0) {
        gp_plan_result_destroy (res);
        res = NULL;
    }
    int rc = EXIT_OK;
    if (!res) {
        rc = cli_fail (&err);
        goto done;
    }
    char *text = gp_report_render (res, fmt, &err);
    if (!text) {
        rc = cli_fail (&err);
        goto done;
    }
    if (out) {
        if (gp_write_file_atomic (out, text, strlen (text), &err) != 0)
            rc = cli_fail (&err);
        char *sum = rc == EXIT_OK ? gp_report_summary (res, &err) : NULL;
        if (sum) {
            fputs (sum, stdout);
            printf ("report: %s (%s)\n", out, gp_report_format_str (fmt));
            free (sum);
        }
    } else {
        fputs (text, stdout);
    }
    free (text);
    if (rc == EXIT_OK && gp_plan_status (res, &err) != 0)
        rc = cli_fail (&err);
done:
    gp_plan_result_destroy (res);
    gp_plan_spec_destroy (spec);
    gp_doc_destroy (doc);
    gp_catalog_destroy (cat);
    return rc;
}
