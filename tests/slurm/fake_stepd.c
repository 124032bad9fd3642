// SPDX-License-Identifier: GPL-2.0
/*
 * fake_stepd.c - loads mkm.so as slurmstepd does (dlopen, RTLD_NOW: every
 * symbol it needs must be there) and drives its remote callbacks with a
 * step of our own: job 1234.0, node n3 (index 3 of 4), so the plugin's
 * options and errors are tested on a host without Slurm or the module.
 *
 *   fake_stepd PLUGIN [PLUGSTACK-ARG...] -- [--OPTION[=VALUE]...]
 *
 * Exits 0 if every callback succeeded, 1 if one failed (its Slurm error
 * on stderr, "error: ..."), 2 if the plugin does not load.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

struct spank_handle {
	int dummy;
};

static struct spank_option *opts[16];
static int nr_opts;

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	if (nr_opts == 16)
		return ESPANK_ERROR;
	opts[nr_opts++] = opt;
	return ESPANK_SUCCESS;
}

int spank_remote(spank_t sp)
{
	(void)sp;
	return 1;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t ret = ESPANK_SUCCESS;

	(void)sp;
	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = 1234;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = 0;
		break;
	case S_JOB_NODEID:
		*va_arg(ap, uint32_t *) = 3;
		break;
	case S_JOB_NNODES:
		*va_arg(ap, uint32_t *) = 4;
		break;
	case S_TASK_PID:
		*va_arg(ap, pid_t *) = getpid();
		break;
	default:
		ret = ESPANK_BAD_ARG;
	}
	va_end(ap);
	return ret;
}

/* Node 3 of n[0-3], in a job whose environment names the batch node: the
 * plugin must name itself from the node list and its node id. */
spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	const char *v = !strcmp(var, "SLURMD_NODENAME")	    ? "n0" :
			!strcmp(var, "SLURM_STEP_NODELIST") ? "n[0-3]" :
							      NULL;

	(void)sp;
	if (!v)
		return ESPANK_ENV_NOEXIST;
	snprintf(buf, (size_t)len, "%s", v);
	return ESPANK_SUCCESS;
}

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void slurm_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* slurmstepd's log at its default level (info) leaves debug out. */
void slurm_debug(const char *fmt, ...)
{
	(void)fmt;
}

/* A node list is n0, n1, ... here, whatever the list. */
hostlist_t slurm_hostlist_create(const char *list)
{
	(void)list;
	return (hostlist_t)calloc(1, sizeof(int));
}

char *slurm_hostlist_shift(hostlist_t hl)
{
	char *h;

	return asprintf(&h, "n%d", (*(int *)hl)++) < 0 ? NULL : h;
}

void slurm_hostlist_destroy(hostlist_t hl)
{
	free(hl);
}

int main(int argc, char **argv)
{
	struct spank_handle h = { 0 };
	spank_f *init, *post_opt, *user_init, *post_fork, *fini;
	int i, n = 0, ret;
	void *so;

	if (argc < 2) {
		fputs("usage: fake_stepd PLUGIN [ARG...] -- [--OPT[=V]...]\n",
		      stderr);
		return 2;
	}
	so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "fake_stepd: %s\n", dlerror());
		return 2;
	}
	init = (spank_f *)dlsym(so, "slurm_spank_init");
	user_init = (spank_f *)dlsym(so, "slurm_spank_user_init");
	post_fork = (spank_f *)dlsym(so, "slurm_spank_task_post_fork");
	fini = (spank_f *)dlsym(so, "slurm_spank_exit");
	if (!init || !user_init || !post_fork || !fini ||
	    !dlsym(so, "plugin_name")) {
		fputs("fake_stepd: not a SPANK plugin\n", stderr);
		return 2;
	}
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++)
		n++;
	if (init(&h, n, argv + 2))
		return 1;
	for (i = i + 1; i < argc; i++) {
		char *name = argv[i] + 2, *val = strchr(name, '=');
		int k;

		if (val)
			*val++ = 0;
		for (k = 0; k < nr_opts && strcmp(opts[k]->name, name); k++)
			;
		if (strncmp(argv[i], "--", 2) || k == nr_opts) {
			fprintf(stderr, "fake_stepd: no option %s\n", argv[i]);
			return 2;
		}
		if (opts[k]->cb(opts[k]->val, val, 1))
			return 1;
	}
	/* slurmstepd calls it once the options are in, as root. */
	post_opt = (spank_f *)dlsym(so, "slurm_spank_init_post_opt");
	if (post_opt && post_opt(&h, 0, NULL))
		return 1;
	ret = user_init(&h, 0, NULL);
	if (!ret)
		ret = post_fork(&h, 0, NULL);
	if (!ret)
		ret = fini(&h, 0, NULL);
	return ret ? 1 : 0;
}
