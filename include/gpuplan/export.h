/* gpuplan/export.h - configuration for the orchestrators a planned cluster
 * runs: Kueue (ResourceFlavors, ClusterQueues in cohorts, LocalQueues,
 * WorkloadPriorityClasses), Volcano (Queues), Slurm (slurm.conf nodes
 * and partitions, gres.conf, topology.conf, sacctmgr accounts and QOS) and
 * Prometheus (recording and alerting rules over DCGM exporter metrics that
 * compare the running cluster with the plan).
 *
 * gpuplan plans and simulates; these files hand the plan to the engines
 * that enforce it.  Mapping rules are in docs/formats/export.md.
 */
#ifndef GPUPLAN_EXPORT_H
#define GPUPLAN_EXPORT_H

#include <stddef.h>

#include "gpuplan/cluster.h"
#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_export_target {
    GP_EXPORT_KUEUE,
    GP_EXPORT_VOLCANO,
    GP_EXPORT_SLURM,
    GP_EXPORT_PROMETHEUS,
    GP_EXPORT_GRAFANA,
    /* From a plan (gp_export_render_plan); the first two also from a
     * cluster spec.
     */
    GP_EXPORT_GPU_OPERATOR,     /* ClusterPolicy, MIG and sharing config,
                                   DCGM counters */
    GP_EXPORT_YUNIKORN,         /* yunikorn-configs ConfigMap */
    GP_EXPORT_NETWORK,          /* RDMA secondary networks per rail (plan) */
    GP_EXPORT_SERVING,          /* KServe / LWS, KEDA / HPA (plan) */
    GP_EXPORT_JOBS,             /* TrainJob / JobSet, sbatch (plan) */
    GP_EXPORT__COUNT
};

struct gp_plan_spec;
struct gp_plan_result;

/* The plan behind a render (gp_export_render_plan): the spec and its
 * result, and the option exported.  Exporters read every number from
 * here (the plan's single decision path); they compute none themselves.
 */
struct gp_export_plan {
    const struct gp_plan_spec *spec;
    const struct gp_plan_result *result;
    int option;                 /* index into result->options */
};

/* RDMA secondary-network flavour of the network target. */
enum gp_export_net_flavor {
    GP_NET_NVIDIA_OPERATOR,     /* default: NVIDIA Network Operator
                                   (NicClusterPolicy, HostDeviceNetwork /
                                   IPoIBNetwork), resources nvidia.com/ */
    GP_NET_SRIOV,               /* standalone SR-IOV Network Operator
                                   (SriovNetworkNodePolicy, SriovNetwork /
                                   SriovIBNetwork), resources openshift.io/ */
};

/* Options of a render; a zeroed struct (or NULL) means the defaults. */
struct gp_export_opts {
    int kueue_api; /* Kueue API version: 0 or 2 = v1beta2 (the storage
                      version of Kueue v0.19), 1 = v1beta1 (older
                      clusters) */
    const struct gp_catalog *catalog; /* optional: host CPUs and memory of
                      the accelerator's catalog instance rows where a pool
                      omits cpus_per_node/host_memory (Kueue, Volcano);
                      NULL = none (borrowed) */
    const struct gp_export_plan *plan; /* set by gp_export_render_plan();
                      NULL for a cluster spec */
    enum gp_export_net_flavor net;    /* network target */
    int month;        /* serving: month of the horizon whose traffic the
                         autoscaler follows, 1-based; 0 = the last */
    int hpa;          /* serving: an autoscaling/v2 HPA instead of a KEDA
                         ScaledObject */
};

struct gp_export_file {
    char name[64]; /* suggested file name, e.g. "kueue.yaml" */
    char *text;    /* NUL-terminated contents, owned by the export */
};

/* The files of one target, in the order the target writes them; the
 * array grows with the target (no fixed cap).
 */
struct gp_export {
    struct gp_export_file *files;
    size_t n_files;
    enum gp_export_target target; /* the target rendered */
    /* Set when the target does not apply to what was exported (e.g. no
     * Slurm node file for a managed cloud fleet, no RDMA network for a
     * single node): n_files is 0 and this says why.  "" otherwise.
     */
    char not_applicable[256];
};

/* Parse a target name ("kueue", "volcano", "slurm", "prometheus",
 * "grafana", "gpu-operator", "yunikorn", "network", "serving", "jobs")
 * into '*t'.  Returns 0, GP_ENOTFOUND naming the known targets, or
 * GP_EINVAL for NULL arguments; '*t' is untouched on failure.
 */
int gp_export_target_parse (const char *s,
                            enum gp_export_target *t,
                            gp_error_t *err);

/* The name of a target ("kueue", ...), "unknown" for a value outside the
 * enum; a static string.
 */
const char *gp_export_target_str (enum gp_export_target t);

/* Render 'c' for target 't' into a new export the caller frees with
 * gp_export_destroy().  Fails with GP_EINVAL when a name cannot be used
 * by the target (Kubernetes names are DNS-1123 labels; Slurm names are
 * [a-z][a-z0-9_-]*), naming the offending spec field; GP_EINVAL for an empty
 * cluster or a target outside the enum, GP_ENOMEM.  Returns NULL with
 * 'err' set on failure.
 */
