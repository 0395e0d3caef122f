/* test_csv.c - CSV rows, quoting, line numbers and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/csv.h"

struct seen {
    size_t rows;
    size_t lines[8];
    size_t nf[8];
    char f1[8][32];
    int stop_at;
};

static int collect (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct seen *s = arg;
    if (s->stop_at && (int)row->index == s->stop_at)
        return gp_errprintf (err, GP_ERANGE, "stopped at %zu", row->line);
    if (s->rows < 8) {
        s->lines[s->rows] = row->line;
        s->nf[s->rows] = row->n_fields;
        snprintf (s->f1[s->rows], 32, "%s",
                  row->n_fields > 1 ? row->fields[1] : "");
    }
    s->rows++;
    return 0;
}

static void test_rows (void **state)
{
    (void)state;
    const char *t = "a,b,c\n"
                    "1,\"x, y\",3\n"
                    "\n"
                    "4,\"multi\nline\",6\r\n"
                    "7,\"q\"\"uote\",9";
    struct seen s = {0};
    gp_error_t err = {0};
    assert_int_equal (gp_csv_parse (t, strlen (t), "t.csv", ',', collect, &s,
                                    &err),
                      0);
    assert_int_equal (s.rows, 4);
    assert_int_equal (s.lines[0], 1);
    assert_int_equal (s.lines[1], 2);
    assert_int_equal (s.lines[2], 5); /* ends on line 5 */
    assert_int_equal (s.lines[3], 6);
    assert_string_equal (s.f1[1], "x, y");
    assert_string_equal (s.f1[2], "multi\nline");
    assert_string_equal (s.f1[3], "q\"uote");
    assert_int_equal (s.nf[3], 3);
}

static void test_pipe (void **state)
{
    (void)state;
    const char *t = "JobID|User\n1|alice\n";
    struct seen s = {0};
    assert_int_equal (gp_csv_parse (t, strlen (t), "s", '|', collect, &s,
                                    NULL),
                      0);
    assert_string_equal (s.f1[1], "alice");
}

static void test_errors (void **state)
{
    (void)state;
    struct seen s = {0};
    gp_error_t err = {0};
    const char *t = "a,b\n1,2\n3,\"bad\"x\n";
    assert_int_equal (gp_csv_parse (t, strlen (t), "t.csv", ',', collect, &s,
                                    &err),
                      GP_EPARSE);
    assert_non_null (strstr (err.text, "t.csv:3: malformed CSV"));
    const char *u = "a,b\n1,\"open\n";
    memset (&s, 0, sizeof s);
    assert_int_equal (gp_csv_parse (u, strlen (u), "u.csv", ',', collect, &s,
                                    &err),
                      GP_EPARSE);
    /* The callback's error stops the parse and is returned as is. */
    const char *v = "a\n1\n2\n3\n";
    memset (&s, 0, sizeof s);
    s.stop_at = 2;
    assert_int_equal (gp_csv_parse (v, strlen (v), "v.csv", ',', collect, &s,
                                    &err),
                      GP_ERANGE);
    assert_string_equal (err.text, "stopped at 3");
    assert_int_equal (gp_csv_parse_file ("/nonexistent.csv", ',', collect, &s,
                                         &err),
                      GP_EIO);
    assert_int_equal (gp_csv_parse (NULL, 0, "x", ',', collect, &s, &err),
                      GP_EINVAL);
}

static void test_col (void **state)
{
    (void)state;
    const char *f[] = {"id", "name"};
    struct gp_csv_row h = {.line = 1, .n_fields = 2, .fields = f};
    assert_int_equal (gp_csv_col (&h, "name"), 1);
    assert_int_equal (gp_csv_col (&h, "nope"), -1);
    assert_int_equal (gp_csv_col (NULL, "id"), -1);
}

/* A header naming a column twice is an error naming both positions;
 * empty names (trailing commas) may repeat.
 */
static void test_header_unique (void **state)
{
    (void)state;
    gp_error_t err = {0};
    const char *ok[] = {"id", "", "name", ""};
    struct gp_csv_row h = {.line = 1, .n_fields = 4, .fields = ok};
    assert_int_equal (gp_csv_header_unique (&h, "t.csv", &err), 0);
    const char *dup[] = {"submit", "gpus", "team", "gpus"};
    struct gp_csv_row d = {.line = 3, .n_fields = 4, .fields = dup};
    assert_int_equal (gp_csv_header_unique (&d, "t.csv", &err), GP_EPARSE);
    assert_string_equal (err.text, "t.csv:3: header: column 'gpus' appears "
                                   "twice (columns 2 and 4)");
    assert_int_equal (gp_csv_header_unique (NULL, "t.csv", &err), 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_rows),
        cmocka_unit_test (test_pipe),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_col),
        cmocka_unit_test (test_header_unique),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
