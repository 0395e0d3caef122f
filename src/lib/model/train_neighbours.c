/* train_neighbours.c - why the chosen layout beats its neighbours: each
 * layout one change away (TP, PP, micro-batch, recomputation, sharding)
 * is evaluated and given a typed verdict (invalid, out of memory, or the
 * step-time term that grew most), and the texts the reports print.
 */
#include <stdio.h>
#include <string.h>

#include "gpuplan/train.h"
#include "train_private.h"

static const char *const change_names[] = {
    "tp x2",          "tp /2",         "pp x2",
    "pp x2, no interleaving",          "pp /2",
    "micro-batch x2", "no recompute",  "selective recompute",
    "full recompute", "no sharding",   "zero1",
    "zero2",          "zero3",
};

const char *gp_train_change_str (enum gp_train_change c)
{
    return (unsigned)c <= GP_CHG_SHARD_ZERO3 ? change_names[c] : "?";
}

static const char *const term_names[] = {
    "pipeline bubble",       "TP communication",
    "DP/ZeRO communication", "recompute and GEMM efficiency",
    "memory-bound kernels",  "attention",
    "pipeline send/recv",    "optimizer step",
    "expert/context communication",
};

void gp_train_layout_text (const struct gp_layout *l, char *b, size_t n)
{
    snprintf (b, n, "tp%d pp%d dp%d cp%d ep%d vpp%d mb%d%s %s %s%s%s",
              l->tp, l->pp, l->dp, l->cp, l->ep, l->vpp, l->micro_batch,
              l->seq_par ? " sp" : "",
              gp_recompute_fmt (l, 0, (char[24]){0}, 24),
              gp_sharding_str (l->sharding),
              l->schedule != GP_SCHED_1F1B ? " " : "",
              l->schedule != GP_SCHED_1F1B ? gp_schedule_str (l->schedule)
                                           : "");
}

/* Judge neighbour 'nb->layout' against 'best'. */
static void judge (const struct gp_train_model *m,
                   const struct gp_train_job *job,
                   const struct gp_train_hw *hw,
                   const struct gp_train_result *best,
                   struct gp_train_neighbour *nb)
{
    gp_error_t err = {0};
    struct gp_train_result r;
    if (gp_train_eval (m, job, hw, &nb->layout, &r, &err)) {
        nb->verdict = GP_VERDICT_INVALID;
        snprintf (nb->invalid, sizeof nb->invalid, "%s", err.text);
        return;
    }
    if (!r.mem.fits) {
        nb->verdict = GP_VERDICT_OOM;
        nb->mem_bytes = r.mem.total;
        nb->capacity_bytes = r.mem.capacity;
        return;
    }
    const struct gp_train_time *a = &best->time, *c = &r.time;
    double d[] = {
        c->pp_bubble_s - a->pp_bubble_s, c->tp_comm_s - a->tp_comm_s,
        c->dp_comm_s - a->dp_comm_s,     c->gemm_s - a->gemm_s,
        c->mem_s - a->mem_s,             c->attn_s - a->attn_s,
        c->pp_p2p_s - a->pp_p2p_s,       c->optim_s - a->optim_s,
        c->ep_comm_s + c->cp_comm_s - a->ep_comm_s - a->cp_comm_s,
    };
    size_t w = 0;
    for (size_t i = 1; i < sizeof d / sizeof d[0]; i++)
        if (d[i] > d[w])
            w = i;
    nb->slowdown = c->step_s / a->step_s - 1;
    nb->term = (enum gp_train_term)w;
    nb->term_delta_s = d[w];
    nb->verdict = nb->slowdown <= 0 ? GP_VERDICT_AS_FAST : GP_VERDICT_SLOWER;
}

static void add (struct gp_train_neighbour *alt, size_t *n,
                 enum gp_train_change c, const struct gp_layout *l)
{
    memset (&alt[*n], 0, sizeof alt[*n]);
    alt[*n].change = c;
    alt[*n].layout = *l;
    (*n)++;
}

