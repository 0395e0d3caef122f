/* gpuplan/arch.h - transformer architectures and the model zoo.
 *
 * An architecture is the handful of numbers that fix a transformer's
 * parameter count, FLOPs and KV cache: layers, widths, heads, attention type
 * (MHA, GQA/MQA, MLA), MLP type (2-matrix GELU or 3-matrix SwiGLU) and MoE
 * layout.  The zoo (data/models/models.csv, embedded) gives published
 * models by id, each with its source; explicit dimensions build the same
 * struct.  See data/models/README.md for the columns and their sources.
 */
#ifndef GPUPLAN_ARCH_H
#define GPUPLAN_ARCH_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gp_mlp {
    GP_MLP_GELU,   /* 2 matrices h x f (GELU, ReLU, squared ReLU) */
    GP_MLP_SWIGLU, /* 3 matrices h x f (gated) */
};

enum gp_attn {
    GP_ATTN_MHA, /* kv_heads == heads */
    GP_ATTN_GQA, /* kv_heads < heads (MQA: kv_heads == 1) */
    GP_ATTN_MLA, /* multi-head latent attention (DeepSeek-V2/V3) */
};

struct gp_arch {
    char id[64];            /* zoo id, or "custom" */
    char name[96];
    char family[32];
    double params_stated;   /* total parameters as published; 0 = unknown */
    double active_stated;   /* active per token as published; 0 = unknown */
    int layers;
    int hidden;             /* d_model */
    int ffn_hidden;         /* dense MLP width per matrix; 0 if none */
    int heads;              /* query heads */
    int kv_heads;
    int head_dim;           /* q/k head dim (MLA: qk_nope + qk_rope) */
    int vocab;
    enum gp_mlp mlp;
    enum gp_attn attention;
    int tied_embeddings;    /* input and output embeddings shared */
    int learned_pos_emb;    /* learned absolute position table (GPT-3...) */
    int max_seq_len;
    int moe_experts;        /* routed experts per MoE layer; 0 = dense */
    int moe_topk;
    int moe_ffn_hidden;     /* width of one expert (and of a shared one) */
    int moe_shared_experts;
    int moe_dense_layers;   /* layers with a dense MLP instead of MoE */
    int mla_q_lora_rank;    /* 0 = queries not compressed */
    int mla_kv_lora_rank;
    int mla_qk_nope_head_dim;
    int mla_qk_rope_head_dim;
    int mla_v_head_dim;
    const char *source;     /* borrowed from the zoo, or "" */
    const char *source_date;
    /* Hybrid Mamba-2/attention models (Nemotron-H): one character per
     * layer, 'M' Mamba-2 mixer, '*' self-attention, '-' MLP (the
     * hybrid_override_pattern of the Hugging Face config); "" = every
     * layer is an attention + MLP transformer block.  'layers' is then
     * the pattern length.  The ssm_* fields are those of the Mamba-2
     * mixer (Dao & Gu 2024): state size N, heads H, head dim P (inner
     * width H*P), B/C groups G, causal-conv kernel, SSD chunk size Q.
     */
    char layer_pattern[256];
    int ssm_state, ssm_heads, ssm_head_dim, ssm_groups, ssm_conv, ssm_chunk;
    int n_ssm_layers, n_attn_layers, n_mlp_layers; /* counted from it */
    /* Chunked local attention (Llama 4's iRoPE; Hugging Face text_config
     * attention_chunk_size, and no_rope_layers / nope_layer_interval for
     * the global layers): 0 = every attention layer attends over the whole
     * context.  Otherwise a token at 1-based position p of a chunked layer
     * attends only to the positions of its own chunk of 'attn_chunk_size'
     * tokens (from C*floor((p-1)/C) + 1 to p), and every
     * 'attn_global_interval'-th layer (layers k, 2k, ... counted from 1)
     * attends globally; 0 = no global layer.
     */
    int attn_chunk_size, attn_global_interval;
};

