/* slurm_private.h - shared by the Slurm export files: slurm.c (slurm.conf,
 * gres.conf, topology.conf) and slurm_accounts.c (accounts.sh).  The
 * mapping is documented in docs/formats/export-slurm.md.
 */
#ifndef GPUPLAN_EXPORT_SLURM_PRIVATE_H
#define GPUPLAN_EXPORT_SLURM_PRIVATE_H

#include "export_private.h"

/* The GRES type of a pool's accelerator: the catalog id in lowercase
 * ("h100-sxm"), written into 'buf' (GP_NAME_MAX bytes).
 */
void gp__slurm_gres_type (const struct gp_accel *a, char *buf, size_t size);

/* accounts.sh of cluster 'c' into 'b': QOS per team (GPU caps, priority,
 * preemption), an account per team on the cluster, users from the
 * script's arguments.  Returns 0 (b->oom set after an allocation failure
 * while writing), GP_ENOMEM, or GP_EINVAL with 'err' naming the team
 * whose name collides with a borrowing QOS.
 */
int gp__slurm_accounts (const struct gp_cluster *c, struct sb *b,
                        gp_error_t *err);

#endif
