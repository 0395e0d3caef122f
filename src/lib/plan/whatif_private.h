/* whatif_private.h - shared between override.c, sweep.c and nearest.c:
 * overrides of the plan document that can be undone, and the nearest
 * feasible change.
 */
#ifndef GPUPLAN_WHATIF_PRIVATE_H
#define GPUPLAN_WHATIF_PRIVATE_H

#include <jansson.h>

#include "gpuplan/plan.h"

/* How to undo one override of the document tree. */
struct plan_undo {
    json_t *parent;             /* the mapping or list changed */
    char member[GP_PLAN_TEXT];  /* mapping key */
    size_t index;               /* list index when is_index */
    int is_index;
    json_t *old;                /* the node replaced (a reference), or
                                 * NULL when the key was absent */
    int applied;
    int created;                /* 'member' is a mapping the override
                                 * created: undo removes it */
};

/* Split "KEY=VALUE" into 'key' (of 'n' bytes) and '*value' (into 'set').
 * 0 or GP_EINVAL naming the assignment.
 */
int gp__plan_split_set (const char *set, char *key, size_t n,
                        const char **value, gp_error_t *err);
/* 'value' as one YAML value: a new reference, or NULL with 'err' naming
 * --set 'key'.
 */
json_t *gp__plan_parse_value (const char *key, const char *value,
                              gp_error_t *err);
/* Put 'val' at 'key' of 'root' (a reference is taken), recording the
 * undo in 'u'; on failure call gp__plan_undo (u) too.  0 or GP_EINVAL /
 * GP_ENOMEM naming --set 'key'.
 */
int gp__plan_apply (json_t *root, const char *key, json_t *val,
                    struct plan_undo *u, gp_error_t *err);
/* Undo 'u' (a no-op after a failed or undone apply). */
void gp__plan_undo (struct plan_undo *u);

struct plan_ctx;
/* nearest.c: when nothing is recommended, fill c->r->changes. */
void gp__plan_nearest (struct plan_ctx *c);
/* inputs.c: copy the spec's inputs into c->r->inputs. */
void gp__plan_inputs (struct plan_ctx *c);

#endif
