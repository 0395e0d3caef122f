/* test_trace_utf8.c - trace names that are not valid UTF-8 (team, pool)
 * are bad input naming file:line and the column, never names that vanish
 * from the JSON (jansson refuses invalid UTF-8 strings).  The byte
 * sequences are the RFC 3629 cases: Latin-1 bytes, overlong forms,
 * surrogates, code points past U+10FFFF, truncated sequences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/trace.h"
#include "trace/trace_private.h"

static struct gp_jobset *parse (const char *text, enum gp_trace_format f,
                                unsigned flags, gp_error_t *err)
{
    struct gp_trace_opts o = {.format = f, .flags = flags};
    return gp_trace_parse (text, strlen (text), "t.csv", &o, err);
}

static void test_validator (void **state)
{
    (void)state;
    assert_int_equal (gp__tr_utf8_bad (""), -1);
    assert_int_equal (gp__tr_utf8_bad ("research"), -1);
    assert_int_equal (gp__tr_utf8_bad ("caf\xc3\xa9"), -1);         /* é */
    assert_int_equal (gp__tr_utf8_bad ("\xe2\x82\xac"), -1);        /* € */
    assert_int_equal (gp__tr_utf8_bad ("\xf0\x9f\x9a\x80"), -1);    /* 🚀 */
    assert_int_equal (gp__tr_utf8_bad ("\xf4\x8f\xbf\xbf"), -1);    /* max */
    assert_int_equal (gp__tr_utf8_bad ("caf\xe9"), 3);              /* Latin-1 */
    assert_int_equal (gp__tr_utf8_bad ("\xc0\x80"), 0);             /* overlong */
    assert_int_equal (gp__tr_utf8_bad ("\xe0\x80\xaf"), 0);         /* overlong */
    assert_int_equal (gp__tr_utf8_bad ("a\xed\xa0\x80"), 1);        /* surrogate */
    assert_int_equal (gp__tr_utf8_bad ("\xf4\x90\x80\x80"), 0);     /* > 10FFFF */
    assert_int_equal (gp__tr_utf8_bad ("ab\xe2\x82"), 2);           /* truncated */
    assert_int_equal (gp__tr_utf8_bad ("\x80"), 0);                 /* stray */
    assert_int_equal (gp__tr_utf8_bad ("\xff"), 0);
}

static void test_generic_team (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = parse ("id,submit,duration,gpus,team\n"
                                  "1,0,1h,1,research\n"
                                  "2,0,1h,1,caf\xe9\n",
                                  GP_TRACE_AUTO, 0, &err);
    assert_null (js);
    assert_int_equal (err.code, GP_EPARSE);
    assert_non_null (strstr (err.text, "t.csv:3: column 'team': not valid "
                                       "UTF-8 (byte 0xE9 at byte 4"));
}

static void test_generic_valid_kept (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = parse ("id,submit,duration,gpus,team\n"
                                  "1,0,1h,1,caf\xc3\xa9\n",
                                  GP_TRACE_AUTO, 0, &err);
    assert_non_null (js);
    assert_int_equal (js->n_teams, 1);
    assert_string_equal (js->teams[0], "caf\xc3\xa9");
    gp_jobset_destroy (js);
}

static void test_generic_pool (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = parse ("id,submit,duration,gpus,team,pool\n"
                                  "1,0,1h,1,a,\xc0\xafx\n",
                                  GP_TRACE_AUTO, 0, &err);
    assert_null (js);
    assert_non_null (strstr (err.text, "t.csv:2: column 'pool': not valid "
                                       "UTF-8 (byte 0xC0 at byte 1"));
}

static void test_skip_bad (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = parse ("id,submit,duration,gpus,team\n"
                                  "1,0,1h,1,ok\n"
                                  "2,0,1h,1,\xff\n",
                                  GP_TRACE_AUTO, GP_TRACE_SKIP_BAD, &err);
    assert_non_null (js);
    assert_int_equal (js->n_jobs, 1);
    assert_int_equal (js->n_skipped, 1);
    assert_non_null (strstr (js->first_skip, "t.csv:3: column 'team'"));
    gp_jobset_destroy (js);
}

static void test_sacct_account (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js = parse (
        "JobID|Account|Submit|Start|End|Elapsed|AllocTRES|State\n"
        "1|m\xfcller|2024-01-01T00:00:00|2024-01-01T00:00:00|"
        "2024-01-01T01:00:00|01:00:00|gres/gpu=1|COMPLETED\n",
        GP_TRACE_SACCT, 0, &err);
    assert_null (js);
    assert_non_null (strstr (err.text, "t.csv:2: column 'Account': not "
                                       "valid UTF-8 (byte 0xFC at byte 2"));
}

static void test_philly_cluster (void **state)
{
    (void)state;
    gp_error_t err = {0};
    struct gp_jobset *js =
        parse ("timestamp,duration,num_gpus,gpu_time,cluster\n"
               "2017-10-03 00:00:00,60,1,60,vc\xe4\n",
               GP_TRACE_AUTO, 0, &err);
    assert_null (js);
    assert_non_null (strstr (err.text, "t.csv:2: column 'cluster': not "
                                       "valid UTF-8 (byte 0xE4 at byte 3"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_validator),
        cmocka_unit_test (test_generic_team),
        cmocka_unit_test (test_generic_valid_kept),
        cmocka_unit_test (test_generic_pool),
        cmocka_unit_test (test_skip_bad),
        cmocka_unit_test (test_sacct_account),
        cmocka_unit_test (test_philly_cluster),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
