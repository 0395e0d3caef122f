/* gpuplan/report.h - renderers of a capacity plan: plain text, Markdown,
 * a self-contained HTML page with inline SVG charts, and JSON with the
 * schema of docs/formats/plan.md.
 *
 * Renderers compute nothing: every number comes from the plan result.
 * Output is deterministic (no clock, no locale, fixed number formats).
 */
#ifndef GPUPLAN_REPORT_H
#define GPUPLAN_REPORT_H

#include "gpuplan/error.h"
#include "gpuplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_report_format {
    GP_REPORT_TEXT,
    GP_REPORT_MD,
    GP_REPORT_HTML,
    GP_REPORT_JSON,
};

/* The name of 'f' ("text", "md", "html", "json"); "?" outside the enum.
 * Static storage.
 */
const char *gp_report_format_str (enum gp_report_format f);

/* Parse a format name 's' (the names above, case-insensitive, or
 * "markdown") into '*out'.  Returns 0, or GP_EINVAL with 'err' listing the
 * valid names ('*out' untouched).
 */
int gp_report_format_parse (const char *s,
                            enum gp_report_format *out,
                            gp_error_t *err);

/* The JSON document of 'r' (docs/formats/plan.md); the caller releases it
 * with json_decref().  NULL when 'r' is NULL or on allocation failure.
 */
struct json_t *gp_report_json (const struct gp_plan_result *r);

/* Render 'r' in format 'f': text and Markdown list the report's sections
 * in order, HTML is one self-contained page whose details are the same
 * sections, JSON is gp_report_json() indented.  Returns a NUL-terminated
 * string the caller must free(), or NULL with 'err' set (GP_EINVAL: 'r'
 * NULL or 'f' unknown; GP_ENOMEM).
 */
char *gp_report_render (const struct gp_plan_result *r,
                        enum gp_report_format f,
                        gp_error_t *err);

/* A short summary for terminals, e.g. after writing the full report to a
 * file: one line per option, then the report's executive summary (the
 * recommendation and its cost range, the runner-up, the top risks and
 * the decisions to take).  Returns a string the
 * caller frees, or NULL with 'err' set (GP_EINVAL, GP_ENOMEM).
 */
char *gp_report_summary (const struct gp_plan_result *r, gp_error_t *err);

/* Scenario diff (diff.c; docs/formats/diff.md): compare two plan results
 * given as their JSON documents ('a' before, 'b' after: gp_report_json()
 * or the output of `gpuplan plan --json`), field by field, never rendered
 * text.  The diff says what changed in the inputs and assumptions, in each
 * option's numbers (matched by option name) and whether and why the
 * recommendation moved.  Returns a new JSON object the caller releases
 * with json_decref(), or NULL with 'err' set (GP_EINVAL: NULL or not plan
 * results, naming the JSON path; GP_ENOMEM).
 */
struct json_t *gp_plan_diff (const struct json_t *a, const struct json_t *b,
                             gp_error_t *err);

/* Render a diff from gp_plan_diff() as text, Markdown, HTML (a fragment)
 * or JSON.  Returns a string the caller frees, or NULL with 'err' set.
 */
char *gp_plan_diff_render (const struct json_t *diff,
                           enum gp_report_format f, gp_error_t *err);

/* A sweep (gp_plan_sweep_run, plan.h) as JSON: {"sweep": {key, from,
 * to, steps, reuse, points: [{value, recommended, tco_usd, gpus,
 * feasible_options, changed, status}], changes: [...]}}
 * (docs/formats/plan.md, "Overrides and sweeps").  The caller releases it with json_decref(); NULL when 'sw'
 * is NULL or on allocation failure.
 */
struct json_t *gp_plan_sweep_json (const struct gp_plan_sweep *sw);

/* Render a sweep as a table (text, Markdown, HTML fragment) with the
 * values where the recommendation changes, or as JSON
 * (gp_plan_sweep_json).  Returns a string the caller frees, or NULL with
 * 'err' set (GP_EINVAL, GP_ENOMEM).
 */
char *gp_plan_sweep_render (const struct gp_plan_sweep *sw,
                            enum gp_report_format f, gp_error_t *err);

/* An aligned plain-text table for front ends: columns two spaces apart,
 * numeric-looking cells (optionally after '$' or '-') right-aligned below
 * the header, the last column not padded.  create/add copy the 'n_cols'
 * cells (NULL = ""); take returns the table as text (caller frees) and
 * frees 't', or NULL with 'err' set (GP_ENOMEM, also after an earlier
 * allocation failure in create/add; 't' NULL gives GP_ENOMEM).
 */
struct gp_text_table;
struct gp_text_table *gp_text_table_create (size_t n_cols,
                                            const char *const *heads);
void gp_text_table_add (struct gp_text_table *t, const char *const *cells);
char *gp_text_table_take (struct gp_text_table *t, gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_REPORT_H */
