/* units.c - one parser and one formatter for every quantity users write.
 *
 * The grammar is deliberately small and strict (see gpuplan/units.h): a
 * non-negative decimal number, optional whitespace, and a unit drawn from a
 * per-kind table.  Anything else is an error that quotes the input, because
 * a silently misread "80G" or "400Gb/s" is a wrong plan, not a typo.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"

#define MAX_TEXT 128

const char *gp_quantity_str (enum gp_quantity q)
{
    switch (q) {
    case GP_Q_BYTES:
        return "bytes";
    case GP_Q_BANDWIDTH:
        return "bandwidth";
    case GP_Q_FLOPS:
        return "FLOP/s";
    case GP_Q_COUNT:
        return "count";
    case GP_Q_DURATION:
        return "duration";
    case GP_Q_POWER:
        return "power";
    case GP_Q_MONEY:
        return "money";
    case GP_Q_MONEY_RATE:
        return "money rate";
    }
    return "?";
}

/* ======================= prefixes and unit tables ======================= */

struct prefix {
    const char *sym;
    double mult;
};

static const struct prefix decimal_prefixes[] = {
    {"", 1.0},     {"k", 1e3},    {"K", 1e3},  {"M", 1e6},  {"G", 1e9},
    {"T", 1e12},   {"P", 1e15},   {"E", 1e18}, {NULL, 0},
};

static const struct prefix binary_prefixes[] = {
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"Ei", 1152921504606846976.0},
    {NULL, 0},
};

struct base_unit {
    const char *sym;
    double mult;
    int binary_ok; /* may take Ki/Mi/... prefixes */
};

static const struct base_unit byte_units[] = {
    {"B", 1.0, 1}, {"byte", 1.0, 1}, {"bytes", 1.0, 1}, {NULL, 0, 0}};

static const struct base_unit bw_units[] = {
    {"B/s", 1.0, 1},     {"Bps", 1.0, 1},     {"b/s", 0.125, 0},
    {"bps", 0.125, 0},   {"bit/s", 0.125, 0}, {NULL, 0, 0}};

static const struct base_unit flops_units[] = {
    {"FLOPS", 1.0, 0},  {"FLOP/s", 1.0, 0}, {"flops", 1.0, 0},
    {"flop/s", 1.0, 0}, {"FLOPs", 1.0, 0},  {NULL, 0, 0}};

static const struct base_unit power_units[] = {{"W", 1.0, 0}, {NULL, 0, 0}};

/* Match "<prefix><base>" exactly against 'u'.  Returns 1 and sets '*mult'. */
static int match_prefixed (const char *u,
                           const struct base_unit *bases,
                           double *mult)
{
    for (const struct base_unit *b = bases; b->sym; b++) {
        size_t ul = strlen (u), bl = strlen (b->sym);
        if (ul < bl || strcmp (u + ul - bl, b->sym) != 0)
            continue;
        size_t pl = ul - bl;
        for (const struct prefix *p = decimal_prefixes; p->sym; p++) {
            if (strlen (p->sym) == pl && strncmp (u, p->sym, pl) == 0) {
                *mult = p->mult * b->mult;
                return 1;
            }
        }
        if (b->binary_ok) {
            for (const struct prefix *p = binary_prefixes; p->sym; p++) {
                if (strlen (p->sym) == pl && strncmp (u, p->sym, pl) == 0) {
                    *mult = p->mult * b->mult;
                    return 1;
                }
            }
        }
    }
    return 0;
}

struct word_unit {
    const char *sym;
    double mult;
};

static const struct word_unit duration_units[] = {
    {"us", 1e-6},          {"ms", 1e-3},        {"s", 1.0},
    {"sec", 1.0},          {"m", 60.0},         {"min", 60.0},
    {"h", 3600.0},         {"hr", 3600.0},      {"hour", 3600.0},
    {"hours", 3600.0},     {"d", 86400.0},      {"day", 86400.0},
    {"days", 86400.0},     {"w", 604800.0},     {"week", 604800.0},
    {"weeks", 604800.0},   {"mo", 2628000.0},   {"month", 2628000.0},
    {"months", 2628000.0}, {"y", 31536000.0},   {"yr", 31536000.0},
    {"year", 31536000.0},  {"years", 31536000.0}, {NULL, 0}};

static const struct word_unit count_suffixes[] = {
    {"", 1.0},  {"k", 1e3},  {"K", 1e3},   {"M", 1e6},
    {"B", 1e9}, {"G", 1e9},  {"T", 1e12},  {NULL, 0}};

