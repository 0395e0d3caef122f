/* cmd_infer.c - 'gpuplan infer': size a serving deployment.
 *
 * Parses flags (over an optional SPEC.yaml, docs/formats/infer.md) into a
 * gp_infer_request, makes one library call (gp_infer_plan) and prints the
 * library's text or JSON rendering.  Exit 1 when no option meets the
 * request.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/infer.h"

const char cmd_infer_help[] =
    "NAME\n"
    "    gpuplan infer - size an LLM serving deployment against latency SLOs\n"
    "\n"
    "SYNOPSIS\n"
    "    gpuplan infer SPEC.yaml [OPTIONS]\n"
    "    gpuplan infer --model ID --gpu A[,B...] --rps R --prompt N --output N\n"
    "                  [--ttft-p95 T] [--tpot-p95 T] [OPTIONS]\n"
    "\n"
    "DESCRIPTION\n"
    "    For each accelerator and weight precision, picks the layout (tensor\n"
    "    parallel 1-8, pipeline across nodes when one node is not enough, or\n"
    "    a MIG slice) that meets every SLO at the peak rate at the lowest\n"
    "    cost per million output tokens (fewest whole nodes of the priced\n"
    "    instance at the peak, MIG slices charged as the whole GPUs they\n"
    "    take; fewest whole GPUs when unpriced), and reports replicas, GPUs,\n"
    "    nodes, latency at\n"
    "    peak, the autoscaling range, cost per hour and per million output\n"
    "    tokens (catalog on-demand prices under the one pricing rule: the\n"
    "    cheapest unflagged instance per GPU-hour, docs/model/cost.md;\n"
    "    unknown when no priced instance carries the accelerator; the\n"
    "    instance, its price date and source are printed) and the reason\n"
    "    each option stops where it\n"
    "    does.  Latencies come from a discrete-event model of a continuous-\n"
    "    batching engine over a roofline step-time model\n"
    "    (docs/model/inference.md).  Flags override the spec.\n"
    "\n"
    "OPTIONS\n"
    "    --model ID          zoo model (gpuplan's data/models/models.csv)\n"
    "    --gpu LIST          catalog accelerator ids, comma-separated\n"
    "    --precision LIST    weight formats: bf16, fp16, fp8, int8, int4, fp4\n"
    "                        (default bf16)\n"
    "    --kv-precision P    KV-cache format (default fp8 for fp8/fp4 weights\n"
    "                        on parts with FP8, else bf16)\n"
    "    --engine E          trtllm, vllm, sglang (default vllm)\n"
    "    --tp N, --pp N      fix the layout (default: choose)\n"
    "    --ep N              MoE: expert-parallel ranks, dividing tp\n"
    "                        (default: choose among 1 and tp)\n"
    "    --rps R             peak request rate (requests/s)\n"
    "    --rps-trough R      lowest rate (autoscaling floor; default = peak)\n"
    "    --profile R,R,...   request rates over one day in equal periods\n"
    "                        (24 values = hourly); peak/trough default to\n"
    "                        its max/min; without it the day is 12 h at\n"
    "                        peak and 12 h at trough (fleet cost)\n"
    "    --prompt N, --output N   mean prompt and output tokens\n"
    "    --prompt-dist D, --output-dist D   fixed, uniform, exponential\n"
    "    --prompt-cv X, --output-cv X       spread of 'uniform' (default 0.3)\n"
    "    --ttft-p95 T, --ttft-p99 T, --tpot-p95 T, --e2e-p95 T   SLOs (800ms)\n"
    "    --headroom X        spare share of each replica's SLO rate (0.2)\n"
    "    --prefix-hit X      share of prompt tokens served from the cache\n"
    "    --attention-dp      MoE: attention data parallel over the tp ranks,\n"
    "                        dispatch/combine all-to-all to the expert ranks\n"
    "    --no-mig            do not consider MIG slices\n"
    "    --instance ID       price from this catalog instance (an unknown id\n"
    "                        is an error)\n"
    "    --seed N            workload seed (default 1)\n"
    "    --json              one JSON document (docs/formats/infer.md)\n"
    "    --catalog DIR       merge catalog CSV files found in DIR\n"
    "    --set KEY=VALUE     override a default (gpuplan assumptions)\n"
    "\n"
    "EXIT STATUS\n"
    "    0 at least one option meets the request; 1 none does (the reasons\n"
    "    are printed: the model fits nowhere, or an SLO is unreachable);\n"
    "    2 bad flag, spec or name.\n"
    "\n"
    "EXAMPLES\n"
    "    gpuplan infer --model llama3.3-70b --gpu H100-SXM,H200-SXM,MI300X,L40S\n"
    "        --precision fp8,bf16 --rps 40 --prompt 2000 --output 400\n"
    "        --ttft-p95 1s --tpot-p95 50ms\n"
    "    gpuplan infer examples/infer-llama70b-chat.yaml --json\n";

enum {
    O_MODEL = 256, O_GPU, O_PREC, O_KV, O_ENGINE, O_TP, O_PP, O_RPS,
    O_TROUGH, O_PROFILE, O_PROMPT, O_OUTPUT, O_PDIST, O_ODIST, O_PCV, O_OCV,
    O_TTFT95, O_TTFT99, O_TPOT95, O_E2E95, O_HEAD, O_HIT, O_NOMIG,
    O_INST, O_SEED, O_JSON, O_CAT, O_ADP, O_EP, O_SET,
};

static const struct option opts[] = {
    {"model", required_argument, NULL, O_MODEL},
    {"gpu", required_argument, NULL, O_GPU},
    {"precision", required_argument, NULL, O_PREC},
    {"kv-precision", required_argument, NULL, O_KV},
    {"engine", required_argument, NULL, O_ENGINE},
    {"tp", required_argument, NULL, O_TP},
    {"ep", required_argument, NULL, O_EP},
    {"pp", required_argument, NULL, O_PP},
    {"rps", required_argument, NULL, O_RPS},
    {"rps-trough", required_argument, NULL, O_TROUGH},
    {"profile", required_argument, NULL, O_PROFILE},
    {"prompt", required_argument, NULL, O_PROMPT},
    {"output", required_argument, NULL, O_OUTPUT},
    {"prompt-dist", required_argument, NULL, O_PDIST},
    {"output-dist", required_argument, NULL, O_ODIST},
    {"prompt-cv", required_argument, NULL, O_PCV},
    {"output-cv", required_argument, NULL, O_OCV},
    {"ttft-p95", required_argument, NULL, O_TTFT95},
    {"ttft-p99", required_argument, NULL, O_TTFT99},
    {"tpot-p95", required_argument, NULL, O_TPOT95},
    {"e2e-p95", required_argument, NULL, O_E2E95},
    {"headroom", required_argument, NULL, O_HEAD},
    {"prefix-hit", required_argument, NULL, O_HIT},
    {"no-mig", no_argument, NULL, O_NOMIG},
    {"attention-dp", no_argument, NULL, O_ADP},
    {"instance", required_argument, NULL, O_INST},
    {"seed", required_argument, NULL, O_SEED},
    {"json", no_argument, NULL, O_JSON},
    {"catalog", required_argument, NULL, O_CAT},
    {"set", required_argument, NULL, O_SET},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Flags holding one quantity, where it goes in the request and its range
 * (docs/cli.md), gp_opt_number flags.
 */
