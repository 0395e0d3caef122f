/* quote.c - names, YAML emission and quoting for the export targets
 * (quote.h; docs/formats/export.md, "Names and quoting").
 *
 * Sources: Kubernetes object names and IDs (DNS-1123 label and
 * subdomain), slurm.conf(5) and sacctmgr(1) (cluster, account and QOS
 * names are stored in lowercase), YAML 1.1 and 1.2 core schema (which
 * plain scalars resolve to non-strings), the Prometheus querying basics
 * (string literals use Go's escaping) and RE2 syntax.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "quote.h"

/* ============================== names ================================== */

static int label_ok (const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return 0;
    }
    return s[0] != '-' && s[n - 1] != '-';
}

int gp__name_dns1123_label (const char *s)
{
    return s && label_ok (s, strlen (s));
}

int gp__name_dns1123_subdomain (const char *s)
{
    if (!s)
        return 0;
    size_t n = strlen (s);
    if (n == 0 || n > 253)
        return 0;
    const char *p = s;
    for (;;) {
        const char *dot = strchr (p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen (p);
        if (!label_ok (p, len))
            return 0;
        if (!dot)
            return 1;
        p = dot + 1;
    }
}

int gp__name_slurm (const char *s)
{
    if (!s || !(s[0] >= 'a' && s[0] <= 'z'))
        return 0;
    size_t n = strlen (s);
    if (n > 63)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
              || c == '_'))
            return 0;
    }
    return 1;
}

/* ============================== YAML =================================== */

static int y_write (void *data, unsigned char *buf, size_t size)
{
    struct sb *b = data;
    gp__sb_printf (b, "%.*s", (int)size, (const char *)buf);
    return !b->oom;
}

static void y_emit (struct gp__yaml *y, yaml_event_t *ev, int made)
{
    if (!made) {
        y->err = 1;
        return;
    }
    if (!yaml_emitter_emit (&y->em, ev))
        y->err = 1; /* the emitter deletes the event either way */
}

int gp__y_open (struct gp__yaml *y, struct sb *out)
{
    memset (y, 0, sizeof *y);
    y->out = out;
    if (!yaml_emitter_initialize (&y->em)) {
        y->err = 1;
        out->oom = 1;
        return -1;
    }
    y->open = 1;
    yaml_emitter_set_output (&y->em, y_write, out);
    yaml_emitter_set_unicode (&y->em, 1);
    yaml_emitter_set_width (&y->em, -1);
    yaml_emitter_set_indent (&y->em, 2);
    yaml_event_t ev;
    y_emit (y, &ev, yaml_stream_start_event_initialize (&ev, YAML_UTF8_ENCODING));
    return y->err ? -1 : 0;
}

int gp__y_close (struct gp__yaml *y)
{
    if (!y->open)
        return -1;
    yaml_event_t ev;
    if (!y->err)
        y_emit (y, &ev, yaml_stream_end_event_initialize (&ev));
    if (!y->err && !yaml_emitter_flush (&y->em))
        y->err = 1;
    yaml_emitter_delete (&y->em);
    y->open = 0;
    if (y->err)
        y->out->oom = 1;
    return y->err ? -1 : 0;
}

void gp__y_doc_start (struct gp__yaml *y)
{
    if (y->err)
        return;
    yaml_event_t ev;
    y_emit (y, &ev,
            yaml_document_start_event_initialize (&ev, NULL, NULL, NULL, 0));
}

void gp__y_doc_end (struct gp__yaml *y)
{
    if (y->err)
        return;
    yaml_event_t ev;
    y_emit (y, &ev, yaml_document_end_event_initialize (&ev, 1));
}

void gp__y_map (struct gp__yaml *y)
{
    if (y->err)
        return;
    yaml_event_t ev;
    y_emit (y, &ev,
            yaml_mapping_start_event_initialize (&ev, NULL, NULL, 1,
                                                 YAML_BLOCK_MAPPING_STYLE));
}

void gp__y_map_end (struct gp__yaml *y)
{
    if (y->err)
        return;
    yaml_event_t ev;
    y_emit (y, &ev, yaml_mapping_end_event_initialize (&ev));
}

static void seq_start (struct gp__yaml *y, yaml_sequence_style_t style)
{
    if (y->err)
        return;
    yaml_event_t ev;
    y_emit (y, &ev,
            yaml_sequence_start_event_initialize (&ev, NULL, NULL, 1, style));
}

void gp__y_seq (struct gp__yaml *y)
{
    seq_start (y, YAML_BLOCK_SEQUENCE_STYLE);
}

void gp__y_seq_flow (struct gp__yaml *y)
{
    seq_start (y, YAML_FLOW_SEQUENCE_STYLE);
}

void gp__y_seq_end (struct gp__yaml *y)
{
    if (y->err)
        return;
    yaml_event_t ev;
    y_emit (y, &ev, yaml_sequence_end_event_initialize (&ev));
}