static const char *const count_words[] = {
    "params", "parameters", "tokens", "tok", "sequences", "seqs", "samples",
    "requests", "req", "gpus", "GPUs", "jobs", "nodes", NULL};

static int lookup_word (const struct word_unit *t, const char *u, double *mult)
{
    for (; t->sym; t++) {
        if (strcmp (t->sym, u) == 0) {
            *mult = t->mult;
            return 1;
        }
    }
    return 0;
}

/* ============================== scanning =============================== */

static const char *skip_ws (const char *p)
{
    while (*p && isspace ((unsigned char)*p))
        p++;
    return p;
}

/* Read a non-negative decimal number at 'p' (no sign, no hex, no inf/nan).
 * Returns the end pointer, or NULL when 'p' does not start a number.
 * A leading '-' is reported through '*negative'.
 */
static const char *scan_number (const char *p, double *v, int *negative)
{
    *negative = 0;
    if (*p == '-') {
        *negative = 1;
        return NULL;
    }
    if (*p == '+')
        return NULL;
    if (!isdigit ((unsigned char)*p)
        && !(*p == '.' && isdigit ((unsigned char)p[1])))
        return NULL;
    /* Only [0-9.eE+-] may form the number: stop strtod at hex or words. */
    const char *q = p;
    while (isdigit ((unsigned char)*q) || *q == '.')
        q++;
    if ((*q == 'e' || *q == 'E')
        && (isdigit ((unsigned char)q[1])
            || ((q[1] == '+' || q[1] == '-')
                && isdigit ((unsigned char)q[2])))) {
        q += 2;
        while (isdigit ((unsigned char)*q))
            q++;
    }
    char num[64];
    size_t n = (size_t)(q - p);
    if (n >= sizeof num)
        return NULL;
    memcpy (num, p, n);
    num[n] = '\0';
    char *end;
    *v = strtod (num, &end);
    if (*end != '\0')
        return NULL;
    return q;
}

/* Copy the unit text at 'p' up to the end, trimming trailing whitespace. */
static void copy_trimmed (const char *p, char *out, size_t size)
{
    size_t n = strlen (p);
    while (n > 0 && isspace ((unsigned char)p[n - 1]))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy (out, p, n);
    out[n] = '\0';
}

static int finish (const char *s, double v, double *out, gp_error_t *err)
{
    if (!isfinite (v) || v > 1e300)
        return gp_errprintf (err, GP_ERANGE, "'%s': value out of range", s);
    *out = v;
    return 0;
}

static int bad (const char *s, enum gp_quantity q, gp_error_t *err,
                const char *hint)
{
    return gp_errprintf (err, GP_EPARSE, "'%s': not a valid %s%s%s", s,
                         gp_quantity_str (q), hint ? " (" : "",
                         hint ? hint : "");
}

static const char *hint_for (enum gp_quantity q)
{
    switch (q) {
    case GP_Q_BYTES:
        return "e.g. 80GB, 80GiB, 2TB)";
    case GP_Q_BANDWIDTH:
        return "e.g. 3.35TB/s, 900GB/s, 400Gbps)";
    case GP_Q_FLOPS:
        return "e.g. 989TFLOPS, 1.2PFLOP/s)";
    case GP_Q_COUNT:
        return "e.g. 70B, 15T tokens, 4M)";
    case GP_Q_DURATION:
        return "e.g. 45d, 12h, 800ms, 1h30m)";
    case GP_Q_POWER:
        return "e.g. 700W, 10.2kW)";
    case GP_Q_MONEY:
        return "e.g. $1.2M, $250k, 1200 USD)";
    case GP_Q_MONEY_RATE:
        return "e.g. $2.10/h, 55.04 USD/hour)";
    }
    return NULL;
}

static int parse_duration (const char *s, const char *p, double *out,
                           gp_error_t *err)
{
    double total = 0.0;
    int parts = 0;
    for (;;) {
        p = skip_ws (p);
        if (*p == '\0')
            break;
        double v;
        int neg;
        const char *q = scan_number (p, &v, &neg);
        if (!q) {
            if (neg)
                return gp_errprintf (err, GP_ERANGE,
                                     "'%s': duration must not be negative", s);
            return bad (s, GP_Q_DURATION, err, hint_for (GP_Q_DURATION));
        }
        q = skip_ws (q);
        const char *u0 = q;
        while (isalpha ((unsigned char)*q))
            q++;
        char unit[16];
        size_t ul = (size_t)(q - u0);
        if (ul >= sizeof unit)
            return bad (s, GP_Q_DURATION, err, hint_for (GP_Q_DURATION));
        memcpy (unit, u0, ul);
        unit[ul] = '\0';
        double mult;
        if (ul == 0) {
            /* A bare number is seconds, but only on its own. */
            if (parts > 0 || *skip_ws (q) != '\0')
                return bad (s, GP_Q_DURATION, err, hint_for (GP_Q_DURATION));
            mult = 1.0;
        } else if (!lookup_word (duration_units, unit, &mult)) {
            return bad (s, GP_Q_DURATION, err, hint_for (GP_Q_DURATION));
        }
        total += v * mult;
        parts++;
        p = q;
    }
    if (parts == 0)
        return bad (s, GP_Q_DURATION, err, hint_for (GP_Q_DURATION));
    return finish (s, total, out, err);
}

