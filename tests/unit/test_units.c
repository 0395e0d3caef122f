/* test_units.c - the quantity parser and formatter.
 * Expected values are written out by hand from the unit definitions
 * (SI decimal prefixes, IEC binary prefixes, 8 bits per byte).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/units.h"

struct ok_case {
    const char *in;
    enum gp_quantity q;
    double want;
};

static const struct ok_case ok_cases[] = {
    /* bytes: decimal vs binary */
    {"80GB", GP_Q_BYTES, 80e9},
    {"80GiB", GP_Q_BYTES, 80.0 * 1073741824.0},
    {"2TB", GP_Q_BYTES, 2e12},
    {"1.5 TB", GP_Q_BYTES, 1.5e12},
    {"512MiB", GP_Q_BYTES, 512.0 * 1048576.0},
    {"1024", GP_Q_BYTES, 1024.0},
    {"141 GB", GP_Q_BYTES, 141e9},
    {"4KiB", GP_Q_BYTES, 4096.0},
    /* bandwidth: bytes vs bits */
    {"3.35TB/s", GP_Q_BANDWIDTH, 3.35e12},
    {"900GB/s", GP_Q_BANDWIDTH, 900e9},
    {"400Gbps", GP_Q_BANDWIDTH, 50e9},
    {"400Gb/s", GP_Q_BANDWIDTH, 50e9},
    {"3.2 Tbps", GP_Q_BANDWIDTH, 400e9},
    {"25GiB/s", GP_Q_BANDWIDTH, 25.0 * 1073741824.0},
    {"100 GBps", GP_Q_BANDWIDTH, 100e9},
    /* FLOP/s */
    {"989TFLOPS", GP_Q_FLOPS, 989e12},
    {"989.4 TFLOP/s", GP_Q_FLOPS, 989.4e12},
    {"1.2PFLOP/s", GP_Q_FLOPS, 1.2e15},
    {"2e15", GP_Q_FLOPS, 2e15},
    /* counts */
    {"70B", GP_Q_COUNT, 70e9},
    {"70B params", GP_Q_COUNT, 70e9},
    {"15T tokens", GP_Q_COUNT, 15e12},
    {"4M tokens", GP_Q_COUNT, 4e6},
    {"1.5k", GP_Q_COUNT, 1500.0},
    {"128", GP_Q_COUNT, 128.0},
    {"7e9", GP_Q_COUNT, 7e9},
    /* durations */
    {"45d", GP_Q_DURATION, 45 * 86400.0},
    {"12h", GP_Q_DURATION, 12 * 3600.0},
    {"800ms", GP_Q_DURATION, 0.8},
    {"30min", GP_Q_DURATION, 1800.0},
    {"1h30m", GP_Q_DURATION, 5400.0},
    {"2w", GP_Q_DURATION, 14 * 86400.0},
    {"3y", GP_Q_DURATION, 3 * 365 * 86400.0},
    {"90", GP_Q_DURATION, 90.0},
    {"250us", GP_Q_DURATION, 250e-6},
    /* power */
    {"10.2kW", GP_Q_POWER, 10200.0},
    {"700W", GP_Q_POWER, 700.0},
    {"1.2MW", GP_Q_POWER, 1.2e6},
    /* money */
    {"$1.2M", GP_Q_MONEY, 1.2e6},
    {"$250k", GP_Q_MONEY, 250e3},
    {"1200 USD", GP_Q_MONEY, 1200.0},
    {"$2.10/h", GP_Q_MONEY_RATE, 2.10},
    {"$2.10/hr", GP_Q_MONEY_RATE, 2.10},
    {"55.04 USD/hour", GP_Q_MONEY_RATE, 55.04},
    {"3.5", GP_Q_MONEY_RATE, 3.5},
};

static void test_parse_ok (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ok_cases / sizeof ok_cases[0]; i++) {
        const struct ok_case *c = &ok_cases[i];
        double v = -1;
        gp_error_t err = {0};
        int rc = gp_parse_quantity (c->in, c->q, &v, &err);
        if (rc != 0)
            fail_msg ("'%s' as %s: %s", c->in, gp_quantity_str (c->q),
                      err.text);
        if (fabs (v - c->want) > 1e-9 * fabs (c->want))
            fail_msg ("'%s': got %.17g want %.17g", c->in, v, c->want);
    }
}

struct bad_case {
    const char *in;
    enum gp_quantity q;
    int code;
};

/* Expected failures: each must be rejected with the given code and a
 * message that quotes the input.
 */
