#!/bin/bash
# A real process crashes under a real kernel.core_pattern pointing at the built handler, once per strategy:
# one complete file, right size, mode and owner, the process's memory in it, gdb shows the crashing frame.
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
	check "$strategy: named core.crasher.PID.UTC" \
		bash -c "[[ '$(basename "$core")' =~ ^core\.crasher\.$CRASH_PID\.[0-9]{8}T[0-9]{6}Z$ ]]"
	check "$strategy: mode 0640, owner root:root" test "$(stat -c '%a %u %g' "$core")" = "640 0 0"
	check "$strategy: every byte the ELF headers promise" "$PATCHECK" --elf "$core"
	check "$strategy: all 64 MiB of the process's pattern, intact" "$PATCHECK" "$core" 64
	bt=$(gdb -batch -ex bt "$CRASHER" "$core" 2>&1)
	check "$strategy: gdb reads it and shows crash_here on top" has "$bt" "#0  crash_here"
	check "$strategy: gdb reports no truncation" lacks "$bt" "truncated"
	check "$strategy: no ext4 warning from the capture" lacks "$(kmsg_since)" "ext4_convert_unwritten"
done
