/* cmd_train.c - 'gpuplan train': how a training job fits, how fast it runs
 * on each candidate GPU type, how many GPUs it needs to finish on time,
 * and why the chosen layout beats its neighbours.
 *
 * Inputs come from a YAML spec and/or flags (flags win); the JSON output is
 * documented in docs/formats/train.md, the model in docs/model/training.md.
 */
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "gpuplan/arch.h"
#include "gpuplan/spec.h"
#include "gpuplan/train.h"

const char cmd_train_help[] =
    "NAME\n"
    "    gpuplan train - memory, layout, step time and GPU count of a "
    "training job\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan train [SPEC.yaml] [--model ID | --layers N --hidden N ...]\n"
    "                  [--gpu ID[,ID...] | --instance TYPE]\n"
    "                  [--gpus N | --days D] [--tokens N] [--seq-len N]\n"
    "                  [--batch-tokens N | --global-batch N] [OPTIONS]\n"
    "\n"
    "DESCRIPTION\n"
    "    For each accelerator type, searches every parallel layout (TP,\n"
    "    PP, DP, CP, EP, virtual stages, micro-batch, recomputation,\n"
    "    ZeRO/FSDP stage), keeps those that fit in memory and reports the\n"
    "    fastest: per-GPU memory, step time with its breakdown, tokens/s,\n"
    "    MFU, time to train, GPU-hours, energy, the reliability block\n"
    "    (Young/Daly checkpoint interval, goodput) and why the neighbouring\n"
    "    layouts lost (out of memory, bubble, communication).  With --days\n"
    "    it finds the fewest whole nodes that finish the tokens in time.\n"
    "    Every option is also a SPEC.yaml key (write '_' for '-'); flags\n"
    "    override the spec (docs/formats/train.md).\n"
    "\n"
    "OPTIONS\n"
    "  model\n"
    "    --model ID        model-zoo id\n"
    "    --layers, --hidden, --ffn-hidden, --heads, --kv-heads, --vocab N\n"
    "    --mlp gelu|swiglu, --moe-experts, --moe-topk, --moe-ffn-hidden N\n"
    "                      explicit dimensions (override the zoo entry)\n"
    "  job\n"
    "    --tokens N        training tokens (e.g. 15T)\n"
    "    --seq-len N       sequence length (default 4096)\n"
    "    --batch-tokens N  global batch in tokens (default 4M)\n"
    "    --global-batch N  global batch in sequences\n"
    "    --precision P     bf16 (default), fp16 or fp8\n"
    "    --optimizer-states fp32|bf16   Adam moment dtype (default fp32)\n"
    "    --framework megatron|fsdp      restrict the sharding search\n"
    "    --pp-schedule 1f1b|a2a-overlap|dualpipe   pipeline schedule and\n"
    "                      MoE all-to-all overlap (default 1f1b: exposed)\n"
    "    --gpus N | --days D            fixed count, or a deadline\n"
    "  hardware\n"
    "    --gpu LIST        accelerator ids, comma-separated (H100-SXM)\n"
    "    --instance TYPE   a cloud instance (implies GPU, GPUs per node and\n"
    "                      network bandwidth)\n"
    "    --gpus-per-node N, --scale-up-domain N (e.g. 72 for NVL72)\n"
    "    --nic-bw BW       scale-out bandwidth per GPU (e.g. 400Gbps)\n"
    "    --nic-latency T   per hop (e.g. 5us)\n"
    "    --oversubscription X   fabric oversubscription (>= 1)\n"
    "  output\n"
    "    --top K           layouts to list (default 3, at most 10)\n"
    "    --json            one JSON document (docs/formats/train.md)\n"
    "    --catalog DIR     merge catalog CSV files found in DIR\n"
    "\n"
    "EXIT STATUS\n"
    "    0 ok; 1 nothing fits or the deadline cannot be met (with the\n"
    "    reason); 2 bad flag, spec or unknown name.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan train --model llama3.1-405b --tokens 15T --days 90 \\\n"
    "        --gpu H100-SXM,B200,MI300X --seq-len 8192 --batch-tokens 16M\n"
    "    gpuplan train examples/train-llama3-405b.yaml --json\n"
    "    gpuplan train --model llama3-70b --instance p5.48xlarge --gpus 256\n";

struct tspec {
    char model[64];
    char gpu[256];
    char instance[64];
    int gpus;
    double days;
    double tokens;
    double seq_len;
    double global_batch;
    double batch_tokens;
    int precision;
    int framework;
    int pp_schedule;
    int optimizer_states;
    int top;
    /* explicit dimensions (override the zoo entry, or define a model) */
    int layers, hidden, ffn_hidden, heads, kv_heads, vocab, mlp;
    int moe_experts, moe_topk, moe_ffn_hidden;
    /* hardware overrides */
    int gpus_per_node, scale_up_domain;
    double nic_bw, nic_latency, oversubscription;
};

static const char *const prec_names[] = {"bf16", "fp16", "fp8", NULL};
static const char *const fw_names[] = {"megatron", "fsdp", NULL};
static const char *const opt_names[] = {"fp32", "bf16", NULL};
static const char *const sched_names[] = {"1f1b", "a2a-overlap", "dualpipe",
                                          NULL};
