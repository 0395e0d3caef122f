/* fuzz_cli.c - the command-line flag parser: the input is the argument
 * list (NUL-separated) of one `gpuplan` run, executed in-process through
 * the command's main() (the CLI sources are compiled with main renamed to
 * gp__cli_main for this harness).
 *
 * Runs happen in a private sandbox directory holding copies of the
 * examples, the CLI test specs, the scheduling scenarios and the small
 * traces, so that files named by the seeds exist and whatever a run writes
 * (--out, --series, ...) stays in the sandbox: arguments that start with
 * '/' or contain "..", and the long-running 'serve', are not run.
 * Standard output goes to /dev/null; standard input is empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

int gp__cli_main (int argc, char **argv);

static char sandbox[256];

static void rm_sandbox (void)
{
    char cmd[320];
    if (!sandbox[0] || chdir ("/") != 0)
        return;
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", sandbox);
    if (system (cmd) != 0)
        fputs ("fuzz_cli: could not remove the sandbox\n", stderr);
}

int LLVMFuzzerInitialize (int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv ("TMPDIR");
    snprintf (sandbox, sizeof sandbox, "%s/gpuplan-fuzz-cli.XXXXXX",
              dir && *dir ? dir : "/tmp");
    if (!mkdtemp (sandbox))
        return 1;
    atexit (rm_sandbox);
    char cmd[1024];
    snprintf (cmd, sizeof cmd,
              "cd '%s' && mkdir -p '%s/tests/cli' '%s/traces' && "
              "cp -r examples '%s/' && cp -r tests/cli/specs '%s/tests/cli/' "
              "&& cp -r tests/scenarios '%s/tests/' && cp -r traces/generic "
              "traces/sacct traces/tiresias traces/philly '%s/traces/'",
              GP_SOURCE_DIR, sandbox, sandbox, sandbox, sandbox, sandbox,
              sandbox);
    if (system (cmd) != 0 || chdir (sandbox) != 0)
        return 1;
    if (!freopen ("/dev/null", "w", stdout)
        || !freopen ("/dev/null", "r", stdin))
        return 1;
    return 0;
}

enum { MAX_ARGS = 32, MAX_INPUT = 4096 };

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size == 0 || size > MAX_INPUT)
        return 0;
    char *buf = malloc (size + 1);
    if (!buf)
        return 0;
    memcpy (buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"gpuplan";
    for (char *p = buf; p < buf + size && argc <= MAX_ARGS;
         p += strlen (p) + 1) {
        /* 'serve' runs the web server until it is stopped (its daemon
         * tests in tests/serve start and stop it): not a flag-parser run
         */
        if (p[0] == '/' || strstr (p, "..") || !strcmp (p, "serve")) {
            free (buf);
            return 0;
        }
        argv[argc++] = p;
    }
    argv[argc] = NULL;
    (void)gp__cli_main (argc, argv);
    fflush (stdout);
    free (buf);
    return 0;
}