/* Parameter counts (elements, not bytes) derived from the dimensions.
 * Conventions (data/models/README.md): embeddings V*h, doubled when
 * untied; learned positions max_seq_len*h; per layer two norms of h;
 * biases ignored; one final norm h.
 */
struct gp_param_count {
    double embedding;       /* input + output embedding (+ positions) */
    double attn_per_layer;  /* q, k, v, o projections (MLA: incl. LoRA) */
    double dense_mlp_per_layer;
    double moe_all_per_layer;    /* routed + shared experts + router */
    double moe_active_per_layer; /* top-k routed + shared + router */
    double norms;           /* all layer norms + final norm */
    int dense_layers;       /* layers with a dense MLP */
    int moe_layers;
    double total;
    double active;          /* parameters touched per token */
    /* hybrid models (layer_pattern): attn_per_layer is per attention
     * layer, dense_mlp_per_layer per MLP layer, ssm_per_layer per Mamba-2
     * layer (in/out projections, conv, A, D, dt bias, gated norm).
     */
    double ssm_per_layer;
    int ssm_layers, attn_layers;
};

/* Fill 'pc' from 'a'.  Pure arithmetic; 'a' must pass gp_arch_check(). */
void gp_arch_params (const struct gp_arch *a, struct gp_param_count *pc);

/* Check the dimensions for consistency (positive sizes, heads divisible by
 * kv_heads, MLA fields present for MLA, MoE fields for MoE, ...).
 * Returns 0 or GP_EINVAL naming the field.
 */
int gp_arch_check (const struct gp_arch *a, gp_error_t *err);

/* KV-cache elements per token over all layers: 2*layers*kv_heads*head_dim
 * for MHA/GQA, layers*(kv_lora_rank + qk_rope_head_dim) for MLA (the
 * compressed latent cache of DeepSeek-V2 Sec. 2.1).  Multiply by the
 * cache's bytes per element.
 */
double gp_arch_kv_elems_per_token (const struct gp_arch *a);

/* Count the layer types of 'a->layer_pattern' into n_ssm_layers,
 * n_attn_layers, n_mlp_layers (all 0 for "").  Returns 0, or GP_EINVAL
 * naming the character for anything but 'M', '*' and '-' (MoE blocks
 * 'E' of later hybrids: not yet supported).
 */
int gp_arch_pattern_count (struct gp_arch *a, gp_error_t *err);

/* Fixed recurrent state of the Mamba-2 layers per sequence, elements:
 * n_ssm_layers * (H*P*N SSM state + (H*P + 2*G*N)*(conv-1) conv
 * state).  0 for transformers.
 */
double gp_arch_ssm_state_elems (const struct gp_arch *a);

/* Short names: "swiglu", else "gelu"; "mla", "gqa", else "mha".
 * Static strings.
 */
const char *gp_mlp_str (enum gp_mlp m);
const char *gp_attn_str (enum gp_attn a);

struct gp_zoo;

/* Load the embedded zoo, then, if 'extra_csv' is non-NULL, rows from that
 * file (same header; a row with an existing id replaces it).  Returns a zoo
 * the caller frees with gp_zoo_destroy(), or NULL with 'err' naming
 * file:line and the column.
 */
struct gp_zoo *gp_zoo_load (const char *extra_csv, gp_error_t *err);
/* Free 'zoo' and every string its entries borrow (NULL is fine). */
void gp_zoo_destroy (struct gp_zoo *zoo);
/* Number of models in 'zoo'. */
size_t gp_zoo_size (const struct gp_zoo *zoo);
/* Model 'i' (< gp_zoo_size), borrowed from 'zoo'; NULL out of range. */
const struct gp_arch *gp_zoo_get (const struct gp_zoo *zoo, size_t i);

/* Find a model by id (case-insensitive); NULL + GP_ENOTFOUND with the
 * closest ids otherwise.  Borrowed from 'zoo'.
 */
const struct gp_arch *gp_zoo_find (const struct gp_zoo *zoo,
                                   const char *id,
                                   gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_ARCH_H */
