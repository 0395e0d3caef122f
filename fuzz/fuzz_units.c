/* fuzz_units.c - quantities with units: the first byte picks the kind and
 * the format flags, the rest is the text.  What parses is formatted back.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gpuplan/units.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    enum gp_quantity q = (enum gp_quantity)(data[0] % (GP_Q_MONEY_RATE + 1));
    unsigned flags = (data[0] >> 4) & 3u;
    char *s = malloc (size);
    if (!s)
        return 0;
    memcpy (s, data + 1, size - 1);
    s[size - 1] = '\0';
    double v;
    gp_error_t err = {0};
    if (gp_parse_quantity (s, q, &v, &err) == 0) {
        char buf[64];
        gp_format_quantity (v, q, flags, buf, sizeof buf);
        gp_format_quantity (-v, q, flags, buf, sizeof buf);
    }
    free (s);
    return 0;
}
