/* fuzz_util.c - helpers shared by the fuzz harnesses (fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char tmp_path[256];

static void rm_tmp (void)
{
    if (tmp_path[0])
        unlink (tmp_path);
}

const char *fz_tmpfile (const uint8_t *data, size_t size, const char *suffix)
{
    if (!tmp_path[0]) {
        const char *dir = getenv ("TMPDIR");
        snprintf (tmp_path, sizeof tmp_path, "%s/gpuplan-fuzz-%ld%s",
                  dir && *dir ? dir : "/tmp", (long)getpid (), suffix);
        atexit (rm_tmp);
    }
    FILE *f = fopen (tmp_path, "wb");
    if (!f)
        return NULL;
    if (size && fwrite (data, 1, size, f) != size) {
        fclose (f);
        return NULL;
    }
    if (fclose (f) != 0)
        return NULL;
    return tmp_path;
}
