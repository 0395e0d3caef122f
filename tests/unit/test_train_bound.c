/* test_train_bound.c - the layout search's proven lower bound on the
 * step time (gp__train_step_bound, train_time.c) and the pruned search.
 *
 * 1. For thousands of random layouts (zoo models: dense, GQA, MoE, MLA;
 *    every catalog accelerator with a generation row; random degrees,
 *    micro-batches, stages, schedules, FP8, SHARP, oversubscription) the
 *    bound is <= gp_train_time's step time under every recomputation and
 *    sharding stage, and the higher full-recomputation bound is below
 *    the step time under full recomputation.
 *    The stage part of the bound does not depend on dp, vpp, the
 *    schedule or the global batch (the search reuses it across them).
 * 2. The pruned search (no statistics asked) keeps exactly the layouts,
 *    in the same order, as the full search (statistics asked: no
 *    pruning), for k = 1, 3 and 8, also when it chooses the batch; the
 *    cutoff search returns the same
 *    fastest layout when it steps under the cutoff.
 * 3. Deadline sizings keep one layout (refinement sizes searched only for
 *    layouts fast enough to meet the date) or two (no such cut): the same
 *    answer, batch, best size and curve, over models, batches and dates.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/train.h"
#include "model/train_private.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned rnd (unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static const char *const MODELS[] = {"gpt3-1.3b",     "llama3.1-8b",
                                     "llama3.1-70b",  "llama3.1-405b",
                                     "mixtral-8x7b",  "deepseek-v3",
                                     "qwen3-235b-a22b", "falcon-40b",
                                     "nemotron-h-8b", "nemotron-h-56b"};

static int hw_of (const struct gp_catalog *cat, size_t i,
                  struct gp_train_hw *hw, int fp8)
{
    const struct gp_accel *a = gp_catalog_accel (cat, i);
    if (!a || !a->gen || !(a->bf16_flops > 0))
        return -1;
    gp_train_hw_from_accel (a, fp8 ? GP_PREC_FP8 : GP_PREC_BF16, hw);
    return hw->peak_flops > 0 ? 0 : -1;
}

static void test_bound_below_step (void **state)
{
    (void)state;
    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    struct gp_zoo *zoo = gp_zoo_load (NULL, NULL);
    assert_non_null (cat);
    assert_non_null (zoo);
    static const int p2[] = {1, 2, 4, 8, 16, 32, 64};
    static const int vp[] = {1, 2, 3, 4};
    size_t n_acc = gp_catalog_n_accels (cat);
    int checked = 0, positive = 0;
    for (int it = 0; it < 40000 && checked < 6000; it++) {
        const struct gp_arch *a = gp_zoo_find (
            zoo, MODELS[rnd (sizeof MODELS / sizeof *MODELS)], NULL);
        assert_non_null (a);
        struct gp_train_model m;
        assert_int_equal (gp_train_prep (a, &m, NULL), 0);
        struct gp_train_hw hw;
        if (hw_of (cat, rnd ((unsigned)n_acc), &hw, rnd (3) == 0))
            continue;
        if (rnd (2))
            hw.sharp_share = 0.5 + 0.1 * rnd (5);
        hw.oversub = 1 + rnd (3);
        struct gp_train_job j;
        gp_train_job_default (&j);
        j.seq_len = 1024 << rnd (6);
        j.flash_attn = rnd (4) != 0;
        struct gp_layout l = {
            .tp = p2[rnd (5)], .pp = p2[rnd (6)], .dp = p2[rnd (7)],
            .cp = p2[rnd (3)], .ep = 1, .vpp = vp[rnd (4)],
            .micro_batch = p2[rnd (4)], .schedule = GP_SCHED_1F1B};
        l.seq_par = l.tp > 1 && rnd (4);
        if (m.moe_experts) {
            l.ep = p2[rnd (7)];
            l.schedule = (enum gp_schedule)rnd (3);
        }
        j.global_batch = (double)l.dp * l.micro_batch * (1 + rnd (16));
        if (l.pp > m.layers || l.pp * l.vpp > m.layers)
            continue;
        if (gp_train_check (&m, &j, &l, NULL))
            continue;
        double b = gp__train_step_bound (&m, &j, &hw, &l);
        /* the stage part does not read dp, vpp, the schedule or the
         * global batch (the search reuses it across them)
         */
        struct gp_layout l1 = l;
        l1.dp = 1;
        l1.vpp = 1;
        l1.schedule = GP_SCHED_1F1B;
        struct gp_train_job j1 = j;
        j1.global_batch = l.micro_batch;
        double f0, f1;
        assert_true (gp__train_stage_bound (&m, &j1, &hw, &l1, &f1)
                     == gp__train_stage_bound (&m, &j, &hw, &l, &f0));
        assert_true (f0 == f1);
        assert_true (b == gp__train_step_bound_with (
                              &m, &j, &hw, &l,
                              gp__train_stage_bound (&m, &j1, &hw, &l1,
                                                     NULL)));
        for (int r = 0; r <= 2; r++)
            for (int sh = 0; sh <= 3; sh++) {
                struct gp_layout x = l;
                x.recompute = (enum gp_recompute)r;
                x.sharding = (enum gp_sharding)sh;
                struct gp_train_time t;
                gp_train_time (&m, &j, &hw, &x, &t);
                /* under full recomputation: the higher bound */
                double bf = gp__train_step_bound (&m, &j, &hw, &x);
                if (r == GP_RECOMP_FULL && !(bf <= t.step_s && bf >= b)) {
                    print_error ("%s full recompute: bound %.17g step "
                                 "%.17g\n", a->id, bf, t.step_s);
                    fail ();
                }
                if (!(b <= t.step_s)) {
                    print_error ("%s tp %d pp %d dp %d cp %d ep %d vpp %d "
                                 "mb %d rec %d sh %d sched %d: bound %.17g "
                                 "> step %.17g\n",
                                 a->id, l.tp, l.pp, l.dp, l.cp, l.ep, l.vpp,
                                 l.micro_batch, r, sh, (int)l.schedule, b,
                                 t.step_s);
                    fail ();
                }
            }
        /* partial (block) recomputation: 1 .. chunk - 1 layers per
         * chunk; the bound for the layout and the search's S[0] bound
         * (b) stay below the step
         */
        int C = gp_train_chunk_layers (&l, m.layers);
        for (int nrec = 1; nrec < C && nrec <= 3; nrec++) {
            struct gp_layout x = l;
            x.recompute = GP_RECOMP_FULL;
            x.recompute_layers = nrec;
            struct gp_train_time t;
            gp_train_time (&m, &j, &hw, &x, &t);
            double bp = gp__train_step_bound (&m, &j, &hw, &x);
            if (!(bp <= t.step_s && b <= t.step_s)) {
                print_error ("%s partial recompute %d/%d: bound %.17g "
                             "step %.17g\n", a->id, nrec, C, bp, t.step_s);
                fail ();
            }
        }
        checked++;
        positive += b > 0;
    }
    /* enough layouts, and the bound is not the trivial 0 */
    assert_true (checked >= 3000);
    assert_true (positive >= checked * 9 / 10);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

