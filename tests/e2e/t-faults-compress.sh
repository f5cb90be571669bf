#!/bin/bash
# t-faults with Compress=yes and Encrypt= (pipe mode): the same single syscall failures, in the path that compresses
# and encrypts the core as it comes (the test's own age key, tests/e2e/age-test-key.txt); every core kept is read
# back through age -d and zstd -d. FAULTS=all and FAULTS_LIST as there.
# tier: all (make check-all only)
command -v age > /dev/null || { echo "SKIP t-faults-compress: no age (Debian's age package; make check installs it)"; exit 77; }
export AGE_TEST_IDENTITY="$(cd "$(dirname "$0")" && pwd)/age-test-key.txt"
export FAULTS_CONFIG="Compress=yes Encrypt=age1rvdvyrzzwg29kfvu9eaz7gk8ldflj00pmcq8f4npvnjpu2vjuatspqctn4"
export CORESINK_TEST_NAME=${CORESINK_TEST_NAME:-t-faults-compress}
exec bash "$(dirname "$0")/t-faults.sh" "$@"
