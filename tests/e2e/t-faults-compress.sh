#!/bin/bash
# t-faults with Compress=yes (pipe mode): the same single syscall failures, now also in the zstd copy that reads the
# raw core back and writes the compressed one. FAULTS=all and FAULTS_LIST as there.
# tier: all (make check-all only)
export FAULTS_CONFIG="Compress=yes" CORESINK_TEST_NAME=${CORESINK_TEST_NAME:-t-faults-compress}
exec bash "$(dirname "$0")/t-faults.sh" "$@"