static const char *const mlp_names[] = {"gelu", "swiglu", NULL};

#define F_(key, type, member, q, lo, hi, ch)                                  \
    {key, type, offsetof (struct tspec, member),                              \
     sizeof (((struct tspec *)0)->member), 0, q, ch, lo, hi}

/* One table for the spec keys and the flags (--key, '_' written '-'). */
static const struct gp_field spec_fields[] = {
    F_ ("model", GP_F_STRING, model, 0, 0, 0, NULL),
    F_ ("gpu", GP_F_STRING, gpu, 0, 0, 0, NULL),
    F_ ("instance", GP_F_STRING, instance, 0, 0, 0, NULL),
    F_ ("gpus", GP_F_INT, gpus, 0, 1, 1e7, NULL),
    F_ ("days", GP_F_DOUBLE, days, 0, 1e-3, 1e5, NULL),
    F_ ("tokens", GP_F_QUANTITY, tokens, GP_Q_COUNT, 1, 1e20, NULL),
    F_ ("seq_len", GP_F_QUANTITY, seq_len, GP_Q_COUNT, 1, 1e8, NULL),
    F_ ("global_batch", GP_F_QUANTITY, global_batch, GP_Q_COUNT, 1, 1e9,
        NULL),
    F_ ("batch_tokens", GP_F_QUANTITY, batch_tokens, GP_Q_COUNT, 1, 1e12,
        NULL),
    F_ ("precision", GP_F_ENUM, precision, 0, 0, 0, prec_names),
    F_ ("framework", GP_F_ENUM, framework, 0, 0, 0, fw_names),
    F_ ("pp_schedule", GP_F_ENUM, pp_schedule, 0, 0, 0, sched_names),
    F_ ("optimizer_states", GP_F_ENUM, optimizer_states, 0, 0, 0,
        opt_names),
    F_ ("top", GP_F_INT, top, 0, 1, 10, NULL),
    F_ ("layers", GP_F_INT, layers, 0, 1, 1e4, NULL),
    F_ ("hidden", GP_F_INT, hidden, 0, 1, 1e7, NULL),
    F_ ("ffn_hidden", GP_F_INT, ffn_hidden, 0, 1, 1e8, NULL),
    F_ ("heads", GP_F_INT, heads, 0, 1, 1e5, NULL),
    F_ ("kv_heads", GP_F_INT, kv_heads, 0, 1, 1e5, NULL),
    F_ ("vocab", GP_F_INT, vocab, 0, 1, 1e8, NULL),
    F_ ("mlp", GP_F_ENUM, mlp, 0, 0, 0, mlp_names),
    F_ ("moe_experts", GP_F_INT, moe_experts, 0, 1, 1e5, NULL),
    F_ ("moe_topk", GP_F_INT, moe_topk, 0, 1, 1e3, NULL),
    F_ ("moe_ffn_hidden", GP_F_INT, moe_ffn_hidden, 0, 1, 1e8, NULL),
    F_ ("gpus_per_node", GP_F_INT, gpus_per_node, 0, 1, 1024, NULL),
    F_ ("scale_up_domain", GP_F_INT, scale_up_domain, 0, 1, 1e6, NULL),
    F_ ("nic_bw", GP_F_QUANTITY, nic_bw, GP_Q_BANDWIDTH, 1e6, 1e14, NULL),
    F_ ("nic_latency", GP_F_QUANTITY, nic_latency, GP_Q_DURATION, 1e-9, 1,
        NULL),
    F_ ("oversubscription", GP_F_DOUBLE, oversubscription, 0, 1, 64, NULL),
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F_

/* Unset values: 0 for numbers and strings, -1 for enums. */
static void tspec_unset (struct tspec *t)
{
    memset (t, 0, sizeof *t);
    for (const struct gp_field *f = spec_fields; f->key; f++)
        if (f->type == GP_F_ENUM)
            *(int *)((char *)t + f->offset) = -1;
}

/* Parse flag value 'arg' for field 'f' into 't'. */
static int flag_value (const struct gp_field *f, const char *arg,
                       struct tspec *t)
{
    char *dst = (char *)t + f->offset;
    gp_error_t err = {0};
    double v;
    switch (f->type) {
    case GP_F_STRING:
        if (strlen (arg) >= f->size || !*arg)
            return cli_usage_error ("train: --%s: empty or too long", f->key);
        memcpy (dst, arg, strlen (arg) + 1);
        return 0;
    case GP_F_ENUM:
        for (int i = 0; f->choices[i]; i++)
            if (!strcmp (arg, f->choices[i])) {
                *(int *)dst = i;
                return 0;
            }
        return cli_usage_error ("train: unknown %s '%s'", f->key, arg);
    default:
        if (gp_parse_quantity (arg,
                               f->type == GP_F_QUANTITY ? f->quantity
                                                        : GP_Q_COUNT,
                               &v, &err))
            return cli_usage_error ("train: --%s: %s", f->key, err.text);
        if (f->min < f->max && (v < f->min || v > f->max))
            return cli_usage_error ("train: --%s %s out of range", f->key,
                                    arg);
        if (f->type == GP_F_INT)
            *(int *)dst = (int)v;
        else
            *(double *)dst = v;
        return 0;
    }
}

/* Copy every field set in 'fl' over 'sp'. */
static void tspec_merge (struct tspec *sp, const struct tspec *fl)
{
    for (const struct gp_field *f = spec_fields; f->key; f++) {
        const char *src = (const char *)fl + f->offset;
        char *dst = (char *)sp + f->offset;
        int set = f->type == GP_F_STRING  ? src[0] != 0
                  : f->type == GP_F_ENUM  ? *(const int *)src >= 0
                  : f->type == GP_F_INT   ? *(const int *)src != 0
                                          : *(const double *)src != 0;
        if (set)
            memcpy (dst, src, f->size);
    }
}

/* ============================== rendering ============================== */

static void lay_str (const struct gp_layout *l, char *b, size_t n)
{
    snprintf (b, n, "tp%d pp%d dp%d cp%d ep%d vpp%d mb%d%s %s %s%s%s",
              l->tp, l->pp, l->dp, l->cp, l->ep, l->vpp, l->micro_batch,
              l->seq_par ? " sp" : "", gp_recompute_str (l->recompute),
              gp_sharding_str (l->sharding),
              l->schedule != GP_SCHED_1F1B ? " " : "",
              l->schedule != GP_SCHED_1F1B ? gp_schedule_str (l->schedule)
                                           : "");
}

static json_t *lay_json (const struct gp_layout *l)
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
    json_object_set_new (o, "sharding",
                         json_string (gp_sharding_str (l->sharding)));
    json_object_set_new (o, "pp_schedule",
                         json_string (gp_schedule_str (l->schedule)));
    return o;
}

