#!/bin/bash
# t-kills in socket mode: the server's process for a crash killed before each step of its capture in turn, strace
# attached to the real server (faults.sh); the server names the crash. FAULTS=all and FAULTS_STEPS as there.
# tier: all (make check-all only)
export FAULTS_MODE=socket CORESINK_TEST_NAME=${CORESINK_TEST_NAME:-t-kills-socket}
exec bash "$(dirname "$0")/t-kills.sh" "$@"
