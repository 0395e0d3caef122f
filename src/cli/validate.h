/* validate.h - the 'validate' subcommand's per-domain entry points. */
#ifndef GPUPLAN_VALIDATE_H
#define GPUPLAN_VALIDATE_H

int gp_validate_inference_cli (int argc, char **argv);

#endif
