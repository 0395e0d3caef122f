/* text_table.c - aligned plain-text tables for the library's text
 * renderers: cells are copied, numeric-looking cells (optionally after
 * '$' or '-') are right-aligned below the header, columns are separated
 * by two spaces and the last column is not padded.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/report.h"
#include "report_private.h"

struct gp__ttab {
    size_t n_cols;
    char **cells; /* row-major, header first */
    size_t n_rows, cap_rows;
    int failed;
};

struct gp__ttab *gp__ttab_create (size_t n_cols, const char *const *heads)
{
    struct gp__ttab *t = calloc (1, sizeof *t);
    if (!t)
        return NULL;
    t->n_cols = n_cols;
    gp__ttab_add (t, heads);
    return t;
}

void gp__ttab_add (struct gp__ttab *t, const char *const *cells)
{
    if (!t || t->failed)
        return;
    if (t->n_rows == t->cap_rows) {
        size_t nc = t->cap_rows ? 2 * t->cap_rows : 16;
        char **c = realloc (t->cells, nc * t->n_cols * sizeof *c);
        if (!c) {
            t->failed = 1;
            return;
        }
        t->cells = c;
        t->cap_rows = nc;
    }
    for (size_t i = 0; i < t->n_cols; i++) {
        char *s = strdup (cells[i] ? cells[i] : "");
        if (!s)
            t->failed = 1;
        t->cells[t->n_rows * t->n_cols + i] = s;
    }
    t->n_rows++;
}

static int numeric_cell (const char *s)
{
    if (*s == '$' || *s == '-')
        s++;
    return isdigit ((unsigned char)*s);
}

static size_t width (const struct gp__ttab *t, size_t c)
{
    size_t w = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        const char *s = t->cells[r * t->n_cols + c];
        size_t l = s ? strlen (s) : 0;
        if (l > w)
            w = l;
    }
    return w;
}

int gp__ttab_write (struct gp__ttab *t, struct rbuf *b)
{
    if (!t)
        return -1;
    int rc = t->failed ? -1 : 0;
    for (size_t r = 0; rc == 0 && r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            const char *s = t->cells[r * t->n_cols + c];
            int w = (int)width (t, c), last = c + 1 == t->n_cols;
            if (r > 0 && numeric_cell (s))
                gp_rb_printf (b, "%*s", w, s);
            else if (last)
                gp_rb_printf (b, "%s", s);
            else
                gp_rb_printf (b, "%-*s", w, s);
            if (!last)
                gp_rb_printf (b, "  ");
        }
        gp_rb_printf (b, "\n");
    }
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free (t->cells[i]);
    free (t->cells);
    free (t);
    return rc;
}

/* ------------------------- public (report.h) -------------------------- */

struct gp_text_table *gp_text_table_create (size_t n_cols,
                                            const char *const *heads)
{
    return (struct gp_text_table *)gp__ttab_create (n_cols, heads);
}

void gp_text_table_add (struct gp_text_table *t, const char *const *cells)
{
    gp__ttab_add ((struct gp__ttab *)t, cells);
}

char *gp_text_table_take (struct gp_text_table *t, gp_error_t *err)
{
    struct rbuf b = {0};
    if (!t || gp__ttab_write ((struct gp__ttab *)t, &b) != 0)
        b.failed = 1;
    return gp_rb_take (&b, err);
}
