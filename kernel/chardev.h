/* SPDX-License-Identifier: GPL-2.0 */
/* chardev.h - /dev/mkm: one open file, one monitor. */
#ifndef MKM_CHARDEV_H
#define MKM_CHARDEV_H

int mkm_chardev_init(void);
void mkm_chardev_exit(void);

#endif /* MKM_CHARDEV_H */