static const struct bad_case bad_cases[] = {
    {"", GP_Q_BYTES, GP_EPARSE},
    {"GB", GP_Q_BYTES, GP_EPARSE},
    {"80G", GP_Q_BYTES, GP_EPARSE},         /* missing B: ambiguous */
    {"80Gb", GP_Q_BYTES, GP_EPARSE},        /* bits where bytes expected */
    {"80GB/s", GP_Q_BYTES, GP_EPARSE},      /* a bandwidth, not a size */
    {"-5GB", GP_Q_BYTES, GP_ERANGE},
    {"1e999GB", GP_Q_BYTES, GP_ERANGE},
    {"nan", GP_Q_BYTES, GP_EPARSE},
    {"inf", GP_Q_FLOPS, GP_EPARSE},
    {"0x10", GP_Q_COUNT, GP_EPARSE},
    {"12 furlongs", GP_Q_DURATION, GP_EPARSE},
    {"12", GP_Q_BANDWIDTH, 0},               /* bare = canonical: allowed */
    {"400Gibps", GP_Q_BANDWIDTH, GP_EPARSE}, /* binary bits not accepted */
    {"989TFLOPS extra", GP_Q_FLOPS, GP_EPARSE},
    {"70 bananas", GP_Q_COUNT, GP_EPARSE},
    {"5 5h", GP_Q_DURATION, GP_EPARSE},
    {"-3h", GP_Q_DURATION, GP_ERANGE},
    {"$2.10/h", GP_Q_MONEY, GP_EPARSE},      /* rate where amount expected */
    {"$-1", GP_Q_MONEY, GP_ERANGE},
    {"$ USD 5", GP_Q_MONEY, GP_EPARSE},
    {"10.2kV", GP_Q_POWER, GP_EPARSE},
    {"1.2.3GB", GP_Q_BYTES, GP_EPARSE},
};

static void test_parse_bad (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        double v = 12345.0;
        gp_error_t err = {0};
        int rc = gp_parse_quantity (c->in, c->q, &v, &err);
        if (rc != c->code)
            fail_msg ("'%s' as %s: rc %d want %d (%s)", c->in,
                      gp_quantity_str (c->q), rc, c->code, err.text);
        if (rc != 0) {
            assert_true (v == 12345.0); /* untouched */
            char quoted[160];
            snprintf (quoted, sizeof quoted, "'%s'", c->in);
            if (!strstr (err.text, quoted))
                fail_msg ("message for '%s' does not quote it: %s", c->in,
                          err.text);
        }
    }
}

static void test_badparam (void **state)
{
    (void)state;
    double v;
    gp_error_t err;
    assert_int_equal (gp_parse_quantity (NULL, GP_Q_BYTES, &v, &err),
                      GP_EINVAL);
    assert_int_equal (gp_parse_quantity ("1GB", GP_Q_BYTES, NULL, &err),
                      GP_EINVAL);
    /* err may be NULL */
    assert_int_equal (gp_parse_quantity ("xx", GP_Q_BYTES, &v, NULL),
                      GP_EPARSE);
    char big[300];
    memset (big, '1', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal (gp_parse_quantity (big, GP_Q_COUNT, &v, &err),
                      GP_EPARSE);
}

struct fmt_case {
    double v;
    enum gp_quantity q;
    unsigned flags;
    const char *want;
};

static const struct fmt_case fmt_cases[] = {
    {80e9, GP_Q_BYTES, 0, "80 GB"},
    {80.0 * 1073741824.0, GP_Q_BYTES, GP_FMT_BINARY, "80 GiB"},
    {3.35e12, GP_Q_BANDWIDTH, 0, "3.35 TB/s"},
    {50e9, GP_Q_BANDWIDTH, GP_FMT_BITS, "400 Gb/s"},
    {989.4e12, GP_Q_FLOPS, 0, "989.4 TFLOP/s"},
    {70.55e9, GP_Q_COUNT, 0, "70.55 B"},
    {45 * 86400.0, GP_Q_DURATION, 0, "45 d"},
    {0.8, GP_Q_DURATION, 0, "800 ms"},
    {10200.0, GP_Q_POWER, 0, "10.2 kW"},
    {1.2e6, GP_Q_MONEY, 0, "$1.2M"},
    {2.1, GP_Q_MONEY_RATE, 0, "$2.10/h"},
    {999.96e9, GP_Q_BYTES, 0, "1 TB"}, /* rounding crosses a prefix */
};

static void test_format (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fmt_cases / sizeof fmt_cases[0]; i++) {
        char buf[64];
        gp_format_quantity (fmt_cases[i].v, fmt_cases[i].q,
                            fmt_cases[i].flags, buf, sizeof buf);
        assert_string_equal (buf, fmt_cases[i].want);
    }
}

/* Formatting then parsing gives back the value to 4 significant digits. */
static void test_roundtrip (void **state)
{
    (void)state;
    const double vals[] = {1.0, 999.0, 1234.5, 80e9, 3.35e12, 7.7e15};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char buf[64];
        gp_format_quantity (vals[i], GP_Q_BYTES, 0, buf, sizeof buf);
        double back;
        assert_int_equal (gp_parse_quantity (buf, GP_Q_BYTES, &back, NULL), 0);
        assert_true (fabs (back - vals[i]) <= 5e-4 * vals[i]);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse_ok),   cmocka_unit_test (test_parse_bad),
        cmocka_unit_test (test_badparam),   cmocka_unit_test (test_format),
        cmocka_unit_test (test_roundtrip),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
