/* names.c - "did you mean": the closest names to a misspelt one, shared
 * by every lookup that reports an unknown name (catalog ids, zoo models,
 * spec keys, registry keys, commands).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/names.h"

static size_t edit_distance (const char *a, const char *b)
{
    size_t la = strlen (a), lb = strlen (b);
    if (la > 63 || lb > 63)
        return la > lb ? la : lb;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = tolower ((unsigned char)a[i - 1])
                                  == tolower ((unsigned char)b[j - 1])
                              ? 0
                              : 1;
            size_t best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            cur[j] = best;
        }
        memcpy (prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

static int contains_ci (const char *hay, const char *needle)
{
    size_t n = strlen (needle);
    if (n == 0)
        return 0;
    for (; *hay; hay++)
        if (strncasecmp (hay, needle, n) == 0)
            return 1;
    return 0;
}

size_t gp_closest_names (const char *name,
                         const char *const *ids,
                         size_t n_ids,
                         size_t max,
                         char *out,
                         size_t out_size)
{
    if (out_size)
        out[0] = '\0';
    if (!name || !ids || !out || out_size == 0 || max == 0)
        return 0;
    /* Score: substring matches first (shorter first), then edit distance
     * within half the name's length.  Ties keep catalog order.
     */
    size_t best_idx[8];
    size_t best_score[8];
    size_t nb = 0;
    if (max > 8)
        max = 8;
    size_t limit = strlen (name) / 2 + 2;
    for (size_t i = 0; i < n_ids; i++) {
        size_t score;
        if (contains_ci (ids[i], name) || contains_ci (name, ids[i]))
            score = strlen (ids[i]) > strlen (name)
                        ? strlen (ids[i]) - strlen (name)
                        : strlen (name) - strlen (ids[i]);
        else {
            size_t d = edit_distance (name, ids[i]);
            if (d > limit)
                continue;
            score = 100 + d;
        }
        size_t pos = nb;
        while (pos > 0 && best_score[pos - 1] > score)
            pos--;
        if (pos >= max)
            continue;
        size_t last = nb < max ? nb : max - 1;
        for (size_t k = last; k > pos; k--) {
            best_idx[k] = best_idx[k - 1];
            best_score[k] = best_score[k - 1];
        }
        best_idx[pos] = i;
        best_score[pos] = score;
        if (nb < max)
            nb++;
    }
    size_t used = 0;
    for (size_t k = 0; k < nb; k++) {
        int w = snprintf (out + used, out_size - used, "%s%s", k ? ", " : "",
                          ids[best_idx[k]]);
        if (w < 0 || (size_t)w >= out_size - used)
            break;
        used += (size_t)w;
    }
    return nb;
}
