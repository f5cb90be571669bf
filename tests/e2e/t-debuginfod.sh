#!/bin/bash
# Debug info by build-id (DebuginfodURLs=), with elfutils' own server: a stripped program and its stripped shared
# library, their debug files (objcopy --only-keep-debug) served by `debuginfod -F` on 127.0.0.1. The entry's trace
# names every function gdb names on the same core given the same debug files, frame for frame, in pipe and socket
# mode, and the signature uses the names; 20 crashes of the program fetch each file once. A server stopped, one
# that hangs (accepts and never answers), one that is slow (a byte a second) and one that serves a file of another
# build-id: the entry arrives within DebuginfodTimeoutSec plus a second, says why, and the core is stored as always.
# The crash captured with the server down, retraced once a server is up (coresink --retrace): a new entry names its
# functions and the first entry; --summary still counts one crash. The same bug with and without the debug files:
# two signatures, one set of keys, counted as one.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and runs the fetch step as coresink-debuginfod"
for tool in debuginfod cc objcopy strip gdb; do command -v $tool > /dev/null || skip "no $tool"; done
id coresink-debuginfod > /dev/null 2>&1 || skip "no user coresink-debuginfod: run through tests/e2e/run.sh"
scratch
chmod 0755 "$T"
start_journald
BADSERVER=$B/badserver

# The fetch step's confinement, as fetch_run() runs it (check_fetch, with the users this runner made): it cannot
# read the core, the crash's /proc or a root 0600 file, writes only its cache, and reaches the network.
if [ -x "$B/check_fetch" ]; then
	check "the fetch step cannot read the core, /proc or a root 0600 file; it writes only its cache: $(CORESINK_TEST_NEED_USERS=1 "$B/check_fetch" 2>&1 | grep '^fetch:' | cut -c1-160)" \
		quiet env CORESINK_TEST_NEED_USERS=1 "$B/check_fetch"
fi

# The program and its library, built with debug info, which goes to the server's directory; what runs is stripped.
mkdir -p "$T/bin" "$T/served"
cat > "$T/lib.c" <<'EOF'
#include <stdlib.h>
__attribute__((noinline)) int lib_crash(int *p) { return *p + 1; }
__attribute__((noinline)) int lib_func(int n) { int *p = n > 100 ? malloc(4) : NULL; return lib_crash(p) + n; }
EOF
cat > "$T/prog.c" <<'EOF'
#include <stdio.h>
int lib_func(int n);
__attribute__((noinline)) static int prog_level2(int n) { return lib_func(n) * 2; }
__attribute__((noinline)) int prog_level1(int n) { return prog_level2(n + 1); }
int main(int argc, char **argv) { (void) argv; printf("%d\n", prog_level1(argc)); return 0; }
EOF
cc -O1 -g -fPIC -shared -o "$T/bin/libdbg.so" "$T/lib.c" &&
	cc -O1 -g -o "$T/bin/dbgprog" "$T/prog.c" -L"$T/bin" -ldbg -Wl,-rpath,"$T/bin" || fail "building the program"
for f in dbgprog libdbg.so; do
	objcopy --only-keep-debug "$T/bin/$f" "$T/served/$f.debug" && strip --strip-all "$T/bin/$f" || fail "stripping $f"
done
check "the program and its library are stripped: no .symtab" bash -c "! readelf -S '$T/bin/dbgprog' '$T/bin/libdbg.so' | grep -q '\.symtab'"

# The server, on a port of its own, until it has read the debug files.
PORT=$(( 20000 + $$ % 20000 ))
serve_debuginfo "$T/served" "$PORT" "$T/bin/dbgprog"
URL=http://127.0.0.1:$PORT
check "debuginfod serves the program's debug file" grep -q "GET /buildid/.*/debuginfo 200" "$DEBUGINFOD_LOG"
fetches() { grep -c "GET /buildid/$1/debuginfo 200" "$DEBUGINFOD_LOG"; }

