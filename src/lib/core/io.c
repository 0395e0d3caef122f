/* io.c - output files written atomically (io.h): temporary file or
 * directory next to the target, every write checked, fsync, rename; on a
 * failure the temporary is removed and the target is left as it was.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/io.h"

static int fail (gp_error_t *err, const char *path, const char *what)
{
    return gp_errprintf (err, GP_EWRITE, "%s: %s%s%s", path, what,
                         *what ? ": " : "", strerror (errno));
}

/* The directory part of 'path' into 'out' ("." when none). */
static int dir_of (const char *path, char *out, size_t n)
{
    const char *slash = strrchr (path, '/');
    if (!slash)
        return snprintf (out, n, ".") >= (int)n ? -1 : 0;
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= n)
        return -1;
    memmove (out, path, len);
    out[len] = '\0';
    return 0;
}

int gp_mkdirs (const char *path, gp_error_t *err)
{
    char buf[PATH_MAX];
    if (!path || !*path)
        return gp_errprintf (err, GP_EINVAL, "empty directory name");
    if (snprintf (buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return gp_errprintf (err, GP_EWRITE, "%.60s...: path too long",
                             path);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = '\0';
        struct stat st;
        if (mkdir (buf, 0777) != 0 && errno != EEXIST)
            return fail (err, buf, "cannot create directory");
        if (stat (buf, &st) != 0 || !S_ISDIR (st.st_mode)) {
            errno = ENOTDIR;
            return fail (err, buf, "cannot create directory");
        }
        if (!c)
            return 0;
        *p = c;
    }
}

/* Write all 'n' bytes to 'fd'; 0 or -1 with errno. */
static int write_all (int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write (fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Write, fsync and close a new file 'path' (O_EXCL) of mode 'mode' (0:
 * 0666 less the umask); 0 or -1 with errno (the file then removed).
 */
static int write_new (const char *path, const void *data, size_t n,
                      mode_t mode)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    int rc = (mode == 0 || fchmod (fd, mode) == 0)
                     && write_all (fd, data, n) == 0 && fsync (fd) == 0
                 ? 0
                 : -1;
    int e = errno;
    if (close (fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink (path);
        errno = e;
    }
    return rc;
}

/* Best-effort fsync of directory 'dir' so that a rename in it lasts. */
static void sync_dir (const char *dir)
{
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync (fd);
        close (fd);
    }
}

/* 'path' is not a regular file: write to it in place. */
static int write_special (const char *path, const void *data, size_t n,
                          gp_error_t *err)
{
    int fd = open (path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fail (err, path, "cannot open");
    if (write_all (fd, data, n) != 0) {
        int e = errno;
        close (fd);
        errno = e;
        return fail (err, path, "write failed");
    }
    if (close (fd) != 0)
        return fail (err, path, "write failed");
    return 0;
}

int gp_write_file_atomic (const char *path, const void *data, size_t n,
                          gp_error_t *err)
{
    if (!path || !*path)
        return gp_errprintf (err, GP_EINVAL, "empty output file name");
    char real[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 32];
    struct stat st;
    mode_t mode = 0;
    if (stat (path, &st) == 0) {
        if (S_ISDIR (st.st_mode)) {
            errno = EISDIR;
            return fail (err, path, "cannot write");
        }
        if (!S_ISREG (st.st_mode))
            return write_special (path, data, n, err);
        mode = st.st_mode & 07777;
        if (realpath (path, real)) /* write through a symbolic link */
            path = real;
    }
    if (dir_of (path, dir, sizeof dir) != 0)
        return gp_errprintf (err, GP_EWRITE, "%.60s...: path too long",
                             path);
    if (gp_mkdirs (dir, err) != 0)
        return GP_EWRITE;
    const char *base = strrchr (path, '/') ? strrchr (path, '/') + 1 : path;
    for (unsigned k = 0;; k++) {
        snprintf (tmp, sizeof tmp, "%s/.%.200s.tmp-%ld-%u", dir, base,
                  (long)getpid (), k);
        if (write_new (tmp, data, n, mode) == 0)
            break;
        if (errno != EEXIST || k > 100)
            return fail (err, path, "write failed");
    }
    if (rename (tmp, path) != 0) {
        int e = errno;
        unlink (tmp);
        errno = e;
        return fail (err, path, "cannot replace");
    }
    sync_dir (dir);
    return 0;
}

/* ------------------------------ file sets ------------------------------ */

/* The length of the folder part of 'name' ("SUB/NAME": 3), 0 for a
 * plain name.
 */
static size_t sub_len (const char *name)
{
    const char *slash = strchr (name, '/');
    return slash ? (size_t)(slash - name) : 0;
}

/* 'sub': names may be "SUB/NAME", one folder level, each part plain. */
static int check_names (const struct gp_out_file *f, size_t n, int sub,
                        gp_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = f[i].name;
        const char *base = s && sub && sub_len (s) ? s + sub_len (s) + 1 : s;
        if (!s || !*s || *s == '.' || strchr (base, '/') || !*base
            || *base == '.' || strlen (s) > 200)
            return gp_errprintf (err, GP_EINVAL,
                                 "output file name '%.60s' is not a plain "
                                 "name", s ? s : "");
        for (size_t j = 0; j < i; j++)
            if (!strcmp (f[j].name, s))
                return gp_errprintf (err, GP_EINVAL,
                                     "output file '%s' given twice", s);
    }
    return 0;
}

/* Remove the temporary directory 'tmp' and the first 'n' files of the
 * set in it, and their backups.
 */
static void remove_tmp (const char *tmp, const struct gp_out_file *f,
                        size_t n)
{
    char p[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        snprintf (p, sizeof p, "%s/%s", tmp, f[i].name);
        unlink (p);
        snprintf (p, sizeof p, "%s/.old-%zu", tmp, i);
        unlink (p);
    }
    for (size_t i = 0; i < n; i++)
        if (sub_len (f[i].name)) {
            snprintf (p, sizeof p, "%s/%.*s", tmp, (int)sub_len (f[i].name),
                      f[i].name);
            rmdir (p);
        }
    rmdir (tmp);
}

/* Write every file of the set into the new directory 'tmp'. */
static int fill_tmp (const char *tmp, const struct gp_out_file *f, size_t n,
                     gp_error_t *err)
{
    char p[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        if (sub_len (f[i].name)) { /* its folder, once */
            snprintf (p, sizeof p, "%s/%.*s", tmp, (int)sub_len (f[i].name),
                      f[i].name);
            if (mkdir (p, 0777) != 0 && errno != EEXIST) {
                fail (err, p, "cannot create");
                remove_tmp (tmp, f, i);
                return GP_EWRITE;
            }
        }
        snprintf (p, sizeof p, "%s/%s", tmp, f[i].name);
        if (write_new (p, f[i].data, f[i].n, 0) != 0) {
            fail (err, p, "write failed");
            remove_tmp (tmp, f, i + 1); /* and the folder of file i */
            return GP_EWRITE;
        }
    }
    sync_dir (tmp);
    return 0;
}

/* Move the files from 'tmp' into the existing 'dir', keeping hard links to
 * the old ones until every rename succeeded; on a failure put them back.
 */
static int commit_merge (const char *dir, const char *tmp,
                         const struct gp_out_file *f, size_t n,
                         gp_error_t *err)
{
    char from[PATH_MAX], to[PATH_MAX], old[PATH_MAX];
    unsigned char *had = calloc (n ? n : 1, 1);
    if (!had)
        return gp_errprintf (err, GP_ENOMEM, "out of memory");
    size_t i;
    int rc = 0;
    /* the folders of "SUB/NAME" files that 'dir' lacks (removed again
     * on a failure); had[i] bit 2 */
    for (i = 0; rc == 0 && i < n; i++) {
        if (!sub_len (f[i].name))
            continue;
        snprintf (to, sizeof to, "%s/%.*s", dir, (int)sub_len (f[i].name),
                  f[i].name);
        if (mkdir (to, 0777) == 0)
            had[i] |= 2;
        else if (errno != EEXIST)
            rc = fail (err, to, "cannot create");
    }
    for (i = 0; rc == 0 && i < n; i++) { /* keep the old files */
        snprintf (to, sizeof to, "%s/%s", dir, f[i].name);
        snprintf (old, sizeof old, "%s/.old-%zu", tmp, i);
        if (link (to, old) == 0)
            had[i] |= 1;
        else if (errno != ENOENT)
            rc = fail (err, to, "cannot replace");
    }
    for (i = 0; rc == 0 && i < n; i++) {
        snprintf (from, sizeof from, "%s/%s", tmp, f[i].name);
        snprintf (to, sizeof to, "%s/%s", dir, f[i].name);
        if (rename (from, to) != 0)
            rc = fail (err, to, "cannot replace");
    }
    if (rc != 0 && i > 0) /* undo the renames that succeeded */
        for (size_t j = 0; j + 1 < i; j++) {
            snprintf (to, sizeof to, "%s/%s", dir, f[j].name);
            snprintf (old, sizeof old, "%s/.old-%zu", tmp, j);
            if (had[j] & 1)
                rename (old, to);
            else
                unlink (to);
        }
    for (size_t j = 0; rc != 0 && j < n; j++)
        if (had[j] & 2) {
            snprintf (to, sizeof to, "%s/%.*s", dir, (int)sub_len (f[j].name),
                      f[j].name);
            rmdir (to);
        }
    free (had);
    remove_tmp (tmp, f, n);
    sync_dir (dir);
    return rc;
}

static int write_set (const char *dir, const struct gp_out_file *files,
                      size_t n_files, int sub, gp_error_t *err)
{
    if (!dir || !*dir)
        return gp_errprintf (err, GP_EINVAL, "empty output directory name");
    if (check_names (files, n_files, sub, err) != 0)
        return err ? err->code : GP_EINVAL;
    char tmp[PATH_MAX], parent[PATH_MAX];
    struct stat st;
    int exists = stat (dir, &st) == 0;
    if (exists && !S_ISDIR (st.st_mode)) {
        errno = ENOTDIR;
        return fail (err, dir, "cannot write");
    }
    size_t len = strlen (dir);
    while (len > 1 && dir[len - 1] == '/')
        len--; /* "out/" names "out" */
    if (len + 40 >= sizeof tmp)
        return gp_errprintf (err, GP_EWRITE, "%.60s...: path too long", dir);
    if (!exists) {
        snprintf (parent, sizeof parent, "%.*s", (int)len, dir);
        dir_of (parent, parent, sizeof parent); /* fits: shorter */
        if (gp_mkdirs (parent, err) != 0)
            return GP_EWRITE;
    }
    for (unsigned k = 0;; k++) { /* mode 0777 less the umask */
        if (exists)
            snprintf (tmp, sizeof tmp, "%s/.gpuplan-tmp-%ld-%u", dir,
                      (long)getpid (), k);
        else
            snprintf (tmp, sizeof tmp, "%.*s.tmp-%ld-%u", (int)len, dir,
                      (long)getpid (), k);
        if (mkdir (tmp, 0777) == 0)
            break;
        if (errno != EEXIST || k > 100)
            return fail (err, dir, "cannot create a temporary directory");
    }
    if (fill_tmp (tmp, files, n_files, err) != 0)
        return GP_EWRITE;
    if (exists)
        return commit_merge (dir, tmp, files, n_files, err);
    snprintf (parent, sizeof parent, "%.*s", (int)len, dir);
    if (rename (tmp, parent) != 0) {
        int e = errno;
        remove_tmp (tmp, files, n_files);
        errno = e;
        return fail (err, dir, "cannot create");
    }
    return 0;
}

int gp_write_dir_atomic (const char *dir, const struct gp_out_file *files,
                         size_t n_files, gp_error_t *err)
{
    return write_set (dir, files, n_files, 0, err);
}

int gp_write_tree_atomic (const char *dir, const struct gp_out_file *files,
                          size_t n_files, gp_error_t *err)
{
    return write_set (dir, files, n_files, 1, err);
}