#define RQ(m) offsetof (struct gp_infer_request, m)
static const struct {
    int id;
    const char *flag;
    enum gp_quantity kind;
    size_t off;
    double lo, hi;
    int flags;
} qflags[] = {
    {O_RPS, "--rps", GP_Q_COUNT, RQ (rps_peak), 1e-6, 1e6, 0},
    {O_TROUGH, "--rps-trough", GP_Q_COUNT, RQ (rps_trough), 0, 1e6, 0},
    {O_PROMPT, "--prompt", GP_Q_COUNT, RQ (prompt), 1, 1e7, 0},
    {O_OUTPUT, "--output", GP_Q_COUNT, RQ (output), 1, 1e7, 0},
    {O_PCV, "--prompt-cv", GP_Q_COUNT, RQ (prompt_cv), 0, 0.577, 0},
    {O_OCV, "--output-cv", GP_Q_COUNT, RQ (output_cv), 0, 0.577, 0},
    {O_TTFT95, "--ttft-p95", GP_Q_DURATION, RQ (slo.ttft_p95_s), 1e-6, 86400,
     0},
    {O_TTFT99, "--ttft-p99", GP_Q_DURATION, RQ (slo.ttft_p99_s), 1e-6, 86400,
     0},
    {O_TPOT95, "--tpot-p95", GP_Q_DURATION, RQ (slo.tpot_p95_s), 1e-6, 86400,
     0},
    {O_E2E95, "--e2e-p95", GP_Q_DURATION, RQ (slo.e2e_p95_s), 1e-6, 86400, 0},
    {O_HEAD, "--headroom", GP_Q_COUNT, RQ (headroom), 0, 0.95, GP_OPT_OPEN_HI},
    {O_HIT, "--prefix-hit", GP_Q_COUNT, RQ (prefix_hit), 0, 1, GP_OPT_OPEN_HI},
    {O_SEED, "--seed", GP_Q_COUNT, RQ (seed), 0, 9e15, GP_OPT_WHOLE},
};

