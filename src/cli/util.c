/* util.c - messages, JSON output and text tables for the gpuplan command. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_usage_error (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fputs ("gpuplan: error: ", stderr);
    vfprintf (stderr, fmt, ap);
    fputc ('\n', stderr);
    va_end (ap);
    return EXIT_USAGE;
}

int cli_fail (const gp_error_t *err)
{
    fprintf (stderr, "gpuplan: error: %s\n",
             err && err->text[0] ? err->text : "unknown failure");
    return gp_err_exit_status (err ? err->code : GP_EINTERNAL);
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

struct gp_catalog *cli_catalog (const char *dir, gp_error_t *err)
{
    return gp_catalog_load (dir, err);
}

/* ============================== tables ================================= */

struct cli_table {
    size_t n_cols;
    char **cells; /* row-major, header first */
    size_t n_rows, cap_rows;
};

struct cli_table *cli_table_create (size_t n_cols, const char *const *heads)
{
    struct cli_table *t = calloc (1, sizeof *t);
    if (!t)
        return NULL;
    t->n_cols = n_cols;
    cli_table_add (t, heads);
    return t;
}

void cli_table_add (struct cli_table *t, const char *const *cells)
{
    if (!t)
        return;
    if (t->n_rows == t->cap_rows) {
        size_t nc = t->cap_rows ? 2 * t->cap_rows : 16;
        char **c = realloc (t->cells, nc * t->n_cols * sizeof *c);
        if (!c)
            return;
        t->cells = c;
        t->cap_rows = nc;
    }
    for (size_t i = 0; i < t->n_cols; i++)
        t->cells[t->n_rows * t->n_cols + i] =
            strdup (cells[i] ? cells[i] : "");
    t->n_rows++;
}

static int numeric_cell (const char *s)
{
    if (*s == '$' || *s == '-')
        s++;
    return isdigit ((unsigned char)*s);
}

void cli_table_print (struct cli_table *t)
{
    if (!t)
        return;
    size_t w[32] = {0};
    size_t nc = t->n_cols < 32 ? t->n_cols : 32;
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < nc; c++) {
            const char *s = t->cells[r * t->n_cols + c];
            size_t l = s ? strlen (s) : 0;
            if (l > w[c])
                w[c] = l;
        }
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < nc; c++) {
            const char *s = t->cells[r * t->n_cols + c];
            if (!s)
                s = "";
            int last = c + 1 == nc;
            if (r > 0 && numeric_cell (s))
                printf ("%*s", (int)w[c], s);
            else if (last)
                printf ("%s", s);
            else
                printf ("%-*s", (int)w[c], s);
            if (!last)
                fputs ("  ", stdout);
        }
        fputc ('\n', stdout);
    }
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free (t->cells[i]);
    free (t->cells);
    free (t);
}
