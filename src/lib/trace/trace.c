/* trace.c - job sets and the trace readers.
 *
 * Each reader is a row callback over the streaming CSV reader: the header
 * row resolves column indices, every later row becomes one gp_job or one
 * error "file:line: column 'x': problem".  With GP_TRACE_SKIP_BAD the error
 * is counted and the first one kept instead.  Formats with absolute dates
 * (Philly-derived, sacct) are re-based so the earliest submit is time 0.
 * The formats are described in docs/formats/traces.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "gpuplan/trace.h"
#include "gpuplan/units.h"

static const char *const format_names[GP_TRACE_N_FORMATS] = {
    "auto", "generic", "philly", "tiresias", "pollux", "gavel",
    "alibaba2023", "sacct",
};

const char *gp_trace_format_str (enum gp_trace_format f)
{
    if ((int)f < 0 || f >= GP_TRACE_N_FORMATS)
        return NULL;
    return format_names[f];
}

int gp_trace_format_parse (const char *s, enum gp_trace_format *out,
                           gp_error_t *err)
{
    for (int i = 0; s && i < GP_TRACE_N_FORMATS; i++)
        if (strcmp (s, format_names[i]) == 0) {
            *out = (enum gp_trace_format)i;
            return 0;
        }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "unknown trace format '%s' (valid: auto, generic, "
                         "philly, tiresias, pollux, alibaba2023, sacct)",
                         s ? s : "");
}

/* ------------------------------ job sets ------------------------------ */

struct gp_jobset *gp_jobset_create (void)
{
    return calloc (1, sizeof (struct gp_jobset));
}

void gp_jobset_destroy (struct gp_jobset *js)
{
    if (!js)
        return;
    for (size_t i = 0; i < js->n_teams; i++)
        free (js->teams[i]);
    for (size_t i = 0; i < js->n_pools; i++)
        free (js->pools[i]);
    free (js->teams);
    free (js->pools);
    free (js->jobs);
    free (js);
}

int gp_jobset_add (struct gp_jobset *js, const struct gp_job *job)
{
    if (js->n_jobs == js->cap_jobs) {
        size_t cap = js->cap_jobs ? js->cap_jobs * 2 : 1024;
        struct gp_job *nj = realloc (js->jobs, cap * sizeof *nj);
        if (!nj)
            return GP_ENOMEM;
        js->jobs = nj;
        js->cap_jobs = cap;
    }
    js->jobs[js->n_jobs++] = *job;
    return 0;
}

static int intern (char ***tab, size_t *n, const char *name)
{
    /* Linear search: traces have tens to hundreds of teams.  The last hit
     * is checked first since rows of one team often come together.
     */
    for (size_t i = *n; i-- > 0;)
        if (strcmp ((*tab)[i], name) == 0)
            return (int)i;
    char **nt = realloc (*tab, (*n + 1) * sizeof *nt);
    if (!nt)
        return -1;
    *tab = nt;
    size_t len = strlen (name);
    char *copy = malloc (len + 1);
    if (!copy)
        return -1;
    memcpy (copy, name, len + 1);
    nt[*n] = copy;
    return (int)(*n)++;
}

int gp_jobset_team (struct gp_jobset *js, const char *name)
{
    return intern (&js->teams, &js->n_teams, name);
}

int gp_jobset_pool (struct gp_jobset *js, const char *name)
{
    return intern (&js->pools, &js->n_pools, name);
}

/* ------------------------------ helpers ------------------------------- */

enum col {
    C_ID, C_SUBMIT, C_DURATION, C_GPUS, C_TEAM, C_PRIO, C_MILLI, C_POOL,
    C_CKPT, C_COMM, C_START, C_END, C_STATE, C_ALLOC, C_REQ, C_ELAPSED,
    C_DELETE, C_N
};

struct rd {
    struct gp_jobset *js;
    const struct gp_trace_opts *opts;
    const char *name;
    enum gp_trace_format fmt;
    int col[C_N];
    int rebase;       /* absolute dates: subtract the earliest submit */
    int default_team; /* team index used when the format has none */
    size_t n_fields;  /* header width */
    struct tput *tp;  /* gavel throughput table */
    size_t n_tp;
    const char *gpu;
    struct papp *apps; /* pollux profiles, loaded on first use */
    size_t n_apps;
};

/* One Pollux application profile: measured step times by placement and
 * per-GPU batch size.
 */
struct prow {
    char placement[16];
    double local_bsz;
    double step_time;
};

struct papp {
    char name[32];
    struct prow *rows;
    size_t n_rows;
};

