/* bench_trace_read.c - speed and peak memory of the trace reader alone.
 *
 *   bench_trace_read [TRACE]
 *
 * With a path, reads it (format detected) and prints the time and the
 * process's peak RSS; bench/trace_mem.sh runs it on a 5,000,000-row
 * generic CSV.  Without one, parses a generated 1,000,000-row generic CSV
 * from memory (50 teams, 1,000 pools), so bench/run.sh has a figure.
 * Prints "name: value unit" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gpuplan/trace.h"

static double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_mb (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

static char *generate (size_t n, size_t *len)
{
    size_t cap = 64 + n * 48;
    char *s = malloc (cap);
    if (!s)
        return NULL;
    size_t k = (size_t)snprintf (s, cap, "id,submit,duration,gpus,team,pool\n");
    unsigned long x = 1;
    long t = 0;
    static const int sizes[] = {1, 1, 1, 2, 4, 8};
    for (size_t i = 0; i < n && k + 48 < cap; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        t += (long)(x >> 59) % 21;
        k += (size_t)snprintf (s + k, cap - k, "%zu,%ld,%lu,%d,team%lu,p%lu\n",
                               i, t, 60 + (x >> 33) % 1741,
                               sizes[(x >> 20) % 6], (x >> 40) % 50,
                               (x >> 45) % 1000);
    }
    *len = k;
    return s;
}

int main (int argc, char **argv)
{
    gp_error_t err = {0};
    double t0 = now ();
    struct gp_jobset *js;
    const char *what;
    if (argc > 1) {
        what = argv[1];
        js = gp_trace_read (argv[1], NULL, &err);
    } else {
        size_t len;
        char *text = generate (1000000, &len);
        if (!text) {
            fprintf (stderr, "bench_trace_read: out of memory\n");
            return 1;
        }
        what = "generated 1M rows";
        t0 = now ();
        js = gp_trace_parse (text, len, "generated.csv", NULL, &err);
        free (text);
    }
    double dt = now () - t0;
    if (!js) {
        fprintf (stderr, "bench_trace_read: %s\n", err.text);
        return 1;
    }
    printf ("trace_read (%s): %.2f s\n", what, dt);
    printf ("trace_read_jobs: %zu jobs, %zu teams, %zu pools\n", js->n_jobs,
            js->n_teams, js->n_pools);
    printf ("trace_read_job_record: %zu bytes\n", sizeof (struct gp_job));
    printf ("trace_read_peak_rss: %ld MB\n", peak_rss_mb ());
    gp_jobset_destroy (js);
    return 0;
}
