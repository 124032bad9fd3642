#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh: build the guest's gzip'd cpio initramfs.
#
# A full image holds busybox-static (with a symlink per applet), tests/vm/init
# as /init, the module as /mkm.ko, test binaries in /tests (run in the order
# given, listed in /tests/list) and extra files. Every dynamically linked ELF
# file brings the shared libraries ldd finds for it, the loader included, at
# the same paths as on the host. An overlay (-O) holds only what -m/-t/-f/-c
# add: the kernel unpacks concatenated archives in order, later files winning,
# so run.sh appends one to a full image to add a command script or files.
#
# An arm64 image (-A arm64, or MKM_VM_ARCH=arm64) holds Debian's arm64
# busybox-static and, for each ELF file, the libraries its DT_NEEDED names,
# found in the arm64 sysroot (tests/arm64/sysroot.sh) or the cross
# toolchain's C library (/usr/aarch64-linux-gnu/lib), read with readelf:
# ldd cannot run an arm64 loader here.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 -o OUT [-O] [-m MODULE] [-t TEST]... [-f SRC[:DEST]]... [-c SCRIPT]
  -o OUT          write the gzip'd cpio archive here
  -O              overlay only: no busybox, no /init
  -m MODULE       the module, installed as /mkm.ko
  -t TEST         a test binary, installed as /tests/NAME
  -f SRC[:DEST]   an extra file or folder (DEST defaults to /bin/NAME)
  -c SCRIPT       a command script, installed as /cmd (the guest runs it
                  instead of the tests)
  -A ARCH         the guest's architecture: amd64 (default) or arm64
EOF
	exit 2
}
die() { printf 'mkinitramfs: %s\n' "$*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
out= overlay= module= cmd=
tests=() files=()
arch=${MKM_VM_ARCH:-amd64}
while getopts "o:Om:t:f:c:A:h" opt; do
	case $opt in
	A) arch=$OPTARG ;;
	o) out=$OPTARG ;;
	O) overlay=1 ;;
	m) module=$OPTARG ;;
	t) tests+=("$OPTARG") ;;
	f) files+=("$OPTARG") ;;
	c) cmd=$OPTARG ;;
	*) usage ;;
	esac
done
[ $OPTIND -gt $# ] && [ -n "$out" ] || usage

root=$(mktemp -d)
# The guest's / : unprivileged tests must reach /dev and /tmp.
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT
libdirs=()

case $arch in
amd64) ;;
arm64) sysroot=$("$here/../arm64/sysroot.sh") ;;
*) die "no architecture '$arch' (amd64, arm64)" ;;
esac
# Where an arm64 file's libraries are looked for, and where they go.
ARM64_LIBDIRS=(/usr/aarch64-linux-gnu/lib)
ARM64_GUEST_LIBDIR=/lib/aarch64-linux-gnu

