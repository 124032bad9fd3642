#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels.sh - the kernels of tests/kernel/matrix: fetch them, build mkm.ko
# for one, and check them all (build, boot, the VM suite, a table).
#
#   kernels.sh [-a ARCH] COMMAND ... the x86-64 kernels of tests/kernel/matrix,
#                                    or (-a arm64) the arm64 ones of
#                                    matrix-arm64: mkm.ko cross-built
#                                    (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-),
#                                    booted in qemu-system-aarch64
#   kernels.sh fetch [-n NAMES]      headers and images of every kernel (make
#                                    deps), or of those named
#   kernels.sh list                  name release builds, a line each
#   kernels.sh image NAME            the image the VM boots
#   kernels.sh kdir NAME             its headers, as its build environment sees them
#   kernels.sh build NAME DIR [SRC]  mkm.ko for NAME into DIR (DIR/build.log), or
#                                    the module whose Kbuild is in SRC
#   kernels.sh run NAME DIR... -- CMD
#                                    CMD (an argv) in NAME's build environment,
#                                    in the first DIR, each DIR (absolute)
#                                    seen at the same path
#   kernels.sh download SUITE PKG... into the current folder, from that suite
#   kernels.sh check [-d] [-j JOBS] [-n NAMES] [-e TESTS] [-r REPORT] TEST... [SRC:DEST]...
#                                    for each kernel: build, boot with the
#                                    given test binaries (and files), JOBS
#                                    kernels' boots at once (default 1),
#                                    print the table; -d: each kernel's debug twin
#                                    (build-debug-kernel.sh), for the names
#                                    that have one; -e: run.sh's -icount boot;
#                                    -r: the reference kernel's row is read
#                                    from check-vm's report (run.sh -r), whose
#                                    run holds these tests and more, not
#                                    built and booted a second time
#
# Nothing is installed on this machine: headers are unpacked with dpkg -x
# into $MKM_CACHE/kernels/RELEASE (their Makefile pointed at the unpacked
# common headers), images into $MKM_CACHE/linux-image-RELEASE, as deps.sh
# does for the reference kernel. Suites other than bookworm come through a
# private apt configuration in $MKM_CACHE/apt (the machine's sources stay as
# they are); kernels built with sid's gcc-16 are built in a sid chroot that
# mmdebstrap makes in $MKM_CACHE/sid, with their headers installed there.
#
# arm64 (-a arm64): every package of that architecture comes through a
# private apt configuration naming it (APT::Architecture, lists in
# $MKM_CACHE/apt/SUITE-arm64), never the machine's dpkg architectures.
# A cross build takes the arm64 package's arch headers (.config,
# Module.symvers, generated headers), the common headers (all
# architectures) and the kbuild tools of the build machine (amd64, the
# same version); sid's kernels build in a chroot of their own,
# $MKM_CACHE/sid-arm64, with sid's cross gcc-16 and the arm64 headers
# unpacked into it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${MKM_CACHE:-${HOME:-/root}/.cache/mkm}
build=${BUILD:-$top/build}
mirror=${MKM_MIRROR:-http://deb.debian.org/debian}
security_mirror=${MKM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# The guests' architecture, as Debian names it: amd64 or arm64.
arch=amd64
if [ "${1:-}" = -a ]; then
	arch=$2
	shift 2
fi
case $arch in
amd64) matrix=$here/matrix ;;
arm64) matrix=$here/matrix-arm64 ;;
*) echo "kernels: no architecture '$arch' (amd64, arm64)" >&2; exit 2 ;;
esac
# Packages are asked of apt for this architecture (the build machine's,
# amd64, for the kbuild tools of a cross build).
apt_arch=$arch

say() { printf 'kernels: %s\n' "$*" >&2; }
die() { printf 'kernels: %s\n' "$*" >&2; exit 1; }

reference() {
	dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p'
}

# The matrix's rows as "name suite release builds", "reference" resolved.
rows() {
	local ref name suite release builds
	ref=$(reference)
	[ -n "$ref" ] || die "cannot tell the reference kernel from linux-headers-amd64: run make deps"
	while read -r name suite release builds; do
		case $name in '' | '#'*) continue ;; esac
		case $release in
		reference) release=${ref%-amd64}-$arch ;;
		reference-rt) release=${ref%-amd64}-rt-$arch ;;
		esac
		echo "$name $suite $release $builds"
	done <"$matrix"
}

