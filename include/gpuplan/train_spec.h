/* gpuplan/train_spec.h - the `gpuplan train` spec (docs/formats/train.md):
 * one table of keys shared by the YAML spec and the command's flags
 * (--key, '_' written '-'), the merge of flags over a spec, and the
 * request it describes.  Used by the CLI (spec file plus flags) and by
 * `gpuplan serve` (a YAML body), so both read a spec the same way.
 */
#ifndef GPUPLAN_TRAIN_SPEC_H
#define GPUPLAN_TRAIN_SPEC_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/spec.h"
#include "gpuplan/train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values of a train spec; unset values are 0 for numbers and strings
 * and -1 for enums (gp_train_spec_unset).
 */
struct gp_train_spec {
    char model[64];
    char gpu[256];
    char instance[64], ib_switch[32];
    int gpus, sharp;
    double days;
    double tokens;
    double seq_len;
    double global_batch;
    double batch_tokens;
    int precision;
    int framework;
    int pp_schedule;
    int attn_kernel;
    int optimizer_states;
    int top;
    /* explicit dimensions (override the zoo entry, or define a model) */
    int layers, hidden, ffn_hidden, heads, kv_heads, vocab, mlp;
    int moe_experts, moe_topk, moe_ffn_hidden;
    /* hardware overrides */
    int gpus_per_node, scale_up_domain;
    double nic_bw, nic_latency, oversubscription;
    /* fine-tuning (docs/formats/train.md, "LoRA fine-tuning") */
    int finetune, lora_rank, lora_targets, base_precision;
};

/* The keys of a train spec, GP_TRAIN_SPEC_N_FIELDS of them then a NULL
 * key: types, ranges and enum choices for gp_doc_unpack() and for the
 * command's flags.
 */
#define GP_TRAIN_SPEC_N_FIELDS 36
extern const struct gp_field gp_train_spec_fields[];

/* Set every value of 't' to unset. */
void gp_train_spec_unset (struct gp_train_spec *t);

/* Copy every value set in 'fl' over 'sp'. */
void gp_train_spec_merge (struct gp_train_spec *sp,
                          const struct gp_train_spec *fl);

/* The request 'sp' describes, into 'rq' (initialised here; 'rq' borrows
 * the strings of 'sp').
 */
void gp_train_spec_request (const struct gp_train_spec *sp,
                            struct gp_train_request *rq);

/* Unpack the root mapping of 'doc' into 'sp' (strict keys).  Returns 0,
 * or GP_EINVAL/GP_ERANGE with "name:line:col: ..." in 'err'.
 */
int gp_train_spec_from_doc (const struct gp_doc *doc,
                            struct gp_train_spec *sp,
                            gp_error_t *err);

/* Check that the model 'sp' names resolves (zoo id plus explicit dims);
 * when it does not, 'err' names the position of the 'model' key of 'doc'
 * ("name:line:col: train: ...").  Returns 0 or the resolver's code.
 */
int gp_train_spec_check_model (const struct gp_doc *doc,
                               const struct gp_train_spec *sp,
                               gp_error_t *err);

/* The whole of `gpuplan train SPEC` for the 'len' bytes of YAML at
 * 'text' (named 'name' in messages) with the defaults 'd' (NULL = the
 * registry's): parse, check the model and the dims, plan against 'cat'.
 * Returns 0 with '*out' set (free with gp_train_plan_result_destroy; a
 * result with no feasible accelerator is a success), or an error code
 * with 'err' set as the steps above and gp_train_plan() say.
 */
int gp_train_spec_plan (const struct gp_catalog *cat,
                        const char *text,
                        size_t len,
                        const char *name,
                        const struct gp_defaults *d,
                        struct gp_train_plan_result **out,
                        gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_TRAIN_SPEC_H */
