#!/bin/bash
# Per-process rules, on real crashes: [Rule] sections in the config and in its drop-ins (FILE.d/*.conf, read in
# lexical order). An excluded executable keeps nothing but its entry, which names the rule; a unit glob with its own
# MaxCoreSize; a rule for one user; a signal; the first matching rule wins, drop-ins after the main file, in order;
# a [Coresink] key of a drop-in holds over the main file's; a rule with a bad line is skipped whole and said so,
# and the crash is stored under the rest; in socket mode a rule that wants nothing is answered before the dump.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, starts systemd-journald and creates a cgroup"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
scratch
start_journald
MIB=$((1024 * 1024))
OTHER=54321
base=("Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" "StackTrace=no")

# rules CONF RULE...: CONF's rules, one argument a section, its lines separated by ";".
rules() {
	local f=$1 r; shift
	for r in "$@"; do printf '\n[Rule]\n%s\n' "$(printf '%s' "$r" | tr ';' '\n')"; done >> "$f"
}

# crash_cmd CMD...: CMD crashes (it must die of a signal) under the handler; its entry in E, its core in CORE.
crash_cmd() {
	crash_run "$@"
	E=$(journal_entry "$CRASH_PID") || fail "no entry for $*"
	CORE=$(field "$E" COREDUMP_FILENAME)
}

# The main file's rule, then drop-ins: an exclusion, a unit glob, one user, a signal, two that overlap.
write_config "$T/c.conf" "${base[@]}"
rules "$T/c.conf" "Name=main-first;MatchExecutable=$T/bin/never*;MaxCoreSize=1M"
mkdir "$T/c.conf.d" "$T/bin"
rules "$T/c.conf.d/10-early.conf" \
	"Name=excluded;MatchExecutable=$T/bin/excluded;Storage=none" \
	"Name=small-units;MatchUnit=coresink-e2e-*.service;MaxCoreSize=1M" \
	"Name=one-user;MatchUser=$OTHER;Core=minimal" \
	"Name=aborts;MatchSignal=SIGABRT QUIT;MatchComm=bash;Storage=none" \
	"Name=early;MatchComm=crasher;MatchHostname=*;FileMode=0600"
rules "$T/c.conf.d/20-late.conf" "Name=late;MatchComm=crasher;FileMode=0644;MaxCoreSize=2M"
printf '[Coresink]\nOnLimit=discard\n' > "$T/c.conf.d/30-main-key.conf"
printf '[Rule]\nName=not-a-dropin\nStorage=none\n' > "$T/c.conf.d/README"
use_handler "$T/c.conf"
out=$("$CORESINK" --config "$T/c.conf" --check-config 2>&1)
check "--check-config: the config is clean" test $? -eq 0
check "--check-config shows the rules in the order they apply" test "$(printf '%s\n' "$out" | sed -n 's/^Name=//p' |
	tr '\n' ' ')" = "main-first excluded small-units one-user aborts early late "
check "--check-config: a drop-in's [Coresink] key over the main file's" has_line "$out" "OnLimit=discard"
which=$("$CORESINK" --config "$T/c.conf" --check-config "exe=$T/bin/excluded" comm=x 2>&1)
check "--check-config exe=...: says which rule" has_line "$which" "# rule excluded matches ($T/c.conf.d/10-early.conf:2)"
check "--check-config exe=...: and what the crash is captured with" has_line "$which" "Storage=none"
which=$("$CORESINK" --config "$T/c.conf" --check-config unit=other.service user=0 comm=sh signal=SEGV 2>&1)
check "--check-config: no rule for another crash" has_line "$which" "# no rule matches: the [Coresink] settings apply"

# An excluded executable: its entry only, naming the rule.
cp "$CRASHER" "$T/bin/excluded"
crash_cmd "$T/bin/excluded" 8
check "excluded: CORESINK_RULE=excluded" has_line "$E" "CORESINK_RULE=excluded"
check "excluded: recorded, no file" test "$(field "$E" CORESINK_RESULT)-$CORE" = "recorded-"
check "excluded: nothing in the directory" test -z "$(entries "$T/cores" 2>/dev/null)"

# The first matching rule, in the order read: early (10-) over late (20-); the main file's own rule matched nothing.
crash_cmd "$CRASHER" 8
check "first match: CORESINK_RULE=early, not late" has_line "$E" "CORESINK_RULE=early"
check "first match: early's FileMode=0600" test "$(stat -c %a "$CORE")" = 600
check "first match: the whole core (late's MaxCoreSize=2M did not apply)" "$PATCHECK" "$CORE" 8
rm -f "$T"/cores/core.*