/* One row of the Gavel throughput table for the chosen GPU type (or its
 * "_unconsolidated" variant: the job spread over servers).
 */
struct tput {
    char job_type[96];
    int sf;
    int spread;
    double steps_per_s;
};

static void job_init (struct gp_job *j, size_t line, size_t index)
{
    memset (j, 0, sizeof *j);
    j->id = (int64_t)index;
    j->gpu_milli = 1000;
    j->pool = -1;
    j->line = (uint32_t)line;
}

static const char *field (const struct rd *r, const struct gp_csv_row *row,
                          enum col c)
{
    int i = r->col[c];
    if (i < 0 || (size_t)i >= row->n_fields)
        return NULL;
    return row->fields[i];
}

static int bad (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, const char *col, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));

static int bad (const struct rd *r, const struct gp_csv_row *row,
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

static int num (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, enum col c, const char *colname, double lo,
                double hi, double *out)
{
    const char *s = field (r, row, c);
    if (!s || !*s)
        return bad (r, row, err, colname, "missing value");
    char *end;
    errno = 0;
    double v = strtod (s, &end);
    while (*end == ' ')
        end++;
    if (end == s || *end || errno || !isfinite (v))
        return bad (r, row, err, colname, "'%s' is not a number", s);
    if (v < lo || v > hi)
        return bad (r, row, err, colname, "%s is out of range [%g, %g]", s,
                    lo, hi);
    *out = v;
    return 0;
}

static int integer (const struct rd *r, const struct gp_csv_row *row,
                    gp_error_t *err, enum col c, const char *colname,
                    double lo, double hi, int *out)
{
    double v;
    int rc = num (r, row, err, c, colname, lo, hi, &v);
    if (rc)
        return rc;
    if (v != floor (v))
        return bad (r, row, err, colname, "'%s' is not an integer",
                    field (r, row, c));
    *out = (int)v;
    return 0;
}

static int dur (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, enum col c, const char *colname,
                double *out)
{
    const char *s = field (r, row, c);
    if (!s || !*s)
        return bad (r, row, err, colname, "missing value");
    gp_error_t e;
    if (gp_parse_quantity (s, GP_Q_DURATION, out, &e) != 0)
        return bad (r, row, err, colname, "%s", e.text);
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
static double parse_datetime (const char *s)
{
    int y, mo, d, h, mi, se;
    char sep;
    int n = 0;
    if (sscanf (s, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi,
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
static double parse_elapsed (const char *s)
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
static int tres_gpus (const char *s)
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

/* ------------------------------ formats ------------------------------- */

enum gp_trace_format gp_trace_detect (const char *data, size_t len)
{
    char head[1024];
    size_t n = 0;
    while (n < len && n < sizeof head - 1 && data[n] != '\n'
           && data[n] != '\r')
        n++;
    memcpy (head, data, n);
    head[n] = '\0';
    if (strncmp (head, "timestamp,duration,num_gpus", 27) == 0)
        return GP_TRACE_PHILLY;
    if (strncmp (head, "job_id,num_gpu,submit_time", 26) == 0)
        return GP_TRACE_TIRESIAS;
    if (strncmp (head, "name,time,application,num_replicas", 34) == 0)
        return GP_TRACE_POLLUX;
    if (strncmp (head, "name,cpu_milli,memory_mib,num_gpu", 33) == 0)
        return GP_TRACE_ALIBABA2023;
    if (strstr (head, "JobID|") && strchr (head, '|'))
        return GP_TRACE_SACCT;
    if (strchr (head, '\t'))
        return GP_TRACE_GAVEL;
    return GP_TRACE_GENERIC;
}

struct colname {
    enum col c;
    const char *name;
    int required;
};

static int map_header (struct rd *r, const struct gp_csv_row *row,
                       const struct colname *cols, gp_error_t *err)
{
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
                                 format_names[r->fmt]);
        if (r->col[c->c] < 0)
            r->col[c->c] = i;
    }
    return 0;
}

static const struct colname generic_cols[] = {
    {C_ID, "id", 0},
    {C_SUBMIT, "submit", 1},
    {C_DURATION, "duration", 1},
    {C_GPUS, "gpus", 1},
    {C_TEAM, "team", 0},
    {C_PRIO, "priority", 0},
    {C_MILLI, "gpu_milli", 0},
    {C_POOL, "pool", 0},
    {C_CKPT, "checkpoint_interval", 0},
    {C_COMM, "comm_share", 0},
    {0, NULL, 0},
};

static const struct colname philly_cols[] = {
    {C_SUBMIT, "timestamp", 1},
    {C_DURATION, "duration", 1},
    {C_GPUS, "num_gpus", 1},
    {C_TEAM, "cluster", 1},
    {0, NULL, 0},
};

static const struct colname tiresias_cols[] = {
    {C_ID, "job_id", 1},
    {C_GPUS, "num_gpu", 1},
    {C_SUBMIT, "submit_time", 1},
    {C_DURATION, "duration", 1},
    {0, NULL, 0},
};

static const struct colname pollux_cols[] = {
    {C_SUBMIT, "time", 1},
    {C_TEAM, "application", 1},
    {C_GPUS, "num_replicas", 1},
    {C_PRIO, "batch_size", 1},
    {0, NULL, 0},
};

static const struct colname alibaba_cols[] = {
    {C_ID, "name", 1},
    {C_GPUS, "num_gpu", 1},
    {C_MILLI, "gpu_milli", 1},
    {C_SUBMIT, "creation_time", 1},
    {C_START, "scheduled_time", 1},
    {C_DELETE, "deletion_time", 1},
    {C_TEAM, "qos", 0},
    {0, NULL, 0},
};

static const struct colname sacct_cols[] = {
    {C_ID, "JobID", 1},
    {C_TEAM, "Account", 1},
    {C_SUBMIT, "Submit", 1},
    {C_START, "Start", 1},
    {C_END, "End", 0},
    {C_ELAPSED, "Elapsed", 1},
    {C_ALLOC, "AllocTRES", 0},
    {C_REQ, "ReqTRES", 0},
    {C_STATE, "State", 0},
    {0, NULL, 0},
};

static int team_of (struct rd *r, const char *name)
{
    int t = gp_jobset_team (r->js, name && *name ? name : "default");
    return t;
}


struct tload {
    struct rd *r;
    const char *name;
    int c[4];
};

static int on_tput (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct tload *t = arg;
    static const char *const cols[] = {"gpu_type", "job_type", "scale_factor",
                                       "steps_per_s"};
    if (row->index == 0) {
        for (int i = 0; i < 4; i++)
            if ((t->c[i] = gp_csv_col (row, cols[i])) < 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: header: missing column '%s'",
                                     t->name, row->line, cols[i]);
        return 0;
    }
    if (row->n_fields < 4)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: expected 4 fields",
                             t->name, row->line);
    const char *gpu = row->fields[t->c[0]];
    size_t gl = strlen (t->r->gpu);
    int spread;
    if (strcmp (gpu, t->r->gpu) == 0)
        spread = 0;
    else if (strncmp (gpu, t->r->gpu, gl) == 0
             && strcmp (gpu + gl, "_unconsolidated") == 0)
        spread = 1;
    else
        return 0;
    struct tput e;
    memset (&e, 0, sizeof e);
    snprintf (e.job_type, sizeof e.job_type, "%s", row->fields[t->c[1]]);
    char *end;
    long sf = strtol (row->fields[t->c[2]], &end, 10);
    double v = strtod (row->fields[t->c[3]], &end);
    if (sf < 1 || !(v >= 0) || !isfinite (v))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: bad scale_factor or steps_per_s",
                             t->name, row->line);
    e.sf = (int)sf;
    e.spread = spread;
    e.steps_per_s = v;
    struct tput *a = realloc (t->r->tp, (t->r->n_tp + 1) * sizeof *a);
    if (!a)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    t->r->tp = a;
    a[t->r->n_tp++] = e;
    return 0;
}

static double tput_of (const struct rd *r, const char *job_type, int sf,
                       int spread)
{
    for (size_t i = 0; i < r->n_tp; i++)
        if (r->tp[i].sf == sf && r->tp[i].spread == spread
            && strcmp (r->tp[i].job_type, job_type) == 0)
            return r->tp[i].steps_per_s;
    return 0;
}

/* Gavel rows: 7 fields (msr: job_type, command, num_steps_arg,
 * needs_data_dir, total_steps, arrival_time, scale_factor) or 10
 * (physical_cluster: job_type, command, working_directory, num_steps_arg,
 * needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
 * arrival_time).  Run time = total_steps / isolated throughput.
 */
static int gavel_row (struct rd *r, const struct gp_csv_row *row,
                      struct gp_job *j, gp_error_t *err)
{
    int i_steps, i_arr, i_sf;
    if (row->n_fields == 7) {
        i_steps = 4;
        i_arr = 5;
        i_sf = 6;
    } else if (row->n_fields == 10) {
        i_steps = 5;
        i_sf = 6;
        i_arr = 9;
    } else
        return bad (r, row, err, NULL,
                    "%zu tab-separated fields; a Gavel trace has 7 or 10",
                    row->n_fields);
    r->col[C_GPUS] = i_sf;
    r->col[C_SUBMIT] = i_arr;
    r->col[C_DURATION] = i_steps;
    int rc;
    double steps;
    if ((rc = integer (r, row, err, C_GPUS, "scale_factor", 0, 1e6,
                       &j->n_gpus)))
        return rc;
    if ((rc = num (r, row, err, C_SUBMIT, "arrival_time", 0, 1e12,
                   &j->submit_s)))
        return rc;
    if ((rc = num (r, row, err, C_DURATION, "total_steps", 0, 1e15, &steps)))
        return rc;
    if (j->n_gpus == 0)
        return 1;
    const char *jt = row->fields[0];
    double t = tput_of (r, jt, j->n_gpus, 0);
    if (!(t > 0))
        return bad (r, row, err, "job_type",
                    "no throughput for ('%s', %d) on %s in the throughput "
                    "table",
                    jt, j->n_gpus, r->gpu);
    j->duration_s = steps / t;
    double ts = tput_of (r, jt, j->n_gpus, 1);
    if (j->n_gpus > 1 && ts > 0 && t > ts)
        j->comm_share = t / ts - 1;
    j->team = r->default_team;
    return 0;
}


struct pload {
    struct papp *app;
    const char *name;
    double last_iter;
    int c[3];
    int validation;
};

static int on_prof (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct pload *l = arg;
    if (row->index == 0) {
        static const char *const pc[] = {"placement", "local_bsz",
                                         "step_time"};
        static const char *const vc[] = {"iteration", "iteration",
                                         "iteration"};
        for (int i = 0; i < 3; i++)
            if ((l->c[i] = gp_csv_col (row, (l->validation ? vc : pc)[i]))
                < 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: header: missing column '%s'",
                                     l->name, row->line,
                                     (l->validation ? vc : pc)[i]);
        return 0;
    }
    if (row->n_fields < 3)
        return gp_errprintf (err, GP_EPARSE, "%s:%zu: too few fields",
                             l->name, row->line);
    if (l->validation) {
        l->last_iter = strtod (row->fields[l->c[0]], NULL);
        return 0;
    }
    struct prow pr;
    snprintf (pr.placement, sizeof pr.placement, "%s", row->fields[l->c[0]]);
    pr.local_bsz = strtod (row->fields[l->c[1]], NULL);
    pr.step_time = strtod (row->fields[l->c[2]], NULL);
    if (!(pr.local_bsz > 0) || !(pr.step_time > 0))
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: local_bsz and step_time must be > 0",
                             l->name, row->line);
    struct prow *a =
        realloc (l->app->rows, (l->app->n_rows + 1) * sizeof *a);
    if (!a)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    l->app->rows = a;
    a[l->app->n_rows++] = pr;
    return 0;
}