/* The fixed global batch, not the hardware, limits this size: the
 * pipeline bubble takes over 30 % of the step.
 */
static int batch_limited (const struct gp_train_time *t)
{
    return t->step_s > 0 && t->pp_bubble_s > 0.3 * t->step_s;
}

/* Why a neighbour of the best layout lost. */
static void verdict (const struct gp_train_model *m,
                     const struct gp_train_job *job,
                     const struct gp_train_hw *hw,
                     const struct gp_train_result *best,
                     const struct gp_layout *l, char *b, size_t n)
{
    gp_error_t err = {0};
    struct gp_train_result r;
    if (gp_train_eval (m, job, hw, l, &r, &err)) {
        snprintf (b, n, "invalid: %s", err.text);
        return;
    }
    if (!r.mem.fits) {
        snprintf (b, n, "out of memory: needs %.1f GB of %.1f GB",
                  r.mem.total / 1e9, r.mem.capacity / 1e9);
        return;
    }
    const struct gp_train_time *a = &best->time, *c = &r.time;
    struct {
        const char *what;
        double d;
    } terms[] = {
        {"pipeline bubble", c->pp_bubble_s - a->pp_bubble_s},
        {"TP communication", c->tp_comm_s - a->tp_comm_s},
        {"DP/ZeRO communication", c->dp_comm_s - a->dp_comm_s},
        {"recompute and GEMM efficiency", c->gemm_s - a->gemm_s},
        {"memory-bound kernels", c->mem_s - a->mem_s},
        {"attention", c->attn_s - a->attn_s},
        {"pipeline send/recv", c->pp_p2p_s - a->pp_p2p_s},
        {"optimizer step", c->optim_s - a->optim_s},
        {"expert/context communication",
         c->ep_comm_s + c->cp_comm_s - a->ep_comm_s - a->cp_comm_s},
    };
    size_t w = 0;
    for (size_t i = 1; i < sizeof terms / sizeof terms[0]; i++)
        if (terms[i].d > terms[w].d)
            w = i;
    double slow = c->step_s / a->step_s - 1;
    if (slow <= 0)
        snprintf (b, n, "as fast (%.1f%%)", 100 * slow);
    else
        snprintf (b, n, "%.1f%% slower: %s +%.3f s/step", 100 * slow,
                  terms[w].what, terms[w].d);
}

struct plan {
    const struct gp_instance *inst; /* cheapest on-demand, or NULL */
    double usd_per_gpu_hour;
    const struct gp_accel *acc;
    struct gp_train_hw hw;
    int n_gpus, feasible;
    char reason[240];
    struct gp_train_result top[10];
    size_t n_top;
    struct gp_reliability rel;
    double days, gpu_hours, energy_kwh;
};

