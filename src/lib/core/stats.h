/* stats.h - order statistics shared by the simulators (internal). */
#ifndef GPUPLAN_CORE_STATS_H
#define GPUPLAN_CORE_STATS_H

#include <math.h>
#include <stddef.h>

/* qsort comparator for doubles, ascending. */
static inline int gp__cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Percentile 'p' in [0, 1] of the sorted 'v' by the nearest-rank method
 * (the smallest value with at least p of the sample at or below it);
 * 0 for an empty sample.
 */
static inline double gp__percentile (const double *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)ceil (p * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

#endif