static struct papp *pollux_app (struct rd *r, const char *app,
                                gp_error_t *err)
{
    for (size_t i = 0; i < r->n_apps; i++)
        if (strcmp (r->apps[i].name, app) == 0)
            return &r->apps[i];
    if (strlen (app) >= sizeof r->apps[0].name || strchr (app, '/')
        || !*app) {
        gp_errprintf (err, GP_EPARSE, "bad application name '%s'", app);
        return NULL;
    }
    struct papp *a = realloc (r->apps, (r->n_apps + 1) * sizeof *a);
    if (!a) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    r->apps = a;
    struct papp *p = &a[r->n_apps++];
    memset (p, 0, sizeof *p);
    snprintf (p->name, sizeof p->name, "%s", app);
    char path[1024];
    snprintf (path, sizeof path, "%s/%s/placements.csv",
              r->opts->pollux_profiles, app);
    struct pload l = {p, path, 0, {0}, 0};
    if (gp_csv_parse_file (path, ',', on_prof, &l, err))
        return NULL;
    return p;
}

/* Step time of 'app' on placement 'pl' at per-GPU batch 'b': linear
 * interpolation between the measured batch sizes (clamped at the ends);
 * 0 when the placement was not measured.
 */
static double step_time_of (const struct papp *p, const char *pl, double b)
{
    const struct prow *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < p->n_rows; i++) {
        const struct prow *x = &p->rows[i];
        if (strcmp (x->placement, pl) != 0)
            continue;
        if (x->local_bsz <= b && (!lo || x->local_bsz > lo->local_bsz))
            lo = x;
        if (x->local_bsz >= b && (!hi || x->local_bsz < hi->local_bsz))
            hi = x;
    }
    if (!lo && !hi)
        return 0;
    if (!lo)
        return hi->step_time;
    if (!hi || hi->local_bsz == lo->local_bsz)
        return lo->step_time;
    double f = (b - lo->local_bsz) / (hi->local_bsz - lo->local_bsz);
    return lo->step_time + f * (hi->step_time - lo->step_time);
}

