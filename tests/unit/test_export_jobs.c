/* test_export_jobs.c - the jobs export target on hand-built plans: the
 * TrainJob, its ClusterTrainingRuntime, the JobSet alternative and the
 * sbatch script carry the planned layout; the layout identities are
 * checked before anything is written.
 *
 * Expected values are worked out by hand from the fixture's layouts
 * (docs/formats/export-jobs.md): nodes = GPUs / GPUs per node, the save
 * interval = checkpoint interval / step time rounded, the Megatron-LM
 * flag names from Megatron-LM's megatron/training/arguments.py.
 *
 * With GP_JOBS_OUT set, the files of the main fixture are also written
 * there for the strict schema check (tests/export/jobs_check.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/gpuplan.h"
#include "export_fixture.h"

static const char *const CLUSTER =
    "name: lab\n"
    "pools:\n"
    "  - {name: h100, accelerator: H100-SXM, gpus_per_node: 8, nodes: 16}\n"
    "teams:\n"
    "  - {name: research, quota: 96, priority: 10, cohort: lab}\n"
    "  - {name: product, quota: 32, cohort: lab}\n";

/* A plan of three workloads on one option: a 64-GPU pretraining run, a
 * 4-GPU recurring fine-tune and a service (not a job).
 */
struct fx {
    struct gp_plan_spec *s;
    struct gp_plan_result r;
    struct gp_plan_option op;
    struct gp_export_plan p;
    struct gp_cluster *c;
};

static void layout (struct gp_plan_wl_plan *l, int tp, int pp, int dp,
                    int cp, int mb, int ga)
{
    l->sized = 1;
    l->tp = tp;
    l->pp = pp;
    l->dp = dp;
    l->cp = cp;
    l->ep = 1;
    l->vpp = 1;
    l->micro_batch = mb;
    l->grad_accum = ga;
    l->gpus = (long long)tp * pp * dp * cp;
    l->global_batch = (long long)mb * dp * ga;
}

static void fx_init (struct fx *f)
{
    memset (f, 0, sizeof *f);
    f->s = calloc (1, sizeof *f->s);
    assert_non_null (f->s);
    struct gp_plan_workload *w = f->s->workloads;
    w[0].kind = GP_WL_TRAINING;
    strcpy (w[0].name, "pretrain-70b");
    strcpy (w[0].team, "research");
    w[0].tokens = 1e12;
    strcpy (w[0].model, "llama3-70b");
    strcpy (w[0].precision, "bf16");
    w[1].kind = GP_WL_RECURRING;
    strcpy (w[1].name, "finetune");
    strcpy (w[1].team, "product");
    strcpy (w[1].model, "llama3.1-8b");
    strcpy (w[1].precision, "fp8");
    w[2].kind = GP_WL_INFERENCE;
    strcpy (w[2].name, "chat");
    strcpy (w[2].team, "product");
    f->s->n_workloads = 3;
    struct gp_plan_option *op = &f->op;
    strcpy (op->name, "onprem-h100");
    strcpy (op->accel_id, "H100-SXM");
    op->fabric.tiers = 2;
    op->nodes = 16;
    op->fabric.rails = 8;               /* 8 GPUs x 1 NIC each */
    strcpy (f->s->options[0].switch_id, "qm8700");  /* InfiniBand */
    f->s->n_options = 1;
    op->stor.tier = GP_TIER_CEPH;
    struct gp_plan_wl_plan *l = &op->wl[0];
    layout (l, 8, 4, 2, 1, 1, 64);  /* 64 GPUs, global batch 128 */
    l->vpp = 2;
    l->seq_len = 8192;
    strcpy (l->recompute, "selective");
    strcpy (l->sharding, "zero1");
    l->step_s = 10.0;
    l->ckpt_interval_s = 3600.0;
    l->run_days = 20.0;
    l = &op->wl[1];
    layout (l, 2, 1, 2, 1, 2, 4);   /* 4 GPUs, global batch 16 */
    l->seq_len = 4096;
    strcpy (l->recompute, "full");
    strcpy (l->sharding, "fsdp");
    l->step_s = 2.0;
    l->ckpt_interval_s = 1801.0;    /* 900.5 steps: rounds to 901 */
    l->run_days = 0.25;
    op->wl[2].sized = 1;
    op->wl[2].gpus_per_replica = 8;
    f->r.options = op;
    f->r.n_options = 1;
    f->p = (struct gp_export_plan){.spec = f->s, .result = &f->r,
                                   .option = 0};
    f->c = fx_cluster_ok (CLUSTER, "lab.yaml");
}

