#!/bin/bash
# piuparts on Debian 12, 13 and unstable (CORESINK_RELEASES): the package installed, purged and nothing left, each in
# a minimal root with systemd (what the package is for; a root without it would count systemd's own leftovers, made
# when apt pulls it in for systemd-sysusers). Not an end-to-end test of the tier: make check-all runs it in its static
# lane, beside the end-to-end tests, since it sets nothing of this host's (the chroots' maintainer scripts must see
# a chroot and leave the host's kernel.core_pattern alone: each install's log must say so; a script that did not would change
# the pattern under an end-to-end test, which its run's state check or its own crashes would catch).
# From Debian 13 on, this host's piuparts (1.1.7) finds the scratch directory of debconf's dpkg-preconfigure left
# after any package installed from a file: Debian's own 'hello' leaves it the same way (docs/package.md). It is no
# file of coresink's, and is ignored there. usage: piuparts.sh BUILDDIR (the packages built: lib.sh's package_debs)
. "$(dirname "$0")/lib.sh"
need_root "piuparts builds chroots"
[ "$(os_release ID)" = debian ] || skip "a Debian package: not Debian"
command -v piuparts > /dev/null || fail "no piuparts (make check-all's dependencies install it)"
scratch
package_debs
mirror=$(apt_mirror)
[ -n "$mirror" ] || fail "no Debian mirror in this machine's apt sources for piuparts"
# piu REL: piuparts on REL, its root built first where the run has none; its log and exit status in $T/piu-REL.*.
piu() {
	local rel=$1 base=${CORESINK_ROOT_CACHE:-$T}/piuparts-$1.tar.gz ignore="" t0
	if [ ! -s "$base" ]; then
		mmdebstrap --variant=minbase --include=systemd --aptopt='Acquire::Check-Valid-Until "false"' "$rel" "$base" \
			> "$T/mmdebstrap-$rel.log" 2>&1 ||
			{ echo "mmdebstrap could not build a $rel root: $(tail -n 1 "$T/mmdebstrap-$rel.log")" > "$T/piu-$rel.log"
			  echo 77 > "$T/piu-$rel.rc"; return; }
	fi
	[ "$rel" = bookworm ] || ignore=--ignore=/var/cache/debconf/tmp.ci/
	t0=$(date +%s)
	piuparts -d "$rel" -m "$mirror" -b "$base" $ignore "$DEB" > "$T/piu-$rel.log" 2>&1
	echo $? > "$T/piu-$rel.rc"
	echo $(( $(date +%s) - t0 )) > "$T/piu-$rel.secs"
}
# The releases side by side: each waits on its mirror and its dpkg more than on a CPU.
RELS=${CORESINK_RELEASES:-bookworm trixie sid}
for rel in $RELS; do piu "$rel" & done
wait
for rel in $RELS; do
	rc=$(cat "$T/piu-$rel.rc")
	[ "$rc" = 77 ] && skip "$(cat "$T/piu-$rel.log")"
	cp "$T/piu-$rel.log" "$B/deb/piuparts-$rel.log"
	[ "$rc" -eq 0 ] || grep -E 'ERROR|FAIL' -A8 "$T/piu-$rel.log" | head -n 40
	check "piuparts on $rel: $(grep -c 'PASS' "$T/piu-$rel.log") passed, in $(cat "$T/piu-$rel.secs") s ($B/deb/piuparts-$rel.log)" \
		test "$rc" -eq 0
	check "piuparts on $rel: the postinst saw a chroot and left the host's pattern alone: $(grep -o 'coresink: in a chroot: [^;]*' "$T/piu-$rel.log" | head -n 1)" \
		grep -q 'coresink: in a chroot: .* installed' "$T/piu-$rel.log"
done
