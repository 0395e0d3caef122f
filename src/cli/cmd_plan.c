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
    "                 [--set KEY=VALUE]... [--sweep KEY=A..B[:STEPS]]\n"
    "                 [--compare B.yaml]\n"
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
    "    --set KEY=VALUE override a spec key before the spec is read\n"
    "                    (repeatable): a dotted path, list entries by\n"
    "                    name (constraints.budget=5e6,\n"
    "                    workloads.pretrain.tokens=2e12), or a defaults\n"
    "                    registry key (plan.reserved_1y_discount=0.4);\n"
    "                    the spec's own checks and ranges apply\n"
    "    --sweep KEY=A..B[:STEPS]\n"
    "                    plan at STEPS evenly spaced values of KEY (A and B\n"
    "                    as the spec writes it: 500k..2M, 1MW..3MW;\n"
    "                    default 11 steps, at most 101) and\n"
    "                    tabulate the recommendation, its TCO and GPUs,\n"
    "                    the feasible options and where the pick changes\n"
    "    --compare B.yaml\n"
    "                    plan PLAN.yaml and B.yaml and print the diff\n"
    "                    (as 'gpuplan diff'); --set applies to B.yaml, so\n"
    "                    'plan P.yaml --compare P.yaml --set K=V' shows\n"
    "                    what one change does\n"
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
    "    gpuplan plan examples/enterprise-plan.yaml --samples 200 --seed 7\n"
    "    gpuplan plan examples/startup-plan.yaml --set constraints.budget=1e6\n"
    "    gpuplan plan examples/startup-plan.yaml --sweep "
    "constraints.budget=500k..2M:16\n"
    "    gpuplan plan examples/enterprise-plan.yaml --compare "
    "examples/enterprise-plan.yaml --set reserved_1y_discount=0.4\n";

/* ---- what-if: --set, --sweep, --compare (docs/cli.md) ---- */

#define PLAN_MAX_SETS 64

struct whatif {
    const char *sets[PLAN_MAX_SETS];
    size_t n_sets;
    const char *sweep;          /* KEY=A..B[:STEPS] or NULL */
    const char *compare;        /* B.yaml or NULL */
};

/* Write 'text' to 'out' (a file) or stdout; frees 'text'. */
static int emit (char *text, const char *out, gp_error_t *err)
{
    int rc = EXIT_OK;
    if (!text)
        return cli_fail (err);
    if (out && gp_write_file_atomic (out, text, strlen (text), err) != 0)
        rc = cli_fail (err);
    else if (!out)
        fputs (text, stdout);
    free (text);
    return rc;
}

/* One of --set ('S'), --sweep ('W'), --compare ('C') into 'w'; 0, or
 * EXIT_USAGE after the message.
 */
static int whatif_opt (struct whatif *w, int o, const char *arg)
{
    if (o == 'W')
        w->sweep = arg;
    else if (o == 'C')
        w->compare = arg;
    else if (w->n_sets == PLAN_MAX_SETS)
        return cli_usage_error ("plan: --set: at most %d", PLAN_MAX_SETS);
    else
        w->sets[w->n_sets++] = arg;
    return 0;
}

/* plan --sweep: one library call, one render. */
static int run_sweep (const char *path, const struct whatif *w,
                      const struct gp_catalog *cat, enum gp_report_format f,
                      const char *out)
{
    gp_error_t err = {0};
    struct gp_doc *doc = gp_doc_load (path, &err);
    struct gp_plan_sweep *sw =
        doc ? gp_plan_sweep_run (doc, w->sets, w->n_sets, w->sweep, cat,
                                 &err)
            : NULL;
    gp_doc_destroy (doc);
    if (!sw)
        return cli_fail (&err);
    int rc = emit (gp_plan_sweep_render (sw, f, &err), out, &err);
    gp_plan_sweep_destroy (sw);
    return rc;
}

