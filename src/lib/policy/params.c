/* params.c - a policy's parameters: defaults, overrides by key, and the
 * private state built from them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/policy.h"

static int unknown_key (const struct gp_policy_ops *ops, const char *key,
                        gp_error_t *err)
{
    char valid[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < ops->n_params && len < sizeof valid; i++) {
        int w = snprintf (valid + len, sizeof valid - len, "%s%s",
                          i ? ", " : "", ops->params[i].key);
        len += w > 0 ? (size_t)w : 0;
    }
    return gp_errprintf (err, GP_ENOTFOUND,
                         "policy '%s' has no parameter '%s' (valid: %s)",
                         ops->name, key ? key : "",
                         ops->n_params ? valid : "none");
}

int gp_policy_init_state (const struct gp_policy_ops *ops,
                          const struct gp_policy_setting *set, size_t n_set,
                          void **state, gp_error_t *err)
{
    *state = NULL;
    double *v = calloc (ops->n_params ? ops->n_params : 1, sizeof *v);
    if (!v)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < ops->n_params; i++)
        v[i] = ops->params[i].def;
    int rc = 0;
    for (size_t k = 0; k < n_set && !rc; k++) {
        size_t i = 0;
        while (i < ops->n_params
               && !(set[k].key && strcmp (set[k].key, ops->params[i].key) == 0))
            i++;
        if (i == ops->n_params)
            rc = unknown_key (ops, set[k].key, err);
        else if (!(set[k].value > ops->params[i].min))
            rc = gp_errprintf (err, GP_EINVAL,
                               "policy '%s': %s must be > %g %s", ops->name,
                               ops->params[i].key, ops->params[i].min,
                               ops->params[i].unit);
        else
            v[i] = set[k].value;
    }
    if (!rc && ops->init)
        rc = ops->init (v, state, err);
    free (v);
    return rc;
}

void gp_policy_fini_state (const struct gp_policy_ops *ops, void *state)
{
    if (ops && ops->fini)
        ops->fini (state);
}
