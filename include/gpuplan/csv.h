/* gpuplan/csv.h - RFC 4180 CSV reading (libcsv underneath) with line numbers.
 *
 * Rows are delivered one at a time to a callback, so memory stays constant
 * however large the file.  Every row carries the physical line on which it
 * ends, which is the line the user sees in an editor for all but quoted
 * multi-line fields.  Empty lines are skipped.
 */
#ifndef GPUPLAN_CSV_H
#define GPUPLAN_CSV_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gp_csv_row {
    size_t line;                /* 1-based physical line of the row */
    size_t index;               /* 0-based row index (header = 0) */
    size_t n_fields;            /* number of fields */
    const char *const *fields;  /* NUL-terminated, valid during the call */
};

/* Row callback: return 0 to continue, or a negative gp_err to stop (the
 * callback fills 'err' itself).
 */
typedef int (*gp_csv_row_f) (const struct gp_csv_row *row,
                             void *arg,
                             gp_error_t *err);

/* Parse 'len' bytes at 'data'; 'name' names the input in messages
 * ("name:LINE: ...").  'delim' is the field separator (',' or '|' ...).
 * Returns 0 or the first error (GP_EPARSE for malformed CSV, or whatever the
 * callback returned).
 */
int gp_csv_parse (const char *data,
                  size_t len,
                  const char *name,
                  char delim,
                  gp_csv_row_f cb,
                  void *arg,
                  gp_error_t *err);

/* Same, streaming from the file at 'path' (GP_EIO if it cannot be read). */
int gp_csv_parse_file (const char *path,
                       char delim,
                       gp_csv_row_f cb,
                       void *arg,
                       gp_error_t *err);

/* Index of column 'name' in a header row, or -1. */
int gp_csv_col (const struct gp_csv_row *header, const char *name);

/* Check that no column name (non-empty) appears twice in 'header', read
 * from 'file': a repeated column would be read from its first copy only,
 * silently.  Returns 0, or GP_EPARSE with 'err' naming file:line, the
 * column and both positions (1-based).
 */
int gp_csv_header_unique (const struct gp_csv_row *header, const char *file,
                          gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_CSV_H */
