/* gpuplan/defaults.h - the defaults registry: every default that more than
 * one model reads, once, with its unit and source.
 *
 * One X-macro table feeds the enum of keys, the registry rows and the
 * lookups.  The training model, the inference model, the simulator and
 * the plan read their shared defaults from a 'struct gp_defaults' (a
 * copy of the registry's values that specs and flags override by key);
 * `gpuplan assumptions` lists the table, and docs/model/defaults.md
 * documents every row (a test keeps the two in step).
 *
 * XX(ID, "key", value, "unit", "users", "source")
 *   users: comma-separated models that read the key (train, infer, sim,
 *   plan); the source names the paper, datasheet or planning rationale.
 */
#ifndef GPUPLAN_DEFAULTS_H
#define GPUPLAN_DEFAULTS_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_DEFAULTS_MAP(XX)                                                   \
    XX(TRAIN_BATCH_TOKENS, "train.batch_tokens", 4194304.0, "tokens",       \
       "train,plan",                                                          \
       "default global batch when none is given: 4M tokens, the batch of "    \
       "Llama 3 405B's first training stage (Llama 3 paper, sec. 3.4.1) "     \
       "and of Llama 2 (Touvron et al. 2023, sec. 2.2)")

enum gp_default_id {
#define GP__DEF_ENUM(id, key, value, unit, users, source) GP_DEF_##id,
    GP_DEFAULTS_MAP (GP__DEF_ENUM)
#undef GP__DEF_ENUM
    GP_DEF__COUNT
};

/* One registry row (static storage, never freed). */
struct gp_default_info {
    enum gp_default_id id;
    const char *key;    /* e.g. "reliability.restart_s" */
    double value;       /* the default, in 'unit' */
    const char *unit;
    const char *users;  /* "train,plan,sim" */
    const char *source;
};

/* The values in force: the registry's, with overrides.  A plain value
 * type: copy it freely.
 */
struct gp_defaults {
    double v[GP_DEF__COUNT];
    unsigned char overridden[GP_DEF__COUNT];
};

/* Number of registry rows, and row 'i' (< gp_defaults_count()); row i has
 * id i.  Returns NULL for i out of range.
 */
size_t gp_defaults_count (void);
const struct gp_default_info *gp_default_info (size_t i);

/* Fill 'd' with the registry's values, none overridden. */
void gp_defaults_init (struct gp_defaults *d);

/* Find the row named 'key'.  Returns its id (>= 0), or GP_ENOTFOUND with
 * 'err' naming the key and the closest known keys.
 */
int gp_default_lookup (const char *key, gp_error_t *err);

/* Override 'key' with 'value' (in the row's unit) in 'd'.  Returns 0, or
 * GP_ENOTFOUND for an unknown key, or GP_ERANGE for a non-finite or
 * negative value; 'd' is unchanged on failure.
 */
int gp_defaults_set (struct gp_defaults *d, const char *key, double value,
                     gp_error_t *err);

/* The value of 'id' in 'd', or the registry's value when 'd' is NULL. */
double gp_default (const struct gp_defaults *d, enum gp_default_id id);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_DEFAULTS_H */