static void plan_one (const struct gp_train_model *m,
                      const struct gp_train_job *job, const struct tspec *sp,
                      const struct gp_search_fix *fix0, struct plan *p)
{
    struct gp_search_fix fix = *fix0;
    int k = sp->top > 10 ? 10 : sp->top;
    int gpn = p->hw.gpus_per_node > 0 ? p->hw.gpus_per_node : 8;
    struct gp_search_stats st;
    memset (&st, 0, sizeof st);
    if (sp->gpus > 0) {
        p->n_gpus = sp->gpus;
        p->n_top = gp_search_layouts (m, job, &p->hw, sp->gpus, &fix, p->top,
                                      (size_t)k, &st);
    } else {
        /* Inverse sizing (gp_search_size): the fewest whole nodes. */
        struct gp_train_size sz;
        p->n_top = gp_search_size (m, job, &p->hw, &fix, sp->days, 262144,
                                   p->top, (size_t)k, &sz);
        p->n_gpus = sz.n_gpus;
        if (!p->n_top && sz.best_n)
            snprintf (p->reason, sizeof p->reason,
                      "cannot finish %.3g tokens in %.1f days: the global "
                      "batch of %.0f sequences caps scaling; the best is "
                      "%d GPUs at %.0f tokens/s (%.1f days); raise the "
                      "batch or the deadline",
                      job->tokens, sp->days, job->global_batch, sz.best_n,
                      sz.best_rate, job->tokens / sz.best_rate / 86400);
    }
    if (!p->n_top) {
        p->feasible = 0;
        if (sp->gpus > 0 && st.have_oom)
            snprintf (p->reason, sizeof p->reason,
                      "no layout fits on %d GPUs: the closest needs %.1f GB "
                      "of %.1f GB per GPU", sp->gpus,
                      st.best_oom.mem.total / 1e9, p->hw.mem_bytes / 1e9);
        else if (sp->gpus > 0)
            snprintf (p->reason, sizeof p->reason,
                      "no valid layout on %d GPUs (batch, heads or layers "
                      "do not divide)", sp->gpus);
        else if (!p->reason[0])
            snprintf (p->reason, sizeof p->reason,
                      "cannot finish %.3g tokens in %.1f days: no layout "
                      "fits at any size up to 262,144 GPUs", job->tokens,
                      sp->days);
        return;
    }
    p->feasible = 1;
    const struct gp_train_time *t = &p->top[0].time;
    gp_train_reliability (m, job, p->n_gpus, gpn, &p->rel);
    if (job->tokens > 0) {
        double sec = job->tokens / (t->tokens_per_s * p->rel.goodput);
        p->days = sec / 86400;
        p->gpu_hours = sec * p->n_gpus / 3600;
        p->energy_kwh = p->gpu_hours * p->hw.tdp_w * p->hw.util_power / 1e3;
    }
}

/* Cost hook: the cheapest on-demand catalog instance with this
 * accelerator, per GPU-hour (the cost module does the full TCO).
 */
static void cost_hook (const struct gp_catalog *cat, struct plan *p)
{
    for (size_t i = 0; i < gp_catalog_n_instances (cat); i++) {
        const struct gp_instance *in = gp_catalog_instance (cat, i);
        if (in->accel != p->acc || in->on_demand_usd_hr <= 0
            || in->n_accels <= 0)
            continue;
        double v = in->on_demand_usd_hr / in->n_accels;
        if (!p->inst || v < p->usd_per_gpu_hour) {
            p->inst = in;
            p->usd_per_gpu_hour = v;
        }
    }
}

static void alternatives (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct plan *p, json_t *arr, int print)
{
    const struct gp_train_result *b = &p->top[0];
    struct gp_layout alt[16];
    const char *what[16];
    int n = 0;
    struct gp_layout l = b->layout;
#define ALT(expr, label)                                                      \
    do {                                                                      \
        l = b->layout;                                                        \
        expr;                                                                 \
        alt[n] = l;                                                           \
        what[n++] = label;                                                    \
    } while (0)
    if (b->layout.dp % 2 == 0)
        ALT ((l.tp *= 2, l.dp /= 2, l.seq_par = 1), "tp x2");
    if (b->layout.tp > 1)
        ALT ((l.tp /= 2, l.dp *= 2, l.seq_par = l.tp > 1), "tp /2");
    if (b->layout.dp % 2 == 0) {
        /* Interleaving survives when vpp still divides the layers of
         * each of the twice as many stages; else it is dropped, and said.
         */
        int keep = b->layout.vpp <= 1
                   || m->layers % (2 * b->layout.pp * b->layout.vpp) == 0;
        ALT ((l.pp *= 2, l.dp /= 2, l.vpp = keep ? l.vpp : 1),
             keep ? "pp x2" : "pp x2, no interleaving");
    }
    if (b->layout.pp % 2 == 0)
        ALT ((l.pp /= 2, l.dp *= 2, l.vpp = l.pp > 1 ? l.vpp : 1), "pp /2");
    ALT (l.micro_batch *= 2, "micro-batch x2");
    for (int r = 0; r < 3; r++)
        if (r != (int)b->layout.recompute
            && !(r == GP_RECOMP_SELECTIVE && job->flash_attn))
            ALT (l.recompute = r, r == 0   ? "no recompute"
                                  : r == 1 ? "selective recompute"
                                           : "full recompute");
    for (int s = 0; s < 4; s++) /* ZeRO-2/3 only without PP */
        if (s != (int)b->layout.sharding && (s < 2 || b->layout.pp == 1))
            ALT (l.sharding = s, s == 0   ? "no sharding"
                                 : s == 1 ? "zero1"
                                 : s == 2 ? "zero2"
                                          : "zero3");
#undef ALT
    for (int i = 0; i < n; i++) {
        char v[200], ls[120];
        verdict (m, job, &p->hw, b, &alt[i], v, sizeof v);
        lay_str (&alt[i], ls, sizeof ls);
        if (print)
            printf ("    %-20s %-44s %s\n", what[i], ls, v);
        if (arr) {
            json_t *o = json_object ();
            json_object_set_new (o, "change", json_string (what[i]));
            json_object_set_new (o, "layout", lay_json (&alt[i]));
            json_object_set_new (o, "verdict", json_string (v));
            json_array_append_new (arr, o);
        }
    }
}

