/* jobs.c - the jobs export target (docs/formats/export-jobs.md): per
 * training and recurring workload of a plan, the planned layout as a
 * Kubeflow Trainer v2 TrainJob with the ClusterTrainingRuntime it names,
 * a JobSet alternative, and a Slurm batch script (jobs_sbatch.c).
 *
 * Every number comes from the plan result (gp_plan_option.wl[]); the
 * layout is checked before anything is written: tp x pp x dp x cp equals
 * the GPUs the pods ask, micro-batch x dp x gradient accumulation equals
 * the global batch, and each tensor-parallel group fits in one node.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobs_private.h"
#include "quote.h"

#define TRAINER_API "trainer.kubeflow.org/v1alpha1"
#define JOBSET_API "jobset.x-k8s.io/v1alpha2"
#define TAS_REQUIRED "kueue.x-k8s.io/podset-required-topology"
#define TAS_PREFERRED "kueue.x-k8s.io/podset-preferred-topology"

/* =============================== checks ================================ */

/* The pool the option's jobs run on: the only one, else the first of the
 * option's accelerator.
 */
static const struct gp_pool *pool_of (const struct gp_cluster *c,
                                      const struct gp_plan_option *op)
{
    for (size_t i = 0; i < c->n_pools; i++)
        if (!strcmp (c->pools[i].accel_id, op->accel_id))
            return &c->pools[i];
    return &c->pools[0];
}

/* The layout invariants of workload 'w' (docs/formats/export-jobs.md,
 * "Checks"); GP_EINVAL naming the workload and the identity that fails.
 */
static int check_layout (const struct gp_plan_workload *w,
                         const struct gp_plan_wl_plan *l, int gpn,
                         gp_error_t *err)
{
    const char *n = w->name;
    if (l->tp < 1 || l->pp < 1 || l->dp < 1 || l->cp < 1 || l->ep < 1
        || l->micro_batch < 1 || l->grad_accum < 1 || l->gpus < 1)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': the plan's layout "
                             "has a size below 1 (tp %d, pp %d, dp %d, cp %d, "
                             "ep %d, micro-batch %d, accumulation %d, GPUs "
                             "%lld)", n, l->tp, l->pp, l->dp, l->cp, l->ep,
                             l->micro_batch, l->grad_accum, l->gpus);
    long long prod = (long long)l->tp * l->pp * l->dp * l->cp;
    if (prod != l->gpus)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': tp x pp x dp x cp = "
                             "%d x %d x %d x %d = %lld, but the plan gives it "
                             "%lld GPUs", n, l->tp, l->pp, l->dp, l->cp, prod,
                             l->gpus);
    long long gb = (long long)l->micro_batch * l->dp * l->grad_accum;
    if (gb != l->global_batch)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': micro-batch x dp x "
                             "accumulation = %d x %d x %d = %lld, but the "
                             "global batch is %lld", n, l->micro_batch, l->dp,
                             l->grad_accum, gb, l->global_batch);
    if (((long long)l->dp * l->cp) % l->ep != 0)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': expert parallelism "
                             "%d does not divide dp x cp = %d x %d (Megatron "
                             "carves expert groups out of them)", n, l->ep,
                             l->dp, l->cp);
    if (l->tp > gpn || gpn % l->tp != 0)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': a tensor-parallel "
                             "group of %d GPUs does not fit whole in a node of "
                             "%d GPUs", n, l->tp, gpn);
    if (l->gpus > gpn && l->gpus % gpn != 0)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': %lld GPUs are not "
                             "whole nodes of %d GPUs", n, l->gpus, gpn);
    if (!(l->seq_len >= 1) || !(l->step_s > 0) || !(l->ckpt_interval_s > 0))
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': the plan gives no "
                             "sequence length, step time or checkpoint "
                             "interval", n);
    return 0;
}

/* The workload's team as the Kueue and Slurm exports name it. */
static int team_of (const struct gp_cluster *c, struct gp__job *j,
                    gp_error_t *err)
{
    const char *t = j->w->team;
    if (c->n_teams == 0 && (!t[0] || !strcmp (t, "default"))) {
        j->team = "default";    /* the exports' one team of a spec
                                   without teams */
        return 0;
    }
    int ti = gp_cluster_team (c, t);
    if (ti < 0)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': team '%s' is not a "
                             "team of the plan", j->name, t);
    j->team = c->teams[ti].name;
    j->priority = c->teams[ti].priority;
    return 0;
}

