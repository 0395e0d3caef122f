/* engines.c - engine efficiency per vendor software stack.
 *
 * The rows are data/catalog/engines.csv (same order, same values; the
 * unit test test_infer_engines.c compares them), compiled in because the
 * serving model needs them without a catalog handle.  Sources and the fit
 * are in docs/model/inference.md, "Engines and vendor stacks".
 */
#include <string.h>
#include <strings.h>
#include "gpuplan/infer.h"

#define CUDA_SRC "reference stack: the generation factors were fitted on it"
#define NIM_SRC "NIM runs TensorRT-LLM engines: the TensorRT-LLM values"

/* vLLM on CUDA (docs/model/inference.md, "Host work and front end"):
 * host time per engine step beyond the shared vLLM default, and the
 * per-request latency of its OpenAI-compatible front end; both fitted on
 * the in-sample rows of validation/inference/vllm-host-published.csv
 * (batch-1 Qwen3-0.6B and Qwen3-30B-A3B on A100, vLLM of mid 2025).
 */
#define GP__VLLM_CUDA_ITER 1.1e-3
#define GP__VLLM_CUDA_FRONTEND 7.0e-3
#define VLLM_CUDA_SRC "host step and front end fitted on batch-1 A100 rows"




#define GP__ROCM_GEMM 0.6
#define ROCM_SRC "fitted on the MI300X rows of validation/inference"

static const struct gp_engine_stack rows[] = {
    {"trtllm", "cuda", 1, 1, 1, 0, 0, CUDA_SRC, 0, 0},
    {"nim", "cuda", 1, 1, 1, 0, 0, NIM_SRC, 0, 0},
    {"vllm", "cuda", 1, 1, 1, GP__VLLM_CUDA_ITER, 0, VLLM_CUDA_SRC,
     GP__VLLM_CUDA_FRONTEND, 1},
    {"sglang", "cuda", 1, 1, 1, 0, 0, CUDA_SRC, 0, 1},
    {"fastertransformer", "cuda", 1, 1, 1, 0, 0, CUDA_SRC, 0, 0},
    {"vllm", "rocm", GP__ROCM_GEMM, 1, 1, 0, 0, ROCM_SRC, 0, 0},
    {"sglang", "rocm", GP__ROCM_GEMM, 1, 1, 0, 0, ROCM_SRC, 0, 1},
};

static const struct gp_engine_stack neutral = {"", "", 1, 1, 1, 0, 0,
                                               "no row: neutral", 0, 0};

const char *gp_engine_stack_name (const struct gp_accel *a)
{
    return a && a->vendor && strcasecmp (a->vendor, "AMD") == 0 ? "rocm"
                                                                : "cuda";
}

const struct gp_engine_stack *gp_engine_stack_for (enum gp_engine e,
                                                   const struct gp_accel *a)
{
    const char *en = gp_engine_str (e);
    const char *st = gp_engine_stack_name (a);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp (rows[i].engine, en) == 0 && strcmp (rows[i].stack, st) == 0)
            return &rows[i];
    return &neutral;
}

size_t gp_engine_stack_count (void)
{
    return sizeof rows / sizeof rows[0];
}

const struct gp_engine_stack *gp_engine_stack_row (size_t i)
{
    return i < sizeof rows / sizeof rows[0] ? &rows[i] : NULL;
}
