/* train_json.c - the JSON document of a training plan (gp_train_plan),
 * as `gpuplan train --json` prints it.  Field names and units are the
 * contract in docs/formats/train.md: SI units, null where unknown.
 */
#include <jansson.h>

#include "gpuplan/train.h"

/* A number, or null when 'v' is 0 / unknown. */
static json_t *known (double v)
{
    return v > 0 ? json_real (v) : json_null ();
}

static json_t *str_or_null (const char *s)
{
    return s && s[0] ? json_string (s) : json_null ();
}

static json_t *layout_json (const struct gp_layout *l)
{
    json_t *o = json_object ();
    json_object_set_new (o, "tp", json_integer (l->tp));
    json_object_set_new (o, "pp", json_integer (l->pp));
    json_object_set_new (o, "dp", json_integer (l->dp));
    json_object_set_new (o, "cp", json_integer (l->cp));
    json_object_set_new (o, "ep", json_integer (l->ep));
    json_object_set_new (o, "vpp", json_integer (l->vpp));
    json_object_set_new (o, "micro_batch", json_integer (l->micro_batch));
    json_object_set_new (o, "seq_par", json_boolean (l->seq_par));
    json_object_set_new (o, "recompute",
                         json_string (gp_recompute_str (l->recompute)));
    /* partial (block) recomputation: layers per pipeline chunk */
    if (l->recompute == GP_RECOMP_FULL && l->recompute_layers > 0)
        json_object_set_new (o, "recompute_layers",
                             json_integer (l->recompute_layers));
    json_object_set_new (o, "sharding",
                         json_string (gp_sharding_str (l->sharding)));
    json_object_set_new (o, "pp_schedule",
                         json_string (gp_schedule_str (l->schedule)));
    /* CPU activation offload: present only when used */
    if (l->offload_layers > 0)
        json_object_set_new (o, "offload_layers",
                             json_integer (l->offload_layers));
    return o;
}

static json_t *memory_json (const struct gp_train_mem *mm)
{
    json_t *mem = json_object ();
    json_object_set_new (mem, "weights_bytes", json_real (mm->weights));
    json_object_set_new (mem, "grads_bytes", json_real (mm->grads));
    json_object_set_new (mem, "optimizer_bytes", json_real (mm->optim));
    json_object_set_new (mem, "activations_bytes",
                         json_real (mm->activations));
    json_object_set_new (mem, "logits_bytes", json_real (mm->logits));
    json_object_set_new (mem, "buffers_bytes", json_real (mm->buffers));
    json_object_set_new (mem, "runtime_bytes", json_real (mm->runtime));
    json_object_set_new (mem, "total_bytes", json_real (mm->total));
    json_object_set_new (mem, "capacity_bytes", json_real (mm->capacity));
    json_object_set_new (mem, "headroom_bytes", json_real (mm->headroom));
    return mem;
}

static json_t *step_json (const struct gp_train_time *t)
{
    json_t *st = json_object ();
    json_object_set_new (st, "step_s", json_real (t->step_s));
    json_object_set_new (st, "gemm_s", json_real (t->gemm_s));
    json_object_set_new (st, "attention_s", json_real (t->attn_s));
    json_object_set_new (st, "memory_bound_s", json_real (t->mem_s));
    json_object_set_new (st, "tp_comm_s", json_real (t->tp_comm_s));
    json_object_set_new (st, "cp_comm_s", json_real (t->cp_comm_s));
    json_object_set_new (st, "ep_comm_s", json_real (t->ep_comm_s));
    json_object_set_new (st, "ep_hidden_s", json_real (t->ep_hidden_s));
    json_object_set_new (st, "pp_bubble_s", json_real (t->pp_bubble_s));
    json_object_set_new (st, "pp_p2p_s", json_real (t->pp_p2p_s));
    json_object_set_new (st, "dp_comm_s", json_real (t->dp_comm_s));
    json_object_set_new (st, "optimizer_s", json_real (t->optim_s));
    /* CPU activation offload: present only when the layout offloads */
    if (t->offload_s > 0)
        json_object_set_new (st, "offload_s", json_real (t->offload_s));
    if (t->moe_host_s > 0) /* MoE only */
        json_object_set_new (st, "moe_host_s", json_real (t->moe_host_s));
    return st;
}

