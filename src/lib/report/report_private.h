/* report_private.h - shared by the plan report's renderers: the output
 * buffer, the writer that gives one section function text, Markdown or
 * HTML, and the report sections themselves (functions over the plan
 * result; sections.c).  Internal to the report module.
 */
#ifndef GPUPLAN_REPORT_PRIVATE_H
#define GPUPLAN_REPORT_PRIVATE_H

#include <stddef.h>

#include "gpuplan/plan.h"
#include "gpuplan/units.h"

/* A growable output buffer; 'failed' sticks after an allocation failure. */
struct rbuf {
    char *buf;
    size_t len, cap;
    int failed;
};

int gp_rb_printf (struct rbuf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* 's' with <, >, & and " escaped for HTML. */
void gp_rb_esc (struct rbuf *b, const char *s);
/* 's' for Markdown: '<', '>' and '&' as HTML entities (no raw HTML from a
 * user string), '\\', '`', '[' and ']' backslash-escaped (no code spans or
 * links), line breaks as spaces; 'cell' also escapes '|', '*' and '_'
 * (a table cell stays one cell, no emphasis).
 */
void gp_rb_md (struct rbuf *b, const char *s, int cell);
/* The text (caller frees), or NULL + err after a failure. */
char *gp_rb_take (struct rbuf *b, gp_error_t *err);

/* Aligned plain-text table (text_table.c).  create/add copy the cells
 * (NULL = ""); write appends the table to 'b', frees 't' and returns 0,
 * or -1 after an allocation failure (then 'b' may hold part of it).
 */
struct gp__ttab;
struct gp__ttab *gp__ttab_create (size_t n_cols, const char *const *heads);
void gp__ttab_add (struct gp__ttab *t, const char *const *cells);
int gp__ttab_write (struct gp__ttab *t, struct rbuf *b);

/* Footnote of the sensitivity table in every format. */
#define SENS_NOTE                                                          \
    "GPU counts are whole nodes: a training run takes the fewest whole "   \
    "nodes that meet its deadline, so a factor that does not move a run "  \
    "to another node count leaves the TCO unchanged (e.g. MFU x1.20 can "  \
    "give exactly the base TCO)"

/* The supporting nodes are counted, not costed. */
#define NODES_NOTE                                                         \
    "head, management and CPU nodes are listed for the design but not "   \
    "costed: their capex, power and cloud node-hours are not in the TCO"

/* A quantity in its display unit (units.h) into 'buf'; returns 'buf'. */
const char *gp_report_fmt_q (double v, enum gp_quantity q, char *buf,
                             size_t n);
/* "ok", "infeasible", "incomplete" or "not yet supported". */
const char *gp_report_option_status (const struct gp_plan_option *o);
/* "on-prem", "burst" or "cloud" (static). */
const char *gp_report_option_kind (const struct gp_plan_option *o);

/* ------------------------------ the writer ----------------------------- */

enum rout_fmt {
    ROUT_TEXT,
    ROUT_MD,
    ROUT_HTML,
};

struct rtbl;

/* Where a section writes: headings, tables, list items and notes, each
 * in the syntax of 'fmt'.
 */
struct rout {
    struct rbuf *b;
    enum rout_fmt fmt;
    struct rtbl *t;             /* the table being built (text, Markdown) */
    int in_list;                /* HTML: inside <ul> */
};

/* Set up 'o' to write 'fmt' into 'b'; 0, or -1 when out of memory. */
int gp_rout_init (struct rout *o, struct rbuf *b, enum rout_fmt fmt);
/* Close what is open and free 'o' (not the buffer). */
void gp_rout_fini (struct rout *o);
void gp_rout_heading (struct rout *o, const char *title);
/* Close an open HTML list (before raw HTML after list items). */
void gp_rout_end_list (struct rout *o);
/* A table of 'n' columns (at most 12) with the header 'heads'. */
void gp_rout_table (struct rout *o, const char *const *heads, size_t n);
void gp_rout_row (struct rout *o, const char *const *cells);
void gp_rout_table_end (struct rout *o);
/* A list item; level 1 is an item under the one before. */
void gp_rout_item (struct rout *o, int level, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* A note after a table or list. */
void gp_rout_note (struct rout *o, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* ------------------------------ sections ------------------------------- */

/* One report section: a function over the result. */
typedef void (*gp_report_section_f) (struct rout *o,
                                     const struct gp_plan_result *r);

void gp_report_options (struct rout *o, const struct gp_plan_result *r);
void gp_report_availability (struct rout *o, const struct gp_plan_result *r);
void gp_report_network (struct rout *o, const struct gp_plan_result *r);
void gp_report_sharp (struct rout *o, const struct gp_plan_result *r);
void gp_report_storage (struct rout *o, const struct gp_plan_result *r);
void gp_report_power (struct rout *o, const struct gp_plan_result *r);
void gp_report_cost (struct rout *o, const struct gp_plan_result *r);
void gp_report_price_warnings (struct rout *o,
                               const struct gp_plan_result *r);
void gp_report_infra (struct rout *o, const struct gp_plan_result *r);
void gp_report_tenancy (struct rout *o, const struct gp_plan_result *r);
void gp_report_sensitivity (struct rout *o, const struct gp_plan_result *r);
void gp_report_log (struct rout *o, const struct gp_plan_result *r);
void gp_report_unsupported (struct rout *o, const struct gp_plan_result *r);
void gp_report_assumptions (struct rout *o, const struct gp_plan_result *r);
void gp_report_sources (struct rout *o, const struct gp_plan_result *r);
/* ranges.c: the Ranges section of a sampled plan (nothing when
 * r->ranges is NULL) and its JSON fields, set into the plan document
 * 'root' (struct json_t *) built by plan_json.c.
 */
void gp_report_ranges (struct rout *o, const struct gp_plan_result *r);
struct json_t;
void gp__report_ranges_json (struct json_t *root,
                             const struct gp_plan_result *r);

/* The executive summary (first in every format) and the main training
 * run's GPUs-vs-days table (summary.c), from r->summary and r->curve.
 */
void gp_report_exec_summary (struct rout *o, const struct gp_plan_result *r);
void gp_report_curve (struct rout *o, const struct gp_plan_result *r);
/* The summary's sentences, shared by every format: a risk or a decision
 * in words into 'buf' of 'n' bytes; the JSON kind keywords (static).
 */
void gp__summary_risk_text (const struct gp_plan_result *r,
                            const struct gp_plan_risk *x, char *buf,
                            size_t n);
void gp__summary_decision_text (const struct gp_plan_result *r,
                                const struct gp_plan_decision *d, char *buf,
                                size_t n);
const char *gp__summary_risk_kind (enum gp_plan_risk_kind k);
const char *gp__summary_decision_kind (enum gp_plan_decision_kind k);
/* The JSON "summary" object and "train_curve" (null when none); new
 * references, NULL on allocation failure.
 */
struct json_t *gp__report_summary_json (const struct gp_plan_result *r);
struct json_t *gp__report_curve_json (const struct gp_plan_result *r);

/* The detail sections, in report order, NULL-terminated: the text and
 * Markdown reports list them all, the HTML page under "Details".
 */
extern const gp_report_section_f gp_report_details[];

/* The renderers (text.c, html.c). */
void gp_report_textual (struct rbuf *b, const struct gp_plan_result *r,
                        int md);
void gp_report_html (struct rbuf *b, const struct gp_plan_result *r);

#endif
