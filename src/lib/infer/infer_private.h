/* infer_private.h - shared between the files of the infer module. */
#ifndef GPUPLAN_INFER_PRIVATE_H
#define GPUPLAN_INFER_PRIVATE_H

#include "gpuplan/infer.h"

/* Tokens (prompt + output) a sizing run at a Poisson rate simulates at
 * most (800 requests, fewer for requests over 2,500 tokens, at least 100),
 * and the offline run that finds saturation (docs/model/inference.md,
 * "Sizing"): long outputs cost an engine iteration per token.
 */
#define GP_INFER_SIM_TOKENS 2e6
#define GP_INFER_OFFLINE_TOKENS 2e7

/* Requests of the sizing's offline run: the simulator's own choice for
 * offline arrivals (four batches, 500 to 8,000 requests), at most
 * GP_INFER_OFFLINE_TOKENS tokens of them (at least 100 requests).
 */
int gp__infer_offline_n (const struct gp_serve_model *m,
                         const struct gp_workload *w);

#endif
