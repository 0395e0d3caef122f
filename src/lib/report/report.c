/* report.c - the plan report's entry points: the format names, rendering
 * a result in one format (JSON: plan_json.c; text and Markdown: text.c;
 * HTML: html.c), the terminal summary (the options in one line each and
 * the executive summary, summary.c), and the output buffer and number
 * formats the renderers share.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/report.h"
#include "report_private.h"

static const char *const fmt_names[] = {"text", "md", "html", "json"};

const char *gp_report_format_str (enum gp_report_format f)
{
    return (unsigned)f < 4 ? fmt_names[f] : "?";
}

int gp_report_format_parse (const char *s, enum gp_report_format *out,
                            gp_error_t *err)
{
    for (int i = 0; s && i < 4; i++)
        if (strcasecmp (s, fmt_names[i]) == 0) {
            *out = (enum gp_report_format)i;
            return 0;
        }
    if (s && strcasecmp (s, "markdown") == 0) {
        *out = GP_REPORT_MD;
        return 0;
    }
    return gp_errprintf (err, GP_EINVAL,
                         "unknown report format '%s' (text, md, html, json)",
                         s ? s : "");
}

/* ------------------------------ buffer ------------------------------ */

int gp_rb_printf (struct rbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return -1;
    va_list ap;
    va_start (ap, fmt);
    va_list ap2;
    va_copy (ap2, ap);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0) {
        va_end (ap2);
        b->failed = 1;
        return -1;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + (size_t)n + 1 > cap)
            cap *= 2;
        char *p = realloc (b->buf, cap);
        if (!p) {
            va_end (ap2);
            b->failed = 1;
            return -1;
        }
        b->buf = p;
        b->cap = cap;
    }
    vsnprintf (b->buf + b->len, b->cap - b->len, fmt, ap2);
    va_end (ap2);
    b->len += (size_t)n;
    return 0;
}

char *gp_rb_take (struct rbuf *b, gp_error_t *err)
{
    if (b->failed || !b->buf) {
        free (b->buf);
        if (!b->failed) {
            char *e = calloc (1, 1);
            if (e)
                return e;
        }
        gp_errprintf (err, GP_ENOMEM, "report: out of memory");
        return NULL;
    }
    return b->buf;
}

void gp_rb_esc (struct rbuf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            gp_rb_printf (b, "&lt;");
            break;
        case '>':
            gp_rb_printf (b, "&gt;");
            break;
        case '&':
            gp_rb_printf (b, "&amp;");
            break;
        case '"':
            gp_rb_printf (b, "&quot;");
            break;
        default:
            gp_rb_printf (b, "%c", *s);
        }
    }
}

void gp_rb_md (struct rbuf *b, const char *s, int cell)
{
    for (; s && *s; s++) {
        if (*s == '<' || *s == '>' || *s == '&')
            gp_rb_printf (b, "&%s;", *s == '<'   ? "lt"
                                     : *s == '>' ? "gt"
                                                 : "amp");
        else if (*s == '\n' || *s == '\r')
            gp_rb_printf (b, " ");
        else if (strchr ("\\`[]", *s) || (cell && strchr ("|*_", *s)))
            gp_rb_printf (b, "\\%c", *s);
        else
            gp_rb_printf (b, "%c", *s);
    }
}

/* ------------------------------ formats ------------------------------ */

const char *gp_report_fmt_q (double v, enum gp_quantity q, char *buf, size_t n)
{
    return gp_format_quantity (v, q, 0, buf, n);
}

const char *gp_report_option_kind (const struct gp_plan_option *o)
{
    return o->kind == GP_OPT_ONPREM  ? "on-prem"
           : o->kind == GP_OPT_BURST ? "burst"
                                     : "cloud";
}

const char *gp_report_option_status (const struct gp_plan_option *o)
{
    if (o->compute.code == GP_ENOTSUP)
        return "not yet supported";
    if (!o->feasible)
        return "infeasible";
    if (!o->complete)
        return "incomplete";
    return "ok";
}

char *gp_report_render (const struct gp_plan_result *r,
                        enum gp_report_format f, gp_error_t *err)
{
    if (!r) {
        gp_errprintf (err, GP_EINVAL, "report: no plan result");
        return NULL;
    }
    struct rbuf b = {0};
    switch (f) {
    case GP_REPORT_JSON: {
        json_t *j = gp_report_json (r);
        char *s = j ? json_dumps (j, JSON_INDENT (2) | JSON_PRESERVE_ORDER)
                    : NULL;
        json_decref (j);
        if (!s) {
            gp_errprintf (err, GP_ENOMEM, "report: out of memory");
            return NULL;
        }
        gp_rb_printf (&b, "%s\n", s);
        free (s);
        break;
    }
    case GP_REPORT_TEXT:
        gp_report_textual (&b, r, 0);
        break;
    case GP_REPORT_MD:
        gp_report_textual (&b, r, 1);
        break;
    case GP_REPORT_HTML:
        gp_report_html (&b, r);
        break;
    default:
        gp_errprintf (err, GP_EINVAL, "report: unknown format");
        return NULL;
    }
    return gp_rb_take (&b, err);
}

char *gp_report_summary (const struct gp_plan_result *r, gp_error_t *err)
{
    if (!r) {
        gp_errprintf (err, GP_EINVAL, "report: no plan result");
        return NULL;
    }
    struct rbuf b = {0};
    char u[32];
    gp_rb_printf (&b, "plan %s: %zu options over %.3g years\n", r->name,
                  r->n_options, r->horizon_years);
    for (size_t i = 0; i < r->n_options; i++) {
        const struct gp_plan_option *o = &r->options[i];
        int ok = o->compute.code == 0 && o->cost.code == 0;
        gp_rb_printf (&b, "  %-32s %-18s TCO %s%s\n", o->name,
                      gp_report_option_status (o),
                      ok ? gp_fmt_usd (o->tco_usd, u, sizeof u) : "-",
                      (int)i == r->recommended ? "  <- recommended" : "");
    }
    /* the report's executive summary, as the text report starts */
    struct rout out;
    if (gp_rout_init (&out, &b, ROUT_TEXT) == 0) {
        gp_report_exec_summary (&out, r);
        gp_rout_fini (&out);
    }
    return gp_rb_take (&b, err);
}
