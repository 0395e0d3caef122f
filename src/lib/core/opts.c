/* opts.c - command-line checks for front ends (opts.h): full option
 * names with "did you mean", values, repeats, conflicts, numeric ranges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/names.h"
#include "gpuplan/opts.h"

/* Index of the option named by 'a' ("--name" or "--name=v"), or -1. */
static long find_opt (const struct gp_opt_name *opts, size_t n, const char *a)
{
    size_t len = strcspn (a + 2, "=");
    for (size_t k = 0; k < n; k++)
        if (strlen (opts[k].name) == len && !strncmp (opts[k].name, a + 2, len))
            return (long)k;
    return -1;
}

static int unknown (const struct gp_opt_name *opts, size_t n, const char *a,
                    gp_error_t *err)
{
    const char *names[128];
    size_t m = 0, len = strcspn (a + 2, "=");
    char name[48], near[128], list[200] = "--";
    snprintf (name, sizeof name, "%.*s", (int)(len < 40 ? len : 40), a + 2);
    for (; m < n && m < 128; m++)
        names[m] = opts[m].name;
    const char *more = len > 40 ? "..." : "";
    if (!gp_closest_names (name, names, m, 3, near, sizeof near) || !near[0])
        return gp_errprintf (err, GP_EINVAL, "unknown option '--%s%s'", name,
                             more);
    for (size_t i = 0, o = 2; near[i] && o + 3 < sizeof list; i++) {
        list[o++] = near[i];
        if (near[i] == ' ') /* "a, b" -> "--a, --b" */
            list[o++] = '-', list[o++] = '-';
        list[o] = '\0';
    }
    return gp_errprintf (err, GP_EINVAL,
                         "unknown option '--%s%s'; did you mean %s?", name,
                         more, list);
}

int gp_opts_check (int argc, char *const *argv,
                   const struct gp_opt_name *opts, size_t n,
                   const char *const *conflicts, char *warn,
                   size_t warn_size, gp_error_t *err)
{
    unsigned char *seen = calloc (n ? n : 1, 1);
    if (!seen)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    if (warn && warn_size)
        warn[0] = '\0';
    int rc = 0;
    for (int i = 1; rc == 0 && i < argc && strcmp (argv[i], "--"); i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-')
            continue;
        long k = find_opt (opts, n, a);
        int eq = strchr (a, '=') != NULL;
        if (k < 0)
            rc = unknown (opts, n, a, err);
        else if (opts[k].has_value && !eq && ++i >= argc)
            rc = gp_errprintf (err, GP_EINVAL, "--%s needs a value",
                               opts[k].name);
        else if (!opts[k].has_value && eq)
            rc = gp_errprintf (err, GP_EINVAL, "--%s takes no value",
                               opts[k].name);
        else if (seen[k]++ == 1 && strcmp (opts[k].name, "set") && warn
                 && warn_size && !warn[0])
            snprintf (warn, warn_size,
                      "--%s given more than once: the last one is used",
                      opts[k].name);
    }
    for (; rc == 0 && conflicts && conflicts[0] && conflicts[1];
         conflicts += 2) {
        long ka = -1, kb = -1;
        for (size_t k = 0; k < n; k++) {
            ka = strcmp (opts[k].name, conflicts[0]) ? ka : (long)k;
            kb = strcmp (opts[k].name, conflicts[1]) ? kb : (long)k;
        }
        if (ka >= 0 && kb >= 0 && seen[ka] && seen[kb])
            rc = gp_errprintf (err, GP_EINVAL, "give --%s or --%s, not both",
                               conflicts[0], conflicts[1]);
    }
    free (seen);
    return rc;
}

int gp_opt_number (const char *flag, const char *v, enum gp_quantity q,
                   double lo, double hi, int flags, double *out,
                   gp_error_t *err)
{
    double x;
    if (gp_parse_quantity (v, q, &x, err) != 0) {
        gp_errprefix (err, "%s", flag);
        if (err)
            err->code = GP_EINVAL;
        return GP_EINVAL;
    }
    const char *more = strlen (v) > 40 ? "..." : "";
    int open_hi = (flags & GP_OPT_OPEN_HI) != 0;
    if (!(x >= lo) || x > hi || (open_hi && x >= hi))
        return gp_errprintf (err, GP_EINVAL, "%s: %.40s%s is outside [%g, "
                             "%g%s", flag, v, more, lo, hi,
                             open_hi ? ")" : "]");
    if ((flags & GP_OPT_WHOLE) && x != (double)(long long)x)
        return gp_errprintf (err, GP_EINVAL, "%s: %.40s%s is not a whole "
                             "number", flag, v, more);
    *out = x;
    return 0;
}

int gp_opt_list (const char *flag, const char *v, gp_error_t *err)
{
    size_t n = v ? strlen (v) : 0;
    if (n == 0 || v[0] == ',' || v[n - 1] == ',' || strstr (v, ",,"))
        return gp_errprintf (err, GP_EINVAL,
                             "%s: empty item in '%.40s%s' (expected "
                             "ID[,ID...])", flag, v ? v : "",
                             n > 40 ? "..." : "");
    return 0;
}

void gp_opts_shorten_quoted (char *t)
{
    for (char *p = strchr (t, '\''), *q; p; p = strchr (p, '\'')) {
        if (!(q = strchr (p + 1, '\'')))
            return;
        size_t len = (size_t)(q - p - 1);
        if (len > 40 && !memchr (p + 1, ' ', len)) {
            memcpy (p + 38, "...", 3);
            memmove (p + 41, q, strlen (q) + 1);
            q = p + 41;
        }
        p = q + 1;
    }
}
