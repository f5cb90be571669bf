#!/bin/sh
# coresink-upload-rclone DEST [RCLONE-OPTION...]: an ExecUpload= command (coresink.conf(5)) that sends the core on
# its standard input to DEST/NAME with rclone(1), then the crash's JSON (fd 3) to DEST/NAME.json: the JSON comes
# last, so that the central side may take a core whose JSON is there as complete. DEST is an rclone remote and path,
# with coresink's specifiers (dav:cores/%H); the options are rclone's (--config FILE, --bwlimit 10M, ...).
# Installed as $(LIBEXECDIR)/coresink-upload-rclone. Exit status: rclone's.
set -eu
[ $# -ge 1 ] || { echo "usage: coresink-upload-rclone DEST [RCLONE-OPTION...]" >&2; exit 100; }
dest=$1
shift
name=$(basename "${CORESINK_CORE:?not run by coresink}")
rclone "$@" rcat "$dest/$name"
rclone "$@" rcat "$dest/$name.json" <&3
