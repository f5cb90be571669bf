#!/bin/bash
# The stack trace from the files the process had mapped, where production crashes happen: a root program and its
# own library under a directory only root may enter (the analysis runs as coresink-analysis); the same program
# whose file and library were deleted and replaced by another build between its start and its crash (an upgrade);
# a container whose only process crashed, its program on a tmpfs mounted inside its own mount namespace (gone with
# it, before the analysis runs); a Python interpreter under a root-only directory crashing in a C library called by
# ctypes. In each, pipe mode and socket mode, the entry names every frame gdb names on the same core given the
# original files, frame for frame. And the bound: a process with more files than coresink opens says so.
# tier: all (make check-all only)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v gdb >/dev/null || skip "no gdb"
command -v cc >/dev/null || skip "no C compiler to build the program"
command -v unshare >/dev/null || skip "no unshare"
scratch
start_journald
SECRET=$T/secret
mkdir -m 0700 "$SECRET" "$T/new" "$T/app"
# The library is found beside the program ($ORIGIN): so it is in the container too.
build_prog() {
	cc -O0 -g -fno-omit-frame-pointer -shared -fPIC -DVARIANT="$2" -o "$1/libmaplib.so" \
		"$TOP/tests/helpers/maplib.c" &&
	cc -O0 -g -fno-omit-frame-pointer -DVARIANT="$2" -o "$1/mapprog" "$TOP/tests/helpers/mapprog.c" \
		-L"$1" -lmaplib -Wl,-rpath,'$ORIGIN' -ldl
}
build_prog "$SECRET" 1 || fail "building mapprog"
mkdir -p "$T/orig" && cp -p "$SECRET/mapprog" "$SECRET/libmaplib.so" "$T/orig/"

# gdb_frames EXE CORE: the crashing thread's functions as gdb names them, one a line, up to 64: of the frames at
# one address (a call inlined there), the innermost, as the entry names it; "n/a" where gdb knows none.
gdb_frames() {
	gdb -q -batch -nx -iex "set auto-load off" -ex "python
f, pc, n = gdb.newest_frame(), None, 0
while f is not None and n < 64:
    if f.pc() != pc:
        print('frame:', f.name() or 'n/a'); pc = f.pc(); n += 1
    f = f.older()
" "$1" "$2" 2>/dev/null | sed -n 's/^frame: //p'
}

# entry_frames MESSAGE PID: the functions of the crashing thread's frames in the entry, one a line.
entry_frames() {
	printf '%s\n' "$1" | awk -v t="Stack trace of thread $2:" '$0 == t { on = 1; next } on && /^$/ { exit } on && /^#/ { print $3 }'
}

# same_as_gdb WHAT EXE [MIN]: the last crash's entry names what gdb names on its core with EXE, frame for frame,
# and gdb names at least MIN (5: main, level1, lib_a, lib_b, crash_here).
same_as_gdb() {
	local m e core g ours n
	m=$(entry_message "$CRASH_PID") || fail "$1: no entry"
	e=$(journal_entry "$CRASH_PID")
	core=$(field "$e" COREDUMP_FILENAME)
	[ -f "$core" ] || fail "$1: no core stored"
	LAST_ENTRY=$e
	g=$(gdb_frames "$2" "$core")
	n=$(printf '%s\n' "$g" | grep -c .)
	ours=$(entry_frames "$m" "$CRASH_PID" | head -n "$n")
	check "$1: gdb names $n frames: $(printf '%s' "$g" | tr '\n' ' ')" test "$n" -ge "${3:-5}"
	check "$1: the entry names the same, frame for frame: $(printf '%s' "$ours" | tr '\n' ' ')" test "$ours" = "$g"
	check "$1: $(field "$e" CORESINK_TRACE_FILES)" matches "$e" "^CORESINK_TRACE_FILES=[1-9][0-9]* opened from the mappings$"
}

