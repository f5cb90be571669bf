#!/bin/bash
# KeepModules=yes: two processes of a program and its library, both files deleted and replaced by another build
# between the start and the crash (an upgrade). The entry says both modules were kept; they are kept once each by
# build-id (.modules/.build-id/xx/rest), linked for each core; elfutils over the kept tree (eu-stack
# --debuginfo-path) and gdb through elfutils' debuginfod -F serving it give the entry's frames, where gdb on the
# paths names the new build's functions; a retrace after the upgrade names them too; removing one core keeps the
# modules, removing the other removes them. Without KeepModules= nothing is kept.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
for tool in gdb debuginfod eu-stack cc; do command -v $tool > /dev/null || skip "no $tool"; done
id coresink-analysis > /dev/null 2>&1 || skip "no user coresink-analysis: run through tests/e2e/run.sh"
scratch
chmod 0755 "$T"
start_journald
mkdir -p "$T/bin"

# build VERSION [C]: the program (with C) and its library, each build another (its functions' names say which).
build() {
	cat > "$T/lib.c" <<EOF
#include <unistd.h>
__attribute__((noinline)) int km_wait_$1(int n) { pause(); return n; }
EOF
	cat > "$T/prog.c" <<EOF
int km_wait_$1(int n);
__attribute__((noinline)) static int lvl2_$1(int n) { return km_wait_$1(n) * 2; }
__attribute__((noinline)) int lvl1_$1(int n) { return lvl2_$1(n + 1); }
${2:-}
int main(int argc, char **argv) { (void) argv; return lvl1_$1(argc); }
EOF
	rm -f "$T/bin/libkm.so" "$T/bin/kmprog"
	cc -O1 -g -fPIC -shared -o "$T/bin/libkm.so" "$T/lib.c" &&
		cc -O1 -g -o "$T/bin/kmprog" "$T/prog.c" -L"$T/bin" -lkm -Wl,-rpath,"$T/bin" || fail "building $1"
}
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
# crash_upgraded VERSION: kmprog started, another build (VERSION) put at its paths, then the process crashed; its
# pid in $p.
crash_upgraded() {
	( ulimit -c unlimited; exec "$T/bin/kmprog" ) & p=$!
	sleep 0.3
	build "$1"
	kill -SEGV $p; wait $p 2>/dev/null
}
frames() { jctl -o cat COREDUMP_PID="$1" MESSAGE_ID=$MESSAGE_ID | sed -n '/^Stack trace of thread/,/^$/p' |
	sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' | grep -E '_(old|new)$|^main$' | tr '\n' ' '; }

build old
id_prog=$(build_id "$T/bin/kmprog") id_lib=$(build_id "$T/bin/libkm.so")
write_config "$T/c.conf" "Directory=$T/cores" "KeepModules=yes" "RateLimitBurst=0"
use_handler "$T/c.conf"
pids=""
for _ in 1 2; do
	( ulimit -c unlimited; exec "$T/bin/kmprog" ) & pids="$pids $!"
done
sleep 0.5
# The upgrade: both files deleted, another build at their paths.
build new
for p in $pids; do kill -SEGV "$p"; wait "$p" 2>/dev/null; done
p1=${pids# } p1=${p1%% *} p2=${pids##* }
e1=$(journal_entry "$p1") || fail "no entry of the first crash"
e2=$(journal_entry "$p2") || fail "no entry of the second crash"
core1=$(field "$e1" COREDUMP_FILENAME) core2=$(field "$e2" COREDUMP_FILENAME)
check "the entry says both were kept: $(field "$e1" CORESINK_MODULES_KEPT)" \
	all_of_re "$(field "$e1" CORESINK_MODULES_KEPT)" "kmprog \\(${id_prog:0:16}" "libkm.so \\(${id_lib:0:16}"
check "and nothing was refused" \
	none_of "$(field "$e1" CORESINK_MODULES_KEPT) $(field "$e2" CORESINK_MODULES_KEPT)" "not kept"
tree=$T/cores/.modules/.build-id
check "kept once each, by build-id, where elfutils looks" \
	test -f "$tree/${id_prog:0:2}/${id_prog:2}" -a -f "$tree/${id_lib:0:2}/${id_lib:2}" -a \
	"$(find "$tree" -type f | wc -l)" = 2
check "the very files that ran: their build-ids" \
	test "$(build_id "$tree/${id_prog:0:2}/${id_prog:2}")" = "$id_prog" -a \
	"$(build_id "$tree/${id_lib:0:2}/${id_lib:2}")" = "$id_lib"
check "each linked for both cores (3 links)" test "$(stat -c %h "$tree/${id_prog:0:2}/${id_prog:2}")" = 3
check "root's, read by the analysis user's group only: $(stat -c '%a %U:%G' "$tree/${id_prog:0:2}/${id_prog:2}")" \
	test "$(stat -c '%a %U:%G' "$tree/${id_prog:0:2}/${id_prog:2}")" = "640 root:coresink-analysis"

st=$("$B/coresinkctl" --config "$T/c.conf" status 2>&1 | grep '^cores take:')
check "coresinkctl status counts the kept modules among MaxUse: $st" \
	grep -qE '[0-9.]+[KMG] of it modules kept for them' <<< "$st"

ours=$(frames "$p1")
check "the entry's trace names the old build's frames: $ours" test "$ours" = "km_wait_old lvl2_old lvl1_old main "
names() { sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ (]*\).*/\1/p' | grep -E '_(old|new)$|^main$' | tr '\n' ' '; }
eu=$(eu-stack --core="$core1" --debuginfo-path=":.debug:/usr/lib/debug:$T/cores/.modules" 2>&1 | names)
check "eu-stack over the kept tree: the entry's frames ($eu)" test "$eu" = "$ours"
gdb_names() { sed -n '/^BACKTRACE/,$p' | sed -n 's/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .*/\2/p' |
	grep -E '_(old|new)$|^main$' | tr '\n' ' '; }
wrong=$(gdb -batch -nx -ex 'echo BACKTRACE\n' -ex bt "$T/bin/kmprog" "$core1" 2>/dev/null | gdb_names)
check "gdb on the paths, as coredumpctl debug runs it, has the new build: not the entry's frames ($wrong)" \
	test "$wrong" != "$ours" -a -n "$(grep -o 'km_wait_new' <<< "$wrong")"
PORT=$(( 20000 + $$ % 20000 ))
debuginfod -F "$T/cores/.modules" -p "$PORT" -d "$T/debuginfod.sqlite" > "$T/debuginfod.log" 2>&1 &
SERVER=$!
at_exit "kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true"
for _ in $(seq 100); do
	rm -rf "$T/probe"
	DEBUGINFOD_URLS=http://127.0.0.1:$PORT DEBUGINFOD_CACHE_PATH=$T/probe debuginfod-find executable "$id_prog" \
		> /dev/null 2>&1 && break
	sleep 0.2
done
viagdb=$(DEBUGINFOD_URLS=http://127.0.0.1:$PORT DEBUGINFOD_CACHE_PATH=$T/gdbcache gdb -batch -nx \
	-iex 'set debuginfod enabled on' -ex 'echo BACKTRACE\n' -ex bt -c "$core1" 2>/dev/null | gdb_names)
# gdb 13 (Debian 12) fetches a core's executable by build-id; a library it still takes from its path.
check "gdb through debuginfod -F over the kept tree: the executable's frames are the entry's ($viagdb)" \
	test "$(grep -o '[a-z0-9_]*_old \|main ' <<< "$viagdb" | grep -v km_wait | tr -d '\n')" = "lvl2_old lvl1_old main "

out=$("$CORESINK" --config "$T/c.conf" --retrace "$core1" 2>&1)
rt=$(sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' <<< "$out" | grep -E '_(old|new)$|^main$' | tr '\n' ' ')
check "a retrace after the upgrade finds the kept modules by build-id: $rt" test "$rt" = "$ours"

# An impostor: another program that says it is the kept one (a build-id is what a file says of itself), deleted
# and crashed. Its own crash may not be linked to the kept bytes, nor they replaced by its.
mkdir -p "$T/imp"
printf '#include <unistd.h>\nint main(void) { pause(); return 1; }\n' > "$T/imp.c"
cc -O1 -o "$T/imp/kmprog" "$T/imp.c" -Wl,--build-id=0x"$id_prog" || fail "building the impostor"
sum=$(sha256sum < "$tree/${id_prog:0:2}/${id_prog:2}")
( ulimit -c unlimited; exec "$T/imp/kmprog" ) & p3=$!
sleep 0.3
rm -f "$T/imp/kmprog"
kill -SEGV $p3; wait $p3 2>/dev/null
e3=$(journal_entry "$p3") || fail "no entry of the impostor's crash"
check "the impostor's module is not kept: $(field "$e3" CORESINK_MODULES_KEPT)" all_of_re \
	"$(field "$e3" CORESINK_MODULES_KEPT)" \
	"kmprog \\(${id_prog:0:16}\\.\\.\\.\\): not kept, another file with its build-id is kept"
check "the kept bytes are the ones that ran first, linked for their two cores only" \
	test "$(sha256sum < "$tree/${id_prog:0:2}/${id_prog:2}")" = "$sum" -a \
	"$(stat -c %h "$tree/${id_prog:0:2}/${id_prog:2}")" = 3

ctl=$("$B/coresinkctl" --config "$T/c.conf" debug --debugger-arguments="-batch -nx -ex 'echo BACKTRACE\\n' -ex bt" \
	"$p1" 2>&1)
check "coresinkctl debug gives gdb the kept modules: $(grep -o 'kept (KeepModules=).*' <<< "$ctl")" \
	grep -q 'kept (KeepModules=): the executable and 1 library' <<< "$ctl"
viactl=$(gdb_names <<< "$ctl")
check "coresinkctl debug: gdb names the entry's frames, the library's too ($viactl)" test "$viactl" = "$ours"
check "and leaves no root of its own behind" test -z "$(find /var/tmp -maxdepth 1 -name 'coresinkctl-root.*')"
"$B/coresinkctl" --config "$T/c.conf" -q remove "$p1" > /dev/null || fail "coresinkctl remove $p1"
check "the first core removed: the modules stay for the second" test -f "$tree/${id_prog:0:2}/${id_prog:2}" -a \
	"$(stat -c %h "$tree/${id_prog:0:2}/${id_prog:2}")" = 2
"$B/coresinkctl" --config "$T/c.conf" -q remove "$p2" > /dev/null || fail "coresinkctl remove $p2"
check "the second removed: the modules go with it" test -z "$(find "$tree" -type f)"

# Without KeepModules=: nothing kept.
write_config "$T/d.conf" "Directory=$T/cores-off" "RateLimitBurst=0"
use_handler "$T/d.conf"
crash_upgraded newer
e=$(journal_entry "$p") || fail "no entry without KeepModules="
check "without KeepModules=, nothing kept" test -z "$(field "$e" CORESINK_MODULES_KEPT)" -a ! -e "$T/cores-off/.modules"

# A module that would take one crash's modules over MaxCoreSize= is not kept: a file the process mapped cost it
# nothing on this disk. The program carries 4 MiB of data it never touches, which its core does not.
build big 'const char pad[4 << 20] = { 1 }; const char *keep_pad = pad;'
write_config "$T/e.conf" "Directory=$T/cores-small" "KeepModules=yes" "RateLimitBurst=0" "MaxCoreSize=2M"
use_handler "$T/e.conf"
crash_upgraded newest
e=$(journal_entry "$p") || fail "no entry with MaxCoreSize=2M"
kept=$(field "$e" CORESINK_MODULES_KEPT)
check "the core stored whole: $(field "$e" CORESINK_RESULT)" test "$(field "$e" CORESINK_RESULT)" = stored
check "over MaxCoreSize=, the program not kept, and said; its library kept: $kept" all_of_re "$kept" \
	"kmprog \\([0-9a-f]{16}\\.\\.\\.\\): not kept, no room in MaxUse, KeepFree or MaxCoreSize" \
	"libkm.so \\([0-9a-f]{16}\\.\\.\\.\\)(,|$)"
check "only the library in the tree" test "$(find "$T/cores-small/.modules/.build-id" -type f | wc -l)" = 1

# A kept library in a directory with 30000 entries (any user's, along the path it ran from): debug's root for gdb is
# bounded (20000 links): that library is not given to gdb, which is said, and nothing of the root is left.
mkdir -p "$T/wide"
(cd "$T/wide" && seq 30000 | sed 's/^/f/' | xargs touch) || fail "filling $T/wide"
wide() {
	printf '#include <unistd.h>\n__attribute__((noinline)) int wide_%s(int n) { pause(); return n; }\n' "$1" > "$T/w.c"
	printf 'int wide_%s(int n);\nint main(int argc, char **argv) { (void) argv; return wide_%s(argc); }\n' "$1" "$1" \
		> "$T/wp.c"
	rm -f "$T/wide/libwide.so" && cc -O1 -g -fPIC -shared -o "$T/wide/libwide.so" "$T/w.c" &&
		cc -O1 -g -o "$T/bin/wideprog" "$T/wp.c" -L"$T/wide" -lwide -Wl,-rpath,"$T/wide" || fail "building wide $1"
}
wide old
write_config "$T/w.conf" "Directory=$T/cores-wide" "KeepModules=yes" "RateLimitBurst=0"
use_handler "$T/w.conf"
( ulimit -c unlimited; exec "$T/bin/wideprog" ) & p=$!
sleep 0.3
wide new
kill -SEGV $p; wait $p 2>/dev/null
e=$(journal_entry "$p") || fail "no entry of the wide crash"
check "the library in the wide directory is kept: $(field "$e" CORESINK_MODULES_KEPT | cut -c1-120)" \
	matches "$(field "$e" CORESINK_MODULES_KEPT)" "libwide.so \\([0-9a-f]{16}\\.\\.\\.\\)(,|$)"
t0=$(date +%s%N)
ctl=$("$B/coresinkctl" --config "$T/w.conf" debug --debugger-arguments="-batch -nx -ex bt" "$p" 2>&1)
t1=$(date +%s%N)
check "coresinkctl debug: that library not given to gdb, and said ($(( (t1 - t0) / 1000000 )) ms): $(grep -o '[0-9]* kept librar.*' <<< "$ctl")" \
	grep -q '1 kept library not given to gdb: their directories hold more than 20000 entries' <<< "$ctl"
check "and no root of its own left behind" test -z "$(find /var/tmp -maxdepth 1 -name 'coresinkctl-root.*')"
