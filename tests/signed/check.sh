#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - a kernel that loads only signed modules (as under Secure Boot)
# refuses an unsigned mkm.ko, and mkm then says why in one line, not only
# that the module is not loaded. Boots the reference kernel twice with the
# unsigned module: with module.sig_enforce=1 (insmod: "Key was rejected by
# service", EKEYREJECTED) and with lockdown=integrity (what Debian's
# kernel sets itself under Secure Boot: "Operation not permitted", EPERM);
# in each, mkm record must name the cause and the key to enroll. With -k
# and -s, instead, a kernel that trusts the key the module SIGNED was
# signed with (the debug kernel: signed.config), under module.sig_enforce=1:
# the unsigned module refused there too, the signed one loaded and
# recording (check-debug).
#
#   check.sh [-k KERNEL -s SIGNED] MODULE MKM
#                              mkm.ko (unsigned) and the mkm command
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
usage() { echo "usage: check.sh [-k KERNEL -s SIGNED] MODULE MKM" >&2; exit 2; }
kernel='' signed=''
while getopts "k:s:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	s) signed=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || usage
# -k and -s go together.
{ [ -n "$kernel" ] && [ -n "$signed" ]; } || { [ -z "$kernel" ] && [ -z "$signed" ]; } || usage
module=$1 mkm=$2
dir=$build/signed${kernel:+-own-key}
mkdir -p "$dir"
fail=0

# The guest's command: mkm's one line, between markers the host reads.
cat >"$dir/cmd.sh" <<'SCRIPT'
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo "signed: lockdown=$(cat /sys/kernel/security/lockdown 2>/dev/null) sig_enforce=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)"
[ -d /sys/module/mkm ] && echo "signed: mkm.ko loaded" || echo "signed: mkm.ko not loaded"
echo "signed: mkm says: $(mkm record -o /tmp/t.mkm -- true 2>&1 | tr '\n' ' ')"
[ -s /tmp/t.mkm ] && echo "signed: mkm recorded"
SCRIPT

"$top/tests/vm/mkinitramfs.sh" -o "$dir/initramfs.cpio.gz" -m "$module" \
	-f "$mkm:/bin/mkm"

# boot NAME APPEND [run.sh options]: the log is $dir/NAME.log
boot() {
	local name=$1 append=$2
	shift 2
	BUILD=$build "$top/tests/vm/run.sh" -i "$dir/initramfs.cpio.gz" "$@" \
		-c "$dir/cmd.sh" -a "$append" -l "$dir/$name.log" -t 600 >"$dir/$name.report" 2>&1 || true
}

# check NAME APPEND INSMOD-ERROR WHY [run.sh options]
check() {
	local name=$1 append=$2 insmod=$3 why=$4 log=$dir/$1.log
	shift 4
	boot "$name" "$append" "$@"
	local said
	said=$(sed -n 's/^signed: mkm says: //p' "$log")
	if ! grep -q '^MKM-INSMOD-FAILED' "$log"; then
		echo "FAIL  signed/$name: the unsigned module was loaded ($append)"
		fail=1
	elif ! grep -q "$insmod" "$log"; then
		echo "FAIL  signed/$name: insmod did not say \"$insmod\" ($log)"
		fail=1
	elif ! grep -q '^signed: mkm.ko not loaded' "$log"; then
		echo "FAIL  signed/$name: no /sys/module/mkm check ran ($log)"
		fail=1
	elif [[ $said != *"loads only signed modules ($why)"*"mokutil --import /var/lib/dkms/mok.pub"* ]]; then
		echo "FAIL  signed/$name: mkm said: $said"
		fail=1
	else
		echo "PASS  signed/$name: refused (\"$insmod\"); $said"
	fi
}
if [ -z "$kernel" ]; then
	check sig_enforce "module.sig_enforce=1" "Key was rejected by service" "module.sig_enforce"
	check lockdown "lockdown=integrity" "Operation not permitted" "lockdown: integrity"
else
	check own-key-unsigned "module.sig_enforce=1" "Key was rejected by service" \
		"module.sig_enforce" -k "$kernel"
	"$top/tests/vm/mkinitramfs.sh" -o "$dir/initramfs-signed.cpio.gz" -m "$signed" \
		-f "$mkm:/bin/mkm"
	log=$dir/own-key-signed.log
	boot own-key-signed "module.sig_enforce=1" -k "$kernel" -i "$dir/initramfs-signed.cpio.gz"
	if grep -q '^MKM-INSMOD-FAILED' "$log" || ! grep -q '^signed: mkm.ko loaded' "$log"; then
		echo "FAIL  signed/own-key-signed: the signed module was refused ($log)"
		fail=1
	elif ! grep -q '^signed: mkm recorded' "$log"; then
		echo "FAIL  signed/own-key-signed: loaded, but mkm record wrote nothing: $(sed -n 's/^signed: mkm says: //p' "$log")"
		fail=1
	else
		echo "PASS  signed/own-key-signed: $(modinfo -F signer "$signed") signed it; loaded under module.sig_enforce=1, and mkm recorded"
	fi
fi
exit $fail
