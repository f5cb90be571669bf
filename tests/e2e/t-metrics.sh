#!/bin/bash
# The metrics for Prometheus (docs/metrics.md) on real crashes: coresinkctl metrics before any, MetricsFile= after
# each (0644, exact deltas by result, reason and signal), a storm of 8 at once counted exactly 8 while a reader
# never sees half a file, socket mode counted as pipe mode is, Debian's prometheus-node-exporter serving the file on
# 127.0.0.1 and promtool passing what it serves; a MetricsFile= under a link or in a directory others may write is
# not written, and the crash is stored anyway and the reason logged.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern and starts systemd-journald"
command -v prometheus-node-exporter > /dev/null || skip "no prometheus-node-exporter (make check installs it)"
command -v promtool > /dev/null || skip "no promtool (Debian's prometheus package; make check installs it)"
scratch
start_journald
mkdir -m 0755 "$T/prom"
PROM=$T/prom/coresink.prom
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"MetricsFile=$PROM"
use_handler "$T/c.conf"
ctl() { "$B/coresinkctl" --config "$T/c.conf" "$@"; }

# value TEXT SERIES: the value of one series (its name and labels as printed), 0 when absent.
value() { printf '%s\n' "$1" | awk -v s="$2" '$1 == s { v = $2 } END { print v + 0 }'; }
STORED='coresink_crashes_total{result="stored",reason="none"}'
SEGV='coresink_crashes_by_signal_total{signal="SIGSEGV"}'
CUT='coresink_crashes_total{result="truncated",reason="max_core_size"}'

