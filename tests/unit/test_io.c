/* test_io.c - atomic output files and sets (include/gpuplan/io.h): new
 * files in missing directories, replacement, and failures that must leave
 * the old contents and no temporary file behind.  Write failures are real:
 * a file-size limit (RLIMIT_FSIZE, which holds for root too), /dev/full,
 * a directory where a file should go.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuplan/io.h"

#define IO_FIXTURE_PREFIX "/tmp/gp-test-io-XXXXXX"
#include "io_fixture.h"

static void test_file_new_in_missing_dirs (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (gp_write_file_atomic (at ("a/b/c/out.md"), "hello\n",
                                            6, &err), 0);
    assert_string_equal (get ("a/b/c/out.md"), "hello\n");
    assert_int_equal (entries ("a/b/c"), 1); /* no temporary left */
}

static void test_file_replace_keeps_mode (void **state)
{
    (void)state;
    gp_error_t err = {0};
    put ("r.txt", "old");
    assert_int_equal (chmod (at ("r.txt"), 0640), 0);
    assert_int_equal (gp_write_file_atomic (at ("r.txt"), "new", 3, &err), 0);
    assert_string_equal (get ("r.txt"), "new");
    struct stat st;
    assert_int_equal (stat (at ("r.txt"), &st), 0);
    assert_int_equal (st.st_mode & 0777, 0640);
}

static void test_file_failed_write_keeps_old (void **state)
{
    (void)state;
    gp_error_t err = {0};
    put ("keep.txt", "the old report\n");
    int before = entries (".");
    static char big[8192];
    memset (big, 'x', sizeof big);
    limit_fsize (1024);
    int rc = gp_write_file_atomic (at ("keep.txt"), big, sizeof big, &err);
    limit_fsize (0);
    assert_int_equal (rc, GP_EWRITE);
    assert_non_null (strstr (err.text, "keep.txt"));
    assert_string_equal (get ("keep.txt"), "the old report\n");
    assert_int_equal (entries ("."), before);
}

static void test_file_errors (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (gp_write_file_atomic ("/dev/full", "x", 1, &err),
                      GP_EWRITE);
    assert_non_null (strstr (err.text, "/dev/full"));
    assert_int_equal (mkdir (at ("isdir"), 0777), 0);
    assert_int_equal (gp_write_file_atomic (at ("isdir"), "x", 1, &err),
                      GP_EWRITE);
    put ("plain", "p");
    assert_int_equal (gp_write_file_atomic (at ("plain/x"), "x", 1, &err),
                      GP_EWRITE);
    assert_string_equal (get ("plain"), "p");
    assert_int_equal (gp_write_file_atomic ("", "x", 1, &err), GP_EINVAL);
    assert_int_equal (gp_write_file_atomic ("/dev/null", "x", 1, &err), 0);
}

static const struct gp_out_file set2[] = {
    {"a.conf", "new a\n", 6},
    {"b.conf", "new b\n", 6},
};

static void test_dir_new_and_merge (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (gp_write_dir_atomic (at ("x/y/set"), set2, 2, &err), 0);
    assert_string_equal (get ("x/y/set/a.conf"), "new a\n");
    assert_string_equal (get ("x/y/set/b.conf"), "new b\n");
    assert_int_equal (entries ("x/y"), 1);
    /* an existing directory: the set replaces its files, others stay */
    assert_int_equal (mkdir (at ("m"), 0777), 0);
    put ("m/a.conf", "old a\n");
    put ("m/notes.txt", "mine\n");
    assert_int_equal (gp_write_dir_atomic (at ("m/"), set2, 2, &err), 0);
    assert_string_equal (get ("m/a.conf"), "new a\n");
    assert_string_equal (get ("m/b.conf"), "new b\n");
    assert_string_equal (get ("m/notes.txt"), "mine\n");
    assert_int_equal (entries ("m"), 3);
}

static void test_dir_failed_write_keeps_old_set (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (mkdir (at ("f"), 0777), 0);
    put ("f/a.conf", "old a\n");
    put ("f/b.conf", "old b\n");
    static char big[8192];
    memset (big, 'y', sizeof big);
    const struct gp_out_file set[] = {
        {"a.conf", "new a\n", 6},
        {"b.conf", big, sizeof big},
    };
    limit_fsize (1024);
    int rc = gp_write_dir_atomic (at ("f"), set, 2, &err);
    limit_fsize (0);
    assert_int_equal (rc, GP_EWRITE);
    assert_string_equal (get ("f/a.conf"), "old a\n");
    assert_string_equal (get ("f/b.conf"), "old b\n");
    assert_int_equal (entries ("f"), 2);
    /* a missing target is not created by a failed set */
    limit_fsize (1024);
    rc = gp_write_dir_atomic (at ("g/set"), set, 2, &err);
    limit_fsize (0);
    assert_int_equal (rc, GP_EWRITE);
    assert_int_equal (entries ("g"), 0);
}

static void test_dir_failed_rename_restores (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (mkdir (at ("h"), 0777), 0);
    put ("h/a.conf", "old a\n");
    assert_int_equal (mkdir (at ("h/b.conf"), 0777), 0); /* in the way */
    put ("h/b.conf/x", "x");
    assert_int_equal (gp_write_dir_atomic (at ("h"), set2, 2, &err),
                      GP_EWRITE);
    assert_string_equal (get ("h/a.conf"), "old a\n");
    assert_string_equal (get ("h/b.conf/x"), "x");
    assert_int_equal (entries ("h"), 2);
}

static void test_dir_bad_names (void **state)
{
    (void)state;
    gp_error_t err = {0};
    const struct gp_out_file up[] = {{"../x", "", 0}};
    const struct gp_out_file dot[] = {{".hidden", "", 0}};
    const struct gp_out_file dup[] = {{"a", "", 0}, {"a", "", 0}};
    assert_int_equal (gp_write_dir_atomic (at ("n"), up, 1, &err), GP_EINVAL);
    assert_int_equal (gp_write_dir_atomic (at ("n"), dot, 1, &err),
                      GP_EINVAL);
    assert_int_equal (gp_write_dir_atomic (at ("n"), dup, 2, &err),
                      GP_EINVAL);
    assert_null (get ("n"));
    put ("file", "f");
    assert_int_equal (gp_write_dir_atomic (at ("file"), set2, 2, &err),
                      GP_EWRITE);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_file_new_in_missing_dirs),
        cmocka_unit_test (test_file_replace_keeps_mode),
        cmocka_unit_test (test_file_failed_write_keeps_old),
        cmocka_unit_test (test_file_errors),
        cmocka_unit_test (test_dir_new_and_merge),
        cmocka_unit_test (test_dir_failed_write_keeps_old_set),
        cmocka_unit_test (test_dir_failed_rename_restores),
        cmocka_unit_test (test_dir_bad_names),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