# frames PID: the function names of the crashing thread's frames, from its entry's trace.
frames() { jctl -o cat COREDUMP_PID="$1" | sed -n '/^Stack trace of thread/,/^$/p' | sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p'; }
# gdb_frames CORE: the same, from gdb's backtrace of CORE given the debug files of the cache.
gdb_frames() {
	gdb -batch -nx -iex "set debug-file-directory $1" -ex 'echo BACKTRACE\n' -ex bt "$T/bin/dbgprog" "$2" 2>/dev/null |
		sed -n '/^BACKTRACE/,$p' | sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .*/\2/p'
}

# setup NAME KEY=VALUE...: a config with its own core directory (and so its own empty cache) for the handler.
setup() {
	local d=$T/$1; shift
	write_config "$d.conf" "Directory=$d" "Compress=no" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "$@"
	use_handler "$d.conf"
	DIR=$d
}

id_prog=$(readelf -n "$T/bin/dbgprog" | sed -n 's/.*Build ID: //p')
id_lib=$(readelf -n "$T/bin/libdbg.so" | sed -n 's/.*Build ID: //p')
served0="$(fetches "$id_prog") $(fetches "$id_lib")"

# 0. Without DebuginfodURLs=: the program's own frames unnamed (its library's exported ones are named by .dynsym).
setup pipe
crash_run "$T/bin/dbgprog"
e0=$(journal_entry "$CRASH_PID") || fail "no entry without DebuginfodURLs="
check "without debug files: $(field "$e0" CORESINK_SIGNATURE_TEXT)" matches "$(field "$e0" CORESINK_SIGNATURE_TEXT)" \
	"^2;SIGSEGV;libdbg.so!lib_crash;libdbg.so!lib_func;dbgprog@$id_prog\+0x[0-9a-f]+\$"

# 1. Pipe mode: fetched from the server, the trace names every frame as gdb does.
setup pipe "DebuginfodURLs=$URL" "DebuginfodTimeoutSec=15s"
crash_run "$T/bin/dbgprog"
e=$(journal_entry "$CRASH_PID") || fail "no entry"
check "pipe mode: fetched both modules from the server: $(field "$e" CORESINK_DEBUGINFO | cut -c1-160)" \
	all_of_re "$(field "$e" CORESINK_DEBUGINFO)" "fetched 2: .*libdbg.so from $URL" "dbgprog from $URL"
ours=$(frames "$CRASH_PID")
theirs=$(gdb_frames "$DIR/.debuginfo" "$(field "$e" COREDUMP_FILENAME)")
check "pipe mode: every function named: $(echo $ours | cut -d' ' -f1-5)" \
	test "$(head -n 5 <<< "$ours" | tr '\n' ' ')" = "lib_crash lib_func prog_level2 prog_level1 main "
check "pipe mode: frame for frame gdb's, given the same debug files ($(echo $theirs | cut -d' ' -f1-5))" \
	test "$(head -n 5 <<< "$ours")" = "$(head -n 5 <<< "$theirs")"
check "the signature uses the names: $(field "$e" CORESINK_SIGNATURE_TEXT)" \
	test "$(field "$e" CORESINK_SIGNATURE_TEXT)" = "2;SIGSEGV;libdbg.so!lib_crash;libdbg.so!lib_func;dbgprog!prog_level2"
# One bug, one signature whatever debug info was at hand: two signatures, one set of keys, counted as one.
sig0=$(field "$e0" CORESINK_SIGNATURE) sig1=$(field "$e" CORESINK_SIGNATURE)
check "with and without the debug files: other signatures ($sig0, $sig1), the same keys ($(field "$e" CORESINK_SIGNATURE_KEYS))" \
	test "$sig0" != "$sig1" -a -n "$(field "$e" CORESINK_SIGNATURE_KEYS)" -a \
	"$(field "$e" CORESINK_SIGNATURE_KEYS)" = "$(field "$e0" CORESINK_SIGNATURE_KEYS)"
check "the second joins the first: seen twice, under it for MaxCoresPerSignature= (JOINS=$(field "$e" CORESINK_SIGNATURE_JOINS))" \
	test "$(field "$e" CORESINK_SIGNATURE_JOINS)" = "$sig0" -a "$(field "$e" CORESINK_SIGNATURE_SEEN)" = 2
summary=$("$CORESINK" --summary --json --since "$TEST_SINCE" | grep "\"signature\":\"$sig1\"")
check "--summary: one group, by the newer signature, the older joined: $(cut -c1-200 <<< "$summary")" \
	all_of_re "$summary" "\"joined\":\\[[^]]*\"$sig0\"" "\"crashes\":[1-9]"
check "the cache holds them by build-id" \
	test -s "$DIR/.debuginfo/.build-id/${id_prog:0:2}/${id_prog:2}.debug" -a \
	-s "$DIR/.debuginfo/.build-id/${id_lib:0:2}/${id_lib:2}.debug"
check "the cache is the fetch user's alone ($(stat -c '%U %a' "$DIR/.debuginfo")): another user lists nothing of it" \
	test "$(stat -c '%U %a' "$DIR/.debuginfo")" = "coresink-debuginfod 700" -a -z \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups ls -A "$DIR/.debuginfo" 2>/dev/null)"

