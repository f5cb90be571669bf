#!/bin/bash
# What DebuginfodURLs= gives and costs, on real crashes, with elfutils' own server on 127.0.0.1 (docs/debuginfod.md):
#   1. sleep, a stripped Debian binary: its trace without the local debug files and with them served (libc6-dbg's,
#      from Debian's main archive; coreutils' own -dbgsym is in debian-debug, which this script cannot assume);
#   2. the cost: each crash's release (fault until the process is let go) and its entry's fetch step, without
#      DebuginfodURLs= and with it, N crashes each, medians;
#   3. the cache after 100 crashes of 5 stripped programs: its size, and how often the server was asked.
# The local debug files (/usr/lib/debug/.build-id) are moved aside for part 1 and put back at exit, on failure too.
# usage: scripts/debuginfod-report.sh [BUILDDIR [N]]   (as root, with the users make install creates)
set -u
B=$(cd "${1:-build}" && pwd)
N=${2:-10}
export B CORESINK_TEST_NAME=debuginfod-report
. "$(dirname "$0")/../tests/e2e/lib.sh"
need_root "it sets kernel.core_pattern"
for tool in debuginfod cc objcopy strip; do command -v $tool > /dev/null || fail "no $tool"; done
scratch
chmod 0755 "$T"
start_journald
mkdir -p "$T/served" "$T/bin"

# The server, over libc6-dbg's files (the version installed) and the programs' debug files.
(cd "$T" && apt-get download -q "libc6-dbg=$(dpkg-query -W -f '${Version}' libc6)" > /dev/null 2>&1) ||
	fail "apt-get download libc6-dbg"
dpkg-deb -x "$T"/libc6-dbg_*.deb "$T/served/libc6-dbg"
PORT=$(( 20000 + $$ % 20000 ))
debuginfod -F "$T/served" -p "$PORT" -d "$T/debuginfod.sqlite" > "$T/debuginfod.log" 2>&1 &
SERVER=$!
at_exit "kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null"
URL=http://127.0.0.1:$PORT

# five PROGRAMS: stripped, their debug files served.
for i in 1 2 3 4 5; do
	printf '__attribute__((noinline)) static int level2_%d(int *p) { return *p + %d; }\n' "$i" "$i" > "$T/p$i.c"
	printf '__attribute__((noinline)) int level1_%d(int n) { return level2_%d(n > 100 ? &n : 0); }\n' "$i" "$i" >> "$T/p$i.c"
	printf 'int main(int argc, char **argv) { (void) argv; return level1_%d(argc); }\n' "$i" >> "$T/p$i.c"
	cc -O1 -g -o "$T/bin/prog$i" "$T/p$i.c" || fail "cc"
	objcopy --only-keep-debug "$T/bin/prog$i" "$T/served/prog$i.debug" && strip --strip-all "$T/bin/prog$i"
done
# Until the server has scanned them all: the last program's file, and libc's.
libc_id=$(readelf -n "$(ldd /bin/sleep | awk '/libc.so.6/ { print $3 }')" | sed -n 's/.*Build ID: //p')
for _ in $(seq 300); do
	rm -rf "$T/probe"
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T/probe debuginfod-find debuginfo "$T/bin/prog5" > /dev/null 2>&1 &&
		DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T/probe debuginfod-find debuginfo "$libc_id" > /dev/null 2>&1 && break
	sleep 0.2
done
rm -rf "$T/probe"