# wait_count SERIES N: until the file counts N (the counters move once the crash's entry is out, after `crash`).
wait_count() {
	for _ in $(seq 100); do
		[ -f "$PROM" ] && [ "$(value "$(cat "$PROM")" "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

out=$(ctl metrics) || fail "coresinkctl metrics: $out"
check "coresinkctl metrics before any crash: stored 0, the directory's gauges" \
	test "$(value "$out" "$STORED")" = 0 -a "$(value "$out" coresink_cores)" = 0
check "  and no file yet" test ! -e "$PROM"

crash 4
check "one crash: MetricsFile= written" wait_count "$STORED" 1
m=$(cat "$PROM")
check "  0644 (node_exporter reads it as its own user), root's" test "$(stat -c %a:%u "$PROM")" = 644:0
check "  stored +1, SIGSEGV +1, one core kept" \
	test "$(value "$m" "$STORED")" = 1 -a "$(value "$m" "$SEGV")" = 1 -a "$(value "$m" coresink_cores)" = 1
check "  the capture timed once, its bytes counted" test "$(value "$m" coresink_capture_seconds_count)" = 1 -a \
	"$(value "$m" coresink_input_bytes_total)" -ge $((4 * 1024 * 1024))
now=$(date +%s)
check "  the last crash's time is now ($(value "$m" coresink_last_crash_timestamp_seconds))" \
	test $(( now - $(value "$m" coresink_last_crash_timestamp_seconds) )) -le 5
# (The free space moves with every writer of the file system: it is read anew.)
check "coresinkctl metrics prints what the file holds" \
	test "$(ctl metrics | grep -v '^coresink_free_bytes ')" = "$(printf '%s\n' "$m" | grep -v '^coresink_free_bytes ')"

write_config "$T/cut.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
	"MetricsFile=$PROM" "MaxCoreSize=1M"
use_handler "$T/cut.conf"
crash 4
check "a core cut at MaxCoreSize=: truncated/max_core_size +1" wait_count "$CUT" 1
m=$(cat "$PROM")
check "  stored unchanged (1), SIGSEGV 2" test "$(value "$m" "$STORED")" = 1 -a "$(value "$m" "$SEGV")" = 2

# A storm of 8 at once, while a reader takes the file 1000 times: each read whole (its last series there).
use_handler "$T/c.conf"
( for _ in $(seq 1000); do tail -n 1 "$PROM"; done > "$T/reads" ) & reader=$!
pids=()
for _ in $(seq 8); do crash_run "$CRASHER" 2 & pids+=($!); done
wait "${pids[@]}" 2>/dev/null
check "a storm of 8: stored +8, exactly" wait_count "$STORED" 9
wait "$reader"
sleep 0.5
m=$(cat "$PROM")
check "  exactly 9 stored, 10 SIGSEGV, 10 timed" test "$(value "$m" "$STORED")" = 9 -a "$(value "$m" "$SEGV")" = 10 \
	-a "$(value "$m" coresink_capture_seconds_count)" = 10
check "  1000 reads during the storm, each a whole file ($(sort -u "$T/reads" | cut -d' ' -f1 | sort -u | tr '\n' ' '))" \
	test "$(grep -c '^coresink_size_bytes ' "$T/reads")" = 1000
check "  no hidden file left beside it" test "$(ls -A "$T/prom")" = coresink.prom

if have_socket_mode; then
	write_config "$T/s.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
		"MetricsFile=$PROM" "Socket=$T/kernel.sock"
	start_server "$T/s.conf"
	use_socket "$T/s.conf"
	crash 2
	check "socket mode: its crash counted too (stored 10)" wait_count "$STORED" 10
	stop_server
	use_handler "$T/c.conf"
else
	echo "     socket mode: not served by $(uname -r), left to the VM tier"
fi

# node_exporter's textfile collector serves the file; promtool lints what it serves.
port=$(( 20000 + RANDOM % 20000 ))
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$T/prom" > "$T/ne.log" 2>&1 & NE_PID=$!
at_exit "stop_started NE_PID"
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/metrics" > "$T/scrape" && break; sleep 0.1; done
check "node_exporter serves the counts (stored $(value "$(cat "$PROM")" "$STORED"))" grep -qE \
	"^coresink_crashes_total\\{reason=\"none\",result=\"stored\"\\} $(value "$(cat "$PROM")" "$STORED")\$" "$T/scrape"
check "  and read the file without an error" grep -qx 'node_textfile_scrape_error 0' "$T/scrape"
awk '/^# (HELP|TYPE) coresink_/ || /^coresink_/' "$T/scrape" > "$T/ours"
check "promtool check metrics passes on what it serves of ours ($(wc -l < "$T/ours") lines): $(promtool check metrics < "$T/ours" 2>&1 | head -n 3)" \
	promtool check metrics < "$T/ours"
grep '^coresink_crashes\|^coresink_capture_seconds_count\|^coresink_cores ' "$T/scrape" | sed 's/^/     /'

# A file where root would write through a link, or into a directory others may write: not written; the core is.
mkdir -m 0755 "$T/elsewhere"
ln -s "$T/elsewhere" "$T/link"
chmod 0777 "$T/prom"
for where in "$T/link/coresink.prom" "$PROM"; do
	write_config "$T/bad.conf" "Directory=$T/cores" "KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0" \
		"MetricsFile=$where"
	use_handler "$T/bad.conf"
	before=$(stat -c %Y.%i "$PROM")
	crash 2
	e=$(journal_entry "$CRASH_PID") || fail "no entry"
	check "MetricsFile=$where: the crash stored" has_line "$e" "CORESINK_RESULT=stored"
	for _ in $(seq 50); do jctl -o cat | grep -q "problem(s) with the metrics.*$where" && break; sleep 0.1; done
	check "  the file not written, and why: $(jctl -o cat | grep "problem(s) with the metrics.*$where" | tail -n 1 | sed "s/.*MetricsFile=//")" \
		test -z "$(ls -A "$T/elsewhere")" -a "$(stat -c %Y.%i "$PROM")" = "$before"
done
chmod 0755 "$T/prom"
check "the counts went on all the same" test "$(value "$(ctl metrics)" "$STORED")" -ge 11
