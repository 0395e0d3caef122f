/* test_io_tree.c - output sets with one level of folders
 * (gp_write_tree_atomic, include/gpuplan/io.h; 'gpuplan export all'):
 * a new tree appears in one step, an existing directory is merged
 * folder by folder, a failure leaves the old files and removes the
 * folders it created, and names must be "NAME" or "SUB/NAME".
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

#define IO_FIXTURE_PREFIX "/tmp/gp-test-io-tree-XXXXXX"
#include "io_fixture.h"

static const struct gp_out_file tree[] = {
    {"kueue/kueue.yaml", "k\n", 2},
    {"slurm/slurm.conf", "s\n", 2},
    {"slurm/gres.conf", "g\n", 2},
    {"README", "r\n", 2},
};

static void test_tree_new (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (gp_write_tree_atomic (at ("x/all"), tree, 4, &err), 0);
    assert_string_equal (get ("x/all/kueue/kueue.yaml"), "k\n");
    assert_string_equal (get ("x/all/slurm/slurm.conf"), "s\n");
    assert_string_equal (get ("x/all/slurm/gres.conf"), "g\n");
    assert_string_equal (get ("x/all/README"), "r\n");
    assert_int_equal (entries ("x"), 1);          /* no temporary left */
    assert_int_equal (entries ("x/all"), 3);
    assert_int_equal (entries ("x/all/slurm"), 2);
}

static void test_tree_merge (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (mkdir (at ("m"), 0777), 0);
    assert_int_equal (mkdir (at ("m/slurm"), 0777), 0);
    put ("m/slurm/slurm.conf", "old\n");
    put ("m/slurm/mine.conf", "mine\n");
    put ("m/notes.txt", "notes\n");
    assert_int_equal (gp_write_tree_atomic (at ("m"), tree, 4, &err), 0);
    assert_string_equal (get ("m/slurm/slurm.conf"), "s\n");
    assert_string_equal (get ("m/slurm/mine.conf"), "mine\n");
    assert_string_equal (get ("m/kueue/kueue.yaml"), "k\n");
    assert_string_equal (get ("m/notes.txt"), "notes\n");
    assert_int_equal (entries ("m"), 4);     /* kueue slurm README notes */
    assert_int_equal (entries ("m/slurm"), 3);
}

/* A file that cannot be replaced (a directory in its way): the old
 * files stay and the folder the step created is gone.
 */
static void test_tree_failed_rename (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (mkdir (at ("h"), 0777), 0);
    assert_int_equal (mkdir (at ("h/slurm"), 0777), 0);
    put ("h/slurm/gres.conf", "old g\n");
    assert_int_equal (mkdir (at ("h/slurm/slurm.conf"), 0777), 0);
    put ("h/slurm/slurm.conf/x", "x");
    assert_int_equal (gp_write_tree_atomic (at ("h"), tree, 4, &err),
                      GP_EWRITE);
    assert_string_equal (get ("h/slurm/gres.conf"), "old g\n");
    assert_string_equal (get ("h/slurm/slurm.conf/x"), "x");
    assert_null (get ("h/kueue/kueue.yaml"));
    assert_int_equal (entries ("h"), 1);     /* slurm only */
    assert_int_equal (entries ("h/slurm"), 2);
}

/* A failed write creates nothing. */
static void test_tree_failed_write (void **state)
{
    (void)state;
    gp_error_t err = {0};
    static char big[8192];
    memset (big, 'y', sizeof big);
    const struct gp_out_file set[] = {
        {"a/a.conf", "a\n", 2},
        {"b/b.conf", big, sizeof big},
    };
    limit_fsize (1024);
    int rc = gp_write_tree_atomic (at ("g/all"), set, 2, &err);
    limit_fsize (0);
    assert_int_equal (rc, GP_EWRITE);
    assert_int_equal (entries ("g"), 0);
}

static void test_tree_names (void **state)
{
    (void)state;
    gp_error_t err = {0};
    static const char *const bad[] = {"a/b/c", "a/.x", ".a/x", "a/", "/x",
                                      "../x", "a/..", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const struct gp_out_file f[] = {{bad[i], "", 0}};
        if (gp_write_tree_atomic (at ("n"), f, 1, &err) != GP_EINVAL)
            fail_msg ("'%s' accepted", bad[i]);
    }
    const struct gp_out_file dup[] = {{"a/x", "", 0}, {"a/x", "", 0}};
    assert_int_equal (gp_write_tree_atomic (at ("n"), dup, 2, &err),
                      GP_EINVAL);
    assert_null (get ("n"));
    /* the flat call still refuses folders */
    assert_int_equal (gp_write_dir_atomic (at ("n"), tree, 1, &err),
                      GP_EINVAL);
    assert_null (get ("n"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_tree_new),
        cmocka_unit_test (test_tree_merge),
        cmocka_unit_test (test_tree_failed_rename),
        cmocka_unit_test (test_tree_failed_write),
        cmocka_unit_test (test_tree_names),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