/* Where the job's pods go (docs/formats/export-jobs.md, "Topology"). */
static void topology (const struct gp_plan_option *op, struct gp__job *j)
{
    if (j->nodes == 1) {
        j->topo_key = TAS_REQUIRED;
        j->topo_level = "kubernetes.io/hostname";
    } else if (op->cloud_fabric || op->fabric.tiers <= 2) {
        j->topo_key = TAS_REQUIRED;     /* one block: the plan's fabric */
        j->topo_level = "gpuplan.io/block";
    } else {
        j->topo_key = TAS_PREFERRED;    /* three tiers: the plan priced the
                                           core as part of the fabric */
        j->topo_level = "gpuplan.io/block";
    }
}

const struct gp__job_env gp__jobs_env[GP__JOBS_N_ENV] = {
    {"DATA_PATH", "REPLACE-ME-megatron-data-prefix",
     "the Megatron data prefix (--data-path)"},
    {"TOKENIZER_MODEL", "REPLACE-ME-tokenizer",
     "the Hugging Face tokenizer name or path (--tokenizer-model)"},
    {"LR", "REPLACE-ME-learning-rate", "the peak learning rate (--lr)"},
};

/* What Megatron-LM asserts of the model against the layout
 * (docs/formats/export-jobs.md, "Checks"): GP_EINVAL naming the workload,
 * the model and the requirement that fails.
 */
static int check_model (const struct gp__job *j, gp_error_t *err)
{
    const struct gp_arch *a = j->arch;
    const struct gp_plan_wl_plan *l = j->l;
    const char *why = NULL;
    char buf[160];
    int groups = a->attention == GP_ATTN_GQA ? a->kv_heads : a->heads;
    if (a->layers < 1 || a->hidden < 1 || a->heads < 1)
        why = "the zoo gives no layers, hidden size or heads";
    else if (a->heads % l->tp != 0)
        why = "the attention heads are not a multiple of tp";
    else if (groups < 1 || groups % l->tp != 0)
        why = "the key/value groups are not a multiple of tp";
    else if (a->layers % l->pp != 0 && l->vpp > 1)
        why = "the layers are not a multiple of pp (an uneven pipeline "
              "with virtual stages is not exported)";
    else if (a->layers % l->pp != 0 && l->pp > 1
             && a->layers - (l->pp - 2) * ((a->layers + l->pp - 1) / l->pp)
                    < 2)
        why = "the layers do not fill the pipeline stages";
    else if (l->vpp > 1 && (a->layers / l->pp) % l->vpp != 0)
        why = "the layers per pipeline stage are not a multiple of vpp";
    else if (l->ep > 1 && a->moe_experts < 1)
        why = "expert parallelism needs an MoE model";
    else if (l->ep > 1 && a->moe_experts % l->ep != 0)
        why = "the experts are not a multiple of ep";
    else if (l->cp > 1 && llround (l->seq_len) % (2LL * l->cp) != 0)
        why = "the sequence length is not a multiple of 2 x cp";
    else if (a->learned_pos_emb && l->seq_len > a->max_seq_len)
        why = "the sequence is longer than the model's learned position "
              "table";
    else if (a->moe_experts > 0 && 2 * a->moe_dense_layers >= a->layers)
        why = "the zoo does not say where its dense layers sit (only a "
              "few leading dense layers are exported; interleaved "
              "patterns need --moe-layer-freq set by hand)";
    else if (!strcasecmp (j->w->precision, "fp16") && l->ep > 1)
        why = "expert parallelism does not run in fp16";
    else if (a->layer_pattern[0])
        why = "hybrid Mamba-2/attention models are not yet exported "
              "(pretrain_mamba.py with --hybrid-override-pattern)";
    if (!why)
        return 0;
    snprintf (buf, sizeof buf, "layers %d, heads %d, groups %d, experts %d",
              a->layers, a->heads, groups, a->moe_experts);
    return gp_errprintf (err, GP_EINVAL,
                         "export jobs: workload '%s': model '%s' (%s) on "
                         "tp %d, pp %d, vpp %d, cp %d, ep %d, sequence %.0f: "
                         "%s (Megatron-LM refuses it)", j->name, a->id, buf,
                         l->tp, l->pp, l->vpp, l->cp, l->ep, l->seq_len, why);
}

