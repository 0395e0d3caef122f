/* measure.c - the measures a training validation row may publish and the
 * one conversion of a prediction into them (docs/model/training.md,
 * "Measures").
 */
#include <math.h>
#include <strings.h>

#include "gpuplan/train.h"
#include "gpuplan/validate.h"

static const char *const meas_names[GP_MEAS_N] = {
    "tokens_per_s_per_gpu", "tflops_per_gpu", "gpu_hours", "days",
    "time_to_train_min",
};

const char *gp_val_measure_str (enum gp_val_measure m)
{
    return (unsigned)m < GP_MEAS_N ? meas_names[m] : "?";
}

int gp_val_measure_parse (const char *s, enum gp_val_measure *m)
{
    for (int i = 0; s && i < GP_MEAS_N; i++)
        if (!strcasecmp (s, meas_names[i])) {
            *m = (enum gp_val_measure)i;
            return 0;
        }
    return -1;
}

enum gp_val_kind gp_val_measure_kind (enum gp_val_measure m)
{
    return m == GP_MEAS_TOKENS_PER_S_PER_GPU || m == GP_MEAS_TFLOPS_PER_GPU
               ? GP_VAL_THROUGHPUT
               : GP_VAL_CAMPAIGN;
}

int gp_flop_convention_parse (const char *s, enum gp_flop_convention *c)
{
    if (s && !strcasecmp (s, "6N")) {
        *c = GP_FLOPS_6N;
        return 0;
    }
    if (s && !strcasecmp (s, "6N+attn")) {
        *c = GP_FLOPS_6N_ATTN;
        return 0;
    }
    return -1;
}

double gp_val_flops_per_token (const struct gp_train_model *m, double seq_len,
                               enum gp_flop_convention c)
{
    if (c == GP_FLOPS_6N_ATTN)
        return gp_train_model_flops_per_token (m, seq_len);
    return 6.0 * m->matmul_active;
}

double gp_val_measure_of (enum gp_val_measure m, const struct gp_val_native *x)
{
    double r = x->tokens_per_s_per_gpu;
    if (!(r > 0))
        return NAN;
    switch (m) {
    case GP_MEAS_TOKENS_PER_S_PER_GPU:
        return r;
    case GP_MEAS_TFLOPS_PER_GPU:
        return x->flops_per_token > 0 ? r * x->flops_per_token / 1e12 : NAN;
    case GP_MEAS_GPU_HOURS:
        if (!(x->tokens > 0) || !(x->goodput > 0))
            return NAN;
        return x->tokens / (r * x->goodput) / 3600.0;
    case GP_MEAS_DAYS:
        if (!(x->tokens > 0) || !(x->goodput > 0) || x->n_gpus <= 0)
            return NAN;
        return x->tokens / (r * x->goodput * x->n_gpus) / 86400.0;
    case GP_MEAS_TIME_TO_TRAIN_MIN:
        if (!(x->tokens > 0) || x->n_gpus <= 0)
            return NAN;
        return (x->tokens + (x->eval_tokens > 0 ? x->eval_tokens : 0) / 3.0)
               / (r * x->n_gpus) / 60.0;
    case GP_MEAS_N:
        break;
    }
    return NAN;
}