/* Pollux/Sia workload row: name, time, application, num_replicas,
 * batch_size.  Run time = iterations to the application's last epoch at
 * that batch size (last row of validation-<batch>.csv) x the measured step
 * time on the consolidated placement of num_replicas GPUs on 4-GPU nodes
 * at per-GPU batch batch_size / num_replicas (fixed-batch "TunedJobs"
 * setting; Pollux's adaptive batch sizes are not modelled).
 */
static int pollux_row (struct rd *r, const struct gp_csv_row *row,
                       struct gp_job *j, gp_error_t *err)
{
    int rc, batch;
    if ((rc = num (r, row, err, C_SUBMIT, "time", 0, 1e12, &j->submit_s)))
        return rc;
    if ((rc = integer (r, row, err, C_GPUS, "num_replicas", 0, 1e6,
                       &j->n_gpus)))
        return rc;
    if ((rc = integer (r, row, err, C_PRIO, "batch_size", 1, 1e9, &batch)))
        return rc;
    if (j->n_gpus == 0)
        return 1;
    const char *app = field (r, row, C_TEAM);
    gp_error_t e;
    struct papp *p = pollux_app (r, app ? app : "", &e);
    if (!p)
        return bad (r, row, err, "application", "%s", e.text);
    /* Consolidated placement: the remainder node first, then full 4-GPU
     * nodes ("24" = 6 GPUs), as the profiles spell placements.
     */
    char pl[16], spread[16];
    int n = j->n_gpus, q = n / 4, rem = n % 4, k = 0;
    if (q + (rem > 0) >= (int)sizeof pl)
        return bad (r, row, err, "num_replicas",
                    "%d GPUs: no measured placement", n);
    if (rem)
        pl[k++] = (char)('0' + rem);
    while (q-- > 0)
        pl[k++] = '4';
    pl[k] = '\0';
    double b = (double)batch / n;
    double st = step_time_of (p, pl, b);
    if (!(st > 0))
        return bad (r, row, err, "num_replicas",
                    "%d GPUs: placement '%s' not measured for %s", n, pl,
                    app);
    char path[1024];
    snprintf (path, sizeof path, "%s/%s/validation-%d.csv",
              r->opts->pollux_profiles, app, batch);
    struct pload l = {p, path, 0, {0}, 1};
    if (gp_csv_parse_file (path, ',', on_prof, &l, &e) || !(l.last_iter > 0))
        return bad (r, row, err, "batch_size",
                    "no training curve for %s at batch size %d (%s)", app,
                    batch, e.text);
    j->duration_s = l.last_iter * st;
    /* Spread placement (one GPU per node) measured up to 4 GPUs. */
    if (n > 1 && n <= 4) {
        for (k = 0; k < n; k++)
            spread[k] = '1';
        spread[k] = '\0';
        double ss = step_time_of (p, spread, b);
        if (ss > st)
            j->comm_share = ss / st - 1;
    }
    j->team = r->default_team;
    return 0;
}

