/* csv_fast.c - the trace reader's CSV front end: plain lines split in
 * place, everything else through libcsv, with the rows, line numbers and
 * messages of gp_csv_parse / gp_csv_parse_file (src/lib/core/csv.c).
 *
 * A "plain" line (comma separator; no quote, CR or NUL byte; no space or
 * tab at the start or end of a field) is one libcsv reads as the fields
 * between its commas, unchanged: only quotes, CR/LF and spaces or tabs at
 * a field's edges are special to it.  Such a line is split where it lies,
 * with no copy and no allocation per field.  An empty line is skipped, as
 * libcsv skips it.  At the first line that is not plain, the reader hands
 * that line and every later one to libcsv: after plain lines libcsv would
 * stand between rows, so a fresh parser from there reads what the one
 * parser reads.  docs/formats/traces.md, "Reading speed".
 */
#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_private.h"

struct fcsv {
    const char *name;
    char delim;
    gp_csv_row_f cb;
    void *arg;
    gp_error_t *err;
    int rc;               /* first error, sticky */
    size_t line;          /* line being read */
    size_t index;         /* rows delivered */
    const char **ptrs;    /* field pointers handed to cb */
    size_t ncap;
    int slow;             /* libcsv reads from here on */
    struct csv_parser p;
    char *buf;            /* libcsv field bytes, NUL separated */
    size_t len, cap;
    size_t *offs;         /* field start offsets in buf */
    size_t n;             /* libcsv fields of the row being read */
};

static int grow_ptrs (struct fcsv *c, size_t need)
{
    if (need <= c->ncap)
        return 0;
    size_t ncap = c->ncap ? 2 * c->ncap : 32;
    while (ncap < need)
        ncap *= 2;
    size_t *o = realloc (c->offs, ncap * sizeof *o);
    if (!o)
        return -1;
    c->offs = o;
    const char **p = realloc (c->ptrs, ncap * sizeof *p);
    if (!p)
        return -1;
    c->ptrs = p;
    c->ncap = ncap;
    return 0;
}

static void nomem (struct fcsv *c)
{
    c->rc = gp_errprintf (c->err, GP_ENOMEM, "%s:%zu: out of memory",
                          c->name, c->line);
}

static void deliver (struct fcsv *c, size_t n_fields)
{
    struct gp_csv_row row = {
        .line = c->line,
        .index = c->index++,
        .n_fields = n_fields,
        .fields = c->ptrs,
    };
    int rc = c->cb (&row, c->arg, c->err);
    if (rc)
        c->rc = rc < 0 ? rc : GP_EINTERNAL;
}

/* ------------------------- libcsv, as csv.c ------------------------- */

static void on_field (void *s, size_t len, void *data)
{
    struct fcsv *c = data;
    if (c->rc)
        return;
    if (grow_ptrs (c, c->n + 1)) {
        nomem (c);
        return;
    }
    if (c->len + len + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 1024;
        while (cap < c->len + len + 1)
            cap *= 2;
        char *b = realloc (c->buf, cap);
        if (!b) {
            nomem (c);
            return;
        }
        c->buf = b;
        c->cap = cap;
    }
    c->offs[c->n++] = c->len;
    if (len)
        memcpy (c->buf + c->len, s, len);
    c->len += len;
    c->buf[c->len++] = '\0';
}

static void on_row (int term, void *data)
{
    (void)term;
    struct fcsv *c = data;
    if (c->rc)
        return;
    for (size_t i = 0; i < c->n; i++)
        c->ptrs[i] = c->buf + c->offs[i];
    deliver (c, c->n);
    c->n = 0;
    c->len = 0;
}

static void slow_feed (struct fcsv *c, const char *s, size_t n)
{
    if (csv_parse (&c->p, s, n, on_field, on_row, c) != n && !c->rc)
        c->rc = gp_errprintf (c->err, GP_EPARSE, "%s:%zu: malformed CSV: %s",
                              c->name, c->line,
                              csv_strerror (csv_error (&c->p)));
}

/* ---------------------------- plain lines ---------------------------- */

