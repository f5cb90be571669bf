#!/bin/bash
# roots.sh: the Debian roots the end-to-end tests boot (debian_root: t-container's and t-systemd's of the host's
# release, t-releases' of Debian 12, 13 and unstable), built ahead into CORESINK_ROOT_CACHE by make check-all's static
# lane while the tier runs its first tests; a test that comes to one being built waits for it (root_tar's lock). Not
# a test: a root that cannot be built is said here, and the test that needs it skips with the reason.
. "$(dirname "$0")/lib.sh"
need_root "mmdebstrap builds roots as root here"
[ -n "${CORESINK_ROOT_CACHE:-}" ] || fail "no CORESINK_ROOT_CACHE to build into"
command -v mmdebstrap > /dev/null || skip "no mmdebstrap"
[ "$(os_release ID)" = debian ] || skip "the roots are built from Debian's packages: not Debian"
# one CODENAME PACKAGES: that root, and how long it took.
one() {
	local t0=$(date +%s)
	if root_tar "$1" "$2"; then ok "$1 root ($(du -m "$ROOT_TAR" | cut -f1) MiB) in $(( $(date +%s) - t0 )) s"
	else echo "SKIP $NAME: $ROOT_WHY"; fi
}
# The host's first: t-container comes early in the tier.
one "$(os_release VERSION_CODENAME)" "$ROOT_PKGS"
for rel in ${CORESINK_RELEASES:-bookworm trixie sid}; do one "$rel" "$RELEASE_PKGS" & done
wait
