/* io_fixture.h - a temporary directory and file helpers shared by the
 * output-writing tests (test_io.c, test_io_tree.c).  Define
 * IO_FIXTURE_PREFIX (a mkdtemp template) before including it; the
 * including file brings the system headers and cmocka.
 */
#ifndef GP_TEST_IO_FIXTURE_H
#define GP_TEST_IO_FIXTURE_H

static char root[256];

static int setup (void **state)
{
    (void)state;
    snprintf (root, sizeof root, IO_FIXTURE_PREFIX);
    return mkdtemp (root) ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    char cmd[300];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", root);
    return system (cmd) == 0 ? 0 : -1;
}

static void put (const char *rel, const char *text)
{
    char p[512];
    snprintf (p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen (p, "w");
    assert_non_null (f);
    fputs (text, f);
    assert_int_equal (fclose (f), 0);
}

/* Contents of root/rel (static buffer), or NULL when missing. */
static const char *get (const char *rel)
{
    static char buf[4096];
    char p[512];
    snprintf (p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen (p, "r");
    if (!f)
        return NULL;
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose (f);
    return buf;
}

/* Number of entries of root/rel, '.' and '..' left out. */
static int entries (const char *rel)
{
    char p[512];
    snprintf (p, sizeof p, "%s/%s", root, rel);
    DIR *d = opendir (p);
    assert_non_null (d);
    int n = 0;
    for (struct dirent *e; (e = readdir (d));)
        n += strcmp (e->d_name, ".") && strcmp (e->d_name, "..");
    closedir (d);
    return n;
}

static const char *at (const char *rel)
{
    static char p[512];
    snprintf (p, sizeof p, "%s/%s", root, rel);
    return p;
}

/* Limit the size of files this process writes to 'bytes' (0 = none). */
static void limit_fsize (rlim_t bytes)
{
    static struct rlimit saved;
    static int have;
    if (!have) {
        getrlimit (RLIMIT_FSIZE, &saved);
        signal (SIGXFSZ, SIG_IGN); /* write then fails with EFBIG */
        have = 1;
    }
    struct rlimit r = saved;
    if (bytes)
        r.rlim_cur = bytes;
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &r), 0);
}

#endif
