/* validate.h - the 'validate' subcommand's per-domain entry points. */
#ifndef GPUPLAN_CLI_VALIDATE_H
#define GPUPLAN_CLI_VALIDATE_H

/* 'validate inference ...' with argv[0] = "inference"; returns the exit
 * status.
 */
int cmd_validate_inference (int argc, char **argv);

struct gp_val_summary;
struct gp_val_family_fit;

/* One row of the fitting table of both validations: the family's
 * in-sample and (when known) leave-one-source-out medians and gap, with
 * 'alone' printed when the family had nothing to be held out against.
 * The caller prints the name and counts before it.
 */
void cli_fit_cells (const struct gp_val_summary *s,
                    const struct gp_val_family_fit *ff, const char *alone);

#endif