static void same_top (const struct gp_train_result *a, size_t na,
                      const struct gp_train_result *b, size_t nb)
{
    assert_int_equal (na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_memory_equal (&a[i].layout, &b[i].layout, sizeof a[i].layout);
        assert_true (a[i].time.step_s == b[i].time.step_s);
        assert_true (a[i].mem.total == b[i].mem.total);
    }
}

static void test_pruned_search_same (void **state)
{
    (void)state;
    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    struct gp_zoo *zoo = gp_zoo_load (NULL, NULL);
    static const char *const accs[] = {"H100-SXM", "A100-SXM-80GB",
                                       "B200"};
    static const int gpus[] = {8, 16, 64, 96, 256};
    int compared = 0;
    for (size_t mi = 0; mi < sizeof MODELS / sizeof *MODELS; mi++)
        for (size_t ai = 0; ai < 3; ai++) {
            const struct gp_accel *acc = gp_catalog_find_accel (cat, accs[ai],
                                                                NULL);
            if (!acc)
                continue;
            struct gp_train_model m;
            assert_int_equal (
                gp_train_prep (gp_zoo_find (zoo, MODELS[mi], NULL), &m, NULL),
                0);
            struct gp_train_hw hw;
            gp_train_hw_from_accel (acc, GP_PREC_BF16, &hw);
            struct gp_train_job j;
            gp_train_job_default (&j);
            j.seq_len = mi % 2 ? 8192 : 32768;
            j.global_batch = 512;
            struct gp_search_fix fix;
            gp_search_fix_free (&fix);
            int n = gpus[(mi + ai) % 5];
            static const size_t ks[] = {1, 3, 8};
            for (size_t ki = 0; ki < 3; ki++) {
                struct gp_train_result full[8], pr[8];
                struct gp_search_stats st;
                size_t k = ks[ki];
                size_t nf = gp_search_layouts (&m, &j, &hw, n, &fix, full, k,
                                               &st);
                size_t np = gp_search_layouts (&m, &j, &hw, n, &fix, pr, k,
                                               NULL);
                same_top (full, nf, pr, np);
                if (!nf)
                    continue;
                compared++;
                /* the batch choice: statistics asked (smallest batch
                 * first, no pruning) or not (largest first, pruned)
                 */
                struct gp_train_job jf = j;
                jf.batch_free = 1;
                double b1 = 0, b2 = 0;
                nf = gp_train_search_batch (&m, &jf, &hw, n, &fix, full, k,
                                            &st, &b1);
                np = gp_train_search_batch (&m, &jf, &hw, n, &fix, pr, k,
                                            NULL, &b2);
                same_top (full, nf, pr, np);
                assert_true (b1 == b2);
                nf = gp_search_layouts (&m, &j, &hw, n, &fix, full, k, &st);
                /* cutoff just above the fastest: the same fastest */
                size_t nc = gp__search_layouts_below (
                    &m, &j, &hw, n, &fix, nextafter (full[0].time.step_s, 1e300),
                    pr, 1);
                same_top (full, 1, pr, nc);
                /* cutoff at the fastest: nothing faster comes back */
                nc = gp__search_layouts_below (&m, &j, &hw, n, &fix,
                                               full[0].time.step_s, pr, 1);
                assert_true (nc == 0
                             || pr[0].time.step_s >= full[0].time.step_s);
            }
        }
    assert_true (compared >= 20);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

static void test_deadline_same (void **state)
{
    (void)state;
    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    struct gp_zoo *zoo = gp_zoo_load (NULL, NULL);
    const struct gp_accel *acc = gp_catalog_find_accel (cat, "H100-SXM",
                                                        NULL);
    assert_non_null (acc);
    struct gp_train_hw hw;
    gp_train_hw_from_accel (acc, GP_PREC_BF16, &hw);
    static const char *const ms[] = {"llama3.1-8b", "llama3.1-70b",
                                     "mixtral-8x7b"};
    static const double days[] = {3, 10, 30, 90};
    int met = 0;
    for (size_t mi = 0; mi < 3; mi++)
        for (size_t di = 0; di < 4; di++)
            for (int free = 0; free < 2; free++) {
                struct gp_train_model m;
                assert_int_equal (
                    gp_train_prep (gp_zoo_find (zoo, ms[mi], NULL), &m, NULL),
                    0);
                struct gp_train_job j;
                gp_train_job_default (&j);
                j.seq_len = 8192;
                j.global_batch = 512;
                j.batch_free = free;
                j.tokens = mi == 0 ? 1e12 : 2e12;
                struct gp_search_fix fix;
                gp_search_fix_free (&fix);
                struct gp_train_result t1[1], t2[2];
                static struct gp_train_size s1, s2;
                size_t n1 = gp_train_size_deadline (&m, &j, &hw, &fix, NULL,
                                                    days[di], 4096, t1, 1,
                                                    &s1);
                size_t n2 = gp_train_size_deadline (&m, &j, &hw, &fix, NULL,
                                                    days[di], 4096, t2, 2,
                                                    &s2);
                assert_int_equal (n1 > 0, n2 > 0);
                assert_int_equal (s1.n_gpus, s2.n_gpus);
                assert_int_equal (s1.best_n, s2.best_n);
                assert_true (s1.best_rate == s2.best_rate);
                assert_true (s1.global_batch == s2.global_batch);
                assert_int_equal (s1.n_curve, s2.n_curve);
                for (size_t i = 0; i < s1.n_curve; i++) {
                    assert_int_equal (s1.curve[i].gpus, s2.curve[i].gpus);
                    assert_true (s1.curve[i].rate == s2.curve[i].rate);
                }
                if (n1) {
                    same_top (t1, 1, t2, 1);
                    met++;
                }
            }
    assert_true (met >= 12);
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

/* The state floor (gp__train_mem_state_oom) by hand: 50 + 10 + 20 GB of
 * weights, gradients and optimizer states, 2 GB runtime and 5 % of the
 * 80 GB: 86 GB.  Then on a real layout: Llama 3.1 70B on 8 H100 with tp 8
 * and no sharding holds 18 B x 70.6e9 / 8 = 159 GB of state, so every
 * recomputation and micro-batch is out of memory, as the flag says.
 */
static void test_state_floor (void **state)
{
    (void)state;
    struct gp_train_hw hw = {.runtime_bytes = 2e9};
    struct gp_train_mem mem = {.weights = 50e9, .grads = 10e9,
                               .optim = 20e9, .capacity = 85e9};
    assert_true (gp__train_mem_state_oom (&hw, &mem));
    mem.capacity = 86.5e9;
    assert_false (gp__train_mem_state_oom (&hw, &mem));
    mem.capacity = 0; /* no capacity known: everything fits */
    assert_false (gp__train_mem_state_oom (&hw, &mem));

    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    struct gp_zoo *zoo = gp_zoo_load (NULL, NULL);
    const struct gp_accel *acc = gp_catalog_find_accel (cat, "H100-SXM",
                                                        NULL);
    assert_non_null (acc);
    struct gp_train_hw h;
    gp_train_hw_from_accel (acc, GP_PREC_BF16, &h);
    struct gp_train_model m;
    assert_int_equal (
        gp_train_prep (gp_zoo_find (zoo, "llama3.1-70b", NULL), &m, NULL), 0);
    struct gp_train_job j;
    gp_train_job_default (&j);
    j.seq_len = 8192;
    j.global_batch = 64;
    for (int r = 0; r <= GP_RECOMP_FULL; r++)
        for (int mb = 1; mb <= 4; mb *= 2) {
            struct gp_layout l = {.tp = 8, .pp = 1, .dp = 1, .cp = 1,
                                  .ep = 1, .vpp = 1, .micro_batch = mb,
                                  .seq_par = 1,
                                  .recompute = (enum gp_recompute)r,
                                  .sharding = GP_SHARD_NONE};
            struct gp_train_mem o;
            gp_train_memory (&m, &j, &h, &l, &o);
            assert_true (o.weights + o.grads + o.optim > 150e9);
            assert_true (gp__train_mem_state_oom (&h, &o));
            assert_false (o.fits);
        }
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bound_below_step),
        cmocka_unit_test (test_pruned_search_same),
        cmocka_unit_test (test_deadline_same),
        cmocka_unit_test (test_state_floor),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
