/* bench.c - the engine settings a benchmark harness picks for its run.
 *
 * TensorRT-LLM's `trtllm-bench throughput` (PyTorch backend) without
 * --max_batch_size/--max_num_tokens sizes the engine from the dataset's
 * mean lengths and a memory estimate of its own, and the perf-overview
 * recipe pads decode-only batches to captured CUDA graph sizes (per rank
 * with attention data parallelism, whose max_batch_size is per rank)
 * (docs/model/inference.md, "trtllm-bench settings and CUDA graph
 * padding").
 */
#include <math.h>

#include "gpuplan/infer.h"
#include "infer_private.h"

/* Round the raw batch and token limits as finetune_setting does (the
 * "optimistic" rounding of tensorrt_llm/bench/build/tuning.py). */
static int round_bs (double raw)
{
    if (raw < 256) {
        double b = 32.0 * ceil (raw / 32.0);
        return b < 64 ? 64 : (int)b;
    }
    if (raw < 1024)
        return (int)(128.0 * ceil (raw / 128.0));
    return (int)(256.0 * ceil (raw / 256.0));
}

static int round_tok (double raw)
{
    if (raw < 4096) {
        double t = 256.0 * ceil (raw / 256.0);
        return t < 2048 ? 2048 : (int)t;
    }
    if (raw < 8192)
        return (int)(512.0 * ceil (raw / 512.0));
    return (int)(1024.0 * ceil (raw / 1024.0));
}

static double bench_bytes (enum gp_dtype d)
{
    switch (d) {
    case GP_DT_FP8:
    case GP_DT_INT8:
        return 1.0;
    case GP_DT_FP4:
        return 0.5;
    default:
        return 2.0;
    }
}

int gp__trtllm_bench_settings (const struct gp_serve_model *m, double isl,
                               double osl, struct gp_engine_params *eng)
{
    const struct gp_arch *a = m->cfg.arch;
    if (!a || a->attention == GP_ATTN_MLA || !(isl > 0)
        || !(osl > 0))
        return 0;
    int tp = m->cfg.tp, pp = m->cfg.pp > 0 ? m->cfg.pp : 1;
    double kvh = a->kv_heads > tp ? a->kv_heads : tp;
    double per_tok = 2.0 * a->layers * kvh * a->head_dim
                     * bench_bytes (m->cfg.kv_dtype);
    /* the device's total memory as NVML reports it (get_device_memory,
     * tensorrt_llm/bench/build/utils.py): the catalog's driver-reported
     * size where it has one, else its datasheet size */
    const struct gp_accel *acc = m->cfg.accel;
    double dev = acc && acc->cuda_mem_bytes > 0 && !(m->cfg.slice_mem_bytes > 0)
                     ? acc->cuda_mem_bytes
                     : m->mem_bytes;
    double avail = dev * tp * pp
                   - m->pc.total * bench_bytes (m->cfg.weight_dtype);
    double frac = m->cfg.eng.mem_fraction > 0 ? m->cfg.eng.mem_fraction : 0.9;
    double req = avail * frac / (per_tok * (isl + osl));
    if (!(req >= 1))
        return 0;
    double raw_bs = (req < 4096 ? req : 4096) / pp;
    double raw_tok = raw_bs * (1.0 + isl / osl);
    if (raw_tok > 32768)
        raw_tok = 32768;
    *eng = m->cfg.eng;
    eng->max_batch = round_bs (raw_bs) * (m->cfg.attn_dp ? tp : 1);
    eng->max_num_tokens = round_tok (raw_tok);
    eng->graph_pad = 1;
    return 1;
}
