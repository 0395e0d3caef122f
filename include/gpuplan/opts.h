/* gpuplan/opts.h - checks of a command line for front ends: long option
 * names spelt in full (an unknown one with the closest names), values
 * where an option needs one, repeated and conflicting options, and numeric
 * option values within a stated range.  Nothing is printed.
 */
#ifndef GPUPLAN_OPTS_H
#define GPUPLAN_OPTS_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One long option: its name without "--", and 1 when it takes a value. */
struct gp_opt_name {
    const char *name;
    int has_value;
};

/* Check the long options ("--name", "--name=value") in argv[1..argc)
 * against 'opts[0..n)' before a getopt-style parser reads them; "--" ends
 * the options, other words are skipped (a value that follows an option
 * that needs one is skipped with it).  Names must be spelt in full.
 * 'conflicts' holds pairs of names that must not both be given ({"a",
 * "b", ..., NULL}; NULL = none).  On success 'warn' (of 'warn_size'
 * bytes, may be NULL) holds "--NAME given more than once: the last one is
 * used" for the first option other than --set given twice, else "".
 * Returns 0, or GP_EINVAL with 'err' saying "unknown option '--x'; did you
 * mean --y?" (at most 40 characters of the name echoed), "--x needs a
 * value", "--x takes no value" or "give --a or --b, not both".
 */
int gp_opts_check (int argc, char *const *argv,
                   const struct gp_opt_name *opts, size_t n,
                   const char *const *conflicts, char *warn,
                   size_t warn_size, gp_error_t *err);

/* gp_opt_number flags. */
enum {
    GP_OPT_WHOLE = 1,   /* the value must be a whole number */
    GP_OPT_OPEN_HI = 2, /* 'hi' itself is outside the range */
};

/* Parse 'v', the value of option 'flag' (e.g. "--rps"), as a quantity of
 * kind 'q' (units.h) and check it against [lo, hi] and 'flags'.  Returns
 * 0 with '*out' set, or GP_EINVAL with 'err' = "FLAG: VALUE is outside
 * [LO, HI]" / "is not a whole number" / the unit parser's message, the
 * value echoed with at most 40 characters.
 */
int gp_opt_number (const char *flag, const char *v, enum gp_quantity q,
                   double lo, double hi, int flags, double *out,
                   gp_error_t *err);

/* Check 'v', the value of list option 'flag' ("ID[,ID...]"): 0, or
 * GP_EINVAL with 'err' = "FLAG: empty item in 'V'" when 'v' is empty or
 * has an empty item ("a,", ",a", "a,,b").
 */
int gp_opt_list (const char *flag, const char *v, gp_error_t *err);

/* Shorten, in place, every quoted word (no space inside) of the message
 * 'text' that is over 40 characters to its first 37 and "...", so that a
 * 230-digit number is not echoed whole.
 */
void gp_opts_shorten_quoted (char *text);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_OPTS_H */