/* The workload's model in the zoo the plan resolved it against. */
static int model_of (const struct gp_zoo *zoo, struct gp__job *j,
                     gp_error_t *err)
{
    gp_error_t e2 = {0};
    if (!j->w->model[0])
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s' names no model (a "
                             "recurring trace): its Megatron-LM model "
                             "arguments are unknown", j->name);
    j->arch = gp_zoo_find (zoo, j->w->model, &e2);
    if (!j->arch)
        return gp_errprintf (err, GP_EINVAL, "export jobs: workload '%s': "
                             "model: %s", j->name, e2.text);
    int rc = check_model (j, err);
    int L = j->arch->layers, pp = j->l->pp;
    if (rc == 0 && L % pp != 0) {
        /* The plan sized every stage for ceil(L / pp) layers: the middle
         * stages hold that many, the first and last the rest.
         */
        int rest = L - (pp - 2) * ((L + pp - 1) / pp);
        j->last_layers = rest / 2;
        j->first_layers = rest - j->last_layers;
    }
    return rc;
}

static int job_build (const struct gp_cluster *c,
                      const struct gp_export_plan *p, size_t wi,
                      const struct gp_zoo *zoo, struct gp__job *j,
                      gp_error_t *err)
{
    const struct gp_plan_option *op = &p->result->options[p->option];
    memset (j, 0, sizeof *j);
    j->w = &p->spec->workloads[wi];
    j->l = &op->wl[wi];
    j->name = j->w->name;
    j->pool = pool_of (c, op);
    int gpn = j->pool->gpus_per_node;
    const char *n = j->name;
    if (!gp__name_dns1123_label (n) || n[0] < 'a' || n[0] > 'z')
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workloads[%zu].name '%s' is not an "
                             "RFC 1035 label (a lowercase letter, then "
                             "lowercase letters, digits and '-', at most 63; "
                             "TrainJob names)", wi, n);
    if (gpn < 1)
        return gp_errprintf (err, GP_EINVAL, "export jobs: pool '%s' has no "
                             "GPUs per node", j->pool->name);
    int rc = check_layout (j->w, j->l, gpn, err);
    if (rc == 0)
        rc = model_of (zoo, j, err);
    if (rc == 0)
        rc = team_of (c, j, err);
    if (rc != 0)
        return rc;
    char names[GP_MIG_MAX + 1][64];
    long long counts[GP_MIG_MAX + 1];
    if (j->pool->n_mig > 0)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': pool '%s' is "
                             "partitioned by MIG; a training job needs whole "
                             "GPUs", n, j->pool->name);
    rc = gp_pool_k8s_resources (j->pool, "single", names, counts,
                                GP_MIG_MAX + 1, err);
    if (rc < 0)
        return rc;
    snprintf (j->res, sizeof j->res, "%s", names[0]);
    j->gpus = j->l->gpus;
    long long nodes = j->gpus > gpn ? j->gpus / gpn : 1;
    if (nodes > j->pool->nodes)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workload '%s': %lld nodes, but "
                             "pool '%s' has %d", n, nodes, j->pool->name,
                             j->pool->nodes);
    j->nodes = (int)nodes;
    j->per_node = j->gpus > gpn ? gpn : (int)j->gpus;
    /* The JobSet's pods are named <name>-node-0-<index>: a DNS label. */
    char last[24];
    int nl = snprintf (last, sizeof last, "-node-0-%d", j->nodes - 1);
    if (strlen (n) + (size_t)nl > 63)
        return gp_errprintf (err, GP_EINVAL,
                             "export jobs: workloads[%zu].name '%s': at most "
                             "%d characters, so that its JobSet's pod names "
                             "(%s%s) stay DNS labels", wi, n, 63 - nl, n,
                             last);
    snprintf (j->layout, sizeof j->layout, "tp=%d,pp=%d,dp=%d,cp=%d,ep=%d",
              j->l->tp, j->l->pp, j->l->dp, j->l->cp, j->l->ep);
    double k = floor (j->l->ckpt_interval_s / j->l->step_s + 0.5);
    j->save_interval = k < 1 ? 1 : (long long)k;
    j->tier = gp_storage_tier_str (op->stor.tier);
    snprintf (j->mount, sizeof j->mount, "%s/%s", GP__JOBS_MOUNT, j->tier);
    snprintf (j->save, sizeof j->save, "%s/checkpoints/%s", j->mount, n);
    double samples = ceil (j->w->tokens / j->l->seq_len);
    if (samples > 0 && samples < 9e18)
        j->train_samples = (long long)samples;
    j->time_s = j->l->run_days * 86400.0;
    topology (op, j);
    return 0;
}

