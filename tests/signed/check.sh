#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - a kernel that loads only signed modules (as under Secure Boot)
# refuses an unsigned mkm.ko, and mkm then says why in one line, not only
# that the module is not loaded. Boots the reference kernel twice with the
# unsigned module: with module.sig_enforce=1 (insmod: "Key was rejected by
# service", EKEYREJECTED) and with lockdown=integrity (what Debian's
# kernel sets itself under Secure Boot: "Operation not permitted", EPERM);
# in each, mkm record must name the cause and the key to enroll.
#
#   check.sh MODULE MKM        mkm.ko (unsigned) and the mkm command
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
module=${1:?usage: check.sh MODULE MKM}
mkm=${2:?usage: check.sh MODULE MKM}
dir=$build/signed
mkdir -p "$dir"
fail=0

# The guest's command: mkm's one line, between markers the host reads.
cat >"$dir/cmd.sh" <<'SCRIPT'
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo "signed: lockdown=$(cat /sys/kernel/security/lockdown 2>/dev/null) sig_enforce=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)"
[ -d /sys/module/mkm ] && echo "signed: mkm.ko loaded" || echo "signed: mkm.ko not loaded"
echo "signed: mkm says: $(mkm record -o /tmp/t.mkm -- true 2>&1 | tr '\n' ' ')"
SCRIPT

"$top/tests/vm/mkinitramfs.sh" -o "$dir/initramfs.cpio.gz" -m "$module" \
	-f "$mkm:/bin/mkm"

# check NAME APPEND INSMOD-ERROR WHY
check() {
	local name=$1 append=$2 insmod=$3 why=$4 log=$dir/$1.log
	BUILD=$build "$top/tests/vm/run.sh" -i "$dir/initramfs.cpio.gz" \
		-c "$dir/cmd.sh" -a "$append" -l "$log" -t 300 >"$dir/$name.report" 2>&1 || true
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
check sig_enforce "module.sig_enforce=1" "Key was rejected by service" "module.sig_enforce"
check lockdown "lockdown=integrity" "Operation not permitted" "lockdown: integrity"
exit $fail