# 2. 20 crashes more of the same program: each file was fetched once, for the first.
served1="$(fetches "$id_prog") $(fetches "$id_lib")"
for i in $(seq 20); do crash_run "$T/bin/dbgprog"; done
journal_entry "$CRASH_PID" > /dev/null || fail "no entry of the 21st crash"
served21="$(fetches "$id_prog") $(fetches "$id_lib")"
check "21 crashes: each file fetched once (served before: $served0; after the 1st: $served1; after the 21st: $served21)" \
	test "$served1" = "$(( ${served0% *} + 1 )) $(( ${served0#* } + 1 ))" -a "$served21" = "$served1"
check "and the 21st crash's trace still names them" test "$(frames "$CRASH_PID" | head -n 3 | tr '\n' ' ')" = \
	"lib_crash lib_func prog_level2 "

# 2b. The crash in a mount namespace of its own, with a cache of its own, fetched at this crash (unshare --mount
# execs the program: the pid is its own). The analysis runs in the process's own root, as it does for every crash
# under socket mode's unit, whose server has a mount namespace of its own; the fetched files are used there too.
if command -v unshare > /dev/null; then
	setup ownns "DebuginfodURLs=$URL" "DebuginfodTimeoutSec=15s"
	crash_run unshare --mount "$T/bin/dbgprog"
	e=$(journal_entry "$CRASH_PID") || fail "no entry of the crash in its own mount namespace"
	check "own mount namespace: analysed in the process's own root: $(field "$e" CORESINK_TRACE_SANDBOX)" \
		has "$(field "$e" CORESINK_TRACE_SANDBOX)" "process-root"
	check "own mount namespace: fetched there, and every function named: $(frames "$CRASH_PID" | head -n 5 | tr '\n' ' ')" \
		test "$(frames "$CRASH_PID" | head -n 5 | tr '\n' ' ')" = "lib_crash lib_func prog_level2 prog_level1 main "
fi

# 3. Socket mode, the same.
if have_socket_mode; then
	setup socket "DebuginfodURLs=$URL" "Socket=$T/kernel.socket"
	start_server "$DIR.conf"
	use_socket "$DIR.conf"
	crash_run "$T/bin/dbgprog"
	e=$(journal_entry "$CRASH_PID") || fail "no entry in socket mode"
	check "socket mode: fetched, and every function named: $(frames "$CRASH_PID" | head -n 5 | tr '\n' ' ')" \
		test "$(frames "$CRASH_PID" | head -n 5 | tr '\n' ' ')" = "lib_crash lib_func prog_level2 prog_level1 main "
	stop_server
fi

# 4. Servers that fail: the entry within DebuginfodTimeoutSec (3 s) plus a second, saying why; the core stored.
# misbehave NAME WHY-RE: a crash under the server of setup's URL; its entry's delay after the release and its fields.
misbehave() {
	local name=$1 why=$2 t0 t1
	crash_run "$T/bin/dbgprog"
	t0=$(date +%s%N)
	e=$(journal_entry "$CRASH_PID")
	for _ in $(seq 100); do [ -n "$e" ] && break; sleep 0.1; e=$(journal_entry "$CRASH_PID"); done
	t1=$(date +%s%N)
	check "$name: the entry $(( (t1 - t0) / 1000000 )) ms after the release, within 3 s + 1 s" test $(( (t1 - t0) / 1000000 )) -le 4000
	check "$name: it says why: $(field "$e" CORESINK_DEBUGINFO | cut -c1-200)" matches "$(field "$e" CORESINK_DEBUGINFO)" "$why"
	check "$name: the core is stored all the same" test "$(field "$e" CORESINK_RESULT)" = stored -a -s "$(field "$e" COREDUMP_FILENAME)"
}
setup stopped "DebuginfodURLs=http://127.0.0.1:$((PORT + 1))" "DebuginfodTimeoutSec=3s"
misbehave "a server stopped" "not fetched 2: .*dbgprog \\((Couldn't connect|Connection refused|.*connect)"

