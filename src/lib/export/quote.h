/* quote.h - the one place where export targets turn spec strings into
 * text: YAML through libyaml's emitter, and one quoting or escaping
 * function per other target (shell, PromQL, comments), plus the name
 * rules of each target (docs/formats/export.md, "Names and quoting").
 *
 * Every target writes user-supplied strings only through these functions:
 * names are validated first (a clear error naming the spec field instead
 * of mangling), and anything that is not a validated name is quoted by the
 * rules of the file it lands in.
 */
#ifndef GPUPLAN_EXPORT_QUOTE_H
#define GPUPLAN_EXPORT_QUOTE_H

#include <stddef.h>
#include <yaml.h>

#include "export_private.h"

/* ============================== names ================================== */

/* 1 when 's' is a Kubernetes DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?,
 * at most 63 characters (Namespace, ClusterQueue, Queue names, label
 * values).
 */
int gp__name_dns1123_label (const char *s);

/* 1 when 's' is a DNS-1123 subdomain: dot-separated lowercase labels of
 * [a-z0-9-], each starting and ending alphanumeric, at most 253 in all
 * (most Kubernetes object names, e.g. ResourceFlavor, Topology).
 */
int gp__name_dns1123_subdomain (const char *s);

/* 1 when 's' is a name Slurm keeps as written in every place gpuplan
 * uses it (ClusterName, node name prefix, partition, account, QOS):
 * [a-z][a-z0-9_-]*, at most 63 characters.  Slurm lowercases cluster,
 * account and QOS names, so capitals would not round-trip; a leading
 * letter keeps names from reading as options ('-a') or numbers.
 */
int gp__name_slurm (const char *s);

/* ============================== YAML =================================== */

/* A YAML stream written by libyaml's emitter into a struct sb.  Calls
 * after an error are no-ops; gp__y_close() reports it.
 */
struct gp__yaml {
    yaml_emitter_t em;
    struct sb *out;
    int err;  /* an emitter or allocation error happened */
    int open; /* emitter initialised */
};

/* Start a stream into 'out' (which may already hold a comment header).
 * Returns 0 or -1.
 */
int gp__y_open (struct gp__yaml *y, struct sb *out);
/* End the stream, flush, free the emitter.  Returns 0, or -1 if any call
 * failed (out->oom is then set).
 */
int gp__y_close (struct gp__yaml *y);

void gp__y_doc_start (struct gp__yaml *y); /* "---" */
void gp__y_doc_end (struct gp__yaml *y);
void gp__y_map (struct gp__yaml *y);       /* block mapping */
void gp__y_map_end (struct gp__yaml *y);
void gp__y_seq (struct gp__yaml *y);       /* block sequence */
void gp__y_seq_flow (struct gp__yaml *y);  /* [a, b] */
void gp__y_seq_end (struct gp__yaml *y);

/* A string scalar: plain when that reads back as the same string, else
 * double-quoted (numbers, booleans, null words, leading indicators,
 * control characters, ...).  NULL is written as "".
 */
void gp__y_str (struct gp__yaml *y, const char *s);
/* A string scalar always double-quoted (e.g. weights kept as strings). */
void gp__y_qstr (struct gp__yaml *y, const char *s);
/* A multi-line string as a literal block scalar ("|"), e.g. a YAML file
 * held in a ConfigMap key; libyaml falls back to double quotes when the
 * text cannot be a block scalar (trailing spaces, control characters), so
 * it always reads back as 's'.
 */
void gp__y_block (struct gp__yaml *y, const char *s);
void gp__y_int (struct gp__yaml *y, long long v);
/* A number in the shortest %.*g form that reads back as 'v'. */
void gp__y_num (struct gp__yaml *y, double v);
void gp__y_bool (struct gp__yaml *y, int v);

/* Key-value shorthands inside a mapping. */
void gp__y_kstr (struct gp__yaml *y, const char *k, const char *v);
void gp__y_kint (struct gp__yaml *y, const char *k, long long v);
void gp__y_knum (struct gp__yaml *y, const char *k, double v);
void gp__y_kbool (struct gp__yaml *y, const char *k, int v);
/* A key whose value (a mapping or sequence) follows. */
void gp__y_key (struct gp__yaml *y, const char *k);

/* =========================== other targets ============================= */

/* Append 's' as one POSIX shell word in single quotes ('\'' for each
 * quote), safe for any bytes except NUL.
 */
void gp__sh_quote (struct sb *b, const char *s);

/* Append 's' as a PromQL double-quoted string literal (backslash, quote,
 * newline, carriage return and tab escaped; other control bytes as \xNN).
 */
void gp__promql_str (struct sb *b, const char *s);

/* Append 's' as a PromQL double-quoted string for a regex matcher (=~):
 * RE2 metacharacters escaped so that it matches 's' literally, then the
 * string-literal escapes of gp__promql_str().
 */
void gp__promql_re (struct sb *b, const char *s);

/* Append 's' for a '#' comment line of any target: control bytes
 * (newline included) become '?', so a comment cannot end early.
 */
void gp__comment_text (struct sb *b, const char *s);

#endif
