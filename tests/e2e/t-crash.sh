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
