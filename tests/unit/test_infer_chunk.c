/* test_infer_chunk.c - chunked local attention (Llama 4's iRoPE) in the
 * serving model and the zoo columns that describe it.
 *
 * Hand-computed references (docs/model/inference.md, "Chunked local
 * attention"): Llama 4 Scout, 48 layers, chunk C = 8192, every 4th layer
 * global: 12 global and 36 chunked layers.
 *   A 20,000-token prompt from position 1: full causal attention attends
 *     sum p = 20000 x 20001 / 2 = 200,010,000 keys.  A chunked layer
 *     attends ((p - 1) mod 8192) + 1: two whole chunks of 8192 x 8193 / 2
 *     = 33,558,528 each and a partial one of 3616 x 3617 / 2 = 6,539,536:
 *     73,656,592.  Averaged over the layers: (12 x 200,010,000 + 36 x
 *     73,656,592) / 48 = 105,244,944 (0.5262 of full attention).
 *   The second chunk alone (positions 8193..16384): full 8192 x (8192 +
 *     8193 / 2) = 100,667,392; chunked 33,558,528; averaged
 *     (12 x 100,667,392 + 36 x 33,558,528) / 48 = 50,335,744.
 *   Decode at length 20,000: (12 x 20000 + 36 x 3616) / 48 = 7,712; at
 *     8,192 (last token of the first chunk): 8,192; at 8,193 (first of the
 *     second): (12 x 8193 + 36 x 1) / 48 = 2,049.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuplan/infer.h"
#include "infer/infer_private.h"

#include "zoo_cat_fixture.h"

static struct gp_arch scout (void)
{
    const struct gp_arch *z = gp_zoo_find (zoo, "llama4-scout", NULL);
    assert_non_null (z);
    return *z;
}

/* The zoo rows carry Llama 4's chunk size and global-layer interval
 * (Hugging Face config.json text_config: attention_chunk_size 8192;
 * no_rope_layers: every 4th layer). */
static void test_zoo_llama4_fields (void **state)
{
    (void)state;
    struct gp_arch a = scout ();
    assert_int_equal (a.attn_chunk_size, 8192);
    assert_int_equal (a.attn_global_interval, 4);
    const struct gp_arch *m = gp_zoo_find (zoo, "llama4-maverick", NULL);
    assert_non_null (m);
    assert_int_equal (m->attn_chunk_size, 8192);
    assert_int_equal (m->attn_global_interval, 4);
    const struct gp_arch *l = gp_zoo_find (zoo, "llama3.1-70b", NULL);
    assert_non_null (l);
    assert_int_equal (l->attn_chunk_size, 0);
    assert_int_equal (l->attn_global_interval, 0);
}

static void test_prefill_ctx (void **state)
{
    (void)state;
    struct gp_arch a = scout ();
    assert_true (fabs (gp__infer_prefill_ctx (&a, 0, 20000) - 105244944.0)
                 < 1e-6);
    assert_true (fabs (gp__infer_prefill_ctx (&a, 8192, 8192) - 50335744.0)
                 < 1e-6);
    /* within the first chunk every layer attends as full attention */
    assert_true (fabs (gp__infer_prefill_ctx (&a, 0, 100) - 5050.0) < 1e-9);
    a.attn_chunk_size = 0; /* full attention: n (done + (n + 1) / 2) */
    assert_true (gp__infer_prefill_ctx (&a, 0, 20000) == 200010000.0);
    assert_true (gp__infer_prefill_ctx (&a, 8192, 8192) == 100667392.0);
}

static void test_decode_ctx (void **state)
{
    (void)state;
    struct gp_arch a = scout ();
    assert_true (fabs (gp__infer_decode_ctx (&a, 20000) - 7712.0) < 1e-9);
    assert_true (fabs (gp__infer_decode_ctx (&a, 8192) - 8192.0) < 1e-9);
    assert_true (fabs (gp__infer_decode_ctx (&a, 8193) - 2049.0) < 1e-9);
    assert_true (fabs (gp__infer_decode_ctx (&a, 100) - 100.0) < 1e-9);
    a.attn_global_interval = 0; /* every layer chunked */
    assert_true (fabs (gp__infer_decode_ctx (&a, 20000) - 3616.0) < 1e-9);
    a.attn_chunk_size = 0;
    assert_true (gp__infer_decode_ctx (&a, 20000) == 20000.0);
}