struct gp_export *gp_export_render (const struct gp_cluster *c,
                                    enum gp_export_target t,
                                    gp_error_t *err);

/* gp_export_render() with options ('o' NULL = defaults).  Also fails with
 * GP_EINVAL for an option value outside its range, and with
 * GP_ENOTSUP (or GP_EINVAL) when the target cannot express the
 * cluster, naming what is missing.
 */
struct gp_export *gp_export_render_opts (const struct gp_cluster *c,
                                         enum gp_export_target t,
                                         const struct gp_export_opts *o,
                                         gp_error_t *err);

/* Whether target 't' needs a plan (network, serving, jobs) rather than
 * a cluster spec alone.
 */
int gp_export_target_needs_plan (enum gp_export_target t);

/* Render target 't' for option 'p->option' of a plan: the cluster-level
 * targets get the option's cluster (gp_plan_option_cluster: its pool,
 * and its teams with the planned quotas), the plan-level ones read the
 * layouts and replicas of p->result.  'o' may be NULL (defaults); its
 * 'plan' field is ignored (p is used), its 'catalog' NULL means 'cat'.
 * A target that does not apply to the option returns an export with no
 * files and not_applicable set (slurm for a cloud option: a managed
 * Slurm writes its own node lines).  o->month outside 0..the option's
 * months is GP_EINVAL.
 * Returns NULL with 'err' set: GP_EINVAL (bad option index, names),
 * GP_ENOTSUP, GP_ENOMEM.
 */
struct gp_export *gp_export_render_plan (const struct gp_export_plan *p,
                                         enum gp_export_target t,
                                         const struct gp_export_opts *o,
                                         const struct gp_catalog *cat,
                                         gp_error_t *err);

/* Every target, in enum order (the CLI's 'export all'), for option
 * p->option: xs[t] = gp_export_render_plan (p, t, o, cat); a target that
 * does not apply gives an export with no files and not_applicable set.
 * Returns 0 with every xs[t] set (each freed with gp_export_destroy()),
 * or the first failing target's error prefixed "export all: <target>: "
 * (a target not yet built: GP_ENOTSUP naming it) with every xs[t] NULL.
 */
int gp_export_render_plan_all (const struct gp_export_plan *p,
                               const struct gp_export_opts *o,
                               const struct gp_catalog *cat,
                               struct gp_export *xs[GP_EXPORT__COUNT],
                               gp_error_t *err);

/* Parse a Kueue API version, "v1beta1" or "v1beta2", into '*api' (1 or
 * 2).  Returns 0, or GP_EINVAL naming the accepted values.
 */
int gp_export_kueue_api_parse (const char *s, int *api, gp_error_t *err);

/* The Kubernetes extended resources one node of pool 'p' exposes, with
 * their counts per node: 'strategy' "single" or "mixed" (the NVIDIA GPU
 * Operator's MIG strategies).  A pool without MIG profiles, or of another
 * vendor, exposes its device plugin's resource (nvidia.com/gpu,
 * amd.com/gpu, aws.amazon.com/neuron, google.com/tpu, habana.ai/gaudi) =
 * gpus_per_node.  A MIG pool: "single" gives nvidia.com/gpu = GPUs x
 * instances of its one profile per GPU (GP_EINVAL for more than one
 * profile); "mixed" gives nvidia.com/mig-<profile> per listed profile,
 * the node's GPUs dealt to the profiles in turn (GPU i takes profile
 * i mod n), each GPU holding the most instances of its profile
 * (mig-parted's all-<profile> layout; docs/formats/export-kueue.md).
 * Writes up to 'max' entries into 'names' and 'counts'.  Returns the
 * number written (>= 1), or GP_EINVAL (NULL argument, unknown strategy,
 * unparsable profile) / GP_ERANGE (more than 'max') with 'err' set.
 */
int gp_pool_k8s_resources (const struct gp_pool *p, const char *strategy,
                           char names[][64], long long *counts, size_t max,
                           gp_error_t *err);

/* Write the files of the 'n' exports 'xs' into 'dir' in one
 * all-or-nothing step (gpuplan/io.h), each under "<target>/" when 'sub'
 * (gp_write_tree_atomic), else flat (gp_write_dir_atomic).  Returns 0,
 * or the io.h error (GP_EWRITE naming the path, GP_ENOMEM) with 'err'
 * set; nothing is printed.
 */
int gp_export_write (const char *dir, struct gp_export *const *xs, size_t n,
                     int sub, gp_error_t *err);

/* Free an export and its texts; NULL is a no-op. */
void gp_export_destroy (struct gp_export *x);

struct json_t;

/* JSON of an export: {"target": name, "files": [{"name", "text"}]}.  A new
 * reference the caller releases with json_decref(); NULL on allocation
 * failure or a NULL export.
 */
struct json_t *gp_export_json (const struct gp_export *x);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_EXPORT_H */
