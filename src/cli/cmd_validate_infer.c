/* cmd_validate_infer.c - 'gpuplan validate inference FILE.csv': one call
 * to gp_validate_inference() (rows and error summaries), rendered as a
 * table or JSON.  Called by the 'validate' dispatcher with argv[0] =
 * "inference".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/validate.h"
#include "validate.h"

static const char validate_infer_usage[] =
    "usage: gpuplan validate inference FILE.csv [FILE.csv ...] [--json] "
    "[--catalog DIR]";

int cmd_validate_inference (int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0, o;
    const char *dir = NULL;
    if (cli_opts_begin ("validate inference", argc, argv, opts, NULL))
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
            printf ("%s\n", validate_infer_usage);
            return EXIT_OK;
        default:
            return cli_usage_error ("validate inference: unknown or "
                                    "incomplete option '%s'; %s",
                                    argv[optind - 1], validate_infer_usage);
        }
    }
    if (optind >= argc)
        return cli_usage_error ("validate inference: expected FILE.csv; %s",
                                validate_infer_usage);
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_validate_request rq = {
        .path = argv[optind],
        .paths = (const char *const *)&argv[optind],
        .n_paths = (size_t)(argc - optind),
    };
    struct gp_infer_validation *v = NULL;
    int rc;
    if (gp_validate_inference (cat, &rq, &v, &err))
        rc = cli_fail (&err);
    else if (as_json)
        rc = cli_print_json (gp_infer_validation_json (v));
    else
        rc = cli_print_text (gp_infer_validation_text (v, &err), &err);
    gp_infer_validation_destroy (v);
    gp_catalog_destroy (cat);
    return rc;
}
