#!/bin/bash
# uring-bench.sh: io_uring against coresink's read/write loop on real crashes. Builds scripts/uring-handler.c
# (liburing from Debian's liburing-dev, installed when missing) and runs coresink-bench --crash with it as an
# exec: handler beside coresink's pipe mode and the ceilings, for each workload.
# Developer measurement for docs/benchmark.md, as root, from the top of the tree after 'make'.
# usage: scripts/uring-bench.sh [SIZE [RUNS [DIR]]]
set -eu
SIZE=${1:-1G} RUNS=${2:-5} DIR=${3:-/var/tmp}
B=$(pwd)/build
[ "$(id -u)" -eq 0 ] || { echo "uring-bench: needs root (kernel.core_pattern)" >&2; exit 100; }
[ -x "$B/coresink" ] && [ -x "$B/coresink-bench" ] || { echo "uring-bench: run 'make' first" >&2; exit 100; }
[ -e /usr/include/liburing.h ] || { apt-get update -q && apt-get install -y -q liburing-dev; } >&2
prog=$(mktemp /tmp/uring-handler.XXXXXX)
trap 'rm -f "$prog"' EXIT
cc -O2 -Wall -o "$prog" scripts/uring-handler.c -luring
for w in dense threads; do
	"$B/coresink-bench" --crash --coresink "$B/coresink" --dir "$DIR" --size "$SIZE" --runs "$RUNS" \
		--workload "$w" --handlers "null,direct,readwrite,exec:$prog"
done