/* The cost hook: GPU-hours at the one pricing rule's on-demand price,
 * with the instance it comes from and that row's date, flags and source.
 */
static json_t *cost_json (const struct gp_train_accel_plan *p)
{
    const struct gp_instance *in = p->price.inst;
    json_t *cost = json_object ();
    json_object_set_new (cost, "gpu_hours", known (p->gpu_hours));
    json_object_set_new (cost, "cheapest_on_demand_usd_per_gpu_hour",
                         known (p->price.usd_per_gpu_hour));
    json_object_set_new (cost, "instance",
                         in ? json_string (in->id) : json_null ());
    json_object_set_new (cost, "cloud",
                         in ? json_string (in->cloud) : json_null ());
    json_object_set_new (cost, "region",
                         in ? json_string (in->region) : json_null ());
    json_object_set_new (cost, "on_demand_usd", known (p->on_demand_usd));
    json_object_set_new (cost, "price_as_of",
                         str_or_null (in ? in->price_as_of : NULL));
    /* Only flags that apply to the on-demand price (price.h). */
    json_object_set_new (cost, "price_flags",
                         str_or_null (in && p->price.flagged
                                          ? in->price_flags
                                          : NULL));
    json_object_set_new (cost, "source",
                         str_or_null (in ? in->source : NULL));
    return cost;
}

static json_t *reliability_json (const struct gp_train_accel_plan *p)
{
    json_t *rel = json_object ();
    json_object_set_new (rel, "mtbf_s", json_real (p->rel.mtbf_s));
    json_object_set_new (rel, "checkpoint_write_s",
                         json_real (p->rel.ckpt_write_s));
    json_object_set_new (rel, "checkpoint_interval_s",
                         json_real (p->rel.interval_s));
    json_object_set_new (rel, "goodput", json_real (p->rel.goodput));
    json_object_set_new (rel, "storage_bw_for_5pct",
                         json_real (p->rel.storage_bw_needed));
    json_object_set_new (rel, "expected_interruptions",
                         p->days > 0 ? json_real (p->interruptions)
                                     : json_null ());
    json_object_set_new (rel, "lost_gpu_hours", known (p->lost_gpu_hours));
    return rel;
}

static json_t *lists_json (const struct gp_train_accel_plan *p, json_t *o)
{
    json_t *top = json_array ();
    for (size_t i = 0; i < p->n_top; i++) {
        json_t *e = json_object ();
        json_object_set_new (e, "layout", layout_json (&p->top[i].layout));
        json_object_set_new (e, "step_s", json_real (p->top[i].time.step_s));
        json_object_set_new (e, "mfu", json_real (p->top[i].time.mfu));
        json_object_set_new (e, "memory_bytes",
                             json_real (p->top[i].mem.total));
        json_array_append_new (top, e);
    }
    json_object_set_new (o, "top", top);
    json_t *alts = json_array ();
    for (size_t i = 0; i < p->n_alt; i++) {
        char v[256];
        json_t *e = json_object ();
        json_object_set_new (e, "change", json_string (gp_train_change_str (
                                              p->alt[i].change)));
        json_object_set_new (e, "layout", layout_json (&p->alt[i].layout));
        json_object_set_new (e, "verdict",
                             json_string (gp_train_verdict_text (
                                 &p->alt[i], v, sizeof v)));
        json_array_append_new (alts, e);
    }
    json_object_set_new (o, "alternatives", alts);
    return o;
}

