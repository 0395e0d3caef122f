/* serving_keda.c - the autoscaler of a service (docs/formats/
 * export-serving.md, "Autoscaling"): a KEDA ScaledObject whose cron
 * triggers step through the plan's replicas per hour (KEDA takes the
 * maximum over its triggers, so each hour is covered by exactly one
 * window), with a Prometheus trigger on vLLM's queue as a safety net; or
 * an autoscaling/v2 HorizontalPodAutoscaler between the day's trough and
 * peak for clusters without KEDA.
 */
#include <stdio.h>
#include <stdlib.h>

#include "serving.h"

int gp__serve_steps (const int rep[GP_PLAN_DAY_HOURS],
                     struct gp__serve_step out[GP_PLAN_DAY_HOURS])
{
    const int H = GP_PLAN_DAY_HOURS;
    for (int h = 0; h < H; h++)
        if (rep[h] < 1)
            return -1;
    /* The first hour that starts a run (its count differs from the hour
     * before); none = one count all day. */
    int first = -1;
    for (int h = 0; h < H && first < 0; h++)
        if (rep[h] != rep[(h + H - 1) % H])
            first = h;
    if (first < 0) {
        out[0] = (struct gp__serve_step){0, H / 2, rep[0]};
        out[1] = (struct gp__serve_step){H / 2, 0, rep[0]};
        return 2;
    }
    int n = 0;
    for (int k = 0; k < H; k++) {
        int h = (first + k) % H;
        if (k == 0 || rep[h] != rep[(h + H - 1) % H])
            out[n++] = (struct gp__serve_step){h, h, rep[h]};
        out[n - 1].end = (h + 1) % H;
    }
    return n;
}

/* scaleTargetRef: the predictor Deployment KServe creates, or the LWS. */
static void target_ref (struct gp__yaml *y, const struct gp__svc *s)
{
    char dep[GP_PLAN_NAME + 16];
    gp__y_key (y, "scaleTargetRef");
    gp__y_map (y);
    if (s->nodes > 1) {
        gp__y_kstr (y, "apiVersion", "leaderworkerset.x-k8s.io/v1");
        gp__y_kstr (y, "kind", "LeaderWorkerSet");
        gp__y_kstr (y, "name", s->name);
    } else {
        snprintf (dep, sizeof dep, "%s-predictor", s->name);
        gp__y_kstr (y, "apiVersion", "apps/v1");
        gp__y_kstr (y, "kind", "Deployment");
        gp__y_kstr (y, "name", dep);
    }
    gp__y_map_end (y);
}

static void cron_trigger (struct gp__yaml *y, const struct gp__serve_step *st)
{
    char start[32], end[32], n[16];
    snprintf (start, sizeof start, "0 %d * * *", st->start);
    snprintf (end, sizeof end, "0 %d * * *", st->end);
    snprintf (n, sizeof n, "%d", st->replicas);
    gp__y_map (y);
    gp__y_kstr (y, "type", "cron");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "timezone", GP__SERVE_TZ);
    gp__y_kstr (y, "start", start);
    gp__y_kstr (y, "end", end);
    gp__y_kstr (y, "desiredReplicas", n);
    gp__y_map_end (y);
    gp__y_map_end (y);
}

/* Requests in flight on the service's replicas: running plus waiting
 * (vLLM queues a request only when its batch is full). */
static void inflight_query (struct sb *q, const char *name)
{
    gp__sb_printf (q, "sum(vllm:num_requests_running{model_name=");
    gp__promql_str (q, name);
    gp__sb_printf (q, "}) + sum(vllm:num_requests_waiting{model_name=");
    gp__promql_str (q, name);
    gp__sb_printf (q, "})");
}

static void prom_trigger (struct gp__yaml *y, const struct gp__svc *s)
{
    struct sb q = {0};
    char thr[16];
    inflight_query (&q, s->name);
    if (q.oom)
        y->err = 1;
    snprintf (thr, sizeof thr, "%d", s->max_num_seqs);
    gp__y_map (y);
    gp__y_kstr (y, "type", "prometheus");
    gp__y_kstr (y, "metricType", "AverageValue");
    gp__y_key (y, "metadata");
    gp__y_map (y);
    gp__y_kstr (y, "serverAddress", GP__SERVE_PROM);
    gp__y_kstr (y, "query", q.s ? q.s : "");
    gp__y_kstr (y, "threshold", thr);
    gp__y_map_end (y);
    gp__y_map_end (y);
    free (q.s);
}

void gp__serve_keda (struct gp__yaml *y, const struct gp__svc *s)
{
    struct gp__serve_step st[GP_PLAN_DAY_HOURS];
    int n = gp__serve_steps (s->rep, st);
    if (n < 0) {
        y->err = 1;     /* the caller checked the counts */
        return;
    }
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "keda.sh/v1alpha1");
    gp__y_kstr (y, "kind", "ScaledObject");
    gp__serve_meta (y, s, s->name);
    gp__y_key (y, "spec");
    gp__y_map (y);
    target_ref (y, s);
    gp__y_kint (y, "minReplicaCount", s->trough);
    gp__y_kint (y, "maxReplicaCount", s->peak);
    gp__y_key (y, "triggers");
    gp__y_seq (y);
    for (int i = 0; i < n; i++)
        cron_trigger (y, &st[i]);
    prom_trigger (y, s);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}

void gp__serve_hpa (struct gp__yaml *y, const struct gp__svc *s)
{
    char thr[16];
    snprintf (thr, sizeof thr, "%d", s->max_num_seqs);
    gp__y_doc_start (y);
    gp__y_map (y);
    gp__y_kstr (y, "apiVersion", "autoscaling/v2");
    gp__y_kstr (y, "kind", "HorizontalPodAutoscaler");
    gp__serve_meta (y, s, s->name);
    gp__y_key (y, "spec");
    gp__y_map (y);
    target_ref (y, s);
    gp__y_kint (y, "minReplicas", s->trough);
    gp__y_kint (y, "maxReplicas", s->peak);
    gp__y_key (y, "metrics");
    gp__y_seq (y);
    gp__y_map (y);
    gp__y_kstr (y, "type", "External");
    gp__y_key (y, "external");
    gp__y_map (y);
    gp__y_key (y, "metric");
    gp__y_map (y);
    gp__y_kstr (y, "name", "gpuplan_vllm_requests_in_flight");
    gp__y_key (y, "selector");
    gp__y_map (y);
    gp__y_key (y, "matchLabels");
    gp__y_map (y);
    gp__y_kstr (y, "model_name", s->name);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_key (y, "target");
    gp__y_map (y);
    gp__y_kstr (y, "type", "AverageValue");
    gp__y_kstr (y, "averageValue", thr);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_seq_end (y);
    gp__y_map_end (y);
    gp__y_map_end (y);
    gp__y_doc_end (y);
}
