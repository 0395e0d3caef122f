/* gpuplan/error.h - error codes and the caller-supplied error text buffer.
 *
 * Every fallible library function returns 0 (GP_OK) or a negative
 * enum gp_err, and takes a trailing 'gp_error_t *err' (may be NULL) that
 * receives a one-line message naming the offending input.  The library
 * never prints and never exits: the front ends decide what to do.
 */
#ifndef GPUPLAN_ERROR_H
#define GPUPLAN_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* One table feeds the enum, gp_err_name() and gp_strerror() (libuv style).
 * XX(name, code, message).  Codes are stable: scripts may rely on them.
 */
#define GP_ERRNO_MAP(XX)                                                      \
    XX(EINVAL, -1, "invalid argument or input")                               \
    XX(ENOMEM, -2, "out of memory")                                           \
    XX(EIO, -3, "input/output error")                                         \
    XX(EPARSE, -4, "malformed input")                                         \
    XX(ENOTFOUND, -5, "unknown name")                                         \
    XX(ERANGE, -6, "value out of range")                                      \
    XX(EINFEASIBLE, -7, "request is valid but infeasible")                    \
    XX(ENOTSUP, -8, "not yet supported")                                      \
    XX(EINTERNAL, -9, "internal error")                                       \
    XX(EWRITE, -10, "output could not be written")

enum gp_err {
    GP_OK = 0,
#define GP__ERR_ENUM(name, code, msg) GP_##name = code,
    GP_ERRNO_MAP (GP__ERR_ENUM)
#undef GP__ERR_ENUM
};

/* Error text container, filled by the function that failed. */
#define GP_ERROR_TEXT_MAX 320
typedef struct gp_error {
    int code;                     /* enum gp_err of the failure */
    char text[GP_ERROR_TEXT_MAX]; /* one line, no trailing newline */
} gp_error_t;

/* Return the symbolic name ("GP_EINVAL") or message of 'code'.
 * Unknown codes give "GP_EUNKNOWN" / "unknown error".  Static strings.
 */
const char *gp_err_name (int code);
const char *gp_strerror (int code);

/* Format a message into 'err' (if non-NULL) and return 'code', so that
 * error paths read:  return gp_errprintf (err, GP_EINVAL, "bad %s", s);
 */
int gp_errprintf (gp_error_t *err, int code, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Prepend "prefix: " to an existing message in 'err' (if non-NULL) and
 * return err->code (or GP_EINTERNAL when err is NULL).
 */
int gp_errprefix (gp_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Map a library error code to the CLI exit status documented in
 * docs/cli.md: 0 ok, 1 infeasible, 2 usage/input error, 3 internal error.
 */
int gp_err_exit_status (int code);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_ERROR_H */
