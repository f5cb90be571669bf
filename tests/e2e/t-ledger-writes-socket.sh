#!/bin/bash
# t-ledger-writes in socket mode: strace attached to the server follows each crash's process (faults.sh).
# tier: fast (make check, and make check-all)
export FAULTS_MODE=socket CORESINK_TEST_NAME=${CORESINK_TEST_NAME:-t-ledger-writes-socket}
exec bash "$(dirname "$0")/t-ledger-writes.sh" "$@"
