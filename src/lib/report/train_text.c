/* train_text.c - the plain-text report of a training plan
 * (gp_train_plan), as `gpuplan train` prints it: a header line, then per
 * accelerator its size, layout, memory, step breakdown, rates,
 * reliability, time and cost, the top layouts and why the neighbouring
 * layouts lost.
 */
#include <stdio.h>

#include "gpuplan/train.h"
#include "report_private.h"

static void header (struct rbuf *b, const struct gp_train_plan_result *r)
{
    const struct gp_train_job *job = &r->job;
    if (job->batch_free)
        gp_rb_printf (b, "%s (%.3g B params), seq %.0f, batch chosen per "
                    "size, %s",
                 r->arch.id, r->model.total_params / 1e9, job->seq_len,
                 gp_precision_str (job->precision));
    else
        gp_rb_printf (b, "%s (%.3g B params), seq %.0f, batch %.0f "
                    "sequences, %s",
                 r->arch.id, r->model.total_params / 1e9, job->seq_len,
                 job->global_batch, gp_precision_str (job->precision));
    if (job->finetune == GP_FT_LORA) /* docs/model/training.md */
        gp_rb_printf (b, ", LoRA rank %d on %s (%.3g M adapter params), "
                         "frozen weights %s",
                      job->lora_rank, gp_lora_targets_str (job->lora_targets),
                      gp_train_lora_params (&r->model, job->lora_rank,
                                            job->lora_targets) / 1e6,
                      job->base_bytes == 1 ? "fp8" : "bf16");
    if (job->tokens > 0) {
        char tk[32];
        gp_format_quantity (job->tokens, GP_Q_COUNT, 0, tk, sizeof tk);
        gp_rb_printf (b, ", %s tokens", tk);
    }
    if (r->target_days > 0)
        gp_rb_printf (b, ", target %.1f days", r->target_days);
    if (r->default_days) /* neither gpus nor days given */
        gp_rb_printf (b, " (the default deadline train.default_days: give "
                         "--days D or --gpus N, or --set "
                         "train.default_days=D)");
    gp_rb_printf (b, "\n\n");
}

/* Size, layout, memory, step breakdown and rates. */
static void shape (struct rbuf *b, const struct gp_train_accel_plan *p,
                   double seq, int attn_kernel)
{
    const struct gp_train_result *best = &p->top[0];
    const struct gp_train_time *t = &best->time;
    const struct gp_train_mem *mm = &best->mem;
    char ls[120];
    gp_train_layout_text (&best->layout, ls, sizeof ls);
    gp_rb_printf (b, "  GPUs %d (%d node%s of %d)   layout %s\n", p->n_gpus,
             p->nodes, p->nodes == 1 ? "" : "s", p->gpus_per_node, ls);
    if (p->batch_free)
        gp_rb_printf (b, "  global batch %.0f sequences (%.3g M tokens), "
                    "chosen within the critical-batch range\n",
                 p->global_batch, p->global_batch * seq / 1e6);
    gp_rb_printf (b, "  memory/GPU %.1f GB of %.1f GB (weights %.1f, grads %.1f, "
                "optimizer %.1f, activations %.1f, logits %.1f, buffers "
                "%.1f, runtime %.1f)\n",
             mm->total / 1e9, mm->capacity / 1e9, mm->weights / 1e9,
             mm->grads / 1e9, mm->optim / 1e9, mm->activations / 1e9,
             mm->logits / 1e9, mm->buffers / 1e9, mm->runtime / 1e9);
    gp_rb_printf (b, "  step %.3f s = GEMM %.3f + attention %.3f + memory-bound "
                "%.3f + TP %.3f + CP %.3f + EP %.3f + bubble %.3f + p2p "
                "%.3f + DP %.3f + optimizer %.3f\n",
             t->step_s, t->gemm_s, t->attn_s, t->mem_s, t->tp_comm_s,
             t->cp_comm_s, t->ep_comm_s, t->pp_bubble_s, t->pp_p2p_s,
             t->dp_comm_s, t->optim_s);
    if (t->moe_host_s > 0) /* MoE only: dense outputs unchanged */
        gp_rb_printf (b, "    + MoE host time %.3f (CPU launches the GPU "
                      "waits for)\n", t->moe_host_s);
    /* the rest of the step, so that the terms add up: the SMs hidden
     * all-to-all kernels hold and other per-layer terms outside the
     * list (0 on dense layouts), and activation offload copies */
    if (t->overhead_s >= 5e-4)
        gp_rb_printf (b, "    + other %.3f (SMs held by hidden all-to-all, "
                      "per-layer host and launch terms)\n", t->overhead_s);
    if (t->offload_s >= 5e-4)
        gp_rb_printf (b, "    + activation offload %.3f (host copies compute "
                      "does not hide)\n", t->offload_s);
    /* the attention kernel and its efficiency (docs/model/training.md,
     * "Attention kernel") */
    gp_rb_printf (b, "    attention kernel %s: %.0f %% of the 16-bit peak "
                  "(generations.csv %s)\n", gp_attn_kernel_str (attn_kernel),
                  100 * gp_train_attn_eff (&p->hw.eff, attn_kernel),
                  gp_train_attn_figure (&p->hw.eff, attn_kernel));
    gp_rb_printf (b, "  %.0f tokens/s (%.1f per GPU), %.0f TFLOP/s per GPU, MFU "
                "%.1f %%, HFU %.1f %%\n",
             t->tokens_per_s, t->tokens_per_s_per_gpu,
             t->model_flops_per_gpu / 1e12, 100 * t->mfu, 100 * t->hfu);
}

