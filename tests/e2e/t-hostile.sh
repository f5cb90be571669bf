#!/bin/bash
# Hostile input, class by class, with real crashes where a process can choose it (apport's and ABRT's CVE record):
# hostile comm and exe, forged journal fields, unsafe directories, planted names, garbage config, bad arguments;
# and the handler's own footprint for a 64 MiB and a 1 GiB core.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it sets kernel.core_pattern, starts systemd-journald and plants files as other users"
scratch
start_journald
MIB=$((1024 * 1024))
base_conf=("KeepFree=64M" "RateLimitBurst=0" "RateLimitGlobalBurst=0")
write_config "$T/c.conf" "Directory=$T/cores" "${base_conf[@]}"
use_handler "$T/c.conf"
# The entry of PID as JSON, once journald has it (it comes after the process has gone).
json() { journal_entry "$1" >/dev/null; jctl -o json "MESSAGE_ID=$MESSAGE_ID" "COREDUMP_PID=$1"; }
no_forged_priority() { has "$1" '"PRIORITY":"2"' && none_of "$1" '"PRIORITY":"7"'; }
refused() { all_of "$1" CORESINK_RESULT=failed && matches "$1" '^CORESINK_ERROR=refusing Directory='; }
safe_name() { [[ $1 =~ ^core\.[A-Za-z0-9._+-]+\.$2\.[0-9]{8}T[0-9]{6}Z(\.[0-9]+)?$ ]] && [ "${1:5:1}" != . ]; }

# Class 1: hostile comm (PR_SET_NAME: any 15 bytes), in a real crash.
names=('../../etc/x' $'a\nb\x01c\x7f' 'sp ace' '--check-config' $'\xff\xfe\xc3(' '...............' '/' $'x\nPRIORITY=7')
for name in "${names[@]}"; do
	rm -rf "$T/cores"
	{ ( ulimit -c unlimited; exec "$CRASHER" -c "$name" 4 ) & p=$!; wait $p; } 2>/dev/null
	shown=$(printf '%q' "$name")
	core=$(only_file "$T/cores") || exit 1
	check "comm $shown: stored inside Directory, under a safe visible name: $(basename "$core")" \
		safe_name "$(basename "$core")" "$p"
	journal_entry "$p" > /dev/null || fail "comm $shown: no entry"
done
e=$(json "$p")
check "a comm holding 'newline PRIORITY=7' forges no field: PRIORITY stays 2" \
	no_forged_priority "$e"
check "and the journal shows the comm escaped, one line (JSON doubles the backslash)" \
	has "$e" '"COREDUMP_COMM":"x\\nPRIORITY=7"'

# Class 2: a hostile executable path (spaces, a newline) and the comm it gives.
mkdir -p "$T/evil dir"
evil=$T/evil\ dir/$'a\nb'
cp "$CRASHER" "$evil"
rm -rf "$T/cores"
{ ( ulimit -c unlimited; exec "$evil" 4 ) & p=$!; wait $p; } 2>/dev/null
core=$(only_file "$T/cores") || exit 1
check "exe with a space and a newline: a safe name ($(basename "$core"))" safe_name "$(basename "$core")" "$p"
check "and COREDUMP_EXE holds the path escaped, one line" has "$(json "$p")" '"COREDUMP_EXE":"'"$T"'/evil dir/a\\nb"'

# Class 3: unsafe directories. Each is refused, clearly logged, and nothing is written there or elsewhere.
mkdir -p "$T/unsafe/target"
ln -s "$T/unsafe/target" "$T/unsafe/link"
mkdir -m 0755 "$T/unsafe/nobody" && chown 65534:65534 "$T/unsafe/nobody"
mkdir -m 0775 "$T/unsafe/group"
mkdir -m 1777 "$T/unsafe/world"
for d in link nobody group world; do
	write_config "$T/c.conf" "Directory=$T/unsafe/$d" "${base_conf[@]}"
	crash 4
	e=$(journal_entry "$CRASH_PID") || fail "$d: no entry"
	check "unsafe Directory ($d): refused and logged" \
		refused "$e"
	check "unsafe Directory ($d): nothing written in it" test -z "$(ls -A "$T/unsafe/$d/")"
