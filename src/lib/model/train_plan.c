/* train_plan.c - the training plan as one call (gp_train_plan): resolve
 * the model, build the job, and for each accelerator size the cluster
 * (a fixed count, or the fewest whole nodes that meet a deadline), keep
 * the fastest layouts, explain the neighbouring layouts
 * (train_neighbours.c), derive reliability, time, GPU-hours and energy,
 * and price the GPU-hours with the one pricing rule (gp_price_gpu_hour).
 * docs/model/training.md describes the model, docs/formats/train.md the
 * result as JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/defaults.h"
#include "gpuplan/price.h"
#include "gpuplan/train.h"
#include "train_lora.h"
#include "train_private.h"

void gp_train_request_init (struct gp_train_request *rq)
{
    memset (rq, 0, sizeof *rq);
    rq->dims.mlp = -1;
    rq->precision = -1;
    rq->optimizer_states = -1;
    rq->framework = GP_FW_ANY;
    rq->pp_schedule = -1;
    rq->attn_kernel = -1;
    rq->sharp = -1;
    rq->finetune = rq->lora_targets = rq->base_precision = -1;
}

/* Apply the explicit dimensions and complete the derived fields. */
static void apply_dims (const struct gp_train_dims *d, struct gp_arch *a)
{
    int heads0 = a->heads;
    if (d->layers)
        a->layers = d->layers;
    if (d->hidden)
        a->hidden = d->hidden;
    if (d->ffn_hidden)
        a->ffn_hidden = d->ffn_hidden;
    if (d->heads)
        a->heads = d->heads;
    if (d->kv_heads)
        a->kv_heads = d->kv_heads;
    if (d->vocab)
        a->vocab = d->vocab;
    if (d->mlp >= 0)
        a->mlp = d->mlp ? GP_MLP_SWIGLU : GP_MLP_GELU;
    if (d->moe_experts)
        a->moe_experts = d->moe_experts;
    if (d->moe_topk)
        a->moe_topk = d->moe_topk;
    if (d->moe_ffn_hidden)
        a->moe_ffn_hidden = d->moe_ffn_hidden;
    if (a->heads <= 0)
        a->heads = a->hidden % 128 == 0 ? a->hidden / 128
                                        : (a->hidden + 63) / 64;
    if (a->kv_heads <= 0 || a->kv_heads > a->heads)
        a->kv_heads = a->heads;
    if (a->ffn_hidden <= 0 && a->moe_experts <= 0)
        a->ffn_hidden = 4 * a->hidden;
    if (a->head_dim <= 0 || a->heads != heads0)
        a->head_dim = a->heads > 0 ? a->hidden / a->heads : 0;
    if (a->attention != GP_ATTN_MLA)
        a->attention = a->kv_heads < a->heads ? GP_ATTN_GQA : GP_ATTN_MHA;
}

int gp_train_resolve_arch (const struct gp_train_request *rq,
                           struct gp_arch *out, gp_error_t *err)
{
    int named = rq->model && rq->model[0];
    memset (out, 0, sizeof *out);
    if (!named && !(rq->dims.layers && rq->dims.hidden))
        return gp_errprintf (err, GP_EINVAL,
                             "train: no model (--model ID, or --layers "
                             "and --hidden, or a spec)");
    if (named) {
        struct gp_zoo *own = NULL;
        const struct gp_zoo *zoo = rq->zoo;
        if (!zoo && !(zoo = own = gp_zoo_load (NULL, err)))
            return err ? err->code : GP_EINTERNAL;
        const struct gp_arch *z = gp_zoo_find (zoo, rq->model, err);
        if (z)
            *out = *z;
        if (own) { /* the borrowed strings die with the zoo */
            out->source = NULL;
            out->source_date = NULL;
            gp_zoo_destroy (own);
        }
        if (!z)
            return err ? err->code : GP_ENOTFOUND;
    } else {
        snprintf (out->id, sizeof out->id, "custom");
        out->vocab = 51200;
        out->mlp = GP_MLP_GELU;
    }
    apply_dims (&rq->dims, out);
    return 0;
}

