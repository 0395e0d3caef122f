/* fuzz.h - what the fuzz harnesses share: the libFuzzer entry points, the
 * repository root (for the catalog overrides and trace side tables), and
 * a helper that writes an input to a private temporary file for the
 * library calls that read a path.
 */
#ifndef GPUPLAN_FUZZ_H
#define GPUPLAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifndef GP_SOURCE_DIR
#define GP_SOURCE_DIR "."
#endif

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* Write 'size' bytes to a file private to this process (same path on
 * every call, ending in 'suffix'); returns its path or NULL.
 */
const char *fz_tmpfile (const uint8_t *data, size_t size,
                        const char *suffix);

#endif