/* ============================== arguments ============================== */

static void arg (struct gp__job_args *a, const char *fmt, long long v)
{
    if (a->n < GP__JOBS_MAX_ARGS) {
        a->env[a->n] = 0;
        snprintf (a->v[a->n++], sizeof a->v[0], fmt, v);
    }
}

static void word (struct gp__job_args *a, const char *s)
{
    if (a->n < GP__JOBS_MAX_ARGS) {
        a->env[a->n] = 0;
        snprintf (a->v[a->n++], sizeof a->v[0], "%s", s);
    }
}

/* "--flag value" with an integer value. */
static void flag (struct gp__job_args *a, const char *f, long long v)
{
    word (a, f);
    arg (a, "%lld", v);
}

/* "--flag $(NAME)": the value of placeholder variable 'e'. */
static void flag_env (struct gp__job_args *a, const char *f, int e)
{
    word (a, f);
    if (a->n < GP__JOBS_MAX_ARGS) {
        snprintf (a->v[a->n], sizeof a->v[0], "%s", gp__jobs_env[e].name);
        a->env[a->n++] = 1;
    }
}

int gp__job_needs_max_connections (const struct gp__job *j)
{
    const char *sh = j->l->sharding;
    int fsdp = !strcmp (sh, "zero2") || !strcmp (sh, "zero3")
               || !strcmp (sh, "fsdp");
    return (j->l->tp > 1 || j->l->cp > 1) && !fsdp;
}

/* The model shape from the zoo (docs/formats/export-jobs.md, "Model"). */
static void model_args (const struct gp__job *j, struct gp__job_args *a)
{
    const struct gp_arch *m = j->arch;
    long long seq = llround (j->l->seq_len);
    flag (a, "--num-layers", m->layers);
    flag (a, "--hidden-size", m->hidden);
    flag (a, "--num-attention-heads", m->heads);
    if (m->attention == GP_ATTN_MLA) {
        word (a, "--multi-latent-attention");
        if (m->mla_q_lora_rank > 0)
            flag (a, "--q-lora-rank", m->mla_q_lora_rank);
        flag (a, "--kv-lora-rank", m->mla_kv_lora_rank);
        flag (a, "--qk-head-dim", m->mla_qk_nope_head_dim);
        flag (a, "--qk-pos-emb-head-dim", m->mla_qk_rope_head_dim);
        flag (a, "--v-head-dim", m->mla_v_head_dim);
    } else {
        flag (a, "--kv-channels", m->head_dim);
        if (m->attention == GP_ATTN_GQA) {
            word (a, "--group-query-attention");
            flag (a, "--num-query-groups", m->kv_heads);
        }
    }
    if (m->ffn_hidden > 0)
        flag (a, "--ffn-hidden-size", m->ffn_hidden);
    if (m->moe_experts > 0) {
        flag (a, "--num-experts", m->moe_experts);
        flag (a, "--moe-router-topk", m->moe_topk);
        flag (a, "--moe-ffn-hidden-size", m->moe_ffn_hidden);
        if (m->moe_shared_experts > 0)
            flag (a, "--moe-shared-expert-intermediate-size",
                  (long long)m->moe_shared_experts * m->moe_ffn_hidden);
        if (m->moe_dense_layers > 0) {
            char f[64];
            snprintf (f, sizeof f, "([0]*%d+[1]*%d)", m->moe_dense_layers,
                      m->layers - m->moe_dense_layers);
            word (a, "--moe-layer-freq");
            word (a, f);
        }
    }
    if (m->mlp == GP_MLP_SWIGLU) {
        word (a, "--swiglu");
        word (a, "--normalization");
        word (a, "RMSNorm");
    }
    word (a, "--disable-bias-linear");
    if (!m->tied_embeddings)
        word (a, "--untie-embeddings-and-output-weights");
    word (a, "--position-embedding-type");
    word (a, m->learned_pos_emb ? "learned_absolute" : "rope");
    flag (a, "--max-position-embeddings",
          seq > m->max_seq_len ? seq : m->max_seq_len);
    if (!strcasecmp (j->w->precision, "fp16"))
        word (a, "--fp16");
    else
        word (a, "--bf16");
    if (!strcasecmp (j->w->precision, "fp8")) {
        word (a, "--fp8-format");
        word (a, "hybrid");
    }
}

