/* bench_search.c - speed of the training layout search.
 *
 * Searches every layout of Llama-3.1-405B (8,192-token sequences, a batch
 * of 2,048 sequences, BF16) on H100-SXM for every GPU count from 1 to
 * 16,384, on one core, and reports layouts evaluated per second (a layout
 * counts once its memory has been modelled; those that fit are also timed)
 * and the wall time of the whole sweep.  Prints "name: value unit" lines.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuplan/arch.h"
#include "gpuplan/catalog.h"
#include "gpuplan/train.h"

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main (void)
{
    gp_error_t err = {0};
    struct gp_zoo *zoo = gp_zoo_load (NULL, &err);
    struct gp_catalog *cat = gp_catalog_load (NULL, &err);
    if (!zoo || !cat) {
        fprintf (stderr, "bench_search: %s\n", err.text);
        return 1;
    }
    const struct gp_arch *a = gp_zoo_find (zoo, "llama3.1-405b", &err);
    const struct gp_accel *acc = gp_catalog_find_accel (cat, "H100-SXM",
                                                        &err);
    struct gp_train_model m;
    if (!a || !acc || gp_train_prep (a, &m, &err)) {
        fprintf (stderr, "bench_search: %s\n", err.text);
        return 1;
    }
    struct gp_train_job job;
    gp_train_job_default (&job);
    job.seq_len = 8192;
    job.global_batch = 2048;
    struct gp_train_hw hw;
    gp_train_hw_from_accel (acc, job.precision, &hw);
    struct gp_search_fix fix;
    gp_search_fix_free (&fix);

    double evaluated = 0, div = 0, feasible_counts = 0;
    double best_tps = 0;
    int best_n = 0;
    double t0 = now ();
    for (int n = 1; n <= 16384; n++) {
        struct gp_train_result top[3];
        struct gp_search_stats st;
        size_t k = gp_search_layouts (&m, &job, &hw, n, &fix, top, 3, &st);
        evaluated += st.evaluated;
        div += st.rejected_div;
        if (k) {
            feasible_counts++;
            if (top[0].time.tokens_per_s > best_tps) {
                best_tps = top[0].time.tokens_per_s;
                best_n = n;
            }
        }
    }
    double wall = now () - t0;
    printf ("search_405b_1_to_16384_wall: %.3f s\n", wall);
    printf ("search_layouts_evaluated: %.0f layouts\n", evaluated);
    printf ("search_layouts_rejected_divisibility: %.0f layouts\n", div);
    printf ("search_layouts_per_s: %.0f layouts/s\n", evaluated / wall);
    printf ("search_gpu_counts_with_a_fitting_layout: %.0f counts\n",
            feasible_counts);
    printf ("search_fastest_count: %d gpus\n", best_n);

    /* The deadline sizing with the batch co-optimised: 15T tokens in 90
     * days, 4,096-token sequences, the batch free (4M-16M tokens).
     */
    {
        struct gp_train_job dj;
        gp_train_job_default (&dj);
        dj.tokens = 15e12;
        dj.batch_free = 1;
        struct gp_train_result top[3];
        static struct gp_train_size sz;
        t0 = now ();
        gp_train_size_deadline (&m, &dj, &hw, &fix, NULL, 90,
                                GP_TRAIN_MAX_GPUS, top, 3, &sz);
        printf ("size_deadline_405b_90d_batch_free_wall: %.3f s\n",
                now () - t0);
        printf ("size_deadline_405b_90d_gpus: %d gpus\n", sz.n_gpus);
        printf ("size_deadline_405b_90d_curve_sizes: %zu sizes\n",
                sz.n_curve);
    }

    /* Full evaluations (memory + step time) of valid layouts, in a loop. */
    struct gp_layout ls[64];
    int nl = 0;
    for (int tp = 1; tp <= 8; tp *= 2)
        for (int pp = 1; pp <= 16; pp *= 2)
            for (int r = 0; r < 3 && nl < 64; r++) {
                struct gp_layout l = {.tp = tp, .pp = pp,
                                      .dp = 16384 / (tp * pp), .cp = 1,
                                      .ep = 1, .vpp = 1, .micro_batch = 1,
                                      .seq_par = tp > 1, .recompute = r,
                                      .sharding = GP_SHARD_ZERO1};
                if (!gp_train_check (&m, &job, &l, NULL))
                    ls[nl++] = l;
            }
    double sink = 0;
    long iters = 0;
    t0 = now ();
    while (now () - t0 < 0.5) {
        for (int i = 0; i < 1000; i++) {
            struct gp_train_result r;
            gp_train_memory (&m, &job, &hw, &ls[i % nl], &r.mem);
            gp_train_time (&m, &job, &hw, &ls[i % nl], &r.time);
            sink += r.time.step_s;
        }
        iters += 1000;
    }
    wall = now () - t0;
    printf ("full_layout_evaluations_per_s: %.0f layouts/s\n",
            iters / wall);
    if (sink < 0)
        printf ("%g\n", sink);
    gp_catalog_destroy (cat);
    gp_zoo_destroy (zoo);
    return 0;
}