# An arm64 ELF file's libraries, and theirs, by DT_NEEDED; its loader
# (PT_INTERP, /lib/ld-linux-aarch64.so.1) from the toolchain's.
add_libs_arm64() {
	local f=$1 lib d found interp
	interp=$(aarch64-linux-gnu-readelf -lW "$f" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "${ARM64_LIBDIRS[0]}/$(basename "$interp")" "$root$interp"
	fi
	for lib in $(aarch64-linux-gnu-readelf -dW "$f" 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ ! -e "$root$ARM64_GUEST_LIBDIR/$lib" ] || continue
		found=
		for d in "${ARM64_LIBDIRS[@]}" "$sysroot/usr/lib/aarch64-linux-gnu" \
			"$sysroot/lib/aarch64-linux-gnu"; do
			[ -e "$d/$lib" ] && found=$d/$lib && break
		done
		[ -n "$found" ] || die "$f: needs $lib, which neither the cross toolchain nor the arm64 sysroot has"
		mkdir -p "$root$ARM64_GUEST_LIBDIR"
		cp -L "$found" "$root$ARM64_GUEST_LIBDIR/$lib"
		add_libs_arm64 "$found"
	done
	# glibc dlopens libgcc_s for pthread_cancel and unwinding.
	if [ -n "$interp" ] && [ ! -e "$root$ARM64_GUEST_LIBDIR/libgcc_s.so.1" ]; then
		mkdir -p "$root$ARM64_GUEST_LIBDIR"
		cp -L "${ARM64_LIBDIRS[0]}/libgcc_s.so.1" "$root$ARM64_GUEST_LIBDIR/"
	fi
}

# Copy the shared libraries a dynamically linked ELF file needs.
add_libs() {
	local f=$1 line lib
	head -c 4 "$f" 2>/dev/null | grep -q 'ELF' || return 0
	if [ "$arch" = arm64 ]; then
		add_libs_arm64 "$f"
		return
	fi
	ldd "$f" >/dev/null 2>&1 || return 0 # static, or not for this machine
	while read -r line; do
		case $line in
		*"not found"*) die "$f: needs ${line%% *}, which is not installed" ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;; # linux-vdso
		esac
		copy_lib "$lib"
	done < <(ldd "$f")
	# glibc dlopens libgcc_s for pthread_cancel and unwinding.
	# No early exit in awk: ldconfig would die of SIGPIPE under pipefail.
	lib=$(/sbin/ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ && !f { print $NF; f = 1 }')
	[ -z "$lib" ] || copy_lib "$lib"
}

copy_lib() {
	local dir
	[ ! -e "$root$1" ] || return 0
	dir=$(dirname "$1")
	mkdir -p "$root$dir"
	cp -L "$1" "$root$1"
	case $dir in
	/lib64 | /lib | /usr/lib | /lib/x86_64-linux-gnu | /usr/lib/x86_64-linux-gnu) ;;
	*) libdirs+=("$dir") ;;
	esac
}

# Install SRC at DEST in the image, with its libraries.
add() {
	local src=$1 dest=$2 f
	[ -e "$src" ] || die "$src: no such file"
	mkdir -p "$root$(dirname "$dest")"
	# Replace, never write through: an applet's symlink there points at
	# /bin/busybox, which on the host is the host's.
	cp -a --remove-destination "$src" "$root$dest"
	if [ -d "$src" ]; then
		while IFS= read -r -d '' f; do add_libs "$f"; done \
			< <(find "$src" -type f -perm -u+x -print0)
	else
		add_libs "$src"
	fi
}

if [ -z "$overlay" ]; then
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,out,etc,root}
	# arm64's busybox cannot run here to list its applets: this
	# machine's busybox-static, the same Debian package, lists them.
	if [ "$arch" = arm64 ]; then
		cp "$sysroot/bin/busybox" "$root/bin/busybox"
	else
		cp /bin/busybox "$root/bin/busybox"
	fi
	for applet in $(/bin/busybox --list-full); do
		[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
	done
	install -m 0755 "$here/init" "$root/init"
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'mkm:x:1000:1000:mkm:/tmp:/bin/sh' \
		'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >"$root/etc/passwd"
	printf '%s\n' 'root:x:0:' 'mkm:x:1000:' 'nogroup:x:65534:' >"$root/etc/group"
fi
[ -z "$module" ] || add "$module" /mkm.ko
for t in "${tests[@]}"; do
	name=$(basename "$t")
	[ ! -e "$root/tests/$name" ] || die "two tests named $name"
	add "$t" "/tests/$name"
	echo "$name" >>"$root/tests/list"
done
for f in "${files[@]}"; do
	src=${f%%:*}
	dest=${f#*:}
	[ "$dest" != "$f" ] || dest=/bin/$(basename "$src")
	add "$src" "$dest"
done
[ -z "$cmd" ] || install -m 0755 "$cmd" "$root/cmd"

# Library folders off the loader's default path (a build folder reached
# through the host's LD_LIBRARY_PATH, say): init puts them on the guest's.
if [ ${#libdirs[@]} -gt 0 ]; then
	mkdir -p "$root/etc/ld-library-path.d"
	printf '%s\n' "${libdirs[@]}" | sort -u >"$root/etc/ld-library-path.d/$(basename "$out")"
fi

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -6 >"$out.tmp"
mv "$out.tmp" "$out"
