#!/bin/bash
# A pipe-mode handler killed (SIGKILL: the OOM killer, an admin's kill -9) before each step of a real capture in
# turn, by strace's injection (signal=KILL, delivered as the call is entered, so the call never runs) around the real
# handler (faults.sh). The steps are taken from the code as it runs: the handler's own calls in a faultless capture,
# one step per run of calls of one syscall (the run's first call, and its last). After each kill: the crashed
# process let go within 30 s; the crash has exactly one entry, written by the killed handler or by the next one,
# which finds the dead one's record in the ledger; the entry agrees with the directory (stored = the whole core
# under its name, anything else = no file of that crash); no temporary or stray file; the next crash stored whole;
# the ledger's count of stored bytes what the directory holds, and no record of a dead handler left in it.
# A handler killed before it has written the crash's record into the ledger leaves nothing any later one can name
# the crash by (its early steps: the config, /proc, the directory): such a crash has no entry, and the row says so.
# In socket mode (FAULTS_MODE=socket: t-kills-socket.sh) the server's process for the crash is the one killed:
# strace is attached to the server and follows what it forks, each process counted from its fork; it stops the
# process at the step, lets go, and the test kills it (stop_and_kill). A step whose call the server makes itself
# during a capture (counted from the attach) is left out, lest the server be the one stopped; a stop that lands in
# the analysis (which counts its own calls) kills the analysis, and is said as such. The server names every crash
# whose process died, so every kill must leave exactly one entry.
# A short list here; FAULTS=all (make fault-sweep) kills before every step, FAULTS_TABLE=FILE writes the table.
# tier: all (make check-all only)
. "$(dirname "$0")/faults.sh"

count_calls

# STEPS: "SYSCALL N" a line (N: its Nth call of SYSCALL since main, or since the fork), in the order of the
# faultless capture; RECORD: the index in STEPS of the first write of the ledger that holds a capture in flight (the
# crash's record): a kill before it, or before any step up to it, comes before the record. SERVER: the calls the
# server made itself meanwhile (socket mode).
# shellcheck disable=SC2016
mapfile -t STEPS < <(awk -v mode="$MODE" -v server="${SERVER_PID:-0}" '
	NR == 1 && mode == "pipe" { pid = $1 } !pid && $1 != server { pid = $1 } $1 != pid { next }
	mode == "socket" || /^[0-9]+ +umask\(/ { on = 1 } !on { next }
	{ sc = $2; sub(/\(.*/, "", sc) } sc !~ /^[a-z_0-9]+$/ { next }
	{ n[sc]++; if (sc != prev) { if (last != "") print last; print sc, n[sc]; last = ""; prev = sc }
	  else last = sc " " n[sc] }
	sc == "write" && /"(ledger [0-9]*\\n)?published [0-9]*\\ninflight / && !rec { rec = 1; print "RECORD" }
	END { if (last != "") print last }' "$T/base.log")
RECORD=-1
for i in "${!STEPS[@]}"; do [ "${STEPS[$i]}" = RECORD ] && { RECORD=$((i - 1)); unset "STEPS[$i]"; break; }; done
STEPS=("${STEPS[@]}")
[ "$RECORD" -gt 0 ] || fail "no write of the crash's record in the faultless capture's calls"
SERVER=" $(awk -v s="${SERVER_PID:-0}" '$1 == s { sc = $2; sub(/\(.*/, "", sc); print sc }' "$T/base.log" |
	sort -u | tr '\n' ' ')"

# recorded: whether the killed handler wrote the crash's record into the ledger (a write of it naming a capture in
# flight: the others have finished, settled) before it died. Socket mode: the server names the crash whatever.
recorded() {
	[ "$MODE" = socket ] || grep -qE '^write\([0-9]*, "(ledger [0-9]*\\n)?published [0-9]*\\ninflight .* = [0-9]' "$T/kill.log"
}

# killed: which process the kill took: "killed" (the handler, or socket mode's process for the crash), "the
# analysis", "the server", or "not reached".
killed() {
	local dead first
	# Every thread of a killed process has its line; the crash's process is the first the log shows past the server.
	dead=" $(awk '/killed by SIGKILL/ { print ($1 ~ /^[0-9]+$/) ? $1 : "handler" }' "$T/kill.log" | tr '\n' ' ')"
	first=$(awk -v s="${SERVER_PID:-0}" '$1 != s { print $1; exit }' "$T/kill.log")
	case $dead in
	" ") echo "not reached" ;;
	*" handler "*|*" $first "*) echo killed ;;
	*" ${SERVER_PID:-0} "*) echo "the server" ;;
	*) echo "the analysis" ;;
	esac
}

