/* whatif_json.c - the what-if parts of the plan JSON (docs/formats/
 * plan.md): the spec's inputs echoed as "inputs" (what gp_plan_diff
 * compares), and, when no option is recommended, a "recommendation"
 * object with name null that carries the nearest feasible change.
 */
#include <jansson.h>

#include "gpuplan/report.h"
#include "whatif_report.h"

static void set (json_t *o, const char *k, json_t *v)
{
    json_object_set_new (o, k, v ? v : json_null ());
}

static json_t *str_or_null (const char *s)
{
    return s && s[0] ? json_string (s) : json_null ();
}

static json_t *cons_json (const struct gp_plan_constraints *k)
{
    json_t *j = json_object ();
    set (j, "budget_usd", json_real (k->budget_usd));
    set (j, "power_w", json_real (k->power_w));
    set (j, "rack_power_air_w", json_real (k->rack_w_air));
    set (j, "rack_power_liquid_w", json_real (k->rack_w_liquid));
    set (j, "floor_racks", json_integer (k->floor_racks));
    json_t *cl = json_array ();
    for (size_t i = 0; i < k->n_clouds; i++)
        json_array_append_new (cl, json_string (k->clouds[i]));
    set (j, "clouds", cl);
    json_t *t = json_array ();
    if (k->terms & 1)
        json_array_append_new (t, json_string ("1y"));
    if (k->terms & 2)
        json_array_append_new (t, json_string ("3y"));
    set (j, "reservation_terms", t);
    set (j, "min_availability", json_real (k->min_availability));
    return j;
}

static json_t *workload_json (const struct gp_plan_workload *w)
{
    json_t *j = json_object ();
    set (j, "name", json_string (w->name));
    set (j, "kind", json_string (gp_wl_kind_str (w->kind)));
    set (j, "team", str_or_null (w->team));
    set (j, "model", str_or_null (w->model));
    set (j, "precision", str_or_null (w->precision));
    set (j, "tokens", json_real (w->tokens));
    set (j, "deadline_s", json_real (w->deadline_s));
    set (j, "start_month", json_real (w->start_month));
    set (j, "runs_per_month", json_real (w->runs_per_month));
    set (j, "seq_len", json_real (w->seq_len));
    set (j, "global_batch", json_real (w->global_batch));
    set (j, "dataset_bytes", json_real (w->dataset_bytes));
    set (j, "trace", str_or_null (w->trace));
    set (j, "requests_per_s", json_real (w->requests_per_s));
    set (j, "input_tokens", json_real (w->input_tokens));
    set (j, "output_tokens", json_real (w->output_tokens));
    set (j, "growth_per_quarter", json_real (w->growth_per_quarter));
    set (j, "ttft_s", json_real (w->ttft_s));
    set (j, "tpot_s", json_real (w->tpot_s));
    set (j, "allow_spot", json_integer (w->allow_spot));
    set (j, "engine", str_or_null (w->engine));
    return j;
}

static json_t *option_spec_json (const struct gp_plan_option_spec *o)
{
    json_t *j = json_object ();
    set (j, "name", json_string (o->name));
    set (j, "kind", json_string (gp_option_kind_str (o->kind)));
    set (j, "accelerator", str_or_null (o->accel_id));
    set (j, "instance", str_or_null (o->instance));
    set (j, "region", str_or_null (o->region));
    set (j, "gpus_per_node", json_integer (o->gpus_per_node));
    set (j, "gpus", json_integer (o->gpus));
    set (j, "node_power_w", json_real (o->node_w));
    set (j, "node_capex_usd", json_real (o->node_capex));
    set (j, "switch", str_or_null (o->switch_id));
    set (j, "oversubscription", json_real (o->oversub));
    set (j, "nics_per_gpu", json_integer (o->nics_per_gpu));
    set (j, "cooling", json_string (o->liquid ? "liquid" : "air"));
    json_t *p = json_array ();
    for (int k = 0; k < GP_N_PRICING; k++)
        if (o->pricing & (1u << k))
            json_array_append_new (p, json_string (gp_pricing_str (
                                          (enum gp_pricing)k)));
    set (j, "pricing", p);
    set (j, "max_gpus", json_integer (o->max_gpus));
    return j;
}

static json_t *inputs_json (const struct gp_plan_inputs *in)
{
    json_t *j = json_object ();
    set (j, "horizon_years", json_real (in->horizon_years));
    set (j, "policy", json_string (in->policy));
    set (j, "constraints", cons_json (&in->cons));
    json_t *w = json_array ();
    for (size_t i = 0; i < in->n_workloads; i++)
        json_array_append_new (w, workload_json (&in->workloads[i]));
    set (j, "workloads", w);
    json_t *o = json_array ();
    for (size_t i = 0; i < in->n_options; i++)
        json_array_append_new (o, option_spec_json (&in->options[i]));
    set (j, "options", o);
    const struct gp_plan_existing *e = &in->existing;
    if (e->gpus > 0) {
        json_t *x = json_object ();
        set (x, "accelerator", json_string (e->accel_id));
        set (x, "gpus", json_integer (e->gpus));
        set (x, "age_years", json_real (e->age_years));
        set (x, "baseline_gpus", json_integer (e->baseline_gpus));
        set (j, "existing", x);
    } else {
        set (j, "existing", json_null ());
    }
    return j;
}

static json_t *change_json (const struct gp_plan_change *ch)
{
    json_t *j = json_object ();
    set (j, "option", json_string (ch->option_name));
    set (j, "tco_usd", json_real (ch->tco_usd));
    set (j, "gpus", json_integer (ch->gpus));
    json_t *rl = json_array ();
    for (size_t i = 0; i < ch->n_relax; i++) {
        const struct gp_plan_relax *x = &ch->relax[i];
        json_t *o = json_object ();
        set (o, "kind", json_string (gp_plan_change_kind_str (x->kind)));
        set (o, "key", json_string (x->key));
        if (x->kind == GP_CHANGE_CLOUD) {
            set (o, "cloud", json_string (x->cloud));
        } else {
            set (o, "from", json_real (x->from));
            set (o, "to", json_real (x->to));
        }
        json_array_append_new (rl, o);
    }
    set (j, "changes", rl);
    set (j, "text", json_string (ch->text));
    return j;
}

/* recommendation when nothing is recommended. */
static json_t *no_rec_json (const struct gp_plan_result *r)
{
    json_t *rec = json_object ();
    set (rec, "name", json_null ());
    json_t *why = json_array ();
    if (r->reason[0])
        json_array_append_new (why, json_string (r->reason));
    set (rec, "reasons", why);
    set (rec, "shortfalls", json_array ());
    set (rec, "nearest_without_shortfalls", json_null ());
    set (rec, "nearest_change",
         r->n_changes ? change_json (&r->changes[0]) : json_null ());
    json_t *all = json_array ();
    for (size_t i = 0; i < r->n_changes; i++)
        json_array_append_new (all, change_json (&r->changes[i]));
    set (rec, "nearest_changes", all);
    return rec;
}

void gp__report_whatif_json (json_t *root, const struct gp_plan_result *r)
{
    if (!root || !r)
        return;
    if (r->inputs.set)
        set (root, "inputs", inputs_json (&r->inputs));
    if (r->recommended < 0)
        set (root, "recommendation", no_rec_json (r));
}