/* The deadline curve (sizes on it, monotone) and the sizes skipped. */
static void curve_json (const struct gp_train_plan_result *r,
                        const struct gp_train_accel_plan *p, json_t *o)
{
    json_t *cv = json_array (), *sk = json_array ();
    for (size_t i = 0; i < p->n_curve; i++) {
        const struct gp_train_curve_pt *c = &p->curve[i];
        json_t *e = json_object ();
        json_object_set_new (e, "gpus", json_integer (c->gpus));
        json_object_set_new (e, "days", json_real (c->days));
        if (c->slower_than) {
            json_object_set_new (e, "reason", json_string ("slower"));
            json_object_set_new (e, "not_faster_than_gpus",
                                 json_integer (c->slower_than));
            json_array_append_new (sk, e);
            continue;
        }
        json_object_set_new (e, "mfu", json_real (c->mfu));
        json_object_set_new (e, "global_batch_tokens",
                             json_real (c->global_batch * r->job.seq_len));
        json_object_set_new (e, "layout", layout_json (&c->layout));
        json_array_append_new (cv, e);
    }
    json_object_set_new (o, "curve", cv);
    json_object_set_new (o, "curve_skipped", sk);
}

/* The batch: chosen or given, and the warning when the given one forces
 * an inefficient layout.
 */
static void batch_json (const struct gp_train_plan_result *r,
                        const struct gp_train_accel_plan *p, json_t *o)
{
    json_object_set_new (o, "global_batch", json_real (p->global_batch));
    json_object_set_new (o, "global_batch_tokens",
                         json_real (p->global_batch * r->job.seq_len));
    json_object_set_new (o, "batch_chosen", json_boolean (p->batch_free));
    json_object_set_new (o, "batch_inefficient",
                         json_boolean (p->batch_inefficient));
    if (p->batch_free || !p->free_mfu)
        return;
    json_t *f = json_object ();
    json_object_set_new (f, "n_gpus", json_integer (p->free_n_gpus));
    json_object_set_new (f, "mfu", json_real (p->free_mfu));
    json_object_set_new (f, "global_batch_tokens",
                         json_real (p->free_global_batch * r->job.seq_len));
    json_object_set_new (o, "free_batch", f);
}

/* In-network reduction on the chosen layout (docs/formats/train.md). */
static json_t *innet_json (const struct gp_train_plan_result *r,
                           const struct gp_train_accel_plan *p)
{
    json_t *o = json_object ();
    double step = p->top[0].time.step_s, w = p->step_s_without;
    json_object_set_new (o, "enabled", json_boolean (!r->sharp_off));
    json_object_set_new (o, "nvls", json_boolean (p->innet_nvls));
    json_object_set_new (o, "ib_sharp", json_boolean (p->innet_sharp));
    json_object_set_new (o, "ib_switch", r->ib_switch[0]
                                             ? json_string (r->ib_switch)
                                             : json_null ());
    json_object_set_new (o, "step_s", json_real (step));
    json_object_set_new (o, "step_s_without", json_real (w));
    json_object_set_new (o, "step_change",
                         json_real (w > 0 ? step / w - 1 : 0));
    return o;
}

/* The attention kernel the step was timed with (docs/model/training.md,
 * "Attention kernel"): the job's kernel, the efficiency and the
 * generations.csv column it comes from.
 */
static json_t *attn_json (const struct gp_train_plan_result *r,
                          const struct gp_train_accel_plan *p)
{
    const struct gp_train_eff *e = &p->hw.eff;
    int k = r->job.attn_kernel;
    json_t *o = json_object ();
    json_object_set_new (o, "kernel", json_string (gp_attn_kernel_str (k)));
    json_object_set_new (o, "efficiency",
                         json_real (gp_train_attn_eff (e, k)));
    json_object_set_new (o, "figure",
                         json_string (gp_train_attn_figure (e, k)));
    return o;
}

