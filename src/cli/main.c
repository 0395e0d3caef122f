/* main.c - the gpuplan command: global options and subcommand dispatch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct cli_cmd cli_cmds[] = {
#define GP_CMD(n, s) {#n, cmd_##n, s, cmd_##n##_help},
#include "cmds.def"
#undef GP_CMD
    {NULL, NULL, NULL, NULL},
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: gpuplan COMMAND [OPTIONS] [ARGS]\n"
             "\n"
             "GPU cluster capacity planner and scheduling simulator.\n"
             "\n"
             "Commands:\n");
    for (const struct cli_cmd *c = cli_cmds; c->name; c++)
        fprintf (f, "  %-10s %s\n", c->name, c->summary);
    fprintf (f,
             "  %-10s %s\n"
             "\n"
             "Global options:\n"
             "  -h, --help     show this help; 'gpuplan help COMMAND' or\n"
             "                 'gpuplan COMMAND --help' for a command's page\n"
             "  -V, --version  print the version\n"
             "\n"
             "Every command takes --json to print one JSON document on stdout.\n"
             "Exit status: 0 ok, 1 valid but infeasible, 2 usage or input "
             "error,\n3 internal error.\n",
             "help", "show the manual page of a command");
}

static int dispatch (int argc, char **argv)
{
    if (argc < 2) {
        usage (stderr);
        return cli_usage_error ("no command given");
    }
    const char *cmd = argv[1];
    if (!strcmp (cmd, "-h") || !strcmp (cmd, "--help")) {
        usage (stdout);
        return EXIT_OK;
    }
    if (!strcmp (cmd, "-V") || !strcmp (cmd, "--version")) {
        printf ("gpuplan %s\n", GP_VERSION_STRING);
        return EXIT_OK;
    }
    if (!strcmp (cmd, "help")) {
        if (argc < 3) {
            usage (stdout);
            return EXIT_OK;
        }
        return cli_help (argv[2]);
    }
    for (const struct cli_cmd *c = cli_cmds; c->name; c++)
        if (strcmp (c->name, cmd) == 0)
            return c->run (argc - 1, argv + 1);
    const char *names[64];
    size_t n = 0;
    for (const struct cli_cmd *c = cli_cmds; c->name && n < 64; c++)
        names[n++] = c->name;
    char near[128];
    if (gp_closest_names (cmd, names, n, 2, near, sizeof near) && near[0])
        return cli_usage_error ("unknown command '%s'; did you mean %s?", cmd,
                                near);
    return cli_usage_error ("unknown command '%s' (see 'gpuplan --help')",
                            cmd);
}

int main (int argc, char **argv)
{
    int rc = dispatch (argc, argv);
    errno = 0;
    if (fflush (stdout) != 0 || ferror (stdout)) {
        fprintf (stderr, "gpuplan: error: standard output: %s\n",
                 errno ? strerror (errno) : "write failed");
        return EXIT_INTERNAL;
    }
    return rc;
}
