# SPDX-License-Identifier: GPL-2.0
# disk.sh - sourced in the guest (guest.sh, bench/prof/recorder.sh):
# mount_disk DIR loads the reference kernel's virtio and ext4 modules
# (/lib/disk, in the order of disk-modules) and mounts the virtio disk
# that run.sh or bench/prof/recorder.sh attached (an ext4 image) on DIR.

mount_disk() {
	while read -r m; do
		[ -f "/lib/disk/${m##*/}" ] || {
			echo "disk.sh: no ${m##*/} in the image: make deps fetches the disk's modules (or CB_DISK=0)" >&2
			exit 1
		}
		insmod "/lib/disk/${m##*/}"
	done </lib/disk/order
	mkdir -p "$1"
	mount -t ext4 /dev/vda "$1"
}
