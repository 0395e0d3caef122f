#!/usr/bin/env bash
# Source checks that the compiler does not make: banned functions in the
# library, printing from the library, and a file-opening comment everywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
banned='\b(sprintf|vsprintf|strcpy|strcat|gets|atoi|atol|strtok)[[:space:]]*\('
if grep -rnE "$banned" src include; then
  echo "check-src: banned function (use snprintf, memcpy with lengths, strtol, ...)" >&2
  fail=1
fi
if grep -rnE '\b(printf|puts|fprintf|perror|exit)[[:space:]]*\(' src/lib | grep -v 'snprintf\|vsnprintf'; then
  echo "check-src: the library must not print or exit" >&2
  fail=1
fi
for f in $(find src include -name '*.c' -o -name '*.h' -o -name '*.h.in'); do
  head -1 "$f" | grep -q '^/\*' || { echo "check-src: $f does not open with a comment" >&2; fail=1; }
done
exit $fail