static void fx_free (struct fx *f)
{
    gp_cluster_destroy (f->c);
    free (f->s);
}

static struct gp_export *render (struct fx *f, gp_error_t *err)
{
    struct gp_export_opts o = {.plan = &f->p, .catalog = cat};
    return gp_export_render_opts (f->c, GP_EXPORT_JOBS, &o, err);
}

static struct gp_export *render_ok (struct fx *f)
{
    gp_error_t err = {0};
    struct gp_export *x = render (f, &err);
    if (!x)
        fail_msg ("%s", err.text);
    return x;
}

static const char *file (const struct gp_export *x, const char *name)
{
    for (size_t i = 0; i < x->n_files; i++)
        if (!strcmp (x->files[i].name, name))
            return x->files[i].text;
    fail_msg ("no file %s", name);
    return NULL;
}

/* The text of document 'kind' named 'name' in 'text' (up to the next
 * document), in 'buf'.
 */
static const char *doc (const char *text, const char *kind,
                        const char *name, char *buf, size_t n)
{
    char k[96], m[160];
    snprintf (k, sizeof k, "kind: %s\n", kind);
    snprintf (m, sizeof m, "  name: %s\n", name);
    for (const char *p = strstr (text, k); p; p = strstr (p + 1, k)) {
        const char *end = strstr (p, "\n---");
        size_t len = end ? (size_t)(end - p) : strlen (p);
        if (len >= n)
            len = n - 1;
        memcpy (buf, p, len);
        buf[len] = 0;
        if (strstr (buf, m))
            return buf;
    }
    fail_msg ("no %s %s in:\n%s", kind, name, text);
    return NULL;
}

/* Write the files of 'x' into the folder named by environment variable
 * 'var' (nothing when it is unset).
 */
static void write_out_dir (const struct gp_export *x, const char *var)
{
    const char *dir = getenv (var);
    if (!dir || !dir[0])
        return;
    for (size_t i = 0; i < x->n_files; i++) {
        char path[512];
        snprintf (path, sizeof path, "%s/%s", dir, x->files[i].name);
        FILE *fp = fopen (path, "w");
        if (!fp)
            fail_msg ("cannot write %s", path);
        fputs (x->files[i].text, fp);
        fclose (fp);
    }
}

static void write_out (const struct gp_export *x)
{
    write_out_dir (x, "GP_JOBS_OUT");
}

