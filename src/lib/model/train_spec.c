/* train_spec.c - the `gpuplan train` spec (docs/formats/train.md): the
 * one table of keys that the YAML spec and the command's flags share, the
 * merge of flags over a spec and the request it describes.  Moved here
 * from the command so that `gpuplan serve` reads a train spec the same
 * way (train_spec.h).
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/arch.h"
#include "gpuplan/train_spec.h"

static const char *const prec_names[] = {
    "bf16", "fp16", "fp8", "mxfp8", "nvfp4", "fp8-delayed", "fp4", "mxfp4",
    "int8", NULL};
static const char *const fw_names[] = {"megatron", "fsdp", NULL};
static const char *const opt_names[] = {"fp32", "bf16", NULL};
static const char *const sched_names[] = {"1f1b", "a2a-overlap", "dualpipe",
                                          NULL};
static const char *const mlp_names[] = {"gelu", "swiglu", NULL};
/* enum gp_attn_kernel order */
static const char *const attn_kernel_names[] = {"auto", "fa2", "cudnn",
                                                NULL};
static const char *const sharp_names[] = {"off", "on", NULL};
/* LoRA fine-tuning (docs/model/training.md, "LoRA fine-tuning"): the
 * orders are enum gp_finetune, enum gp_lora_targets and, for
 * base_precision, enum gp_precision's first values up to fp8 (fp16 is not
 * a storage precision of frozen weights: gp__lora_request rejects it)
 */
static const char *const finetune_names[] = {"full", "lora", NULL};
static const char *const lora_target_names[] = {"attention", "mlp",
                                                "all-linear", NULL};
static const char *const base_prec_names[] = {"bf16", "fp16", "fp8", NULL};

#define F_(key, type, member, q, lo, hi, ch)                                  \
    {key, type, offsetof (struct gp_train_spec, member),                              \
     sizeof (((struct gp_train_spec *)0)->member), 0, q, ch, lo, hi}

/* One table for the spec keys and the flags (--key, '_' written '-'). */
const struct gp_field gp_train_spec_fields[] = {
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
    F_ ("attn_kernel", GP_F_ENUM, attn_kernel, 0, 0, 0, attn_kernel_names),
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
    F_ ("sharp", GP_F_ENUM, sharp, 0, 0, 0, sharp_names),
    F_ ("ib_switch", GP_F_STRING, ib_switch, 0, 0, 0, NULL),
    F_ ("finetune", GP_F_ENUM, finetune, 0, 0, 0, finetune_names),
    F_ ("lora_rank", GP_F_INT, lora_rank, 0, 1, 65536, NULL),
    F_ ("lora_targets", GP_F_ENUM, lora_targets, 0, 0, 0, lora_target_names),
    F_ ("base_precision", GP_F_ENUM, base_precision, 0, 0, 0,
        base_prec_names),
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F_
_Static_assert (sizeof gp_train_spec_fields / sizeof gp_train_spec_fields[0]
                    == GP_TRAIN_SPEC_N_FIELDS + 1,
                "GP_TRAIN_SPEC_N_FIELDS counts the keys");

/* Unset values: 0 for numbers and strings, -1 for enums. */
void gp_train_spec_unset (struct gp_train_spec *t)
{
    memset (t, 0, sizeof *t);
    for (const struct gp_field *f = gp_train_spec_fields; f->key; f++)
        if (f->type == GP_F_ENUM)
            *(int *)((char *)t + f->offset) = -1;
}

/* Copy every field set in 'fl' over 'sp'. */
void gp_train_spec_merge (struct gp_train_spec *sp,
                          const struct gp_train_spec *fl)
{
    for (const struct gp_field *f = gp_train_spec_fields; f->key; f++) {
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

/* The fine-tuning keys of 'sp' into 'rq' (train_lora.c). */
static void spec_lora (const struct gp_train_spec *sp,
                       struct gp_train_request *rq)
{
    rq->finetune = sp->finetune;
    rq->lora_rank = sp->lora_rank;
    rq->lora_targets = sp->lora_targets;
    rq->base_precision = sp->base_precision;
}

/* The request the merged spec and flags describe ('rq' borrows 'sp'). */
void gp_train_spec_request (const struct gp_train_spec *sp,
                            struct gp_train_request *rq)
{
    gp_train_request_init (rq);
    rq->model = sp->model;
    rq->dims = (struct gp_train_dims){
        .layers = sp->layers, .hidden = sp->hidden,
        .ffn_hidden = sp->ffn_hidden, .heads = sp->heads,
        .kv_heads = sp->kv_heads, .vocab = sp->vocab, .mlp = sp->mlp,
        .moe_experts = sp->moe_experts, .moe_topk = sp->moe_topk,
        .moe_ffn_hidden = sp->moe_ffn_hidden,
    };
    rq->accels = sp->gpu;
    rq->instance = sp->instance;
    rq->gpus = sp->gpus;
    rq->days = sp->days;
    rq->tokens = sp->tokens;
    rq->seq_len = sp->seq_len;
    rq->global_batch = sp->global_batch;
    rq->batch_tokens = sp->batch_tokens;
    rq->precision = sp->precision;
    rq->optimizer_states = sp->optimizer_states;
    rq->framework = sp->framework;
    rq->pp_schedule = sp->pp_schedule;
    rq->attn_kernel = sp->attn_kernel;
    rq->top = sp->top;
    rq->gpus_per_node = sp->gpus_per_node;
    rq->scale_up_domain = sp->scale_up_domain;
    rq->nic_bw = sp->nic_bw;
    rq->nic_latency = sp->nic_latency;
    rq->oversubscription = sp->oversubscription;
    rq->sharp = sp->sharp, rq->ib_switch = sp->ib_switch;
    spec_lora (sp, rq);
}

int gp_train_spec_from_doc (const struct gp_doc *doc,
                            struct gp_train_spec *sp, gp_error_t *err)
{
    return gp_doc_unpack (doc, gp_doc_root (doc), "train",
                          gp_train_spec_fields, sp, err);
}

int gp_train_spec_check_model (const struct gp_doc *doc,
                               const struct gp_train_spec *sp,
                               gp_error_t *err)
{
    struct gp_train_request rq;
    struct gp_arch arch;
    gp_error_t e = {0};
    gp_train_spec_request (sp, &rq);
    if (gp_train_resolve_arch (&rq, &arch, &e) == 0)
        return 0;
    json_t *node = json_object_get (gp_doc_root (doc), "model");
    return gp_doc_errorf (doc, node, err, e.code, "train: %s", e.text);
}

int gp_train_spec_plan (const struct gp_catalog *cat, const char *text,
                        size_t len, const char *name,
                        const struct gp_defaults *d,
                        struct gp_train_plan_result **out, gp_error_t *err)
{
    struct gp_train_spec sp;
    struct gp_train_request rq;
    if (!out || !text || !name)
        return gp_errprintf (err, GP_EINVAL, "train spec: missing argument");
    *out = NULL;
    gp_train_spec_unset (&sp);
    struct gp_doc *doc = gp_doc_parse (text, len, name, err);
    if (!doc)
        return err ? err->code : GP_EPARSE;
    int rc = gp_train_spec_from_doc (doc, &sp, err);
    if (!rc && sp.model[0])
        rc = gp_train_spec_check_model (doc, &sp, err);
    gp_doc_destroy (doc);
    if (rc)
        return rc;
    gp_train_spec_request (&sp, &rq);
    rq.defaults = d;
    if ((rc = gp_train_dims_check (&rq, err)))
        return rc;
    return gp_train_plan (cat, &rq, out, err);
}