/* The job the request describes (batch: docs/formats/train.md). */
static void build_job (const struct gp_train_request *rq,
                       struct gp_train_job *job)
{
    gp_train_job_default (job);
    job->defaults = rq->defaults; /* reliability defaults in force */
    if (rq->precision >= 0)
        job->precision = (enum gp_precision)rq->precision;
    if (rq->tp_comm_overlap == 1)
        job->tp_comm_overlap = 1;
    if (rq->attn_kernel > 0)
        job->attn_kernel = rq->attn_kernel;
    if (rq->optimizer_states == 1)
        job->optim_bytes = 4 + 2 + 2; /* fp32 master, bf16 m and v */
    if (rq->seq_len > 0)
        job->seq_len = rq->seq_len;
    job->tokens = rq->tokens;
    if (rq->global_batch > 0)
        job->global_batch = floor (rq->global_batch);
    else
        job->global_batch = gp_train_batch_sequences (
            rq->batch_tokens > 0
                ? rq->batch_tokens
                : gp_default (rq->defaults, GP_DEF_TRAIN_BATCH_TOKENS),
            job->seq_len);
    if (job->global_batch < 1)
        job->global_batch = 1;
    /* no batch given: the sizing chooses it (docs/model/training.md) */
    job->batch_free = !(rq->global_batch > 0 || rq->batch_tokens > 0);
    job->defaults = rq->defaults;
}

static void build_fix (const struct gp_train_request *rq,
                       struct gp_search_fix *fix)
{
    gp_search_fix_free (fix);
    if (rq->pp_schedule >= 0)
        fix->schedule = rq->pp_schedule;
    if (rq->framework == GP_FW_MEGATRON)
        fix->sharding_max = GP_SHARD_ZERO1;
    else if (rq->framework == GP_FW_FSDP) {
        fix->sharding = GP_SHARD_FSDP;
        fix->pp = 1;
    }
}

/* The hardware of one accelerator with the request's overrides. */
static int build_hw (const struct gp_catalog *cat,
                     const struct gp_train_request *rq,
                     const struct gp_accel *acc, enum gp_precision prec,
                     int gpn, double nic, struct gp_train_hw *hw,
                     gp_error_t *err)
{
    gp_train_hw_from_accel (acc, prec, hw);
    /* MXFP8, NVFP4 and delayed-scaling FP8 need a precisions.csv row for
     * the generation (docs/model/training.md, "Precision")
     */
    if (prec >= GP_PREC_MXFP8 && !hw->fp8) {
        /* a row exists but the accelerator gives no peak for the
         * precision's format (e.g. int8 on TPU v3)
         */
        if (gp_train_prec_for (prec, acc->gen ? acc->gen->id : NULL))
            return gp_errprintf (err, GP_EINVAL,
                                 "train: precision %s is not supported on "
                                 "%s (data/catalog/accelerators.csv gives "
                                 "it no %s peak)",
                                 gp_precision_str (prec), acc->id,
                                 gp_precision_str (prec));
        return gp_errprintf (err, GP_EINVAL,
                             "train: precision %s is not supported on %s "
                             "(no data/catalog/precisions.csv row for the "
                             "%s generation)",
                             gp_precision_str (prec), acc->id,
                             acc->gen ? acc->gen->id : "(none)");
    }
    /* IB SHARP: only on a switch whose catalog rows give it (Quantum
     * InfiniBand; an Ethernet switch has no sharp_algbw_share row).
     */
    double share = 0;
    if (rq->ib_switch && rq->ib_switch[0]
        && gp_catalog_part_value (cat, rq->ib_switch, "port_gbps", &share,
                                  NULL) != 0)
        return gp_errprintf (err, GP_ENOTFOUND,
                             "train: ib_switch '%s' is not a catalog switch "
                             "part with port_gbps (parts.csv)",
                             rq->ib_switch);
    share = 0;
    if (rq->ib_switch && rq->ib_switch[0]
        && gp_catalog_part_value (cat, rq->ib_switch, "sharp_algbw_share",
                                  &share, NULL) == 0 && share > 0)
        hw->sharp_share = share;
    if (rq->sharp == 0)
        hw->nvls_share = hw->sharp_share = 0;
    if (gpn)
        hw->gpus_per_node = gpn;
    if (rq->scale_up_domain)
        hw->scale_up_domain = rq->scale_up_domain;
    if (nic > 0)
        hw->scale_out_bw = nic;
    if (rq->nic_latency > 0)
        hw->scale_out_lat_s = rq->nic_latency;
    if (rq->oversubscription >= 1)
        hw->oversub = rq->oversubscription;
    if (hw->peak_flops <= 0 || hw->mem_bytes <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "accelerator '%s' lacks peak FLOP/s or memory "
                             "in the catalog", acc->id);
    return 0;
}