/* One data row of the current format into 'j'.  Returns 0, 1 to ignore
 * the row by design (counted), or a negative error.
 */
static int read_row (struct rd *r, const struct gp_csv_row *row,
                     struct gp_job *j, gp_error_t *err)
{
    int rc;
    double v;
    if (r->fmt == GP_TRACE_GAVEL)
        return gavel_row (r, row, j, err);
    if (r->fmt == GP_TRACE_POLLUX) {
        if (row->n_fields != r->n_fields)
            return bad (r, row, err, NULL,
                        "%zu fields where the header has %zu",
                        row->n_fields, r->n_fields);
        return pollux_row (r, row, j, err);
    }
    if (row->n_fields != r->n_fields)
        return bad (r, row, err, NULL,
                    "%zu fields where the header has %zu", row->n_fields,
                    r->n_fields);
    switch (r->fmt) {
    case GP_TRACE_GENERIC: {
        const char *id = field (r, row, C_ID);
        if (id && *id) {
            char *end;
            errno = 0;
            long long x = strtoll (id, &end, 10);
            if (*end || errno)
                return bad (r, row, err, "id", "'%s' is not an integer", id);
            j->id = x;
        }
        if ((rc = dur (r, row, err, C_SUBMIT, "submit", &j->submit_s)))
            return rc;
        if ((rc = dur (r, row, err, C_DURATION, "duration", &j->duration_s)))
            return rc;
        if ((rc = integer (r, row, err, C_GPUS, "gpus", 0, 1e6, &j->n_gpus)))
            return rc;
        const char *s = field (r, row, C_TEAM);
        if ((j->team = team_of (r, s)) < 0)
            return GP_ENOMEM;
        s = field (r, row, C_PRIO);
        if (s && *s
            && (rc = integer (r, row, err, C_PRIO, "priority", -1e6, 1e6,
                              &j->priority)))
            return rc;
        s = field (r, row, C_MILLI);
        if (s && *s
            && (rc = integer (r, row, err, C_MILLI, "gpu_milli", 1, 1000,
                              &j->gpu_milli)))
            return rc;
        s = field (r, row, C_POOL);
        if (s && *s && (j->pool = gp_jobset_pool (r->js, s)) < 0)
            return GP_ENOMEM;
        s = field (r, row, C_CKPT);
        if (s && *s
            && (rc = dur (r, row, err, C_CKPT, "checkpoint_interval",
                          &j->ckpt_interval_s)))
            return rc;
        s = field (r, row, C_COMM);
        if (s && *s
            && (rc = num (r, row, err, C_COMM, "comm_share", 0, 100,
                          &j->comm_share)))
            return rc;
        if (j->gpu_milli < 1000 && j->n_gpus > 1)
            return bad (r, row, err, "gpu_milli",
                        "a GPU share below 1000 needs gpus = 1");
        break;
    }
    case GP_TRACE_PHILLY: {
        const char *ts = field (r, row, C_SUBMIT);
        j->submit_s = ts ? parse_datetime (ts) : -1;
        if (j->submit_s < 0)
            return bad (r, row, err, "timestamp",
                        "'%s' is not YYYY-MM-DD HH:MM:SS", ts ? ts : "");
        if ((rc = num (r, row, err, C_DURATION, "duration", 0, 1e10,
                       &j->duration_s)))
            return rc;
        if ((rc = integer (r, row, err, C_GPUS, "num_gpus", 0, 1e6,
                           &j->n_gpus)))
            return rc;
        if ((j->team = team_of (r, field (r, row, C_TEAM))) < 0)
            return GP_ENOMEM;
        break;
    }
    case GP_TRACE_TIRESIAS: {
        int id;
        if ((rc = integer (r, row, err, C_ID, "job_id", 0, 2e9, &id)))
            return rc;
        j->id = id;
        if ((rc = integer (r, row, err, C_GPUS, "num_gpu", 0, 1e6,
                           &j->n_gpus)))
            return rc;
        if ((rc = num (r, row, err, C_SUBMIT, "submit_time", 0, 1e12,
                       &j->submit_s)))
            return rc;
        if ((rc = num (r, row, err, C_DURATION, "duration", 0, 1e12,
                       &j->duration_s)))
            return rc;
        j->team = r->default_team;
        break;
    }
    case GP_TRACE_ALIBABA2023: {
        const char *id = field (r, row, C_ID);
        const char *dash = id ? strrchr (id, '-') : NULL;
        if (dash) {
            char *end;
            long long x = strtoll (dash + 1, &end, 10);
            if (!*end && end != dash + 1)
                j->id = x;
        }
        if ((rc = integer (r, row, err, C_GPUS, "num_gpu", 0, 1024,
                           &j->n_gpus)))
            return rc;
        if ((rc = integer (r, row, err, C_MILLI, "gpu_milli", 0, 1000,
                           &j->gpu_milli)))
            return rc;
        if (j->n_gpus == 0)
            j->gpu_milli = 1000;
        else if (j->gpu_milli == 0)
            return bad (r, row, err, "gpu_milli",
                        "0 for a pod that requests GPUs");
        double del, sch;
        if ((rc = num (r, row, err, C_SUBMIT, "creation_time", 0, 1e12,
                       &j->submit_s)))
            return rc;
        const char *sc = field (r, row, C_START);
        if (sc && !*sc)
            return 1; /* never scheduled (Pending at collection): no run */
        if ((rc = num (r, row, err, C_START, "scheduled_time", 0, 1e12,
                       &sch)))
            return rc;
        if ((rc = num (r, row, err, C_DELETE, "deletion_time", 0, 1e12,
                       &del)))
            return rc;
        if (del < sch)
            return bad (r, row, err, "deletion_time",
                        "%.0f is before scheduled_time %.0f", del, sch);
        j->duration_s = del - sch;
        if ((j->team = team_of (r, field (r, row, C_TEAM))) < 0)
            return GP_ENOMEM;
        break;
    }
    case GP_TRACE_SACCT: {
        const char *id = field (r, row, C_ID);
        if (!id || !*id)
            return bad (r, row, err, "JobID", "missing value");
        if (strchr (id, '.'))
            return 1; /* job step (123.batch, 123.0): not a job */
        char *end;
        long long x = strtoll (id, &end, 10);
        if (end == id)
            return bad (r, row, err, "JobID", "'%s' is not a job id", id);
        j->id = x;
        const char *st = field (r, row, C_START);
        if (!st || !strcmp (st, "Unknown") || !strcmp (st, "None") || !*st)
            return 1; /* never started (pending, cancelled before start) */
        const char *sub = field (r, row, C_SUBMIT);
        j->submit_s = sub ? parse_datetime (sub) : -1;
        if (j->submit_s < 0)
            return bad (r, row, err, "Submit",
                        "'%s' is not YYYY-MM-DDTHH:MM:SS", sub ? sub : "");
        const char *el = field (r, row, C_ELAPSED);
        j->duration_s = el ? parse_elapsed (el) : -1;
        if (j->duration_s < 0)
            return bad (r, row, err, "Elapsed", "'%s' is not [D-]HH:MM:SS",
                        el ? el : "");
        const char *tres = field (r, row, C_ALLOC);
        int g = tres && *tres ? tres_gpus (tres) : 0;
        if (g < 0)
            return bad (r, row, err, "AllocTRES", "bad gres/gpu in '%s'",
                        tres);
        if (g == 0) {
            tres = field (r, row, C_REQ);
            g = tres && *tres ? tres_gpus (tres) : 0;
            if (g < 0)
                return bad (r, row, err, "ReqTRES", "bad gres/gpu in '%s'",
                            tres);
        }
        j->n_gpus = g;
        if ((j->team = team_of (r, field (r, row, C_TEAM))) < 0)
            return GP_ENOMEM;
        break;
    }
    default:
        return gp_errprintf (err, GP_ENOTSUP,
                             "%s: the %s format is not yet supported",
                             r->name, format_names[r->fmt]);
    }
    if (j->duration_s <= 0)
        return 1; /* zero-length jobs take no GPU time: ignored, counted */
    if (j->n_gpus == 0 && !(r->opts->flags & GP_TRACE_KEEP_ZERO))
        return 1;
    (void)v;
    return 0;
}

