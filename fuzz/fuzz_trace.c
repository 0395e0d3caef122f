/* fuzz_trace.c - job traces: the first byte picks the format (byte modulo
 * the number of formats, 0 = detect from the header) and the reader flags;
 * the rest is the trace.  Gavel and Pollux read their side tables from
 * traces/ in the repository.  Each format has its own corpus
 * (fuzz/corpus/trace_<format>/).
 */
#include "fuzz.h"
#include "gpuplan/trace.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct gp_trace_opts o = {
        .format = (enum gp_trace_format)(data[0] % GP_TRACE_N_FORMATS),
        .flags = (data[0] >> 4) & (GP_TRACE_SKIP_BAD | GP_TRACE_KEEP_ZERO),
        .gavel_throughputs = GP_SOURCE_DIR "/traces/gavel/throughputs.csv",
        .pollux_profiles = GP_SOURCE_DIR "/traces/pollux/profiles",
    };
    gp_error_t err = {0};
    struct gp_jobset *js = gp_trace_parse ((const char *)data + 1, size - 1,
                                           "fuzz.trace", &o, &err);
    gp_jobset_destroy (js);
    return 0;
}