done
check "nothing written through the symlink either" test -z "$(ls -A "$T/unsafe/target")"

# Class 4: planted names. A symlink, a hard link and a FIFO at the names the handler will use: none is followed,
# replaced or opened; the core gets the next free name.
rm -rf "$T/cores" && mkdir -m 0755 "$T/cores"
write_config "$T/c.conf" "Directory=$T/cores" "${base_conf[@]}"
echo victim > "$T/victim" && cp "$T/victim" "$T/victim.orig"
n=$T/cores/core.planted.4242.19700101T000000Z
ln -s "$T/victim" "$n"
ln "$T/victim" "$n.1"
mkfifo "$n.2"
head -c 100000 /dev/urandom > "$T/in"
timeout 20 "$CORESINK" --config "$T/c.conf" 4242 0 0 11 0 "$UNLIMITED" host planted 1 "" < "$T/in"
check "planted names: the handler finished (no FIFO opened)" test $? -eq 0
check "planted names: stored under the next free name" cmp -s "$n.3" "$T/in"
check "planted names: the symlink and hard link targets are untouched" cmp -s "$T/victim" "$T/victim.orig"
check "planted names: the planted entries are unchanged" test -L "$n" -a -p "$n.2" -a "$(stat -c %h "$n.1")" = 2

# Class 5: a config full of garbage, and one that is a directory: logged, defaults used, the core still stored.
# No '[' in the garbage: a line starting with one would open another section, and the keys after it would rightly
# be ignored (as a section of its own, it is tested in check_config).
{ echo "[Coresink]"; head -c 4000 /dev/urandom | tr -d '['; echo; echo "Directory=$T/cores"; echo "${base_conf[0]}"; echo "MetricsFile=$T/coresink.prom"; } > "$T/garbage.conf"
use_handler "$T/garbage.conf"
rm -rf "$T/cores"
crash 4
check "garbage config: the core is stored" test -n "$(only_file "$T/cores")"
check "garbage config: the problems are logged as a warning entry" \
	has "$(jctl -o cat -p warning SYSLOG_IDENTIFIER=coresink)" "problem(s) with $T/garbage.conf, defaults used"
"$CORESINK" --config "$T" --check-config > /dev/null 2> "$T/err"
check "a directory as config: an error, clearly said" has "$(cat "$T/err")" "cannot read $T: Is a directory"

# Class 6: bad arguments (missing, extra, non-numeric, huge): logged, defaults used, the core stored as root only.
write_config "$T/c.conf" "Directory=$T/cores" "${base_conf[@]}"
# (No operand at all is a person typing "coresink": usage, exit 100; the kernel always passes the specifiers.)
for args in "1" "1 2 3" "x 0 0 11 0 $UNLIMITED h c 1 3 extra more" "99999999999999999999 0 0 11 0 $UNLIMITED h c 1 3"; do
	rm -rf "$T/cores"
	# shellcheck disable=SC2086
	"$CORESINK" --config "$T/c.conf" -- $args < "$T/in" > /dev/null 2>&1
	core=$(ls "$T"/cores/core.* 2>/dev/null)
	check "arguments '$args': the core is stored, root only" test -n "$core" -a "$(stat -c %a "$core" 2>/dev/null)" = 600
done

# The handler's own footprint stays small whatever the core's size.
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=1G" "MaxUse=100%" "RateLimitBurst=0" "RateLimitGlobalBurst=0"
use_handler "$T/c.conf"
for mib in 64 1024; do
	rm -rf "$T/cores"
	crash "$mib"
	rss=$(journal_entry "$CRASH_PID" | sed -n 's/^CORESINK_MAXRSS=//p')
	check "a $mib MiB core: the handler's peak RSS is $((rss / 1024)) KiB (under 16 MiB)" test "$rss" -lt $((16 * MIB))
done
