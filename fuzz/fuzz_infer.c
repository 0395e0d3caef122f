/* fuzz_infer.c - `gpuplan infer` specs: the loader reads a path, so the
 * input goes through a private temporary file.
 */
#include "fuzz.h"
#include "gpuplan/infer.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const char *path = fz_tmpfile (data, size, ".yaml");
    if (!path)
        return 0;
    struct gp_infer_request rq;
    gp_infer_request_defaults (&rq);
    gp_error_t err = {0};
    (void)gp_infer_spec_load (path, &rq, &err);
    return 0;
}