# --retrace: that crash, captured with its server down, analysed again once a server is up: a new entry that
# names the first, with every function named, the signature of the named crash, and no second crash counted.
stopped_entry=$(field "$e" CORESINK_ENTRY) stopped_core=$(field "$e" COREDUMP_FILENAME) stopped_pid=$CRASH_PID
check "the crash with the server down has its own frames unnamed: $(frames "$stopped_pid" | head -n 3 | tr '\n' ' ')" \
	test "$(frames "$stopped_pid" | sed -n 3p)" = n/a
write_config "$DIR.conf" "Directory=$DIR" "DebuginfodURLs=$URL" "DebuginfodTimeoutSec=15s"
out=$("$CORESINK" --config "$DIR.conf" --retrace "$stopped_core" 2>&1)
check "coresink --retrace CORE-PATH: $(head -n 2 <<< "$out" | tr '\n' ' ' | cut -c1-200)" \
	matches "$out" "^Retraced pid $stopped_pid \(dbgprog\): signature $sig1, was $(field "$e" CORESINK_SIGNATURE)"
RETRACE_ID=baa83633e2924caa8fbb9d3beeb07bb4
r=$(MESSAGE_ID=$RETRACE_ID entry_poll "$TEST_SINCE" export "CORESINK_RETRACE_OF=$stopped_entry")
check "the retrace's entry names the crash's and repeats its pid" \
	test "$(field "$r" MESSAGE_ID)" = $RETRACE_ID -a "$(field "$r" COREDUMP_PID)" = "$stopped_pid"
check "it fetched the debug files: $(field "$r" CORESINK_DEBUGINFO | cut -c1-120)" \
	matches "$(field "$r" CORESINK_DEBUGINFO)" "fetched 2: .* from $URL"
