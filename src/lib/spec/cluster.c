/* cluster.c - cluster spec loader (pools of accelerator nodes) and totals. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cluster.h"

/* Top level as read from the file; pools are unpacked one by one. */
struct top {
    char name[GP_NAME_MAX];
    const json_t *pools;
};

static const struct gp_field cluster_fields[] = {
    {"name", GP_F_STRING, offsetof (struct top, name), GP_NAME_MAX,
     GP_F_REQUIRED, 0, NULL, 0, 0},
    {"pools", GP_F_NODE, offsetof (struct top, pools), 0, GP_F_REQUIRED, 0,
     NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};

#define F(f) offsetof (struct gp_pool, f)
static const struct gp_field pool_fields[] = {
    {"name", GP_F_STRING, F (name), GP_NAME_MAX, GP_F_REQUIRED, 0, NULL, 0, 0},
    {"accelerator", GP_F_STRING, F (accel_id), GP_NAME_MAX, GP_F_REQUIRED, 0,
     NULL, 0, 0},
    {"gpus_per_node", GP_F_INT, F (gpus_per_node), 0, GP_F_REQUIRED, 0, NULL,
     1, 128},
    {"nodes", GP_F_INT, F (nodes), 0, GP_F_REQUIRED, 0, NULL, 1, 1000000},
    {"scale_up_domain", GP_F_INT, F (scale_up_domain), 0, 0, 0, NULL, 1,
     100000},
    {"nodes_per_rack", GP_F_INT, F (nodes_per_rack), 0, 0, 0, NULL, 1, 1024},
    {"cpus_per_node", GP_F_INT, F (cpus_per_node), 0, 0, 0, NULL, 1, 100000},
    {"host_memory", GP_F_QUANTITY, F (host_mem_bytes), 0, 0, GP_Q_BYTES, NULL,
     0, 0},
    {"network_per_gpu", GP_F_QUANTITY, F (net_bw_per_gpu), 0, 0,
     GP_Q_BANDWIDTH, NULL, 0, 0},
    {NULL, 0, 0, 0, 0, 0, NULL, 0, 0},
};
#undef F

void gp_cluster_destroy (struct gp_cluster *c)
{
    if (!c)
        return;
    free (c->pools);
    free (c);
}

struct gp_cluster *gp_cluster_from_doc (const struct gp_doc *doc,
                                        const struct gp_catalog *cat,
                                        gp_error_t *err)
{
    if (!doc || !cat) {
        gp_errprintf (err, GP_EINVAL, "gp_cluster_from_doc: NULL argument");
        return NULL;
    }
    struct gp_cluster *c = calloc (1, sizeof *c);
    if (!c) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        return NULL;
    }
    struct top top;
    memset (&top, 0, sizeof top);
    if (gp_doc_unpack (doc, gp_doc_root (doc), "cluster", cluster_fields,
                       &top, err) != 0)
        goto error;
    memcpy (c->name, top.name, sizeof c->name);
    if (!json_is_array (top.pools) || json_array_size (top.pools) == 0) {
        gp_doc_errorf (doc, top.pools, err, GP_EPARSE,
                       "cluster.pools: expected a non-empty list of pools");
        goto error;
    }
    size_t n = json_array_size (top.pools);
    c->pools = calloc (n, sizeof *c->pools);
    if (!c->pools) {
        gp_errprintf (err, GP_ENOMEM, "out of memory");
        goto error;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *pj = json_array_get (top.pools, i);
        struct gp_pool *p = &c->pools[i];
        char what[32];
        snprintf (what, sizeof what, "pools[%zu]", i);
        if (gp_doc_unpack (doc, pj, what, pool_fields, p, err) != 0)
            goto error;
        gp_error_t e;
        p->accel = gp_catalog_find_accel (cat, p->accel_id, &e);
        if (!p->accel) {
            json_t *a = json_object_get (pj, "accelerator");
            gp_doc_errorf (doc, a, err, GP_ENOTFOUND, "%s.accelerator: %s",
                           what, e.text);
            goto error;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp (c->pools[k].name, p->name) == 0) {
                gp_doc_errorf (doc, json_object_get (pj, "name"), err,
                               GP_EPARSE, "%s.name: duplicate pool name '%s'",
                               what, p->name);
                goto error;
            }
        if (p->scale_up_domain == 0) {
            /* Default: the node is the scale-up domain, unless the
             * accelerator's domain is smaller (PCIe cards).
             */
            int dom = p->accel->scale_up_domain;
            p->scale_up_domain = dom > 0 && dom < p->gpus_per_node
                                     ? dom
                                     : p->gpus_per_node;
        }
        c->n_pools++;
    }
    return c;
error:
    gp_cluster_destroy (c);
    return NULL;
}

void gp_cluster_totals (const struct gp_cluster *c,
                        struct gp_cluster_totals *t)
{
    memset (t, 0, sizeof *t);
    if (!c)
        return;
    for (size_t i = 0; i < c->n_pools; i++) {
        const struct gp_pool *p = &c->pools[i];
        const struct gp_accel *a = p->accel;
        long long g = (long long)p->gpus_per_node * p->nodes;
        t->nodes += p->nodes;
        t->gpus += g;
        t->hbm_bytes += (double)g * a->mem_bytes;
        t->hbm_bw += (double)g * a->mem_bw;
        t->bf16_flops += (double)g * gp_accel_peak_flops (a, "bf16");
        t->fp8_flops += (double)g * a->fp8_flops;
        t->gpu_tdp_w += (double)g * a->tdp_w;
        if (a->mem_bw <= 0 || gp_accel_peak_flops (a, "bf16") <= 0
            || a->tdp_w <= 0)
            t->incomplete = 1;
    }
}