static json_t *plan_json (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct plan *p)
{
    json_t *o = json_object ();
    json_object_set_new (o, "gpu", json_string (p->acc->id));
    json_object_set_new (o, "feasible", json_boolean (p->feasible));
    if (!p->feasible) {
        json_object_set_new (o, "reason", json_string (p->reason));
        return o;
    }
    const struct gp_train_result *b = &p->top[0];
    int gpn = p->hw.gpus_per_node > 0 ? p->hw.gpus_per_node : 8;
    json_object_set_new (o, "n_gpus", json_integer (p->n_gpus));
    json_object_set_new (o, "nodes",
                         json_integer ((p->n_gpus + gpn - 1) / gpn));
    json_object_set_new (o, "layout", lay_json (&b->layout));
    const struct gp_train_mem *mm = &b->mem;
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
    json_object_set_new (o, "memory", mem);
    const struct gp_train_time *t = &b->time;
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
    json_object_set_new (o, "step", st);
    json_object_set_new (o, "tokens_per_s", json_real (t->tokens_per_s));
    json_object_set_new (o, "tokens_per_s_per_gpu",
                         json_real (t->tokens_per_s_per_gpu));
    json_object_set_new (o, "model_flops_per_gpu",
                         json_real (t->model_flops_per_gpu));
    json_object_set_new (o, "mfu", json_real (t->mfu));
    json_object_set_new (o, "hfu", json_real (t->hfu));
    json_object_set_new (o, "days", cli_json_known (p->days));
    json_object_set_new (o, "gpu_hours", cli_json_known (p->gpu_hours));
    json_object_set_new (o, "energy_kwh", cli_json_known (p->energy_kwh));
    json_t *cost = json_object ();
    json_object_set_new (cost, "gpu_hours", cli_json_known (p->gpu_hours));
    json_object_set_new (cost, "cheapest_on_demand_usd_per_gpu_hour",
                         cli_json_known (p->usd_per_gpu_hour));
    json_object_set_new (cost, "instance",
                         p->inst ? json_string (p->inst->id) : json_null ());
    json_object_set_new (cost, "cloud",
                         p->inst ? json_string (p->inst->cloud)
                                 : json_null ());
    json_object_set_new (cost, "region",
                         p->inst ? json_string (p->inst->region)
                                 : json_null ());
    json_object_set_new (cost, "on_demand_usd",
                         cli_json_known (p->usd_per_gpu_hour * p->gpu_hours));
    json_object_set_new (o, "cost_hook", cost);
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
                         p->days > 0 ? json_real (p->days * 86400
                                                  / p->rel.mtbf_s)
                                     : json_null ());
    json_object_set_new (rel, "lost_gpu_hours",
                         cli_json_known (p->gpu_hours * p->rel.overhead));
    json_object_set_new (o, "reliability", rel);
    json_object_set_new (o, "batch_limited",
                         json_boolean (batch_limited (t)));
    json_t *top = json_array ();
    for (size_t i = 0; i < p->n_top; i++) {
        json_t *e = json_object ();
        json_object_set_new (e, "layout", lay_json (&p->top[i].layout));
        json_object_set_new (e, "step_s", json_real (p->top[i].time.step_s));
        json_object_set_new (e, "mfu", json_real (p->top[i].time.mfu));
        json_object_set_new (e, "memory_bytes",
                             json_real (p->top[i].mem.total));
        json_array_append_new (top, e);
    }
    json_object_set_new (o, "top", top);
    json_t *alts = json_array ();
    alternatives (m, job, p, alts, 0);
    json_object_set_new (o, "alternatives", alts);
    return o;
}

