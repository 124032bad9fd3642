#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: what README's "Using mkm on a real machine" promises, checked on
# the host without touching its kernel or its DKMS state:
#   1. make install, on a machine without headers for the running kernel,
#      still installs the library, the command and the man pages (staged
#      with DESTDIR), and says why the module is left out; with them,
#      install-module installs it;
#   2. the packages of make deb hold what they should and pass lintian
#      (errors fail; warnings and notes are printed); mkm-slurm's plugin,
#      as packaged, loads and answers in fake_stepd (FAKE_STEPD, when the
#      Slurm headers were there to build it);
#   3. dkms add and build of the packaged module for $KVER succeed, in a
#      private DKMS tree under $PKG_DIR (nothing installed, nothing loaded),
#      and DKMS skips a kernel that dkms.conf excludes.
# tests/pkg/build.mk then boots the VM with the module DKMS built here.
#
# Environment (from the Makefile): BUILD, MKM_VERSION, KVER, KDIR, DEB_DIR,
# PKG_DIR, FAKE_STEPD (may be empty).
set -eu

v=$MKM_VERSION
fail() { printf 'check-install: FAIL %s\n' "$*" >&2; exit 1; }
pass() { printf 'PASS  %s\n' "$*"; }

# A program built with pkg-config against the library installed under
# ROOT (its headers must all be there), run: libmonitor works for its users.
use_lib() { # ROOT LIBDIR
	local out=$PKG_DIR/use-lib
	printf '%s\n' '#include <errno.h>' '#include <stdio.h>' '#include <libmonitor.h>' \
		'int main(void) { puts(monitor_strerror(-ENODEV)); return 0; }' >"$out.c"
	# shellcheck disable=SC2046 # pkg-config's flags are words
	PKG_CONFIG_SYSROOT_DIR=$1 PKG_CONFIG_LIBDIR=$1$2/pkgconfig \
		cc -std=gnu11 -Wall -Werror -o "$out" "$out.c" \
		$(PKG_CONFIG_SYSROOT_DIR=$1 PKG_CONFIG_LIBDIR=$1$2/pkgconfig \
			pkg-config --cflags --libs libmonitor) &&
		LD_LIBRARY_PATH=$1$2 "$out" >/dev/null
}

rm -rf "$PKG_DIR"
mkdir -p "$PKG_DIR"
# Absolute: DKMS links its tree to the sources.
PKG_DIR=$(realpath "$PKG_DIR") DEB_DIR=$(realpath "$DEB_DIR")

# 1. make install without the running kernel's headers.
stage=$PKG_DIR/install
make --no-print-directory BUILD="$BUILD" DESTDIR="$stage" PREFIX=/usr \
	RUNNING_KVER=0.0-none RUNNING_KDIR=/nonexistent install \
	>"$PKG_DIR/install.log" 2>&1 || { cat "$PKG_DIR/install.log"; fail "make install"; }
for f in usr/bin/mkm usr/lib/libmonitor.so.0 usr/lib/libmonitor.a \
	usr/include/libmonitor.h usr/include/mkm.h usr/lib/pkgconfig/libmonitor.pc \
	usr/share/man/man1/mkm.1 usr/share/man/man3/monitor_create.3; do
	[ -e "$stage/$f" ] || fail "make install without kernel headers: no /$f"
done
grep -q 'no headers for the running kernel 0.0-none.*mkm.ko not installed' \
	"$PKG_DIR/install.log" || fail "make install: no message about the module"
[ -z "$(find "$stage" -name '*.ko')" ] || fail "make install: a module without headers?"
use_lib "$stage" /usr/lib || fail "a program using the libmonitor make install put in $stage"
pass "make install without kernel headers: library (a program built with pkg-config runs), command, man pages; module skipped"
# ...and with them (the reference kernel's, standing for the running one's).
make --no-print-directory BUILD="$BUILD" DESTDIR="$stage" \
	RUNNING_KVER="$KVER" RUNNING_KDIR="$KDIR" install-module \
	>>"$PKG_DIR/install.log" 2>&1 || { cat "$PKG_DIR/install.log"; fail "make install-module"; }
ko=$(find "$stage/lib/modules/$KVER" -name mkm.ko)
{ [ -n "$ko" ] && [ "$(modinfo -F version "$ko")" = "$MKM_VERSION" ]; } ||
	fail "make install-module: no mkm.ko $MKM_VERSION under $stage/lib/modules/$KVER"
pass "make install-module with the kernel's headers: ${ko#"$stage"}"

