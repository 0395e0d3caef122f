/* kv_default.c - the inference model's default KV-cache dtype, read from
 * the defaults registry's infer.kv_dtype (docs/model/defaults.md).
 */
#include <string.h>
#include <strings.h>

#include "gpuplan/infer.h"

int gp_kv_dtype_default (const struct gp_defaults *d, enum gp_dtype weight,
                         const struct gp_accel *a, enum gp_dtype *out,
                         gp_error_t *err)
{
    const char *t = gp_default_text (d, GP_DEF_INFER_KV_DTYPE);
    if (t && strcasecmp (t, "auto") != 0)
        return gp_dtype_parse (t, out, err);
    /* auto: quantised checkpoints carry FP8 KV-cache scales, used where
     * the accelerator has FP8 tensor cores; everything else caches BF16.
     */
    *out = (weight == GP_DT_FP8 || weight == GP_DT_FP4) && a
                   && a->fp8_flops > 0
               ? GP_DT_FP8
               : GP_DT_BF16;
    return 0;
}
