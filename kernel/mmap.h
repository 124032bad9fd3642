/* SPDX-License-Identifier: GPL-2.0 */
/* mmap.h - a monitor's rings mapped for reading in place. */
#ifndef MKM_MMAP_H
#define MKM_MMAP_H

struct mkm_monitor;
struct vm_area_struct;

int mkm_monitor_mmap(struct mkm_monitor *mon, struct vm_area_struct *vma);

#endif /* MKM_MMAP_H */