static void plan_print (const struct gp_train_model *m,
                        const struct gp_train_job *job, const struct plan *p)
{
    printf ("== %s\n", p->acc->id);
    if (!p->feasible) {
        printf ("  infeasible: %s\n\n", p->reason);
        return;
    }
    const struct gp_train_result *b = &p->top[0];
    const struct gp_train_time *t = &b->time;
    const struct gp_train_mem *mm = &b->mem;
    char ls[120];
    lay_str (&b->layout, ls, sizeof ls);
    int gpn = p->hw.gpus_per_node > 0 ? p->hw.gpus_per_node : 8;
    int nodes = (p->n_gpus + gpn - 1) / gpn;
    printf ("  GPUs %d (%d node%s of %d)   layout %s\n", p->n_gpus, nodes,
            nodes == 1 ? "" : "s", gpn, ls);
    printf ("  memory/GPU %.1f GB of %.1f GB (weights %.1f, grads %.1f, "
            "optimizer %.1f, activations %.1f, logits %.1f, buffers %.1f, "
            "runtime %.1f)\n",
            mm->total / 1e9, mm->capacity / 1e9, mm->weights / 1e9,
            mm->grads / 1e9, mm->optim / 1e9, mm->activations / 1e9,
            mm->logits / 1e9, mm->buffers / 1e9, mm->runtime / 1e9);
    printf ("  step %.3f s = GEMM %.3f + attention %.3f + memory-bound %.3f "
            "+ TP %.3f + CP %.3f + EP %.3f + bubble %.3f + p2p %.3f + DP "
            "%.3f + optimizer %.3f\n",
            t->step_s, t->gemm_s, t->attn_s, t->mem_s, t->tp_comm_s,
            t->cp_comm_s, t->ep_comm_s, t->pp_bubble_s, t->pp_p2p_s,
            t->dp_comm_s, t->optim_s);
    printf ("  %.0f tokens/s (%.1f per GPU), %.0f TFLOP/s per GPU, MFU "
            "%.1f %%, HFU %.1f %%\n",
            t->tokens_per_s, t->tokens_per_s_per_gpu,
            t->model_flops_per_gpu / 1e12, 100 * t->mfu, 100 * t->hfu);
    printf ("  reliability: job MTBF %.1f h, checkpoint every %.0f s "
            "(write %.1f s), goodput %.1f %%, storage for <=5 %% "
            "checkpoint overhead %.0f GB/s\n",
            p->rel.mtbf_s / 3600, p->rel.interval_s, p->rel.ckpt_write_s,
            100 * p->rel.goodput, p->rel.storage_bw_needed / 1e9);
    if (p->days > 0)
        printf ("  over the run: %.0f expected interruptions, %.3g GPU-hours "
                "lost to checkpoints, restarts and rework\n",
                p->days * 86400 / p->rel.mtbf_s,
                p->gpu_hours * p->rel.overhead);
    if (p->days > 0 && p->energy_kwh > 0)
        printf ("  time to train %.1f days, %.3g GPU-hours, %.3g MWh "
                "(TDP x %.0f %%)\n",
                p->days, p->gpu_hours, p->energy_kwh / 1e3,
                100 * p->hw.util_power);
    else if (p->days > 0)
        printf ("  time to train %.1f days, %.3g GPU-hours (energy unknown: "
                "no TDP in the catalog)\n", p->days, p->gpu_hours);
    if (batch_limited (t))
        printf ("  note: the pipeline bubble is %.0f %% of the step: the "
                "global batch (%.0f sequences) leaves few micro-batches per "
                "pipeline at this size; a larger batch or a longer deadline "
                "needs fewer GPUs\n",
                100 * t->pp_bubble_s / t->step_s, job->global_batch);
    if (p->inst && p->gpu_hours > 0)
        printf ("  cost hook: %.3g GPU-hours x $%.2f/GPU-hour (cheapest "
                "on-demand: %s %s, %s) = $%.3g M on demand\n",
                p->gpu_hours, p->usd_per_gpu_hour, p->inst->cloud,
                p->inst->id, p->inst->region,
                p->usd_per_gpu_hour * p->gpu_hours / 1e6);
    printf ("  top layouts:\n");
    for (size_t i = 0; i < p->n_top; i++) {
        lay_str (&p->top[i].layout, ls, sizeof ls);
        printf ("    %zu. %-44s step %.3f s  MFU %.1f %%  mem %.1f GB\n",
                i + 1, ls, p->top[i].time.step_s, 100 * p->top[i].time.mfu,
                p->top[i].mem.total / 1e9);
    }
    printf ("  why not a neighbouring layout:\n");
    alternatives (m, job, p, NULL, 1);
    printf ("\n");
}

