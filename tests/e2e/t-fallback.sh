#!/bin/bash
# The fallback, for real: the handler's stdin is a /proc file, which the kernel refuses to splice (EINVAL).
# The handler switches to read/write by itself, the stored bytes are identical, and the journal says why.
# tier: fast (make check, and make check-all)
. "$(dirname "$0")/lib.sh"
need_root "it starts systemd-journald"
scratch
start_journald
write_config "$T/c.conf" "Directory=$T/cores" "KeepFree=64M" "Strategy=splice"

# A process with a few MiB of environment: a stable input only /proc can give.
vars=()
for i in $(seq 12); do vars+=("BIG$i=$(head -c 90000 /dev/urandom | base64 -w0)"); done
env "${vars[@]}" sleep 60 &
sp=$!
at_exit "kill $sp 2>/dev/null"
sleep 0.2
src=/proc/$sp/environ
"$CORESINK" --config "$T/c.conf" "$sp" 0 0 11 "$(date +%s)" "$UNLIMITED" host envtest 1 "" < "$src"
check "the handler exits 0" test $? -eq 0
core=$(only_file "$T/cores") || exit 1
# cmp -s trusts st_size, which is 0 for a /proc file: compare with a copy.
cat "$src" > "$T/expected"
check "the stored file is byte-identical to the input ($(file_size "$core") B)" cmp -s "$core" "$T/expected"
e=$(journal_entry "$sp") || fail "no journal entry"
check "the journal says read/write took over, and why" has_line "$e" "CORESINK_FALLBACK=readwrite (splice: Invalid argument)"
check "and that the core was stored" has_line "$e" "CORESINK_RESULT=stored"
