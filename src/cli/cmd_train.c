/* cmd_train.c - 'gpuplan train': how a training job fits, how fast it runs
 * on each candidate GPU type, how many GPUs it needs to finish on time,
 * and why the chosen layout beats its neighbours.
 *
 * Inputs come from a YAML spec and/or flags (flags win); the JSON output is
 * documented in docs/formats/train.md, the model in docs/model/training.md.
 */
#include <getopt.h>
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
    "    --batch-tokens N  global batch in tokens (default: chosen per size)\n"
    "    --global-batch N  global batch in sequences\n"
    "    --precision P     bf16 (default), fp16, fp8, fp8-delayed, mxfp8, nvfp4\n"
    "    --optimizer-states fp32|bf16   Adam moment dtype (default fp32)\n"
    "    --framework megatron|fsdp      restrict the sharding search\n"
    "    --pp-schedule 1f1b|a2a-overlap|dualpipe   pipeline schedule and\n"
    "                      MoE all-to-all overlap (default 1f1b: exposed)\n"
    "    --gpus N | --days D            fixed count, or a deadline (not both)\n"
    "  hardware\n"
    "    --gpu LIST        accelerator ids, comma-separated (H100-SXM)\n"
    "    --instance TYPE   a cloud instance (implies GPU, GPUs per node and\n"
    "                      network bandwidth)\n"
    "    --gpus-per-node N, --scale-up-domain N (e.g. 72 for NVL72)\n"
    "    --nic-bw BW       scale-out bandwidth per GPU (e.g. 400Gbps)\n"
    "    --nic-latency T   per hop (e.g. 5us)\n"
    "    --oversubscription X   fabric oversubscription (>= 1)\n"
    "    --sharp on|off    in-network all-reduce (NVLS, IB SHARP; on)\n"
    "    --ib-switch ID    InfiniBand switch part (e.g. qm9700): IB SHARP\n"
    "  output\n"
    "    --top K           layouts to list (default 3, at most 10)\n"
    "    --json            one JSON document (docs/formats/train.md)\n"
    "    --catalog DIR     merge catalog CSV files found in DIR\n"
    "    --set KEY=VALUE   override a default (gpuplan assumptions)\n"
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
    char instance[64], ib_switch[32];
    int gpus, sharp;
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

static const char *const prec_names[] = {
    "bf16", "fp16", "fp8", "mxfp8", "nvfp4", "fp8-delayed", NULL};
static const char *const fw_names[] = {"megatron", "fsdp", NULL};
static const char *const opt_names[] = {"fp32", "bf16", NULL};
static const char *const sched_names[] = {"1f1b", "a2a-overlap", "dualpipe",
                                          NULL};
static const char *const mlp_names[] = {"gelu", "swiglu", NULL};
static const char *const sharp_names[] = {"off", "on", NULL};

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
    F_ ("sharp", GP_F_ENUM, sharp, 0, 0, 0, sharp_names),
    F_ ("ib_switch", GP_F_STRING, ib_switch, 0, 0, 0, NULL),
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

