/* zoo_cat_fixture.h - the embedded model zoo and catalog, loaded once per
 * test group (cmocka group setup/teardown) for the tests that resolve
 * models and accelerators by name.  The including file brings cmocka and
 * the gpuplan headers.
 */
#ifndef GP_TEST_ZOO_CAT_FIXTURE_H
#define GP_TEST_ZOO_CAT_FIXTURE_H

static struct gp_zoo *zoo;
static struct gp_catalog *cat;

static int setup (void **state)
{
    (void)state;
    gp_error_t err = {0};
    zoo = gp_zoo_load (NULL, &err);
    cat = gp_catalog_load (NULL, &err);
    return zoo && cat ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    gp_zoo_destroy (zoo);
    gp_catalog_destroy (cat);
    return 0;
}

#endif
