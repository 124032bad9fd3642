// SPDX-License-Identifier: GPL-2.0
/*
 * mmap.c - a monitor's rings mapped into its reader's address space, so the
 * reader takes records where the sensor wrote them (as perf's buffers).
 *
 * Each CPU's ring is one vmalloc area (ring.h): the control page, the
 * reader page, the records. A mapping at MKM_MMAP_RING(cpu) shows any run of
 * its pages read-only; only the reader page may also be mapped writable, on
 * its own, which is the one page the kernel trusts nothing in (ring.h keeps
 * every index it writes through masked). The pages are inserted at mmap
 * time and hold a reference each, and the mapping holds the file, so the
 * monitor outlives it; CONFIGURE, which would replace the rings, is refused
 * while any mapping remains (mon->mapped, tested where the rings are
 * swapped, under mon->map_lock, which mmap holds while it maps them).
 */

#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "mmap.h"
#include "monitor.h"

static void mmap_vma_open(struct vm_area_struct *vma)
{
	struct mkm_monitor *mon = vma->vm_file->private_data;

	atomic_inc(&mon->mapped);
}

static void mmap_vma_close(struct vm_area_struct *vma)
{
	struct mkm_monitor *mon = vma->vm_file->private_data;

	atomic_dec(&mon->mapped);
}

static const struct vm_operations_struct mmap_vm_ops = {
	.open = mmap_vma_open,
	.close = mmap_vma_close,
};

int mkm_monitor_mmap(struct mkm_monitor *mon, struct vm_area_struct *vma)
{
	const unsigned int cpu_shift = 32 - PAGE_SHIFT;
	unsigned long cpu = vma->vm_pgoff >> cpu_shift;
	unsigned long first = vma->vm_pgoff & ((1ul << cpu_shift) - 1);
	unsigned long pages = vma_pages(vma), total, i;
	bool reader = first == MKM_RING_READER_OFFSET / PAGE_SIZE && pages == 1;
	struct mkm_ring *r;
	int ret;

	if (PAGE_SIZE != MKM_RING_PAGE_BYTES)
		return -ENODEV;
	/*
	 * A private copy of a ring would not see the sensor's writes. Not
	 * VM_SHARED, which mmap() clears for a file not open for writing,
	 * where MAP_SHARED still shares.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	if (!reader && vma->vm_flags & VM_WRITE)
		return -EACCES;
	mkm_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			 reader ? 0 : VM_MAYWRITE);

	/* Not mon->lock: read() takes mmap_lock (a fault) under it. */
	mutex_lock(&mon->map_lock);
	ret = -EINVAL;
	if (!mon->cpu)
		goto out;
	r = per_cpu_ptr(mon->cpu, cpu)->ring;
	total = PAGE_ALIGN(ring_alloc_size(mon->capacity)) >> PAGE_SHIFT;
	if (first >= total || pages > total - first)
		goto out;
	/* Pages inserted before a failure go with the vma mmap unwinds. */
	for (i = 0; i < pages; i++) {
		void *page = (char *)r + ((first + i) << PAGE_SHIFT);

		ret = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				     vmalloc_to_page(page));
		if (ret)
			goto out;
	}
	vma->vm_ops = &mmap_vm_ops;
	atomic_inc(&mon->mapped);
out:
	mutex_unlock(&mon->map_lock);
	return ret;
}
