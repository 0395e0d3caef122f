/* rng.h - the seeded random stream every module uses (internal).
 *
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): one 64-bit state, the same stream on every
 * platform, so a seed reproduces a run byte for byte.
 */
#ifndef GPUPLAN_CORE_RNG_H
#define GPUPLAN_CORE_RNG_H

#include <stdint.h>

/* Next 64 random bits; advances '*state'. */
static inline uint64_t gp__rng_next (uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in the open interval (0, 1), from the top 53 bits. */
static inline double gp__rng_u01 (uint64_t *state)
{
    return ((double)(gp__rng_next (state) >> 11) + 0.5)
           / 9007199254740992.0;
}

#endif