/* In-network reduction (NVLS, IB SHARP): on, with the same layout's step
 * without it; off by request; or the IB switch without SHARP.  Nothing
 * when the hardware has none and none was asked for.
 */
static void innet (struct rbuf *b, const struct gp_train_plan_result *r,
                   const struct gp_train_accel_plan *p)
{
    const char *sw = r->ib_switch[0] ? r->ib_switch : NULL;
    if (r->sharp_off) {
        gp_rb_printf (b, "  in-network reduction: off (sharp: off)\n");
        return;
    }
    if (p->innet_nvls || p->innet_sharp) {
        double step = p->top[0].time.step_s, w = p->step_s_without;
        const char *what = p->innet_nvls && p->innet_sharp ? "NVLS + IB SHARP"
                           : p->innet_nvls                 ? "NVLS"
                                                           : "IB SHARP";
        if (w > step)
            gp_rb_printf (b, "  in-network reduction: %s on, step %.3f s "
                             "vs %.3f s without (%+.1f %%)\n",
                          what, step, w, 100 * (step / w - 1));
        else
            gp_rb_printf (b, "  in-network reduction: %s on, no gain for "
                             "this layout: it speeds up all-reduces only, "
                             "and %s\n",
                          what,
                          p->top[0].layout.sharding != GP_SHARD_NONE
                              ? "this layout reduce-scatters its gradients "
                                "(ZeRO/FSDP)"
                              : "this layout's are as fast on the ring "
                                "(under 2 MiB, under 5 ranks, or NVLink-"
                                "bound)");
    }
    if (sw && !p->innet_sharp)
        gp_rb_printf (b, "  IB SHARP: switch %s has no SHARP (not a "
                         "Quantum InfiniBand switch)\n", sw);
}

/* Reliability, time to train, energy, the batch note and the cost. */
static void outcome (struct rbuf *b, const struct gp_train_accel_plan *p)
{
    const struct gp_train_time *t = &p->top[0].time;
    gp_rb_printf (b, "  reliability: job MTBF %.1f h, checkpoint every %.0f s "
                "(write %.1f s), goodput %.1f %%, storage for <=5 %% "
                "checkpoint overhead %.0f GB/s\n",
             p->rel.mtbf_s / 3600, p->rel.interval_s, p->rel.ckpt_write_s,
             100 * p->rel.goodput, p->rel.storage_bw_needed / 1e9);
    char gh[32], lost[32];
    gp_format_quantity (p->gpu_hours, GP_Q_COUNT, 0, gh, sizeof gh);
    gp_format_quantity (p->lost_gpu_hours, GP_Q_COUNT, 0, lost, sizeof lost);
    if (p->days > 0)
        gp_rb_printf (b, "  over the run: %.0f expected interruptions, %s "
                    "GPU-hours lost to checkpoints, restarts and rework\n",
                 p->interruptions, lost);
    if (p->days > 0 && p->energy_kwh > 0) {
        /* three significant digits, whole MWh from 1,000 on (no exponent,
         * and a small fine-tune does not read "0 MWh")
         */
        double mwh = p->energy_kwh / 1e3;
        char e[32];
        snprintf (e, sizeof e, mwh < 1000 ? "%.3g" : "%.0f", mwh);
        gp_rb_printf (b, "  time to train %.1f days, %s GPU-hours, %s MWh "
                    "(TDP x %.0f %%)\n",
                 p->days, gh, e, 100 * p->hw.util_power);
    }
    else if (p->days > 0)
        gp_rb_printf (b, "  time to train %.1f days, %s GPU-hours (energy "
                    "unknown: no TDP in the catalog)\n",
                 p->days, gh);
    if (p->batch_limited)
        gp_rb_printf (b, "  note: the pipeline bubble is %.0f %% of the step: the "
                    "global batch (%.0f sequences) leaves few micro-batches "
                    "per pipeline at this size; a larger batch or a longer "
                    "deadline needs fewer GPUs\n",
                 100 * t->pp_bubble_s / t->step_s, p->global_batch);
    if (p->batch_inefficient)
        gp_rb_printf (b, "  warning: the given batch (%.0f sequences) forces "
                    "an inefficient layout: MFU %.1f %%, while the batch the "
                    "planner chooses (%.0f sequences) reaches %.1f %% on %d "
                    "GPUs\n",
                 p->global_batch, 100 * t->mfu, p->free_global_batch,
                 100 * p->free_mfu, p->free_n_gpus);
    const struct gp_instance *in = p->price.inst;
    if (in && p->gpu_hours > 0) {
        char usd[32];
        gp_fmt_usd (p->on_demand_usd, usd, sizeof usd);
        gp_rb_printf (b, "  cost hook: %s GPU-hours x $%.2f/GPU-hour (cheapest "
                    "on-demand: %s %s, %s) = %s on demand\n",
                 gh, p->price.usd_per_gpu_hour, in->cloud, in->id,
                 in->region, usd);
        gp_rb_printf (b, "    price as of %s%s%s; source: %s\n",
                 in->price_as_of && in->price_as_of[0] ? in->price_as_of
                                                       : "(undated)",
                 p->price.flagged ? ", flagged " : "",
                 p->price.flagged ? in->price_flags : "",
                 in->source && in->source[0] ? in->source : "(none)");
        if (p->price.flagged || p->price.undated)
            gp_rb_printf (b, "  WARNING: the price of %s is %s (no unflagged, "
                             "dated on-demand price for this accelerator; "
                             "docs/model/cost.md, \"The pricing rule\")\n",
                          in->id,
                          p->price.flagged ? "flagged in the catalog"
                                           : "undated");
    }
}