/* The plan result of 'path' as JSON (NULL after printing the error, its
 * exit status in '*rc').
 */
static json_t *plan_json_of (const char *path, const struct whatif *w,
                             const struct gp_catalog *cat, int *rc)
{
    gp_error_t err = {0};
    struct gp_doc *doc = gp_doc_load (path, &err);
    struct gp_plan_spec *s = doc ? gp_plan_spec_from_doc_set (
                                       doc, w ? w->sets : NULL,
                                       w ? w->n_sets : 0, cat, &err)
                                 : NULL;
    struct gp_plan_result *r = s ? gp_plan_run (s, cat, &err) : NULL;
    json_t *j = r ? gp_report_json (r) : NULL;
    if (!r)
        *rc = cli_fail (&err);
    else if (!j)
        *rc = cli_fail (&(gp_error_t){GP_ENOMEM, "plan: out of memory"});
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (doc);
    return j;
}

/* plan A.yaml --compare B.yaml: both plans, their diff. */
static int run_compare (const char *a_path, const struct whatif *w,
                        const struct gp_catalog *cat,
                        enum gp_report_format f, const char *out)
{
    gp_error_t err = {0};
    int rc = EXIT_USAGE;
    json_t *a = plan_json_of (a_path, NULL, cat, &rc);
    json_t *b = a ? plan_json_of (w->compare, w, cat, &rc) : NULL;
    json_t *d = b ? gp_plan_diff (a, b, &err) : NULL;
    json_decref (a);
    json_decref (b);
    if (!d)
        return b ? cli_fail (&err) : rc;
    rc = emit (gp_plan_diff_render (d, f, &err), out, &err);
    json_decref (d);
    return rc;
}

/* --compare or --sweep instead of one plan. */
static int run_whatif (const char *path, const struct whatif *w,
                       const struct gp_catalog *cat,
                       enum gp_report_format f, const char *out)
{
    return w->compare ? run_compare (path, w, cat, f, out)
                      : run_sweep (path, w, cat, f, out);
}

int cmd_plan (int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},
        {"out", required_argument, NULL, 'o'},
        {"catalog", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 'S'},
        {"sweep", required_argument, NULL, 'W'},
        {"compare", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {"samples", required_argument, NULL, 'N'},
        {"seed", required_argument, NULL, 'E'},
        {NULL, 0, NULL, 0},
    };
    enum gp_report_format fmt = GP_REPORT_TEXT;
    const char *dir = NULL, *out = NULL;
    gp_error_t err = {0};
    struct whatif wi = {0};
    int o;
    double samples = 0, seed = 1;   /* --samples, --seed */
    int seed_given = 0;
    static const char *const conflicts[] = {
        "json", "format", "sweep", "compare", "samples", "sweep",
        "samples", "compare", NULL};
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
        case 'S':
        case 'W':
        case 'C':
            if (whatif_opt (&wi, o, optarg) != 0)
                return EXIT_USAGE;
            break;
        case 'h':
            return cli_help ("plan");
        case 'N':
            if (gp_opt_number ("--samples", optarg, GP_Q_COUNT, 1,
                               GP_PLAN_MAX_SAMPLES, GP_OPT_WHOLE, &samples,
                               &err) != 0)
                return cli_usage_error ("plan: %s", err.text);
            break;
        case 'E':
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
    if (wi.compare || wi.sweep) {
        int wrc = run_whatif (argv[optind], &wi, cat, fmt, out);
        gp_catalog_destroy (cat);
        return wrc;
    }
    struct gp_doc *doc = gp_doc_load (argv[optind], &err);
    struct gp_plan_spec *spec =
        doc ? gp_plan_spec_from_doc_set (doc, wi.sets, wi.n_sets, cat, &err)
            : NULL;
    struct gp_plan_result *res =
        spec ? gp_plan_run_sampled (spec, cat, (size_t)samples,
                                    (unsigned long long)seed, &err)
             : NULL;
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