# 2. The packages: versions, contents, lintian.
changes=$(echo "$DEB_DIR"/mkm_"$v"_*.changes)
[ -f "$changes" ] || fail "no $changes: run make deb"
arch=$(dpkg --print-architecture)
lib=usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
deb() { echo "$DEB_DIR/$1_${v}_$2.deb"; }
has() { # PACKAGE ARCH PATH...: the package holds each PATH
	local d f list
	d=$(deb "$1" "$2")
	[ -f "$d" ] || fail "no package $d"
	[ "$(dpkg-deb -f "$d" Version)" = "$v" ] || fail "$d: version is not $v"
	list=$(dpkg-deb -c "$d" | awk '{ print $6 }')
	shift 2
	for f; do
		grep -qx "\./$f" <<<"$list" || fail "$d: no /$f"
	done
}
has mkm-dkms all usr/src/mkm-"$v"/dkms.conf usr/src/mkm-"$v"/Kbuild \
	usr/src/mkm-"$v"/main.c usr/src/mkm-"$v"/uapi/mkm.h
has libmonitor0 "$arch" "$lib"/libmonitor.so.0
has libmonitor-dev "$arch" usr/include/libmonitor.h usr/include/mkm.h \
	"$lib"/libmonitor.so "$lib"/libmonitor.a "$lib"/pkgconfig/libmonitor.pc \
	usr/share/man/man3/monitor_create.3.gz
has mkm "$arch" usr/bin/mkm usr/share/man/man1/mkm.1.gz
dpkg-deb -f "$(deb mkm-dkms all)" Depends | grep -q dkms || fail "mkm-dkms does not depend on dkms"
libroot=$PKG_DIR/libroot
dpkg-deb -x "$(deb libmonitor0 "$arch")" "$libroot"
dpkg-deb -x "$(deb libmonitor-dev "$arch")" "$libroot"
use_lib "$libroot" "/$lib" || fail "a program using libmonitor-dev's libmonitor"
pass "packages: mkm-dkms, libmonitor0, libmonitor-dev (a program built with pkg-config runs), mkm $v"

# mkm-slurm: the plugin, a snippet plugstack.conf's include reads naming
# it, tied to the Slurm series it was built for (Slurm refuses others).
snippet=etc/slurm/plugstack.conf.d/mkm.conf
has mkm-slurm "$arch" usr/lib/mkm/mkm.so "$snippet"
slurmroot=$PKG_DIR/slurmroot
dpkg-deb -x "$(deb mkm-slurm "$arch")" "$slurmroot"
grep -qx "required /usr/lib/mkm/mkm.so" "$slurmroot/$snippet" ||
	fail "mkm-slurm: /$snippet does not load /usr/lib/mkm/mkm.so"
dpkg-deb --ctrl-tarfile "$(deb mkm-slurm "$arch")" | tar -xOf - ./conffiles |
	grep -qx "/$snippet" || fail "mkm-slurm: /$snippet is not a conffile"
series=$(dpkg-query -W -f='${Version}' libslurm-dev | cut -d. -f1,2)
dpkg-deb -f "$(deb mkm-slurm "$arch")" Depends |
	grep -qF "slurm-wlm-basic-plugins (>= $series), slurm-wlm-basic-plugins (<< " ||
	fail "mkm-slurm does not depend on Slurm $series"
if [ -n "${FAKE_STEPD:-}" ]; then
	"$(dirname "$0")"/../slurm/test_spank.sh "$FAKE_STEPD" \
		"$slurmroot/usr/lib/mkm/mkm.so" "$PKG_DIR/spank" >"$PKG_DIR/spank.log" 2>&1 ||
		{ cat "$PKG_DIR/spank.log"; fail "mkm-slurm's mkm.so in fake_stepd"; }
	pass "mkm-slurm: the plugin, as packaged, passes test_spank.sh in fake_stepd"
fi
pass "mkm-slurm $v: /usr/lib/mkm/mkm.so, /$snippet (a conffile), for Slurm $series"

# As root, lintian says it had rather not: not a finding about the packages.
lintian --fail-on error --display-info "$changes" >"$PKG_DIR/lintian.log" 2>&1 ||
	{ cat "$PKG_DIR/lintian.log"; fail "lintian found errors"; }
grep -v 'root privileges' "$PKG_DIR/lintian.log" || true
pass "lintian: no errors, $(grep -c "^[WI]:" "$PKG_DIR/lintian.log" || true) warnings and notes"

