/* sim_buf.h - a growable text buffer for the simulation renderers. */
#ifndef GPUPLAN_REPORT_SIM_BUF_H
#define GPUPLAN_REPORT_SIM_BUF_H

#include <stddef.h>

#include "gpuplan/error.h"

/* 'failed' sticks after an allocation failure; later appends do nothing. */
struct gp_sbuf {
    char *p;
    size_t len, cap;
    int failed;
};

void gp_sbuf_printf (struct gp_sbuf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
void gp_sbuf_puts (struct gp_sbuf *b, const char *s);
void gp_sbuf_putc (struct gp_sbuf *b, char c);
/* The text (caller frees; "" when empty), or NULL + GP_ENOMEM. */
char *gp_sbuf_take (struct gp_sbuf *b, gp_error_t *err);

#endif
