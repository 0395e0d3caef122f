/* fill_read.c - the inputs of a fill experiment: a node list
 * (sn,cpu_milli,memory_mib,gpu,model) or the Alibaba PAI 2020 machine
 * spec, and a pod list (Alibaba GPU 2023 columns).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/csv.h"
#include "sim_private.h"

#define MAX_GPN GP_FILL_MAX_GPN

struct frd {
    struct gp_fill_input *in;
    const char *name;
    int c[6];
    int pods;
    int pai;       /* node list in the PAI 2020 machine-spec layout */
    size_t width;
};

static int model_index (struct gp_fill_input *in, const char *m)
{
    for (size_t i = 0; i < in->n_models; i++)
        if (strcmp (in->models[i], m) == 0)
            return (int)i;
    if (in->n_models >= 32)
        return -2;
    char **nm = realloc (in->models, (in->n_models + 1) * sizeof *nm);
    if (!nm)
        return -1;
    in->models = nm;
    size_t len = strlen (m);
    nm[in->n_models] = malloc (len + 1);
    if (!nm[in->n_models])
        return -1;
    memcpy (nm[in->n_models], m, len + 1);
    return (int)in->n_models++;
}

static int int_field (const struct frd *r, const struct gp_csv_row *row,
                      int k, const char *col, long lo, long hi, int *out,
                      gp_error_t *err)
{
    const char *s = row->fields[r->c[k]];
    char *end;
    errno = 0;
    long v = strtol (s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column '%s': '%s' is not an integer "
                             "in [%ld, %ld]",
                             r->name, row->line, col, s, lo, hi);
    *out = (int)v;
    return 0;
}

/* Resolve the GPU model 'model' of 'nd' (nodes with GPUs only) and append
 * the node to r->in.
 */
static int push_node (struct frd *r, const struct gp_csv_row *row,
                      struct gp_fill_node nd, const char *model,
                      gp_error_t *err)
{
    struct gp_fill_input *in = r->in;
    nd.model = -1;
    if (nd.n_gpus > 0) {
        nd.model = model_index (in, model);
        if (nd.model == -2)
            return gp_errprintf (err, GP_ERANGE,
                                 "%s:%zu: more than 32 GPU models",
                                 r->name, row->line);
        if (nd.model < 0)
            return GP_ENOMEM;
    }
    struct gp_fill_node *a =
        realloc (in->nodes, (in->n_nodes + 1) * sizeof *a);
    if (!a)
        return GP_ENOMEM;
    in->nodes = a;
    a[in->n_nodes++] = nd;
    return 0;
}

/* A row of the Alibaba PAI 2020 machine spec (no header). */
static int pai_row (struct frd *r, const struct gp_csv_row *row, gp_error_t *err)
{
    if (row->n_fields != 5)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: %zu fields, the machine spec has 5 "
                             "(machine,gpu_type,cap_cpu,cap_mem,cap_gpu)",
                             r->name, row->line, row->n_fields);
    struct gp_fill_node nd;
    int cores, gb;
    r->c[0] = 2;
    r->c[1] = 3;
    r->c[2] = 4;
    if (int_field (r, row, 0, "cap_cpu", 0, 100000, &cores, err)
        || int_field (r, row, 1, "cap_mem", 0, 1000000, &gb, err)
        || int_field (r, row, 2, "cap_gpu", 0, MAX_GPN, &nd.n_gpus, err))
        return GP_EPARSE;
    nd.cpu_milli = cores * 1000;
    nd.mem_mib = gb * 1024;
    return push_node (r, row, nd, row->fields[1], err);
}

/* A row of a node list (sn,cpu_milli,memory_mib,gpu,model). */
static int node_row (struct frd *r, const struct gp_csv_row *row, gp_error_t *err)
{
    struct gp_fill_node nd;
    if (int_field (r, row, 0, "cpu_milli", 0, 100000000, &nd.cpu_milli,
                   err)
        || int_field (r, row, 1, "memory_mib", 0, 2000000000,
                      &nd.mem_mib, err)
        || int_field (r, row, 2, "gpu", 0, MAX_GPN, &nd.n_gpus, err))
        return GP_EPARSE;
    const char *m = row->fields[r->c[3]];
    if (nd.n_gpus > 0 && !*m)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'model': empty for a node with "
                             "GPUs",
                             r->name, row->line);
    return push_node (r, row, nd, m, err);
}

