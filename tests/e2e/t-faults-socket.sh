#!/bin/bash
# t-faults in socket mode: the same single syscall failures, injected by strace attached to the server (faults.sh)
# into each crash's process, counted from its fork (and into the server's own calls where it makes the same one),
# with the same checks. FAULTS=all and FAULTS_LIST as there.
# tier: all (make check-all only)
export FAULTS_MODE=socket CORESINK_TEST_NAME=${CORESINK_TEST_NAME:-t-faults-socket}
exec bash "$(dirname "$0")/t-faults.sh" "$@"
