/* cli.h - shared pieces of the gpuplan command: the subcommand table,
 * messages on stderr, JSON on stdout, and plain-text tables.
 */
#ifndef GPUPLAN_CLI_H
#define GPUPLAN_CLI_H

#include <jansson.h>
#include <stddef.h>

#include "gpuplan/gpuplan.h"

/* Exit codes (docs/cli.md). */
enum {
    EXIT_OK = 0,
    EXIT_INFEASIBLE = 1,
    EXIT_USAGE = 2,
    EXIT_INTERNAL = 3,
};

struct cli_cmd {
    const char *name;
    int (*run) (int argc, char **argv);
    const char *summary; /* one line for 'gpuplan --help' */
    const char *help;    /* man-style page for 'gpuplan help NAME' */
};

/* One entry point and help page per subcommand (cmd_<name>.c). */
#define GP_CMD(n, s)                                                          \
    int cmd_##n (int argc, char **argv);                                      \
    extern const char cmd_##n##_help[];
#include "cmds.def"
#undef GP_CMD

/* All subcommands, NULL-name terminated (main.c). */
extern const struct cli_cmd cli_cmds[];

/* "gpuplan: error: ..." on stderr; returns EXIT_USAGE. */
int cli_usage_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Print 'err' as "gpuplan: error: <text>" and return the exit status that
 * err->code maps to.
 */
int cli_fail (const gp_error_t *err);

/* A progress bar on stderr for 'frac' (0..1) done; 'arg' unused. */
void cli_progress (double frac, void *arg);

/* "gpuplan: warning: ..." on stderr. */
void cli_warn (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Print the help page of 'name' to stdout; returns EXIT_OK, or EXIT_USAGE
 * for an unknown name.
 */
int cli_help (const char *name);

/* Write 'root' (stolen) to stdout as indented JSON plus a newline. */
int cli_print_json (json_t *root);

/* Print and free 'text' from a library renderer; NULL (the renderer
 * failed, 'err' says why) prints the error.  Returns the exit status.
 */
int cli_print_text (char *text, const gp_error_t *err);

/* JSON number, or null when 'v' is 0 / unknown. */
json_t *cli_json_known (double v);

/* Fill 'd' with the registry's defaults and apply every '--set KEY=VALUE'
 * (or '--set=KEY=VALUE') in argv, before the other flags are read, so that
 * an explicit flag wins over --set whatever their order.  Returns EXIT_OK,
 * or EXIT_USAGE after printing "CMD: --set: <why>".
 */
int cli_scan_set (const char *cmd, int argc, char **argv,
                  struct gp_defaults *d);

struct option;
/* Check argv's long options against 'opts' before getopt_long (and reset
 * getopt): every name exact (no abbreviations; an unknown one fails with
 * the closest name), a value where the option needs one and none where it
 * takes none, a warning for an option given twice (--set excepted), and an
 * error when both options of a pair in 'conflicts' are given ({"a", "b",
 * ..., NULL}: pairs of names without "--"; NULL = none).  Returns EXIT_OK,
 * or EXIT_USAGE after printing "CMD: <why>".
 */
int cli_opts_begin (const char *cmd, int argc, char **argv,
                    const struct option *opts, const char *const *conflicts);

/* Print an aligned text table (report.h) to stdout and free it. */
void cli_table_print (struct gp_text_table *t);

#endif