/* The TP and PP neighbours (each trades a factor 2 with DP). */
static void degree_changes (const struct gp_train_model *m,
                            const struct gp_layout *b,
                            struct gp_train_neighbour *alt, size_t *n)
{
    struct gp_layout l;
    if (b->dp % 2 == 0) {
        l = *b;
        l.tp *= 2, l.dp /= 2, l.seq_par = 1;
        add (alt, n, GP_CHG_TP_X2, &l);
    }
    if (b->tp > 1) {
        l = *b;
        l.tp /= 2, l.dp *= 2, l.seq_par = l.tp > 1;
        add (alt, n, GP_CHG_TP_HALF, &l);
    }
    if (b->dp % 2 == 0) {
        /* Interleaving survives when vpp still divides the layers of
         * each of the twice as many stages; else it is dropped, and said.
         */
        int keep = b->vpp <= 1 || m->layers % (2 * b->pp * b->vpp) == 0;
        l = *b;
        l.pp *= 2, l.dp /= 2, l.vpp = keep ? l.vpp : 1;
        /* block recomputation: the same share of the shorter chunks */
        if (l.recompute_layers > 0)
            l.recompute_layers = (l.recompute_layers + 1) / 2;
        if (l.recompute_layers >= gp_train_chunk_layers (&l, m->layers))
            l.recompute_layers = 0;
        add (alt, n, keep ? GP_CHG_PP_X2 : GP_CHG_PP_X2_NO_VPP, &l);
    }
    if (b->pp % 2 == 0) {
        l = *b;
        l.pp /= 2, l.dp *= 2, l.vpp = l.pp > 1 ? l.vpp : 1;
        if (l.recompute_layers > 0) /* the same share of longer chunks */
            l.recompute_layers *= 2;
        if (l.recompute_layers >= gp_train_chunk_layers (&l, m->layers))
            l.recompute_layers = 0;
        add (alt, n, GP_CHG_PP_HALF, &l);
    }
}

void gp_train_neighbours (const struct gp_train_model *m,
                          const struct gp_train_job *job,
                          const struct gp_train_hw *hw,
                          const struct gp_train_result *best,
                          struct gp_train_neighbour *alt, size_t *n)
{
    const struct gp_layout *b = &best->layout;
    struct gp_layout l;
    *n = 0;
    degree_changes (m, b, alt, n);
    l = *b;
    l.micro_batch *= 2;
    add (alt, n, GP_CHG_MB_X2, &l);
    for (int r = 0; r < 3; r++)
        if ((r != (int)b->recompute
             || (r == GP_RECOMP_FULL && b->recompute_layers > 0))
            && !(r == GP_RECOMP_SELECTIVE && job->flash_attn)) {
            l = *b;
            l.recompute = (enum gp_recompute)r;
            l.recompute_layers = 0; /* every layer, or none */
            add (alt, n, (enum gp_train_change)(GP_CHG_RECOMPUTE_NONE + r),
                 &l);
        }
    for (int s = 0; s < 4; s++) /* ZeRO-2/3 only without PP */
        if (s != (int)b->sharding && (s < 2 || b->pp == 1)) {
            l = *b;
            l.sharding = (enum gp_sharding)s;
            add (alt, n, (enum gp_train_change)(GP_CHG_SHARD_NONE + s), &l);
        }
    for (size_t i = 0; i < *n; i++)
        judge (m, job, hw, best, &alt[i]);
}

const char *gp_train_verdict_text (const struct gp_train_neighbour *nb,
                                   char *b, size_t n)
{
    switch (nb->verdict) {
    case GP_VERDICT_INVALID:
        snprintf (b, n, "invalid: %s", nb->invalid);
        break;
    case GP_VERDICT_OOM:
        snprintf (b, n, "out of memory: needs %.1f GB of %.1f GB",
                  nb->mem_bytes / 1e9, nb->capacity_bytes / 1e9);
        break;
    case GP_VERDICT_AS_FAST:
        snprintf (b, n, "as fast (%.1f%%)", 100 * nb->slowdown);
        break;
    default:
        snprintf (b, n, "%.1f%% slower: %s +%.3f s/step", 100 * nb->slowdown,
                  (unsigned)nb->term <= GP_TERM_EP_CP ? term_names[nb->term]
                                                      : "?",
                  nb->term_delta_s);
    }
    return b;
}

const char *gp_train_reason_text (const struct gp_train_plan_result *r,
                                  const struct gp_train_accel_plan *p,
                                  char *b, size_t n)
{
    const struct gp_train_job *job = &r->job;
    switch (p->why) {
    case GP_TRAIN_OOM_AT_COUNT:
        snprintf (b, n,
                  "no layout fits on %d GPUs: the closest needs %.1f GB "
                  "of %.1f GB per GPU", r->fixed_gpus, p->oom_bytes / 1e9,
                  p->capacity_bytes / 1e9);
        break;
    case GP_TRAIN_NO_LAYOUT_AT_COUNT:
        snprintf (b, n,
                  "no valid layout on %d GPUs (batch, heads or layers "
                  "do not divide)", r->fixed_gpus);
        break;
    case GP_TRAIN_BATCH_CAPS:
        snprintf (b, n,
                  "cannot finish %.3g tokens in %.1f days: the global "
                  "batch of %.0f sequences caps scaling; the best is "
                  "%d GPUs at %.0f tokens/s (%.1f days); raise the "
                  "batch or the deadline", job->tokens, r->target_days,
                  job->global_batch, p->best_n, p->best_rate,
                  job->tokens / p->best_rate / 86400);
        break;
    case GP_TRAIN_NO_FIT_ANY_SIZE:
        snprintf (b, n,
                  "cannot finish %.3g tokens in %.1f days: no layout "
                  "fits at any size up to 262,144 GPUs", job->tokens,
                  r->target_days);
        break;
    default:
        snprintf (b, n, "feasible");
    }
    return b;
}