static int parse_count (const char *s, double v, const char *u, double *out,
                        gp_error_t *err)
{
    /* u = "[suffix][ word]" */
    char suffix[8] = "";
    const char *p = u;
    if (*p && strchr ("kKMBGT", *p)
        && (p[1] == '\0' || isspace ((unsigned char)p[1]))) {
        suffix[0] = *p;
        suffix[1] = '\0';
        p++;
    }
    double mult;
    if (!lookup_word (count_suffixes, suffix, &mult))
        return bad (s, GP_Q_COUNT, err, hint_for (GP_Q_COUNT));
    p = skip_ws (p);
    if (*p) {
        int ok = 0;
        for (const char *const *w = count_words; *w; w++)
            if (strcmp (*w, p) == 0)
                ok = 1;
        if (!ok)
            return bad (s, GP_Q_COUNT, err, hint_for (GP_Q_COUNT));
    }
    return finish (s, v * mult, out, err);
}

static int parse_money (const char *s, const char *p, enum gp_quantity q,
                        double *out, gp_error_t *err)
{
    int dollar = 0;
    if (*p == '$') {
        dollar = 1;
        p = skip_ws (p + 1);
    }
    double v;
    int neg;
    const char *e = scan_number (p, &v, &neg);
    if (!e) {
        if (neg)
            return gp_errprintf (err, GP_ERANGE,
                                 "'%s': amount must not be negative", s);
        return bad (s, q, err, hint_for (q));
    }
    char u[MAX_TEXT];
    copy_trimmed (skip_ws (e), u, sizeof u);
    char *r = u;
    double mult = 1.0;
    if (*r && strchr ("kKMB", *r) && !isalpha ((unsigned char)r[1])) {
        mult = *r == 'M' ? 1e6 : *r == 'B' ? 1e9 : 1e3;
        r++;
    }
    while (*r == ' ')
        r++;
    if (strncmp (r, "USD", 3) == 0) {
        if (dollar)
            return bad (s, q, err, hint_for (q));
        r += 3;
        while (*r == ' ')
            r++;
    }
    int rate = 0;
    if (*r == '/') {
        const char *per = r + 1;
        if (strcmp (per, "h") == 0 || strcmp (per, "hr") == 0
            || strcmp (per, "hour") == 0)
            rate = 1;
        else
            return bad (s, q, err, hint_for (q));
    } else if (*r != '\0') {
        return bad (s, q, err, hint_for (q));
    }
    if (rate && q == GP_Q_MONEY)
        return gp_errprintf (err, GP_EPARSE,
                             "'%s': a rate per hour where an amount is expected",
                             s);
    return finish (s, v * mult, out, err);
}

int gp_parse_quantity (const char *s,
                       enum gp_quantity q,
                       double *out,
                       gp_error_t *err)
{
    if (!s || !out)
        return gp_errprintf (err, GP_EINVAL, "gp_parse_quantity: NULL argument");
    if (strlen (s) >= MAX_TEXT)
        return gp_errprintf (err, GP_EPARSE, "'%.40s...': text too long for a %s",
                             s, gp_quantity_str (q));
    const char *p = skip_ws (s);
    if (q == GP_Q_DURATION)
        return parse_duration (s, p, out, err);
    if (q == GP_Q_MONEY || q == GP_Q_MONEY_RATE)
        return parse_money (s, p, q, out, err);

    double v;
    int neg;
    const char *e = scan_number (p, &v, &neg);
    if (!e) {
        if (neg)
            return gp_errprintf (err, GP_ERANGE,
                                 "'%s': %s must not be negative", s,
                                 gp_quantity_str (q));
        return bad (s, q, err, hint_for (q));
    }
    char u[MAX_TEXT];
    copy_trimmed (skip_ws (e), u, sizeof u);
    double mult = 1.0;
    if (q == GP_Q_COUNT)
        return parse_count (s, v, u, out, err);
    if (u[0] != '\0') {
        const struct base_unit *t = q == GP_Q_BYTES       ? byte_units
                                    : q == GP_Q_BANDWIDTH ? bw_units
                                    : q == GP_Q_FLOPS     ? flops_units
                                                          : power_units;
        if (!match_prefixed (u, t, &mult)) {
            if (q == GP_Q_BYTES && match_prefixed (u, bw_units, &mult))
                return gp_errprintf (err, GP_EPARSE,
                                     "'%s': a bandwidth where a size is expected",
                                     s);
            if (q == GP_Q_BYTES && strchr (u, 'b') && !strchr (u, 'B'))
                return gp_errprintf (err, GP_EPARSE,
                                     "'%s': 'b' means bits; sizes are in bytes "
                                     "(B)", s);
            return bad (s, q, err, hint_for (q));
        }
    }
    return finish (s, v * mult, out, err);
}