/* The layout, batch and memory savings of the plan. */
static void layout_args (const struct gp__job *j, struct gp__job_args *a)
{
    const struct gp_plan_wl_plan *l = j->l;
    flag (a, "--tensor-model-parallel-size", l->tp);
    flag (a, "--pipeline-model-parallel-size", l->pp);
    flag (a, "--context-parallel-size", l->cp);
    flag (a, "--expert-model-parallel-size", l->ep);
    if (l->vpp > 1)
        flag (a, "--num-virtual-stages-per-pipeline-rank", l->vpp);
    if (j->first_layers > 0) {
        flag (a, "--decoder-first-pipeline-num-layers", j->first_layers);
        flag (a, "--decoder-last-pipeline-num-layers", j->last_layers);
    }
    flag (a, "--micro-batch-size", l->micro_batch);
    flag (a, "--global-batch-size", l->global_batch);
    flag (a, "--seq-length", llround (l->seq_len));
    if (!strcmp (l->recompute, "selective")) {
        word (a, "--recompute-granularity");
        word (a, "selective");
    } else if (!strcmp (l->recompute, "full")) {
        word (a, "--recompute-granularity");
        word (a, "full");
        word (a, "--recompute-method");
        word (a, "uniform");
        word (a, "--recompute-num-layers");
        word (a, "1");
    }
    if (!strcmp (l->sharding, "zero1"))
        word (a, "--use-distributed-optimizer");
    else if (!strcmp (l->sharding, "zero2") || !strcmp (l->sharding, "zero3")
             || !strcmp (l->sharding, "fsdp")) {
        word (a, "--use-megatron-fsdp");
        word (a, "--data-parallel-sharding-strategy");
        word (a, !strcmp (l->sharding, "zero2") ? "optim_grads"
                                                 : "optim_grads_params");
        word (a, "--ckpt-format");      /* Megatron FSDP asserts it */
        word (a, "fsdp_dtensor");
    }
}

void gp__job_megatron_args (const struct gp__job *j, struct gp__job_args *a)
{
    a->n = 0;
    model_args (j, a);
    layout_args (j, a);
    if (j->train_samples > 0)
        flag (a, "--train-samples", j->train_samples);
    flag (a, "--save-interval", j->save_interval);
    word (a, "--save");
    word (a, j->save);
    word (a, "--load");
    word (a, j->save);
    word (a, "--tokenizer-type");
    word (a, "HuggingFaceTokenizer");
    flag_env (a, "--tokenizer-model", 1);
    flag_env (a, "--data-path", 0);
    flag_env (a, "--lr", 2);
}

/* ================================ YAML ================================= */

static void kv_int (struct gp__yaml *y, const char *k, long long v)
{
    char s[32];
    snprintf (s, sizeof s, "%lld", v);
    gp__y_key (y, k);
    gp__y_qstr (y, s);
}

/* metadata: name, namespace (NULL = cluster-scoped), the Kueue labels
 * (queue = 1) and the gpuplan annotations.
 */
