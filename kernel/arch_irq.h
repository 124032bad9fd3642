/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch_irq.h - the interrupts that x86 takes through system vectors (the
 * local timer, the IPIs) and arm64 as named per-CPU interrupts, recorded
 * on arm64 as the x86 vector that means the same (MKM_EVF_VECTOR), so that
 * a trace reads alike, and the analysis (the noise kinds, a late wakeup's
 * tick or reschedule) classifies alike, on either.
 *
 * On arm64 the architected timer's per-CPU interrupt is requested as
 * "arch_timer" (drivers/clocksource/arm_arch_timer.c), and each IPI type
 * as a per-CPU interrupt named "IPI" (arch/arm64/kernel/smp.c, from
 * ipi_irq_base on, a number that differs between interrupt controllers):
 * both reach irq_handler_entry/exit through handle_percpu_devid_irq(), so
 * they are told by the action's name, never by the number. Which IPI it
 * is, only the ipi_entry/exit tracepoints inside its handler say (their
 * reason is smp.c's ipi_types[] string): an "IPI" action's own handler
 * events are left out, its irq kept, and ipi_entry/exit record the IPI.
 */
#ifndef MKM_ARCH_IRQ_H
#define MKM_ARCH_IRQ_H

#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "uapi/mkm.h"

#ifdef CONFIG_ARM64
#define MKM_HAVE_ARM64_IPI 1

/* The irq of the "IPI" action under way on this CPU, for ipi_entry/exit. */
DECLARE_PER_CPU(u32, mkm_ipi_irq);

/*
 * How irq_handler_entry/exit records action on irq: into *flags and
 * *arg0 (the irq unless it is the timer); false to leave it to
 * ipi_entry/exit.
 */
static __always_inline bool
mkm_irq_classify(int irq, const struct irqaction *action, u8 *flags, u32 *arg0)
{
	const char *name = action ? action->name : NULL;

	if (!name)
		return true;
	if (!strcmp(name, "arch_timer")) {
		*flags = MKM_EVF_VECTOR;
		*arg0 = MKM_X86_LOCAL_TIMER_VECTOR;
		return true;
	}
	if (!strcmp(name, "IPI")) {
		this_cpu_write(mkm_ipi_irq, irq);
		return false;
	}
	return true;
}

/*
 * An IPI by its reason: the x86 vector that means the same, with
 * MKM_EVF_VECTOR; one x86 has none for (CPU stop, wake-up, backtrace,
 * kgdb) is recorded as its irq. arm64 has one function-call IPI, for one
 * CPU or many: x86's CALL_FUNCTION. The timer broadcast is x86's local
 * timer vector, which x86's tick_broadcast() sends.
 */
static __always_inline void mkm_ipi_classify(const char *reason, u8 *flags,
					     u32 *arg0)
{
	static const struct {
		const char *reason;
		u32 vector;
	} ipis[] = {
		{ "Rescheduling interrupts", MKM_X86_RESCHEDULE_VECTOR },
		{ "Function call interrupts", MKM_X86_CALL_FUNCTION_VECTOR },
		{ "IRQ work interrupts", MKM_X86_IRQ_WORK_VECTOR },
		{ "Timer broadcast interrupts", MKM_X86_LOCAL_TIMER_VECTOR },
	};
	unsigned int i;

	for (i = 0; reason && i < ARRAY_SIZE(ipis); i++) {
		if (!strcmp(reason, ipis[i].reason)) {
			*flags = MKM_EVF_VECTOR;
			*arg0 = ipis[i].vector;
			return;
		}
	}
	*flags = 0;
	*arg0 = this_cpu_read(mkm_ipi_irq);
}
#else
#define MKM_HAVE_ARM64_IPI 0

/* Elsewhere an interrupt is its irq; x86's vectors have probes of their own. */
static __always_inline bool
mkm_irq_classify(int irq, const struct irqaction *action, u8 *flags, u32 *arg0)
{
	return true;
}
#endif

#endif /* MKM_ARCH_IRQ_H */