row() {
	local r
	r=$(rows | awk -v n="$1" '$1 == n')
	[ -n "$r" ] || die "no kernel named '$1' in $matrix (names: $(rows | cut -d' ' -f1 | tr '\n' ' '))"
	echo "$r"
}

# apt-get and apt-cache for one suite, of $apt_arch: bookworm's amd64 is
# the machine's own; the others read a sources file of their own in the
# cache (sid's Release file is served past its Valid-Until date, hence the
# option). Another architecture's bookworm has the machine's suites (point
# releases and security updates: where bookworm's kernels are).
apt_opts() {
	[ "$1" = bookworm ] && [ "$apt_arch" = amd64 ] && return 0
	local d=$cache/apt/$1 suites=$1
	[ "$apt_arch" = amd64 ] || d=$cache/apt/$1-$apt_arch
	[ "$1" != bookworm ] || suites="bookworm bookworm-updates"
	mkdir -p "$d/sources" "$d/lists/partial" "$d/cache/archives/partial"
	cat >"$d/sources/$1.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	[ "$1" != bookworm ] || cat >>"$d/sources/$1.sources" <<EOF

Types: deb
URIs: $security_mirror
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	printf '%s\n' -o "Dir::Etc::SourceList=/dev/null" \
		-o "Dir::Etc::SourceParts=$d/sources" \
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" \
		-o "Acquire::Check-Valid-Until=false" \
		-o "APT::Sandbox::User=root"
	[ "$apt_arch" = amd64 ] ||
		printf '%s\n' -o "APT::Architecture=$apt_arch" -o "APT::Architectures=$apt_arch"
}

apt_update() {
	local opts
	mapfile -t opts < <(apt_opts "$1")
	say "$1: apt-get update"
	apt-get "${opts[@]}" update -qq >/dev/null
}

# Downloads packages of a suite into the current folder (which _apt, who
# downloads, may write), updating the suite's lists once if they lack one.
# A pinned package gone from the archive is named, in one line.
apt_download() {
	local suite=$1 opts
	shift
	mapfile -t opts < <(apt_opts "$suite")
	if ! apt-get "${opts[@]}" download -qq "$@" >/dev/null 2>&1; then
		apt_update "$suite"
		apt-get "${opts[@]}" download -qq "$@" >/dev/null 2>&1 ||
			die "$suite: cannot download $*: gone from Debian's archive? (pinned in $matrix)"
	fi
}

# The first of the named packages the suite has, updating its lists once
# if none is in them.
apt_first() {
	local suite=$1 opts p try
	shift
	mapfile -t opts < <(apt_opts "$suite")
	for try in lists updated; do
		[ $try = lists ] || apt_update "$suite"
		for p in "$@"; do
			if apt-cache "${opts[@]}" show "$p" >/dev/null 2>&1; then
				echo "$p"
				return
			fi
		done
	done
	die "$suite: none of $* in Debian's archive (pinned in $matrix)"
}

dl_dir() {
	local d
	d=$(mktemp -d)
	chmod 0777 "$d"
	echo "$d"
}

# The e1000 driver check-cluster's guests load (tests/slurm/cluster.sh),
# of the reference kernel, in its image's folder.
E1000=kernel/drivers/net/ethernet/intel/e1000/e1000.ko
# The virtio disk and ext4 that bench-compensation writes its traces to
# (the trace writer's direct I/O), in the order they load.
mapfile -t DISK_MODULES <"$top/bench/compensation/disk-modules"
# What the reference image gives besides its kernel: check-cluster's
# network driver, bench-compensation's disk, and the lists of built-in
# modules that bench-vm's LTTng modules are installed beside (depmod, the
# guest's modprobe).
REFERENCE_FILES=("$E1000" "${DISK_MODULES[@]/#/kernel/}" modules.builtin modules.builtin.modinfo)

