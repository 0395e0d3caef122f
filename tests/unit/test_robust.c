/* test_robust.c - the parsers never crash, leak or misreport on hostile
 * input.  Every file of tests/corpus/{yaml,csv}/ is parsed as is and after
 * many seeded mutations (byte flips, truncations, insertions of syntax
 * characters); each run must either succeed or fail with a non-empty
 * message and an error code.  Run under ASan+UBSan in CI, this is the
 * corpus replay of the fuzzing setup (a deterministic stand-in for
 * libFuzzer, which needs clang's runtime).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuplan/gpuplan.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd (void)
{
    /* xorshift64*: deterministic across runs and platforms */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static char *slurp (const char *path, size_t *len)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc (1 << 20);
    *len = buf ? fread (buf, 1, (1 << 20) - 1, f) : 0;
    fclose (f);
    return buf;
}

static void mutate (char *buf, size_t *len, size_t cap)
{
    static const char syntax[] = ":-[]{},\"'\n\t#&*!|>?% \\\0\x80\xff";
    int n = 1 + (int)(rnd () % 4);
    for (int i = 0; i < n && *len > 0; i++) {
        size_t at = rnd () % *len;
        switch (rnd () % 4) {
        case 0: /* flip */
            buf[at] ^= (char)(1u << (rnd () % 8));
            break;
        case 1: /* truncate */
            *len = at;
            break;
        case 2: /* insert a syntax character */
            if (*len + 1 < cap) {
                memmove (buf + at + 1, buf + at, *len - at);
                buf[at] = syntax[rnd () % (sizeof syntax - 1)];
                (*len)++;
            }
            break;
        default: /* duplicate a chunk */
            if (*len + 64 < cap) {
                size_t m = rnd () % 64;
                if (m > *len - at)
                    m = *len - at;
                memmove (buf + at + m, buf + at, *len - at);
                (*len) += m;
            }
            break;
        }
    }
}

static int count_rows (const struct gp_csv_row *row, void *arg,
                       gp_error_t *err)
{
    (void)err;
    size_t *n = arg;
    for (size_t i = 0; i < row->n_fields; i++)
        *n += strlen (row->fields[i]) > 0;
    return 0;
}

static void check_error (int rc, const gp_error_t *err, const char *what)
{
    if (rc != 0 && (rc != err->code || !err->text[0]))
        fail_msg ("%s: code %d without a message", what, rc);
}

static void run_yaml (const char *text, size_t len,
                      const struct gp_catalog *cat)
{
    gp_error_t err = {0};
    struct gp_doc *d = gp_doc_parse (text, len, "fuzz.yaml", &err);
    if (!d) {
        check_error (err.code, &err, "yaml");
        return;
    }
    struct gp_cluster *c = gp_cluster_from_doc (d, cat, &err);
    if (!c)
        check_error (err.code, &err, "cluster");
    gp_cluster_destroy (c);
    gp_doc_destroy (d);
}

static void run_csv (const char *text, size_t len)
{
    gp_error_t err = {0};
    size_t n = 0;
    int rc = gp_csv_parse (text, len, "fuzz.csv", ',', count_rows, &n, &err);
    check_error (rc, &err, "csv");
}

static void replay (const char *dir, int yaml, const struct gp_catalog *cat)
{
    DIR *d = opendir (dir);
    assert_non_null (d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir (d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        char *orig = slurp (path, &len);
        assert_non_null (orig);
        files++;
        char *buf = malloc (1 << 20);
        for (int it = 0; it < 2000; it++) {
            size_t l = len;
            memcpy (buf, orig, len);
            if (it > 0)
                mutate (buf, &l, 1 << 20);
            if (yaml)
                run_yaml (buf, l, cat);
            else
                run_csv (buf, l);
        }
        free (buf);
        free (orig);
    }
    closedir (d);
    assert_true (files > 0);
}

static void test_yaml_corpus (void **state)
{
    (void)state;
    struct gp_catalog *cat = gp_catalog_load (NULL, NULL);
    assert_non_null (cat);
    replay ("corpus/yaml", 1, cat);
    gp_catalog_destroy (cat);
}

static void test_csv_corpus (void **state)
{
    (void)state;
    replay ("corpus/csv", 0, NULL);
}

static void test_units_random (void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789.eE+-$kKMGTPiBbs/ phdwyWFLOPSUD";
    for (int it = 0; it < 20000; it++) {
        char s[24];
        size_t n = rnd () % (sizeof s - 1);
        for (size_t i = 0; i < n; i++)
            s[i] = alphabet[rnd () % (sizeof alphabet - 1)];
        s[n] = '\0';
        for (int q = GP_Q_BYTES; q <= GP_Q_MONEY_RATE; q++) {
            double v = -1;
            gp_error_t err = {0};
            int rc = gp_parse_quantity (s, (enum gp_quantity)q, &v, &err);
            if (rc == 0 && !(v >= 0))
                fail_msg ("'%s' parsed to %g", s, v);
            check_error (rc, &err, s);
        }
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_yaml_corpus),
        cmocka_unit_test (test_csv_corpus),
        cmocka_unit_test (test_units_random),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
