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
#include "gpuplan/names.h"
#include "gpuplan/spec.h"
#include "gpuplan/train.h"
#include "gpuplan/train_spec.h"

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
    "    it finds the fewest whole nodes that finish the tokens in time;\n"
    "    with --tokens but neither --gpus nor --days it does so for the\n"
    "    default deadline train.default_days (56 days; --set\n"
    "    train.default_days=D) and says so.\n"
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
    "                      mxfp4, int8, fp4 (the GPU vendor's 4-bit recipe:\n"
    "                      nvfp4 on NVIDIA, mxfp4 on AMD)\n"
    "    --optimizer-states fp32|bf16   Adam moment dtype (default fp32)\n"
    "    --framework megatron|fsdp      restrict the sharding search\n"
    "    --pp-schedule 1f1b|a2a-overlap|dualpipe   pipeline schedule and\n"
    "                      MoE all-to-all overlap (default 1f1b: exposed)\n"
    "    --attn-kernel auto|fa2|cudnn   attention kernel (default auto:\n"
    "                      Transformer Engine's, cuDNN on Hopper and later)\n"
    "    --gpus N | --days D            fixed count, or a deadline (not both;\n"
    "                      neither: the default deadline)\n"
    "    --finetune full|lora          what trains (default full; lora:\n"
    "                      adapters on frozen weights)\n"
    "    --lora-rank N     adapter rank (default 16)\n"
    "    --lora-targets attention|mlp|all-linear   adapted layers\n"
    "                      (default attention)\n"
    "    --base-precision bf16|fp8      frozen-weight storage (bf16)\n"
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


/* Parse value 'arg' of flag --'fl' (field 'f') into 't'. */
static int flag_value (const struct gp_field *f, const char *fl,
                       const char *arg, struct gp_train_spec *t)
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
        {
            char near[160];
            size_t nc = 0;
            while (f->choices[nc])
                nc++;
            if (gp_closest_names (arg, f->choices, nc, 3, near, sizeof near))
                return cli_usage_error ("train: unknown %s '%s'; did you "
                                        "mean %s?", f->key, arg, near);
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

/* Parse the flags into 'fl'; returns -1 to go on, else an exit status. */
static int parse_flags (int argc, char **argv, struct gp_train_spec *fl,
                        int *as_json, const char **dir)
{
    enum { N_FIELDS = GP_TRAIN_SPEC_N_FIELDS };
    static char names[N_FIELDS][32];
    static struct option opts[N_FIELDS + 5];
    int no = 0;
    for (int i = 0; i < N_FIELDS; i++) {
        snprintf (names[i], sizeof names[i], "%s", gp_train_spec_fields[i].key);
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
            int rc = flag_value (&gp_train_spec_fields[o - 256], names[o - 256],
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
static int load_spec (const char *path, struct gp_train_spec *sp,
                      const struct gp_train_spec *fl)
{
    gp_error_t err = {0};
    struct gp_doc *doc = NULL;
    if (path) {
        doc = gp_doc_load (path, &err);
        if (!doc)
            return cli_fail (&err);
        if (gp_train_spec_from_doc (doc, sp, &err)) {
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
    gp_train_spec_merge (sp, fl);
    if (model_from_spec && gp_train_spec_check_model (doc, sp, &err)) {
        gp_doc_destroy (doc);
        return cli_fail (&err);
    }
    gp_doc_destroy (doc);
    return -1;
}

int cmd_train (int argc, char **argv)
{
    struct gp_train_spec sp, fl;
    gp_train_spec_unset (&sp);
    gp_train_spec_unset (&fl);
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
    gp_train_spec_request (&sp, &rq);
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
