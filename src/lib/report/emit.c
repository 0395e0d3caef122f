/* emit.c - the writer behind every report section: headings, tables,
 * list items and notes in plain text (aligned columns), Markdown (pipe
 * tables, "- " lists, text escaped by gp_rb_md) or HTML (escaped,
 * <table>, <ul>).  A section says
 * what it shows once; the format is the writer's business.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_private.h"

#define TBL_COLS 12
#define TBL_CELL 96

/* A text or Markdown table: cells are kept until the end to align the
 * columns (each cell at most TBL_CELL - 1 characters).
 */
struct rtbl {
    size_t n_cols, n_rows, cap;
    char (*cell)[TBL_COLS][TBL_CELL];
};

int gp_rout_init (struct rout *o, struct rbuf *b, enum rout_fmt fmt)
{
    memset (o, 0, sizeof *o);
    o->b = b;
    o->fmt = fmt;
    o->t = calloc (1, sizeof *o->t);
    if (!o->t) {
        b->failed = 1;
        return -1;
    }
    return 0;
}

static void close_list (struct rout *o)
{
    if (o->fmt == ROUT_HTML && o->in_list)
        gp_rb_printf (o->b, "</ul>\n");
    o->in_list = 0;
}

void gp_rout_end_list (struct rout *o)
{
    close_list (o);
}

void gp_rout_fini (struct rout *o)
{
    close_list (o);
    if (o->t)
        free (o->t->cell);
    free (o->t);
    o->t = NULL;
}

void gp_rout_heading (struct rout *o, const char *title)
{
    close_list (o);
    if (o->fmt == ROUT_MD) {
        gp_rb_printf (o->b, "\n## ");
        gp_rb_md (o->b, title, 0);
        gp_rb_printf (o->b, "\n\n");
    } else if (o->fmt == ROUT_TEXT)
        gp_rb_printf (o->b, "\n%s\n", title);
    else {
        gp_rb_printf (o->b, "<h3>");
        gp_rb_esc (o->b, title);
        gp_rb_printf (o->b, "</h3>\n");
    }
}

void gp_rout_row (struct rout *o, const char *const *cells)
{
    struct rtbl *t = o->t;
    if (o->fmt == ROUT_HTML) {
        gp_rb_printf (o->b, "<tr>");
        for (size_t i = 0; i < t->n_cols; i++) {
            gp_rb_printf (o->b, "<td>");
            gp_rb_esc (o->b, cells[i]);
            gp_rb_printf (o->b, "</td>");
        }
        gp_rb_printf (o->b, "</tr>\n");
        return;
    }
    if (t->n_rows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        void *p = realloc (t->cell, cap * sizeof *t->cell);
        if (!p) {
            o->b->failed = 1;
            return;
        }
        t->cell = p;
        t->cap = cap;
    }
    for (size_t i = 0; i < t->n_cols; i++)
        snprintf (t->cell[t->n_rows][i], TBL_CELL, "%s",
                  cells[i] ? cells[i] : "");
    t->n_rows++;
}

void gp_rout_table (struct rout *o, const char *const *heads, size_t n)
{
    close_list (o);
    o->t->n_cols = n < TBL_COLS ? n : TBL_COLS;
    o->t->n_rows = 0;
    if (o->fmt != ROUT_HTML) {
        gp_rout_row (o, heads);
        return;
    }
    gp_rb_printf (o->b, "<table><thead><tr>");
    for (size_t i = 0; i < o->t->n_cols; i++) {
        gp_rb_printf (o->b, "<th>");
        gp_rb_esc (o->b, heads[i]);
        gp_rb_printf (o->b, "</th>");
    }
    gp_rb_printf (o->b, "</tr></thead><tbody>\n");
}

void gp_rout_table_end (struct rout *o)
{
    const struct rtbl *t = o->t;
    struct rbuf *b = o->b;
    if (o->fmt == ROUT_HTML) {
        gp_rb_printf (b, "</tbody></table>\n");
        return;
    }
    int md = o->fmt == ROUT_MD;
    size_t w[TBL_COLS] = {0};
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < t->n_cols; c++)
            if (strlen (t->cell[r][c]) > w[c])
                w[c] = strlen (t->cell[r][c]);
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            if (md) {
                gp_rb_printf (b, "| ");
                gp_rb_md (b, t->cell[r][c], 1);
                gp_rb_printf (b, " ");
            } else
                gp_rb_printf (b, "%s%-*s", c ? "  " : "",
                              c + 1 == t->n_cols ? 0 : (int)w[c],
                              t->cell[r][c]);
        }
        /* empty cells at the end of a text row leave no trailing blanks */
        while (!md && !b->failed && b->len > 0 && b->buf[b->len - 1] == ' ')
            b->buf[--b->len] = '\0';
        gp_rb_printf (b, md ? "|\n" : "\n");
        if (md && r == 0) {
            for (size_t c = 0; c < t->n_cols; c++)
                gp_rb_printf (b, "|---");
            gp_rb_printf (b, "|\n");
        }
    }
}

/* The formatted text of 'fmt' (caller frees), or NULL. */
static char *vformat (const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy (ap2, ap);
    int n = vsnprintf (NULL, 0, fmt, ap2);
    va_end (ap2);
    char *s = n >= 0 ? malloc ((size_t)n + 1) : NULL;
    if (s)
        vsnprintf (s, (size_t)n + 1, fmt, ap);
    return s;
}

void gp_rout_item (struct rout *o, int level, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    char *s = vformat (fmt, ap);
    va_end (ap);
    if (!s) {
        o->b->failed = 1;
        return;
    }
    if (o->fmt == ROUT_HTML) {
        if (!o->in_list)
            gp_rb_printf (o->b, "<ul>\n");
        o->in_list = 1;
        gp_rb_printf (o->b, level ? "<li style=\"margin-left:2em\">"
                                  : "<li>");
        gp_rb_esc (o->b, s);
        gp_rb_printf (o->b, "</li>\n");
    } else if (o->fmt == ROUT_MD) {
        gp_rb_printf (o->b, "%s", level ? "  -  " : "- ");
        gp_rb_md (o->b, s, 0);
        gp_rb_printf (o->b, "\n");
    } else {
        gp_rb_printf (o->b, "%s%s\n", level ? "     " : "  ", s);
    }
    free (s);
}

void gp_rout_note (struct rout *o, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    char *s = vformat (fmt, ap);
    va_end (ap);
    if (!s) {
        o->b->failed = 1;
        return;
    }
    close_list (o);
    if (o->fmt == ROUT_HTML) {
        gp_rb_printf (o->b, "<p class=\"note\">");
        gp_rb_esc (o->b, s);
        gp_rb_printf (o->b, "</p>\n");
    } else if (o->fmt == ROUT_MD) {
        gp_rb_printf (o->b, "\n");
        gp_rb_md (o->b, s, 0);
        gp_rb_printf (o->b, "\n");
    } else {
        gp_rb_printf (o->b, "%s\n", s);
    }
    free (s);
}