static void prepare (struct gp_serve_model *m, const struct gp_arch *a)
{
    struct gp_serve_cfg c;
    memset (&c, 0, sizeof c);
    c.arch = a;
    c.accel = gp_catalog_find_accel (cat, "B200", NULL);
    assert_non_null (c.accel);
    c.tp = 1;
    c.pp = 1;
    c.weight_dtype = GP_DT_FP8;
    c.kv_dtype = GP_DT_FP8;
    gp_engine_defaults (GP_ENGINE_VLLM, &c.eng);
    assert_int_equal (gp_infer_prepare (&c, 0, m, NULL), 0);
}

/* A 20,000-token prefill step: the attention FLOPs (and so the attention
 * time, no KV stream in a prefill-only step) fall to 105,244,944 /
 * 200,010,000 of full attention; the GEMMs do not change. */
static void test_prefill_step_attention (void **state)
{
    (void)state;
    struct gp_arch a = scout ();
    struct gp_serve_model m;
    prepare (&m, &a);
    struct gp_iter_load chunked = {0, 0, 20000,
                                   gp__infer_prefill_ctx (&a, 0, 20000), 1};
    struct gp_iter_load full = {0, 0, 20000, 200010000.0, 1};
    struct gp_iter_time tc, tf;
    gp_infer_iter_time (&m, &chunked, &tc);
    gp_infer_iter_time (&m, &full, &tf);
    assert_true (fabs (tc.attn_s / tf.attn_s - 105244944.0 / 200010000.0)
                 < 1e-12);
    assert_true (tc.gemm_s == tf.gemm_s);
    assert_true (tc.total_s < tf.total_s);
}

static double run (const struct gp_arch *a, int in, int out)
{
    struct gp_serve_model m;
    prepare (&m, a);
    struct gp_workload w;
    memset (&w, 0, sizeof w);
    w.in_len = in;
    w.out_len = out;
    w.arrivals = GP_ARR_OFFLINE;
    w.n_requests = 32;
    w.seed = 1;
    struct gp_sim_result r;
    assert_int_equal (gp_infer_simulate (&m, &w, &r, NULL), 0);
    return r.out_tok_s;
}

/* A chunk no sequence outgrows changes nothing (the decode runs are
 * kept, the same bits); one that binds only at the last token of each
 * sequence (C = 2,299 for 2,000 + 300 tokens) takes the step-by-step path
 * and differs by that token's attention alone. */
static void test_sim_chunk_not_binding (void **state)
{
    (void)state;
    struct gp_arch full = scout ();
    full.attn_chunk_size = 0;
    full.attn_global_interval = 0;
    struct gp_arch big = scout ();
    big.attn_chunk_size = 1 << 20;
    double a = run (&full, 2000, 300), b = run (&big, 2000, 300);
    assert_true (a == b);
    big.attn_chunk_size = 2300;
    assert_true (run (&big, 2000, 300) == a);
    big.attn_chunk_size = 2299;
    double c = run (&big, 2000, 300);
    assert_true (c >= a && c - a < 0.01 * a);
}

/* Long prompts: chunking makes both prefill and decode cheaper. */
static void test_sim_chunk_faster (void **state)
{
    (void)state;
    struct gp_arch full = scout ();
    full.attn_chunk_size = 0;
    full.attn_global_interval = 0;
    struct gp_arch ch = scout ();
    assert_true (run (&ch, 20000, 200) > run (&full, 20000, 200));
}

/* ------------------------- zoo column errors ------------------------- */

static const char *HDR =
    "id,name,family,params_b,active_params_b,layers,hidden,ffn_hidden,"
    "heads,kv_heads,head_dim,vocab,mlp,attention,tied_embeddings,"
    "max_seq_len,moe_experts,moe_topk,moe_ffn_hidden,moe_shared_experts,"
    "moe_dense_layers,mla_q_lora_rank,mla_kv_lora_rank,"
    "mla_qk_nope_head_dim,mla_qk_rope_head_dim,mla_v_head_dim,source,"
    "source_date,notes,attn_chunk_size,attn_global_interval\n";
static const char *ROW =
    "tiny,Tiny,test,0,0,8,1024,4096,8,2,128,32000,swiglu,gqa,0,4096,0,,,,,"
    ",,,,,test,2026,";

/* Load an extra zoo file whose one row ends in 'tail'; the error text. */
static int load_extra (const char *tail, char *msg, size_t n)
{
    char path[] = "/tmp/gp_zoo_chunkXXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    FILE *f = fdopen (fd, "w");
    assert_non_null (f);
    fprintf (f, "%s%s,%s\n", HDR, ROW, tail);
    fclose (f);
    gp_error_t err = {0};
    struct gp_zoo *z = gp_zoo_load (path, &err);
    unlink (path);
    snprintf (msg, n, "%s", err.text);
    if (z) {
        const struct gp_arch *a = gp_zoo_find (z, "tiny", NULL);
        assert_non_null (a);
        int v = a->attn_chunk_size * 100 + a->attn_global_interval;
        gp_zoo_destroy (z);
        return v;
    }
    return -1;
}