frames() { jctl -o cat COREDUMP_PID="$1" | sed -n '/^Stack trace of thread/,/^$/p' | sed -n '2,9p'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# release PROGRAM...: a crash, and the milliseconds from its start until it was let go (its parent's wait returned).
release() { local t0; t0=$(date +%s%N); crash_run "$@"; echo $(( ($(date +%s%N) - t0) / 1000000 )); }

echo "== 1. sleep (coreutils $(dpkg-query -W -f '${Version}' coreutils), libc6 $(dpkg-query -W -f '${Version}' libc6); $(uname -r))"
if [ -d /usr/lib/debug/.build-id ]; then
	mv /usr/lib/debug/.build-id /usr/lib/debug/.build-id.coresink-report
	at_exit "[ ! -d /usr/lib/debug/.build-id.coresink-report ] || mv /usr/lib/debug/.build-id.coresink-report /usr/lib/debug/.build-id"
fi
for urls in "" "$URL"; do
	write_config "$T/c.conf" "Directory=$T/cores-sleep${urls:+-urls}" "RateLimitBurst=0" ${urls:+"DebuginfodURLs=$urls"}
	use_handler "$T/c.conf"
	( ulimit -c unlimited; exec sleep 60 ) & pid=$!
	sleep 0.3; kill -SEGV $pid; wait $pid 2>/dev/null
	journal_entry "$pid" > /dev/null || fail "no entry of sleep"
	if [ -n "$urls" ]; then echo "-- with DebuginfodURLs=$urls"; else echo "-- without DebuginfodURLs=, no local debug files"; fi
	frames "$pid"
	e=$(journal_entry "$pid")
	[ -n "$urls" ] && echo "CORESINK_DEBUGINFO=$(field "$e" CORESINK_DEBUGINFO)"
done
[ ! -d /usr/lib/debug/.build-id.coresink-report ] || mv /usr/lib/debug/.build-id.coresink-report /usr/lib/debug/.build-id

echo "== 2. the cost: $N crashes of prog1 each way (ms, medians)"
for urls in "" "$URL"; do
	write_config "$T/c.conf" "Directory=$T/cores-cost${urls:+-urls}" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
		${urls:+"DebuginfodURLs=$urls"}
	use_handler "$T/c.conf"
	: > "$T/rel" ; : > "$T/fetch"; : > "$T/trace"
	for i in $(seq "$N"); do
		release "$T/bin/prog1" >> "$T/rel"
		e=$(journal_entry "$CRASH_PID") || fail "no entry"
		f=$(field "$e" CORESINK_DEBUGINFO_USEC) a=$(field "$e" CORESINK_TRACE_USEC)
		echo $(( ${f:-0} / 1000 )) >> "$T/fetch"
		echo $(( ${a:-0} / 1000 )) >> "$T/trace"
		[ "$i" = 1 ] && first_fetch=$(head -n 1 "$T/fetch") first_said=$(field "$e" CORESINK_DEBUGINFO)
	done
	printf '%-22s release %s ms; fetch step %s ms (the first crash %s ms); analysis %s ms\n' \
		"$([ -n "$urls" ] && echo DebuginfodURLs=set || echo no DebuginfodURLs=)" "$(median < "$T/rel")" \
		"$(median < "$T/fetch")" "${first_fetch:-0}" "$(median < "$T/trace")"
	[ -n "$urls" ] && echo "  the first crash: $first_said"
done

echo "== 3. 100 crashes of 5 programs, one cache"
write_config "$T/c.conf" "Directory=$T/cores-cache" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "DebuginfodURLs=$URL" \
	"MaxUse=100%" "KeepFree=64M"
use_handler "$T/c.conf"
asked0=$(grep -c 'GET /buildid/.*/debuginfo' "$T/debuginfod.log")
for round in $(seq 20); do
	for i in 1 2 3 4 5; do crash_run "$T/bin/prog$i"; done
done
journal_entry "$CRASH_PID" > /dev/null || fail "no entry of the last crash"
asked=$(( $(grep -c 'GET /buildid/.*/debuginfo' "$T/debuginfod.log") - asked0 ))
files=$(find "$T/cores-cache/.debuginfo/.build-id" -name '*.debug' -printf '%s\n')
echo "cache: $(grep -c . <<< "$files") files of $(awk '{ s += $1 } END { print s + 0 }' <<< "$files") bytes; the directory $(du -sb "$T/cores-cache/.debuginfo" | cut -f1) bytes with its directories, $(du -sk "$T/cores-cache/.debuginfo" | cut -f1) KiB on disk; the server asked $asked times"
echo "debug files served, each: $(stat -c '%n %s' "$T"/served/prog*.debug | sed "s#$T/served/##" | tr '\n' ' ')"