/* Size and search one accelerator; fills the feasibility and the top. */
static void size_one (const struct gp_train_plan_result *r,
                      const struct gp_train_request *rq,
                      const struct gp_search_fix *fix, int k,
                      struct gp_train_accel_plan *p)
{
    struct gp_search_stats st;
    memset (&st, 0, sizeof st);
    p->batch_free = r->job.batch_free;
    p->global_batch = r->job.global_batch;
    if (rq->gpus > 0) {
        p->n_gpus = rq->gpus;
        p->n_top = gp_train_search_batch (&r->model, &r->job, &p->hw,
                                          rq->gpus, fix, p->top, (size_t)k,
                                          &st, &p->global_batch);
        if (!p->n_top && st.have_oom) {
            p->why = GP_TRAIN_OOM_AT_COUNT;
            p->oom_bytes = st.best_oom.mem.total;
            p->capacity_bytes = p->hw.mem_bytes;
        } else if (!p->n_top)
            p->why = GP_TRAIN_NO_LAYOUT_AT_COUNT;
        return;
    }
    /* the fewest whole nodes that meet the deadline (the request's, or
     * the default one: gp__train_plan_days)
     */
    struct gp_train_size sz;
    p->n_top = gp__train_plan_days (&r->model, &r->job, &p->hw, fix,
                                    rq->rel, rq->defaults, rq->days, p->top,
                                    (size_t)k, &sz, NULL);
    p->n_gpus = sz.n_gpus;
    p->global_batch = sz.global_batch;
    p->n_curve = sz.n_curve;
    memcpy (p->curve, sz.curve, sz.n_curve * sizeof *p->curve);
    if (!p->n_top) {
        p->why = sz.best_n ? GP_TRAIN_BATCH_CAPS : GP_TRAIN_NO_FIT_ANY_SIZE;
        p->best_n = sz.best_n;
        p->best_rate = sz.best_rate;
    }
}

size_t gp__train_plan_days (const struct gp_train_model *m,
                            const struct gp_train_job *job,
                            const struct gp_train_hw *hw,
                            const struct gp_search_fix *fix,
                            const struct gp_train_rel_params *rel,
                            const struct gp_defaults *d, double days,
                            struct gp_train_result *top, size_t k,
                            struct gp_train_size *sz, double *days_used)
{
    if (!(days > 0))
        days = gp_default (d, GP_DEF_TRAIN_DEFAULT_DAYS);
    if (days_used)
        *days_used = days;
    return gp_train_size_deadline (m, job, hw, fix, rel, days,
                                   GP_TRAIN_MAX_GPUS, top, k, sz);
}

/* A fixed GPU count with tokens: the GPUs-vs-days curve around it, from
 * the deadline sizing at the run's own days (its answer is at most the
 * given count; the ladder goes on to twice it).  The same layout
 * searches as `--days`, a few milliseconds per accelerator.
 */
static void fixed_curve (const struct gp_train_plan_result *r,
                         const struct gp_train_request *rq,
                         const struct gp_search_fix *fix,
                         struct gp_train_accel_plan *p)
{
    if (rq->gpus <= 0 || r->job.tokens <= 0 || !(p->days > 0))
        return;
    struct gp_train_size sz;
    struct gp_train_result top[1];
    gp_train_size_deadline (&r->model, &r->job, &p->hw, fix, rq->rel,
                            p->days * (1 + 1e-9), GP_TRAIN_MAX_GPUS, top, 1,
                            &sz);
    p->n_curve = sz.n_curve;
    memcpy (p->curve, sz.curve, sz.n_curve * sizeof *p->curve);
}

/* Reliability, time, GPU-hours, energy and cost of a feasible plan. */
static void derive (const struct gp_train_plan_result *r,
                    const struct gp_train_request *rq,
                    struct gp_train_accel_plan *p)
{
    const struct gp_train_time *t = &p->top[0].time;
    p->nodes = (p->n_gpus + p->gpus_per_node - 1) / p->gpus_per_node;
    gp_train_reliability_with (&r->model, &r->job, p->n_gpus,
                               p->gpus_per_node, rq->rel, &p->rel);
    if (r->job.tokens > 0) {
        double sec = r->job.tokens / (t->tokens_per_s * p->rel.goodput);
        p->days = sec / 86400;
        p->gpu_hours = sec * p->n_gpus / 3600;
        p->energy_kwh = p->gpu_hours * p->hw.tdp_w * p->hw.util_power / 1e3;
        p->interruptions = p->days * 86400 / p->rel.mtbf_s;
    }
    p->lost_gpu_hours = p->gpu_hours * p->rel.overhead;
    /* the fixed global batch, not the hardware, limits this size: the
     * pipeline bubble takes over 30 % of the step
     */
    p->batch_limited = t->step_s > 0 && t->pp_bubble_s > 0.3 * t->step_s;
    p->on_demand_usd = p->price.usd_per_gpu_hour * p->gpu_hours;
}

