/* test_quote.c - names, YAML emission and quoting of the export targets
 * (src/lib/export/quote.h).  YAML output is parsed back with libyaml's
 * parser and every scalar compared with what was written; the other
 * quotings are compared with strings worked out by hand from the target's
 * rules (POSIX sh single quotes, Go string escapes and RE2 for PromQL).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/quote.h"

static void test_names (void **state)
{
    (void)state;
    assert_true (gp__name_dns1123_label ("team-a1"));
    assert_true (gp__name_dns1123_label ("0a"));
    assert_false (gp__name_dns1123_label ("Team"));
    assert_false (gp__name_dns1123_label ("-a"));
    assert_false (gp__name_dns1123_label ("a-"));
    assert_false (gp__name_dns1123_label ("a.b"));
    assert_false (gp__name_dns1123_label (""));
    assert_false (gp__name_dns1123_label ("a\nb"));
    char long64[65];
    memset (long64, 'a', 64);
    long64[64] = '\0';
    assert_false (gp__name_dns1123_label (long64));
    long64[63] = '\0';
    assert_true (gp__name_dns1123_label (long64));
    assert_true (gp__name_dns1123_subdomain ("gpuplan.h100-pool"));
    assert_false (gp__name_dns1123_subdomain ("a..b"));
    assert_false (gp__name_dns1123_subdomain (".a"));
    assert_true (gp__name_slurm ("nlp_team-2"));
    assert_false (gp__name_slurm ("-a"));
    assert_false (gp__name_slurm ("NLP"));
    assert_false (gp__name_slurm ("2x"));
    assert_false (gp__name_slurm ("lab#1"));
    assert_false (gp__name_slurm ("a b"));
    assert_false (gp__name_slurm ("a\nb"));
}

static char *take (struct sb *b)
{
    assert_false (b->oom);
    return b->s;
}

static void test_shell (void **state)
{
    (void)state;
    struct sb b = {0};
    gp__sh_quote (&b, "it's; rm -rf /\n");
    char *s = take (&b);
    assert_string_equal (s, "'it'\\''s; rm -rf /\n'");
    free (s);
}

static void test_promql (void **state)
{
    (void)state;
    struct sb b = {0};
    gp__promql_str (&b, "a\"b\\c\nd");
    gp__sb_printf (&b, " ");
    gp__promql_re (&b, "h100.x|y");
    char *s = take (&b);
    assert_string_equal (s, "\"a\\\"b\\\\c\\nd\" \"h100\\\\.x\\\\|y\"");
    free (s);
}

static void test_comment (void **state)
{
    (void)state;
    struct sb b = {0};
    gp__comment_text (&b, "lab\nrm -rf /");
    char *s = take (&b);
    assert_string_equal (s, "lab?rm -rf /");
    free (s);
}

/* Strings whose plain form would read back as something else, or break
 * the document.
 */
static const char *const tricky[] = {
    "true", "No", "on", "null", "~", "8", "1e3", "0x1F", "012", "-a",
    "a: b", "#x", "x #y", "line\nbreak", "[a]", "{a}", "*ref", "&anc",
    "!tag", "'q'", "\"dq\"", "", " lead", "trail ", "nvidia.com/gpu",
    "plain-name", "100Gi", "ümlaut", "---", "...", "%x", "@x", "`x",
};
#define N_TRICKY (sizeof tricky / sizeof *tricky)

static void test_yaml_round_trip (void **state)
{
    (void)state;
    struct sb b = {0};
    struct gp__yaml y;
    gp__sb_printf (&b, "# header\n");
    assert_int_equal (gp__y_open (&y, &b), 0);
    gp__y_doc_start (&y);
    gp__y_map (&y);
    gp__y_key (&y, "items");
    gp__y_seq (&y);
    for (size_t i = 0; i < N_TRICKY; i++)
        gp__y_str (&y, tricky[i]);
    gp__y_seq_end (&y);
    gp__y_kint (&y, "n", 42);
    gp__y_knum (&y, "w", 0.1);
    gp__y_map_end (&y);
    gp__y_doc_end (&y);
    assert_int_equal (gp__y_close (&y), 0);
    char *text = take (&b);
    assert_memory_equal (text, "# header\n", 9);

    yaml_parser_t p;
    assert_true (yaml_parser_initialize (&p));
    yaml_parser_set_input_string (&p, (const unsigned char *)text,
                                  strlen (text));
    size_t seen = 0;
    int in_seq = 0, done = 0, after_w = 0;
    while (!done) {
        yaml_event_t ev;
        assert_true (yaml_parser_parse (&p, &ev));
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
            in_seq = 1;
            break;
        case YAML_SEQUENCE_END_EVENT:
            in_seq = 0;
            break;
        case YAML_SCALAR_EVENT:
            if (in_seq) {
                assert_true (seen < N_TRICKY);
                assert_string_equal ((const char *)ev.data.scalar.value,
                                     tricky[seen]);
                /* Plain only when no resolver could read it otherwise. */
                if (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
                    assert_true (!strcmp (tricky[seen], "nvidia.com/gpu")
                                 || !strcmp (tricky[seen], "plain-name")
                                 || !strcmp (tricky[seen], "ümlaut"));
                seen++;
            } else if (after_w) {
                assert_string_equal ((const char *)ev.data.scalar.value,
                                     "0.1");
                after_w = 0;
            } else if (!strcmp ((const char *)ev.data.scalar.value, "w")) {
                after_w = 1;
            }
            break;
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        default:
            break;
        }
        yaml_event_delete (&ev);
    }
    yaml_parser_delete (&p);
    assert_int_equal (seen, N_TRICKY);
    free (text);
}

static void test_yaml_bad_utf8 (void **state)
{
    (void)state;
    struct sb b = {0};
    struct gp__yaml y;
    assert_int_equal (gp__y_open (&y, &b), 0);
    gp__y_doc_start (&y);
    gp__y_str (&y, "bad\xff");
    gp__y_doc_end (&y);
    assert_int_equal (gp__y_close (&y), -1);
    free (b.s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_shell),
        cmocka_unit_test (test_promql),
        cmocka_unit_test (test_comment),
        cmocka_unit_test (test_yaml_round_trip),
        cmocka_unit_test (test_yaml_bad_utf8),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