# stop_and_kill SYSCALL N (socket mode): a crash whose process strace stops (SIGSTOP) at its Nth SYSCALL; a stop,
# unlike a kill, lets the call itself run first, so socket mode's kill comes just after each step rather than just
# before it. Then strace lets go of the server, and the stopped process is killed (SIGKILL) by its pid. Not killed by
# strace itself: the server, traced too, would be killed at its own Nth call of it, which it makes as it names the
# crash.
# Sets CRASH_PID and CRASH_SINCE as crash_run does.
stop_and_kill() {
	local stopped="" st
	wrap "-f -o $T/kill.log -e trace=$1,write -e inject=$1:signal=STOP:when=$(aim "$1" "$2")"
	CRASH_SINCE="@$(date +%s.%N)"
	{ ( ulimit -c unlimited; exec "$CRASHER" 8 ) & CRASH_PID=$!; } 2> /dev/null
	# Until the stop, or the capture's end: the crashed process let go and no capture left in the ledger (a stop
	# after the release, in the analysis say, comes when the crashed process is gone).
	for _ in $(seq 1200); do
		stopped=$(awk '/--- SIGSTOP / { print $1; exit }' "$T/kill.log")
		[ -n "$stopped" ] && break
		! kill -0 "$CRASH_PID" 2> /dev/null && ! grep -q '^inflight ' "$T/cores/.coresink.state" 2> /dev/null && break
		sleep 0.05
	done
	if [ -n "$stopped" ]; then
		for _ in $(seq 100); do
			st=$(awk '{ print $3 }' "/proc/$stopped/stat" 2> /dev/null)
			case $st in T|t) break ;; esac
			sleep 0.01
		done
		detach
		# The line killed() reads; the server is let go on, and its row says it was stopped (a broken promise).
		echo "$stopped +++ killed by SIGKILL +++" >> "$T/kill.log"
		if [ "$stopped" = "$SERVER_PID" ]; then
			kill -CONT "$stopped"
		else
			kill -KILL "$stopped" 2> /dev/null
		fi
	fi
	{ wait "$CRASH_PID"; } 2> /dev/null
}

# kill_at I: the handler of an 8 MiB crash killed before step I; the checks; prints a row of the table.
kill_at() {
	local i=$1 sc n bad="" t0 t1 pid since k e count result core row
	read -r sc n <<< "${STEPS[$i]}"
	case $SERVER in *" $sc "*) printf '| %d | %s %s | left out: the server makes it too | | ok |\n' "$i" "$sc" "$n" \
		| tee -a "$T/table"; return 0 ;; esac
	rm -f "$T/cores"/core.*
	t0=$(date +%s%N)
	if [ "$MODE" = socket ]; then
		stop_and_kill "$sc" "$n" 2> /dev/null
	else
		# The ledger's writes traced too: whether the record was written before the kill (reads vary in count).
		wrap "-o $T/kill.log -e trace=$sc,write -e inject=$sc:signal=KILL:when=$(aim "$sc" "$n")"
		crash_run "$CRASHER" 8
	fi
	t1=$(date +%s%N)
	pid=$CRASH_PID since=$CRASH_SINCE
	[ $(( (t1 - t0) / 1000000 )) -lt 30000 ] || bad="$bad held $(( (t1 - t0) / 1000000 )) ms;"
	k=$(killed)
	[ "$k" != "the server" ] || bad="$bad the server stopped;"
	next_crash
	bad="$bad$NEXT_BAD"
	CRASH_PID=$pid CRASH_SINCE=$since
	e=""
	count=$(entries_of "$pid" "$since")
	[ "$count" -eq 0 ] || e=$(journal_entry "$pid")
	result=$(field "$e" CORESINK_RESULT) core=$(field "$e" COREDUMP_FILENAME)
	case $count in
	1) row="$result" ;;
	0) row="no entry"; recorded || row="no entry (before its record)"; [ "$row" != "no entry" ] || bad="$bad no entry;" ;;
	*) row="$result"; bad="$bad $count entries;" ;;
	esac
	case $result in
	stored) whole "$core" 8 || bad="$bad stored but not whole;" ;;
	*) [ -z "$(ls "$T/cores" | grep "^core\.crasher\.$pid\.")" ] || bad="$bad a file of it left;" ;;
	esac
	[ -z "$(stray)" ] || bad="$bad a stray file: $(stray | tr '\n' ' ');"
	printf '| %d | %s %s | %s | %s | %s |\n' "$i" "$sc" "$n" "$k" "$row" "${bad:-ok}" | tee -a "$T/table"
	[ -z "$bad" ]
}

# The short list: the first step, the record's write and the step after it, the copy's first write, the link that
# names the core and the step after it, the analysis' fork, the entry's send and the step after it, the last step.
quick() {
	local want=("write 5" "linkat 1" "clone 1" "sendmsg 2") i j
	echo 0 "$RECORD" $((RECORD + 1))
	for j in "${want[@]}"; do
		for i in "${!STEPS[@]}"; do
			[ "${STEPS[$i]}" = "$j" ] || continue
			echo "$i"
			case $j in linkat*|sendmsg*) echo $((i + 1)) ;; esac
			break
		done
	done
	echo $((${#STEPS[@]} - 1))
}

: > "$T/table"
fails=0 runs=0
[ "${FAULTS:-}" = all ] && list=$(seq 0 $((${#STEPS[@]} - 1))) || list=${FAULTS_STEPS:-$(quick)}
for i in $list; do
	runs=$((runs + 1))
	kill_at "$i" || fails=$((fails + 1))
done
[ -n "${FAULTS_TABLE:-}" ] && cp "$T/table" "$FAULTS_TABLE"
left=$(grep -c 'left out: the server' "$T/table")
check "kills before $((runs - left)) of the ${#STEPS[@]} steps ($left left out; the record at step $RECORD), $fails \
with a broken promise" \
	test "$fails" -eq 0
