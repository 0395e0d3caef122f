/* jobs_private.h - shared by the jobs export files: jobs.c (the plan's
 * layouts checked and turned into Kubeflow Trainer and JobSet objects) and
 * jobs_sbatch.c (the same layout as a Slurm batch script).  The mapping is
 * documented in docs/formats/export-jobs.md.
 */
#ifndef GPUPLAN_EXPORT_JOBS_PRIVATE_H
#define GPUPLAN_EXPORT_JOBS_PRIVATE_H

#include "gpuplan/arch.h"
#include "gpuplan/cluster.h"
#include "gpuplan/plan.h"
#include "export_private.h"
#include "rdma.h"

/* The container image and the Megatron-LM entry point the jobs run
 * (docs/formats/export-jobs.md, "Image").
 */
#define GP__JOBS_IMAGE "nvcr.io/nvidia/nemo:25.07"
#define GP__JOBS_SCRIPT "/opt/megatron-lm/pretrain_gpt.py"
/* Where every node mounts the option's storage tier (hostPath in the
 * pods, the same path under Slurm): GP__JOBS_MOUNT/<tier>.
 */
#define GP__JOBS_MOUNT "/mnt/gpuplan"
#define GP__JOBS_MASTER_PORT 29500
/* The partition limit the Slurm export writes (MaxTime=7-00:00:00). */
#define GP__JOBS_MAX_TIME_S (7 * 86400.0)

#define GP__JOBS_MAX_ARGS 128   /* the most a job writes is 92; the
                                   TrainJob CRD allows 128 args */

/* One training or recurring workload of the plan, checked and ready to
 * write.
 */
struct gp__job {
    const struct gp_plan_workload *w;
    const struct gp_plan_wl_plan *l;
    const struct gp_pool *pool;
    const char *name;           /* the workload's name */
    const char *team;           /* its team: namespace, LocalQueue,
                                   Slurm account and QOS */
    int priority;               /* the team's priority (0 = none) */
    long long gpus;             /* GPUs the pods ask in all */
    int nodes, per_node;        /* pods (one per node), GPUs per pod */
    char res[64];               /* the GPU resource of the pool */
    char layout[128];           /* "tp=..,pp=..,dp=..,cp=..,ep=.." */
    long long save_interval;    /* steps between checkpoints */
    const char *tier;           /* storage tier keyword */
    char mount[64];             /* GP__JOBS_MOUNT/<tier> */
    char save[192];             /* <mount>/checkpoints/<name> */
    const char *topo_key;       /* the Kueue TAS annotation */
    const char *topo_level;     /* its node label */
    long long train_samples;    /* sequences of one run; 0 = unknown */
    double time_s;              /* one run's wall clock (plan) */
    const struct gp_arch *arch; /* the workload's zoo model (borrowed from
                                   the zoo write_jobs loads) */
    int first_layers, last_layers;  /* uneven pipeline (pp does not divide
                                       the layers): layers of the first and
                                       last stage, the others hold
                                       ceil(layers / pp) as the plan sized
                                       them; 0 = even */
    const struct gp__rdma *rdma;    /* the option's RDMA rails, every one
                                       attached to each pod; NULL = none
                                       (one node, or no rails) */
};

/* The placeholders the user sets (docs/formats/export-jobs.md, "Data,
 * tokenizer and learning rate"): environment variables the arguments
 * reference, each with the placeholder value the Kubernetes objects give
 * it (the batch script requires it set instead).
 */
struct gp__job_env {
    const char *name;
    const char *placeholder;
    const char *what;
};
#define GP__JOBS_N_ENV 3
extern const struct gp__job_env gp__jobs_env[GP__JOBS_N_ENV];

/* The Megatron-LM arguments of a job's layout and model.  A word with
 * env[i] set is the name of a gp__jobs_env variable whose value is the
 * argument: "$(NAME)" in a container's args, "$NAME" in a shell.
 */
struct gp__job_args {
    char v[GP__JOBS_MAX_ARGS][208];
    unsigned char env[GP__JOBS_MAX_ARGS];
    size_t n;
};

/* 1 when the job needs CUDA_DEVICE_MAX_CONNECTIONS=1 (Megatron-LM asserts
 * it with tensor or context parallelism before Blackwell, and asserts it
 * unset with Megatron FSDP).
 */
int gp__job_needs_max_connections (const struct gp__job *j);

/* Fill 'a' with the pretrain_gpt.py arguments of 'j': the model shape
 * from j->arch, the layout, batch, checkpoint and run length from the
 * plan, the data, tokenizer and learning rate as env references (each a
 * separate word, no quoting).
 */
void gp__job_megatron_args (const struct gp__job *j, struct gp__job_args *a);

/* The sbatch script of 'j' into 'b'.  Returns 0, or
 * GP_EINVAL with 'err' naming the name that Slurm cannot take.
 */
int gp__jobs_sbatch (const struct gp__job *j, struct sb *b, gp_error_t *err);

#endif
