#!/bin/bash
# lived-check.sh: make check on a machine that has lived: a system journald with persistent storage
# (/var/log/journal), the suite run twice in a row, then that journald restarted, and the suite once more. Its logs
# are /tmp/lived.N.log. Everything this script made is undone: the journald it started (stopped by its pid), and
# the journal files and directories it created. Developer check, as root, on a machine where no journald runs.
# usage: scripts/lived-check.sh
set -u
[ "$(id -u)" -eq 0 ] || { echo "lived-check: needs root" >&2; exit 100; }
if pidof systemd-journald > /dev/null; then
	echo "lived-check: a journald runs already: this check starts its own" >&2
	exit 100
fi
cd "$(dirname "$0")/.." || exit 111
made_var=""; [ -d /var/log/journal ] || { mkdir -p /var/log/journal; made_var=1; }
machine=/var/log/journal/$(cat /etc/machine-id)
made_machine=""; [ -d "$machine" ] || made_machine=1
made_run=""; [ -d /run/log/journal ] || made_run=1
made_sock=""; [ -d /run/systemd/journal ] || made_sock=1
start() {
	/lib/systemd/systemd-journald > /dev/null 2>&1 &
	J=$!
	for _ in $(seq 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
	journalctl --flush > /dev/null 2>&1
}
stop() { kill "$J"; wait "$J" 2>/dev/null; }
start
for run in 1 2; do
	make check > /tmp/lived.$run.log 2>&1
	echo "run $run (journald $J, persistent): rc=$? $(grep '^e2e:' /tmp/lived.$run.log)"
done
stop; start
make check > /tmp/lived.3.log 2>&1
echo "run 3 (journald restarted, $J): rc=$? $(grep '^e2e:' /tmp/lived.3.log)"
stop
[ -n "$made_machine" ] && rm -rf "$machine"
[ -n "$made_var" ] && rm -rf /var/log/journal
[ -n "$made_run" ] && rm -rf /run/log/journal
[ -n "$made_sock" ] && rm -rf /run/systemd/journal
