/* fields.c - field helpers of the trace readers: typed fields with
 * errors naming file:line and column, dates, Slurm elapsed times and
 * TRES strings, header mapping.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"
#include "trace_private.h"

void gp__tr_job_init (struct gp_job *j, size_t line, size_t index)
{
    memset (j, 0, sizeof *j);
    j->id = (int64_t)index;
    j->gpu_milli = 1000;
    j->pool = -1;
    j->line = (uint32_t)line;
}

const char *gp__tr_field (const struct rd *r, const struct gp_csv_row *row,
                          enum col c)
{
    int i = r->col[c];
    if (i < 0 || (size_t)i >= row->n_fields)
        return NULL;
    return row->fields[i];
}

int gp__tr_bad (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, const char *col, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof msg, fmt, ap);
    va_end (ap);
    if (col)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: column '%s': %s",
                             r->name, row->line, col, msg);
    return gp_errprintf (err, GP_EPARSE, "%s:%zu: %s", r->name, row->line,
                         msg);
}

/* The plain decimal "DIGITS[.DIGITS]" (at least one digit before the
 * point, at most 15 significant digits in all) in '*v' and 1; 0 for
 * anything else.  The digits make an integer below 2^53 and the fraction
 * digits a power of ten below 10^22, both exact doubles, so the one
 * division is correctly rounded: the value strtod() returns for the same
 * text (Clinger's fast path).  Everything else is left to strtod().
 */
static int plain_decimal (const char *s, double *v)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                 1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15};
    uint64_t m = 0;
    int nd = 0, nf = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++, nd++)
        m = m * 10 + (uint64_t)(*p - '0');
    if (nd == 0)
        return 0;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, nd++, nf++)
            m = m * 10 + (uint64_t)(*p - '0');
    if (*p || nd > 15)
        return 0;
    *v = nf ? (double)m / p10[nf] : (double)m;
    return 1;
}

int gp__tr_num (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, enum col c, const char *colname, double lo,
                double hi, double *out)
{
    const char *s = gp__tr_field (r, row, c);
    if (!s || !*s)
        return gp__tr_bad (r, row, err, colname, "missing value");
    double v;
    if (plain_decimal (s, &v) && v >= lo && v <= hi) {
        *out = v;
        return 0;
    }
    char *end;
    errno = 0;
    v = strtod (s, &end);
    while (*end == ' ')
        end++;
    if (end == s || *end || errno || !isfinite (v))
        return gp__tr_bad (r, row, err, colname, "'%s' is not a number", s);
    if (v < lo || v > hi)
        return gp__tr_bad (r, row, err, colname,
                           "%s is out of range [%g, %g]", s, lo, hi);
    *out = v;
    return 0;
}

int gp__tr_integer (const struct rd *r, const struct gp_csv_row *row,
                    gp_error_t *err, enum col c, const char *colname,
                    double lo, double hi, int *out)
{
    double v;
    int rc = gp__tr_num (r, row, err, c, colname, lo, hi, &v);
    if (rc)
        return rc;
    if (v != floor (v))
        return gp__tr_bad (r, row, err, colname, "'%s' is not an integer",
                           gp__tr_field (r, row, c));
    *out = (int)v;
    return 0;
}

int gp__tr_dur (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, enum col c, const char *colname,
                double *out)
{
    const char *s = gp__tr_field (r, row, c);
    if (!s || !*s)
        return gp__tr_bad (r, row, err, colname, "missing value");
    gp_error_t e;
    if (gp_parse_quantity (s, GP_Q_DURATION, out, &e) != 0)
        return gp__tr_bad (r, row, err, colname, "%s", e.text);
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil), so no time zone or locale is involved.
 */
static long long days_from_civil (long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

/* "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS" as seconds since the
 * epoch, in the trace's own (unstated) time zone.  -1 when malformed.
 */
static int two_digits (const char *s, int *v)
{
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
        return 0;
    *v = (s[0] - '0') * 10 + (s[1] - '0');
    return 1;
}

/* The common exact form "DDDD-DD-DD DD:DD:DD" (or 'T' between date and
 * time), all digits: the fields sscanf() below reads from the same text,
 * without its cost per row.  0 when the text has another form (sscanf
 * then decides, with its own rules for signs, spaces and widths).
 */
static int datetime_digits (const char *s, int *y, int *mo, int *d, int *h,
                            int *mi, int *se)
{
    int a, b;
    if (!two_digits (s, &a) || !two_digits (s + 2, &b) || s[4] != '-'
        || !two_digits (s + 5, mo) || s[7] != '-' || !two_digits (s + 8, d)
        || (s[10] != ' ' && s[10] != 'T') || !two_digits (s + 11, h)
        || s[13] != ':' || !two_digits (s + 14, mi) || s[16] != ':'
        || !two_digits (s + 17, se) || s[19] != '\0')
        return 0;
    *y = a * 100 + b;
    return 1;
}

double gp__tr_datetime (const char *s)
{
    int y, mo, d, h, mi, se;
    char sep;
    int n = 0;
    if (datetime_digits (s, &y, &mo, &d, &h, &mi, &se))
        ; /* the same fields as the sscanf below */
    else if (sscanf (s, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi,
                &se, &n)
        != 7
        || (sep != ' ' && sep != 'T') || s[n] != '\0')
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60
        || h < 0 || mi < 0 || se < 0)
        return -1;
    return (double)days_from_civil (y, (unsigned)mo, (unsigned)d) * 86400.0
           + h * 3600.0 + mi * 60.0 + se;
}