static void scalar (struct gp__yaml *y, const char *s,
                    yaml_scalar_style_t style)
{
    if (y->err)
        return;
    if (!s)
        s = "";
    yaml_event_t ev;
    y_emit (y, &ev,
            yaml_scalar_event_initialize (&ev, NULL, NULL,
                                          (yaml_char_t *)(uintptr_t)s,
                                          (int)strlen (s), 1, 1, style));
}

/* Whether a plain scalar 's' reads back as the string 's' under both YAML
 * 1.1 and the 1.2 core schema.  Conservative: only [A-Za-z0-9._/-] and
 * UTF-8 bytes, not starting like a number or an indicator, not a boolean
 * or null word.
 */
static int plain_safe (const char *s)
{
    static const char *const words[] = {
        "y", "n", "yes", "no", "true", "false", "on", "off", "null", "~",
    };
    if (!*s || isdigit ((unsigned char)s[0]) || strchr ("+-._/", s[0]))
        return 0;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!(isalnum (c) || c >= 0x80 || strchr ("._/-", c)))
            return 0;
    }
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcasecmp (s, words[i]))
            return 0;
    return 1;
}

void gp__y_str (struct gp__yaml *y, const char *s)
{
    if (!s)
        s = "";
    scalar (y, s,
            plain_safe (s) ? YAML_PLAIN_SCALAR_STYLE
                           : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void gp__y_qstr (struct gp__yaml *y, const char *s)
{
    scalar (y, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void gp__y_block (struct gp__yaml *y, const char *s)
{
    scalar (y, s, YAML_LITERAL_SCALAR_STYLE);
}

void gp__y_int (struct gp__yaml *y, long long v)
{
    char buf[32];
    snprintf (buf, sizeof buf, "%lld", v);
    scalar (y, buf, YAML_PLAIN_SCALAR_STYLE);
}

void gp__y_num (struct gp__yaml *y, double v)
{
    char buf[40];
    if (!isfinite (v)) {
        y->err = 1; /* no target takes .inf/.nan; callers check first */
        return;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf (buf, sizeof buf, "%.*g", prec, v);
        if (strtod (buf, NULL) == v)
            break;
    }
    scalar (y, buf, YAML_PLAIN_SCALAR_STYLE);
}

void gp__y_bool (struct gp__yaml *y, int v)
{
    scalar (y, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

void gp__y_key (struct gp__yaml *y, const char *k)
{
    gp__y_str (y, k);
}

void gp__y_kstr (struct gp__yaml *y, const char *k, const char *v)
{
    gp__y_key (y, k);
    gp__y_str (y, v);
}

void gp__y_kint (struct gp__yaml *y, const char *k, long long v)
{
    gp__y_key (y, k);
    gp__y_int (y, v);
}

void gp__y_knum (struct gp__yaml *y, const char *k, double v)
{
    gp__y_key (y, k);
    gp__y_num (y, v);
}

void gp__y_kbool (struct gp__yaml *y, const char *k, int v)
{
    gp__y_key (y, k);
    gp__y_bool (y, v);
}

/* =========================== other targets ============================= */

void gp__sh_quote (struct sb *b, const char *s)
{
    gp__sb_printf (b, "'");
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '\'')
            gp__sb_printf (b, "'\\''");
        else
            gp__sb_printf (b, "%c", *p);
    }
    gp__sb_printf (b, "'");
}

static void promql_chars (struct sb *b, const char *s, int regex)
{
    for (const char *p = s ? s : ""; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (regex && strchr ("\\.+*?()|[]{}^$", c) && c) {
            /* RE2 escape, itself escaped in the string literal. */
            gp__sb_printf (b, "\\\\");
        }
        switch (c) {
        case '\\':
            gp__sb_printf (b, "\\\\");
            break;
        case '"':
            gp__sb_printf (b, "\\\"");
            break;
        case '\n':
            gp__sb_printf (b, "\\n");
            break;
        case '\r':
            gp__sb_printf (b, "\\r");
            break;
        case '\t':
            gp__sb_printf (b, "\\t");
            break;
        default:
            if (c < 0x20 || c == 0x7f)
                gp__sb_printf (b, "\\x%02x", c);
            else
                gp__sb_printf (b, "%c", c);
        }
    }
}

void gp__promql_str (struct sb *b, const char *s)
{
    gp__sb_printf (b, "\"");
    promql_chars (b, s, 0);
    gp__sb_printf (b, "\"");
}

void gp__promql_re (struct sb *b, const char *s)
{
    gp__sb_printf (b, "\"");
    promql_chars (b, s, 1);
    gp__sb_printf (b, "\"");
}

void gp__comment_text (struct sb *b, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        unsigned char c = (unsigned char)*p;
        gp__sb_printf (b, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
}
