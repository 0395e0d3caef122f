/* train_lora.h - LoRA fine-tuning inside the training model (train_lora.c;
 * docs/model/training.md, "LoRA fine-tuning").  Library-private: the hooks
 * train.c, train_time.c and train_plan.c call when a job's finetune is
 * GP_FT_LORA.  Every function here is a no-op or returns the full-training
 * value when it is not.
 */
#ifndef GPUPLAN_TRAIN_LORA_H
#define GPUPLAN_TRAIN_LORA_H

#include "gpuplan/train.h"

/* 1 when 'job' trains LoRA adapters. */
static inline int gp__lora_on (const struct gp_train_job *job)
{
    return job->finetune == GP_FT_LORA;
}

/* Bytes per frozen weight as stored: job->base_bytes (0 = 2) with LoRA,
 * job->weight_bytes for full training.
 */
double gp__lora_frozen_bytes (const struct gp_train_job *job);

/* Adapter parameters one GPU of layout 'l' holds on its pipeline stage
 * (ceil(layers / pp) layers; two stages with DualPipe): the A of a
 * column-parallel layer and the B of a row-parallel one are replicated
 * over TP, the other factor split.
 */
double gp__lora_stage_params (const struct gp_train_model *m,
                              const struct gp_train_job *job,
                              const struct gp_layout *l);

/* Replace the weight, gradient and optimizer bytes of 'o' for a LoRA job
 * (frozen weights 'P' per GPU outside the experts, at base precision,
 * sharded only by ZeRO-3/FSDP; adapters with their gradients and Adam
 * states).
 */
void gp__lora_memory (const struct gp_train_model *m,
                      const struct gp_train_job *job,
                      const struct gp_layout *l, double P,
                      struct gp_train_mem *o);

/* One layer's GEMM time for a micro-batch of 'T' tokens per GPU: on
 * entry '*gemm_f' is the frozen GEMMs' forward; on return it includes the
 * adapters' forward and '*gemm_b' is the backward: the frozen GEMMs'
 * activation gradients only (one forward's worth) plus the adapters'
 * activation and weight gradients (twice their forward).
 */
void gp__lora_gemm (const struct gp_train_model *m,
                    const struct gp_train_job *job,
                    const struct gp_train_hw *hw, const struct gp_layout *l,
                    double T, double *gemm_f, double *gemm_b);

/* Model and hardware FLOPs per token of a LoRA job with recomputation
 * 'rec' (gp_train_lora_flops_per_token; full recomputation adds one
 * forward of the recomputed share 'rfrac' of the layers,
 * gp_train_recomp_frac: 1 for every layer, less for partial (block)
 * recomputation; selective the attention core's forward).
 */
void gp__lora_rates (const struct gp_train_model *m,
                     const struct gp_train_job *job, double seq_len,
                     enum gp_recompute rec, double rfrac,
                     double *model_fpt, double *hw_fpt);

/* Checkpoint bytes of a LoRA job: the adapters with their optimizer
 * states (the frozen base is read-only and never rewritten).
 */
double gp__lora_ckpt_bytes (const struct gp_train_model *m,
                            const struct gp_train_job *job);

/* Apply the fine-tuning fields of 'rq' to 'job' and check them against
 * 'm' (gp_train_lora_check).  Returns 0 or GP_EINVAL naming the field
 * (lora_rank, lora_targets or base_precision given without finetune
 * lora; a model LoRA does not yet support).
 */
int gp__lora_request (const struct gp_train_request *rq,
                      const struct gp_train_model *m,
                      struct gp_train_job *job, gp_error_t *err);

#endif /* GPUPLAN_TRAIN_LORA_H */