/* A batch the user fixed: the same question with the batch free (the
 * deadline sizing, or the same count); flag the user's batch when the
 * free one reaches an MFU over train.batch_warn_mfu_loss higher.
 */
static void batch_check (const struct gp_train_plan_result *r,
                         const struct gp_train_request *rq,
                         const struct gp_search_fix *fix,
                         struct gp_train_accel_plan *p)
{
    struct gp_train_job job = r->job;
    job.batch_free = 1;
    struct gp_train_result top[1];
    size_t got;
    if (rq->gpus > 0) {
        got = gp_train_search_batch (&r->model, &job, &p->hw, rq->gpus, fix,
                                     top, 1, NULL, &p->free_global_batch);
        p->free_n_gpus = rq->gpus;
    } else {
        struct gp_train_size *sz = malloc (sizeof *sz);
        if (!sz)
            return;
        got = gp_train_size_deadline (&r->model, &job, &p->hw, fix, rq->rel,
                                      rq->days, GP_TRAIN_MAX_GPUS, top, 1,
                                      sz);
        p->free_n_gpus = sz->n_gpus;
        p->free_global_batch = sz->global_batch;
        free (sz);
    }
    if (!got) {
        p->free_n_gpus = 0;
        p->free_global_batch = 0;
        return;
    }
    p->free_mfu = top[0].time.mfu;
    double loss = gp_default (rq->defaults, GP_DEF_TRAIN_BATCH_WARN_MFU_LOSS);
    p->batch_inefficient = p->free_mfu > p->top[0].time.mfu * (1 + loss);
}

static int plan_accel (const struct gp_catalog *cat,
                       const struct gp_train_request *rq,
                       const char *id, int gpn, double nic,
                       const struct gp_search_fix *fix,
                       struct gp_train_plan_result *r,
                       struct gp_train_accel_plan *p, gp_error_t *err)
{
    memset (p, 0, sizeof *p);
    p->accel = gp_catalog_find_accel (cat, id, err);
    if (!p->accel)
        return err ? err->code : GP_ENOTFOUND;
    int rc = build_hw (cat, rq, p->accel, r->job.precision, gpn, nic,
                       &p->hw, err);
    if (rc)
        return rc;
    p->gpus_per_node = p->hw.gpus_per_node > 0 ? p->hw.gpus_per_node : 8;
    int k = rq->top <= 0 ? 3 : rq->top > GP_TRAIN_TOP_MAX ? GP_TRAIN_TOP_MAX
                                                          : rq->top;
    size_one (r, rq, fix, k, p);
    /* the one pricing rule, on demand; no price is not an error here */
    gp_price_gpu_hour (cat, p->accel, NULL, &p->price, NULL);
    if (!p->n_top)
        return 0;
    p->feasible = 1;
    p->why = GP_TRAIN_FEASIBLE;
    derive (r, rq, p);
    fixed_curve (r, rq, fix, p);
    struct gp_train_job job = r->job;
    job.global_batch = p->global_batch;
    gp_train_neighbours (&r->model, &job, &p->hw, &p->top[0], p->alt,
                         &p->n_alt);
    /* the same layout without in-network reduction */
    p->innet_nvls = p->hw.nvls_share > 0;
    p->innet_sharp = p->hw.sharp_share > 0;
    struct gp_train_hw off = p->hw;
    off.nvls_share = off.sharp_share = 0;
    struct gp_train_time tw;
    gp_train_time (&r->model, &job, &off, &p->top[0].layout, &tw);
    p->step_s_without = tw.step_s;
    if (!r->job.batch_free)
        batch_check (r, rq, fix, p);
    return 0;
}

