#!/bin/bash
# What MaxCoresPerSignature saves on a crash loop: N (1000) crashes of one bug (tests/helpers/bugs.c, a null
# dereference), each a new process, stored with the defaults (compressed) and MaxCoresPerSignature=2, then the
# directory's size against what the N cores would have taken (N times the mean disk of the kept ones, from their
# entries' CORESINK_DISK). Needs no journald: the entries are read from the kernel log when none runs.
# usage: scripts/signature-loop.sh [BUILDDIR [N]]  (as root; sets kernel.core_pattern and puts it back)
set -eu
B=$(cd "${1:-build}" && pwd)
N=${2:-1000}
TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /var/tmp/coresink-signature-loop.XXXXXX)
. "$TOP/scripts/keep-pattern.sh"
keep_pattern "$T"
cc -O0 -g -o "$T/bugs" "$TOP/tests/helpers/bugs.c"
mkdir "$T/cores"
printf '[Coresink]\nDirectory=%s/cores\nKeepFree=64M\nMaxUse=100%%\nRateLimitBurst=0\nRateLimitGlobalBurst=0\nMaxCoresPerSignature=2\n' \
	"$T" > "$T/c.conf"
echo 16 > /proc/sys/kernel/core_pipe_limit
"$B/coresink" --config "$T/c.conf" --core-pattern > /proc/sys/kernel/core_pattern
t0=$(date +%s)
for _ in $(seq "$N"); do
	{ (ulimit -c unlimited; exec "$T/bugs" null) || true; } 2> /dev/null
done
# The last handler may still be compressing.
for _ in $(seq 100); do grep -q '^inflight ' "$T/cores/.coresink.state" || break; sleep 0.1; done
t1=$(date +%s)
kept=$(find "$T/cores" -name 'core.*' | wc -l)
disk=$(find "$T/cores" -name 'core.*' -printf '%b\n' | awk '{ s += $1 * 512 } END { print s + 0 }')
seen=$(awk '$1 == "sig" { print $3 }' "$T/cores/.coresink.signatures")
echo "$N crashes of one bug in $((t1 - t0)) s ($(nproc) CPUs, $(uname -r)); the signature seen $seen times"
echo "cores kept: $kept, on disk: $disk bytes"
echo "without MaxCoresPerSignature: about $((disk / (kept > 0 ? kept : 1) * N)) bytes ($N x the kept cores' mean)"
