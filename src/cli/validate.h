/* validate.h - the 'validate' subcommand's per-domain entry points. */
#ifndef GPUPLAN_CLI_VALIDATE_H
#define GPUPLAN_CLI_VALIDATE_H

/* 'validate inference ...' with argv[0] = "inference"; returns the exit
 * status.
 */
int cmd_validate_inference (int argc, char **argv);

#endif