/* A row of a pod list (Alibaba GPU 2023 columns). */
static int pod_row (struct frd *r, const struct gp_csv_row *row, gp_error_t *err)
{
    struct gp_fill_input *in = r->in;
    struct gp_fill_pod p;
    if (int_field (r, row, 0, "cpu_milli", 0, 100000000, &p.cpu_milli, err)
        || int_field (r, row, 1, "memory_mib", 0, 2000000000, &p.mem_mib,
                      err)
        || int_field (r, row, 2, "num_gpu", 0, MAX_GPN, &p.n_gpus, err))
        return GP_EPARSE;
    const char *gm = row->fields[r->c[3]];
    p.gpu_milli = 1000;
    if (p.n_gpus > 0
        && int_field (r, row, 3, "gpu_milli", 1, 1000, &p.gpu_milli, err))
        return GP_EPARSE;
    (void)gm;
    if (p.n_gpus > 1 && p.gpu_milli != 1000)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: column 'gpu_milli': a share below "
                             "1000 needs num_gpu = 1",
                             r->name, row->line);
    p.spec_mask = 0;
    const char *spec = row->fields[r->c[4]];
    while (*spec) {
        char one[64];
        size_t len = strcspn (spec, "|");
        if (len >= sizeof one)
            len = sizeof one - 1;
        memcpy (one, spec, len);
        one[len] = '\0';
        int mi = model_index (in, one);
        if (mi == -2)
            return gp_errprintf (err, GP_ERANGE,
                                 "%s:%zu: more than 32 GPU models",
                                 r->name, row->line);
        if (mi < 0)
            return GP_ENOMEM;
        p.spec_mask |= 1u << mi;
        spec += strcspn (spec, "|");
        if (*spec == '|')
            spec++;
    }
    struct gp_fill_pod *a = realloc (in->pods, (in->n_pods + 1) * sizeof *a);
    if (!a)
        return GP_ENOMEM;
    in->pods = a;
    a[in->n_pods++] = p;
    return 0;
}

static int fill_row (const struct gp_csv_row *row, void *arg,
                     gp_error_t *err)
{
    struct frd *r = arg;
    static const char *const ncols[] = {"cpu_milli", "memory_mib", "gpu",
                                        "model"};
    static const char *const pcols[] = {"cpu_milli", "memory_mib", "num_gpu",
                                        "gpu_milli", "gpu_spec"};
    const char *const *cols = r->pods ? pcols : ncols;
    int nc = r->pods ? 5 : 4;
    if (row->index == 0 && !r->pods && gp_csv_col (row, "sn") < 0) {
        /* Alibaba PAI 2020 machine spec: machine,gpu_type,cap_cpu
         * (cores),cap_mem (GB),cap_gpu; published without a header row
         * (pai_machine_spec.header), so a header is optional.
         */
        r->pai = 1;
        r->width = 5;
        if (gp_csv_col (row, "machine") >= 0)
            return 0;
    }
    if (r->pai)
        return pai_row (r, row, err);
    if (row->index == 0) {
        int hrc = gp_csv_header_unique (row, r->name, err);
        if (hrc)
            return hrc;
        r->width = row->n_fields;
        for (int k = 0; k < nc; k++)
            if ((r->c[k] = gp_csv_col (row, cols[k])) < 0)
                return gp_errprintf (err, GP_EPARSE,
                                     "%s:%zu: header: missing column '%s'",
                                     r->name, row->line, cols[k]);
        return 0;
    }
    if (row->n_fields != r->width)
        return gp_errprintf (err, GP_EPARSE,
                             "%s:%zu: %zu fields where the header has %zu",
                             r->name, row->line, row->n_fields, r->width);
    if (!r->pods)
        return node_row (r, row, err);
    return pod_row (r, row, err);
}

void gp_fill_input_free (struct gp_fill_input *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->n_models; i++)
        free (in->models[i]);
    free (in->models);
    free (in->nodes);
    free (in->pods);
    memset (in, 0, sizeof *in);
}

int gp_fill_read (const char *nodes_path, const char *pods_path,
                  struct gp_fill_input *in, gp_error_t *err)
{
    if (!nodes_path || !pods_path || !in)
        return gp_errprintf (err, GP_EINVAL, "gp_fill_read: NULL argument");
    memset (in, 0, sizeof *in);
    struct frd r = {in, nodes_path, {0}, 0, 0, 0};
    int rc = gp_csv_parse_file (nodes_path, ',', fill_row, &r, err);
    if (!rc) {
        struct frd rp = {in, pods_path, {0}, 1, 0, 0};
        rc = gp_csv_parse_file (pods_path, ',', fill_row, &rp, err);
    }
    if (rc == GP_ENOMEM)
        gp_errprintf (err, rc, "out of memory");
    if (!rc && (in->n_nodes == 0 || in->n_pods == 0))
        rc = gp_errprintf (err, GP_EPARSE, "fill: no %s",
                           in->n_nodes ? "pods" : "nodes");
    if (rc)
        gp_fill_input_free (in);
    return rc;
}