static int is_blank (char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Fields of the plain line 'l' ('n' bytes, no newline), or 0 when it is
 * not plain.  Counts the fields only; the split is done by split().
 */
static size_t plain_fields (const char *l, size_t n)
{
    size_t nf = 1;
    if (is_blank (l[0]) || is_blank (l[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = l[i];
        if (ch == ',') {
            if ((i > 0 && is_blank (l[i - 1]))
                || (i + 1 < n && is_blank (l[i + 1])))
                return 0;
            nf++;
        } else if (ch == '"' || ch == '\r' || ch == '\0') {
            return 0;
        }
    }
    return nf;
}

static void split (struct fcsv *c, char *l, size_t n)
{
    size_t k = 0;
    c->ptrs[k++] = l;
    for (char *p = l; (p = memchr (p, ',', (size_t)(l + n - p)));) {
        *p++ = '\0';
        c->ptrs[k++] = p;
    }
    l[n] = '\0';
    deliver (c, k);
}

/* One physical line 'l' of 'n' bytes (its newline included when it has
 * one; 'l' is writable and has room for a NUL after the line).
 */
static void line (struct fcsv *c, char *l, size_t n)
{
    c->line++;
    if (!c->slow) {
        size_t m = n && l[n - 1] == '\n' ? n - 1 : n;
        if (m == 0)
            return; /* an empty line: libcsv skips it */
        size_t nf = c->delim == ',' ? plain_fields (l, m) : 0;
        if (nf) {
            if (grow_ptrs (c, nf))
                nomem (c);
            else
                split (c, l, m);
            return;
        }
        if (csv_init (&c->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)
            != 0) {
            c->rc = gp_errprintf (c->err, GP_ENOMEM,
                                  "csv: cannot initialise parser");
            return;
        }
        csv_set_delim (&c->p, (unsigned char)c->delim);
        c->slow = 1;
    }
    slow_feed (c, l, n);
}

static int finish (struct fcsv *c)
{
    if (c->slow) {
        if (!c->rc && csv_fini (&c->p, on_field, on_row, c) != 0 && !c->rc)
            c->rc = gp_errprintf (c->err, GP_EPARSE,
                                  "%s:%zu: malformed CSV: %s", c->name,
                                  c->line, csv_strerror (csv_error (&c->p)));
        csv_free (&c->p);
    }
    free (c->buf);
    free (c->offs);
    free (c->ptrs);
    return c->rc;
}

int gp__tr_csv_parse (const char *data, size_t len, const char *name,
                      char delim, gp_csv_row_f cb, void *arg,
                      gp_error_t *err)
{
    if (!data || !cb)
        return gp_errprintf (err, GP_EINVAL, "gp_csv_parse: NULL argument");
    struct fcsv c = {.name = name ? name : "<csv>", .delim = delim,
                     .cb = cb, .arg = arg, .err = err};
    char *l = NULL; /* one line, writable, NUL-terminated */
    size_t lcap = 0, pos = 0;
    while (pos < len && !c.rc) {
        const char *nl = memchr (data + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (data + pos)) + 1 : len - pos;
        if (n + 1 > lcap) {
            size_t cap = lcap ? 2 * lcap : 256;
            while (cap < n + 1)
                cap *= 2;
            char *b = realloc (l, cap);
            if (!b) {
                c.line++;
                nomem (&c);
                break;
            }
            l = b;
            lcap = cap;
        }
        memcpy (l, data + pos, n);
        l[n] = '\0';
        line (&c, l, n);
        pos += n;
    }
    free (l);
    return finish (&c);
}

int gp__tr_csv_parse_file (const char *path, char delim, gp_csv_row_f cb,
                           void *arg, gp_error_t *err)
{
    if (!path || !cb)
        return gp_errprintf (err, GP_EINVAL,
                             "gp_csv_parse_file: NULL argument");
    FILE *f = fopen (path, "rb");
    if (!f)
        return gp_errprintf (err, GP_EIO, "%s: %s", path, strerror (errno));
    struct fcsv c = {.name = path, .delim = delim, .cb = cb, .arg = arg,
                     .err = err};
    char *lbuf = NULL;
    size_t lcap = 0;
    ssize_t n;
    /* getline leaves a NUL after the line, the room split() needs */
    while (!c.rc && (n = getline (&lbuf, &lcap, f)) > 0)
        line (&c, lbuf, (size_t)n);
    if (!c.rc && ferror (f))
        c.rc = gp_errprintf (err, GP_EIO, "%s: read error", path);
    free (lbuf);
    fclose (f);
    return finish (&c);
}
