#!/bin/bash
# check-all.sh BUILDDIR: make check-all (CI's .ci/run), in three lanes on the machine's two CPUs, nothing dropped:
#   the VM lane, in the background: Debian 12's, 13's and unstable's images built side by side, each release booted
#     (tests/vm/run.sh --record), unstable's last boot also recording a short list of the power cuts;
#   the static lane, in the background: the Debian roots the end-to-end tests boot, built ahead (tests/e2e/roots.sh),
#     piuparts on the three releases (tests/e2e/piuparts.sh), then, niced (they take what CPU the others leave),
#     static analysis and each fuzzer for FUZZ_SECONDS. None of it sets anything of the machine's;
#   the host lane: the Check suites plain, under valgrind and under ASan+UBSan (one of them tries kernel.core_pattern,
#     so never beside an end-to-end test), then every end-to-end test; then, once all three are done, the power cuts
#     replayed and checked here (tests/vm/run.sh --replay), which crash processes under this host's
#     kernel.core_pattern and so wait for the end-to-end tests, the only others that set it.
# Why three: the end-to-end tier is the long pole, and it waited for the analyzers and fuzzers (about 1200 s on
# 2026-11-29's machine) while the VM lane ended long before it, leaving a CPU idle (CI's stop 70: VM lane 1699 s,
# end-to-end tests to 3174 s); piuparts and the roots' builds were about 500 s of the tier itself (run 48 here). The
# packages the lanes use (make deb, and the later version t-package upgrades to, packed from it) are made once,
# first. Each step's time is said (== ... s) and the other lanes' output follows the host lane's. Exit 0 when every
# step passed.
set -u
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
case $B in /*) ;; *) B=$PWD/$B ;; esac
export B
MAKE=${MAKE:-make}
t0=$(date +%s)
lap() { echo "== check-all: $* at $(( $(date +%s) - t0 )) s"; }
step() { local what=$1; shift; lap "$what"; "$@" || { lap "$what FAILED"; FAILED="$FAILED $what"; return 1; }; }
FAILED=""

step layout sh scripts/check-layout.sh || exit 1
step build $MAKE -s -j2 all test-programs || exit 1
step "the planted build" $MAKE -s -j2 B="$B/planted" PLANT=-DCORESINK_TEST_PLANT_LINK_BEFORE_SYNC \
	"$B/planted/coresink" || exit 1
CORESINK_ROOT_CACHE=$(mktemp -d /var/tmp/coresink-roots.XXXXXX) || exit 1
export CORESINK_ROOT_CACHE
trap 'rm -rf "$CORESINK_ROOT_CACHE"' EXIT
step "the packages" bash -c '. tests/e2e/lib.sh; scratch; package_debs; ok "$(basename "$DEB") $(basename "$DEB2")"' ||
	exit 1

rm -f "$B/vm-lane.rc" "$B/static-lane.failed"
lap "the VM lane starts"
( bash tests/vm/run.sh "$B" --record > "$B/vm-lane.log" 2>&1; echo $? > "$B/vm-lane.rc"
  echo "== check-all: the VM lane ended at $(( $(date +%s) - t0 )) s" >> "$B/vm-lane.log" ) &
VM_LANE=$!
lap "the static lane starts"
( FAILED=""
  step "the tier's roots, ahead" bash tests/e2e/roots.sh
  step piuparts bash -c 'bash tests/e2e/piuparts.sh; rc=$?; [ "$rc" = 0 ] || [ "$rc" = 77 ]'
  step analyze nice -n 10 $MAKE -s analyze
  step "the fuzzers" nice -n 10 $MAKE -s fuzz-run FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
  lap "the static lane ended"
  echo "$FAILED" > "$B/static-lane.failed" ) > "$B/static-lane.log" 2>&1 &
STATIC_LANE=$!
trap 'kill $VM_LANE $STATIC_LANE 2>/dev/null; rm -rf "$CORESINK_ROOT_CACHE"' EXIT

UNITS=$(ls tests/check_*.c | sed 's#tests/check_##; s#\.c$##' | tr '\n' ' ')
step "the suites" sh tests/run-units.sh -j 2 "$B" $UNITS
step "the suites under valgrind" sh tests/run-units.sh -j 2 --valgrind "$B" $UNITS
step "the suites under ASan+UBSan" $MAKE -s -j2 B="$B/asan" CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	LDFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" asan-units
step "the end-to-end tests" bash tests/e2e/run.sh "$B" all ||
	FAILED="$FAILED ($(tr '\n' ' ' < "$B/e2e-failed-all" 2>/dev/null | sed 's/ $//'))"

lap "waiting for the static lane"
wait $STATIC_LANE
cat "$B/static-lane.log"
# What failed there (nothing: an empty line); no file at all: the lane itself died.
FAILED="$FAILED$(cat "$B/static-lane.failed" 2>/dev/null || echo ' static')"
lap "waiting for the VM lane"
wait $VM_LANE
trap 'rm -rf "$CORESINK_ROOT_CACHE"' EXIT
cat "$B/vm-lane.log"
if [ "$(cat "$B/vm-lane.rc" 2>/dev/null)" = 0 ]; then
	step "the power cuts replayed" bash tests/vm/run.sh "$B" --replay
else
	lap "the VM lane FAILED"
	FAILED="$FAILED vm"
fi
lap "done${FAILED:+, failed:$FAILED}"
[ -z "$FAILED" ]
