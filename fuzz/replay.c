/* replay.c - runs a fuzz harness over saved inputs without libFuzzer, so
 * the corpora replay with any compiler (and under ASan+UBSan in the
 * sanitizer build).  Arguments: files or directories (their regular files,
 * in name order, dot files skipped).  Exit 0 when every input ran.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz.h"

int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

static int run_file (const char *path)
{
    FILE *f = fopen (path, "rb");
    if (!f) {
        fprintf (stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc (cap);
    size_t got;
    while (buf && (got = fread (buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *nb = realloc (buf, cap *= 2);
            if (!nb) {
                free (buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose (f);
    if (!buf) {
        fprintf (stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    /* An exact-size copy so that reads past the end are caught. */
    unsigned char *in = malloc (n ? n : 1);
    if (!in) {
        free (buf);
        return 1;
    }
    memcpy (in, buf, n);
    free (buf);
    LLVMFuzzerTestOneInput (in, n);
    free (in);
    return 0;
}

static int cmp (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

static int run_dir (const char *dir, size_t *count)
{
    DIR *d = opendir (dir);
    if (!d) {
        fprintf (stderr, "replay: cannot open directory %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir (d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **nn = realloc (names, (cap = cap ? 2 * cap : 64)
                                            * sizeof *nn);
            if (!nn) {
                rc = 1;
                break;
            }
            names = nn;
        }
        size_t len = strlen (dir) + strlen (e->d_name) + 2;
        if (!(names[n] = malloc (len))) {
            rc = 1;
            break;
        }
        snprintf (names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir (d);
    if (n)
        qsort (names, n, sizeof *names, cmp);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!rc && stat (names[i], &st) == 0 && S_ISREG (st.st_mode)) {
            rc = run_file (names[i]);
            ++*count;
        }
        free (names[i]);
    }
    free (names);
    return rc;
}

int main (int argc, char **argv)
{
    if (argc < 2) {
        fprintf (stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize && LLVMFuzzerInitialize (&argc, &argv) != 0) {
        fprintf (stderr, "replay: harness initialisation failed\n");
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    size_t count = 0;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        struct stat st;
        if (stat (argv[i], &st) != 0) {
            fprintf (stderr, "replay: %s does not exist\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR (st.st_mode)) {
            rc = run_dir (argv[i], &count);
        } else {
            rc = run_file (argv[i]);
            count++;
        }
    }
    clock_gettime (CLOCK_MONOTONIC, &t1);
    fprintf (stderr, "replay: %zu inputs in %.2f s\n", count,
             (double)(t1.tv_sec - t0.tv_sec)
                 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return rc;
}
