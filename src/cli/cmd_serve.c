/* cmd_serve.c - 'gpuplan serve': the planning assistant on a local web
 * page.  Parses the flags, starts the library's server (serve.h), prints
 * the URL it listens on, waits for SIGINT or SIGTERM and stops it.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/serve.h"

const char cmd_serve_help[] =
    "NAME\n"
    "    gpuplan serve - the planning assistant on a local web page\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan serve [--port P] [--host H] [--max-body BYTES]\n"
    "                  [--timeout DURATION] [--max-conns N] [--catalog DIR]\n"
    "\n"
    "DESCRIPTION\n"
    "    Serves one page (compiled into the binary; no network needed) with\n"
    "    a form and a YAML editor for a plan spec, the plan's summary,\n"
    "    options table and charts, and a what-if that changes one field\n"
    "    and shows the diff; on first load it plans the startup example.\n"
    "    The JSON API mirrors the CLI byte for byte (docs/serve.md):\n"
    "      POST /api/plan     YAML plan spec -> gpuplan plan --json\n"
    "      POST /api/plan?samples=N&seed=S   -> plan --samples N --seed S\n"
    "                         --json (N at most 200)\n"
    "      POST /api/infer    YAML infer spec -> gpuplan infer --json\n"
    "      POST /api/train    YAML train spec -> gpuplan train --json\n"
    "      POST /api/diff     {\"a\": plan JSON, \"b\": plan JSON}\n"
    "      GET  /api/catalog[/TABLE]  gpuplan catalog list TABLE --json\n"
    "    Errors are JSON with status 400 (bad spec, with line and col),\n"
    "    404, 405, 413 (body over --max-body), 501 or 500.  The server\n"
    "    listens on loopback unless --host says otherwise; it has no\n"
    "    authentication, so bind elsewhere only on a trusted network.\n"
    "    It runs until SIGINT (Ctrl-C) or SIGTERM.\n"
    "\n"
    "OPTIONS\n"
    "    --port P          TCP port (default 8080; 0 = any free port)\n"
    "    --host H          address to bind (default 127.0.0.1)\n"
    "    --max-body BYTES  largest request body (default 1MiB)\n"
    "    --timeout D       close idle connections after D (default 30s)\n"
    "    --max-conns N     open connections at most (default 64)\n"
    "    --catalog DIR     merge catalog CSV files found in DIR\n"
    "    -h, --help        show this page\n"
    "\n"
    "OUTPUT\n"
    "    One line on stdout once listening:\n"
    "      gpuplan serve: listening on http://HOST:PORT/\n"
    "\n"
    "EXIT STATUS\n"
    "    0 stopped by a signal; 2 bad flag, host or port in use.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan serve\n"
    "    gpuplan serve --port 0\n";

/* Parse one numeric flag value into '*out'. */
static int number (const char *flag, const char *v, enum gp_quantity q,
                   double lo, double hi, double *out)
{
    gp_error_t err = {0};
    if (gp_opt_number (flag, v, q, lo, hi, GP_OPT_WHOLE * (q == GP_Q_COUNT),
                       out, &err))
        return cli_usage_error ("serve: %s", err.text);
    return 0;
}

static int parse_flags (int argc, char **argv, struct gp_serve_opts *o,
                        const char **dir)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},
        {"host", required_argument, NULL, 'H'},
        {"max-body", required_argument, NULL, 'b'},
        {"timeout", required_argument, NULL, 't'},
        {"max-conns", required_argument, NULL, 'n'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double v = 0;
    int o_, rc = 0;
    if (cli_opts_begin ("serve", argc, argv, opts, NULL))
        return EXIT_USAGE;
    while (!rc && (o_ = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (o_) {
        case 'p':
            if (!(rc = number ("--port", optarg, GP_Q_COUNT, 0, 65535, &v)))
                o->port = (int)v;
            break;
        case 'H':
            if (!*optarg)
                return cli_usage_error ("serve: --host: empty");
            o->host = optarg;
            break;
        case 'b':
            if (!(rc = number ("--max-body", optarg, GP_Q_BYTES, 1, 1e9, &v)))
                o->max_body = (size_t)v;
            break;
        case 't':
            if (!(rc = number ("--timeout", optarg, GP_Q_DURATION, 1, 86400,
                               &v)))
                o->timeout_s = (unsigned)v;
            break;
        case 'n':
            if (!(rc = number ("--max-conns", optarg, GP_Q_COUNT, 1, 10000,
                               &v)))
                o->max_conns = (unsigned)v;
            break;
        case 'c':
            *dir = optarg;
            break;
        case 'h':
            return cli_help ("serve");
        default:
            return cli_usage_error ("serve: unknown or incomplete option '%s' "
                                    "(see 'gpuplan serve --help')",
                                    argv[optind - 1]);
        }
    }
    if (!rc && optind != argc)
        return cli_usage_error ("serve: unexpected argument '%s'",
                                argv[optind]);
    return rc ? rc : -1;
}

int cmd_serve (int argc, char **argv)
{
    struct gp_serve_opts o;
    const char *dir = NULL;
    gp_serve_opts_init (&o);
    int rc = parse_flags (argc, argv, &o, &dir);
    if (rc >= 0)
        return rc;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    /* block the signals before the server's threads start, so that only
     * sigwait() below receives them
     */
    sigset_t set;
    sigemptyset (&set);
    sigaddset (&set, SIGINT);
    sigaddset (&set, SIGTERM);
    sigaddset (&set, SIGPIPE);
    pthread_sigmask (SIG_BLOCK, &set, NULL);
    struct gp_server *s = gp_serve_start (&o, cat, &err);
    if (!s) {
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    const char *host = o.host ? o.host : "127.0.0.1";
    int v6 = strchr (host, ':') != NULL;
    printf ("gpuplan serve: listening on http://%s%s%s:%d/\n", v6 ? "[" : "",
            host, v6 ? "]" : "", gp_serve_port (s));
    fflush (stdout);
    sigdelset (&set, SIGPIPE);
    int sig = 0;
    sigwait (&set, &sig);
    gp_serve_stop (s);
    gp_catalog_destroy (cat);
    fprintf (stderr, "gpuplan serve: stopped (%s)\n",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
    return EXIT_OK;
}
