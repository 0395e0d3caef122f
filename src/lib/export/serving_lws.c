/* serving_lws.c - a service whose replica spans nodes as a
 * LeaderWorkerSet (docs/formats/export-serving.md, "Multi-node
 * replicas"): one group per replica, size = nodes per replica, vLLM on a
 * Ray cluster the leader starts (LWS's vLLM GPU example), tensor
 * parallel inside a node and pipeline parallel across its nodes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "serving.h"

/* The container command: start or join the group's Ray cluster; the
 * leader then runs vLLM's OpenAI server on port 8080.
 */
static void command (struct gp__yaml *y, const struct gp__svc *s,
                     int leader)
{
    struct sb c = {0};
    char path[GP_PLAN_NAME + 16];
    if (leader) {
        snprintf (path, sizeof path, "/models/%s", s->model);
        gp__sb_printf (&c, "bash /vllm-workspace/examples/online_serving/"
                       "multi-node-serving.sh leader "
                       "--ray_cluster_size=$(LWS_GROUP_SIZE); "
                       "exec python3 -m vllm.entrypoints.openai.api_server"
                       " --port 8080 --model ");
        gp__sh_quote (&c, path);
        gp__sb_printf (&c, " --served-model-name ");
        gp__sh_quote (&c, s->name);
        gp__sb_printf (&c, " --tensor-parallel-size %d"
                       " --pipeline-parallel-size %d --max-num-seqs %d %s",
                       s->tp, s->pp, s->max_num_seqs,
                       gp__serve_dtype_flag (s->precision));
    } else {
        gp__sb_printf (&c, "bash /vllm-workspace/examples/online_serving/"
                       "multi-node-serving.sh worker "
                       "--ray_address=$(LWS_LEADER_ADDRESS)");
    }
    if (c.oom)
        y->err = 1;
    gp__y_key (y, "command");
    gp__y_seq (y);
    gp__y_str (y, "sh");
    gp__y_str (y, "-c");
    gp__y_str (y, c.s ? c.s : "");
    gp__y_seq_end (y);
    free (c.s);
}

static void volumes (struct gp__yaml *y)
{
    gp__y_key (y, "volumes");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "dshm");
    gp__y_key (y, "emptyDir");
    gp__y_map (y);
    gp__y_kstr (y, "medium", "Memory");
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "models");
    gp__y_key (y, "persistentVolumeClaim");
    gp__y_map (y);
    gp__y_kstr (y, "claimName", "models");
    gp__y_kbool (y, "readOnly", 1);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
}

static void mounts (struct gp__yaml *y)
{
    gp__y_key (y, "volumeMounts");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "dshm");
    gp__y_kstr (y, "mountPath", "/dev/shm");
    gp__y_map_end (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", "models");
    gp__y_kstr (y, "mountPath", "/models");
    gp__y_kbool (y, "readOnly", 1);
    gp__y_map_end (y);
    gp__y_seq_end (y);
}

/* The pod template of the leader or of a worker. */
static void pod_template (struct gp__yaml *y, const struct gp__svc *s,
                          int leader)
{
    gp__y_map (y);
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_key (y, "annotations");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/workload", s->name);
    if (s->rdma && s->rdma->n_rails > 0)
        gp__y_kstr (y, GP__RDMA_NETWORKS_ANNOTATION, s->rdma->annotation);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_key (y, "nodeSelector");
    gp__y_map (y);
    gp__y_kstr (y, "gpuplan.io/pool", s->pool);
    gp__y_map_end (y);
    gp__y_key (y, "containers");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "name", leader ? "vllm-leader" : "vllm-worker");
    gp__y_kstr (y, "image", GP__SERVE_VLLM_IMAGE);
    command (y, s, leader);
    if (leader) {
        gp__y_key (y, "ports");
        gp__y_seq (y);
        gp__y_map (y);
        gp__y_kstr (y, "name", "http");
        gp__y_kint (y, "containerPort", 8080);
        gp__y_map_end (y);
        gp__y_seq_end (y);
        gp__y_key (y, "readinessProbe");
        gp__y_map (y);
        gp__y_key (y, "tcpSocket");
        gp__y_map (y);
        gp__y_kint (y, "port", 8080);
        gp__y_map_end (y);
        gp__y_kint (y, "initialDelaySeconds", 15);
        gp__y_kint (y, "periodSeconds", 10);
        gp__y_map_end (y);
    }
    gp__serve_resources (y, s);
    if (s->rdma && s->rdma->n_rails > 0) {
        /* RDMA needs locked memory (Network Operator's RDMA test pod). */
        gp__y_key (y, "securityContext");
        gp__y_map (y);
        gp__y_key (y, "capabilities");
        gp__y_map (y);
        gp__y_key (y, "add");
        gp__y_seq (y);
        gp__y_str (y, "IPC_LOCK");
        gp__y_seq_end (y);
        gp__y_map_end (y);
        gp__y_map_end (y);
    }
    mounts (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    volumes (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

void gp__serve_lws (struct gp__yaml *y, const struct gp__svc *s)
{
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "leaderworkerset.x-k8s.io/v1");
    gp__y_kstr (y, "kind", "LeaderWorkerSet");
    gp__serve_meta (y, s, s->name);
    gp__y_key (y, "spec");
    gp__y_map (y);
    gp__y_kint (y, "replicas", s->trough);
    gp__y_kstr (y, "startupPolicy", "LeaderCreated");
    gp__y_key (y, "leaderWorkerTemplate");
    gp__y_map (y);
    gp__y_kint (y, "size", s->nodes);
    gp__y_kstr (y, "restartPolicy", "RecreateGroupOnPodRestart");
    gp__y_key (y, "leaderTemplate");
    pod_template (y, s, 1);
    gp__y_key (y, "workerTemplate");
    pod_template (y, s, 0);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}
