/* serve_private.h - shared between the files of the serve module. */
#ifndef GPUPLAN_SERVE_PRIVATE_H
#define GPUPLAN_SERVE_PRIVATE_H

#include <stddef.h>

#include "gpuplan/catalog.h"
#include "gpuplan/serve.h"

struct json_t;

/* The API calls (api_calls.c): each fills 'out' with the JSON answer or
 * an error reply.
 */
/* The plan of the spec in 'body', with 'samples' sampled plans (0 =
 * none) seeded 'seed'.
 */
void gp__serve_plan_sampled (const struct gp_catalog *cat, const char *body,
                             size_t len, size_t samples,
                             unsigned long long seed,
                             struct gp_serve_reply *out);
void gp__serve_infer (const struct gp_catalog *cat, const char *body,
                      size_t len, struct gp_serve_reply *out);
void gp__serve_train (const struct gp_catalog *cat, const char *body,
                      size_t len, struct gp_serve_reply *out);
void gp__serve_diff (const char *body, size_t len,
                     struct gp_serve_reply *out);
void gp__serve_catalog (const struct gp_catalog *cat, const char *table,
                        struct gp_serve_reply *out);

/* The HTTP status of a library error code: 400 for bad input, 422 for a
 * valid but infeasible request, 501 not yet supported, 500 otherwise.
 */
int gp__serve_status_of (int code);

/* 'root' (consumed) as the CLI prints JSON (2-space indent, 12 digits,
 * newline) into a 200 reply; 500 when 'root' is NULL.
 */
void gp__serve_json_reply (struct json_t *root, struct gp_serve_reply *out);

/* Take the malloc'd text 'text' as a 200 JSON reply. */
void gp__serve_text_reply (char *text, struct gp_serve_reply *out);

#endif
