/* report_private.h - shared by the renderers. */
#ifndef GPUPLAN_REPORT_PRIVATE_H
#define GPUPLAN_REPORT_PRIVATE_H

#include <stddef.h>

#include "gpuplan/plan.h"
#include "gpuplan/report.h"
#include "gpuplan/units.h"

/* A growable output buffer; 'failed' sticks after an allocation failure. */
struct rbuf {
    char *buf;
    size_t len, cap;
    int failed;
};

int rb_printf (struct rbuf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* The text (caller frees), or NULL + err after a failure. */
char *rb_take (struct rbuf *b, gp_error_t *err);

const char *fmt_usd (double v, char *buf, size_t n);

/* Footnote of the sensitivity table in every format. */
#define SENS_NOTE                                                          \
    "GPU counts are whole nodes on the planner's node grid (1, 1.25, 1.5, " \
    "1.75 x 2^j nodes per training run), so a factor that does not move "  \
    "a run to another grid step leaves the TCO unchanged (e.g. MFU x1.20 " \
    "can give exactly the base TCO)"

/* The supporting nodes are counted, not costed. */
#define NODES_NOTE                                                         \
    "head, management and CPU nodes are listed for the design but not "   \
    "costed: their capex, power and cloud node-hours are not in the TCO"
const char *fmt_q (double v, enum gp_quantity q, char *buf, size_t n);
const char *option_status (const struct gp_plan_option *o);

void report_html (struct rbuf *b, const struct gp_plan_result *r);

#endif
