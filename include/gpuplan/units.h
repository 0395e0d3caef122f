/* gpuplan/units.h - parse and format the quantities users write.
 *
 * Every quantity is held in one canonical SI unit inside gpuplan:
 *
 *   kind               canonical unit   accepted input (examples)
 *   GP_Q_BYTES         byte             80GB 80GiB 2TB 512MiB 1.5 TB 1024
 *   GP_Q_BANDWIDTH     byte/s           3.35TB/s 900GB/s 400Gbps 400Gb/s 25GiB/s
 *   GP_Q_FLOPS         FLOP/s           989TFLOPS 989.4 TFLOP/s 1.2PFLOP/s 2e15
 *   GP_Q_COUNT         1                70B 15T 4M 1.5k 128 7e9 ("70B params")
 *   GP_Q_DURATION      second           45d 12h 800ms 30min 1h30m 2w 3y 6mo
 *   GP_Q_POWER         watt             700W 10.2kW 1.2MW
 *   GP_Q_MONEY         US dollar        $1.2M $250k 1200 USD
 *   GP_Q_MONEY_RATE    US dollar/hour   $2.10/h $2.10/hr 55.04 USD/hour
 *
 * Decimal prefixes (k M G T P E) are powers of 1000; binary prefixes
 * (Ki Mi Gi Ti Pi Ei) are powers of 1024 and are accepted for bytes and
 * bandwidth only.  In bandwidths a lowercase 'b' (Gb/s, Gbps) means bits and
 * an uppercase 'B' means bytes.  Counts take decimal suffixes only
 * (k/K = 1e3, M = 1e6, B/G = 1e9, T = 1e12) and may end in a word such as
 * "params" or "tokens".  Durations: us ms s min (or m) h d w mo (= 1/12 y)
 * y (= 365 d); several may be chained ("1h30m").  A bare number is taken in
 * the canonical unit.  Whitespace between number and unit is allowed.
 * Negative, NaN, infinite or overflowing values are errors.
 */
#ifndef GPUPLAN_UNITS_H
#define GPUPLAN_UNITS_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_quantity {
    GP_Q_BYTES,
    GP_Q_BANDWIDTH,
    GP_Q_FLOPS,
    GP_Q_COUNT,
    GP_Q_DURATION,
    GP_Q_POWER,
    GP_Q_MONEY,
    GP_Q_MONEY_RATE,
};

/* Return the name of quantity kind 'q' ("bytes", "bandwidth", ...). */
const char *gp_quantity_str (enum gp_quantity q);

/* Parse 's' as a quantity of kind 'q' into '*out' (canonical unit).
 * Returns 0, or GP_EPARSE (malformed) / GP_ERANGE (negative, not finite,
 * overflow) with a message quoting 's'.  '*out' is untouched on failure.
 */
int gp_parse_quantity (const char *s,
                       enum gp_quantity q,
                       double *out,
                       gp_error_t *err);

/* Format flags. */
enum gp_fmt_flags_b {
    GP_FMT_BINARY = 1, /* bytes/bandwidth with KiB/MiB/GiB... */
    GP_FMT_BITS = 2,   /* bandwidth in bit/s (Gb/s) */
};

/* Format 'v' (canonical unit) for humans into 'buf' with 3 significant
 * digits and a prefix, e.g. "80 GB", "3.35 TB/s", "989 TFLOP/s",
 * "70.6 B", "45 d", "10.2 kW", "$1.2 M", "$2.10/h" (money: k, M, B and,
 * from a trillion, T: "$10T").
 * Returns 'buf'.  Output is deterministic (no locale).
 */
char *gp_format_quantity (double v,
                          enum gp_quantity q,
                          unsigned flags,
                          char *buf,
                          size_t size);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_UNITS_H */