static void test_trainjob_layout (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_export *x = render_ok (&f);
    assert_int_equal (x->n_files, 4);   /* 2 YAML + 2 sbatch: no service */
    write_out (x);
    char buf[16384], buf2[16384];
    const char *tj = doc (file (x, "trainjobs.yaml"), "TrainJob",
                          "pretrain-70b", buf, sizeof buf);
    has (file (x, "trainjobs.yaml"), "apiVersion: trainer.kubeflow.org/"
                                     "v1alpha1\nkind: TrainJob\n");
    has (tj, "  namespace: research\n");
    has (tj, "kueue.x-k8s.io/queue-name: research\n");
    has (tj, "kueue.x-k8s.io/priority-class: priority-10\n");
    has (tj, "gpuplan.io/workload: pretrain-70b\n");
    has (tj, "gpuplan.io/gpus: \"64\"\n");
    has (tj, "gpuplan.io/layout: \"tp=8,pp=4,dp=2,cp=1,ep=1\"\n");
    has (tj, "name: gpuplan-pretrain-70b\n");
    has (tj, "numNodes: 8\n");          /* 64 / 8 */
    has (tj, "numProcPerNode: 8\n");
    has (tj, "nvidia.com/gpu: 8\n");
    has (tj, "- \"--tensor-model-parallel-size\"\n    - \"8\"\n");
    has (tj, "- \"--pipeline-model-parallel-size\"\n    - \"4\"\n");
    has (tj, "- \"--context-parallel-size\"\n    - \"1\"\n");
    has (tj, "- \"--expert-model-parallel-size\"\n    - \"1\"\n");
    has (tj, "- \"--num-virtual-stages-per-pipeline-rank\"\n    - \"2\"\n");
    has (tj, "- \"--micro-batch-size\"\n    - \"1\"\n");
    has (tj, "- \"--global-batch-size\"\n    - \"128\"\n");
    has (tj, "- \"--seq-length\"\n    - \"8192\"\n");
    has (tj, "- \"--recompute-granularity\"\n    - selective\n");
    has (tj, "- \"--use-distributed-optimizer\"\n");
    /* ceil(1e12 / 8192) sequences; 3600 s / 10 s steps */
    has (tj, "- \"--train-samples\"\n    - \"122070313\"\n");
    has (tj, "- \"--save-interval\"\n    - \"360\"\n");
    has (tj, "- \"--save\"\n    - \"/mnt/gpuplan/ceph-beegfs/checkpoints/"
             "pretrain-70b\"\n");
    const char *rt = doc (file (x, "trainjobs.yaml"), "ClusterTrainingRuntime",
                          "gpuplan-pretrain-70b", buf2, sizeof buf2);
    has (rt, "kueue.x-k8s.io/podset-required-topology: gpuplan.io/block\n");
    has (rt, "trainer.kubeflow.org/trainjob-ancestor-step: trainer\n");
    has (rt, "path: \"/mnt/gpuplan/ceph-beegfs\"\n");
    lacks (rt, "namespace:");
    /* RDMA: every rail of the fabric on each pod (rdma.h names) */
    has (rt, "k8s.v1.cni.cncf.io/networks: \"default/rdma-rail-0,"
             "default/rdma-rail-1,");
    has (rt, "default/rdma-rail-7\"\n");
    has (rt, "add: [IPC_LOCK]");
    has (tj, "nvidia.com/rdma_rail_0: 1\n");
    has (tj, "nvidia.com/rdma_rail_7: 1\n");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_subnode_recurring (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_export *x = render_ok (&f);
    char buf[16384];
    const char *tj = doc (file (x, "trainjobs.yaml"), "TrainJob", "finetune",
                          buf, sizeof buf);
    has (tj, "kueue.x-k8s.io/queue-name: product\n");
    lacks (tj, "priority-class");       /* priority 0: none */
    has (tj, "numNodes: 1\n");
    has (tj, "numProcPerNode: 4\n");     /* 4 GPUs of an 8-GPU node */
    has (tj, "nvidia.com/gpu: 4\n");
    has (tj, "- \"--recompute-granularity\"\n    - full\n    - "
             "\"--recompute-method\"\n    - uniform\n");
    has (tj, "- \"--use-megatron-fsdp\"\n    - "
             "\"--data-parallel-sharding-strategy\"\n    - optim_grads_params\n");
    has (tj, "- \"--save-interval\"\n    - \"901\"\n");
    lacks (tj, "--num-virtual-stages");
    lacks (tj, "--train-samples");      /* no tokens in the spec */
    const char *rt = doc (file (x, "trainjobs.yaml"), "ClusterTrainingRuntime",
                          "gpuplan-finetune", buf, sizeof buf);
    has (rt, "podset-required-topology: kubernetes.io/hostname\n");
    lacks (rt, "k8s.v1.cni.cncf.io/networks");  /* one node: NVLink only */
    lacks (rt, "IPC_LOCK");
    const char *sb = file (x, "finetune.sbatch");
    has (sb, "#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\n"
             "#SBATCH --gpus-per-node=4\n");
    lacks (sb, "--exclusive");
    has (sb, "#SBATCH --time=0-06:00:00\n");    /* 0.25 days */
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_sbatch (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_export *x = render_ok (&f);
    const char *sb = file (x, "pretrain-70b.sbatch");
    has (sb, "#!/bin/bash\n");
    has (sb, "#SBATCH --job-name=pretrain-70b\n"
             "#SBATCH --account=research\n"
             "#SBATCH --qos=research\n"
             "#SBATCH --partition=h100\n"
             "#SBATCH --nodes=8\n"
             "#SBATCH --ntasks-per-node=1\n"
             "#SBATCH --gpus-per-node=8\n"
             "#SBATCH --exclusive\n"
             "#SBATCH --time=7-00:00:00\n");     /* 20 days > MaxTime */
    has (sb, "--nproc-per-node=8");
    has (sb, "'--tensor-model-parallel-size' '8'");
    has (sb, "'--global-batch-size' '128'");
    has (sb, "'--save' '/mnt/gpuplan/ceph-beegfs/checkpoints/pretrain-70b'");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_jobset (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_export *x = render_ok (&f);
    char buf[16384];
    const char *js = doc (file (x, "jobsets.yaml"), "JobSet", "pretrain-70b",
                          buf, sizeof buf);
    has (file (x, "jobsets.yaml"), "apiVersion: jobset.x-k8s.io/v1alpha2\n");
    has (js, "kueue.x-k8s.io/queue-name: research\n");
    has (js, "gpuplan.io/gpus: \"64\"\n");
    has (js, "parallelism: 8\n");
    has (js, "completions: 8\n");
    has (js, "completionMode: Indexed\n");
    has (js, "- \"--nproc-per-node=8\"\n");
    has (js, "- \"--master-addr=pretrain-70b-node-0-0.pretrain-70b\"\n");
    has (js, "nvidia.com/gpu: 8\n");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_three_tiers_preferred (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.op.fabric.tiers = 3;
    struct gp_export *x = render_ok (&f);
    char buf[16384];
    const char *rt = doc (file (x, "trainjobs.yaml"), "ClusterTrainingRuntime",
                          "gpuplan-pretrain-70b", buf, sizeof buf);
    has (rt, "podset-preferred-topology: gpuplan.io/block\n");
    lacks (rt, "podset-required-topology");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_rdma_flavors (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    gp_error_t err = {0};
    struct gp_export_opts o = {.plan = &f.p, .catalog = cat,
                               .net = GP_NET_SRIOV};
    struct gp_export *x = gp_export_render_opts (f.c, GP_EXPORT_JOBS, &o,
                                                 &err);
    if (!x)
        fail_msg ("%s", err.text);
    char buf[16384];
    const char *tj = doc (file (x, "trainjobs.yaml"), "TrainJob",
                          "pretrain-70b", buf, sizeof buf);
    has (tj, "openshift.io/rdma_rail_0: 1\n");
    lacks (tj, "nvidia.com/rdma_rail");
    gp_export_destroy (x);
    f.op.kind = GP_OPT_CLOUD;       /* the provider's fabric: no rails */
    f.op.cloud_fabric = 1;
    x = render_ok (&f);
    lacks (file (x, "trainjobs.yaml"), "rdma_rail");
    lacks (file (x, "trainjobs.yaml"), "k8s.v1.cni.cncf.io/networks");
    gp_export_destroy (x);
    fx_free (&f);
}

/* Render must fail with a message holding 'want'. */
static void fails (struct fx *f, const char *want)
{
    gp_error_t err = {0};
    struct gp_export *x = render (f, &err);
    if (x) {
        gp_export_destroy (x);
        fail_msg ("rendered; expected an error with '%s'", want);
    }
    assert_int_equal (err.code, GP_EINVAL);
    if (!strstr (err.text, want))
        fail_msg ("error '%s' lacks '%s'", err.text, want);
}

static void test_invariants (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.op.wl[0].dp = 3;      /* 8 x 4 x 3 x 1 = 96 != 64 */
    fails (&f, "tp x pp x dp x cp = 8 x 4 x 3 x 1 = 96, but the plan gives "
               "it 64 GPUs");
    f.op.wl[0].dp = 2;
    f.op.wl[0].global_batch = 100;
    fails (&f, "micro-batch x dp x accumulation = 1 x 2 x 64 = 128, but the "
               "global batch is 100");
    f.op.wl[0].global_batch = 128;
    layout (&f.op.wl[0], 16, 2, 2, 1, 1, 64);   /* TP 16 on 8-GPU nodes */
    fails (&f, "a tensor-parallel group of 16 GPUs does not fit whole in a "
               "node of 8 GPUs");
    layout (&f.op.wl[0], 8, 4, 2, 1, 1, 64);
    f.op.wl[0].ep = 4;      /* dp x cp = 2: no room for 4 expert groups */
    fails (&f, "expert parallelism 4 does not divide dp x cp = 2 x 1");
    f.op.wl[0].ep = 2;
    f.op.wl[0].cp = 2;      /* ep 2 within dp 2 x cp 2; 128 GPUs, 16 nodes */
    f.op.wl[0].gpus = 128;
    fails (&f, "expert parallelism needs an MoE model");    /* llama3-70b */
    strcpy (f.s->workloads[0].model, "mixtral-8x7b");   /* 8 experts */
    struct gp_export *x = render_ok (&f);
    has (file (x, "trainjobs.yaml"), "tp=8,pp=4,dp=2,cp=2,ep=2");
    gp_export_destroy (x);
    strcpy (f.s->workloads[0].model, "llama3-70b");
    layout (&f.op.wl[0], 8, 4, 8, 1, 1, 64);    /* 256 GPUs: 32 nodes */
    fails (&f, "workload 'pretrain-70b': 32 nodes, but pool 'h100' has 16");
    layout (&f.op.wl[0], 8, 4, 2, 1, 1, 64);
    layout (&f.op.wl[1], 3, 1, 4, 1, 1, 4);    /* 12 GPUs, TP 3 */
    fails (&f, "a tensor-parallel group of 3 GPUs");
    layout (&f.op.wl[1], 2, 1, 6, 1, 1, 4);    /* 12 GPUs: 1.5 nodes */
    fails (&f, "12 GPUs are not whole nodes of 8 GPUs");
    layout (&f.op.wl[1], 2, 1, 2, 1, 2, 4);
    f.op.wl[1].ckpt_interval_s = 0;
    fails (&f, "no sequence length, step time or checkpoint interval");
    fx_free (&f);
}

/* The model shape of a dense model: llama3-70b in data/models/models.csv
 * (80 layers, hidden 8192, FFN 28672, 64 heads, 8 KV heads, head dim 128,
 * SwiGLU, GQA, untied embeddings, context 8192), and llama3.1-8b (32
 * layers, hidden 4096, FFN 14336, 32 heads, 8 KV heads, context 131072)
 * trained in fp8.
 */
static void test_model_dense (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    struct gp_export *x = render_ok (&f);
    char buf[16384];
    const char *tj = doc (file (x, "trainjobs.yaml"), "TrainJob",
                          "pretrain-70b", buf, sizeof buf);
    has (tj, "- \"--num-layers\"\n    - \"80\"\n");
    has (tj, "- \"--hidden-size\"\n    - \"8192\"\n");
    has (tj, "- \"--num-attention-heads\"\n    - \"64\"\n");
    has (tj, "- \"--kv-channels\"\n    - \"128\"\n");
    has (tj, "- \"--group-query-attention\"\n    - \"--num-query-groups\"\n"
             "    - \"8\"\n");
    has (tj, "- \"--ffn-hidden-size\"\n    - \"28672\"\n");
    has (tj, "- \"--swiglu\"\n    - \"--normalization\"\n    - RMSNorm\n");
    has (tj, "- \"--disable-bias-linear\"\n");
    has (tj, "- \"--untie-embeddings-and-output-weights\"\n");
    has (tj, "- \"--position-embedding-type\"\n    - rope\n");
    has (tj, "- \"--max-position-embeddings\"\n    - \"8192\"\n");
    has (tj, "- \"--bf16\"\n");
    lacks (tj, "--fp8-format");
    lacks (tj, "--num-experts");
    lacks (tj, "--multi-latent-attention");
    lacks (tj, "--decoder-first-pipeline-num-layers");  /* 80 / 4 even */
    /* data, tokenizer and learning rate: placeholders in the env */
    has (tj, "- \"--tokenizer-type\"\n    - HuggingFaceTokenizer\n"
             "    - \"--tokenizer-model\"\n    - \"$(TOKENIZER_MODEL)\"\n");
    has (tj, "- \"--data-path\"\n    - \"$(DATA_PATH)\"\n");
    has (tj, "- \"--lr\"\n    - \"$(LR)\"\n");
    has (tj, "- name: DATA_PATH\n      value: REPLACE-ME-megatron-data-"
             "prefix\n");
    has (tj, "- name: TOKENIZER_MODEL\n");
    /* tp 8 without Megatron FSDP: Megatron-LM asserts this */
    has (tj, "- name: CUDA_DEVICE_MAX_CONNECTIONS\n      value: \"1\"\n");
    const char *js = doc (file (x, "jobsets.yaml"), "JobSet", "pretrain-70b",
                          buf, sizeof buf);
    has (js, "- \"--num-layers\"\n              - \"80\"\n");
    has (js, "- \"$(DATA_PATH)\"\n");
    has (js, "- name: DATA_PATH\n");
    const char *sb = file (x, "pretrain-70b.sbatch");
    has (sb, "'--num-layers' '80'");
    has (sb, "'--num-query-groups' '8'");
    has (sb, ": \"${DATA_PATH:?set DATA_PATH to ");
    has (sb, ": \"${TOKENIZER_MODEL:?set TOKENIZER_MODEL to ");
    has (sb, ": \"${LR:?set LR to ");
    has (sb, "'--data-path' \"$DATA_PATH\"");
    has (sb, "export CUDA_DEVICE_MAX_CONNECTIONS=1\n");
    tj = doc (file (x, "trainjobs.yaml"), "TrainJob", "finetune", buf,
              sizeof buf);
    has (tj, "- \"--num-layers\"\n    - \"32\"\n");
    has (tj, "- \"--hidden-size\"\n    - \"4096\"\n");
    has (tj, "- \"--ffn-hidden-size\"\n    - \"14336\"\n");
    has (tj, "- \"--num-attention-heads\"\n    - \"32\"\n");
    has (tj, "- \"--max-position-embeddings\"\n    - \"131072\"\n");
    has (tj, "- \"--bf16\"\n    - \"--fp8-format\"\n    - hybrid\n");
    /* Megatron FSDP: its checkpoint format, and no MAX_CONNECTIONS=1 */
    has (tj, "- \"--ckpt-format\"\n    - fsdp_dtensor\n");
    lacks (tj, "CUDA_DEVICE_MAX_CONNECTIONS");
    lacks (file (x, "finetune.sbatch"), "CUDA_DEVICE_MAX_CONNECTIONS");
    gp_export_destroy (x);
    fx_free (&f);
}

/* An MoE model: deepseek-v3 in data/models/models.csv (61 layers, hidden
 * 7168, dense FFN 18432, 128 heads, MLA with q rank 1536, kv rank 512,
 * qk 128 + rope 64, v 128; 256 experts, top-8, expert FFN 2048, 1 shared
 * expert, the first 3 layers dense; context 131072) on tp 8, pp 4, dp 4,
 * ep 4: 128 GPUs.  61 layers on 4 stages: the plan sizes each stage for
 * ceil(61 / 4) = 16 layers; the 2 middle stages hold 16, the first and
 * last 61 - 32 = 29 = 15 + 14.
 */
static void test_model_moe (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    strcpy (f.s->workloads[0].model, "deepseek-v3");
    layout (&f.op.wl[0], 8, 4, 4, 1, 1, 16);
    f.op.wl[0].ep = 4;
    f.op.wl[0].seq_len = 4096;
    struct gp_export *x = render_ok (&f);
    char buf[16384];
    const char *tj = doc (file (x, "trainjobs.yaml"), "TrainJob",
                          "pretrain-70b", buf, sizeof buf);
    has (tj, "gpuplan.io/layout: \"tp=8,pp=4,dp=4,cp=1,ep=4\"\n");
    has (tj, "- \"--num-layers\"\n    - \"61\"\n");
    has (tj, "- \"--hidden-size\"\n    - \"7168\"\n");
    has (tj, "- \"--num-attention-heads\"\n    - \"128\"\n");
    has (tj, "- \"--multi-latent-attention\"\n"
             "    - \"--q-lora-rank\"\n    - \"1536\"\n"
             "    - \"--kv-lora-rank\"\n    - \"512\"\n"
             "    - \"--qk-head-dim\"\n    - \"128\"\n"
             "    - \"--qk-pos-emb-head-dim\"\n    - \"64\"\n"
             "    - \"--v-head-dim\"\n    - \"128\"\n");
    lacks (tj, "--group-query-attention");
    lacks (tj, "--kv-channels");
    has (tj, "- \"--ffn-hidden-size\"\n    - \"18432\"\n");
    has (tj, "- \"--num-experts\"\n    - \"256\"\n");
    has (tj, "- \"--moe-router-topk\"\n    - \"8\"\n");
    has (tj, "- \"--moe-ffn-hidden-size\"\n    - \"2048\"\n");
    has (tj, "- \"--moe-shared-expert-intermediate-size\"\n    - \"2048\"\n");
    has (tj, "- \"--moe-layer-freq\"\n    - \"([0]*3+[1]*58)\"\n");
    has (tj, "- \"--expert-model-parallel-size\"\n    - \"4\"\n");
    has (tj, "- \"--decoder-first-pipeline-num-layers\"\n    - \"15\"\n"
             "    - \"--decoder-last-pipeline-num-layers\"\n    - \"14\"\n");
    has (tj, "- \"--max-position-embeddings\"\n    - \"131072\"\n");
    has (file (x, "pretrain-70b.sbatch"),
         "'--moe-layer-freq' '([0]*3+[1]*58)'");
    gp_export_destroy (x);
    fx_free (&f);
}

/* What Megatron-LM refuses of a model on a layout fails before writing. */
static void test_model_refused (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.op.wl[0].vpp = 3;     /* 80 / 4 = 20 layers per stage, not / 3 */
    fails (&f, "the layers per pipeline stage are not a multiple of vpp");
    f.op.wl[0].vpp = 2;
    strcpy (f.s->workloads[0].model, "gpt3-1.3b");  /* learned, 2048 */
    fails (&f, "longer than the model's learned position table");
    strcpy (f.s->workloads[0].model, "llama3-70b");
    layout (&f.op.wl[0], 8, 3, 2, 1, 1, 64);    /* 48 GPUs, 80 / 3 */
    f.op.wl[0].vpp = 2;
    fails (&f, "an uneven pipeline with virtual stages is not exported");
    f.op.wl[0].vpp = 1;     /* uneven: 27 + 27 (middle) + 26 */
    struct gp_export *x = render_ok (&f);
    has (file (x, "trainjobs.yaml"),
         "- \"--decoder-first-pipeline-num-layers\"\n    - \"27\"\n"
         "    - \"--decoder-last-pipeline-num-layers\"\n    - \"26\"\n");
    gp_export_destroy (x);
    layout (&f.op.wl[0], 8, 4, 2, 1, 1, 64);
    strcpy (f.s->workloads[0].model, "llama4-maverick");    /* 48 layers,
                                                      24 dense, interleaved */
    fails (&f, "the zoo does not say where its dense layers sit");
    strcpy (f.s->workloads[0].model, "no-such-model");
    fails (&f, "workload 'pretrain-70b': model:");
    f.s->workloads[0].model[0] = 0;
    fails (&f, "names no model");
    fx_free (&f);
}

static void test_names_and_teams (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    strcpy (f.s->workloads[0].team, "nobody");
    fails (&f, "team 'nobody' is not a team of the plan");
    strcpy (f.s->workloads[0].team, "research");
    strcpy (f.s->workloads[0].name, "70b-pretrain");
    fails (&f, "workloads[0].name '70b-pretrain' is not an RFC 1035 label");
    strcpy (f.s->workloads[0].name,
            "a-very-long-pretraining-run-name-of-fifty-six-characters");
    fails (&f, "so that its JobSet's pod names");
    fx_free (&f);
}

static void test_mig_pool (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    gp_cluster_destroy (f.c);
    f.c = fx_cluster_ok ("name: lab\npools:\n  - {name: a100, accelerator: "
                         "A100-SXM-80GB, gpus_per_node: 8, nodes: 16, mig: "
                         "[3g.40gb]}\nteams:\n  - {name: research, quota: "
                         "64}\n  - {name: product, quota: 32}\n", "mig.yaml");
    strcpy (f.op.accel_id, "A100-SXM-80GB");
    fails (&f, "pool 'a100' is partitioned by MIG");
    fx_free (&f);
}

static void test_not_applicable (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    f.op.wl[0].sized = 0;
    f.op.wl[1].sized = 0;
    struct gp_export *x = render_ok (&f);
    assert_int_equal (x->n_files, 0);
    has (x->not_applicable, "no sized training or recurring workload");
    gp_export_destroy (x);
    fx_free (&f);
}

static void test_needs_plan (void **state)
{
    (void)state;
    struct fx f;
    fx_init (&f);
    gp_error_t err = {0};
    assert_null (gp_export_render_opts (f.c, GP_EXPORT_JOBS, NULL, &err));
    has (err.text, "needs a plan");
    fx_free (&f);
}

/* ------------------------ the enterprise example ------------------------ */

#define EXAMPLE GP_SOURCE_DIR "/examples/enterprise-plan.yaml"

/* The number after 'key' in 'text' (-1 when absent). */
static long long num_after (const char *text, const char *key)
{
    const char *p = strstr (text, key);
    return p ? strtoll (p + strlen (key), NULL, 10) : -1;
}

/* Each job of each sized on-prem option of the shipped example: its
 * pods ask exactly the planned GPUs, its layout multiplies out to them,
 * and micro-batch x dp x accumulation is its global batch.
 */
static void test_enterprise_ties (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_doc *d = gp_doc_load (EXAMPLE, &err);
    struct gp_plan_spec *s = d ? gp_plan_spec_from_doc (d, cat, &err) : NULL;
    struct gp_plan_result *r = s ? gp_plan_run (s, cat, &err) : NULL;
    if (!r)
        fail_msg ("%s", err.text);
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    assert_non_null (zoo);
    int options = 0, jobs = 0;
    for (size_t k = 0; k < r->n_options; k++) {
        const struct gp_plan_option *op = &r->options[k];
        if (op->kind != GP_OPT_ONPREM || op->compute.code != 0)
            continue;
        struct gp_cluster *c = gp_plan_option_cluster (s, r, (int)k, cat, &err);
        if (!c)
            fail_msg ("%s: %s", op->name, err.text);
        struct gp_export_plan p = {.spec = s, .result = r, .option = (int)k};
        struct gp_export_opts o = {.plan = &p, .catalog = cat};
        struct gp_export *x = gp_export_render_opts (c, GP_EXPORT_JOBS, &o,
                                                     &err);
        if (!x)
            fail_msg ("%s: %s", op->name, err.text);
        options++;
        for (size_t i = 0; i < s->n_workloads; i++) {
            const struct gp_plan_wl_plan *l = &op->wl[i];
            if (s->workloads[i].kind == GP_WL_INFERENCE || !l->sized)
                continue;
            char buf[16384], want[160];
            const char *tj = doc (file (x, "trainjobs.yaml"), "TrainJob",
                                  s->workloads[i].name, buf, sizeof buf);
            long long nodes = num_after (tj, "numNodes: ");
            long long per = num_after (tj, "numProcPerNode: ");
            long long gpus = num_after (tj, "nvidia.com/gpu: ");
            assert_int_equal (per, gpus);
            assert_int_equal (nodes * gpus, l->gpus);
            assert_int_equal ((long long)l->tp * l->pp * l->dp * l->cp,
                              l->gpus);
            assert_int_equal ((long long)l->micro_batch * l->dp
                                  * l->grad_accum, l->global_batch);
            snprintf (want, sizeof want, "gpuplan.io/gpus: \"%lld\"\n",
                      l->gpus);
            has (tj, want);
            snprintf (want, sizeof want, "gpuplan.io/layout: \"tp=%d,pp=%d,"
                      "dp=%d,cp=%d,ep=%d\"\n", l->tp, l->pp, l->dp, l->cp,
                      l->ep);
            has (tj, want);
            snprintf (want, sizeof want, "- \"--global-batch-size\"\n    - "
                      "\"%lld\"\n", l->global_batch);
            has (tj, want);
            snprintf (want, sizeof want, "- \"--micro-batch-size\"\n    - "
                      "\"%d\"\n", l->micro_batch);
            has (tj, want);
            const struct gp_arch *m = gp_zoo_find (zoo, s->workloads[i].model,
                                                   NULL);
            assert_non_null (m);    /* the zoo the plan resolved it in */
            snprintf (want, sizeof want, "- \"--num-layers\"\n    - "
                      "\"%d\"\n", m->layers);
            has (tj, want);
            snprintf (want, sizeof want, "- \"--hidden-size\"\n    - "
                      "\"%d\"\n", m->hidden);
            has (tj, want);
            snprintf (want, sizeof want, "- \"--seq-length\"\n    - "
                      "\"%.0f\"\n", l->seq_len);
            has (tj, want);
            snprintf (want, sizeof want, "%s.sbatch", s->workloads[i].name);
            has (file (x, want), "#SBATCH --ntasks-per-node=1\n");
            jobs++;
        }
        if (k == (size_t)r->recommended || options == 1)
            write_out_dir (x, "GP_JOBS_OUT_EXAMPLE");
        gp_export_destroy (x);
        gp_cluster_destroy (c);
    }
    assert_true (options > 0);
    assert_true (jobs >= options);  /* pretrain-70b at least */
    gp_zoo_destroy (zoo);
    gp_plan_result_destroy (r);
    gp_plan_spec_destroy (s);
    gp_doc_destroy (d);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_trainjob_layout),
        cmocka_unit_test (test_subnode_recurring),
        cmocka_unit_test (test_sbatch),
        cmocka_unit_test (test_jobset),
        cmocka_unit_test (test_three_tiers_preferred),
        cmocka_unit_test (test_rdma_flavors),
        cmocka_unit_test (test_invariants),
        cmocka_unit_test (test_model_dense),
        cmocka_unit_test (test_model_moe),
        cmocka_unit_test (test_model_refused),
        cmocka_unit_test (test_names_and_teams),
        cmocka_unit_test (test_mig_pool),
        cmocka_unit_test (test_not_applicable),
        cmocka_unit_test (test_needs_plan),
        cmocka_unit_test (test_enterprise_ties),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