/* Slurm elapsed "[D-]HH:MM:SS", "MM:SS" or "MM:SS.mmm"; -1 if malformed. */
double gp__tr_elapsed (const char *s)
{
    long days = 0;
    const char *p = s;
    const char *dash = strchr (s, '-');
    if (dash) {
        char *end;
        days = strtol (s, &end, 10);
        if (end != dash || days < 0)
            return -1;
        p = dash + 1;
    }
    double parts[3];
    int np = 0;
    while (np < 3) {
        char *end;
        errno = 0;
        double v = strtod (p, &end);
        if (end == p || errno || v < 0)
            return -1;
        parts[np++] = v;
        if (*end == ':')
            p = end + 1;
        else if (*end == '\0')
            break;
        else
            return -1;
    }
    double secs;
    if (np == 3)
        secs = parts[0] * 3600 + parts[1] * 60 + parts[2];
    else if (np == 2)
        secs = parts[0] * 60 + parts[1];
    else
        secs = parts[0];
    return days * 86400.0 + secs;
}

/* GPUs in a Slurm TRES string: "cpu=8,gres/gpu=4,..." or typed
 * "gres/gpu:a100=4" (typed entries are summed only when no untyped one).
 * Returns the count, 0 when absent, -1 when malformed.
 */
int gp__tr_tres_gpus (const char *s)
{
    long untyped = -1, typed = 0;
    const char *p = s;
    while (p && *p) {
        const char *comma = strchr (p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen (p);
        if (len > 8 && strncmp (p, "gres/gpu", 8) == 0
            && (p[8] == '=' || p[8] == ':')) {
            const char *eq = memchr (p, '=', len);
            if (!eq)
                return -1;
            char *end;
            long v = strtol (eq + 1, &end, 10);
            if (end != p + len || v < 0 || v > 1000000)
                return -1;
            if (p[8] == '=')
                untyped = v;
            else
                typed += v;
        }
        p = comma ? comma + 1 : NULL;
    }
    long v = untyped >= 0 ? untyped : typed;
    return (int)v;
}


int gp__tr_map_header (struct rd *r, const struct gp_csv_row *row,
                       const struct colname *cols, gp_error_t *err)
{
    int hrc = gp_csv_header_unique (row, r->name, err);
    if (hrc)
        return hrc;
    for (int i = 0; i < C_N; i++)
        r->col[i] = -1;
    r->n_fields = row->n_fields;
    for (const struct colname *c = cols; c->name; c++) {
        int i = gp_csv_col (row, c->name);
        if (i < 0 && c->required)
            return gp_errprintf (err, GP_EPARSE,
                                 "%s:%zu: header: missing column '%s' of "
                                 "the %s format (docs/formats/traces.md)",
                                 r->name, row->line, c->name,
                                 gp_trace_format_str (r->fmt));
        if (r->col[c->c] < 0)
            r->col[c->c] = i;
    }
    return 0;
}

long gp__tr_utf8_bad (const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; p[i];) {
        unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        unsigned lo = 0x80, hi = 0xBF; /* allowed range of the 2nd byte */
        if (c >= 0xC2 && c <= 0xDF)
            n = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0)
                lo = 0xA0; /* overlong */
            else if (c == 0xED)
                hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0)
                lo = 0x90; /* overlong */
            else if (c == 0xF4)
                hi = 0x8F; /* past U+10FFFF */
        } else
            return (long)i;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return (long)i;
        for (size_t k = 2; k <= n; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return (long)i;
        i += n + 1;
    }
    return -1;
}

int gp__tr_check_names (const struct rd *r, const struct gp_csv_row *row,
                        const struct colname *cols, gp_error_t *err)
{
    for (const struct colname *c = cols; c && c->name; c++) {
        if (c->c != C_TEAM && c->c != C_POOL)
            continue;
        const char *s = gp__tr_field (r, row, c->c);
        long at = s ? gp__tr_utf8_bad (s) : -1;
        if (at >= 0)
            return gp__tr_bad (r, row, err, c->name,
                               "not valid UTF-8 (byte 0x%02X at byte %ld of "
                               "the field); names are written to JSON: "
                               "convert the file to UTF-8 (e.g. with iconv)",
                               (unsigned)(unsigned char)s[at], at + 1);
    }
    return 0;
}

int gp__tr_team (struct rd *r, const char *name)
{
    int t = gp__tr_intern (r, 0, name && *name ? name : "default");
    return t;
}


int gp__tr_keep_check (const struct rd *r, const struct gp_job *j)
{
    if (j->duration_s <= 0)
        return 1; /* zero-length jobs take no GPU time: ignored, counted */
    if (j->n_gpus == 0 && !(r->opts->flags & GP_TRACE_KEEP_ZERO))
        return 1;
    return 0;
}
