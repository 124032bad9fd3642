// SPDX-License-Identifier: GPL-2.0
/*
 * trigger.c - mkm trigger: ask a flight recorder (mkm record --flight)
 * for a snapshot now, by its pid or by its output's name, with the signal
 * it takes for that (SIGUSR2, as perf record --switch-output=signal).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "messages.h"

const char trigger_usage[] =
	"usage: mkm trigger PID | FILE\n"
	"  a snapshot of the flight recorder with that pid, or writing FILE.1, FILE.2, ...";

/* A process's argv from /proc, NULs between; its length, 0 if gone. */
static size_t read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return (size_t)n;
}

/*
 * Whether argv is mkm record --flight, and if @out is given, writing
 * @out (-o FILE, -oFILE, --output FILE, --output=FILE).
 */
static bool is_flight_recorder(const char *argv, size_t len, const char *out)
{
	bool record = false, flight = false, named = !out;
	const char *prev = "";

	for (const char *a = argv; a < argv + len; a += strlen(a) + 1) {
		record |= !strcmp(a, "record");
		flight |= !strcmp(a, "--flight") || !strncmp(a, "--flight=", 9);
		if (out &&
		    ((!strcmp(prev, "-o") || !strcmp(prev, "--output")) &&
		     !strcmp(a, out)))
			named = true;
		if (out &&
		    ((!strncmp(a, "-o", 2) && !strcmp(a + 2, out)) ||
		     (!strncmp(a, "--output=", 9) && !strcmp(a + 9, out))))
			named = true;
		prev = a;
	}
	return record && flight && named;
}

/*
 * Whether @pid blocks or catches SIGUSR2 yet: until then, the signal
 * would kill it. The recorder does both; while it waits in sigtimedwait()
 * the signal shows as caught only.
 */
static bool takes_sigusr2(pid_t pid)
{
	char path[64], line[256];
	bool taken = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7) ||
		    !strncmp(line, "SigCgt:", 7))
			taken |= (strtoull(line + 7, NULL, 16) &
				  (1ull << (SIGUSR2 - 1))) != 0;
	fclose(f);
	return taken;
}

static int signal_recorder(pid_t pid)
{
	/* A recorder just started takes it within moments. */
	for (int i = 0; i < 100 && !takes_sigusr2(pid); i++)
		usleep(10000);
	if (!takes_sigusr2(pid))
		die("pid %d does not take SIGUSR2 yet: no snapshot asked",
		    (int)pid);
	if (kill(pid, SIGUSR2))
		die("pid %d: %s", (int)pid, strerror(errno));
	fprintf(stderr, "mkm: asked pid %d for a snapshot\n", (int)pid);
	return 0;
}

int cmd_trigger(int argc, char **argv)
{
	static char cmdline[65536];
	const char *arg = argc == 2 ? argv[1] : NULL;
	pid_t found = 0;
	size_t n;
	DIR *d;

	if (!arg || !strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		puts(trigger_usage);
		return arg ? 0 : 2;
	}
	if (strspn(arg, "0123456789") == strlen(arg)) {
		pid_t pid = (pid_t)atol(arg);

		n = read_cmdline(pid, cmdline, sizeof(cmdline));
		if (!n)
			die("pid %s: no such process", arg);
		if (!is_flight_recorder(cmdline, n, NULL))
			die("pid %s is not mkm record --flight: no snapshot to take",
			    arg);
		return signal_recorder(pid);
	}
	d = opendir("/proc");
	if (!d)
		die("/proc: %s", strerror(errno));
	for (struct dirent *e; (e = readdir(d));) {
		pid_t pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atol(e->d_name);
		n = read_cmdline(pid, cmdline, sizeof(cmdline));
		if (!n || !is_flight_recorder(cmdline, n, arg))
			continue;
		if (found)
			die("%s: more than one flight recorder writes it (pids %d and %d): give a pid",
			    arg, (int)found, (int)pid);
		found = pid;
	}
	closedir(d);
	if (!found)
		die("%s: no mkm record --flight -o %s runs here", arg, arg);
	return signal_recorder(found);
}
