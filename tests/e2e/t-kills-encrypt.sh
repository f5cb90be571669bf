#!/bin/bash
# t-kills with Compress=yes and Encrypt= (pipe mode): the handler killed before each step of a capture that
# compresses and encrypts the core as it comes (the tests' own age key, tests/e2e/age-test-key.txt). After each
# kill, as there: one entry, a whole core (read back through age -d and zstd -d) or no file, no stray file.
# tier: all (make check-all only)
command -v age > /dev/null || { echo "SKIP t-kills-encrypt: no age (Debian's age package; make check installs it)"; exit 77; }
export AGE_TEST_IDENTITY="$(cd "$(dirname "$0")" && pwd)/age-test-key.txt"
export FAULTS_CONFIG="Compress=yes Encrypt=age1rvdvyrzzwg29kfvu9eaz7gk8ldflj00pmcq8f4npvnjpu2vjuatspqctn4"
export CORESINK_TEST_NAME=${CORESINK_TEST_NAME:-t-kills-encrypt}
exec bash "$(dirname "$0")/t-kills.sh" "$@"
