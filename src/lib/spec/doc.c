/* doc.c - YAML text -> jansson tree that remembers positions, plus the
 * strict field-table unpacker every spec loader uses.
 *
 * jansson nodes have no room for user data, so positions live in a side
 * hash keyed by (node pointer, key).  A node's own start is stored under
 * key NULL; the position of a mapping key is stored under (mapping, key),
 * which also works for true/false/null, which jansson shares as singletons.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gpuplan/catalog.h"
#include "gpuplan/spec.h"

/* ========================= position side table ========================= */

struct pos_entry {
    const void *node;
    char *key;     /* NULL for the node itself; owned */
    int line, col; /* 1-based */
};

struct gp_doc {
    char *name;
    json_t *root;
    struct pos_entry *tab;
    size_t cap, n; /* cap is a power of two */
};

static uint64_t hash_of (const void *node, const char *key)
{
    uint64_t h = (uint64_t)(uintptr_t)node * 0x9E3779B97F4A7C15ull;
    if (key)
        for (const unsigned char *p = (const unsigned char *)key; *p; p++)
            h = (h ^ *p) * 0x100000001B3ull;
    return h ^ (h >> 29);
}

static int same_key (const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp (a, b) == 0;
}

static int pos_put (struct gp_doc *d, const void *node, const char *key,
                    int line, int col);

static int pos_grow (struct gp_doc *d)
{
    size_t ncap = d->cap ? 2 * d->cap : 256;
    struct pos_entry *old = d->tab;
    size_t ocap = d->cap;
    d->tab = calloc (ncap, sizeof *d->tab);
    if (!d->tab) {
        d->tab = old;
        return -1;
    }
    d->cap = ncap;
    d->n = 0;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].node) {
            /* re-insert, keeping the owned key */
            size_t m = d->cap - 1;
            size_t j = hash_of (old[i].node, old[i].key) & m;
            while (d->tab[j].node)
                j = (j + 1) & m;
            d->tab[j] = old[i];
            d->n++;
        }
    }
    free (old);
    return 0;
}

static int pos_put (struct gp_doc *d, const void *node, const char *key,
                    int line, int col)
{
    if ((d->n + 1) * 2 > d->cap && pos_grow (d) != 0)
        return -1;
    size_t m = d->cap - 1;
    size_t j = hash_of (node, key) & m;
    while (d->tab[j].node) {
        if (d->tab[j].node == node && same_key (d->tab[j].key, key)) {
            d->tab[j].line = line;
            d->tab[j].col = col;
            return 0;
        }
        j = (j + 1) & m;
    }
    char *k = NULL;
    if (key && !(k = strdup (key)))
        return -1;
    d->tab[j] = (struct pos_entry){node, k, line, col};
    d->n++;
    return 0;
}

static const struct pos_entry *pos_get (const struct gp_doc *d,
                                        const void *node, const char *key)
{
    if (!d || !d->cap || !node)
        return NULL;
    size_t m = d->cap - 1;
    size_t j = hash_of (node, key) & m;
    while (d->tab[j].node) {
        if (d->tab[j].node == node && same_key (d->tab[j].key, key))
            return &d->tab[j];
        j = (j + 1) & m;
    }
    return NULL;
}

/* ============================== building =============================== */

struct frame {
    json_t *node;   /* object or array */
    char *key;      /* pending mapping key, owned */
    int key_line, key_col;
};

struct builder {
    struct gp_doc *doc;
    struct frame *stack;
    size_t depth, cap;
    int docs;
    gp_error_t *err;
};

static int is_null (const char *s)
{
    return !*s || !strcmp (s, "~") || !strcmp (s, "null")
           || !strcmp (s, "Null") || !strcmp (s, "NULL");
}

static int bool_of (const char *s)
{
    if (!strcmp (s, "true") || !strcmp (s, "True") || !strcmp (s, "TRUE"))
        return 1;
    if (!strcmp (s, "false") || !strcmp (s, "False") || !strcmp (s, "FALSE"))
        return 0;
    return -1;
}