static void metadata (struct gp__yaml *y, const struct gp__job *j,
                      const char *name, const char *ns, int queue)
{
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    if (ns)
        gp__y_kstr (y, "namespace", ns);
    if (queue) {
        gp__y_key (y, "labels");
        gp__y_map (y);
        gp__y_kstr (y, "kueue.x-k8s.io/queue-name", j->team);
        if (j->priority != 0) {
            char pc[32];
            snprintf (pc, sizeof pc, "priority-%s%d",
                      j->priority < 0 ? "m" : "",
                      j->priority < 0 ? -j->priority : j->priority);
            gp__y_kstr (y, "kueue.x-k8s.io/priority-class", pc);
        }
        gp__y_map_end (y);
    }
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/workload", j->name);
    kv_int (y, "gpuplan.io/gpus", j->gpus);
    gp__y_kstr (y, "gpuplan.io/layout", j->layout);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

/* The Megatron-LM arguments as a container's args: a placeholder as
 * "$(NAME)", which Kubernetes expands from the container's env.
 */
static void args_seq (struct gp__yaml *y, const struct gp__job_args *a)
{
    gp__y_key (y, "args");
    gp__y_seq (y);
    for (size_t i = 0; i < a->n; i++) {
        char ref[224];
        if (a->env[i])
            snprintf (ref, sizeof ref, "$(%s)", a->v[i]);
        gp__y_str (y, a->env[i] ? ref : a->v[i]);
    }
    gp__y_seq_end (y);
}

static void env_var (struct gp__yaml *y, const char *name, const char *value)
{
    gp__y_map (y);
    gp__y_kstr (y, "name", name);
    gp__y_kstr (y, "value", value);
    gp__y_map_end (y);
}

/* The container's env: the placeholders the user replaces, and
 * CUDA_DEVICE_MAX_CONNECTIONS where Megatron-LM asserts it.
 */
static void env_seq (struct gp__yaml *y, const struct gp__job *j)
{
    gp__y_key (y, "env");
    gp__y_seq (y);
    for (int e = 0; e < GP__JOBS_N_ENV; e++)
        env_var (y, gp__jobs_env[e].name, gp__jobs_env[e].placeholder);
    if (gp__job_needs_max_connections (j))
        env_var (y, "CUDA_DEVICE_MAX_CONNECTIONS", "1");
    gp__y_seq_end (y);
}

/* The GPUs of one pod and, with RDMA, one NIC of each rail. */
static void gpu_resources (struct gp__yaml *y, const struct gp__job *j)
{
    for (int k = 0; k < 2; k++) {
        gp__y_key (y, k ? "requests" : "limits");
        gp__y_map (y);
        gp__y_kint (y, j->res, j->per_node);
        for (int r = 0; j->rdma && r < j->rdma->n_rails; r++)
            gp__y_kint (y, j->rdma->rails[r].resource, 1);
        gp__y_map_end (y);
    }
}

/* The pod template: TAS annotation, one container named 'node' (the name
 * the Trainer's torch plugin configures), the storage tier mounted.
 */
static void pod_template (struct gp__yaml *y, const struct gp__job *j,
                          const struct gp__job_args *torchrun)
{
    gp__y_key (y, "template");
    gp__y_map (y);
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, j->topo_key, j->topo_level);
    if (j->rdma)
        gp__y_kstr (y, GP__RDMA_NETWORKS_ANNOTATION, j->rdma->annotation);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kstr (y, "restartPolicy", "Never");
    gp__y_key (y, "containers");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "node");
    gp__y_kstr (y, "image", GP__JOBS_IMAGE);
    if (torchrun) {
        struct gp__job_args a;
        gp__job_megatron_args (j, &a);
        gp__y_key (y, "command");
        gp__y_seq (y);
        for (size_t i = 0; i < torchrun->n; i++)
            gp__y_str (y, torchrun->v[i]);
        gp__y_seq_end (y);
        args_seq (y, &a);
        env_seq (y, j);
        gp__y_key (y, "resources");
        gp__y_map (y);
        gpu_resources (y, j);
        gp__y_map_end (y);
    }
    if (j->rdma) {      /* RDMA memory registration pins pages */
        gp__y_key (y, "securityContext");
        gp__y_map (y);
        gp__y_key (y, "capabilities");
        gp__y_map (y);
        gp__y_key (y, "add");
        gp__y_seq_flow (y);
        gp__y_str (y, "IPC_LOCK");
        gp__y_seq_end (y);
        gp__y_map_end (y);
        gp__y_map_end (y);
    }
    gp__y_key (y, "volumeMounts");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "storage");
    gp__y_kstr (y, "mountPath", j->mount);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_key (y, "volumes");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "storage");
    gp__y_key (y, "hostPath");
    gp__y_map (y);
    gp__y_kstr (y, "path", j->mount);
    gp__y_kstr (y, "type", "Directory");
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

/* The ClusterTrainingRuntime a TrainJob names: torch policy, a JobSet
 * with the replicated job 'node' the Trainer fills in.
 */
