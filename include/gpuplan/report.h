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

const char *gp_report_format_str (enum gp_report_format f);
int gp_report_format_parse (const char *s,
                            enum gp_report_format *out,
                            gp_error_t *err);

/* The JSON document of 'r' (docs/formats/plan.md); the caller releases it
 * with json_decref().  NULL on allocation failure.
 */
struct json_t *gp_report_json (const struct gp_plan_result *r);

/* Render 'r' in format 'f'.  Returns a NUL-terminated string the caller
 * must free(), or NULL with 'err' set (GP_ENOMEM).
 */
char *gp_report_render (const struct gp_plan_result *r,
                        enum gp_report_format f,
                        gp_error_t *err);

/* A short summary (recommendation and one line per option) for terminals,
 * e.g. after writing the full report to a file.  Caller frees.
 */
char *gp_report_summary (const struct gp_plan_result *r, gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_REPORT_H */