/* Checks that need no catalog, in the order the CLI always reported. */
static int check_request (const struct gp_train_request *rq,
                          struct gp_train_plan_result *r, gp_error_t *err)
{
    int rc = gp_train_resolve_arch (rq, &r->arch, err);
    if (rc)
        return rc;
    /* tokens without gpus or days: the default deadline (gp_train_plan) */
    if (rq->gpus <= 0 && rq->days <= 0 && !(rq->tokens > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "train: give gpus or days (spec keys; flags "
                             "--gpus N or --days D), or tokens for the "
                             "default deadline (train.default_days)");
    if (rq->gpus > 0 && rq->days > 0)
        return gp_errprintf (err, GP_EINVAL,
                             "train: give gpus or days, not both (flags "
                             "--gpus N or --days D; a deadline chooses the "
                             "count)");
    if (rq->days > 0 && rq->tokens <= 0)
        return gp_errprintf (err, GP_EINVAL,
                             "train: days needs tokens (flags --days needs "
                             "--tokens)");
    if (rq->tokens < 0 || rq->seq_len < 0 || rq->global_batch < 0
        || rq->batch_tokens < 0 || rq->gpus < 0)
        return gp_errprintf (err, GP_EINVAL,
                             "train: negative tokens, sequence, batch or "
                             "GPU count");
    return gp_train_prep (&r->arch, &r->model, err);
}

/* The accelerators to plan ("a,b,c"), their GPUs per node and NIC
 * bandwidth, from the instance when one is named.
 */
static int accel_list (const struct gp_catalog *cat,
                       const struct gp_train_request *rq, char *list,
                       size_t n, int *gpn, double *nic, gp_error_t *err)
{
    *gpn = rq->gpus_per_node;
    *nic = rq->nic_bw;
    if (rq->instance && rq->instance[0]) {
        const struct gp_instance *in =
            gp_catalog_find_instance (cat, rq->instance, NULL, err);
        if (!in)
            return err ? err->code : GP_ENOTFOUND;
        snprintf (list, n, "%s", in->accel->id);
        if (!*gpn)
            *gpn = in->n_accels;
        if (*nic <= 0 && in->net_bw > 0 && in->n_accels > 0)
            *nic = in->net_bw / in->n_accels;
    } else if (snprintf (list, n, "%s",
                         rq->accels && rq->accels[0] ? rq->accels
                                                     : "H100-SXM")
               >= (int)n)
        return gp_errprintf (err, GP_EINVAL, "train: accelerator list too "
                                             "long");
    return 0;
}

int gp_train_plan (const struct gp_catalog *cat,
                   const struct gp_train_request *rq,
                   struct gp_train_plan_result **out, gp_error_t *err)
{
    *out = NULL;
    struct gp_train_plan_result *r = calloc (1, sizeof *r);
    if (!r)
        return gp_errprintf (err, GP_ENOMEM, "train: out of memory");
    char list[512];
    int gpn, rc;
    double nic;
    struct gp_search_fix fix;
    if ((rc = check_request (rq, r, err))
        || (rc = accel_list (cat, rq, list, sizeof list, &gpn, &nic, err)))
        goto fail;
    /* neither gpus nor days: size for the default deadline, said so in
     * the result (default_days)
     */
    struct gp_train_request dflt;
    if (rq->gpus <= 0 && rq->days <= 0) {
        dflt = *rq;
        dflt.days = gp_default (rq->defaults, GP_DEF_TRAIN_DEFAULT_DAYS);
        rq = &dflt;
        r->default_days = 1;
    }
    build_job (rq, &r->job);
    if ((rc = gp__lora_request (rq, &r->model, &r->job, err)))
        goto fail; /* LoRA fine-tuning fields (train_lora.c) */
    build_fix (rq, &fix);
    r->target_days = rq->days;
    r->fixed_gpus = rq->gpus > 0 ? rq->gpus : 0;
    r->sharp_off = rq->sharp == 0;
    if (rq->ib_switch)
        snprintf (r->ib_switch, sizeof r->ib_switch, "%s", rq->ib_switch);
    r->accels = calloc (GP_TRAIN_ACCEL_MAX, sizeof *r->accels);
    if (!r->accels) {
        rc = gp_errprintf (err, GP_ENOMEM, "train: out of memory");
        goto fail;
    }
    char *save = NULL;
    for (char *id = strtok_r (list, ",", &save);
         id && r->n_accels < GP_TRAIN_ACCEL_MAX;
         id = strtok_r (NULL, ",", &save)) {
        struct gp_train_accel_plan *p = &r->accels[r->n_accels];
        if ((rc = plan_accel (cat, rq, id, gpn, nic, &fix, r, p, err)))
            goto fail;
        r->any_feasible |= p->feasible;
        r->n_accels++;
    }
    *out = r;
    return 0;
fail:
    gp_train_plan_result_destroy (r);
    return rc;
}

void gp_train_plan_result_destroy (struct gp_train_plan_result *r)
{
    if (!r)
        return;
    free (r->accels);
    free (r);
}
