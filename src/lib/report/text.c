/* text.c - the plan report as plain text or Markdown: the title, the
 * executive summary (summary.c), then every report section in order
 * (sections.c); the two formats differ only in the writer's syntax.
 */
#include <stdio.h>

#include "report_private.h"

static void title (struct rout *out, const struct gp_plan_result *r)
{
    struct rbuf *b = out->b;
    if (out->fmt == ROUT_MD) {
        gp_rb_printf (b, "# Capacity plan: ");
        gp_rb_md (b, r->name, 0);
        gp_rb_printf (b, "\n\n");
        gp_rb_printf (b, "%zu options over %.3g years (%zu months).\n",
                      r->n_options, r->horizon_years, r->n_periods);
    } else {
        gp_rb_printf (b, "capacity plan %s: %zu options over %.3g years\n",
                      r->name, r->n_options, r->horizon_years);
    }
}

void gp_report_textual (struct rbuf *b, const struct gp_plan_result *r,
                        int md)
{
    struct rout out;
    if (gp_rout_init (&out, b, md ? ROUT_MD : ROUT_TEXT) != 0)
        return;
    title (&out, r);
    gp_report_exec_summary (&out, r);
    gp_report_options (&out, r);
    gp_report_availability (&out, r);
    gp_report_curve (&out, r);
    for (size_t i = 0; gp_report_details[i]; i++)
        gp_report_details[i](&out, r);
    gp_report_assumptions (&out, r);
    gp_report_sources (&out, r);
    gp_rout_fini (&out);
}