# 3. DKMS, as the package's postinst would run it, but in a private tree
# and for the reference kernel (the running one may be another), without
# the install step. The signing key DKMS makes goes there too.
root=$PKG_DIR/root
tree=$PKG_DIR/dkms
# What dkms.conf does not pass must not leak in from our make.
unset MKM_VERSION MAKEFLAGS MFLAGS MAKELEVEL
dpkg-deb -x "$(deb mkm-dkms all)" "$root"
conf=$root/usr/src/mkm-$v/dkms.conf
grep -qx "PACKAGE_VERSION=\"$v\"" "$conf" || fail "$conf: PACKAGE_VERSION is not $v"
grep -qx 'AUTOINSTALL="yes"' "$conf" || fail "$conf: no AUTOINSTALL"
mkdir -p "$tree"
dkms_run() {
	mok_signing_key=$tree/mok.key mok_certificate=$tree/mok.pub \
		dkms "$@" -m mkm -v "$v" --dkmstree "$tree" \
		--sourcetree "$root/usr/src" --installtree "$PKG_DIR/modules"
}
dkms_run add >"$PKG_DIR/dkms.log" 2>&1 || { cat "$PKG_DIR/dkms.log"; fail "dkms add"; }
dkms_run build -k "$KVER" --kernelsourcedir "$KDIR" >>"$PKG_DIR/dkms.log" 2>&1 ||
	{ cat "$PKG_DIR/dkms.log" "$tree/mkm/$v/build/make.log" 2>/dev/null; fail "dkms build -k $KVER"; }
ko=$tree/mkm/$v/$KVER/$(uname -m)/module/mkm.ko
[ -f "$ko" ] || fail "dkms build made no $ko"
[ "$(modinfo -F version "$ko")" = "$v" ] || fail "$ko: modinfo version is not $v"
modinfo -F vermagic "$ko" | grep -q "^$KVER " || fail "$ko: not built for $KVER"
# Signed with DKMS's key, which a Secure Boot machine's owner enrolls (README).
signer=$(modinfo -F signer "$ko")
[ "$signer" = "DKMS module signing key" ] || fail "$ko: signed by '$signer', not DKMS's key"
dkms_run status | grep -q "mkm/$v, $KVER, $(uname -m): built" || fail "dkms status: not built"
pass "dkms build -k $KVER: $ko (version $v, signed by $signer)"

# BUILD_EXCLUSIVE: a kernel the module is not tested on, older or between
# the tested series, is skipped (DKMS's exit status 77), not a build failure.
for k in 5.10.0-0-amd64 6.6.0-0-amd64; do
	status=0
	dkms_run build -k $k --kernelsourcedir "$KDIR" >>"$PKG_DIR/dkms.log" 2>&1 || status=$?
	[ $status = 77 ] || { tail -5 "$PKG_DIR/dkms.log"; fail "dkms build -k $k: status $status, not 77 (BUILD_EXCLUSIVE)"; }
	pass "dkms build -k $k: excluded by BUILD_EXCLUSIVE_KERNEL"
done
[ ! -d "$PKG_DIR/modules" ] || fail "dkms installed something in $PKG_DIR/modules"

# Every other kernel of the matrix (tests/kernel/matrix): dkms build of the
# same package against its headers, here or, for those sid's gcc builds,
# with sid's dkms in the sid chroot (a tree of its own, under PKG_DIR, which
# the chroot sees at the same path).
kernels=$(dirname "$0")/../kernel/kernels.sh
while read -r name release builds; do
	[ "$release" != "$KVER" ] || continue
	kdir=$("$kernels" kdir "$name")
	if [ "$builds" = sid ]; then
		t=$PKG_DIR/dkms-sid
		mkdir -p "$t"
		run() { "$kernels" run "$name" "$PKG_DIR" -- env mok_signing_key="$t/mok.key" \
			mok_certificate="$t/mok.pub" dkms "$@" -m mkm -v "$v" --dkmstree "$t" \
			--sourcetree "$root/usr/src" --installtree "$PKG_DIR/modules"; }
		[ -d "$t/mkm/$v/source" ] || run add >>"$PKG_DIR/dkms.log" 2>&1 ||
			{ tail -5 "$PKG_DIR/dkms.log"; fail "dkms add (sid chroot)"; }
	else
		t=$tree
		run() { dkms_run "$@"; }
	fi
	run build -k "$release" --kernelsourcedir "$kdir" >>"$PKG_DIR/dkms.log" 2>&1 ||
		{ cat "$t/mkm/$v/build/make.log" 2>/dev/null | tail -20; fail "dkms build -k $release ($name)"; }
	ko=$t/mkm/$v/$release/$(uname -m)/module/mkm.ko
	[ -f "$ko" ] || fail "dkms build -k $release made no $ko"
	modinfo -F vermagic "$ko" | grep -q "^$release " || fail "$ko: not built for $release"
	pass "dkms build -k $release ($name$([ "$builds" = sid ] && echo ", in the sid chroot"))"
done < <("$kernels" list)
[ ! -d "$PKG_DIR/modules" ] || fail "dkms installed something in $PKG_DIR/modules"