int cmd_train (int argc, char **argv)
{
    /* long options: one per spec key, plus --json, --catalog, --help */
    enum { N_FIELDS = sizeof spec_fields / sizeof spec_fields[0] - 1 };
    static char names[N_FIELDS][32];
    static struct option opts[N_FIELDS + 4];
    int no = 0;
    for (int i = 0; i < N_FIELDS; i++) {
        snprintf (names[i], sizeof names[i], "%s", spec_fields[i].key);
        for (char *c = names[i]; *c; c++)
            if (*c == '_')
                *c = '-';
        opts[no++] = (struct option){names[i], required_argument, NULL,
                                     256 + i};
    }
    opts[no++] = (struct option){"json", no_argument, NULL, 'j'};
    opts[no++] = (struct option){"catalog", required_argument, NULL, 'c'};
    opts[no++] = (struct option){"help", no_argument, NULL, 'h'};
    opts[no] = (struct option){NULL, 0, NULL, 0};

    struct tspec sp, fl;
    tspec_unset (&sp);
    tspec_unset (&fl);
    int as_json = 0;
    const char *dir = NULL;
    gp_error_t err = {0};
    int o;
    optind = 0;
    opterr = 0;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        if (o >= 256 && o < 256 + N_FIELDS) {
            int rc = flag_value (&spec_fields[o - 256], optarg, &fl);
            if (rc)
                return rc;
            continue;
        }
        switch (o) {
        case 'j':
            as_json = 1;
            break;
        case 'c':
            dir = optarg;
            break;
        case 'h':
            return cli_help ("train");
        default:
            return cli_usage_error ("train: unknown or incomplete option "
                                    "'%s' (see 'gpuplan train --help')",
                                    argv[optind - 1]);
        }
    }
    if (optind < argc - 1)
        return cli_usage_error ("train: at most one SPEC.yaml");
    /* the spec stays loaded until the model is resolved, so that an
     * unknown model is reported at its file:line:col
     */
    struct gp_doc *doc = NULL;
    if (optind == argc - 1) {
        doc = gp_doc_load (argv[optind], &err);
        if (!doc)
            return cli_fail (&err);
        int rc = gp_doc_unpack (doc, gp_doc_root (doc), "train", spec_fields,
                                &sp, &err);
        if (rc) {
            gp_doc_destroy (doc);
            return cli_fail (&err);
        }
    }
    int model_from_spec = doc && sp.model[0] && !fl.model[0];
    /* flags override the spec; a count replaces a deadline and a batch in
     * sequences one in tokens, and vice versa
     */
    if (fl.gpus)
        sp.days = 0;
    if (fl.days)
        sp.gpus = 0;
    if (fl.batch_tokens)
        sp.global_batch = 0;
    if (fl.global_batch)
        sp.batch_tokens = 0;
    tspec_merge (&sp, &fl);
    if (!sp.top)
        sp.top = 3;
    if (!sp.model[0] && !(sp.layers && sp.hidden)) {
        gp_doc_destroy (doc);
        return cli_usage_error ("train: no model (--model ID, or --layers "
                                "and --hidden, or a spec)");
    }

    /* ---- model: zoo entry and/or explicit dimensions, resolved before
     * the other checks so that a bad model is the error reported ---- */
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    if (!zoo) {
        gp_doc_destroy (doc);
        return cli_fail (&err);
    }
    struct gp_arch arch;
    memset (&arch, 0, sizeof arch);
    if (sp.model[0]) {
        const struct gp_arch *z = gp_zoo_find (zoo, sp.model, &err);
        if (!z) {
            gp_zoo_destroy (zoo);
            if (model_from_spec) {
                gp_error_t e2 = {0};
                json_t *node = json_object_get (gp_doc_root (doc), "model");
                gp_doc_errorf (doc, node, &e2, err.code, "train: %s",
                               err.text);
                err = e2;
            }
            gp_doc_destroy (doc);
            return cli_fail (&err);
        }
        arch = *z;
    }
    gp_doc_destroy (doc);
    doc = NULL;
    if (sp.gpus <= 0 && sp.days <= 0) {
        gp_zoo_destroy (zoo);
        return cli_usage_error ("train: give --gpus N or --days D");
    }
    if (sp.days > 0 && sp.tokens <= 0) {
        gp_zoo_destroy (zoo);
        return cli_usage_error ("train: --days needs --tokens");
    }
    if (!sp.model[0]) {
        snprintf (arch.id, sizeof arch.id, "custom");
        arch.vocab = 51200;
        arch.mlp = GP_MLP_GELU;
    }
    int heads0 = arch.heads;
    if (sp.layers)
        arch.layers = sp.layers;
    if (sp.hidden)
        arch.hidden = sp.hidden;
    if (sp.ffn_hidden)
        arch.ffn_hidden = sp.ffn_hidden;
    if (sp.heads)
        arch.heads = sp.heads;
    if (sp.kv_heads)
        arch.kv_heads = sp.kv_heads;
    if (sp.vocab)
        arch.vocab = sp.vocab;
    if (sp.mlp >= 0)
        arch.mlp = sp.mlp ? GP_MLP_SWIGLU : GP_MLP_GELU;
    if (sp.moe_experts)
        arch.moe_experts = sp.moe_experts;
    if (sp.moe_topk)
        arch.moe_topk = sp.moe_topk;
    if (sp.moe_ffn_hidden)
        arch.moe_ffn_hidden = sp.moe_ffn_hidden;
    if (arch.heads <= 0)
        arch.heads = arch.hidden % 128 == 0 ? arch.hidden / 128
                                            : (arch.hidden + 63) / 64;
    if (arch.kv_heads <= 0 || arch.kv_heads > arch.heads)
        arch.kv_heads = arch.heads;
    if (arch.ffn_hidden <= 0 && arch.moe_experts <= 0)
        arch.ffn_hidden = 4 * arch.hidden;
    if (arch.head_dim <= 0 || arch.heads != heads0)
        arch.head_dim = arch.hidden / arch.heads;
    if (arch.attention != GP_ATTN_MLA)
        arch.attention = arch.kv_heads < arch.heads ? GP_ATTN_GQA
                                                    : GP_ATTN_MHA;
    struct gp_train_model m;
    if (gp_train_prep (&arch, &m, &err)) {
        gp_zoo_destroy (zoo);
        return cli_fail (&err);
    }
    struct gp_catalog *cat = cli_catalog (dir, &err);
    if (!cat) {
        gp_zoo_destroy (zoo);
        return cli_fail (&err);
    }

    /* ---- job ---- */
    struct gp_train_job job;
    gp_train_job_default (&job);
    if (sp.precision >= 0)
        job.precision = sp.precision;
    if (sp.optimizer_states == 1)
        job.optim_bytes = 4 + 2 + 2; /* fp32 master, bf16 m and v */
    if (sp.seq_len > 0)
        job.seq_len = sp.seq_len;
    job.tokens = sp.tokens;
    /* A batch given in tokens becomes the nearest power-of-two count of
     * sequences, so that DP degrees and micro-batches divide it.
     */
    double bt = sp.batch_tokens > 0 ? sp.batch_tokens : 4194304.0;
    if (sp.global_batch > 0)
        job.global_batch = floor (sp.global_batch);
    else
        job.global_batch = exp2 (floor (log2 (bt / job.seq_len) + 0.5));
    if (job.global_batch < 1)
        job.global_batch = 1;
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);
    if (sp.pp_schedule >= 0)
        fix.schedule = sp.pp_schedule;
    if (sp.framework == 0) /* Megatron 3D: no or distributed optimizer */
        fix.sharding_max = GP_SHARD_ZERO1;
    else if (sp.framework == 1) { /* FSDP: fully sharded, no pipeline */
        fix.sharding = GP_SHARD_FSDP;
        fix.pp = 1;
    }

    /* ---- hardware: GPU list, or a cloud instance ---- */
    char list[256];
    int gpn = sp.gpus_per_node;
    double nic = sp.nic_bw;
    if (sp.instance[0]) {
        const struct gp_instance *in = gp_catalog_find_instance (
            cat, sp.instance, NULL, &err);
        if (!in) {
            gp_catalog_destroy (cat);
            gp_zoo_destroy (zoo);
            return cli_fail (&err);
        }
        snprintf (list, sizeof list, "%s", in->accel->id);
        if (!gpn)
            gpn = in->n_accels;
        if (nic <= 0 && in->net_bw > 0 && in->n_accels > 0)
            nic = in->net_bw / in->n_accels;
    } else
        snprintf (list, sizeof list, "%s",
                  sp.gpu[0] ? sp.gpu : "H100-SXM");

    struct plan plans[16];
    int n_plans = 0, rc = EXIT_OK;
    char *save = NULL;
    for (char *id = strtok_r (list, ",", &save); id && n_plans < 16;
         id = strtok_r (NULL, ",", &save)) {
        struct plan *p = &plans[n_plans];
        memset (p, 0, sizeof *p);
        p->acc = gp_catalog_find_accel (cat, id, &err);
        if (!p->acc) {
            rc = cli_fail (&err);
            goto out;
        }
        gp_train_hw_from_accel (p->acc, job.precision, &p->hw);
        if (gpn)
            p->hw.gpus_per_node = gpn;
        if (sp.scale_up_domain)
            p->hw.scale_up_domain = sp.scale_up_domain;
        if (nic > 0)
            p->hw.scale_out_bw = nic;
        if (sp.nic_latency > 0)
            p->hw.scale_out_lat_s = sp.nic_latency;
        if (sp.oversubscription >= 1)
            p->hw.oversub = sp.oversubscription;
        if (p->hw.peak_flops <= 0 || p->hw.mem_bytes <= 0) {
            gp_errprintf (&err, GP_EINVAL,
                          "accelerator '%s' lacks peak FLOP/s or memory in "
                          "the catalog", p->acc->id);
            rc = cli_fail (&err);
            goto out;
        }
        plan_one (&m, &job, &sp, &fix, p);
        cost_hook (cat, p);
        n_plans++;
    }
    int any = 0;
    for (int i = 0; i < n_plans; i++)
        any |= plans[i].feasible;
    if (as_json) {
        json_t *root = json_object ();
        json_object_set_new (root, "model", json_string (arch.id));
        json_object_set_new (root, "params", json_real (m.total_params));
        json_object_set_new (root, "tokens", cli_json_known (job.tokens));
        json_object_set_new (root, "seq_len", json_real (job.seq_len));
        json_object_set_new (root, "global_batch",
                             json_real (job.global_batch));
        json_object_set_new (root, "precision",
                             json_string (gp_precision_str (job.precision)));
        json_object_set_new (root, "target_days", cli_json_known (sp.days));
        json_t *res = json_array ();
        for (int i = 0; i < n_plans; i++)
            json_array_append_new (res, plan_json (&m, &job, &plans[i]));
        json_object_set_new (root, "results", res);
        rc = cli_print_json (root);
    } else {
        printf ("%s (%.3g B params), seq %.0f, batch %.0f sequences, %s",
                arch.id, m.total_params / 1e9, job.seq_len,
                job.global_batch, gp_precision_str (job.precision));
        if (job.tokens > 0)
            printf (", %.3g tokens", job.tokens);
        if (sp.days > 0)
            printf (", target %.1f days", sp.days);
        printf ("\n\n");
        for (int i = 0; i < n_plans; i++)
            plan_print (&m, &job, &plans[i]);
    }
    if (!any && rc == EXIT_OK) {
        for (int i = 0; i < n_plans; i++)
            fprintf (stderr, "gpuplan: error: %s: %s\n", plans[i].acc->id,
                     plans[i].reason);
        rc = EXIT_INFEASIBLE;
    }
out:
    gp_catalog_destroy (cat);
    gp_zoo_destroy (zoo);
    return rc;
}