static void runtime (struct gp__yaml *y, const struct gp__job *j,
                     const char *rt)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", TRAINER_API);
    gp__y_kstr (y, "kind", "ClusterTrainingRuntime");
    metadata (y, j, rt, NULL, 0);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "mlPolicy");
    gp__y_map (y);
    gp__y_kint (y, "numNodes", j->nodes);
    gp__y_key (y, "torch");
    gp__y_map (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "template");
    gp__y_map (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "replicatedJobs");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "node");
    gp__y_key (y, "template");
    gp__y_map (y);
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_key (y, "labels");
    gp__y_map (y);
    gp__y_kstr (y, "trainer.kubeflow.org/trainjob-ancestor-step", "trainer");
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    pod_template (y, j, NULL);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

static void trainjob (struct gp__yaml *y, const struct gp__job *j,
                      const char *rt)
{
    struct gp__job_args a;
    gp__job_megatron_args (j, &a);
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", TRAINER_API);
    gp__y_kstr (y, "kind", "TrainJob");
    metadata (y, j, j->name, j->team, 1);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "runtimeRef");
    gp__y_map (y);
    gp__y_kstr (y, "apiGroup", "trainer.kubeflow.org");
    gp__y_kstr (y, "kind", "ClusterTrainingRuntime");
    gp__y_kstr (y, "name", rt);
    gp__y_map_end (y);
    gp__y_key (y, "trainer");
    gp__y_map (y);
    gp__y_kstr (y, "image", GP__JOBS_IMAGE);
    gp__y_key (y, "command");
    gp__y_seq (y);
    gp__y_str (y, "torchrun");
    gp__y_str (y, GP__JOBS_SCRIPT);
    gp__y_seq_end (y);
    args_seq (y, &a);
    env_seq (y, j);
    gp__y_kint (y, "numNodes", j->nodes);
    gp__y_kint (y, "numProcPerNode", j->per_node);
    gp__y_key (y, "resourcesPerNode");
    gp__y_map (y);
    gpu_resources (y, j);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

/* The JobSet alternative: one indexed Job of 'nodes' pods, torchrun with
 * a static rendezvous on pod 0 of the JobSet's headless service.
 */