/* The deadline curve: GPUs against days, from an eighth of the answer
 * up (the JSON has every size), and the sizes skipped as slower; with a
 * fixed count, the same curve around it (train_plan.c, fixed_curve).
 */
static void curve (struct rbuf *b, const struct gp_train_plan_result *r,
                   const struct gp_train_accel_plan *p)
{
    char ls[120];
    size_t shown = 0, skipped = 0;
    if (!p->n_curve)
        return;
    int fixed = r->fixed_gpus > 0;
    if (fixed)
        gp_rb_printf (b, "  GPUs vs days (fastest batch and layout per "
                         "whole-node size, around the given count):\n");
    else
        gp_rb_printf (b, "  GPUs vs days (fastest batch and layout per size; "
                    "the answer is the fewest that meet the date):\n");
    gp_rb_printf (b, "    %8s %8s %6s %12s  %s\n", "GPUs", "days", "MFU",
             "batch (tok)", "layout");
    for (size_t i = 0; i < p->n_curve; i++) {
        const struct gp_train_curve_pt *c = &p->curve[i];
        if (c->slower_than) {
            skipped++;
            continue;
        }
        if (c->gpus * 8 < p->n_gpus)
            continue;
        gp_train_layout_text (&c->layout, ls, sizeof ls);
        gp_rb_printf (b, "    %8d %8.1f %5.1f%% %11.3gM  %s%s\n", c->gpus,
                 c->days, 100 * c->mfu, c->global_batch * r->job.seq_len / 1e6,
                 ls, c->gpus != p->n_gpus ? ""
                     : fixed             ? "  <- given"
                                         : "  <- chosen");
        shown++;
    }
    if (skipped)
        gp_rb_printf (b, "    (%zu sizes skipped: not faster than a smaller "
                    "size; see --json)\n", skipped);
}

static void lists (struct rbuf *b, const struct gp_train_accel_plan *p)
{
    char ls[120], v[256];
    gp_rb_printf (b, "  top layouts:\n");
    for (size_t i = 0; i < p->n_top; i++) {
        gp_train_layout_text (&p->top[i].layout, ls, sizeof ls);
        gp_rb_printf (b, "    %zu. %-44s step %.3f s  MFU %.1f %%  mem %.1f GB\n",
                 i + 1, ls, p->top[i].time.step_s, 100 * p->top[i].time.mfu,
                 p->top[i].mem.total / 1e9);
    }
    gp_rb_printf (b, "  why not a neighbouring layout:\n");
    for (size_t i = 0; i < p->n_alt; i++) {
        gp_train_layout_text (&p->alt[i].layout, ls, sizeof ls);
        gp_rb_printf (b, "    %-20s %-44s %s\n",
                 gp_train_change_str (p->alt[i].change), ls,
                 gp_train_verdict_text (&p->alt[i], v, sizeof v));
    }
}

char *gp_report_train_text (const struct gp_train_plan_result *r)
{
    struct rbuf rb = {0}, *b = &rb;
    header (b, r);
    for (size_t i = 0; i < r->n_accels; i++) {
        const struct gp_train_accel_plan *p = &r->accels[i];
        gp_rb_printf (b, "== %s\n", p->accel->id);
        if (!p->feasible) {
            char why[320];
            gp_rb_printf (b, "  infeasible: %s\n\n",
                     gp_train_reason_text (r, p, why, sizeof why));
            continue;
        }
        shape (b, p, r->job.seq_len, r->job.attn_kernel);
        innet (b, r, p);
        outcome (b, p);
        curve (b, r, p);
        lists (b, p);
        gp_rb_printf (b, "\n");
    }
    return gp_rb_take (b, NULL);
}
