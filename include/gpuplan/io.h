/* gpuplan/io.h - output files written atomically.
 *
 * A reader of an output path sees the old contents or the complete new
 * contents, never a mix: data goes to a temporary file in the target's
 * directory, is flushed to disk (fsync) and renamed over the target.  Every
 * write, flush and close is checked; on a failure the temporary file is
 * removed and the old file is left as it was.  Failures return GP_EWRITE
 * (exit status 3) with a message naming the path and the system's reason.
 */
#ifndef GPUPLAN_IO_H
#define GPUPLAN_IO_H

#include <stddef.h>

#include "gpuplan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create directory 'path' and its missing parents (mode 0777 less the
 * umask); an existing directory is fine.  Returns 0, or GP_EWRITE when a
 * component exists and is not a directory or cannot be created.
 */
int gp_mkdirs (const char *path, gp_error_t *err);

/* Replace the file 'path' with the 'n' bytes at 'data', atomically: the
 * parent directories are created, the bytes are written to a temporary
 * file next to 'path' (mode 0666 less the umask, or the old file's mode),
 * fsync'ed, closed and renamed over 'path'; a symbolic link is followed.
 * When 'path' names something other than a regular file or a link to one
 * (a terminal, a pipe, /dev/null, /dev/full), the bytes are written to it
 * directly, every write checked.  Returns 0, or GP_EWRITE naming 'path'
 * (nothing left behind, the old file untouched), GP_EINVAL for an empty
 * path.
 */
int gp_write_file_atomic (const char *path, const void *data, size_t n,
                          gp_error_t *err);

/* One file of an output set: a plain name (no '/', not starting with
 * '.') and its bytes.  Borrowed.
 */
struct gp_out_file {
    const char *name;
    const void *data;
    size_t n;
};

/* Write the set 'files[0..n_files)' into directory 'dir', all or nothing.
 *   - 'dir' missing: its parents are created, the files are written into
 *     a temporary directory next to it, and that directory is renamed to
 *     'dir' (one atomic step).
 *   - 'dir' exists: the files are written (and fsync'ed) into a temporary
 *     directory inside 'dir', then each is renamed over its name in 'dir'.
 *     Files of 'dir' that are not in the set are kept (merge).  If a
 *     rename fails, the files already replaced get their old contents back
 *     (kept as hard links until the end), so 'dir' holds the old set or
 *     the new one, never a mix.
 * Returns 0, GP_EINVAL for a bad or repeated name, or GP_EWRITE naming
 * the path that failed (temporary files removed, 'dir' as it was).
 */
int gp_write_dir_atomic (const char *dir, const struct gp_out_file *files,
                         size_t n_files, gp_error_t *err);

/* gp_write_dir_atomic() for a set with one level of folders: a name may
 * be "SUB/NAME" (both parts plain names), and SUB is created inside
 * 'dir' with its files, in the same all-or-nothing step (a folder the
 * step created is removed again when it fails).  Returns as
 * gp_write_dir_atomic().
 */
int gp_write_tree_atomic (const char *dir, const struct gp_out_file *files,
                          size_t n_files, gp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_IO_H */
