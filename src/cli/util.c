/* util.c - messages, JSON output and text tables for the gpuplan command. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_usage_error (const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    gp_opts_shorten_quoted (text);
    fprintf (stderr, "gpuplan: error: %s\n", text);
    return EXIT_USAGE;
}

int cli_fail (const gp_error_t *err)
{
    char text[GP_ERROR_TEXT_MAX];
    snprintf (text, sizeof text, "%s",
              err && err->text[0] ? err->text : "unknown failure");
    gp_opts_shorten_quoted (text);
    fprintf (stderr, "gpuplan: error: %s\n", text);
    return gp_err_exit_status (err ? err->code : GP_EINTERNAL);
}

void cli_progress (double frac, void *arg)
{
    (void)arg;
    int w = 40, k = (int)(frac * w);
    fprintf (stderr, "\r[%.*s%*s] %3.0f%%", k,
             "########################################", w - k, "",
             frac * 100);
    if (frac >= 1)
        fputc ('\n', stderr);
}

void cli_warn (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fputs ("gpuplan: warning: ", stderr);
    vfprintf (stderr, fmt, ap);
    fputc ('\n', stderr);
    va_end (ap);
}

int cli_help (const char *name)
{
    for (const struct cli_cmd *c = cli_cmds; c->name; c++)
        if (strcmp (c->name, name) == 0) {
            fputs (c->help, stdout);
            return EXIT_OK;
        }
    return cli_usage_error ("no help for unknown command '%s'", name);
}

int cli_print_json (json_t *root)
{
    if (!root) {
        fprintf (stderr, "gpuplan: error: out of memory building JSON\n");
        return EXIT_INTERNAL;
    }
    int rc = json_dumpf (root, stdout,
                         JSON_INDENT (2) | JSON_REAL_PRECISION (12));
    fputc ('\n', stdout);
    json_decref (root);
    return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}

json_t *cli_json_known (double v)
{
    return v > 0 ? json_real (v) : json_null ();
}

int cli_opts_begin (const char *cmd, int argc, char **argv,
                    const struct option *opts, const char *const *conflicts)
{
    struct gp_opt_name names[128];
    size_t n = 0;
    for (; opts[n].name && n < 128; n++)
        names[n] = (struct gp_opt_name){opts[n].name, opts[n].has_arg != 0};
    char warn[96];
    gp_error_t err = {0};
    optind = 0;
    opterr = 0;
    if (gp_opts_check (argc, argv, names, n, conflicts, warn, sizeof warn,
                       &err))
        return cli_usage_error ("%s: %s (see 'gpuplan %s --help')", cmd,
                                err.text, cmd);
    if (warn[0])
        cli_warn ("%s: %s", cmd, warn);
    return EXIT_OK;
}

int cli_scan_set (const char *cmd, int argc, char **argv,
                  struct gp_defaults *d)
{
    gp_defaults_init (d);
    for (int i = 1; i < argc; i++) {
        const char *a = !strncmp (argv[i], "--set=", 6) ? argv[i] + 6
                        : !strcmp (argv[i], "--set") && i + 1 < argc
                            ? argv[++i]
                            : NULL;
        gp_error_t err = {0};
        if (a && gp_defaults_set_str (d, a, &err) != 0)
            return cli_usage_error ("%s: --set: %s", cmd, err.text);
    }
    return EXIT_OK;
}

int cli_print_text (char *text, const gp_error_t *err)
{
    if (!text)
        return cli_fail (err);
    int rc = fputs (text, stdout) >= 0 ? EXIT_OK : EXIT_INTERNAL;
    free (text);
    return rc;
}

void cli_table_print (struct gp_text_table *t)
{
    gp_error_t err = {0};
    char *s = gp_text_table_take (t, &err);
    if (s)
        fputs (s, stdout);
    else
        cli_fail (&err);
    free (s);
}