# The four cases, in the mode the caller set up; $1 names it.
cases() {
	local mode=$1 py

	crash_run "$SECRET/mapprog" 0 > /dev/null
	same_as_gdb "$mode: a root program under a 0700 directory" "$SECRET/mapprog"
	check "$mode: and every module read" lacks "$LAST_ENTRY" "CORESINK_TRACE_UNREAD="

	# Replaced by renames, as dpkg does: the old files are deleted, their paths name another build.
	# Once it has mapped them (MAPPROG_READY), and it crashes once they are replaced (MAPPROG_GO, 60 s at most).
	rm -f "$T/ready" "$T/go"
	( for _ in $(seq 100); do [ -e "$T/ready" ] && break; sleep 0.1; done
	  build_prog "$T/new" 2 && mv -f "$T/new/libmaplib.so" "$SECRET/" && mv -f "$T/new/mapprog" "$SECRET/"
	  touch "$T/go" ) &
	swap=$!
	MAPPROG_READY=$T/ready MAPPROG_GO=$T/go crash_run "$SECRET/mapprog" 60000 > /dev/null
	wait "$swap"
	cmp -s "$SECRET/mapprog" "$T/orig/mapprog" && fail "$mode: the program was not replaced before its crash"
	# gdb is given the original files, where the core's notes name them (and the next mode starts from them).
	cp -p "$T/orig/mapprog" "$T/orig/libmaplib.so" "$SECRET/"
	same_as_gdb "$mode: deleted and replaced by another build before the crash" "$SECRET/mapprog"

	# A container: a mount namespace of its own, the program on a tmpfs mounted there only, its only process.
	crash_run unshare -m --propagation private sh -c \
		"mount -t tmpfs app '$T/app' && cp '$T/orig/mapprog' '$T/orig/libmaplib.so' '$T/app/' && exec '$T/app/mapprog' 0" \
		> /dev/null
	check "$mode: container: its tmpfs went with it" test ! -e "$T/app/mapprog"
	cp -p "$T/orig/mapprog" "$T/orig/libmaplib.so" "$T/app/"
	same_as_gdb "$mode: a container's only process, its program on a tmpfs of its namespace" "$T/app/mapprog"
	rm -f "$T/app/"*

	for py in $PYTHONS; do
		crash_run "$py" -c "import ctypes; ctypes.CDLL('$SECRET/libmaplib.so').lib_a(None)"
		same_as_gdb "$mode: $py, crashing in a C library called by ctypes" "$py" 8
	done
}

# Python under a root-only directory: pyenv's in /root where it is there; Debian's, copied into one, where it is.
PYTHONS=""
for py in /root/.pyenv/versions/3.*/bin/python3; do
	[ -x "$py" ] && [ "$(stat -c %a /root)" = 700 ] && PYTHONS="$py" && break
done
if [ -x /usr/bin/python3 ]; then
	cp "$(readlink -f /usr/bin/python3)" "$SECRET/python3" && PYTHONS="$PYTHONS $SECRET/python3"
fi

write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
cases "pipe mode"

# The bound: 600 libraries loaded, 512 of the files opened, and the entry says so. Those past it are read by their
# paths, which are made to fail each way in turn once they are loaded: a 0700 directory, another build, gone.
# bound_crash HOW [ACTION...]: mapprog with the 600 libraries crashes after ACTION ran; sets E.
bound_crash() {
	local how=$1 act
	shift
	rm -f "$T/ready" "$T/go"
	( for _ in $(seq 100); do [ -e "$T/ready" ] && break; sleep 0.1; done; "$@"; touch "$T/go" ) &
	act=$!
	# It crashes once ACTION is done (60 s at most): a loaded run (CI's lanes) once took past a fixed 1.5 s to replace
	# the 600 files, and only 49 of the 90 were another build's by the crash.
	MAPPROG_READY=$T/ready MAPPROG_GO=$T/go crash_run "$T/orig/mapprog" 60000 "$T/new"/lib*.so > /dev/null
	wait "$act"
	E=$(journal_entry "$CRASH_PID") || fail "600 libraries, $how: no entry"
	check "600 libraries, $how: $(field "$E" CORESINK_TRACE_FILES)" matches "$E" \
		"^CORESINK_TRACE_FILES=512 opened from the mappings, 9[0-9] over the bound of 512$"
	check "and each past it is said unread, and why: $(field "$E" CORESINK_TRACE_UNREAD)" matches "$E" \
		"^CORESINK_TRACE_UNREAD=[89][0-9] module\(s\) without their file: lib[0-9]+\.so( \(deleted\))? \($how\), "
}
for i in $(seq 600); do cp "$T/orig/libmaplib.so" "$T/new/lib$i.so"; done
bound_crash "not permitted" true
# From here coresink-analysis may follow the paths: what fails is the file.
chmod 0711 "$T" && chmod 0755 "$T/new"
cc -O0 -shared -fPIC -DVARIANT=3 -o "$T/other.so" "$TOP/tests/helpers/maplib.c" || fail "building another library"
bound_crash "build-id differs" sh -c "for f in '$T/new'/lib*.so; do cp '$T/other.so' \"\$f.x\" && mv -f \"\$f.x\" \"\$f\"; done"
bound_crash "gone" sh -c "rm -f '$T/new'/lib*.so"

if have_socket_mode; then
	write_config "$T/s.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
		"Socket=$T/core.sock"
	start_server "$T/s.conf"
	use_socket "$T/s.conf"
	cases "socket mode"
else
	echo "SKIP $NAME: socket mode: no coredump socket (@@) in $(uname -r)"
fi
