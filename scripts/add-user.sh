#!/bin/sh
# Creates the user a sysusers.d(5) file names (coresink's analysis user) on this machine, with systemd-sysusers
# where it is there and with useradd(8) otherwise; nothing when the user exists. Prints what it did.
# usage: add-user.sh SYSUSERS_FILE
# Exit codes: 0 the user exists (now), 1 it could not be created.
set -eu
user=$(awk '$1 == "u" { print $2; exit }' "$1")
[ -n "$user" ] || { echo "add-user.sh: no user in $1" >&2; exit 1; }
grep -q "^$user:" /etc/passwd && exit 0
if command -v systemd-sysusers >/dev/null 2>&1; then
	# A relative name would be looked up in sysusers.d's own directories.
	case $1 in /*) file=$1 ;; *) file=$PWD/$1 ;; esac
	systemd-sysusers "$file"
else
	useradd --system --user-group --no-create-home --home-dir / --shell /usr/sbin/nologin \
		--comment "coresink stack trace analysis" "$user"
fi
grep -q "^$user:" /etc/passwd || { echo "add-user.sh: could not create $user" >&2; exit 1; }
echo "coresink: created the user $user"
