/* test_trace_csv_fast.c - the trace reader's CSV front end (plain lines
 * split in place) gives the rows, line numbers, field texts, status and
 * messages of gp_csv_parse / gp_csv_parse_file on the same bytes: hand
 * cases at the edges of "plain" (spaces at field edges, quotes, CR, empty
 * lines and fields, a last line without newline, a quoted field over two
 * lines after plain ones) and 3,000 random inputs over the bytes that
 * matter to libcsv; and the dates read digit by digit against their
 * epoch seconds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuplan/csv.h"
#include "../../src/lib/trace/trace_private.h"

struct log {
    char *s;
    size_t len, cap;
    size_t stop_at; /* row index whose callback fails; 0 = none */
};

static void put (struct log *g, const char *t, size_t n)
{
    if (g->len + n + 1 > g->cap) {
        g->cap = 2 * (g->len + n + 1);
        g->s = realloc (g->s, g->cap);
        assert_non_null (g->s);
    }
    memcpy (g->s + g->len, t, n);
    g->len += n;
    g->s[g->len] = '\0';
}

static int collect (const struct gp_csv_row *row, void *arg, gp_error_t *err)
{
    struct log *g = arg;
    char b[64];
    if (g->stop_at && row->index == g->stop_at)
        return gp_errprintf (err, GP_ERANGE, "stop at line %zu", row->line);
    int n = snprintf (b, sizeof b, "%zu:%zu:%zu", row->line, row->index,
                      row->n_fields);
    put (g, b, (size_t)n);
    for (size_t i = 0; i < row->n_fields; i++) {
        put (g, "[", 1);
        put (g, row->fields[i], strlen (row->fields[i]));
        put (g, "]", 1);
    }
    put (g, "\n", 1);
    return 0;
}

/* Both readers on 'data' (memory, then a file), the same log, status and
 * message.
 */
static void same (const char *data, size_t len, size_t stop_at)
{
    struct log a = {.stop_at = stop_at}, b = {.stop_at = stop_at};
    gp_error_t ea = {0}, eb = {0};
    put (&a, "", 0);
    put (&b, "", 0);
    int ra = gp_csv_parse (data, len, "t.csv", ',', collect, &a, &ea);
    int rb = gp__tr_csv_parse (data, len, "t.csv", ',', collect, &b, &eb);
    assert_int_equal (ra, rb);
    assert_string_equal (a.s, b.s);
    assert_string_equal (ea.text, eb.text);

    char path[] = "/tmp/gp_csv_fast_XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, data, len), (ssize_t)len);
    close (fd);
    a.len = b.len = 0;
    a.s[0] = b.s[0] = '\0';
    memset (&ea, 0, sizeof ea);
    memset (&eb, 0, sizeof eb);
    ra = gp_csv_parse_file (path, ',', collect, &a, &ea);
    rb = gp__tr_csv_parse_file (path, ',', collect, &b, &eb);
    unlink (path);
    assert_int_equal (ra, rb);
    /* the file names differ from "t.csv" alike in both */
    assert_string_equal (a.s, b.s);
    assert_string_equal (ea.text, eb.text);
    free (a.s);
    free (b.s);
}

static void same_str (const char *s)
{
    same (s, strlen (s), 0);
}

static void test_hand_cases (void **state)
{
    (void)state;
    same_str ("timestamp,duration,num_gpus\n"
              "2017-10-09 07:01:55,66.0,1\n"
              "2017-10-09 06:13:03,2951.0,8\n");
    same_str ("a,b\n\n\n1,2\n");            /* empty lines skipped */
    same_str ("a,,b,\n,\n");                /* empty fields */
    same_str ("a,b\n1,2");                  /* no final newline */
    same_str ("a, b\n 1,2 \n1 ,2\n1,\t2\n"); /* blanks at field edges */
    same_str ("a b,c\td\n");                /* blanks inside a field */
    same_str ("a,b\r\n1,2\r\n");            /* CRLF */
    same_str ("a,b\n1,\"x\ny\"\n3,4\n");    /* quoted field over lines */
    same_str ("a,b\n1,x\"y\n");             /* stray quote: malformed */
    same_str ("a,b\n1,\"open\n");           /* unterminated at the end */
    same_str ("\xc3\xa9t\xc3\xa9,\xff\n");  /* bytes over 0x7f */
    same ("a,b\n1,\0002\n3,4\n", 12, 0);    /* a NUL byte */
    same ("a,b\n1,2\n3,4\n5,6\n", 16, 2);   /* the callback stops */
}

static void test_random (void **state)
{
    (void)state;
    static const char alpha[] = "ab,,, \t\"\r\n\n\xc3\xa9" "0";
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char buf[200];
    for (int t = 0; t < 3000; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = (size_t)(x % sizeof buf);
        /* mostly plain: a rare byte in one case of four */
        int rare = (x >> 20) % 4 == 0;
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t k = (size_t)(x % (sizeof alpha - 1));
            char ch = alpha[k];
            if (!rare && (ch == '"' || ch == '\r' || ch == ' '
                          || ch == '\t'))
                ch = 'a';
            buf[i] = ch;
        }
        same (buf, len, (size_t)(t % 7 == 0 ? 1 : 0));
    }
}

/* The digit-by-digit date form and sscanf's other forms: seconds from
 * `date -u -d ... +%s`; a leap second is 60 (one past :59).
 */
static void test_dates (void **state)
{
    (void)state;
    assert_true (gp__tr_datetime ("2017-10-09 07:01:55") == 1507532515.0);
    assert_true (gp__tr_datetime ("2017-10-09T07:01:55") == 1507532515.0);
    assert_true (gp__tr_datetime ("1970-01-01 00:00:00") == 0.0);
    assert_true (gp__tr_datetime ("2000-02-29 23:59:60") == 951868800.0);
    /* not the exact form: sscanf's rules, as before */
    assert_true (gp__tr_datetime (" 2017-10-09 07:01:55") == 1507532515.0);
    assert_true (gp__tr_datetime ("2017-10-09 07:01:5") == 1507532465.0);
    assert_true (gp__tr_datetime ("2017-10-09 07:01:55x") == -1);
    assert_true (gp__tr_datetime ("2017-13-09 07:01:55") == -1);
    assert_true (gp__tr_datetime ("2017-10-09 24:00:00") == -1);
    assert_true (gp__tr_datetime ("2017-10-09 07:60:00") == -1);
    assert_true (gp__tr_datetime ("2017-10-09_07:01:55") == -1);
    assert_true (gp__tr_datetime ("2017-10-0") == -1);
    assert_true (gp__tr_datetime ("") == -1);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_hand_cases),
        cmocka_unit_test (test_dates),
        cmocka_unit_test (test_random),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
