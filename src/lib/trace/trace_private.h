/* trace_private.h - what the trace readers share: the reader state, the
 * field helpers, and the ops table of one trace format.  Nothing here is
 * public.
 */
#ifndef GPUPLAN_TRACE_PRIVATE_H
#define GPUPLAN_TRACE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/csv.h"
#include "gpuplan/trace.h"

enum col {
    C_ID, C_SUBMIT, C_DURATION, C_GPUS, C_TEAM, C_PRIO, C_MILLI, C_POOL,
    C_CKPT, C_COMM, C_START, C_END, C_STATE, C_ALLOC, C_REQ, C_ELAPSED,
    C_DELETE, C_RAW, C_QOS, C_N
};

/* Hash index of a name table of the job set (teams or pools): slots hold
 * index + 1 into the table, 0 = empty; open addressing, at most half full.
 * Lets a reader intern a name per row in O(1) whatever the number of
 * distinct names (sacct accounts, Alibaba QoS classes, user names).
 */
struct nameidx {
    uint32_t *slot;
    size_t cap;
};

struct rd {
    struct gp_jobset *js;
    struct nameidx team_idx, pool_idx;
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


struct colname {
    enum col c;
    const char *name;
    int required;
};


/* One trace format: one file each (fmt_<name>.c), listed in trace.c. */
struct gp_trace_format_ops {
    enum gp_trace_format id;
    char delim;                  /* field separator */
    int rebase;                  /* absolute dates: earliest submit = 0 */
    int default_team;            /* jobs have no team: all in "default" */
    const struct colname *cols;  /* header columns; NULL = no header row,
                                    job ids count from the first row */
    /* Whether the header line 'head' is this format's; NULL = never
     * (chosen explicitly or as the fallback).
     */
    int (*detect) (const char *head);
    /* Optional: load what the format needs before the rows (after the job
     * set exists); 0 or an error.
     */
    int (*setup) (struct rd *r, gp_error_t *err);
    /* One data row into 'j' (the width is checked before when 'cols' is
     * set): 0, 1 to ignore the row by design (counted), or an error.
     */
    int (*row) (struct rd *r, const struct gp_csv_row *row, struct gp_job *j,
                gp_error_t *err);
    void (*fini) (struct rd *r); /* optional: free what setup/row loaded */
};

extern const struct gp_trace_format_ops gp__trace_generic;
extern const struct gp_trace_format_ops gp__trace_philly;
extern const struct gp_trace_format_ops gp__trace_tiresias;
extern const struct gp_trace_format_ops gp__trace_pollux;
extern const struct gp_trace_format_ops gp__trace_gavel;
extern const struct gp_trace_format_ops gp__trace_alibaba2023;
extern const struct gp_trace_format_ops gp__trace_sacct;

/* ---- field helpers (fields.c); errors name "file:line: column 'x'" */
void gp__tr_job_init (struct gp_job *j, size_t line, size_t index);
/* Field of column 'c' in 'row', NULL when the column is absent. */
const char *gp__tr_field (const struct rd *r, const struct gp_csv_row *row,
                          enum col c);
int gp__tr_bad (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, const char *col, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));
int gp__tr_num (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, enum col c, const char *colname, double lo,
                double hi, double *out);
int gp__tr_integer (const struct rd *r, const struct gp_csv_row *row,
                    gp_error_t *err, enum col c, const char *colname,
                    double lo, double hi, int *out);
int gp__tr_dur (const struct rd *r, const struct gp_csv_row *row,
                gp_error_t *err, enum col c, const char *colname,
                double *out);
/* Seconds since 1970 of "YYYY-MM-DD[ T]HH:MM:SS", or -1. */
double gp__tr_datetime (const char *s);
/* Seconds of a Slurm elapsed time "[D-]HH:MM:SS" (or MM:SS), or -1. */
double gp__tr_elapsed (const char *s);
/* GPUs of a TRES string ("gres/gpu=4,..."), 0 if none, -1 if bad. */
int gp__tr_tres_gpus (const char *s);
/* Resolve the columns of 'cols' in the header row. */
int gp__tr_map_header (struct rd *r, const struct gp_csv_row *row,
                       const struct colname *cols, gp_error_t *err);
/* Offset of the first byte of 's' that is not part of valid UTF-8 (RFC
 * 3629: no overlong forms, surrogates or code points past U+10FFFF), or
 * -1 when 's' is valid.
 */
long gp__tr_utf8_bad (const char *s);
/* The names a row contributes (team, pool) must be valid UTF-8: they are
 * written to JSON.  0, or an error naming the column and the byte.
 */
int gp__tr_check_names (const struct rd *r, const struct gp_csv_row *row,
                        const struct colname *cols, gp_error_t *err);
/* Index of 'name' in the job set's teams (pool = 0) or pools (pool = 1),
 * added when new; -1 on allocation failure.
 */
int gp__tr_intern (struct rd *r, int pool, const char *name);
/* Team index of 'name' ("default" when empty); -1 on allocation failure. */
int gp__tr_team (struct rd *r, const char *name);
/* The checks shared by the CSV formats after a row is read: 1 (ignored)
 * for a zero-length job or, unless kept, a 0-GPU job; else 0.
 */
int gp__tr_keep_check (const struct rd *r, const struct gp_job *j);

/* ---- csv_fast.c: gp_csv_parse / gp_csv_parse_file with plain lines
 * split in place (the same rows, line numbers and messages). */
int gp__tr_csv_parse (const char *data, size_t len, const char *name,
                      char delim, gp_csv_row_f cb, void *arg,
                      gp_error_t *err);
int gp__tr_csv_parse_file (const char *path, char delim, gp_csv_row_f cb,
                           void *arg, gp_error_t *err);

#endif