static int on_row (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct rd *r = arg;
    if (row->index == 0 && r->fmt != GP_TRACE_GAVEL) {
        const struct colname *cols = NULL;
        switch (r->fmt) {
        case GP_TRACE_GENERIC: cols = generic_cols; break;
        case GP_TRACE_PHILLY: cols = philly_cols; r->rebase = 1; break;
        case GP_TRACE_TIRESIAS: cols = tiresias_cols; break;
        case GP_TRACE_POLLUX: cols = pollux_cols; break;
        case GP_TRACE_ALIBABA2023: cols = alibaba_cols; break;
        case GP_TRACE_SACCT: cols = sacct_cols; r->rebase = 1; break;
        default:
            return gp_errprintf (err, GP_ENOTSUP,
                                 "%s: the %s format is not yet supported "
                                 "by the simulator's reader",
                                 r->name, format_names[r->fmt]);
        }
        if ((r->fmt == GP_TRACE_TIRESIAS || r->fmt == GP_TRACE_POLLUX)
            && (r->default_team = gp_jobset_team (r->js, "default")) < 0)
            return GP_ENOMEM;
        return map_header (r, row, cols, err);
    }
    if (r->opts->limit && r->js->n_jobs >= r->opts->limit)
        return 0;
    struct gp_job j;
    job_init (&j, row->line,
              r->fmt == GP_TRACE_GAVEL ? row->index : row->index - 1);
    gp_error_t e = {0};
    int rc = read_row (r, row, &j, &e);
    if (rc == 1) {
        r->js->n_ignored++;
        return 0;
    }
    if (rc == GP_EPARSE && (r->opts->flags & GP_TRACE_SKIP_BAD)) {
        if (r->js->n_skipped++ == 0)
            memcpy (r->js->first_skip, e.text, sizeof r->js->first_skip);
        return 0;
    }
    if (rc) {
        if (err)
            *err = e;
        return rc;
    }
    if (gp_jobset_add (r->js, &j) != 0)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    return 0;
}