# A unit glob with its own MaxCoreSize, in a real cgroup named as systemd names them; with OnLimit=discard from the
# drop-in, a core over it keeps nothing.
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg" ]; then
	unit=$cg/coresink-e2e.slice/coresink-e2e-$$.service
	mkdir -p "$unit" || fail "mkdir $unit"
	at_exit "rmdir '$unit' '$cg/coresink-e2e.slice'"
	{ ( echo "$BASHPID" > "$unit/cgroup.procs"; ulimit -c unlimited; exec -a worker "$CRASHER" -c worker 8 ) &
	  p=$!; wait $p; } 2>/dev/null
	E=$(journal_entry "$p") || fail "no entry"
	check "unit glob: CORESINK_RULE=small-units" has_line "$E" "CORESINK_RULE=small-units"
	check "unit glob: its MaxCoreSize=1M stopped the core" has_line "$E" "CORESINK_LIMIT=MaxCoreSize"
	check "unit glob: discarded, as the drop-in's OnLimit says" has_line "$E" "CORESINK_RESULT=discarded"
else
	echo "SKIP $NAME: no cgroup2 mount: unit rules not tested here"
fi

# A rule for one user: a minimal core for their crash, the whole core for root's.
chmod 0755 "$T" "$T/bin"
crash_cmd setpriv --reuid=$OTHER --regid=$OTHER --clear-groups "$CRASHER" -c mine 32
check "one user: CORESINK_RULE=one-user" has_line "$E" "CORESINK_RULE=one-user"
check "one user: a minimal core" test "$(file_size "$CORE")" -lt $((4 * MIB))
crash_cmd "$CRASHER" -c roots 32
check "root: no rule" lacks "$E" "CORESINK_RULE="
check "root: the whole core" "$PATCHECK" "$CORE" 32

# A signal: SIGABRT of a shell matches, its SIGSEGV does not.
crash_cmd bash -c 'kill -ABRT $$'
check "signal: SIGABRT matches MatchSignal=SIGABRT QUIT" has_line "$E" "CORESINK_RULE=aborts"
check "signal: recorded" has_line "$E" "CORESINK_RESULT=recorded"
crash_cmd bash -c 'kill -SEGV $$'
check "signal: SIGSEGV does not" lacks "$E" "CORESINK_RULE="

# A rule with a bad line is skipped whole, though the rest of it would match every crash; the crash is stored and
# the problem logged.
rm -rf "$T/c.conf.d"
write_config "$T/c.conf" "${base[@]}"
rules "$T/c.conf" "Name=broken;MatchExecutabel=/nowhere;Storage=none" "Name=global;MatchComm=*;KeepFree=1"
crash_cmd "$CRASHER" 8
check "bad rule: not applied, the core is stored" "$PATCHECK" "$CORE" 8
check "bad rule: no CORESINK_RULE" lacks "$E" "CORESINK_RULE="
warn=$(jctl -o cat | grep -F "problem(s) with $T/c.conf")
line=$(grep -n '^MatchExecutabel=' "$T/c.conf" | cut -d: -f1)
check "bad rule: the warning names the line ($line) and the rule" has "$warn" \
	"c.conf:$line: MatchExecutabel: unknown key in rule broken, the rule is skipped"
check "bad rule: a machine-wide key in a rule is refused" has "$warn" \
	"KeepFree: not a per-crash key (it holds for the whole machine) in rule global, the rule is skipped"
"$CORESINK" --config "$T/c.conf" --check-config > "$T/out" 2>&1
check "--check-config: exit 1 for the bad rules" test $? -eq 1
check "--check-config: the skipped rule shown commented out" has_line "$(cat "$T/out")" "# Name=broken"

# Socket mode: a rule that wants nothing of the core is decided before the dump.
if have_socket_mode; then
	SOCK=$T/sock/kernel.socket
	write_config "$T/s.conf" "${base[@]}" "Socket=$SOCK"
	rules "$T/s.conf" "Name=nothing;MatchComm=crasher;Storage=none"
	start_server "$T/s.conf"
	use_socket "$T/s.conf"
	crash_cmd "$CRASHER" 64
	check "socket: CORESINK_RULE=nothing" has_line "$E" "CORESINK_RULE=nothing"
	check "socket: answered before the dump (REJECT)" has_line "$E" "CORESINK_REJECTED=1"
	check "socket: recorded" has_line "$E" "CORESINK_RESULT=recorded"
	crash_cmd "$CRASHER" -c other 8
	check "socket: another crash is stored" "$PATCHECK" "$CORE" 8
else
	echo "SKIP $NAME: no socket mode here (Linux 6.17): the decision before the dump not tested"
fi