static int is_int (const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static int is_float (const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            s++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static json_t *scalar_value (const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    const char *tag = (const char *)ev->data.scalar.tag;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (tag && strcmp (tag, YAML_STR_TAG) == 0)
        return json_string (s);
    if (!plain)
        return json_string (s);
    if (is_null (s))
        return json_null ();
    int b = bool_of (s);
    if (b >= 0)
        return json_boolean (b);
    if (is_int (s)) {
        errno = 0;
        long long v = strtoll (s, NULL, 10);
        if (errno == 0)
            return json_integer (v);
        return json_real (strtod (s, NULL));
    }
    if (is_float (s))
        return json_real (strtod (s, NULL));
    return json_string (s);
}

/* A plain scalar that reads as a number too large for a double (1e999):
 * jansson cannot hold it, and it is no string either.
 */
static int number_overflows (const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    const char *tag = (const char *)ev->data.scalar.tag;
    if ((tag && strcmp (tag, YAML_STR_TAG) == 0)
        || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    if (!is_int (s) && !is_float (s))
        return 0;
    return !isfinite (strtod (s, NULL));
}

static const char *shorten (const char *text, char *buf, size_t size);

/* Attach 'v' (owned) to the current container, or make it the root. */
static int attach (struct builder *b, json_t *v, int line, int col)
{
    struct gp_doc *d = b->doc;
    if (!v)
        return gp_errprintf (b->err, GP_ENOMEM, "%s: out of memory", d->name);
    if (pos_put (d, v, NULL, line, col) != 0) {
        json_decref (v);
        return gp_errprintf (b->err, GP_ENOMEM, "%s: out of memory", d->name);
    }
    if (b->depth == 0) {
        d->root = v;
        return 0;
    }
    struct frame *f = &b->stack[b->depth - 1];
    if (json_is_array (f->node))
        return json_array_append_new (f->node, v) == 0
                   ? 0
                   : gp_errprintf (b->err, GP_ENOMEM, "out of memory");
    /* mapping value */
    int rc = json_object_set_new (f->node, f->key, v);
    free (f->key);
    f->key = NULL;
    return rc == 0 ? 0 : gp_errprintf (b->err, GP_ENOMEM, "out of memory");
}

static int push (struct builder *b, json_t *node, int line, int col)
{
    if (b->depth == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 16;
        struct frame *s = realloc (b->stack, nc * sizeof *s);
        if (!s) {
            json_decref (node);
            return gp_errprintf (b->err, GP_ENOMEM, "out of memory");
        }
        b->stack = s;
        b->cap = nc;
    }
    if (b->depth > 64) {
        json_decref (node);
        return gp_errprintf (b->err, GP_EPARSE,
                             "%s:%d:%d: nesting deeper than 64 levels",
                             b->doc->name, line, col);
    }
    json_incref (node); /* the frame holds a reference while open */
    int rc = attach (b, node, line, col);
    if (rc) {
        json_decref (node);
        return rc;
    }
    b->stack[b->depth++] = (struct frame){node, NULL, 0, 0};
    return 0;
}

static int on_event (struct builder *b, const yaml_event_t *ev)
{
    struct gp_doc *d = b->doc;
    int line = (int)ev->start_mark.line + 1;
    int col = (int)ev->start_mark.column + 1;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++b->docs > 1)
            return gp_errprintf (b->err, GP_EPARSE,
                                 "%s:%d:%d: more than one document in the "
                                 "file",
                                 d->name, line, col);
        return 0;
    case YAML_ALIAS_EVENT:
        return gp_errprintf (b->err, GP_EPARSE,
                             "%s:%d:%d: YAML aliases (*%s) are not supported; "
                             "write the value out",
                             d->name, line, col,
                             (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT: {
        const char *tag = (const char *)ev->data.scalar.tag;
        if (tag && strcmp (tag, YAML_STR_TAG) && strcmp (tag, "!"))
            return gp_errprintf (b->err, GP_EPARSE,
                                 "%s:%d:%d: unsupported YAML tag '%s'",
                                 d->name, line, col, tag);
        struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
        if (f && json_is_object (f->node) && !f->key) {
            const char *k = (const char *)ev->data.scalar.value;
            if (json_object_get (f->node, k))
                return gp_errprintf (b->err, GP_EPARSE,
                                     "%s:%d:%d: duplicate key '%s'", d->name,
                                     line, col, k);
            if (!(f->key = strdup (k)))
                return gp_errprintf (b->err, GP_ENOMEM, "out of memory");
            f->key_line = line;
            f->key_col = col;
            if (pos_put (d, f->node, k, line, col) != 0)
                return gp_errprintf (b->err, GP_ENOMEM, "out of memory");
            return 0;
        }
        if (number_overflows (ev)) {
            char shown[64], where[48] = "";
            if (f && json_is_object (f->node) && f->key)
                snprintf (where, sizeof where, "field '%.40s': ", f->key);
            else if (f && json_is_array (f->node))
                snprintf (where, sizeof where, "item %zu: ",
                          json_array_size (f->node));
            return gp_errprintf (b->err, GP_ERANGE,
                                 "%s:%d:%d: %s%s is beyond the largest "
                                 "number (about 1.8e308)",
                                 d->name, line, col, where,
                                 shorten ((const char *)ev->data.scalar.value,
                                          shown, sizeof shown));
        }
        return attach (b, scalar_value (ev), line, col);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        struct frame *f = b->depth ? &b->stack[b->depth - 1] : NULL;
        if (f && json_is_object (f->node) && !f->key)
            return gp_errprintf (b->err, GP_EPARSE,
                                 "%s:%d:%d: a mapping key must be a plain "
                                 "scalar",
                                 d->name, line, col);
        json_t *n = ev->type == YAML_SEQUENCE_START_EVENT ? json_array ()
                                                          : json_object ();
        if (!n)
            return gp_errprintf (b->err, GP_ENOMEM, "out of memory");
        return push (b, n, line, col);
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (b->depth) {
            struct frame *f = &b->stack[--b->depth];
            free (f->key);
            json_decref (f->node);
        }
        return 0;
    default:
        return 0;
    }
}

/* libyaml's reader (bad UTF-8, control characters) reports a byte offset
 * and leaves the mark at the start: the line and column (in characters:
 * UTF-8 continuation bytes do not count) of that offset in 'text'.
 */
static void reader_mark (const char *text, size_t len, size_t offset,
                         yaml_mark_t *m)
{
    size_t line = 0, col = 0;
    for (size_t i = 0; i < offset && i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line++;
            col = 0;
        } else if ((c & 0xC0) != 0x80) {
            col++;
        }
    }
    m->line = line;
    m->column = col;
}

void gp_doc_destroy (struct gp_doc *d)
{
    if (!d)
        return;
    int saved = errno;
    for (size_t i = 0; i < d->cap; i++)
        free (d->tab[i].key);
    free (d->tab);
    json_decref (d->root);
    free (d->name);
    free (d);
    errno = saved;
}

struct gp_doc *gp_doc_parse (const char *text,
                             size_t len,
                             const char *name,
                             gp_error_t *err)
{
    if (!text) {
        gp_errprintf (err, GP_EINVAL, "gp_doc_parse: NULL text");
        return NULL;
    }
    struct gp_doc *d = calloc (1, sizeof *d);
    if (!d || !(d->name = strdup (name ? name : "<spec>"))) {
        free (d);
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    yaml_parser_t p;
    if (!yaml_parser_initialize (&p)) {
        gp_doc_destroy (d);
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    yaml_parser_set_input_string (&p, (const unsigned char *)text, len);
    struct builder b = {.doc = d, .err = err};
    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse (&p, &ev)) {
            if (p.error == YAML_READER_ERROR)
                reader_mark (text, len, p.problem_offset, &p.problem_mark);
            rc = gp_errprintf (err, GP_EPARSE, "%s:%zu:%zu: %s%s%s", d->name,
                               p.problem_mark.line + 1,
                               p.problem_mark.column + 1,
                               p.problem ? p.problem : "YAML syntax error",
                               p.context ? " " : "",
                               p.context ? p.context : "");
            break;
        }
        int done = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event (&b, &ev);
        yaml_event_delete (&ev);
        if (rc || done)
            break;
    }
    while (b.depth) {
        struct frame *f = &b.stack[--b.depth];
        free (f->key);
        json_decref (f->node);
    }
    free (b.stack);
    yaml_parser_delete (&p);
    if (rc) {
        gp_doc_destroy (d);
        return NULL;
    }
    if (!d->root) {
        d->root = json_null ();
        pos_put (d, d->root, NULL, 1, 1);
    }
    return d;
}

struct gp_doc *gp_doc_load (const char *path, gp_error_t *err)
{
    if (!path) {
        gp_errprintf (err, GP_EINVAL, "gp_doc_load: NULL path");
        return NULL;
    }
    FILE *f = fopen (path, "rb");
    if (!f) {
        gp_errprintf (err, GP_EIO, "%s: %s", path, strerror (errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            size_t nc = cap ? 2 * cap : 65536;
            if (nc > (64u << 20)) {
                free (buf);
                fclose (f);
                gp_errprintf (err, GP_EPARSE, "%s: larger than 64 MiB", path);
                return NULL;
            }
            char *nb = realloc (buf, nc);
            if (!nb) {
                free (buf);
                fclose (f);
                gp_errprintf (err, GP_ENOMEM, "out of memory");
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t n = fread (buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror (f);
    fclose (f);
    if (bad) {
        free (buf);
        gp_errprintf (err, GP_EIO, "%s: read error", path);
        return NULL;
    }
    struct gp_doc *d = gp_doc_parse (buf, len, path, err);
    free (buf);
    return d;
}

json_t *gp_doc_root (const struct gp_doc *d)
{
    return d ? d->root : NULL;
}

const char *gp_doc_name (const struct gp_doc *d)
{
    return d ? d->name : "<spec>";
}

void gp_doc_pos (const struct gp_doc *d, const json_t *node, int *line,
                 int *col)
{
    const struct pos_entry *e = pos_get (d, node, NULL);
    if (line)
        *line = e ? e->line : 0;
    if (col)
        *col = e ? e->col : 0;
}

static int vpos_errorf (const struct gp_doc *d, const struct pos_entry *e,
                        gp_error_t *err, int code, const char *fmt,
                        va_list ap)
{
    char msg[GP_ERROR_TEXT_MAX];
    vsnprintf (msg, sizeof msg, fmt, ap);
    if (e)
        return gp_errprintf (err, code, "%s:%d:%d: %s", gp_doc_name (d),
                             e->line, e->col, msg);
    return gp_errprintf (err, code, "%s: %s", gp_doc_name (d), msg);
}

int gp_doc_errorf (const struct gp_doc *d, const json_t *node,
                   gp_error_t *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int rc = vpos_errorf (d, pos_get (d, node, NULL), err, code, fmt, ap);
    va_end (ap);
    return rc;
}

/* Error positioned at the key 'key' of mapping 'obj' (falls back to obj). */
static int key_errorf (const struct gp_doc *d, const json_t *obj,
                       const char *key, gp_error_t *err, int code,
                       const char *fmt, ...)
    __attribute__ ((format (printf, 6, 7)));

static int key_errorf (const struct gp_doc *d, const json_t *obj,
                       const char *key, gp_error_t *err, int code,
                       const char *fmt, ...)
{
    const struct pos_entry *e = key ? pos_get (d, obj, key) : NULL;
    if (!e)
        e = pos_get (d, obj, NULL);
    va_list ap;
    va_start (ap, fmt);
    int rc = vpos_errorf (d, e, err, code, fmt, ap);
    va_end (ap);
    return rc;
}

/* Position of a mapping value: its own node if it has one, else the key. */
static const struct pos_entry *value_pos (const struct gp_doc *d,
                                          const json_t *obj, const char *key,
                                          const json_t *v)
{
    const struct pos_entry *e = NULL;
    if (!json_is_true (v) && !json_is_false (v) && !json_is_null (v))
        e = pos_get (d, v, NULL);
    return e ? e : pos_get (d, obj, key);
}

static int val_errorf (const struct gp_doc *d, const json_t *obj,
                       const char *key, const json_t *v, gp_error_t *err,
                       int code, const char *fmt, ...)
    __attribute__ ((format (printf, 7, 8)));

static int val_errorf (const struct gp_doc *d, const json_t *obj,
                       const char *key, const json_t *v, gp_error_t *err,
                       int code, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int rc = vpos_errorf (d, value_pos (d, obj, key, v), err, code, fmt, ap);
    va_end (ap);
    return rc;
}

static const char *type_name (const json_t *v)
{
    switch (json_typeof (v)) {
    case JSON_OBJECT:
        return "a mapping";
    case JSON_ARRAY:
        return "a list";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "empty (null)";
    }
    return "?";
}

/* A value as the user wrote it, shortened when very long: the first 20
 * characters, "...", and the length ("1234...(230 characters)").
 */
static const char *shorten (const char *text, char *buf, size_t size)
{
    size_t n = strlen (text);
    if (n <= 32)
        snprintf (buf, size, "%s", text);
    else
        snprintf (buf, size, "%.20s...(%zu characters)", text, n);
    return buf;
}

/* The unit after a range whose bounds are plain numbers: none (a
 * quantity's bounds are formatted with their unit, gp_format_quantity).
 */
static const char *unit_of (const struct gp_field *f)
{
    if (f->type != GP_F_QUANTITY || f->quantity != GP_Q_COUNT)
        return "";
    switch (f->quantity) {
    case GP_Q_BYTES:
        return " bytes";
    case GP_Q_BANDWIDTH:
        return " bytes/s";
    case GP_Q_FLOPS:
        return " FLOP/s";
    case GP_Q_COUNT:
        return "";
    case GP_Q_DURATION:
        return " s";
    case GP_Q_POWER:
        return " W";
    case GP_Q_MONEY:
        return " USD";
    case GP_Q_MONEY_RATE:
        return " USD/h";
    }
    return "";
}

/* The documented range [min, max] of a numeric field (docs/formats/),
 * checked when min < max: "FILE:LINE:COL: field 'what.key': VALUE outside
 * [min, max] UNIT", the value as written (shortened when long).
 */
static int check_range (const struct gp_doc *d, const json_t *obj,
                        const struct gp_field *f, const json_t *v,
                        const char *what, double x, gp_error_t *err)
{
    if (!(f->min < f->max) || (x >= f->min && x <= f->max))
        return 0;
    char text[64], shown[64];
    if (json_is_string (v))
        shorten (json_string_value (v), shown, sizeof shown);
    else {
        snprintf (text, sizeof text, "%.10g", x);
        snprintf (shown, sizeof shown, "%s", text);
    }
    char lo[32], hi[32];
    if (f->type == GP_F_QUANTITY && f->quantity != GP_Q_COUNT) {
        gp_format_quantity (f->min, f->quantity, 0, lo, sizeof lo);
        gp_format_quantity (f->max, f->quantity, 0, hi, sizeof hi);
    } else {
        snprintf (lo, sizeof lo, "%.10g", f->min);
        snprintf (hi, sizeof hi, "%.10g", f->max);
    }
    return val_errorf (d, obj, f->key, v, err, GP_ERANGE,
                       "field '%s.%s': %s outside [%s, %s]%s", what, f->key,
                       shown, lo, hi,
                       f->quantity == GP_Q_COUNT ? "" : unit_of (f));
}

/* An enum field: the index of 'v' among f->choices, or an error listing
 * them.
 */
static int unpack_enum (const struct gp_doc *d, const json_t *obj,
                        const char *what, const struct gp_field *f,
                        const json_t *v, char *dst, gp_error_t *err)
{
    if (!json_is_string (v))
        return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                           "%s.%s: expected one of the names, found %s",
                           what, f->key, type_name (v));
    const char *s = json_string_value (v);
    size_t n = 0;
    for (; f->choices[n]; n++)
        if (strcmp (f->choices[n], s) == 0) {
            int i = (int)n;
            memcpy (dst, &i, sizeof i);
            return 0;
        }
    char list[200] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int w = snprintf (list + used, sizeof list - used, "%s%s",
                          i ? ", " : "", f->choices[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                       "%s.%s: '%s' is not one of: %s", what, f->key, s,
                       list);
}

static int unpack_one (const struct gp_doc *d, const json_t *obj,
                       const char *what, const struct gp_field *f,
                       const json_t *v, void *out, gp_error_t *err)
{
    char *dst = (char *)out + f->offset;
    switch (f->type) {
    case GP_F_STRING: {
        if (!json_is_string (v))
            return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                               "%s.%s: expected a string, found %s", what,
                               f->key, type_name (v));
        const char *s = json_string_value (v);
        if (!*s && (f->flags & GP_F_REQUIRED))
            return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                               "%s.%s: must not be empty", what, f->key);
        if (strlen (s) >= f->size)
            return val_errorf (d, obj, f->key, v, err, GP_ERANGE,
                               "%s.%s: longer than %zu characters", what,
                               f->key, f->size - 1);
        memcpy (dst, s, strlen (s) + 1);
        return 0;
    }
    case GP_F_INT: {
        double x;
        if (json_is_integer (v))
            x = (double)json_integer_value (v);
        else if (json_is_real (v) && json_real_value (v) == floor (json_real_value (v)))
            x = json_real_value (v);
        else
            return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                               "%s.%s: expected an integer, found %s", what,
                               f->key, type_name (v));
        int rc = check_range (d, obj, f, v, what, x, err);
        if (rc)
            return rc;
        if (fabs (x) > 2e9)
            return val_errorf (d, obj, f->key, v, err, GP_ERANGE,
                               "field '%s.%s': %.10g outside [-2e9, 2e9]",
                               what, f->key, x);
        int i = (int)x;
        memcpy (dst, &i, sizeof i);
        return 0;
    }
    case GP_F_DOUBLE: {
        if (!json_is_number (v))
            return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                               "%s.%s: expected a number, found %s", what,
                               f->key, type_name (v));
        double x = json_number_value (v);
        int rc = check_range (d, obj, f, v, what, x, err);
        if (rc)
            return rc;
        memcpy (dst, &x, sizeof x);
        return 0;
    }
    case GP_F_BOOL: {
        if (!json_is_boolean (v))
            return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                               "%s.%s: expected true or false, found %s", what,
                               f->key, type_name (v));
        int i = json_is_true (v);
        memcpy (dst, &i, sizeof i);
        return 0;
    }
    case GP_F_QUANTITY: {
        double x;
        if (json_is_number (v)) {
            x = json_number_value (v);
            if (x < 0 || !isfinite (x))
                return val_errorf (d, obj, f->key, v, err, GP_ERANGE,
                                   "%s.%s: must not be negative", what,
                                   f->key);
        } else if (json_is_string (v)) {
            gp_error_t e;
            int rc = gp_parse_quantity (json_string_value (v), f->quantity,
                                        &x, &e);
            if (rc)
                return val_errorf (d, obj, f->key, v, err, rc, "%s.%s: %s",
                                   what, f->key, e.text);
        } else {
            return val_errorf (d, obj, f->key, v, err, GP_EPARSE,
                               "%s.%s: expected a %s, found %s", what, f->key,
                               gp_quantity_str (f->quantity), type_name (v));
        }
        int rc = check_range (d, obj, f, v, what, x, err);
        if (rc)
            return rc;
        memcpy (dst, &x, sizeof x);
        return 0;
    }
    case GP_F_ENUM:
        return unpack_enum (d, obj, what, f, v, dst, err);
    case GP_F_NODE: {
        const json_t *node = v;
        memcpy (dst, &node, sizeof node);
        return 0;
    }
    }
    return gp_errprintf (err, GP_EINTERNAL, "bad field type");
}

int gp_doc_unpack (const struct gp_doc *d,
                   const json_t *obj,
                   const char *what,
                   const struct gp_field *fields,
                   void *out,
                   gp_error_t *err)
{
    if (!d || !obj || !fields || !out)
        return gp_errprintf (err, GP_EINVAL, "gp_doc_unpack: NULL argument");
    if (!what)
        what = "spec";
    if (!json_is_object (obj))
        return gp_doc_errorf (d, obj, err, GP_EPARSE,
                              "%s: expected a mapping, found %s", what,
                              type_name (obj));
    const char *key;
    json_t *v;
    /* jansson 2.14 iterates in insertion order: the first bad key in the
     * file is the one reported.
     */
    json_object_foreach ((json_t *)obj, key, v) {
        const struct gp_field *f = fields;
        while (f->key && strcmp (f->key, key) != 0)
            f++;
        if (!f->key) {
            const char *names[128];
            size_t n = 0;
            for (const struct gp_field *g = fields; g->key && n < 128; g++)
                names[n++] = g->key;
            char near[160];
            if (gp_closest_names (key, names, n, 1, near, sizeof near))
                return key_errorf (d, obj, key, err, GP_EPARSE,
                                   "%s: unknown key '%s'; did you mean '%s'?",
                                   what, key, near);
            return key_errorf (d, obj, key, err, GP_EPARSE,
                               "%s: unknown key '%s'", what, key);
        }
    }
    for (const struct gp_field *f = fields; f->key; f++) {
        json_t *val = json_object_get (obj, f->key);
        if (!val || (json_is_null (val) && f->type != GP_F_NODE)) {
            if (f->flags & GP_F_REQUIRED)
                return key_errorf (d, obj, val ? f->key : NULL, err, GP_EPARSE,
                                   "%s: missing required key '%s'", what,
                                   f->key);
            continue;
        }
        int rc = unpack_one (d, obj, what, f, val, out, err);
        if (rc)
            return rc;
    }
    return 0;
}