static struct gp_jobset *finish (struct rd *r, int rc, gp_error_t *err)
{
    free (r->tp);
    r->tp = NULL;
    for (size_t i = 0; i < r->n_apps; i++)
        free (r->apps[i].rows);
    free (r->apps);
    r->apps = NULL;
    r->n_apps = 0;
    if (rc == 0 && r->js->n_jobs == 0 && r->js->n_skipped == 0
        && r->js->n_ignored == 0)
        rc = gp_errprintf (err, GP_EPARSE, "%s: no jobs (empty trace)",
                           r->name);
    if (rc) {
        gp_jobset_destroy (r->js);
        return NULL;
    }
    if (r->rebase && r->js->n_jobs) {
        double t0 = r->js->jobs[0].submit_s;
        for (size_t i = 1; i < r->js->n_jobs; i++)
            if (r->js->jobs[i].submit_s < t0)
                t0 = r->js->jobs[i].submit_s;
        for (size_t i = 0; i < r->js->n_jobs; i++)
            r->js->jobs[i].submit_s -= t0;
    }
    snprintf (r->js->format, sizeof r->js->format, "%s",
              format_names[r->fmt]);
    return r->js;
}

static int setup (struct rd *r, const char *name,
                  const struct gp_trace_opts *opts, const char *head,
                  size_t len, gp_error_t *err)
{
    static const struct gp_trace_opts defaults = {.format = GP_TRACE_AUTO};
    memset (r, 0, sizeof *r);
    r->opts = opts ? opts : &defaults;
    r->name = name;
    r->fmt = r->opts->format;
    if (r->fmt == GP_TRACE_AUTO)
        r->fmt = gp_trace_detect (head, len);
    if (r->fmt == GP_TRACE_POLLUX && !r->opts->pollux_profiles)
        return gp_errprintf (err, GP_EINVAL,
                             "%s: a Pollux/Sia workload has no run times: "
                             "give the application profiles "
                             "(--pollux-profiles DIR, e.g. "
                             "traces/pollux/profiles)",
                             name);
    r->js = gp_jobset_create ();
    if (!r->js)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    if (r->fmt == GP_TRACE_GAVEL) {
        if (!r->opts->gavel_throughputs) {
            gp_jobset_destroy (r->js);
            return gp_errprintf (err, GP_EINVAL,
                                 "%s: a Gavel trace gives steps, not "
                                 "seconds: give the throughput table "
                                 "(--gavel-throughputs FILE, e.g. "
                                 "traces/gavel/throughputs.csv)",
                                 name);
        }
        r->gpu = r->opts->gavel_gpu ? r->opts->gavel_gpu : "v100";
        struct tload t = {r, r->opts->gavel_throughputs, {0}};
        int rc = gp_csv_parse_file (r->opts->gavel_throughputs, ',', on_tput,
                                    &t, err);
        if (!rc && r->n_tp == 0)
            rc = gp_errprintf (err, GP_ENOTFOUND,
                               "%s: no throughputs for GPU type '%s'",
                               r->opts->gavel_throughputs, r->gpu);
        if (!rc && (r->default_team = gp_jobset_team (r->js, "default")) < 0)
            rc = gp_errprintf (err, GP_ENOMEM, "out of memory");
        if (rc) {
            free (r->tp);
            gp_jobset_destroy (r->js);
            return rc;
        }
    }
    return 0;
}