# The image: its vmlinuz (boot/ up to 7.1, usr/lib/modules/RELEASE/ from
# 7.2), and the ELF vmlinux taken out of it (QEMU boots that directly,
# twice as fast under TCG), in $cache/linux-image-RELEASE/boot; for the
# reference kernel, its REFERENCE_FILES in lib/modules/RELEASE too.
fetch_image() {
	local suite=$1 release=$2 dir=$cache/linux-image-$2 dl pkg member off f
	local vmlinuz=$dir/boot/vmlinuz-$2 vmlinux=$dir/boot/vmlinux-$2
	local extra=() missing=
	if [ "$release" = "$(reference)" ]; then
		for f in "${REFERENCE_FILES[@]}"; do
			extra+=("./lib/modules/$release/$f")
			[ -f "$dir/lib/modules/$release/$f" ] || missing=1
		done
	fi
	if [ ! -f "$vmlinuz" ] || [ -n "$missing" ]; then
		# sid's images put the kernel in linux-binary-*; older ones in
		# the -unsigned or the signed image.
		pkg=$(apt_first "$suite" "linux-binary-$release" \
			"linux-image-$release-unsigned" "linux-image-$release")
		say "$release: downloading $pkg"
		dl=$(dl_dir)
		(cd "$dl" && apt_download "$suite" "$pkg")
		# awk reads the whole listing: leaving early would kill
		# dpkg-deb with SIGPIPE, which pipefail makes fatal.
		member=$(dpkg-deb -c "$dl"/"$pkg"_*.deb | awk -v a="./boot/vmlinuz-$release" \
			-v b="./usr/lib/modules/$release/vmlinuz" '!m && ($NF == a || $NF == b) { m = $NF } END { print m }')
		[ -n "$member" ] || die "$pkg has no vmlinuz of $release"
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/boot"
		dpkg-deb --fsys-tarfile "$dl"/"$pkg"_*.deb | tar -xO "$member" >"$dir.tmp/boot/vmlinuz-$release"
		[ ${#extra[@]} -eq 0 ] || dpkg-deb --fsys-tarfile "$dl"/"$pkg"_*.deb |
			tar -x -C "$dir.tmp" "${extra[@]}" || die "$pkg lacks one of ${REFERENCE_FILES[*]}"
		rm -rf "$dl"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	if [ "$arch" = arm64 ]; then
		arm64_image "$vmlinuz" "$dir/boot/Image-$release"
		return
	fi
	[ -f "$vmlinux" ] && return 0
	# Debian compresses it with xz (6.1) or zstd (6.12 on): try each
	# header of either in the bzImage until one gives an ELF file.
	local magic unpack
	for magic in xz zstd; do
		case $magic in
		xz) pattern=$'\xfd7zXZ' unpack="xz -dcq" ;;
		zstd) pattern=$'\x28\xb5\x2f\xfd' unpack="zstd -dcq" ;;
		esac
		for off in $(LC_ALL=C grep -abo "$pattern" "$vmlinuz" | cut -d: -f1); do
			tail -c +$((off + 1)) "$vmlinuz" | $unpack >"$vmlinux.tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$vmlinux.tmp")" = $'\x7fELF' ]; then
				mv "$vmlinux.tmp" "$vmlinux"
				return 0
			fi
		done
	done
	rm -f "$vmlinux.tmp"
	say "$release: no ELF vmlinux in $vmlinuz; the VM boots the slower vmlinuz"
}

# The arm64 Image QEMU boots, out of the vmlinuz IN into OUT: a gzip'd
# Image (6.1), or an EFI zboot image (a PE file whose header says where
# its compressed Image is and how it is compressed: "zimg" at offset 4,
# the payload's offset and size at 8 and 12, the method at 24). An
# Image has "ARM\x64" at offset 56.
arm64_image() {
	local in=$1 out=$2 off size method
	[ -f "$out" ] && return 0
	if [ "$(head -c 2 "$in" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$in" >"$out.tmp"
	elif [ "$(dd if="$in" bs=1 skip=4 count=4 status=none)" = zimg ]; then
		off=$(od -An -tu4 -j 8 -N 4 "$in" | tr -d ' ')
		size=$(od -An -tu4 -j 12 -N 4 "$in" | tr -d ' ')
		method=$(dd if="$in" bs=1 skip=24 count=8 status=none | tr -d '\0')
		case $method in
		gzip) tail -c +$((off + 1)) "$in" | head -c "$size" | gzip -dc >"$out.tmp" ;;
		zstd) tail -c +$((off + 1)) "$in" | head -c "$size" | zstd -dcq >"$out.tmp" ;;
		xz | lzma) tail -c +$((off + 1)) "$in" | head -c "$size" | xz -dcq >"$out.tmp" ;;
		*) die "$in: a zboot image compressed with '$method', which this script cannot unpack" ;;
		esac
	else
		ln -f "$in" "$out.tmp"
	fi
	[ "$(dd if="$out.tmp" bs=1 skip=56 count=4 status=none)" = $'ARM\x64' ] ||
		die "$in: no arm64 Image in it"
	mv "$out.tmp" "$out"
}