/* A quantity flag into the request, range checked.  Returns -1 when 'o'
 * is not one, else an exit status (EXIT_OK to go on).
 */
static int quantity_flag (int o, struct gp_infer_request *q)
{
    size_t i = 0, n = sizeof qflags / sizeof qflags[0];
    while (i < n && qflags[i].id != o)
        i++;
    if (i == n)
        return -1;
    gp_error_t err = {0};
    double v;
    if (gp_opt_number (qflags[i].flag, optarg, qflags[i].kind, qflags[i].lo,
                       qflags[i].hi, qflags[i].flags, &v, &err))
        return cli_usage_error ("infer: %s", err.text);
    if (o == O_SEED)
        q->seed = (unsigned long long)v;
    else
        *(double *)((char *)q + qflags[i].off) = v;
    return EXIT_OK;
}

struct cli_opts {
    int help; /* the help page was printed */
    int as_json;
    const char *catalog_dir;
};

/* Every other flag.  Returns an exit status (EXIT_OK to go on). */
static int other_flag (int o, const char *fl, struct gp_infer_request *q,
                       struct cli_opts *c)
{
    gp_error_t err = {0};
    int rc = 0;
    double v;
    switch (o) {
    case O_MODEL:
        snprintf (q->model, sizeof q->model, "%s", optarg);
        q->has_arch = 0;
        break;
    case O_GPU:
        if (gp_opt_list ("infer: --gpu", optarg, &err))
            return cli_fail (&err);
        if (gp_infer_request_set_accels (q, optarg, &err))
            return cli_usage_error ("infer: --gpu %s", err.text);
        break;
    case O_PREC:
        rc = gp_opt_list ("infer: --precision", optarg, &err)
                 || gp_infer_request_set_precisions (q, optarg, &err);
        break;
    case O_KV:
        rc = gp_dtype_parse (optarg, &q->kv_dtype, &err);
        q->kv_set = 1;
        break;
    case O_ENGINE: rc = gp_engine_parse (optarg, &q->engine, &err); break;
    case O_TP:
    case O_PP:
    case O_EP:
        if (gp_infer_layout_parse (optarg, o == O_TP   ? &q->tp
                                           : o == O_PP ? &q->pp
                                                       : &q->ep, &err))
            return cli_usage_error ("infer: --%s %s",
                                    o == O_TP ? "tp" : o == O_PP ? "pp" : "ep",
                                    err.text);
        break;
    case O_PROFILE:
        if (gp_infer_request_set_profile (q, optarg, &err))
            return cli_usage_error ("infer: --profile: %s", err.text);
        v = 0;
        for (size_t i = 0; i < q->n_profile; i++)
            v = q->profile[i] > v ? q->profile[i] : v;
        if (!(v > 0) || v > 1e6)
            return cli_usage_error ("infer: --profile: rates must be in [0, "
                                    "1e+06] req/s, one above 0");
        break;
    case O_PDIST: rc = gp_len_dist_parse (optarg, &q->prompt_dist, &err); break;
    case O_ODIST: rc = gp_len_dist_parse (optarg, &q->output_dist, &err); break;
    case O_NOMIG: q->no_mig = 1; break;
    case O_ADP: q->attn_dp = 1; break;
    case O_INST:
        if (!*optarg || strlen (optarg) >= sizeof q->instance)
            return cli_usage_error ("infer: --instance: empty or too long");
        snprintf (q->instance, sizeof q->instance, "%s", optarg);
        snprintf (q->instance_origin, sizeof q->instance_origin,
                  "--instance");
        break;
    case O_JSON: c->as_json = 1; break;
    case O_CAT: c->catalog_dir = optarg; break;
    case O_SET: break; /* applied by cli_scan_set */
    default:
        return cli_usage_error ("infer: unknown or incomplete option '%s' "
                                "(see 'gpuplan infer --help')", fl);
    }
    if (rc) {
        err.code = GP_EINVAL;
        return cli_fail (&err);
    }
    return EXIT_OK;
}

