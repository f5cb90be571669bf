#!/bin/bash
# How often one capture writes the ledger (.coresink.state), counted by strace on that file alone (faults.sh puts
# it around the real handler in pipe mode, attaches it to the server in socket mode: t-ledger-writes-socket.sh):
# a crash of 64 MiB, then one of 8 MiB, with no other capture in flight, write it at most three times each (the
# admission and its record, the publication, the end: docs/design.md), whatever the size. (With others in flight a
# capture writes its progress at each chunk, for them to count: the storms' tests hold MaxUse and KeepFree so.)
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/faults.sh"
STATE=$T/cores/.coresink.state
# writes MIB: the ledger's writes of one crash of MIB alone, from strace's log.
writes() {
	rm -f "$T/w.log"
	wrap "-f -o $T/w.log -e trace=write,pwrite64,writev,pwritev,ftruncate -P $STATE"
	crash "$1"
	detach
	for _ in $(seq 50); do [ -e "$T/w.log" ] && break; sleep 0.1; done
	grep -cE '^([0-9]+ +)?(write|pwrite64|writev|pwritev)\(' "$T/w.log"
}
crash 1 > /dev/null   # the ledger made, and its first count of the directory
n64=$(writes 64)
n8=$(writes 8)
check "$MODE mode: one 64 MiB crash alone wrote the ledger $n64 times (at most 3)" test "$n64" -le 3 -a "$n64" -ge 1
check "$MODE mode: one 8 MiB crash alone: $n8 times (at most 3)" test "$n8" -le 3 -a "$n8" -ge 1
