/* memo.c - the planners' answers remembered within one plan run.
 *
 * The plan asks the serving search the same question many times: options
 * on one accelerator (an on-prem build and a cloud instance of the same
 * GPU), the three MFU settings (which do not touch serving) and the
 * sensitivity rows that move only prices or demand.  The search is pure
 * (deterministic in its inputs), so its answer is kept under the exact
 * inputs (compared bytewise) and reused: the same configuration is never
 * searched or simulated twice, and the plan's output does not change.
 * The training planner's deadline sizings and layout searches are kept the
 * same way (the serving sensitivity rows re-size every option, training
 * included).
 */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/infer.h"
#include "plan_private.h"

struct plan_serve_memo {
    struct plan_serve_key key;
    int rc;
    struct gp_infer_option best;
    gp_error_t e;
};

int gp_plan_memo_serve_get (const struct plan_memo *m,
                            const struct plan_serve_key *key,
                            struct gp_infer_option *best, gp_error_t *e,
                            int *rc)
{
    if (!m)
        return -1;
    for (size_t i = 0; i < m->n_serve; i++) {
        const struct plan_serve_memo *x = &m->serve[i];
        if (memcmp (&x->key, key, sizeof *key) == 0) {
            *best = x->best;
            if (e)
                *e = x->e;
            *rc = x->rc;
            ((struct plan_memo *)m)->hits++;
            return 0;
        }
    }
    return -1;
}

void gp_plan_memo_serve_put (struct plan_memo *m,
                             const struct plan_serve_key *key,
                             const struct gp_infer_option *best,
                             const gp_error_t *e, int rc)
{
    if (!m)
        return;
    m->misses++;
    /* capacity: powers of two from 8 */
    if (m->n_serve >= 8 && (m->n_serve & (m->n_serve - 1)) == 0) {
        void *p = realloc (m->serve, 2 * m->n_serve * sizeof *m->serve);
        if (!p)
            return;
        m->serve = p;
    } else if (m->n_serve == 0) {
        m->serve = malloc (8 * sizeof *m->serve);
        if (!m->serve)
            return;
    }
    struct plan_serve_memo *x = &m->serve[m->n_serve++];
    memset (x, 0, sizeof *x);
    x->key = *key;
    x->best = *best;
    if (e)
        x->e = *e;
    x->rc = rc;
}

struct plan_train_memo {
    struct plan_train_key key;
    struct plan_train_val val;
};

int gp_plan_memo_train_get (const struct plan_memo *m,
                            const struct plan_train_key *key,
                            struct plan_train_val *val)
{
    if (!m)
        return -1;
    for (size_t i = 0; i < m->n_train; i++)
        if (memcmp (&m->train[i].key, key, sizeof *key) == 0) {
            *val = m->train[i].val;
            ((struct plan_memo *)m)->hits++;
            return 0;
        }
    return -1;
}

void gp_plan_memo_train_put (struct plan_memo *m,
                             const struct plan_train_key *key,
                             const struct plan_train_val *val)
{
    if (!m)
        return;
    m->misses++;
    size_t n = m->n_train;
    if (n == 0 || (n >= 8 && (n & (n - 1)) == 0)) {
        void *p = realloc (m->train, (n ? 2 * n : 8) * sizeof *m->train);
        if (!p)
            return;
        m->train = p;
    }
    m->train[n].key = *key;
    m->train[n].val = *val;
    m->n_train = n + 1;
}

void gp_plan_memo_fini (struct plan_memo *m)
{
    if (!m)
        return;
    free (m->serve);
    free (m->train);
    memset (m, 0, sizeof *m);
}