static json_t *accel_json (const struct gp_train_plan_result *r,
                           const struct gp_train_accel_plan *p)
{
    json_t *o = json_object ();
    json_object_set_new (o, "gpu", json_string (p->accel->id));
    json_object_set_new (o, "feasible", json_boolean (p->feasible));
    if (!p->feasible) {
        char why[320];
        json_object_set_new (o, "reason", json_string (gp_train_reason_text (
                                              r, p, why, sizeof why)));
        return o;
    }
    const struct gp_train_result *b = &p->top[0];
    const struct gp_train_time *t = &b->time;
    json_object_set_new (o, "n_gpus", json_integer (p->n_gpus));
    json_object_set_new (o, "nodes", json_integer (p->nodes));
    json_object_set_new (o, "layout", layout_json (&b->layout));
    json_object_set_new (o, "memory", memory_json (&b->mem));
    json_object_set_new (o, "step", step_json (t));
    json_object_set_new (o, "in_network_reduction", innet_json (r, p));
    json_object_set_new (o, "attention", attn_json (r, p));
    json_object_set_new (o, "tokens_per_s", json_real (t->tokens_per_s));
    json_object_set_new (o, "tokens_per_s_per_gpu",
                         json_real (t->tokens_per_s_per_gpu));
    json_object_set_new (o, "model_flops_per_gpu",
                         json_real (t->model_flops_per_gpu));
    json_object_set_new (o, "mfu", json_real (t->mfu));
    json_object_set_new (o, "hfu", json_real (t->hfu));
    json_object_set_new (o, "days", known (p->days));
    json_object_set_new (o, "gpu_hours", known (p->gpu_hours));
    json_object_set_new (o, "energy_kwh", known (p->energy_kwh));
    json_object_set_new (o, "cost_hook", cost_json (p));
    json_object_set_new (o, "reliability", reliability_json (p));
    json_object_set_new (o, "batch_limited", json_boolean (p->batch_limited));
    batch_json (r, p, o);
    if (p->n_curve)
        curve_json (r, p, o);
    return lists_json (p, o);
}

/* The fine-tuning object of a LoRA plan (docs/formats/train.md). */
static json_t *lora_json (const struct gp_train_plan_result *r)
{
    const struct gp_train_job *job = &r->job;
    json_t *j = json_object ();
    json_object_set_new (j, "method", json_string ("lora"));
    json_object_set_new (j, "lora_rank", json_integer (job->lora_rank));
    json_object_set_new (j, "lora_targets",
                         json_string (gp_lora_targets_str (job->lora_targets)));
    json_object_set_new (j, "base_precision",
                         json_string (job->base_bytes == 1 ? "fp8" : "bf16"));
    json_object_set_new (j, "adapter_params",
                         json_real (gp_train_lora_params (
                             &r->model, job->lora_rank, job->lora_targets)));
    json_object_set_new (j, "flop_convention",
                         json_string ("executed: 4N + 6 x adapter params + "
                                      "attention"));
    return j;
}

json_t *gp_report_train_json (const struct gp_train_plan_result *r)
{
    json_t *root = json_object ();
    if (!root)
        return NULL;
    json_object_set_new (root, "model", json_string (r->arch.id));
    json_object_set_new (root, "params", json_real (r->model.total_params));
    json_object_set_new (root, "tokens", known (r->job.tokens));
    json_object_set_new (root, "seq_len", json_real (r->job.seq_len));
    json_object_set_new (root, "global_batch",
                         r->job.batch_free ? json_null ()
                                           : json_real (r->job.global_batch));
    json_object_set_new (root, "precision",
                         json_string (gp_precision_str (r->job.precision)));
    json_object_set_new (root, "target_days", known (r->target_days));
    if (r->job.finetune == GP_FT_LORA)
        json_object_set_new (root, "finetune", lora_json (r));
    if (r->default_days) { /* only then: other outputs unchanged */
        json_object_set_new (root, "target_days_default", json_true ());
        json_object_set_new (root, "target_days_note",
                             json_string ("the default deadline "
                                          "train.default_days: give days "
                                          "or gpus, or --set "
                                          "train.default_days=D"));
    }
    json_t *res = json_array ();
    for (size_t i = 0; i < r->n_accels; i++)
        json_array_append_new (res, accel_json (r, &r->accels[i]));
    json_object_set_new (root, "results", res);
    return root;
}
