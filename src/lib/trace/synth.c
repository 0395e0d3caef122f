/* synth.c - synthetic job sets: Poisson arrivals, a discrete GPU-count
 * distribution and log-normal run times, deterministic for a seed.
 *
 * The default GPU mix is the Philly-derived job list's (82,247 jobs; see
 * docs/formats/traces.md): 1 GPU 93.2 %, 2: 2.2 %, 4: 2.3 %, 8: 2.0 %,
 * 16: 0.24 %, 32: 0.08 %, 64 and 128 rare.  The generator is splitmix64
 * (Steele et al., OOPSLA '14), so the stream is the same on every platform.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/trace.h"
#include "../core/rng.h"

static uint64_t next (uint64_t *s)
{
    return gp__rng_next (s);
}

/* Uniform in (0, 1). */
static double unif (uint64_t *s)
{
    return ((double)(next (s) >> 11) + 0.5) / 9007199254740992.0;
}

static double std_normal (uint64_t *s)
{
    /* Box-Muller; one value per call keeps the stream simple. */
    double u1 = unif (s), u2 = unif (s);
    return sqrt (-2.0 * log (u1)) * cos (6.283185307179586 * u2);
}

static const int philly_sizes[] = {1, 2, 4, 8, 12, 16, 24, 32, 64, 128};
static const double philly_counts[] = {76627, 1818, 1870, 1643, 7,
                                       199,   7,    67,   6,    3};

struct gp_jobset *gp_trace_synth (const struct gp_synth_params *p,
                                  gp_error_t *err)
{
    if (!p || p->n_jobs == 0 || !(p->arrival_rate_per_s > 0)
        || !(p->duration_median_s > 0) || p->duration_sigma < 0
        || p->n_teams < 1 || (p->gpu_sizes && (!p->gpu_weights
                                               || p->n_sizes == 0))) {
        gp_errprintf (err, GP_EINVAL,
                      "synthetic trace: need n_jobs > 0, arrival rate > 0, "
                      "median duration > 0, sigma >= 0, teams >= 1");
        return NULL;
    }
    const int *sizes = p->gpu_sizes ? p->gpu_sizes : philly_sizes;
    const double *w = p->gpu_sizes ? p->gpu_weights : philly_counts;
    size_t ns = p->gpu_sizes ? p->n_sizes : 10;
    double *cdf = malloc (ns * sizeof *cdf);
    struct gp_jobset *js = gp_jobset_create ();
    if (!cdf || !js)
        goto nomem;
    double tot = 0;
    for (size_t i = 0; i < ns; i++) {
        if (w[i] < 0 || sizes[i] < 1) {
            gp_errprintf (err, GP_EINVAL,
                          "synthetic trace: sizes must be >= 1 and weights "
                          ">= 0");
            goto fail;
        }
        tot += w[i];
        cdf[i] = tot;
    }
    if (!(tot > 0)) {
        gp_errprintf (err, GP_EINVAL, "synthetic trace: weights sum to 0");
        goto fail;
    }
    for (int t = 0; t < p->n_teams; t++) {
        char name[32];
        snprintf (name, sizeof name, "t%d", t);
        if (gp_jobset_team (js, name) < 0)
            goto nomem;
    }
    js->jobs = malloc (p->n_jobs * sizeof *js->jobs);
    if (!js->jobs)
        goto nomem;
    js->cap_jobs = p->n_jobs;
    uint64_t s = p->seed;
    double t = 0;
    double mu = log (p->duration_median_s);
    for (size_t i = 0; i < p->n_jobs; i++) {
        struct gp_job *j = &js->jobs[i];
        memset (j, 0, sizeof *j);
        t += -log (unif (&s)) / p->arrival_rate_per_s;
        double u = unif (&s) * tot;
        size_t k = 0;
        while (k + 1 < ns && cdf[k] < u)
            k++;
        double d = exp (mu + p->duration_sigma * std_normal (&s));
        if (p->duration_max_s > 0 && d > p->duration_max_s)
            d = p->duration_max_s;
        if (d < 1)
            d = 1;
        j->id = (int64_t)i;
        j->submit_s = t;
        j->duration_s = d;
        j->n_gpus = sizes[k];
        j->gpu_milli = 1000;
        j->team = (int)(next (&s) % (uint64_t)p->n_teams);
        j->pool = -1;
    }
    js->n_jobs = p->n_jobs;
    snprintf (js->format, sizeof js->format, "synthetic");
    free (cdf);
    return js;
nomem:
    gp_errprintf (err, GP_ENOMEM, "out of memory");
fail:
    free (cdf);
    gp_jobset_destroy (js);
    return NULL;
}
