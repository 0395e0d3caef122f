/* gpuplan/spec.h - YAML (or JSON) documents with positions, and strict
 * table-driven unpacking of them into typed structs.
 *
 * libyaml parses the text; the document becomes a jansson tree in which
 * every node remembers the line and column where it started, so that any
 * later check can say "plan.yaml:12:5: unknown key 'gpu_typ'".  JSON is a
 * subset of YAML 1.2 and loads through the same path.
 *
 * Scalars follow the YAML 1.2 core schema: null/~, true/false, integers and
 * floats are typed when plain (unquoted); everything else is a string.
 * Anchors, aliases, tags other than the core ones and multi-document
 * streams are rejected with a clear message.  Duplicate keys are errors.
 */
#ifndef GPUPLAN_SPEC_H
#define GPUPLAN_SPEC_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/units.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t; /* jansson node (typedef struct json_t json_t) */
struct gp_doc;

/* Parse 'len' bytes of YAML at 'text'; 'name' names it in messages.
 * Returns a document the caller must free with gp_doc_destroy(), or NULL
 * with 'err' set ("name:LINE:COL: message", GP_EPARSE).
 */
struct gp_doc *gp_doc_parse (const char *text,
                             size_t len,
                             const char *name,
                             gp_error_t *err);

/* Read and parse the file at 'path', named by 'path' in messages.
 * Returns a document the caller frees with gp_doc_destroy(), or NULL with
 * 'err' set (GP_EIO when unreadable, GP_EPARSE as gp_doc_parse()).
 */
struct gp_doc *gp_doc_load (const char *path, gp_error_t *err);

/* Free 'doc' and every node of it; NULL is a no-op. */
void gp_doc_destroy (struct gp_doc *doc);

/* The root node (borrowed; lives as long as 'doc'). */
struct json_t *gp_doc_root (const struct gp_doc *doc);

/* The document's name as given at parse time (borrowed; lives as long as
 * 'doc').
 */
const char *gp_doc_name (const struct gp_doc *doc);

/* Position of 'node' of 'doc' in its text (1-based) into '*line' and
 * '*col'; 0/0 when 'node' is not one of the document's nodes.
 */
void gp_doc_pos (const struct gp_doc *doc,
                 const struct json_t *node,
                 int *line,
                 int *col);

/* Format "name:LINE:COL: <message>" about 'node' ("name: <message>" when
 * 'node' has no position) into 'err' (which may be NULL) and return
 * 'code', so that callers can write
 * 'return gp_doc_errorf (...)'.
 */
int gp_doc_errorf (const struct gp_doc *doc,
                   const struct json_t *node,
                   gp_error_t *err,
                   int code,
                   const char *fmt,
                   ...) __attribute__ ((format (printf, 5, 6)));

/* ----------------------- strict table unpacking ----------------------- */

enum gp_field_type {
    GP_F_STRING,   /* char[size] at offset; copied, must fit */
    GP_F_INT,      /* int; integer node (or integral number) */
    GP_F_DOUBLE,   /* double; number node */
    GP_F_BOOL,     /* int 0/1; boolean node */
    GP_F_QUANTITY, /* double in canonical unit; string with unit or number */
    GP_F_ENUM,     /* int index into 'choices' (NULL-terminated) */
    GP_F_NODE,     /* struct json_t * borrowed; any type (caller checks) */
};

enum gp_field_flags_b {
    GP_F_REQUIRED = 1,
};

struct gp_field {
    const char *key;
    enum gp_field_type type;
    size_t offset;                /* offsetof in the target struct */
    size_t size;                  /* GP_F_STRING: buffer size */
    unsigned flags;               /* enum gp_field_flags_b */
    enum gp_quantity quantity;    /* GP_F_QUANTITY */
    const char *const *choices;   /* GP_F_ENUM */
    double min, max;              /* numeric range, checked when min < max */
};

/* Unpack mapping 'obj' into 'out' using the NULL-key-terminated 'fields'.
 * Every key of 'obj' must appear in 'fields' (unknown keys are errors with
 * the closest valid key suggested); required fields must be present; types,
 * enums, units and ranges are checked.  'what' names the object in messages
 * ("pools[2]").  Fields absent from 'obj' are left untouched, so callers set
 * defaults first.  Returns 0 or a negative gp_err with 'err' positioned.
 */
int gp_doc_unpack (const struct gp_doc *doc,
                   const struct json_t *obj,
                   const char *what,
                   const struct gp_field *fields,
                   void *out,
                   gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_SPEC_H */
