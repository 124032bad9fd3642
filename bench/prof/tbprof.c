// SPDX-License-Identifier: GPL-2.0
/*
 * tbprof.c - a QEMU TCG plugin: the guest instructions executed in each
 * translated block between two markers, written out per window.
 *
 *   qemu-system-x86_64 -plugin build/bench/prof/tbprof.so,out=PREFIX ...
 *
 * The guest marks a window with two instructions no compiler emits,
 * executed in user space: xchg %rbx,%rbx opens it, xchg %rcx,%rcx closes
 * it (bench/vm_switch.c does so around each timed run). At each close the
 * plugin writes PREFIX.N (N = 1, 2, ...): one line per block that ran in
 * the window, "start-address instructions-per-execution executions". With
 * -icount, guest time is these instructions, so a difference between two
 * windows is a difference in what the guest executed, block by block
 * (bench/prof/profile.sh maps the addresses to kernel symbols).
 *
 * QEMU's plugin API 1 (QEMU 7.2) is declared here: Debian ships no header.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op, void *ptr,
					      uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* What QEMU calls on loading the plugin (defined below). */
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
			char **argv);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* A block: QEMU may translate the same address again, even shorter. */
struct block {
	uint64_t vaddr, insns;
	uint64_t count, at_open;
};

static GHashTable *blocks; /* of struct block, by address and length */
static const char *prefix = "tbprof";
static unsigned int windows;

static const uint8_t mark_open[] = { 0x48, 0x87, 0xdb }; /* xchg rbx,rbx */
static const uint8_t mark_close[] = { 0x48, 0x87, 0xc9 }; /* xchg rcx,rcx */

static guint block_hash(gconstpointer p)
{
	const struct block *b = p;

	return g_int64_hash(&b->vaddr) ^ (guint)b->insns;
}

static gboolean block_equal(gconstpointer a, gconstpointer b)
{
	const struct block *x = a, *y = b;

	return x->vaddr == y->vaddr && x->insns == y->insns;
}

static void window_open(unsigned int vcpu, void *udata)
{
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		struct block *b = k;

		b->at_open = b->count;
	}
}

static void window_close(unsigned int vcpu, void *udata)
{
	char path[4096];
	GHashTableIter it;
	gpointer k;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", prefix, ++windows);
	f = fopen(path, "w");
	if (!f)
		return;
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		struct block *b = k;

		if (b->count != b->at_open)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->insns, b->count - b->at_open);
	}
	fclose(f);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block key = { .vaddr = qemu_plugin_tb_vaddr(tb),
			     .insns = qemu_plugin_tb_n_insns(tb) };
	struct block *b = g_hash_table_lookup(blocks, &key);
	size_t i;

	if (!b) {
		b = g_new0(struct block, 1);
		*b = key;
		g_hash_table_add(blocks, b);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	/* The markers are user-space instructions. */
	if (key.vaddr >> 47)
		return;
	for (i = 0; i < key.insns; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const void *data = qemu_plugin_insn_data(insn);

		if (qemu_plugin_insn_size(insn) != sizeof(mark_open))
			continue;
		if (!memcmp(data, mark_open, sizeof(mark_open)))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, window_open, QEMU_PLUGIN_CB_NO_REGS,
				NULL);
		else if (!memcmp(data, mark_close, sizeof(mark_close)))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, window_close, QEMU_PLUGIN_CB_NO_REGS,
				NULL);
	}
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
		    char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			prefix = argv[i] + 4;
	blocks = g_hash_table_new(block_hash, block_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