/* ============================= formatting ============================== */

static char *fmt_prefixed (double v, const char *unit, int binary, char *buf,
                           size_t size)
{
    static const char *const dec[] = {"", "k", "M", "G", "T", "P", "E"};
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    double base = binary ? 1024.0 : 1000.0;
    int i = 0;
    double m = v;
    while (m >= base && i < 6) {
        m /= base;
        i++;
    }
    /* Rounding to 4 significant digits may reach the next prefix. */
    char tmp[32];
    snprintf (tmp, sizeof tmp, "%.4g", m);
    if (strtod (tmp, NULL) >= base && i < 6) {
        m /= base;
        i++;
        snprintf (tmp, sizeof tmp, "%.4g", m);
    }
    snprintf (buf, size, "%s %s%s", tmp, binary ? bin[i] : dec[i], unit);
    return buf;
}

char *gp_format_quantity (double v,
                          enum gp_quantity q,
                          unsigned flags,
                          char *buf,
                          size_t size)
{
    if (!buf || size == 0)
        return buf;
    if (!isfinite (v)) {
        snprintf (buf, size, "n/a");
        return buf;
    }
    switch (q) {
    case GP_Q_BYTES:
        return fmt_prefixed (v, "B", (flags & GP_FMT_BINARY) != 0, buf, size);
    case GP_Q_BANDWIDTH:
        if (flags & GP_FMT_BITS)
            return fmt_prefixed (v * 8.0, "b/s", 0, buf, size);
        return fmt_prefixed (v, "B/s", (flags & GP_FMT_BINARY) != 0, buf,
                             size);
    case GP_Q_FLOPS:
        return fmt_prefixed (v, "FLOP/s", 0, buf, size);
    case GP_Q_POWER:
        return fmt_prefixed (v, "W", 0, buf, size);
    case GP_Q_COUNT: {
        static const char *const sfx[] = {"", "k", "M", "B", "T"};
        int i = 0;
        double m = v;
        while (m >= 1000.0 && i < 4) {
            m /= 1000.0;
            i++;
        }
        snprintf (buf, size, "%.4g%s%s", m, i ? " " : "", sfx[i]);
        return buf;
    }
    case GP_Q_DURATION: {
        const double y = 31536000.0, d = 86400.0, h = 3600.0;
        if (v >= 2 * y)
            snprintf (buf, size, "%.4g y", v / y);
        else if (v >= 2 * d)
            snprintf (buf, size, "%.4g d", v / d);
        else if (v >= 2 * h)
            snprintf (buf, size, "%.4g h", v / h);
        else if (v >= 120.0)
            snprintf (buf, size, "%.4g min", v / 60.0);
        else if (v >= 1.0 || v == 0.0)
            snprintf (buf, size, "%.4g s", v);
        else if (v >= 1e-3)
            snprintf (buf, size, "%.4g ms", v * 1e3);
        else
            snprintf (buf, size, "%.4g us", v * 1e6);
        return buf;
    }
    case GP_Q_MONEY:
    case GP_Q_MONEY_RATE: {
        const char *per = q == GP_Q_MONEY_RATE ? "/h" : "";
        if (v >= 1e12)
            snprintf (buf, size, "$%.4gT%s", v / 1e12, per);
        else if (v >= 1e9)
            snprintf (buf, size, "$%.4gB%s", v / 1e9, per);
        else if (v >= 1e6)
            snprintf (buf, size, "$%.4gM%s", v / 1e6, per);
        else if (v >= 1e4)
            snprintf (buf, size, "$%.4gk%s", v / 1e3, per);
        else
            snprintf (buf, size, "$%.2f%s", v, per);
        return buf;
    }
    }
    snprintf (buf, size, "%g", v);
    return buf;
}