struct gp_jobset *gp_trace_parse (const char *data, size_t len,
                                  const char *name,
                                  const struct gp_trace_opts *opts,
                                  gp_error_t *err)
{
    if (!data || !name) {
        gp_errprintf (err, GP_EINVAL, "gp_trace_parse: NULL argument");
        return NULL;
    }
    struct rd r;
    if (setup (&r, name, opts, data, len, err))
        return NULL;
    char delim = r.fmt == GP_TRACE_SACCT   ? '|'
                 : r.fmt == GP_TRACE_GAVEL ? '\t'
                                           : ',';
    int rc = gp_csv_parse (data, len, name, delim, on_row, &r, err);
    return finish (&r, rc, err);
}

struct gp_jobset *gp_trace_read (const char *path,
                                 const struct gp_trace_opts *opts,
                                 gp_error_t *err)
{
    if (!path) {
        gp_errprintf (err, GP_EINVAL, "gp_trace_read: NULL argument");
        return NULL;
    }
    FILE *f = fopen (path, "rb");
    if (!f) {
        gp_errprintf (err, GP_EIO, "%s: %s", path, strerror (errno));
        return NULL;
    }
    char head[1024];
    size_t n = fread (head, 1, sizeof head, f);
    fclose (f);
    struct rd r;
    if (setup (&r, path, opts, head, n, err))
        return NULL;
    char delim = r.fmt == GP_TRACE_SACCT   ? '|'
                 : r.fmt == GP_TRACE_GAVEL ? '\t'
                                           : ',';
    int rc = gp_csv_parse_file (path, delim, on_row, &r, err);
    return finish (&r, rc, err);
}