static void test_zoo_columns (void **state)
{
    (void)state;
    char msg[512];
    int v0 = load_extra (",", msg, sizeof msg);
    if (v0 != 0)
        print_error ("%s\n", msg);
    assert_int_equal (v0, 0);
    assert_int_equal (load_extra ("16,2", msg, sizeof msg), 1602);
    assert_int_equal (load_extra ("16,", msg, sizeof msg), 1600);
    assert_int_equal (load_extra ("abc,", msg, sizeof msg), -1);
    assert_non_null (strstr (msg, ":2: column 'attn_chunk_size'"));
    assert_int_equal (load_extra ("0,", msg, sizeof msg), -1);
    assert_non_null (strstr (msg, ":2: column 'attn_chunk_size'"));
    assert_int_equal (load_extra ("-5,", msg, sizeof msg), -1);
    assert_non_null (strstr (msg, "attn_chunk_size"));
    assert_int_equal (load_extra (",4", msg, sizeof msg), -1);
    assert_non_null (strstr (msg, ":2: column 'attn_global_interval'"));
    assert_non_null (strstr (msg, "without attn_chunk_size"));
    assert_int_equal (load_extra ("16,9", msg, sizeof msg), -1);
    assert_non_null (strstr (msg, ":2: column 'attn_global_interval'"));
    assert_non_null (strstr (msg, "8 layers"));
    assert_int_equal (load_extra ("16,x", msg, sizeof msg), -1);
    assert_non_null (strstr (msg, "attn_global_interval"));
}

/* ------------------------- serving spec keys ------------------------- */

static int spec (const char *extra, struct gp_infer_request *rq, char *msg,
                 size_t n)
{
    char text[1024];
    snprintf (text, sizeof text,
              "model:\n  layers: 8\n  hidden: 1024\n  ffn_hidden: 4096\n"
              "  heads: 8\n"
              "  kv_heads: 2\n  head_dim: 128\n  vocab: 32000\n%s"
              "traffic:\n  prompt: 2000\n  output: 100\n"
              "hardware:\n  gpus: [H100-SXM]\n",
              extra);
    gp_infer_request_defaults (rq);
    gp_error_t err = {0};
    int rc = gp_infer_spec_parse (text, strlen (text), "t.yaml", rq, &err);
    snprintf (msg, n, "%s", err.text);
    return rc;
}

static void test_spec_keys (void **state)
{
    (void)state;
    struct gp_infer_request rq;
    char msg[512];
    int rc0 = spec ("  attn_chunk_size: 4096\n"
                    "  attn_global_interval: 4\n", &rq, msg, sizeof msg);
    if (rc0)
        print_error ("%s\n", msg);
    assert_int_equal (rc0, 0);
    assert_int_equal (rq.has_arch, 1);
    assert_int_equal (rq.arch.attn_chunk_size, 4096);
    assert_int_equal (rq.arch.attn_global_interval, 4);
    assert_int_equal (spec ("", &rq, msg, sizeof msg), 0);
    assert_int_equal (rq.arch.attn_chunk_size, 0);
    assert_int_not_equal (spec ("  attn_global_interval: 4\n", &rq, msg,
                                sizeof msg), 0);
    assert_non_null (strstr (msg, "t.yaml:"));
    assert_non_null (strstr (msg, "without attn_chunk_size"));
    assert_int_not_equal (spec ("  attn_chunk_size: 16\n"
                                "  attn_global_interval: 9\n", &rq, msg,
                                sizeof msg), 0);
    assert_non_null (strstr (msg, "8 layers"));
    assert_int_not_equal (spec ("  attn_chunk_size: -1\n", &rq, msg,
                                sizeof msg), 0);
    assert_non_null (strstr (msg, "attn_chunk_size"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_zoo_llama4_fields),
        cmocka_unit_test (test_prefill_ctx),
        cmocka_unit_test (test_decode_ctx),
        cmocka_unit_test (test_prefill_step_attention),
        cmocka_unit_test (test_sim_chunk_not_binding),
        cmocka_unit_test (test_sim_chunk_faster),
        cmocka_unit_test (test_zoo_columns),
        cmocka_unit_test (test_spec_keys),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
