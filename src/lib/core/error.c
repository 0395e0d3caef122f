/* error.c - error names, messages and the errprintf helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/error.h"

const char *gp_err_name (int code)
{
    switch (code) {
    case GP_OK:
        return "GP_OK";
#define GP__ERR_NAME(name, c, msg)                                            \
    case GP_##name:                                                           \
        return "GP_" #name;
        GP_ERRNO_MAP (GP__ERR_NAME)
#undef GP__ERR_NAME
    default:
        return "GP_EUNKNOWN";
    }
}

const char *gp_strerror (int code)
{
    switch (code) {
    case GP_OK:
        return "success";
#define GP__ERR_MSG(name, c, msg)                                             \
    case GP_##name:                                                           \
        return msg;
        GP_ERRNO_MAP (GP__ERR_MSG)
#undef GP__ERR_MSG
    default:
        return "unknown error";
    }
}

int gp_errprintf (gp_error_t *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (err->text, sizeof err->text, fmt, ap);
        va_end (ap);
        err->code = code;
    }
    return code;
}

int gp_errprefix (gp_error_t *err, const char *fmt, ...)
{
    if (!err)
        return GP_EINTERNAL;
    char prefix[GP_ERROR_TEXT_MAX];
    char old[GP_ERROR_TEXT_MAX];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (prefix, sizeof prefix, fmt, ap);
    va_end (ap);
    memcpy (old, err->text, sizeof old);
    snprintf (err->text, sizeof err->text, "%s: %s", prefix, old);
    return err->code;
}

int gp_err_exit_status (int code)
{
    switch (code) {
    case GP_OK:
        return 0;
    case GP_EINFEASIBLE:
        return 1;
    case GP_EINVAL:
    case GP_EIO:
    case GP_EPARSE:
    case GP_ENOTFOUND:
    case GP_ERANGE:
    case GP_ENOTSUP:
        return 2;
    default:
        return 3;
    }
}
