/* cluster_json.c - JSON of a cluster spec's pools and totals
 * ('gpuplan cluster SPEC --json').
 */
#include <jansson.h>

#include "gpuplan/cluster.h"

static json_t *totals_json (const struct gp_cluster_totals *t)
{
    json_t *o = json_object ();
    json_object_set_new (o, "nodes", json_integer (t->nodes));
    json_object_set_new (o, "gpus", json_integer (t->gpus));
    json_object_set_new (o, "hbm_bytes", json_real (t->hbm_bytes));
    json_object_set_new (o, "hbm_bw_bytes_per_s", json_real (t->hbm_bw));
    json_object_set_new (o, "bf16_dense_flops", json_real (t->bf16_flops));
    json_object_set_new (o, "fp8_dense_flops", json_real (t->fp8_flops));
    json_object_set_new (o, "gpu_tdp_w", json_real (t->gpu_tdp_w));
    json_object_set_new (o, "incomplete", json_boolean (t->incomplete));
    return o;
}

json_t *gp_cluster_json (const struct gp_cluster *c)
{
    if (!c)
        return NULL;
    json_t *root = json_object ();
    json_object_set_new (root, "name", json_string (c->name));
    json_t *pools = json_array ();
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        struct gp_cluster_totals t;
        gp_cluster_pool_totals (c, i, &t, NULL);
        json_t *pj = totals_json (&t);
        json_object_set_new (pj, "name", json_string (p->name));
        json_object_set_new (pj, "accelerator", json_string (p->accel->id));
        json_object_set_new (pj, "gpus_per_node",
                             json_integer (p->gpus_per_node));
        json_object_set_new (pj, "scale_up_domain",
                             json_integer (p->scale_up_domain));
        json_object_set_new (pj, "accelerator_source",
                             json_string (p->accel->source));
        json_array_append_new (pools, pj);
    }
    json_object_set_new (root, "pools", pools);
    struct gp_cluster_totals all;
    gp_cluster_totals (c, &all);
    json_object_set_new (root, "total", totals_json (&all));
    return root;
}