# Headers for a kernel this machine builds for: the arch package, its
# common headers and kbuild, unpacked together; the arch Makefile's include
# of the common one pointed into the unpacked tree. A cross build's kbuild
# (its fixdep and modpost run here) is the build machine's, of the arch
# package's version.
fetch_headers() {
	local suite=$1 release=$2 root=$cache/kernels/$2 dl common kbuild deps version
	local kdir=$root/usr/src/linux-headers-$2
	[ -f "$kdir/.mkm-ready" ] && return 0
	if [ "$release" = "$(reference)" ]; then
		return 0 # installed by make deps (linux-headers-amd64)
	fi
	dl=$(dl_dir)
	(cd "$dl" && apt_download "$suite" "linux-headers-$release")
	deps=$(dpkg-deb -f "$dl"/linux-headers-"$release"_*.deb Depends)
	common=$(echo "$deps" | grep -o 'linux-headers-[^ ,]*-common[^ ,]*' | head -n 1)
	kbuild=$(echo "$deps" | grep -o 'linux-kbuild-[^ ,]*' | head -n 1)
	[ -n "$common" ] && [ -n "$kbuild" ] ||
		die "linux-headers-$release: cannot find its common headers and kbuild in: $deps"
	say "$release: downloading its headers ($common, $kbuild)"
	if [ "$arch" = amd64 ]; then
		(cd "$dl" && apt_download "$suite" "$common" "$kbuild")
	else
		version=$(dpkg-deb -f "$dl"/linux-headers-"$release"_*.deb Version)
		(cd "$dl" && apt_download "$suite" "$common" &&
			apt_arch=amd64 apt_download "$suite" "$kbuild=$version")
	fi
	rm -rf "$root" && mkdir -p "$root"
	for deb in "$dl"/*.deb; do dpkg -x "$deb" "$root"; done
	rm -rf "$dl"
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$kdir/Makefile"
	touch "$kdir/.mkm-ready"
}

# The sid chroot, with the headers of every kernel built there installed
# (gcc-16 comes with them) and what DKMS and the debug kernel need. Made
# again when the matrix asks for other headers.
sid_root() {
	[ "$arch" = amd64 ] && echo "$cache/sid" || echo "$cache/sid-$arch"
}

# The common headers and kbuild tools an arm64 headers package of sid
# depends on (installed in the arm64 chroot, for amd64), a line each.
sid_cross_deps() {
	local opts deps
	mapfile -t opts < <(apt_opts sid)
	deps=$(apt-cache "${opts[@]}" show "linux-headers-$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
	if [ -z "$deps" ]; then
		apt_update sid
		deps=$(apt-cache "${opts[@]}" show "linux-headers-$1" | sed -n 's/^Depends: //p' | head -n 1)
	fi
	echo "$deps" | grep -o -e 'linux-headers-[^ ,]*-common[^ ,]*' -e 'linux-kbuild-[^ ,]*' ||
		die "sid: cannot tell linux-headers-$1's common headers and kbuild from: $deps"
}

fetch_sid() {
	local root pkgs want
	root=$(sid_root)
	if [ "$arch" = amd64 ]; then
		pkgs="make kmod dkms gcc-16 flex bison bc cpio libelf-dev libssl-dev xz-utils"
		pkgs+=" $(rows | awk '$4 == "sid" { printf " linux-headers-%s", $3 }')"
	else
		# The cross compiler, and what the arch headers (unpacked
		# into the chroot, fetch_sid_headers) build with.
		pkgs="make kmod gcc-16 gcc-16-aarch64-linux-gnu flex bison bc libelf-dev libssl-dev xz-utils"
		pkgs+=" $(rows | awk '$4 == "sid" { print $3 }' | while read -r r; do sid_cross_deps "$r"; done | sort -u | tr '\n' ' ')"
	fi
	want=$(echo "$pkgs" | tr ' ' '\n' | sort | tr '\n' ' ')
	if [ -f "$root/.mkm-ready" ] && [ "$(cat "$root/.mkm-ready")" = "$want" ]; then
		return 0
	fi
	command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run make deps"
	say "sid chroot: making $root with $pkgs (a few minutes)"
	# Never remove a chroot with a folder of this machine mounted in it.
	! grep -q " $root[/ ]" /proc/mounts ||
		die "sid chroot: $root has mounts (grep $root /proc/mounts): unmount them first"
	rm -rf "$root.tmp" "$root"
	# mmdebstrap wants the target's parent: on a fresh machine the cache
	# does not exist yet.
	mkdir -p "$(dirname "$root")"
	mmdebstrap --quiet --variant=minbase --include="$(echo $pkgs | tr ' ' ,)" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		sid "$root.tmp" "$mirror" >&2 ||
		die "sid chroot: mmdebstrap failed (a pinned sid package gone? $pkgs)"
	echo "$want" >"$root.tmp/.mkm-ready"
	mv "$root.tmp" "$root"
}

# A cross-built sid kernel's arch headers, unpacked into the chroot (its
# common headers and kbuild are installed there: fetch_sid).
fetch_sid_headers() {
	local suite=$1 release=$2 root dl
	root=$(sid_root)
	[ -f "$root/usr/src/linux-headers-$release/.mkm-ready" ] && return 0
	say "$release: downloading its headers into $root"
	dl=$(dl_dir)
	(cd "$dl" && apt_download "$suite" "linux-headers-$release")
	dpkg -x "$dl"/linux-headers-"$release"_*.deb "$root"
	rm -rf "$dl"
	touch "$root/usr/src/linux-headers-$release/.mkm-ready"
}

cmd_fetch() {
	local name suite release builds only=,
	[ "${1:-}" != -n ] || only=,$2,
	picked() { [ "$only" = , ] || [[ $only == *",$1,"* ]]; }
	# grep reads it all: -q would stop at the first line and, under
	# pipefail, the writer's SIGPIPE would skip the chroot.
	rows | while read -r name suite release builds; do
		picked "$name" && [ "$builds" = sid ] && echo sid
	done | grep . >/dev/null && fetch_sid
	while read -r name suite release builds; do
		picked "$name" || continue
		[ "$builds" = host ] && fetch_headers "$suite" "$release"
		[ "$builds" = sid ] && [ "$arch" != amd64 ] && fetch_sid_headers "$suite" "$release"
		fetch_image "$suite" "$release"
		say "$name: $release ready"
	done < <(rows)
}

# Where NAME's headers are, as its build environment sees them.
kdir_of() {
	local release=$1 builds=$2
	if [ "$builds" = sid ]; then
		echo "/usr/src/linux-headers-$release"
	elif [ "$release" = "$(reference)" ]; then
		echo "/usr/src/linux-headers-$release"
	else
		echo "$cache/kernels/$release/usr/src/linux-headers-$release"
	fi
}

# Runs a command in NAME's build environment: here, or in the sid chroot
# with each DIR (absolute) bind-mounted at the same path and /proc mounted;
# the command runs in the first.
cmd_run() {
	local name=$1 dirs=() r builds root d i rc=0
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		dirs+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	r=$(row "$name")
	builds=$(echo "$r" | cut -d' ' -f4)
	if [ "$builds" != sid ]; then
		(cd "${dirs[0]}" && "$@")
		return
	fi
	root=$(sid_root)
	[ -f "$root/.mkm-ready" ] || die "no sid chroot at $root: run make deps"
	# objtool reads /proc (its stack limit), as do compilers.
	for d in "${dirs[@]}"; do
		mkdir -p "$root$d"
		mount --bind "$d" "$root$d"
	done
	mount -t proc proc "$root/proc"
	chroot "$root" sh -c 'cd "$1" && shift && exec "$@"' sh "${dirs[0]}" "$@" || rc=$?
	# In reverse: a DIR inside another was mounted before it. Lazily if
	# busy: a process the command left may still be exiting (seen after
	# sid's dkms: "target is busy"), and the mount must not outlive us.
	umount "$root/proc" 2>/dev/null || umount -l "$root/proc"
	for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
		umount "$root${dirs[i]}" 2>/dev/null || umount -l "$root${dirs[i]}"
	done
	return $rc
}

cmd_build() {
	local name=$1 out r release builds kdir f src=${3:-$top/kernel}
	out=$(mkdir -p "$2" && cd "$2" && pwd)
	r=$(row "$name")
	release=$(echo "$r" | cut -d' ' -f3)
	builds=$(echo "$r" | cut -d' ' -f4)
	kdir=${KDIR_OVERRIDE:-$(kdir_of "$release" "$builds")}
	# Copies, not links: the chroot sees only what is under DIR.
	for f in "$src"/*.c "$src"/*.h "$src"/Kbuild; do
		[ ! -e "$f" ] || cp -f "$f" "$out/"
	done
	rm -rf "$out/uapi"
	[ ! -d "$src/uapi" ] || cp -r "$src/uapi" "$out/uapi"
	rm -f "$out"/*.ko
	# sid's compiler by name: a debug kernel built there records no other.
	local cc=()
	[ "$builds" != sid ] || cc=(CC=gcc-16 HOSTCC=gcc-16)
	# A cross build: the arch headers' .kernelvariables name the compiler
	# of the host build ($(CROSS_COMPILE)gcc-12); sid's, by name as above.
	if [ "$arch" = arm64 ]; then
		cc=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		[ "$builds" != sid ] || cc+=(CC=aarch64-linux-gnu-gcc-16 HOSTCC=gcc-16)
	fi
	# A debug kernel's tree (KDIR_OVERRIDE) is outside the chroot: its
	# folder (with the source its build links to) is mounted there too.
	local also=()
	[ -z "${KDIR_OVERRIDE:-}" ] || also=("$(dirname "$KDIR_OVERRIDE")")
	cmd_run "$name" "$out" "${also[@]}" -- make -C "$kdir" M="$out" W=1 "${cc[@]}" \
		MKM_VERSION="$(cat "$top/VERSION")" modules >"$out/build.log" 2>&1
}

cmd_image() {
	local release
	release=$(row "$1" | cut -d' ' -f3)
	local boot=$cache/linux-image-$release/boot
	if [ "$arch" = arm64 ]; then
		[ -f "$boot/Image-$release" ] || die "no image of $release in $boot: run kernels.sh -a arm64 fetch"
		echo "$boot/Image-$release"
	elif [ -f "$boot/vmlinux-$release" ]; then
		echo "$boot/vmlinux-$release"
	elif [ -f "$boot/vmlinuz-$release" ]; then
		echo "$boot/vmlinuz-$release"
	else
		die "no image of $release in $boot: run make deps"
	fi
}

# One kernel's boots, in the background (check -j runs that many at once):
# its row of the table in DIR/row, and DIR/failed if it failed. Sees
# cmd_check's tests, files and exact.
boot_one() {
	local name=$1 release=$2 dir=$3 image=$4 b=$5 status=0 boot=FAILED
	local passed= failed= splats=
	"$top/tests/vm/mkinitramfs.sh" -A "$arch" -o "$dir/initramfs.cpio.gz" \
		-m "$dir/module/mkm.ko" "${tests[@]}" "${files[@]}"
	BUILD=$build "$top/tests/vm/run.sh" -A "$arch" -k "$image" \
		-i "$dir/initramfs.cpio.gz" -l "$dir/check.log" -t 3000 "${exact[@]}" \
		>"$dir/report.txt" 2>&1 || status=$?
	grep -E '^(FAIL|vm: )' "$dir/report.txt" | grep -v '^vm: booting' |
		sed "s/^/$name: /" >&2 || true
	! grep -q '^MKM-VM-BOOT' "$dir/check.log" || boot=ok
	read -r passed failed splats < <(awk -f "$here/boots.awk" "$dir/report.txt") || true
	[ $status = 0 ] || touch "$dir/failed"
	printf '%-8s %-24s %-8s %-6s %6s %6s  %s\n' "$name" "$release" "$b" "$boot" \
		"${passed:--}" "${failed:--}" "${splats:-0}" >"$dir/row"
}

# check: every kernel (or those of -n), each built (one at a time: the sid
# chroot's mounts are shared), booted with the given test binaries (-j at a
# time: a guest's virtual CPUs are one host thread, so 2 cores run two),
# and its log read; the table at the end; exit 1 if any kernel failed
# anything.
cmd_check() {
	local only= debug= names name suite release builds dir status tests=()
	local table=() bad=0 image kdir exact=() reference_report= jobs=1 b
	while getopts "dn:e:r:j:" opt; do
		case $opt in
		d) debug=1 ;;
		n) only=$OPTARG ;;
		e) exact=(-e "$OPTARG") ;;
		r) reference_report=$OPTARG ;;
		j) jobs=$OPTARG ;;
		*) die "usage: kernels.sh check [-d] [-j JOBS] [-n NAME,...] [-e TEST,...] [-r REPORT] TEST... [SRC:DEST]..." ;;
		esac
	done
	shift $((OPTIND - 1))
	[ -z "$debug" ] || [ "$arch" = amd64 ] || die "no debug kernels of $arch"
	local files=()
	for a in "$@"; do
		case $a in
		*:*) files+=(-f "$a") ;;
		*) tests+=(-t "$a") ;;
		esac
	done
	names=$(rows | cut -d' ' -f1)
	[ -z "$only" ] || names=$(echo "$only" | tr , ' ')
	for name in $names; do
		read -r name suite release builds <<<"$(row "$name")"
		dir=$build/kernels/$release
		kdir= image=
		if [ -n "$debug" ]; then
			kdir=$("$here/build-debug-kernel.sh" "$name") || die "$name: no debug kernel"
			image=$kdir/arch/x86/boot/bzImage
			release="$release-debug"
			dir=$build/kernels/$release
		fi
		mkdir -p "$dir"
		rm -f "$dir/row" "$dir/failed"
		if [ -n "$reference_report" ] && [ -z "$debug" ] && [ "$release" = "$(reference)" ]; then
			local boot=FAILED passed= failed= splats=
			[ -f "$reference_report" ] || die "$name: no report of check-vm at $reference_report"
			! grep -qE '^vm: [0-9]+ passed' "$reference_report" || boot=ok
			read -r passed failed splats < <(awk -f "$here/boots.awk" "$reference_report") || true
			[ "$boot" = ok ] && [ "${failed:-1}" = 0 ] && [ "${splats:-0}" = 0 ] || bad=1
			table+=("$(printf '%-8s %-24s %-8s %-6s %6s %6s  %s' "$name" "$release" \
				check-vm "$boot" "${passed:--}" "${failed:--}" "${splats:-0}")")
			continue
		fi
		say "$name ($release): building mkm.ko"
		b=ok
		if ! KDIR_OVERRIDE=$kdir cmd_build "$name" "$dir/module"; then
			b=FAILED
			grep -E 'error|Error' "$dir/module/build.log" | head -n 5 >&2
		elif grep -q 'warning:' "$dir/module/build.log"; then
			b=warnings
			grep 'warning:' "$dir/module/build.log" | head -n 5 >&2
			[ -z "${WERROR:-}" ] || bad=1
		fi
		if [ "$b" = FAILED ]; then
			bad=1
			table+=("$(printf '%-8s %-24s %-8s %-6s %6s %6s  %s' "$name" "$release" \
				"$b" - - - -)")
			continue
		fi
		[ -n "$image" ] || image=$(cmd_image "$name")
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		say "$name ($release): booting"
		boot_one "$name" "$release" "$dir" "$image" "$b" &
		table+=("@$dir")
	done
	wait
	printf '\n%-8s %-24s %-8s %-6s %6s %6s  %s\n' kernel release build boot passed failed splats
	for r in "${table[@]}"; do
		case $r in
		@*)
			dir=${r#@}
			[ -f "$dir/row" ] && cat "$dir/row" || { echo "${dir##*/}: no result"; bad=1; }
			[ ! -f "$dir/failed" ] || bad=1
			;;
		*) printf '%s\n' "$r" ;;
		esac
	done
	[ $bad = 0 ] && return 0
	# The failures again under the table, each with its output's tail:
	# a run's last lines are often all its reader keeps.
	for r in "${table[@]}"; do
		dir=${r#@}
		[ "$r" != "$dir" ] && [ -f "$dir/failed" ] || continue
		echo >&2
		grep -A 20 '^FAIL' "$dir/report.txt" | grep -E '^(FAIL|      \| )' |
			sed "s/^/${dir##*/}: /" >&2 || true
	done
	echo "kernels: some kernel failed: its log is in $build/kernels/RELEASE/check.log" >&2
	return 1
}

case ${1:-} in
fetch) shift; cmd_fetch "$@" ;;
list) rows | awk '{ print $1, $3, $4 }' ;;
image) cmd_image "$2" ;;
kdir) kdir_of "$(row "$2" | cut -d' ' -f3)" "$(row "$2" | cut -d' ' -f4)" ;;
build) cmd_build "$2" "$3" "${4:-}" ;;
run) shift; cmd_run "$@" ;;
download) shift; apt_download "$@" ;;
check) shift; cmd_check "$@" ;;
*) sed -n '3,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
