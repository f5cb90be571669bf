#!/bin/bash
# guest.sh STAGE REL: one boot's checks of the VM tier (tests/vm/run.sh), run as root inside the guest at the end of
# its boot (vmtest.service), from the host's read-only share of this tree at /src. It writes "ok ...", "FAIL ..."
# (which ends the stage), "fact KEY VALUE" for the host's table, and "done STAGE" last. What the guest must keep
# between its boots is in /var/lib/vmtest, on its own disk.
. /src/tests/e2e/lib.sh
. /src/tests/e2e/coredumpctl.sh
inside() { "$@"; }
STAGE=$1 REL=$2
NAME=vm-$REL-$STAGE
STATE=/var/lib/vmtest
mkdir -p "$STATE"
DEB=$(echo /src/build/deb/coresink_*.deb)
PIPE="|/usr/libexec/coresink %P %u %g %s %t %c %h %e %d %F %I"
SOCK=@@/run/coresink/kernel.socket
DROPIN=/etc/sysctl.d/60-coresink.conf
VERSION=$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
fact() { echo "fact $*"; }
# timed WHAT CMD...: runs CMD and says how long it took ("fact took WHAT SECONDS s"): under TCG, what each group of
# checks and each power-cut recording costs the VM lane of make check-all. CMD's status is timed's.
timed() {
	local what=$1 t=$SECONDS rc
	shift
	"$@"
	rc=$?
	fact took "$what $((SECONDS - t)) s"
	return $rc
}
live() { cat /proc/sys/kernel/core_pattern; }
# kernel_at_least MAJOR MINOR: whether the running kernel's release is MAJOR.MINOR or later.
kernel_at_least() {
	local r
	r=$(uname -r)
	[ "${r%%.*}" -gt "$1" ] || { [ "${r%%.*}" -eq "$1" ] && r=${r#*.} && [ "${r%%[!0-9]*}" -ge "$2" ]; }
}
# What the kernel's release says it serves; the package decides by asking the kernel, and is checked against this.
if kernel_at_least 6 17; then EXPECT=socket; else EXPECT=pipe; fi
# entry BIN FIELD: FIELD of the last coresink entry of /usr/local/bin/BIN in this boot.
entry() {
	journalctl -b -q -o cat --output-fields="$2" MESSAGE_ID=$MESSAGE_ID "COREDUMP_EXE=/usr/local/bin/$1" | tail -n 1
}
# wait_entry BIN: until this boot has a coresink entry of BIN with its result (up to 60 s).
wait_entry() {
	for _ in $(seq 120); do [ -n "$(entry "$1" CORESINK_RESULT)" ] && return 0; sleep 0.5; done
	return 1
}
# stored BIN [MODE]: the last crash of BIN was stored by coresink (in MODE, where given), and its file is there.
stored() {
	local file mode
	wait_entry "$1" || fail "no coresink entry of $1 in this boot"
	# Read again while the journal reads short (journalctl ignored a file it found truncated: journald was still
	# writing it, early in a boot), up to 10 s: a stored entry names its file.
	for _ in $(seq 20); do
		file=$(entry "$1" COREDUMP_FILENAME) mode=$(entry "$1" CORESINK_MODE)
		[ -n "$file" ] && break
		sleep 0.5
	done
	check "$1: stored in $mode mode ($(entry "$1" CORESINK_RESULT), $file)" \
		test "$(entry "$1" CORESINK_RESULT)" = stored -a "$mode" = "${2:-$mode}" -a -s "$file"
}
# wait_coredumpctl_storage: coredumpctl's last crash is test-dump, stored by systemd-coredump (up to 30 s: its
# socket server stores after the crash returns).
wait_coredumpctl_storage() {
	local out
	for _ in $(seq 60); do
		out=$(SYSTEMD_PAGER= coredumpctl info -1 2>&1)
		has "$out" "Executable: /usr/local/bin/test-dump" && has "$out" "Storage: /var/lib/systemd/coredump/" && return 0
		sleep 0.5
	done
	return 1
}
# mode_line TEXT: the mode a line of activate.sh or of the socket unit names.
expect_mode() {
	if [ "$EXPECT" = socket ]; then
		check "$1: socket mode: $2" has "$2" "socket mode (/run/coresink/kernel.socket)"
		check "$1: kernel.core_pattern=$SOCK" test "$(live)" = "$SOCK"
	else
		check "$1: pipe mode, and why: $2" matches "$2" "pipe mode \\(Linux $(uname -r | cut -d. -f1-2): "
		check "$1: kernel.core_pattern is coresink's pipe line" test "$(live)" = "$PIPE"
	fi
}

# coresinkctl_checks: coresinkctl list on the release's own journal, as coredumpctl lists the same crashes; the user
# sees only their own crashes (root's are hidden, and counted), dumps their own core and not root's.
coresinkctl_checks() {
	local ours theirs user
	ours=$(coresinkctl --json=short list /usr/local/bin/test-dump /usr/local/bin/test-usr-dump)
	theirs=$(coredumpctl --json=short list /usr/local/bin/test-dump /usr/local/bin/test-usr-dump 2>/dev/null)
	check "coresinkctl list: the crashes coredumpctl lists, field for field: $(jq -c '[.[].pid]' <<< "$ours")" \
		test -n "$ours" -a "$(jq -S -c . <<< "$ours")" = "$(jq -S -c . <<< "$theirs")"
	user=$(as_user coresinkctl --json=short list 2>"$STATE/ctl.err")
	check "coresinkctl as testuser: their own crashes only: $(jq -r '[.[].exe] | unique | join(" ")' <<< "$user"); $(cat "$STATE/ctl.err")" \
		test "$(jq -r '[.[].exe] | unique | join(" ")' <<< "$user")" = /usr/local/bin/test-usr-dump
	check "coresinkctl as testuser: dumps their own core" as_user coresinkctl dump -o /dev/null test-usr-dump
	check "coresinkctl as testuser: not root's" fails quiet as_user coresinkctl dump -o /dev/null /usr/local/bin/test-dump
}

# summary_checks: coresink --summary counts every crash coresink stored, root's and the user's: the user's entry,
# sent with the user's uid, is told from a forgery by root's seal (origin.c). A forged one, as the issue found it
# (nobody's logger naming sshd's crash), is not counted.
summary_checks() {
	local out uid sigs
	uid=$(journalctl -q -o json MESSAGE_ID=$MESSAGE_ID COREDUMP_EXE=/usr/local/bin/test-usr-dump | tail -n 1 | jq -r ._UID)
	printf 'MESSAGE_ID=%s\nMESSAGE=Process 1 (sshd) of user 0 dumped core.\nCOREDUMP_UID=0\nCOREDUMP_EXE=/usr/sbin/sshd\nCOREDUMP_FILENAME=/etc/passwd\nCORESINK_SIGNATURE=deadbeefdeadbeef\n' \
		"$MESSAGE_ID" | setpriv --reuid=65534 --regid=65534 --clear-groups logger --journald
	out=$(/usr/libexec/coresink --summary --json) || fail "coresink --summary --json"
	sigs=$(jq '[.signatures[].crashes] | add' <<< "$out")
	check "summary: the user's crashes (sent with uid $uid, sealed by root) and root's are counted: $sigs" \
		test "$uid" = 1000 -a "$sigs" -ge 4
	check "summary: nobody's forged sshd crash is skipped, and only it: $(jq -c .skipped_not_coresinks <<< "$out")" \
		test "$(jq .skipped_not_coresinks <<< "$out")" = 1 -a -z "$(jq -r '.signatures[] | select(.signature == "deadbeefdeadbeef")' <<< "$out")"
}

# A crash under a stale "@@" on a kernel that cannot serve it: lost, with no entry anywhere (the bug this tier found
# on Debian 12 and 13: an earlier coresink's postinst left exactly this).
lost_under_stale() {
	local n
	printf '%s\n' "$SOCK" > /proc/sys/kernel/core_pattern
	/usr/local/bin/make-dump /usr/local/bin/later-dump SIGSEGV
	sleep 2
	n=$(journalctl -b -q -o cat MESSAGE_ID=$MESSAGE_ID COREDUMP_EXE=/usr/local/bin/later-dump | wc -l)
	check "on $(uname -r), '$SOCK' is a file name to the kernel: a crash under it is lost, no entry ($n)" test "$n" = 0
}

# keep_checks: KeepModules= on this kernel (the handler opens the mapped files through /proc/PID/map_files) and
# coresinkctl debug with this release's gdb. A copy of sleep with a copy of libacl preloaded, both replaced by
# other files (an upgrade's rename) before the crash: the entry says both were kept, and gdb through coresinkctl
# debug loads the kept library from the root it was given, its build-id the one that ran.
keep_checks() {
	local pid kept out lib=/usr/local/lib/km/libacl.so.1
	mkdir -p /etc/coresink.conf.d /usr/local/lib/km
	printf '[Coresink]\nKeepModules=yes\n' > /etc/coresink.conf.d/50-vmtest-keep.conf
	cp /usr/bin/sleep /usr/local/bin/km-dump && cp "$(ls /usr/lib/x86_64-linux-gnu/libacl.so.1 /lib/x86_64-linux-gnu/libacl.so.1 2>/dev/null | head -n 1)" "$lib"
	( ulimit -c unlimited; LD_PRELOAD=$lib exec /usr/local/bin/km-dump 600 ) & pid=$!
	for _ in $(seq 50); do grep -q "$lib" /proc/$pid/maps 2>/dev/null && break; sleep 0.1; done
	cp /usr/bin/true /usr/local/bin/km-dump.new && mv -f /usr/local/bin/km-dump.new /usr/local/bin/km-dump
	cp /usr/bin/true "$lib.new" && mv -f "$lib.new" "$lib"
	kill -SEGV $pid; wait $pid 2>/dev/null
	for _ in $(seq 120); do
		[ -n "$(journalctl -b -q -o cat --output-fields=CORESINK_RESULT MESSAGE_ID=$MESSAGE_ID COREDUMP_PID=$pid)" ] && break
		sleep 0.5
	done
	kept=$(journalctl -b -q -o cat --output-fields=CORESINK_MODULES_KEPT MESSAGE_ID=$MESSAGE_ID COREDUMP_PID=$pid)
	[ -n "$kept" ] || journalctl -b -q -o verbose MESSAGE_ID=$MESSAGE_ID COREDUMP_PID=$pid |
		grep -E '^ *(CORESINK_[A-Z_]*|COREDUMP_EXE|MESSAGE)=' | sed 's/^ */  (diag) /' | cut -c1-200 | head -n 40
	check "KeepModules=: the replaced executable and library kept (pid $pid): $kept" \
		matches "$kept" "^km-dump \\([0-9a-f]{16}\\.\\.\\.\\), libacl.so.1 \\([0-9a-f]{16}\\.\\.\\.\\)$"
	out=$(coresinkctl debug --debugger-arguments="-batch -nx -ex 'info sharedlibrary'" "$pid" 2>&1)
	check "coresinkctl debug: $(grep -o 'kept (KeepModules=).*' <<< "$out")" \
		has "$out" "kept (KeepModules=): the executable and 1 library"
	check "$(gdb --version | head -n 1) loaded the kept libacl through the root it was given" \
		matches "$out" "Yes.*/var/tmp/coresinkctl-root\\.[^/]*$lib"
	rm -f /etc/coresink.conf.d/50-vmtest-keep.conf
}

# fetch_unconfined_checks: user namespaces off (user.max_user_namespaces=0, what hardened hosts set; this host's
# sandbox refuses the sysctl): the fetch step of DebuginfodURLs= cannot confine itself, so it fetches nothing and the
# entry says why; the core is stored as always. The sysctl is put back whatever came of it.
fetch_unconfined_checks() {
	local old said
	old=$(cat /proc/sys/user/max_user_namespaces)
	mkdir -p /etc/coresink.conf.d
	printf '[Coresink]\nDebuginfodURLs=http://127.0.0.1:9\nDebuginfodTimeoutSec=5s\n' \
		> /etc/coresink.conf.d/50-vmtest-fetch.conf
	cp /src/build/vm/payload/fetch-dump /usr/local/bin/fetch-dump || fail "the payload (tests/vm/run.sh builds it)"
	sysctl -q -w user.max_user_namespaces=0
	dump root fetch-dump SIGSEGV
	wait_entry fetch-dump
	sysctl -q -w user.max_user_namespaces="$old"
	rm -f /etc/coresink.conf.d/50-vmtest-fetch.conf
	said=$(entry fetch-dump CORESINK_DEBUGINFO)
	# In socket mode the analysis itself needs a user namespace (the process's root is not the server's): then the
	# pass that names the modules does not run either, and the entry says that.
	check "user.max_user_namespaces=0: the fetch step does not run unconfined: $said" \
		matches "$said" "not fetched: (the step could not be confined|the pass that names the modules did not run: .*user namespaces)"
	check "user.max_user_namespaces is back: $(cat /proc/sys/user/max_user_namespaces)" \
		test "$(cat /proc/sys/user/max_user_namespaces)" = "$old"
	stored fetch-dump
}

# door_checks: the features that need a server, in the mode the package chose, under its units: the fetch step of
# DebuginfodURLs= (a stripped program's crash named through elfutils' debuginfod inside the guest) and ExecUpload=
# (rclone to a WebDAV server inside the guest), at the crash. In socket mode coresink.service has no network: both go
# through coresink-net.socket's door (coresink-net@.service), which says so in its units' log.
door_checks() {
	local e u name frames store=/var/tmp/store
	mkdir -p /usr/local/lib/door /var/tmp/served "$store" /etc/coresink.conf.d
	cp /src/build/vm/payload/door-dump /usr/local/bin/ && cp /src/build/vm/payload/libdoor.so /usr/local/lib/door/ &&
		cp /src/build/vm/payload/served/*.debug /var/tmp/served/ || fail "the payload (tests/vm/run.sh builds it)"
	debuginfod -F /var/tmp/served -p 8002 -d /var/tmp/debuginfod.sqlite > /var/tmp/debuginfod.log 2>&1 &
	for _ in $(seq 100); do
		rm -rf /var/tmp/probe
		DEBUGINFOD_URLS=http://127.0.0.1:8002 DEBUGINFOD_CACHE_PATH=/var/tmp/probe debuginfod-find debuginfo \
			/usr/local/bin/door-dump > /dev/null 2>&1 && break
		sleep 0.5
	done
	rclone serve webdav --addr 127.0.0.1:8003 "$store" > /var/tmp/dav.log 2>&1 &
	for _ in $(seq 100); do ss -ltn | grep -q '127.0.0.1:8003 ' && break; sleep 0.2; done
	printf '[dav]\ntype = webdav\nurl = http://127.0.0.1:8003\nvendor = other\n' > /etc/coresink-rclone.conf
	chown root:coresink-upload /etc/coresink-rclone.conf && chmod 0640 /etc/coresink-rclone.conf
	printf '[Coresink]\nDebuginfodURLs=http://127.0.0.1:8002\nDebuginfodTimeoutSec=60s\nExecUpload=/usr/libexec/coresink-upload-rclone dav:cores --config /etc/coresink-rclone.conf\n' \
		> /etc/coresink.conf.d/50-vmtest-door.conf
	if [ "$EXPECT" = socket ]; then
		check "socket mode's server keeps no network: PrivateNetwork=$(systemctl show -p PrivateNetwork --value coresink.service)" \
			test "$(systemctl show -p PrivateNetwork --value coresink.service)" = yes
		check "coresink-net.socket, its door, is active" systemctl is-active -q coresink-net.socket
	fi
	( ulimit -c unlimited; exec /usr/local/bin/door-dump ) 2> /dev/null
	wait_entry door-dump || fail "no entry of door-dump"
	e=$(entry door-dump CORESINK_DEBUGINFO)
	frames=$(journalctl -b -q -o cat MESSAGE_ID=$MESSAGE_ID COREDUMP_EXE=/usr/local/bin/door-dump |
		sed -n '/^Stack trace of thread/,/^$/p' | sed -n 's/^#[0-9]* *0x[0-9a-f]* \([^ ]*\) .*/\1/p' | head -n 3 | tr '\n' ' ')
	check "$(entry door-dump CORESINK_MODE) mode: the stripped program's modules fetched at the crash: $(cut -c1-120 <<< "$e")" \
		matches "$e" "fetched 2: "
	check "and its trace names every frame: $frames" test "$frames" = "door_crash door_level main "
	name=$(basename "$(entry door-dump COREDUMP_FILENAME)")
	# Each field on its own: journalctl prints them in the entry's order, not in the order asked.
	upload_field() {
		journalctl -b -q -o cat --output-fields="$1" MESSAGE_ID=37d0a70e75c44cf88f269bffb484bb14 \
			"COREDUMP_FILENAME=/var/lib/coresink/$name" | head -n 1
	}
	# Wait for the entry itself, then read its other field: two reads taken while the entry
	# arrives could see it in the second only.
	u=
	for _ in $(seq 120); do
		r=$(upload_field CORESINK_UPLOAD)
		[ -n "$r" ] && { u="$r $(upload_field CORESINK_UPLOAD_ATTEMPT) "; break; }
		sleep 0.5
	done
	check "ExecUpload= sent it at the crash (attempt 1): $u" test "$u" = "sent 1 "
	check "the core arrived in the WebDAV store, byte for byte (compared decompressed)" \
		cmp -s <(zstd -dc "/var/lib/coresink/$name" 2>/dev/null || cat "/var/lib/coresink/$name") \
		<(zstd -dc "$store/cores/$name" 2>/dev/null || cat "$store/cores/$name")
	if [ "$EXPECT" = socket ]; then
		check "both went through the door: $(journalctl -b -q -u 'coresink-net@*' -o cat | grep -c .) lines of coresink-net@.service's" \
			test "$(journalctl -b -q -u 'coresink-net@*' -o cat | grep -c .)" -gt 0
	fi
	rm -f /etc/coresink.conf.d/50-vmtest-door.conf
}

# metrics_checks: MetricsFile=auto under the package's units, in the mode it chose: node_exporter's textfile
# directory, made before the install as Debian's prometheus-node-exporter makes it, holds coresink.prom (0644),
# and one more crash moves the stored count by exactly one.
metrics_checks() {
	local f=/var/lib/prometheus/node-exporter/coresink.prom n0 n1 series='coresink_crashes_total{result="stored",reason="none"}'
	check "MetricsFile=auto: $f written, 0644: $(stat -c %a "$f" 2>&1)" test "$(stat -c %a "$f" 2>/dev/null)" = 644
	n0=$(awk -v s="$series" '$1 == s { print $2 }' "$f")
	cp /usr/bin/sleep /usr/local/bin/metrics-dump
	dump root metrics-dump SIGSEGV
	wait_entry metrics-dump || fail "no entry of metrics-dump"
	for _ in $(seq 50); do
		n1=$(awk -v s="$series" '$1 == s { print $2 }' "$f")
		[ "${n1:-0}" -gt "${n0:-0}" ] && break
		sleep 0.1
	done
	check "one more crash, in $EXPECT mode: stored $n0 -> $n1" test "$n1" = $(( ${n0:-0} + 1 ))
	check "coresinkctl metrics agrees: $(coresinkctl metrics | grep -F "$series")" \
		test "$(coresinkctl metrics | awk -v s="$series" '$1 == s { print $2 }')" = "$n1"
}

# notify_checks: a notifier in /etc/coresink/notify.d, in the mode the package chose under its units (socket mode:
# run by coresink-net@.service, the door, which reads the entry back itself): it gets the crash's JSON on stdin.
notify_checks() {
	local out=/var/lib/coresink-notified pid f id unit
	mkdir -p -m 0755 /etc/coresink/notify.d "$out"
	chown coresink-upload "$out"
	printf '#!/bin/sh\ncat > %s/$$.json\n' "$out" > /etc/coresink/notify.d/10-record
	chmod 0755 /etc/coresink/notify.d/10-record
	cp /usr/bin/sleep /usr/local/bin/notify-dump
	dump root notify-dump SIGSEGV
	wait_entry notify-dump || fail "no entry of notify-dump"
	pid=$(entry notify-dump COREDUMP_PID)
	for _ in $(seq 100); do f=$(ls "$out"/*.json 2>/dev/null | head -n 1); [ -n "$f" ] && break; sleep 0.2; done
	check "NotifyDirectory=: the notifier got the crash of pid $pid in $EXPECT mode: $(jq -c '{PID, Result}' "$f" 2>&1)" \
		test "$(jq -r .PID "$f" 2>/dev/null)" = "$pid"
	if [ "$EXPECT" = socket ]; then
		id=$(sed -n 's/^#define CORESINK_NOTIFY_MESSAGE_ID "\(.*\)"$/\1/p' /src/src/lib/report/report.h)
		unit=$(journalctl -b -q -o json "MESSAGE_ID=$id" "COREDUMP_PID=$pid" | jq -r '._SYSTEMD_UNIT' | tail -n 1)
		check "  run by the door to the network, which has the network: $unit" matches "$unit" '^coresink-net@.*\.service$'
	fi
	rm -rf /etc/coresink/notify.d "$out"
}

# collect_checks: a collect hook in /etc/coresink/collect.d, in the mode the package chose under its units, as the
# default CollectUser (coresink-upload): it reads the held process's /proc, and its pidfd where the mode gives one
# (socket mode; pipe mode's %F from Linux 6.16); its lines are the entry's CORESINK_HOOK_ fields.
collect_checks() {
	mkdir -p -m 0755 /etc/coresink/collect.d
	printf '#!/bin/sh\necho "COMM=$(cat /proc/$1/comm)"\necho "USER=$(id -un)"\necho "PIDFD=${CORESINK_PIDFD:-none}"\n' \
		> /etc/coresink/collect.d/10-proc
	chmod 0755 /etc/coresink/collect.d/10-proc
	# The hook's bound raised from its 2 s: under TCG on a loaded host (CI's lanes beside it) unstable's guest once took
	# longer for the shell, cat and id, and killed it after its first line. What is proven here is what the hook reads.
	mkdir -p /etc/coresink.conf.d
	printf '[Coresink]\nCollectTimeoutSec=30s\n' > /etc/coresink.conf.d/50-vmtest-collect.conf
	cp /usr/bin/sleep /usr/local/bin/collect-dump
	dump root collect-dump SIGSEGV
	wait_entry collect-dump || fail "no entry of collect-dump"
	check "CollectDirectory=: the hook read the held process in $EXPECT mode: $(entry collect-dump CORESINK_COLLECT)" \
		test "$(entry collect-dump CORESINK_HOOK_COMM)" = collect-dump
	check "  as $(entry collect-dump CORESINK_HOOK_USER), given a pidfd: $(entry collect-dump CORESINK_HOOK_PIDFD)" \
		test "$(entry collect-dump CORESINK_HOOK_USER)" = coresink-upload
	[ "$EXPECT" = socket ] && check "  socket mode gives it the pidfd as fd 3" test "$(entry collect-dump CORESINK_HOOK_PIDFD)" = 3
	rm -rf /etc/coresink/collect.d /etc/coresink.conf.d/50-vmtest-collect.conf
}

# features_checks: the rest of what pipe mode does, proven in the mode the package chose under its units:
# Storage=journal (the core in the entry, dumped back by coresinkctl), signatures counted across crashes, and a rate
# limit that holds across a restart of the server (the ledger, in the directory, keeps it).
features_checks() {
	local n1 n2 sig
	mkdir -p /etc/coresink.conf.d
	cp /usr/bin/sleep /usr/local/bin/journal-dump && cp /usr/bin/sleep /usr/local/bin/rate-dump
	printf '[Rule]\nName=journal\nMatchExecutable=/usr/local/bin/journal-dump\nStorage=journal\n\n[Rule]\nName=rate\nMatchExecutable=/usr/local/bin/rate-dump\nRateLimitBurst=1\nRateLimitIntervalSec=3600\n' \
		> /etc/coresink.conf.d/50-vmtest-features.conf
	dump root journal-dump SIGSEGV
	wait_entry journal-dump || fail "no entry of journal-dump"
	check "Storage=journal: the core is in the entry ($(entry journal-dump CORESINK_STORAGE))" \
		test "$(entry journal-dump CORESINK_STORAGE)" = journal
	check "and coresinkctl dumps it back from there" bash -c 'coresinkctl dump -o /var/tmp/j.core journal-dump && test -s /var/tmp/j.core'
	dump root journal-dump SIGSEGV
	sleep 2
	sig=$(entry journal-dump CORESINK_SIGNATURE)
	check "signatures: the same bug twice, seen $(entry journal-dump CORESINK_SIGNATURE_SEEN) times ($sig)" \
		test -n "$sig" -a "$(entry journal-dump CORESINK_SIGNATURE_SEEN)" -ge 2
	dump root rate-dump SIGSEGV
	dump root rate-dump SIGSEGV
	sleep 2
	n1=$(journalctl -b -q -o cat --output-fields=CORESINK_RESULT MESSAGE_ID=$MESSAGE_ID COREDUMP_EXE=/usr/local/bin/rate-dump | tr '\n' ' ')
	check "a rate limit of one: the second crash suppressed: $n1" test "$n1" = "stored suppressed "
	[ "$EXPECT" = socket ] && systemctl restart coresink.service
	dump root rate-dump SIGSEGV
	sleep 2
	n2=$(journalctl -b -q -o cat --output-fields=CORESINK_RESULT MESSAGE_ID=$MESSAGE_ID COREDUMP_EXE=/usr/local/bin/rate-dump | tr '\n' ' ')
	check "after a restart of the server$( [ "$EXPECT" = socket ] || echo ' (pipe mode: none)'), still held: $n2" \
		test "$n2" = "stored suppressed suppressed "
	rm -f /etc/coresink.conf.d/50-vmtest-features.conf
}

# crash_entry PID: the coresink entry of the crash of PID in this boot, read whole in one go into E (FIELD ->
# value), once it says its result (up to 60 s). One read of the entry, not one journalctl per field: CI's run of stop
# 70 failed a pod's check on a field read empty under TCG right after its name and image read right, and each read
# costs about a second there.
declare -A E
CRASH_FIELDS=CORESINK_RESULT,CORESINK_CONTAINER_ID,CORESINK_CONTAINER_RUNTIME,CORESINK_CONTAINER_NAME,CORESINK_CONTAINER_IMAGE,CORESINK_CONTAINER_FROM,CORESINK_CONTAINER_LABELS,CORESINK_POD_ID,CORESINK_POD_NAME,CORESINK_POD_NAMESPACE,CORESINK_POD_UID,CORESINK_POD_LABELS,CORESINK_POD_FROM
crash_entry() {
	local line new
	for _ in $(seq 120); do
		E=() new=1
		# journalctl's export format: FIELD=value lines, a blank line after each entry; the last entry is kept.
		while IFS= read -r line; do
			[ -z "$line" ] && { new=1; continue; }
			[ "$new" = 1 ] && { E=(); new=0; }
			case $line in *=*) E[${line%%=*}]=${line#*=} ;; esac
		done < <(journalctl -b -q -o export --output-fields="$CRASH_FIELDS" MESSAGE_ID=$MESSAGE_ID "COREDUMP_PID=$1")
		[ -n "${E[CORESINK_RESULT]:-}" ] && return 0
		sleep 0.5
	done
	return 1
}
# shown FIELD...: what E says of each FIELD (without its CORESINK_ prefix), for a check's words.
shown() {
	local f out=
	for f; do out="$out ${f#CORESINK_}=${E[$f]:-}"; done
	echo "${out# }"
}
# kube_yaml NAME IMAGE LABELS: a Kubernetes pod of one container (worker: IMAGE's /pod-dump), its labels LABELS (a
# YAML flow mapping) and namespace shop, as `podman kube play` takes it.
kube_yaml() {
	printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: shop\n  labels: %s\nspec:\n  restartPolicy: Never\n  containers:\n  - name: worker\n    image: %s\n    command: ["/pod-dump"]\n' \
		"$1" "$3" "$2"
}
# pods_checks: a pod from `podman kube play` (its infra container's pause image built by podman from catatonit: no
# registry) as the release's podman makes it under systemd, its default cgroup driver, crashed, and named in the entry
# as podman names it: the container's own id, name, image and labels (kube play gives it the pod's), the pod's id,
# name and labels from podman's database: podman 4's BoltDB, podman 5's SQLite (db.sql, read through SQLite; podman's
# API is not started, so the name cannot have come from it); no namespace (kube play keeps none). podman failing to
# run a pod (not coresink's doing) skips, said. What the entry named is a row of build/vm.md's table of runtimes
# ("fact pods"). The crashing program's core limit is the one podman was started with (kube play has no --ulimit).
pods_checks() {
	local ctr pod pid backend db from ns out=$STATE/podman.log
	command -v podman > /dev/null || { echo "SKIP pods: no podman in this image"; return 0; }
	kube_yaml web-vm localhost/pod-dump:1 '{app: web, tier: front}' > "$STATE/pod.yaml"
	podman import -q /src/build/vm/payload/pod.tar localhost/pod-dump:1 > "$out" 2>&1 &&
		(ulimit -c unlimited; podman kube play --network none "$STATE/pod.yaml") >> "$out" 2>&1 ||
		{ echo "SKIP pods: podman could not run the pod: $(tail -n 2 "$out" | tr '\n' ' ')"; return 0; }
	pod=$(podman pod inspect -f '{{.Id}}' web-vm)
	for _ in $(seq 50); do
		read -r ctr pid < <(podman inspect -f '{{.Id}} {{.State.Pid}}' web-vm-worker)
		[ "${pid:-0}" != 0 ] && break
		sleep 0.2
	done
	backend=boltdb db=bolt_state.db
	[ -e /var/lib/containers/storage/libpod/bolt_state.db ] || backend=sqlite db=db.sql
	fact podman "$(podman version -f '{{.Client.Version}}') $backend"
	[ "$backend" = boltdb ] || [ -f /var/lib/containers/storage/db.sql ] ||
		{ echo "FAIL pods: podman's database is neither bolt_state.db nor /var/lib/containers/storage/db.sql"; return 0; }
	ok "podman $(podman version -f '{{.Client.Version}}') ($backend): pod web-vm ${pod:0:12}, its container ${ctr:0:12} in $(cut -d: -f3 "/proc/$pid/cgroup" | tail -n 1)"
	kill -USR1 "$pid"
	crash_entry "$pid" || fail "pods: no coresink entry of the pod's crash (pid $pid)"
	check "pod: the container's own id, its runtime, name and image: $(shown CORESINK_CONTAINER_RUNTIME CORESINK_CONTAINER_NAME CORESINK_CONTAINER_IMAGE) ${E[CORESINK_CONTAINER_ID]:0:12}" \
		test "${E[CORESINK_CONTAINER_ID]:-}" = "$ctr" -a "${E[CORESINK_CONTAINER_RUNTIME]:-}" = podman \
		-a "${E[CORESINK_CONTAINER_NAME]:-}" = web-vm-worker -a "${E[CORESINK_CONTAINER_IMAGE]:-}" = localhost/pod-dump:1
	check "pod: its id, from its slice (machine-libpod_pod_ID.slice) or podman's record of the container: ${E[CORESINK_POD_ID]:0:12}" \
		test "${E[CORESINK_POD_ID]:-}" = "$pod"
	from=${E[CORESINK_POD_FROM]:-}
	check "pod: its name and labels: $(shown CORESINK_POD_NAME CORESINK_POD_LABELS CORESINK_POD_FROM)" \
		test "${E[CORESINK_POD_NAME]:-}" = web-vm -a "${E[CORESINK_POD_LABELS]:-}" = "app=web tier=front" -a "$from" = $db
	check "pod: the container named by podman's database, not containers.json: $(shown CORESINK_CONTAINER_FROM)" \
		test "${E[CORESINK_CONTAINER_FROM]:-}" = $db
	check "pod: the container's own labels (kube play's: the pod's), from podman's database: $(shown CORESINK_CONTAINER_LABELS)" \
		matches "${E[CORESINK_CONTAINER_LABELS]:-}" "(^| )tier=front( |$)"
	ns=${E[CORESINK_POD_NAMESPACE]:-}
	check "pod: no namespace made up (kube play keeps none of the YAML's): '$ns'" test -z "$ns"
	fact pods "podman | $(podman version -f '{{.Client.Version}}') ($backend) | ${E[CORESINK_CONTAINER_ID]:0:12} | ${E[CORESINK_CONTAINER_NAME]:-} | ${E[CORESINK_CONTAINER_IMAGE]:-} | ${E[CORESINK_POD_NAME]:-} | ${ns:--} | ${from:--}"
	podman pod rm -f web-vm > /dev/null 2>&1
	podman rmi -f localhost/pod-dump:1 > /dev/null 2>&1
	return 0
}

# rootless_checks: a user's own podman (rootless, under their systemd user manager, which gives the container its
# scope in their slice: user@UID.service/.../libpod-ID.scope) runs a pod of theirs (kube play); it crashes, and
# the entry names it from the user's own database (podman 4's BoltDB, podman 5's db.sql in their home), read as
# them in the handler's sandbox: "rootless ..." in CORESINK_CONTAINER_FROM. A row of the runtimes table.
rootless_checks() {
	local user=rlvm uid pid from backend out=$STATE/rootless.log
	command -v podman > /dev/null && command -v newuidmap > /dev/null ||
		{ echo "SKIP rootless: no podman or newuidmap in this image"; return 0; }
	useradd -m "$user" > "$out" 2>&1 || { echo "FAIL rootless: useradd"; return 0; }
	uid=$(id -u "$user")
	# Their manager, as a login would start it (linger), waited for; its bus (dbus-user-session) is how podman asks
	# it for the container's scope.
	loginctl enable-linger "$user" >> "$out" 2>&1
	systemctl start "user@$uid.service" >> "$out" 2>&1
	for _ in $(seq 100); do [ -S "/run/user/$uid/bus" ] && break; sleep 0.2; done
	[ -S "/run/user/$uid/bus" ] || { echo "SKIP rootless: no user manager's bus for $user: $(tail -n 2 "$out" | tr '\n' ' ')"; return 0; }
	cp /src/build/vm/payload/pod.tar "/home/$user/pod.tar" && chown "$user" "/home/$user/pod.tar"
	as_rl() { runuser -u "$user" -- env -C "/home/$user" XDG_RUNTIME_DIR="/run/user/$uid" \
		DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$uid/bus" "$@"; }
	kube_yaml rl-pod localhost/rl-dump:1 '{app: mine, team: rootless}' > "/home/$user/pod.yaml"
	as_rl podman import -q pod.tar localhost/rl-dump:1 >> "$out" 2>&1 &&
		as_rl sh -c 'ulimit -c unlimited; exec podman kube play --network none pod.yaml' >> "$out" 2>&1 ||
		{ echo "SKIP rootless: podman could not run the user's container: $(tail -n 2 "$out" | tr '\n' ' ')"; return 0; }
	for _ in $(seq 50); do pid=$(as_rl podman inspect -f '{{.State.Pid}}' rl-pod-worker); [ "${pid:-0}" != 0 ] && break; sleep 0.2; done
	# Not in the user's slice (podman fell back to cgroupfs, and left it in ours): not the case this is about.
	grep -q "/user@$uid.service/" "/proc/$pid/cgroup" ||
		{ echo "SKIP rootless: podman did not give the container a scope of the user's: $(cut -d: -f3 "/proc/$pid/cgroup" | tail -n 1)"; return 0; }
	backend=db.sql
	[ -e "/home/$user/.local/share/containers/storage/libpod/bolt_state.db" ] && backend=bolt_state.db
	ok "rootless podman ($backend): rl-pod-worker in $(cut -d: -f3 "/proc/$pid/cgroup" | tail -n 1)"
	kill -USR1 "$pid"
	crash_entry "$pid" || fail "rootless: no coresink entry of the user's crash (pid $pid)"
	from=${E[CORESINK_CONTAINER_FROM]:-}
	# Emulated (TCG), the sandbox's start can pass the read's bound: said as such, not taken for a wrong name.
	case $from in *"timed out"*)
		echo "SKIP rootless: the read as the user passed its bound here: $from"
		fact pods "podman (rootless) | $(podman version -f '{{.Client.Version}}') | - | - | - | - | - | $from"
		as_rl podman pod rm -f rl-pod > /dev/null 2>&1
		return 0 ;;
	esac
	check "rootless: the user's container named by their own podman, read as them: $(shown CORESINK_CONTAINER_RUNTIME CORESINK_CONTAINER_NAME CORESINK_CONTAINER_IMAGE CORESINK_CONTAINER_FROM)" \
		test "${E[CORESINK_CONTAINER_NAME]:-}" = rl-pod-worker -a "${E[CORESINK_CONTAINER_RUNTIME]:-}" = podman \
		-a "${E[CORESINK_CONTAINER_IMAGE]:-}" = localhost/rl-dump:1 -a "$from" = "rootless $backend"
	check "rootless: its pod and labels: $(shown CORESINK_POD_NAME CORESINK_POD_LABELS CORESINK_CONTAINER_LABELS)" \
		test "${E[CORESINK_POD_NAME]:-}" = rl-pod -a "${E[CORESINK_POD_LABELS]:-}" = "app=mine team=rootless" \
		-a "${E[CORESINK_CONTAINER_LABELS]:-}" = "app=mine team=rootless"
	fact pods "podman (rootless) | $(podman version -f '{{.Client.Version}}') | ${E[CORESINK_CONTAINER_ID]:0:12} | ${E[CORESINK_CONTAINER_NAME]:-} | ${E[CORESINK_CONTAINER_IMAGE]:-} | ${E[CORESINK_POD_NAME]:-} | - | ${E[CORESINK_POD_FROM]:-}"
	as_rl podman pod rm -f rl-pod > /dev/null 2>&1
	loginctl disable-linger "$user" > /dev/null 2>&1
	return 0
}

# cri_checks: the release's containerd (1.6 on Debian 12, 1.7 on 13, 2.x on unstable), started by its own unit with
# a node's settings (runc under the systemd cgroup driver, as kubeadm sets it; the sandbox image a local one, as an
# air-gapped node's), and a pod made through its CRI plugin as the kubelet makes one (tests/helpers/cri-client.py:
# RunPodSandbox, CreateContainer, StartContainer; its gRPC code made on the host: run.sh's payload), its cgroups in
# kubepods.slice; then a plain container (ctr run).
# Each crashed, and named in the entry from containerd's own records: the container's id, name and image, the pod's
# name, namespace and labels. A row of the runtimes table each. The image is pods_checks' root file system, made an
# image by podman and imported (no registry here); containerd that does not start or run it skips, said.
cri_checks() {
	local out=$STATE/cri.log py=/src/build/vm/payload/cri ver uid ids sandbox cid pid
	command -v containerd > /dev/null && command -v podman > /dev/null && python3 -c 'import grpc, google.protobuf' 2> /dev/null ||
		{ echo "SKIP cri: no containerd, podman or python3-grpcio in this image"; return 0; }
	ver=$(containerd --version | awk '{ print $3 }')
	# Debian 12's containerd (1.6) is this host's too: t-pods crashes its CRI pods; the VM tier's time is the run's.
	case $ver in 1.6.*) echo "SKIP cri: containerd $ver is the host's own, crashed in t-pods"; return 0 ;; esac
	mkdir -p /etc/containerd
	cat > /etc/containerd/config.toml <<-EOF
		version = 2
		[plugins."io.containerd.grpc.v1.cri"]
		  sandbox_image = "localhost/cri-dump:1"
		  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
		    runtime_type = "io.containerd.runc.v2"
		    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
		      SystemdCgroup = true
	EOF
	systemctl restart containerd > "$out" 2>&1 || { echo "SKIP cri: containerd $ver did not start: $(journalctl -q -b -u containerd | tail -n 2 | tr '\n' ' ')"; return 0; }
	for _ in $(seq 100); do ctr version > /dev/null 2>&1 && break; sleep 0.2; done
	podman import -q --change 'CMD ["/pod-dump"]' /src/build/vm/payload/pod.tar localhost/cri-dump:1 >> "$out" 2>&1 &&
		podman save -q -o "$STATE/cri.tar" localhost/cri-dump:1 >> "$out" 2>&1 &&
		ctr -n k8s.io image import "$STATE/cri.tar" >> "$out" 2>&1 && ctr -n plain image import "$STATE/cri.tar" >> "$out" 2>&1 ||
		{ echo "SKIP cri: the image: $(tail -n 2 "$out" | tr '\n' ' ')"; return 0; }
	uid=$(cat /proc/sys/kernel/random/uuid)
	ids=$(python3 /src/tests/helpers/cri-client.py "$py" /run/containerd/containerd.sock pod web-cri shop "$uid" \
		"kubepods-besteffort-pod${uid//-/_}.slice" worker localhost/cri-dump:1 /pod-dump app=web tier=back 2>> "$out") ||
		{ echo "SKIP cri: containerd $ver could not run the pod: $(tail -n 2 "$out" | tr '\n' ' ')"; return 0; }
	sandbox=$(sed -n 1p <<< "$ids") cid=$(sed -n 2p <<< "$ids")
	for _ in $(seq 50); do pid=$(ctr -n k8s.io task ls | awk -v c="$cid" '$1 == c { print $2 }'); [ "${pid:-0}" != 0 ] && break; sleep 0.2; done
	ok "containerd $ver: CRI pod web-cri, its container in $(cut -d: -f3 "/proc/$pid/cgroup" | tail -n 1)"
	kill -USR1 "$pid"
	crash_entry "$pid" || fail "cri: no coresink entry of the CRI pod's crash (pid $pid)"
	check "cri: the container's own id, name and image: $(shown CORESINK_CONTAINER_RUNTIME CORESINK_CONTAINER_NAME CORESINK_CONTAINER_IMAGE CORESINK_CONTAINER_FROM) ${E[CORESINK_CONTAINER_ID]:0:12}" \
		test "${E[CORESINK_CONTAINER_ID]:-}" = "$cid" -a "${E[CORESINK_CONTAINER_RUNTIME]:-}" = containerd \
		-a "${E[CORESINK_CONTAINER_NAME]:-}" = worker -a "${E[CORESINK_CONTAINER_IMAGE]:-}" = localhost/cri-dump:1
	check "cri: its pod, namespace, uid and labels: $(shown CORESINK_POD_NAME CORESINK_POD_NAMESPACE CORESINK_POD_UID CORESINK_POD_LABELS)" \
		test "${E[CORESINK_POD_NAME]:-}" = web-cri -a "${E[CORESINK_POD_NAMESPACE]:-}" = shop \
		-a "${E[CORESINK_POD_UID]:-}" = "$uid" -a "${E[CORESINK_POD_LABELS]:-}" = "app=web tier=back"
	fact pods "containerd (CRI) | $ver | ${E[CORESINK_CONTAINER_ID]:0:12} | ${E[CORESINK_CONTAINER_NAME]:-} | ${E[CORESINK_CONTAINER_IMAGE]:-} | ${E[CORESINK_POD_NAME]:-} | ${E[CORESINK_POD_NAMESPACE]:-} | ${E[CORESINK_CONTAINER_FROM]:-}"
	python3 /src/tests/helpers/cri-client.py "$py" /run/containerd/containerd.sock remove "$sandbox" > /dev/null 2>&1
	# A plain container, as ctr (or nerdctl, with its label nerdctl/name) makes one: its own namespace's.
	ctr -n plain run -d --label team=pay localhost/cri-dump:1 task-vm /pod-dump >> "$out" 2>&1 ||
		{ echo "SKIP cri: ctr run: $(tail -n 2 "$out" | tr '\n' ' ')"; return 0; }
	for _ in $(seq 50); do pid=$(ctr -n plain task ls | awk '$1 == "task-vm" { print $2 }'); [ "${pid:-0}" != 0 ] && break; sleep 0.2; done
	kill -USR1 "$pid"
	crash_entry "$pid" || fail "cri: no coresink entry of ctr's container's crash (pid $pid)"
	check "ctr: /plain/task-vm, its image and labels from containerd's records: $(shown CORESINK_CONTAINER_ID CORESINK_CONTAINER_RUNTIME CORESINK_CONTAINER_IMAGE CORESINK_CONTAINER_LABELS)" \
		test "${E[CORESINK_CONTAINER_ID]:-}" = task-vm -a "${E[CORESINK_CONTAINER_RUNTIME]:-}" = containerd \
		-a "${E[CORESINK_CONTAINER_IMAGE]:-}" = localhost/cri-dump:1 -a "${E[CORESINK_CONTAINER_LABELS]:-}" = team=pay
	fact pods "containerd (ctr) | $ver | ${E[CORESINK_CONTAINER_ID]:-} | - | ${E[CORESINK_CONTAINER_IMAGE]:-} | - | - | ${E[CORESINK_CONTAINER_FROM]:-}"
	ctr -n plain task rm -f task-vm > /dev/null 2>&1; ctr -n plain container rm task-vm > /dev/null 2>&1
	systemctl stop containerd > /dev/null 2>&1
	return 0
}

stage1() {
	local said before mu
	fact kernel "$(uname -r)"
	fact systemd "$VERSION"
	mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
	fact boot "$(( mu / 1000000 ))"
	[ -e /usr/lib/systemd/system/systemd-coredumpd.service ] && kernel_at_least 6 19 && fact coredumpd yes
	before=$(live)
	printf '%s\n' "$before" > "$STATE/before"
	ok "kernel $(uname -r), systemd $(systemctl --version | head -n 1); systemd-coredump's pattern: $before"

	# node_exporter's textfile directory, as Debian's prometheus-node-exporter makes it: MetricsFile=auto writes there.
	mkdir -p -m 0755 /var/lib/prometheus/node-exporter
	# The package, as the README installs it.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$DEB" > "$STATE/apt.log" 2>&1 ||
		{ tail -n 20 "$STATE/apt.log"; fail "apt install ./$(basename "$DEB")"; }
	said=$(grep '^coresink:' "$STATE/apt.log" | tr '\n' ' ')
	check "apt installed the package; coresink.socket is active" systemctl is-active -q coresink.socket
	# The checks below crash root's programs dozens of times a minute: past the package's storm limits (10 of one
	# user a minute) on a fast boot, a later check's crash was suppressed, not stored. Those limits are t-storm's and
	# t-ratelimit's to prove; here they are lifted (a rule's RateLimitBurst= still holds: features_checks).
	mkdir -p /etc/coresink.conf.d
	printf '[Coresink]\nRateLimitGlobalBurst=0\nRateLimitUserBurst=0\n' > /etc/coresink.conf.d/40-vmtest-storms.conf
	expect_mode "the install" "$said"
	fact mode "$(echo "$said" | sed -n 's/.*enabled in \(.*\): kernel.core_pattern=.*/\1/p')"
	check "the drop-in holds pipe mode, which every kernel takes" \
		has_line "$(cat "$DROPIN")" "kernel.core_pattern=$PIPE"
	if [ "$EXPECT" = pipe ]; then
		said=$(/usr/libexec/coresink --core-pattern --socket 2>&1)
		check "coresink --core-pattern --socket refuses, with the reason: $said" \
			matches "$said" "^coresink: no socket mode: Linux [0-9.]+: "
	fi

	# The socket's stop gives pipe mode back; its start replaces a stale "@@" where the kernel cannot serve it.
	systemctl stop coresink.socket
	check "coresink.socket's stop gave pipe mode back" test "$(live)" = "$PIPE"
	[ "$EXPECT" = pipe ] && lost_under_stale
	printf '%s\n' "$SOCK" > /proc/sys/kernel/core_pattern
	t=$(date +%s)
	systemctl start coresink.socket
	expect_mode "coresink.socket's start over a stale '$SOCK'" \
		"$(journalctl -q -u coresink.socket --since "@$t" -o cat | grep -E '^(socket|pipe) mode' | tail -n 1)"
	# An upgrade from an older coresink that left "@@" live and in the drop-in: the postinst puts pipe mode back.
	printf '%s\n' "$SOCK" > /proc/sys/kernel/core_pattern
	sed -i "s#^kernel.core_pattern=.*#kernel.core_pattern=$SOCK#" "$DROPIN"
	said=$(/var/lib/dpkg/info/coresink.postinst configure 2>&1 | grep '^coresink:' | tr '\n' ' ')
	expect_mode "the postinst over a stale '$SOCK' (live and in the drop-in)" "$said"
	check "and the drop-in is pipe mode again" has_line "$(cat "$DROPIN")" "kernel.core_pattern=$PIPE"

	# TEST-87's crashes and checks, in the mode the package chose.
	timed coredumpctl_checks coredumpctl_checks
	check "root's crashes were stored in $EXPECT mode" test "$(entry test-dump CORESINK_MODE)" = "$EXPECT"
	for c in user_checks coresinkctl_checks summary_checks keep_checks fetch_unconfined_checks door_checks \
		features_checks metrics_checks notify_checks collect_checks pods_checks rootless_checks cri_checks; do
		timed "$c" "$c"
	done
	# The other mode, where the kernel has both.
	if [ "$EXPECT" = socket ]; then
		systemctl stop coresink.socket
		dump root later-dump SIGABRT
		stored later-dump pipe
		systemctl start coresink.socket
		check "coresink.socket's start took socket mode back" test "$(live)" = "$SOCK"
	else
		dump root later-dump SIGABRT
		stored later-dump pipe
	fi
	# What the kernel hands the handler, as the entries say it: the pidfd (%F, Linux 6.16, and stable kernels that
	# took the fix for CVE-2025-4598), or /proc proven by the crashing thread (%I) alone.
	if pidfd_given later-dump; then
		fact pidfd yes
		check "the kernel gave the pipe handler a pidfd (%F): root's entry has /proc, proven by it" \
			test -z "$(entry later-dump CORESINK_METADATA)" -a -n "$(entry later-dump COREDUMP_CMDLINE)"
	else
		fact pidfd no
		check "no pidfd (%F) from this kernel: root's entry has /proc, proven by %I instead" \
			test -n "$(entry later-dump COREDUMP_CMDLINE)"
	fi
	echo "done 1"
}

stage2() {
	local said before mu early sysinit
	mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
	fact boot2 "$(( mu / 1000000 ))"
	if [ "$EXPECT" = socket ]; then
		check "after the reboot, kernel.core_pattern is coresink's socket (the drop-in's pipe, then the socket's switch)" \
			test "$(live)" = "$SOCK"
	else
		check "after the reboot, kernel.core_pattern is coresink's pipe line (60-coresink.conf after 50-coredump.conf)" \
			test "$(live)" = "$PIPE"
	fi
	check "coresink.socket is active after the reboot" systemctl is-active -q coresink.socket
	# Pipe mode from the drop-in, or socket mode where coresink.socket already switched: whichever was live then.
	stored early-dump
	early=$(systemctl show -p InactiveEnterTimestampMonotonic --value vmtest-early.service)
	sysinit=$(systemctl show -p ActiveEnterTimestampMonotonic --value sysinit.target)
	check "the early crash was over at $(( early / 1000 )) ms of the boot, before sysinit.target ($(( sysinit / 1000 )) ms)" \
		test "$early" -gt 0 -a "$early" -lt "$sysinit"
	dump root later-dump SIGSEGV
	stored later-dump "$EXPECT"

	before=$(cat "$STATE/before")
	DEBIAN_FRONTEND=noninteractive apt-get remove -y -q coresink > "$STATE/remove.log" 2>&1 ||
		{ tail -n 20 "$STATE/remove.log"; fail "apt remove coresink"; }
	said=$(grep '^coresink:' "$STATE/remove.log" | tr '\n' ' ')
	check "apt remove gave systemd-coredump's pattern back: $(live); it said: $said" test "$(live)" = "$before"
	dump root test-dump SIGSEGV
	check "a crash after the removal is systemd-coredump's" wait_coredumpctl_storage

	powercut_here && powercut_record $PC_SHORT
	echo "done 2"
}

# systemd 262 on 6.19+: after the removal and a reboot, systemd-coredumpd serves "@@" again.
stage3() {
	check "after removal and a reboot, systemd-coredumpd's register set its socket: $(live)" \
		test "$(live)" = "@@/run/systemd/coredumpd/kernel"
	dump root test-dump SIGSEGV
	check "and a crash is stored by it" wait_coredumpctl_storage
	powercut_here && powercut_record $PC_SHORT
	echo "done 3"
}

# The bench (make bench-vm): on a fresh unstable image, where systemd-coredumpd serves "@@" as its preset has it,
# the same crashes into coresink's socket mode (the tree's coresink --serve) and into systemd-coredumpd, interleaved,
# with both ceilings, by coresink-bench --crash. Its tables and CSVs go to the host's share.
stagebench() {
	local size w avail rc
	sh /src/scripts/add-user.sh /src/systemd/coresink.sysusers > /dev/null || fail "coresink's users"
	systemctl is-active -q systemd-coredumpd.service || systemctl start systemd-coredumpd.service ||
		fail "systemd-coredumpd.service does not run"
	avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	fact kernel "$(uname -r)"
	fact systemd "$VERSION"
	fact memory "${avail} MiB available"
	for run in "64M dense" "64M core" "64M threads" "256M dense" "256M core" "256M threads" "1G dense" "1G core"; do
		read -r size w <<< "$run"
		if [ "$size" = 1G ] && [ "$avail" -lt 3072 ]; then
			ok "$size $w: left out, $avail MiB available (a 1 GiB victim and the page cache need 3 GiB)"
			continue
		fi
		/src/build/coresink-bench --crash --size "$size" --workload "$w" --runs 3 --dir /var/tmp \
			--coresink /src/build/coresink --handlers socket,systemd-coredumpd,null-socket,direct \
			--csv "/out/bench-$size-$w.csv" > "/out/bench-$size-$w.txt" 2>&1
		rc=$?
		check "$size $w: every core read back whole ($(grep -c ' verified$' "/out/bench-$size-$w.txt") handlers)" \
			test "$rc" -eq 0
	done
	echo "done bench"
}

# The power-cut recordings (make check-powercut, tests/vm/run.sh --powercut): for each file system and mode, a
# file system made on a dm-log-writes target (the log on a second loop device), real crashes stored by the tree's
# coresink with compression (and, on ext4 in socket mode and btrfs in pipe mode, encryption: Encrypt= to the tests'
# key), a vacuum removing old cores, KeepModules= and the signatures at work, then the log and what each crash was
# (pid, MiB, zero pages in %) to the host, which replays the log at every flush (run.sh).
PC=/var/tmp/pc

# record FS MODE CORESINK NAME [KEY=VALUE]: one recording, into /out/powercut/NAME.log and NAME.crashes, with one
# more setting of the config where given.
record() {
	local fs=$1 mode=$2 name=$4 more=${5:-} dd ld dev conf=$T/$4.conf sock="" pid
	CORESINK=$3
	rm -rf "$PC" && mkdir -p "$PC" /mnt/pc || fail "$PC"
	truncate -s 320M "$PC/data.img" && truncate -s 4G "$PC/log.img" || fail "$name: the images"
	dd=$(losetup -f --show "$PC/data.img") && ld=$(losetup -f --show "$PC/log.img") || fail "$name: losetup"
	dmsetup create pc --table "0 $(blockdev --getsz "$dd") log-writes $dd $ld" || fail "$name: dmsetup log-writes"
	dev=/dev/mapper/pc
	case $fs in
	ext4) mkfs.ext4 -q "$dev" ;;
	xfs) mkfs.xfs -q -f "$dev" ;;
	btrfs) mkfs.btrfs -q -f "$dev" > /dev/null ;;
	esac || fail "$name: mkfs.$fs"
	dmsetup message pc 0 mark mkfs || fail "$name: the mark"
	mount "$dev" /mnt/pc && mkdir -p /mnt/pc/cores || fail "$name: mount"
	[ "$mode" = socket ] && sock="Socket=$T/$name/kernel.socket"
	write_config "$conf" "Directory=/mnt/pc/cores" "KeepFree=16M" "MaxUse=48M" "Compress=yes" "KeepModules=yes" \
		"RateLimitBurst=0" "RateLimitGlobalBurst=0" ${sock:+"$sock"} ${more:+"$more"}
	if [ "$mode" = socket ]; then
		start_server "$conf"
		use_socket "$conf"
	else
		use_handler "$conf"
	fi
	: > "/out/powercut/$name.crashes"
	for c in 16:50 8:0 gone:8:50 24:50 16:50 12:0 20:50; do
		if [ "${c%%:*}" = gone ]; then
			# An executable deleted before its crash (an upgrade's work): KeepModules= keeps it.
			c=${c#gone:}
			cp "$CRASHER" "$T/gone" && rm -f "$T/go" && mkfifo "$T/go" || fail "$name: the deleted executable"
			{ ( ulimit -c unlimited; exec "$T/gone" -W "$T/go" -z "${c#*:}" "${c%:*}" ) & pid=$!; } 2> /dev/null
			# Deleted once it runs it (before, its exec would fail), then let go.
			for _ in $(seq 200); do [ "$(readlink "/proc/$pid/exe")" = "$T/gone" ] && break; sleep 0.05; done
			rm "$T/gone"
			timeout 120 sh -c ': > "$1"' - "$T/go" || fail "$name: the deleted executable never waited for its crash"
			{ wait "$pid"; } 2> /dev/null
			CRASH_PID=$pid CRASH_SINCE=$TEST_SINCE
		else
			crash_run "$CRASHER" -z "${c#*:}" "${c%:*}"
			pid=$CRASH_PID
		fi
		entry_where "COREDUMP_PID=$pid" > "$T/e" || fail "$name: no entry for the crash of $pid"
		echo "$pid ${c%:*} ${c#*:} $(field "$(cat "$T/e")" CORESINK_RESULT) $(field "$(cat "$T/e")" COREDUMP_FILENAME)" \
			"$(field "$(cat "$T/e")" CORESINK_MODULES_KEPT)" >> "/out/powercut/$name.crashes"
	done
	[ "$mode" = socket ] && stop_server
	_run_undo; _undo=""
	dmsetup message pc 0 mark end
	# The last handler may still be ending (its entry is out before it exits): the file system waits for it.
	for _ in $(seq 100); do umount /mnt/pc 2> /dev/null && break; sleep 0.2; done
	mountpoint -q /mnt/pc && fail "$name: /mnt/pc stays busy"
	dmsetup remove pc && losetup -d "$dd" "$ld" || fail "$name: taking the target down"
	cp --sparse=always "$PC/log.img" "/out/powercut/$name.log" || fail "$name: the log to the host"
	ok "$name: $(wc -l < "/out/powercut/$name.crashes") crashes recorded: $(awk '{ print $4 }' \
		"/out/powercut/$name.crashes" | sort | uniq -c | tr -s ' \n' ' '), log $(du -m "$PC/log.img" | cut -f1) MiB"
	rm -rf "$PC"
}

# powercut_here: this boot records the power cuts too (vmtest.powercut=short: the last boot of the release, so that
# make check-all boots each release once for both tiers).
powercut_here() { grep -qw 'vmtest.powercut=short' /proc/cmdline; }

# The file systems and modes recorded: every pair in make check-powercut's own boot; in the VM tier's (make
# check-all, make check-vm) a short list, each file system once, each mode, the encrypted path in each mode (xfs in
# pipe mode and btrfs in socket mode are check-powercut's alone). Each recording is 40-85 s of the tier under TCG,
# and its replay as much again at the end of make check-all, which nothing else overlaps.
PC_ALL="ext4-pipe ext4-socket xfs-pipe xfs-socket btrfs-pipe btrfs-socket"
PC_SHORT="ext4-pipe ext4-socket xfs-socket btrfs-pipe"

# powercut_record FS-MODE...: each file system and mode given recorded through dm-log-writes into /out/powercut,
# then the planted bug.
powercut_record() {
	local pair fs mode enc
	sh /src/scripts/add-user.sh /src/systemd/coresink.sysusers > /dev/null || fail "coresink's users"
	modprobe dm-log-writes || fail "no dm-log-writes in $(uname -r)"
	fact kernel "$(uname -r)"
	T=$(mktemp -d) && rm -rf /out/powercut && mkdir -p /out/powercut || fail "the share"
	enc="Encrypt=$(sed -n 's/^# public key: //p' /src/tests/e2e/age-test-key.txt)"
	for pair; do
		fs=${pair%-*} mode=${pair#*-}
		if [ "$mode" = socket ] && ! have_socket_mode; then
			ok "$pair: no socket mode in $(uname -r)"
			continue
		fi
		case $pair in
		ext4-socket | btrfs-pipe) timed "recording $pair-encrypt" \
			record "$fs" "$mode" /src/build/coresink "$pair-encrypt" "$enc" ;;
		*) timed "recording $pair" record "$fs" "$mode" /src/build/coresink "$pair" ;;
		esac
	done
	# The planted bug: a build that names the core before its data is synced, with no writeback of its own before;
	# the replay must find it broken. On btrfs: xfs writes the data back when the file's size is set (its "null
	# files" guard: the engine's trim does it), ext4's ordered mode before the name's commit, so both hide the bug.
	timed "recording planted-btrfs-pipe" record btrfs pipe /src/build/planted/coresink planted-btrfs-pipe
}

stagepowercut() {
	powercut_record $PC_ALL
	echo "done powercut"
}

"stage$STAGE"