/* Parse value 'arg' of flag --'fl' (field 'f') into 't'. */
static int flag_value (const struct gp_field *f, const char *fl,
                       const char *arg, struct tspec *t)
{
    char *dst = (char *)t + f->offset, flag[40];
    gp_error_t err = {0};
    double v;
    switch (f->type) {
    case GP_F_STRING:
        if (strlen (arg) >= f->size || !*arg)
            return cli_usage_error ("train: --%s: empty or too long", fl);
        if (!strcmp (f->key, "gpu") && gp_opt_list ("train: --gpu", arg, &err))
            return cli_fail (&err);
        memcpy (dst, arg, strlen (arg) + 1);
        return 0;
    case GP_F_ENUM:
        for (int i = 0; f->choices[i]; i++)
            if (!strcmp (arg, f->choices[i])) {
                *(int *)dst = i;
                return 0;
            }
        return cli_usage_error ("train: unknown %s '%s'", f->key, arg);
    default: /* every numeric field has a range */
        snprintf (flag, sizeof flag, "--%s", fl);
        if (gp_opt_number (flag, arg,
                           f->type == GP_F_QUANTITY ? f->quantity : GP_Q_COUNT,
                           f->min, f->max,
                           f->type == GP_F_INT ? GP_OPT_WHOLE : 0, &v, &err))
            return cli_usage_error ("train: %s", err.text);
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

/* The request the merged spec and flags describe ('rq' borrows 'sp'). */
static void tspec_request (const struct tspec *sp, struct gp_train_request *rq)
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
    rq->top = sp->top;
    rq->gpus_per_node = sp->gpus_per_node;
    rq->scale_up_domain = sp->scale_up_domain;
    rq->nic_bw = sp->nic_bw;
    rq->nic_latency = sp->nic_latency;
    rq->oversubscription = sp->oversubscription;
    rq->sharp = sp->sharp, rq->ib_switch = sp->ib_switch;
}

/* Parse the flags into 'fl'; returns -1 to go on, else an exit status. */
static int parse_flags (int argc, char **argv, struct tspec *fl,
                        int *as_json, const char **dir)
{
    enum { N_FIELDS = sizeof spec_fields / sizeof spec_fields[0] - 1 };
    static char names[N_FIELDS][32];
    static struct option opts[N_FIELDS + 5];
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
    opts[no++] = (struct option){"set", required_argument, NULL, 's'};
    opts[no] = (struct option){NULL, 0, NULL, 0};
    static const char *const cf[] = {"batch-tokens", "global-batch", "gpu",
                                     "instance", NULL};
    if (cli_opts_begin ("train", argc, argv, opts, cf))
        return EXIT_USAGE;
    for (int o; (o = getopt_long (argc, argv, "h", opts, NULL)) != -1;) {
        if (o >= 256 && o < 256 + N_FIELDS) {
            int rc = flag_value (&spec_fields[o - 256], names[o - 256],
                                 optarg, fl);
            if (rc)
                return rc;
        } else if (o == 'j')
            *as_json = 1;
        else if (o == 'c')
            *dir = optarg;
        else if (o == 'h')
            return cli_help ("train");
        else if (o == 's')
            continue; /* applied by cli_scan_set */
        else
            return cli_usage_error ("train: unknown or incomplete option "
                                    "'%s' (see 'gpuplan train --help')",
                                    argv[optind - 1]);
    }
    if (optind < argc - 1)
        return cli_usage_error ("train: at most one SPEC.yaml");
    return -1;
}

/* Load the spec (if any) into 'sp' and merge the flags over it.  An
 * unknown model named by the spec is reported at its file:line:col.
 */
static int load_spec (const char *path, struct tspec *sp,
                      const struct tspec *fl)
{
    gp_error_t err = {0};
    struct gp_doc *doc = NULL;
    if (path) {
        doc = gp_doc_load (path, &err);
        if (!doc)
            return cli_fail (&err);
        if (gp_doc_unpack (doc, gp_doc_root (doc), "train", spec_fields, sp,
                           &err)) {
            gp_doc_destroy (doc);
            return cli_fail (&err);
        }
    }
    int model_from_spec = doc && sp->model[0] && !fl->model[0];
    /* flags override the spec; a count replaces a deadline and a batch in
     * sequences one in tokens, and vice versa
     */
    if (fl->gpus)
        sp->days = 0;
    if (fl->days)
        sp->gpus = 0;
    if (fl->batch_tokens)
        sp->global_batch = 0;
    if (fl->global_batch)
        sp->batch_tokens = 0;
    tspec_merge (sp, fl);
    if (model_from_spec) {
        struct gp_train_request rq;
        struct gp_arch arch;
        tspec_request (sp, &rq);
        if (gp_train_resolve_arch (&rq, &arch, &err)) {
            gp_error_t e2 = {0};
            json_t *node = json_object_get (gp_doc_root (doc), "model");
            gp_doc_errorf (doc, node, &e2, err.code, "train: %s", err.text);
            gp_doc_destroy (doc);
            return cli_fail (&e2);
        }
    }
    gp_doc_destroy (doc);
    return -1;
}

int cmd_train (int argc, char **argv)
{
    struct tspec sp, fl;
    tspec_unset (&sp);
    tspec_unset (&fl);
    int as_json = 0;
    const char *dir = NULL;
    struct gp_defaults d;
    int rc = cli_scan_set ("train", argc, argv, &d);
    if (rc || (rc = parse_flags (argc, argv, &fl, &as_json, &dir)) >= 0)
        return rc;
    rc = load_spec (optind == argc - 1 ? argv[optind] : NULL, &sp, &fl);
    if (rc >= 0)
        return rc;
    struct gp_train_request rq;
    tspec_request (&sp, &rq);
    rq.defaults = &d;
    gp_error_t err = {0};
    if (gp_train_dims_check (&rq, &err))
        return cli_fail (&err);
    struct gp_catalog *cat = gp_catalog_load (dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_train_plan_result *res = NULL;
    if (gp_train_plan (cat, &rq, &res, &err)) {
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    char *text = as_json ? NULL : gp_report_train_text (res);
    rc = as_json ? cli_print_json (gp_report_train_json (res))
         : text && fputs (text, stdout) >= 0 ? EXIT_OK
                                            : EXIT_INTERNAL;
    free (text);
    if (!res->any_feasible && rc == EXIT_OK) {
        char why[320];
        for (size_t i = 0; i < res->n_accels; i++)
            fprintf (stderr, "gpuplan: error: %s: %s\n",
                     res->accels[i].accel->id,
                     gp_train_reason_text (res, &res->accels[i], why,
                                           sizeof why));
        rc = EXIT_INFEASIBLE;
    }
    gp_train_plan_result_destroy (res);
    gp_catalog_destroy (cat);
    return rc;
}