/* The SPEC.yaml: the first argument that is not an option or an option's
 * value.  Returns an exit status; '*help' set for -h/--help.
 */
static int find_spec (int argc, char **argv, const char **spec, int *help)
{
    *spec = NULL;
    *help = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp (argv[i], "-h") || !strcmp (argv[i], "--help")) {
            *help = 1;
            return EXIT_OK;
        }
        if (argv[i][0] == '-')
            continue;
        int prev_takes = 0;
        if (i > 1 && argv[i - 1][0] == '-' && argv[i - 1][1] == '-')
            for (const struct option *o = opts; o->name; o++)
                if (!strcmp (argv[i - 1] + 2, o->name))
                    prev_takes = o->has_arg == required_argument;
        if (prev_takes)
            continue;
        if (*spec)
            return cli_usage_error ("infer: more than one SPEC given ('%s', "
                                    "'%s')", *spec, argv[i]);
        *spec = argv[i];
    }
    return EXIT_OK;
}

/* Spec, then flags, into 'q'.  Returns an exit status. */
static int parse_args (int argc, char **argv, struct gp_infer_request *q,
                       struct cli_opts *c)
{
    const char *spec = NULL;
    int help = 0, rc = cli_opts_begin ("infer", argc, argv, opts, NULL);
    if (!rc)
        rc = find_spec (argc, argv, &spec, &help);
    if (rc || help) {
        c->help = help;
        return rc ? rc : cli_help ("infer");
    }
    gp_error_t err = {0};
    if (spec && gp_infer_spec_load (spec, q, &err))
        return cli_fail (&err);
    int o;
    optind = 0;
    while ((o = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        const char *fl = optind > 0 ? argv[optind - 1] : "";
        if (o == 'h') {
            c->help = 1;
            return cli_help ("infer");
        }
        rc = quantity_flag (o, q);
        if (rc < 0)
            rc = other_flag (o, fl, q, c);
        if (rc)
            return rc;
    }
    if (!q->model[0] && !q->has_arch)
        return cli_usage_error ("infer: no model (--model ID or a SPEC.yaml)");
    if (q->n_accels == 0)
        return cli_usage_error ("infer: no accelerator (--gpu ID[,ID...])");
    if (!(q->rps_peak > 0) && q->n_profile == 0)
        return cli_usage_error ("infer: no request rate (--rps R)");
    if (!(q->prompt >= 1) || !(q->output >= 1))
        return cli_usage_error ("infer: --prompt and --output must be >= 1 "
                                "token");
    return EXIT_OK;
}

int cmd_infer (int argc, char **argv)
{
    struct gp_infer_request q;
    gp_infer_request_defaults (&q);
    struct gp_defaults d;
    struct cli_opts c = {0, 0, NULL};
    int rc = cli_scan_set ("infer", argc, argv, &d);
    if (rc || (rc = parse_args (argc, argv, &q, &c)) || c.help)
        return rc;
    q.defaults = &d;
    gp_error_t err = {0};
    struct gp_catalog *cat = gp_catalog_load (c.catalog_dir, &err);
    if (!cat)
        return cli_fail (&err);
    struct gp_infer_plan_result *r = NULL;
    if (gp_infer_plan (cat, &q, &r, &err)) {
        gp_catalog_destroy (cat);
        return cli_fail (&err);
    }
    if (r->n_undated_prices > 0)
        cli_warn ("%d priced options use an undated catalog price (see the "
                  "instances' price_date)", r->n_undated_prices);
    if (c.as_json) {
        rc = cli_print_json (gp_report_infer_json (r));
        if (r->recommended < 0)
            fprintf (stderr, "gpuplan: error: no option meets the request "
                             "(reasons in 'options[].reason')\n");
    } else {
        char *text = gp_report_infer_text (r, &err);
        if (text)
            fputs (text, stdout);
        else
            rc = cli_fail (&err);
        free (text);
        if (r->recommended < 0)
            fprintf (stderr, "gpuplan: error: no option meets the request; "
                             "see 'Why' above\n");
    }
    if (rc == EXIT_OK && r->recommended < 0)
        rc = EXIT_INFEASIBLE;
    gp_infer_plan_destroy (r);
    gp_catalog_destroy (cat);
    return rc;
}
