/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring_user.h - the few kernel primitives ring.h uses, for building it in
 * userspace (unit tests, sanitizers, native benchmarks). Not kernel code.
 */
#ifndef MKM_RING_USER_H
#define MKM_RING_USER_H

#include <stdbool.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef int64_t s64;

/*
 * a * b / c without overflow, as the kernel's (linux/math64.h); the
 * quotient must fit in 64 bits. On x86-64 the kernel's two instructions,
 * where __int128's division would call a libgcc routine of dozens.
 */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
#ifdef __x86_64__
	u64 q;

	__asm__("mulq %2; divq %3"
		: "=a"(q)
		: "a"(a), "rm"(b), "rm"(c)
		: "rdx");
	return q;
#else
	return (u64)((unsigned __int128)a * b / c);
#endif
}
/* (a * mul) >> shift without overflow, as the kernel's. */
static inline u64 mul_u64_u64_shr(u64 a, u64 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}
#define U32_MAX UINT32_MAX
/* The kernel's primitives, as C11 atomics (barrier pairs noted in the code). */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define __aligned(x) __attribute__((aligned(x)))
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#endif /* MKM_RING_USER_H */
