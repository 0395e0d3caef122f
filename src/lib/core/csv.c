/* csv.c - line-numbered streaming CSV on top of libcsv.
 *
 * libcsv does the RFC 4180 work (quotes, escaped quotes, CRLF).  We feed it
 * one physical line at a time so that each completed row is known to end on
 * the line just fed, and we collect fields into one reusable buffer so that
 * a multi-million-row trace costs no allocation per row.
 */
#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"

struct ctx {
    const char *name;
    gp_csv_row_f cb;
    void *arg;
    gp_error_t *err;
    int rc;             /* first error, sticky */
    size_t line;        /* line being fed */
    size_t index;       /* rows delivered */
    char *buf;          /* field bytes, NUL separated */
    size_t len, cap;
    size_t *offs;       /* field start offsets in buf */
    const char **ptrs;  /* field pointers handed to cb */
    size_t n, ncap;
};

static void on_field (void *s, size_t len, void *data)
{
    struct ctx *c = data;
    if (c->rc)
        return;
    if (c->n == c->ncap) {
        size_t ncap = c->ncap ? 2 * c->ncap : 32;
        size_t *o = realloc (c->offs, ncap * sizeof *o);
        if (!o)
            goto nomem;
        c->offs = o;
        const char **p = realloc (c->ptrs, ncap * sizeof *p);
        if (!p)
            goto nomem;
        c->ptrs = p;
        c->ncap = ncap;
    }
    if (c->len + len + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 1024;
        while (cap < c->len + len + 1)
            cap *= 2;
        char *b = realloc (c->buf, cap);
        if (!b)
            goto nomem;
        c->buf = b;
        c->cap = cap;
    }
    c->offs[c->n++] = c->len;
    if (len)
        memcpy (c->buf + c->len, s, len);
    c->len += len;
    c->buf[c->len++] = '\0';
    return;
nomem:
    c->rc = gp_errprintf (c->err, GP_ENOMEM, "%s:%zu: out of memory", c->name,
                          c->line);
}

static void on_row (int term, void *data)
{
    (void)term;
    struct ctx *c = data;
    if (c->rc)
        return;
    for (size_t i = 0; i < c->n; i++)
        c->ptrs[i] = c->buf + c->offs[i];
    struct gp_csv_row row = {
        .line = c->line,
        .index = c->index++,
        .n_fields = c->n,
        .fields = c->ptrs,
    };
    int rc = c->cb (&row, c->arg, c->err);
    if (rc)
        c->rc = rc < 0 ? rc : GP_EINTERNAL;
    c->n = 0;
    c->len = 0;
}

static int feed (struct csv_parser *p, struct ctx *c, const char *s, size_t n)
{
    if (csv_parse (p, s, n, on_field, on_row, c) != n && !c->rc)
        c->rc = gp_errprintf (c->err, GP_EPARSE, "%s:%zu: malformed CSV: %s",
                              c->name, c->line,
                              csv_strerror (csv_error (p)));
    return c->rc;
}

static void ctx_free (struct ctx *c)
{
    free (c->buf);
    free (c->offs);
    free (c->ptrs);
}

static int begin (struct csv_parser *p, char delim, gp_error_t *err)
{
    if (csv_init (p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
        return gp_errprintf (err, GP_ENOMEM, "csv: cannot initialise parser");
    csv_set_delim (p, (unsigned char)delim);
    return 0;
}

static int end (struct csv_parser *p, struct ctx *c)
{
    if (!c->rc && csv_fini (p, on_field, on_row, c) != 0 && !c->rc)
        c->rc = gp_errprintf (c->err, GP_EPARSE,
                              "%s:%zu: malformed CSV: %s", c->name, c->line,
                              csv_strerror (csv_error (p)));
    csv_free (p);
    ctx_free (c);
    return c->rc;
}

int gp_csv_parse (const char *data,
                  size_t len,
                  const char *name,
                  char delim,
                  gp_csv_row_f cb,
                  void *arg,
                  gp_error_t *err)
{
    if (!data || !cb)
        return gp_errprintf (err, GP_EINVAL, "gp_csv_parse: NULL argument");
    struct csv_parser p;
    int rc = begin (&p, delim, err);
    if (rc)
        return rc;
    struct ctx c = {.name = name ? name : "<csv>", .cb = cb, .arg = arg,
                    .err = err};
    size_t pos = 0;
    while (pos < len && !c.rc) {
        const char *nl = memchr (data + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (data + pos)) + 1 : len - pos;
        c.line++;
        feed (&p, &c, data + pos, n);
        pos += n;
    }
    return end (&p, &c);
}

int gp_csv_parse_file (const char *path,
                       char delim,
                       gp_csv_row_f cb,
                       void *arg,
                       gp_error_t *err)
{
    if (!path || !cb)
        return gp_errprintf (err, GP_EINVAL, "gp_csv_parse_file: NULL argument");
    FILE *f = fopen (path, "rb");
    if (!f)
        return gp_errprintf (err, GP_EIO, "%s: %s", path, strerror (errno));
    struct csv_parser p;
    int rc = begin (&p, delim, err);
    if (rc) {
        fclose (f);
        return rc;
    }
    struct ctx c = {.name = path, .cb = cb, .arg = arg, .err = err};
    char *lbuf = NULL;
    size_t lcap = 0;
    ssize_t n;
    while (!c.rc && (n = getline (&lbuf, &lcap, f)) > 0) {
        c.line++;
        feed (&p, &c, lbuf, (size_t)n);
    }
    if (!c.rc && ferror (f))
        c.rc = gp_errprintf (err, GP_EIO, "%s: read error", path);
    free (lbuf);
    fclose (f);
    return end (&p, &c);
}

int gp_csv_col (const struct gp_csv_row *header, const char *name)
{
    if (!header || !name)
        return -1;
    for (size_t i = 0; i < header->n_fields; i++)
        if (strcmp (header->fields[i], name) == 0)
            return (int)i;
    return -1;
}

int gp_csv_header_unique (const struct gp_csv_row *header, const char *file,
                          gp_error_t *err)
{
    if (!header)
        return 0;
    for (size_t i = 0; i < header->n_fields; i++) {
        if (!header->fields[i][0])
            continue;
        for (size_t j = i + 1; j < header->n_fields; j++)
            if (strcmp (header->fields[i], header->fields[j]) == 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: header: column '%.64s' "
                                     "appears twice (columns %zu and %zu)",
                                     file ? file : "-", header->line,
                                     header->fields[i], i + 1, j + 1);
    }
    return 0;
}
