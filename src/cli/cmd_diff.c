/* cmd_diff.c - 'gpuplan diff A.json B.json': what changed between two
 * plan results (the output of 'gpuplan plan --json'): inputs and
 * assumptions, each option's numbers, and whether and why the
 * recommendation moved.  The comparison is one library call
 * (gp_plan_diff, report.h); this file reads the two files and renders.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/report.h"

const char cmd_diff_help[] =
    "NAME\n"
    "    gpuplan diff - compare two plan results\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan diff A.json B.json [--format text|md|html|json] [--json]\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads two plan results written by 'gpuplan plan --json' (A before,\n"
    "    B after) and compares them field by field (docs/formats/diff.md):\n"
    "    the inputs the plans echo (constraints, workloads, option specs)\n"
    "    and the assumptions that changed; options added or removed (by\n"
    "    name) and each option's TCO, GPUs, cost per GPU-hour and\n"
    "    feasibility that moved; and whether the recommendation moved and\n"
    "    why (the old pick now infeasible and the constraint; the new pick\n"
    "    cheaper and by how much; or not moved, with its margin over the\n"
    "    next-cheapest feasible option).  'gpuplan plan A.yaml --compare\n"
    "    B.yaml' runs both plans and prints the same diff.\n"
    "\n"
    "OPTIONS\n"
    "    --format F      text (default), md, html (a fragment) or json\n"
    "    --json          same as --format json\n"
    "    -h, --help      show this page\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the diff was printed (also when the plans differ); 2 a file is\n"
    "    missing, not JSON or not a plan result (the message names the\n"
    "    file and the JSON path); 3 internal error.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan plan examples/startup-plan.yaml --json > a.json\n"
    "    gpuplan plan examples/startup-plan.yaml --json \\\n"
    "        --set constraints.budget=1.5e6 > b.json\n"
    "    gpuplan diff a.json b.json\n";

/* Load 'path' as JSON; NULL after printing an error naming the file. */
static json_t *load (const char *path)
{
    json_error_t je;
    json_t *j = json_load_file (path, JSON_DECODE_ANY, &je);
    if (!j) {
        if (je.line <= 0)
            cli_usage_error ("diff: %s: %s", path, je.text);
        else
            cli_usage_error ("diff: %s:%d:%d: not JSON: %s", path, je.line,
                             je.column, je.text);
    }
    return j;
}

int cmd_diff (int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const conflicts[] = {"json", "format", NULL};
    enum gp_report_format fmt = GP_REPORT_TEXT;
    gp_error_t err = {0};
    int o;
    if (cli_opts_begin ("diff", argc, argv, opts, conflicts))
        return EXIT_USAGE;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o) {
        case 'f':
            if (gp_report_format_parse (optarg, &fmt, &err) != 0)
                return cli_usage_error ("diff: --format: %s", err.text);
            break;
        case 'j':
            fmt = GP_REPORT_JSON;
            break;
        case 'h':
            return cli_help ("diff");
        default:
            return cli_usage_error ("diff: unknown or incomplete option '%s' "
                                    "(see 'gpuplan diff --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind != argc - 2)
        return cli_usage_error ("diff: expected two plan results A.json "
                                "B.json (see 'gpuplan diff --help')");
    json_t *a = load (argv[optind]);
    json_t *b = a ? load (argv[optind + 1]) : NULL;
    if (!b) {
        json_decref (a);
        return EXIT_USAGE;
    }
    json_t *d = gp_plan_diff (a, b, &err);
    json_decref (a);
    json_decref (b);
    if (!d) {
        /* the library names the document "a: " or "b: ": say the file */
        const char *t = err.text;
        if ((t[0] == 'a' || t[0] == 'b') && t[1] == ':' && t[2] == ' ') {
            const char *file = argv[optind + (t[0] == 'b')];
            fprintf (stderr, "gpuplan: error: diff: %s: %s\n", file, t + 3);
            return gp_err_exit_status (err.code);
        }
        return cli_fail (&err);
    }
    char *text = gp_plan_diff_render (d, fmt, &err);
    json_decref (d);
    if (!text)
        return cli_fail (&err);
    fputs (text, stdout);
    free (text);
    return EXIT_OK;
}
