/* usage_json.c - the JSON document of 'gpuplan usage' (schema:
 * docs/formats/usage.md).  Unknown figures (a cost without a rate, the
 * utilization of an input that has none) are null, never 0.
 */
#include <jansson.h>
#include <stdio.h>

#include "gpuplan/usage.h"

static json_t *num_or_null (double v)
{
    return v >= 0 ? json_real (v) : json_null ();
}

/* "YYYY-MM-DDTHH:MM:SS" of seconds since 1970 (H. Hinnant's
 * civil_from_days), in the input's own clock.
 */
static json_t *iso (double secs)
{
    long long s = (long long)secs;
    long long z = (s >= 0 ? s : s - 86399) / 86400;
    long long sod = s - z * 86400;
    z += 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    long long y = yoe + era * 400 + (m <= 2);
    char b[40];
    snprintf (b, sizeof b, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", y, m,
              d, sod / 3600, sod / 60 % 60, sod % 60);
    return json_string (b);
}

static json_t *by_name (const struct gp_usage_pool *p, size_t n)
{
    json_t *o = json_object ();
    for (size_t i = 0; i < n; i++)
        json_object_set_new (o, p[i].pool, json_real (p[i].gpu_hours));
    return o;
}

static json_t *team_json (const struct gp_usage *u, size_t i)
{
    const struct gp_usage_team *t = &u->teams[i];
    json_t *o = json_object ();
    json_object_set_new (o, "team", json_string (t->team));
    json_object_set_new (o, "gpu_hours", json_real (t->gpu_hours));
    json_object_set_new (o, "gpu_hours_by_pool", by_name (t->pools,
                                                          t->n_pools));
    if (u->format == GP_USAGE_SACCT)
        json_object_set_new (o, "gpu_hours_by_qos", by_name (t->qos,
                                                             t->n_qos));
    json_object_set_new (o, "mean_gpus",
                         json_real (gp_usage_team_mean_gpus (u, i)));
    json_object_set_new (o, "cost_usd", num_or_null (t->cost_usd));
    json_object_set_new (o, "unpriced_gpu_hours",
                         json_real (t->unpriced_gpu_hours));
    json_object_set_new (o, "utilization", num_or_null (t->utilization));
    json_object_set_new (o, "items", json_integer ((json_int_t)t->n_items));
    return o;
}

json_t *gp_report_usage_json (const struct gp_usage *u)
{
    if (!u)
        return NULL;
    json_t *o = json_object ();
    json_object_set_new (o, "format",
                         json_string (gp_usage_format_str (u->format)));
    json_object_set_new (o, "input", json_string (u->input));
    json_t *p = json_object ();
    json_object_set_new (p, "start", iso (u->start_s));
    json_object_set_new (p, "end", iso (u->end_s));
    json_object_set_new (p, "hours", json_real ((u->end_s - u->start_s)
                                                / 3600));
    json_object_set_new (o, "period", p);
    json_object_set_new (o, "gpu_hours", json_real (u->gpu_hours));
    json_object_set_new (o, "cost_usd", num_or_null (u->cost_usd));
    json_t *rates = json_array ();
    for (size_t i = 0; i < u->n_rates; i++) {
        const struct gp_usage_rate *r = &u->rates[i];
        json_t *x = json_object ();
        json_object_set_new (x, "pool", json_string (r->pool));
        json_object_set_new (x, "usd_per_gpu_hour",
                             num_or_null (r->usd_per_gpu_hour));
        json_object_set_new (x, "basis", json_string (r->basis));
        json_object_set_new (x, "source", json_string (r->source));
        json_array_append_new (rates, x);
    }
    json_object_set_new (o, "rates", rates);
    json_t *teams = json_array ();
    for (size_t i = 0; i < u->n_teams; i++)
        json_array_append_new (teams, team_json (u, i));
    json_object_set_new (o, "teams", teams);
    json_t *c = json_object ();
    json_object_set_new (c, "counted", json_integer ((json_int_t)u->n_counted));
    json_object_set_new (c, "running", json_integer ((json_int_t)u->n_running));
    json_object_set_new (c, "pending", json_integer ((json_int_t)u->n_pending));
    json_object_set_new (c, "no_gpu", json_integer ((json_int_t)u->n_no_gpu));
    json_object_set_new (o, "counts", c);
    if (u->format == GP_USAGE_PROMETHEUS) {
        json_object_set_new (o, "step_s", json_real (u->step_s));
        json_object_set_new (o, "idle_gpu_hours",
                             json_real (u->idle_gpu_hours));
    }
    return o;
}