static void jobset (struct gp__yaml *y, const struct gp__job *j)
{
    struct gp__job_args t = {0};
    snprintf (t.v[t.n++], sizeof t.v[0], "torchrun");
    snprintf (t.v[t.n++], sizeof t.v[0], "--nnodes=%d", j->nodes);
    snprintf (t.v[t.n++], sizeof t.v[0], "--nproc-per-node=%d", j->per_node);
    snprintf (t.v[t.n++], sizeof t.v[0], "--node-rank=$(JOB_COMPLETION_INDEX)");
    snprintf (t.v[t.n++], sizeof t.v[0], "--master-addr=%s-node-0-0.%s",
              j->name, j->name);
    snprintf (t.v[t.n++], sizeof t.v[0], "--master-port=%d",
              GP__JOBS_MASTER_PORT);
    snprintf (t.v[t.n++], sizeof t.v[0], "%s", GP__JOBS_SCRIPT);
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", JOBSET_API);
    gp__y_kstr (y, "kind", "JobSet");
    metadata (y, j, j->name, j->team, 1);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "replicatedJobs");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "node");
    gp__y_kint (y, "replicas", 1);
    gp__y_key (y, "template");
    gp__y_map (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kint (y, "parallelism", j->nodes);
    gp__y_kint (y, "completions", j->nodes);
    gp__y_kstr (y, "completionMode", "Indexed");
    gp__y_kint (y, "backoffLimit", 0);
    pod_template (y, j, &t);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

/* ================================ write ================================ */

static void header (struct sb *b, const char *what)
{
    gp__sb_printf (b, "# %s generated by gpuplan from the plan's layouts "
                      "(docs/formats/export-jobs.md).\n# Apply after the "
                      "Kueue export (the team namespaces and LocalQueues).\n",
                   what);
}

/* Render job 'j' into the three texts. */
static void render_job (const struct gp__job *j, struct gp__yaml *tj,
                        struct gp__yaml *js, struct sb *sh, gp_error_t *err,
                        int *rc)
{
    char rt[96];
    snprintf (rt, sizeof rt, "gpuplan-%s", j->name);
    runtime (tj, j, rt);
    trainjob (tj, j, rt);
    jobset (js, j);
    if (*rc == 0)
        *rc = gp__jobs_sbatch (j, sh, err);
}

/* The three kinds of file of 'nj' checked jobs into 'x'. */
static int render_all (const struct gp__job *jobs, size_t nj,
                       struct gp_export *x, gp_error_t *err)
{
    struct sb tb = {0}, jb = {0};
    struct gp__yaml ty = {0}, jy = {0};
    header (&tb, "Kubeflow Trainer v2 ClusterTrainingRuntimes and TrainJobs");
    header (&jb, "JobSets (the alternative to trainjobs.yaml)");
    struct sb *sh = calloc (nj, sizeof *sh);
    int rc = 0;
    if (gp__y_open (&ty, &tb) != 0 || gp__y_open (&jy, &jb) != 0 || !sh)
        rc = GP_ENOMEM;
    for (size_t k = 0; rc == 0 && k < nj; k++)
        render_job (&jobs[k], &ty, &jy, &sh[k], err, &rc);
    if (ty.open && gp__y_close (&ty) != 0 && rc == 0)
        rc = GP_ENOMEM;
    if (jy.open && gp__y_close (&jy) != 0 && rc == 0)
        rc = GP_ENOMEM;
    size_t k = 0;
    if (rc == 0) {
        /* gp__export_add_file takes each text, or frees it on failure. */
        rc = gp__export_add_file (x, "trainjobs.yaml", &tb) != 0 ? GP_ENOMEM
                                                                 : 0;
        tb.s = NULL;
        if (rc == 0 && gp__export_add_file (x, "jobsets.yaml", &jb) != 0)
            rc = GP_ENOMEM;
        jb.s = NULL;
        for (; rc == 0 && k < nj; k++) {
            char fn[64];
            snprintf (fn, sizeof fn, "%.56s.sbatch", jobs[k].name);
            if (gp__export_add_file (x, fn, &sh[k]) != 0)
                rc = GP_ENOMEM;
        }
    }
    for (; sh && k < nj; k++)
        free (sh[k].s);
    free (sh);
    free (tb.s);
    free (jb.s);
    return rc;
}

static int is_job (const struct gp_plan_workload *w,
                   const struct gp_plan_wl_plan *l)
{
    return (w->kind == GP_WL_TRAINING || w->kind == GP_WL_RECURRING)
           && l->sized;
}

static int write_jobs (const struct gp_cluster *c,
                       const struct gp_export_opts *o, struct gp_export *x,
                       gp_error_t *err)
{
    const struct gp_export_plan *p = o->plan;
    if (!p || !p->spec || !p->result || p->option < 0
        || (size_t)p->option >= p->result->n_options)
        return gp_errprintf (err, GP_EINVAL, "export jobs: no plan option");
    const struct gp_plan_option *op = &p->result->options[p->option];
    size_t nw = p->spec->n_workloads;
    if (nw > GP_PLAN_MAX_WORKLOADS)
        nw = GP_PLAN_MAX_WORKLOADS;
    struct gp__job *jobs = calloc (nw ? nw : 1, sizeof *jobs);
    if (!jobs)
        return GP_ENOMEM;
    size_t nj = 0;
    int rc = 0, multi = 0;
    /* The embedded zoo, as the plan resolved its models against it. */
    struct gp_zoo *zoo = gp_zoo_load (NULL, err);
    if (!zoo)
        rc = err && err->code ? err->code : GP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nw; i++)
        if (is_job (&p->spec->workloads[i], &op->wl[i])) {
            rc = job_build (c, p, i, zoo, &jobs[nj], err);
            multi |= jobs[nj++].nodes > 1;
        }
    /* Multi-node jobs attach the option's RDMA rails (rdma.h). */
    struct gp__rdma rdma = {0};
    if (rc == 0 && multi)
        rc = gp__rdma_rails (o, c, &rdma, err);
    for (size_t k = 0; rc == 0 && k < nj; k++)
        if (jobs[k].nodes > 1 && rdma.n_rails > 0)
            jobs[k].rdma = &rdma;
    if (rc == 0 && nj == 0) {
        snprintf (x->not_applicable, sizeof x->not_applicable,
                  "option '%s' has no sized training or recurring workload",
                  op->name);
        free (jobs);
        gp_zoo_destroy (zoo);
        return 0;
    }
    rc = rc != 0 ? rc : render_all (jobs, nj, x, err);
    free (jobs);
    gp_zoo_destroy (zoo);
    return rc;
}

const struct gp_export_target_ops gp__export_jobs = {
    .name = "jobs",
    .k8s_names = 1,
    .needs_plan = 1,
    .write = write_jobs,
};
