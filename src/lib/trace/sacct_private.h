/* sacct_private.h - Slurm sacct rules shared by the trace reader
 * (fmt_sacct.c) and the usage reader (src/lib/usage/sacct.c), so that both
 * read a job id and its GPUs the same way.  Internal to the library.
 */
#ifndef GPUPLAN_SACCT_PRIVATE_H
#define GPUPLAN_SACCT_PRIVATE_H

#include <stdint.h>

/* The job id of a sacct row from its JobID and, when the column exists,
 * JobIDRaw ('raw' may be NULL): JobIDRaw when it is a number (each array
 * task has its own), else JobID "123", or "123_7" / "123+1" (array task,
 * heterogeneous component) as 123 * 2^32 + 7, distinct from every plain
 * Slurm id (< 2^32).  Returns 0 with '*id', 1 for a row that is not a
 * job that ran (a step "123.batch", a pending array "123_[1-5%2]"), -1
 * when malformed.
 */
int gp__sacct_job_id (const char *jobid, const char *raw, int64_t *id);

#endif