retraced=$(jctl -o cat MESSAGE_ID=$RETRACE_ID "CORESINK_RETRACE_OF=$stopped_entry" |
	sed -n '/^Stack trace of thread/,/^$/p' | sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' | head -n 5 | tr '\n' ' ')
check "its trace names every function: $retraced" test "$retraced" = "lib_crash lib_func prog_level2 prog_level1 main "
check "its signature is the named crash's, and says what it was: $(field "$r" CORESINK_RETRACE_OF_SIGNATURE)" \
	test "$(field "$r" CORESINK_SIGNATURE)" = "$sig1" -a \
	"$(field "$r" CORESINK_RETRACE_OF_SIGNATURE)" = "$(field "$e" CORESINK_SIGNATURE)"
crashes=$(jctl -o cat MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 COREDUMP_EXE="$T/bin/dbgprog" | grep -c '^Process ')
summary=$("$CORESINK" --summary --json --since "$TEST_SINCE" | grep "\"executable\":\"$T/bin/dbgprog\"")
check "--summary: one group, $crashes crashes as the journal has, the retrace not counted: $(cut -c1-120 <<< "$summary")" \
	test "$(grep -c . <<< "$summary")" = 1 -a "$(sed -n 's/.*"crashes":\([0-9]*\).*/\1/p' <<< "$summary")" = "$crashes"
check "--summary: the newest crash is shown by its retrace's signature, with its names" \
	matches "$summary" "^\\{\"signature\":\"$sig1\".*\"top\":\"SIGSEGV;libdbg.so!lib_crash;libdbg.so!lib_func;dbgprog!prog_level2\""
if command -v coredumpctl > /dev/null; then
	check "coredumpctl lists the crash once" test "$(cdctl list "$stopped_pid" --no-legend 2>/dev/null | grep -c .)" = 1
fi
# step_status: the fetch step's confinement as /proc shows it, read while it waits on a server that hangs.
step_status() {
	local p
	for _ in $(seq 100); do
		p=$(pgrep -u coresink-debuginfod -f -- '--fetch-debuginfo' | head -n 1)
		[ -n "$p" ] && grep -q '^Seccomp:' "/proc/$p/status" 2>/dev/null &&
			[ "$(grep '^Seccomp:' "/proc/$p/status" | cut -f2)" != 0 ] && break
		sleep 0.05
	done
	[ -n "$p" ] || return 1
	printf '%s' "$(grep -E '^(Seccomp|NoNewPrivs|CapEff):' "/proc/$p/status" | tr '\t\n' '  ')"
	for ns in user mnt ipc net; do
		[ "$(readlink "/proc/$p/ns/$ns")" = "$(readlink "/proc/$$/ns/$ns")" ] && printf '%s=host ' $ns || printf '%s=own ' $ns
	done
}
for mode in hang slow; do
	port=$((PORT + 2))
	"$BADSERVER" $mode $port > "$T/bad.out" 2>&1 &
	bad=$!
	at_exit "kill $bad 2>/dev/null"
	for _ in $(seq 50); do grep -q ready "$T/bad.out" && break; sleep 0.1; done
	setup $mode "DebuginfodURLs=http://127.0.0.1:$port" "DebuginfodTimeoutSec=3s"
	if [ $mode = hang ]; then
		step_status > "$T/step.status" &
		watcher=$!
	fi
	misbehave "a server that is $mode" "(stopped at DebuginfodTimeoutSec|[Tt]imeout|no time left)"
	if [ $mode = hang ]; then
		wait $watcher
		check "the step, as /proc shows it: $(cat "$T/step.status")" \
			all_of_re "$(tr ' ' '\n' < "$T/step.status")" '^2$' 'user=own' 'mnt=own' 'ipc=own' 'net=host'
		check "no new privileges, no capability" all_of_re "$(cat "$T/step.status")" 'NoNewPrivs: 1 ' 'CapEff: 0+ '
	fi
	kill $bad 2>/dev/null; wait $bad 2>/dev/null || true
done
# Servers that send more than the cache may take: a chunked answer that never ends (no length said), and 1 GiB
# with its length said. DebuginfodMaxUse=1M: the download is stopped there, not at the deadline, and the cache
# stays within it.
for mode in chunked big; do
	port=$((PORT + 4))
	"$BADSERVER" $mode $port > "$T/bad.out" 2>&1 &
	bad=$!
	at_exit "kill $bad 2>/dev/null"
	for _ in $(seq 50); do grep -q ready "$T/bad.out" && break; sleep 0.1; done
	setup $mode "DebuginfodURLs=http://127.0.0.1:$port" "DebuginfodTimeoutSec=3s" "DebuginfodMaxUse=1M"
	misbehave "a server that sends $mode" "larger than the cache may take"
	kill $bad 2>/dev/null; wait $bad 2>/dev/null || true
	check "$mode: the cache takes $(du -sk "$DIR/.debuginfo" | cut -f1) KiB, within DebuginfodMaxUse=1M" \
		test "$(du -sk "$DIR/.debuginfo" | cut -f1)" -le 1100
done
# User namespaces off (a sysctl hardened hosts set): the step cannot be confined, so it fetches nothing and the
# entry says why; the trace is made all the same. (Where this host refuses the sysctl, the VM tier runs it.)
old_userns=$(cat /proc/sys/user/max_user_namespaces)
at_exit "echo $old_userns > /proc/sys/user/max_user_namespaces 2>/dev/null"
if ! { echo 0 > /proc/sys/user/max_user_namespaces; } 2>/dev/null; then
	ok "user namespaces cannot be turned off here (user.max_user_namespaces refused): the VM tier checks that"
else
	setup nouserns "DebuginfodURLs=$URL" "DebuginfodTimeoutSec=5s"
	crash_run "$T/bin/dbgprog"
	e=$(journal_entry "$CRASH_PID")
	echo "$old_userns" > /proc/sys/user/max_user_namespaces
	check "user namespaces off: nothing fetched, and why: $(field "$e" CORESINK_DEBUGINFO | cut -c1-160)" \
		matches "$(field "$e" CORESINK_DEBUGINFO)" "not fetched: the step could not be confined"
	check "and nothing of the server's in its cache" \
		test -z "$(find "$DIR/.debuginfo" -name '*.debug' 2>/dev/null)"
	check "the core is stored, and its trace made: $(frames "$CRASH_PID" | head -n 2 | tr '\n' ' ')" \
		test "$(field "$e" CORESINK_RESULT)" = stored -a "$(frames "$CRASH_PID" | head -n 1)" = lib_crash
fi
port=$((PORT + 3))
"$BADSERVER" wrong $port "$T/served/libdbg.so.debug" > "$T/bad.out" 2>&1 &
bad=$!
at_exit "kill $bad 2>/dev/null"
for _ in $(seq 50); do grep -q ready "$T/bad.out" && break; sleep 0.1; done
setup wrong "DebuginfodURLs=http://127.0.0.1:$port" "DebuginfodTimeoutSec=3s"
misbehave "a server of another build-id's file" "dbgprog \\(the server's file has another build-id"
check "and nothing of it was kept" test -z "$(find "$DIR/.debuginfo/.build-id" -name "${id_prog:2}.debug" 2>/dev/null)"
kill $bad 2>/dev/null; wait $bad 2>/dev/null || true
