# SPDX-License-Identifier: GPL-2.0
# tests/osnoise/: mkm noise against the kernel's osnoise tracer (rtla
# osnoise top) in guests of the matrix's PREEMPT_RT kernels. A boot per
# kernel (about 30 s each under TCG, plus mkm.ko's build): outside make
# check.

.PHONY: check-osnoise
## check-osnoise: mkm noise's osnoise table against rtla osnoise top, on the matrix's RT kernels (OSNOISE_KERNELS=6.12-rt to pick)
check-osnoise: $(MKM_TOOL)
	$(Q)BUILD=$(BUILD) tests/osnoise/check.sh $(if $(OSNOISE_KERNELS),-n $(OSNOISE_KERNELS))
