#!/bin/sh
# Creates the users a sysusers.d(5) file names (coresink's analysis and upload users) on this machine, with
# systemd-sysusers where it is there and with useradd(8) otherwise; nothing for a user that exists. Prints what it
# did.
# usage: add-user.sh SYSUSERS_FILE
# Exit codes: 0 the users exist (now), 1 one could not be created.
set -eu
users=$(awk '$1 == "u" { print $2 }' "$1")
[ -n "$users" ] || { echo "add-user.sh: no user in $1" >&2; exit 1; }
missing=""
for user in $users; do grep -q "^$user:" /etc/passwd || missing="$missing $user"; done
[ -n "$missing" ] || exit 0
if command -v systemd-sysusers >/dev/null 2>&1; then
	# A relative name would be looked up in sysusers.d's own directories.
	case $1 in /*) file=$1 ;; *) file=$PWD/$1 ;; esac
	systemd-sysusers "$file"
else
	for user in $missing; do
		comment=$(awk -v u="$user" '$1 == "u" && $2 == u { sub(/^[^"]*"/, ""); sub(/".*/, ""); print }' "$1")
		useradd --system --user-group --no-create-home --home-dir / --shell /usr/sbin/nologin \
			--comment "$comment" "$user"
	done
fi
for user in $missing; do
	grep -q "^$user:" /etc/passwd || { echo "add-user.sh: could not create $user" >&2; exit 1; }
	echo "coresink: created the user $user"
done
