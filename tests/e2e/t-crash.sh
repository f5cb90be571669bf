#!/bin/bash
# A real process crashes under a real kernel.core_pattern pointing at the built handler, once per strategy:
# one complete file, right size, mode and owner, the process's memory in it, gdb shows the crashing frame.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern"
scratch

for strategy in splice readwrite; do
	rm -rf "$T/cores"
	write_config "$T/c.conf" "Directory=$T/cores" "Strategy=$strategy" "KeepFree=64M"
	use_handler "$T/c.conf"
	kmsg_mark
	crash 64
	check "$strategy: the crasher died of SIGSEGV with a core (139)" test "$CRASH_STATUS" -eq 139
	core=$(only_file "$T/cores") || exit 1
	check_stored "$strategy" "$core" 64
	check "$strategy: no ext4 warning from the capture" lacks "$(kmsg_since)" "ext4_convert_unwritten"
done

# While the handler copies, the dumping thread is held on the CPU it ran on and the handler takes the others
# (flow/apart.c): watched from here as the core is dumped. Where this shell has one CPU, there is nothing to see.
cpus() { awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
state() { awk '/^State/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# held_while_dumping MIB: crashes a process of MIB and prints the one CPU its thread was held on, if it was.
held_while_dumping() {
	local pid held= c
	( ulimit -c unlimited; exec "$CRASHER" "$1" ) &
	pid=$!
	while [ -e "/proc/$pid" ] && [ "$(state "$pid")" != Z ]; do
		c=$(cpus "$pid")
		case $c in *[-,]* | "") ;; *) held=$c ;; esac
		sleep 0.002
	done
	wait "$pid"
	echo "$pid $held"
}
case $(cpus $$) in
*[-,]*)
	kmsg_mark
	read -r pid held < <(held_while_dumping 512 2> /dev/null)
	crash_log "$pid" > /dev/null
	check "the dumping thread held on one CPU during the copy (${held:+CPU }${held:-never})" test -n "$held" ;;
*) echo "     one CPU here ($(cpus $$)): the dumping thread's CPU is not checked" ;;
esac
