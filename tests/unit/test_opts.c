/* test_opts.c - command-line checks of include/gpuplan/opts.h: full option
 * names with the closest ones for a misspelt name, values, repeats,
 * conflicting pairs, numeric ranges and whole numbers, list items, and
 * long quoted words shortened in messages.  Expected texts are written
 * from the contract in the header.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/opts.h"

static const struct gp_opt_name opts[] = {
    {"tp", 1}, {"tpot-p95", 1}, {"json", 0}, {"set", 1}, {"rps", 1},
    {"profile", 1},
};
#define N_OPTS (sizeof opts / sizeof opts[0])

static int check (int argc, const char **argv, const char *const *cf,
                  char *warn, gp_error_t *err)
{
    return gp_opts_check (argc, (char *const *)argv, opts, N_OPTS, cf, warn,
                          96, err);
}

static void test_names (void **state)
{
    (void)state;
    gp_error_t err = {0};
    char warn[96];
    const char *ok[] = {"x",    "--tp",    "2",  "--json",
                        "SPEC", "--rps=3", "--", "--z"};
    assert_int_equal (check (8, ok, NULL, warn, &err), 0);
    assert_string_equal (warn, "");
    const char *abbrev[] = {"x", "--tpot", "50ms"};
    assert_int_equal (check (3, abbrev, NULL, warn, &err), GP_EINVAL);
    assert_non_null (strstr (err.text, "unknown option '--tpot'; did you "
                                       "mean "));
    assert_non_null (strstr (err.text, "--tpot-p95"));
    const char *none[] = {"x", "--qqqqqqqqqqqqqqqq"};
    assert_int_equal (check (2, none, NULL, warn, &err), GP_EINVAL);
    assert_string_equal (err.text, "unknown option '--qqqqqqqqqqqqqqqq'");
    const char *value[] = {"x", "--tp"};
    assert_int_equal (check (2, value, NULL, warn, &err), GP_EINVAL);
    assert_string_equal (err.text, "--tp needs a value");
    const char *novalue[] = {"x", "--json=1"};
    assert_int_equal (check (2, novalue, NULL, warn, &err), GP_EINVAL);
    assert_string_equal (err.text, "--json takes no value");
    /* the value of an option is not read as an option */
    const char *neg[] = {"x", "--rps", "--json"};
    assert_int_equal (check (3, neg, NULL, warn, &err), 0);
}

static void test_repeats_and_conflicts (void **state)
{
    (void)state;
    gp_error_t err = {0};
    char warn[96];
    const char *twice[] = {"x", "--set", "a=1", "--set", "b=2", "--rps", "1",
                     "--rps=2"};
    assert_int_equal (check (8, twice, NULL, warn, &err), 0);
    assert_string_equal (warn,
                         "--rps given more than once: the last one is used");
    static const char *const cf[] = {"rps", "profile", NULL};
    const char *both[] = {"x", "--profile", "1,2", "--rps", "3"};
    assert_int_equal (check (5, both, cf, warn, &err), GP_EINVAL);
    assert_string_equal (err.text, "give --rps or --profile, not both");
    const char *one[] = {"x", "--rps", "3"};
    assert_int_equal (check (3, one, cf, warn, &err), 0);
}

static void test_numbers (void **state)
{
    (void)state;
    gp_error_t err = {0};
    double v = -1;
    assert_int_equal (gp_opt_number ("--teams", "4", GP_Q_COUNT, 1, 100,
                                     GP_OPT_WHOLE, &v, &err), 0);
    assert_true (v == 4);
    assert_int_equal (gp_opt_number ("--teams", "2.5", GP_Q_COUNT, 1, 100,
                                     GP_OPT_WHOLE, &v, &err), GP_EINVAL);
    assert_string_equal (err.text, "--teams: 2.5 is not a whole number");
    assert_int_equal (gp_opt_number ("--rps", "1e300", GP_Q_COUNT, 1e-6, 1e6,
                                     0, &v, &err), GP_EINVAL);
    assert_string_equal (err.text, "--rps: 1e300 is outside [1e-06, 1e+06]");
    assert_int_equal (gp_opt_number ("--headroom", "0.95", GP_Q_COUNT, 0,
                                     0.95, GP_OPT_OPEN_HI, &v, &err),
                      GP_EINVAL);
    assert_string_equal (err.text,
                         "--headroom: 0.95 is outside [0, 0.95)");
    assert_int_equal (gp_opt_number ("--x", "0.95", GP_Q_COUNT, 0, 0.95, 0,
                                     &v, &err), 0);
    assert_int_equal (gp_opt_number ("--t", "90s", GP_Q_DURATION, 0, 60, 0,
                                     &v, &err), GP_EINVAL);
    assert_int_equal (gp_opt_number ("--x", "abc", GP_Q_COUNT, 0, 1, 0, &v,
                                     &err), GP_EINVAL);
    assert_int_equal (strncmp (err.text, "--x: ", 5), 0);
}

static void test_lists_and_shortening (void **state)
{
    (void)state;
    gp_error_t err = {0};
    assert_int_equal (gp_opt_list ("--gpu", "A,B", &err), 0);
    assert_int_equal (gp_opt_list ("--gpu", ",", &err), GP_EINVAL);
    assert_string_equal (err.text,
                         "--gpu: empty item in ',' (expected ID[,ID...])");
    assert_int_equal (gp_opt_list ("--gpu", "A,", &err), GP_EINVAL);
    assert_int_equal (gp_opt_list ("--gpu", ",A", &err), GP_EINVAL);
    assert_int_equal (gp_opt_list ("--gpu", "A,,B", &err), GP_EINVAL);
    assert_int_equal (gp_opt_list ("--gpu", "", &err), GP_EINVAL);
    char t[200];
    snprintf (t, sizeof t, "x: '%s' bad; 'a b c d e f g h i j k l m n o p q "
                           "r s t u v' kept", "123456789012345678901234567"
                           "8901234567890123456789");
    gp_opts_shorten_quoted (t);
    assert_string_equal (t, "x: '1234567890123456789012345678901234567...' "
                            "bad; 'a b c d e f g h i j k l m n o p q r s t "
                            "u v' kept");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_repeats_and_conflicts),
        cmocka_unit_test (test_numbers),
        cmocka_unit_test (test_lists_and_shortening),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
