// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats.c - cb_taskstats: the kernel's accounting of every task that
 * exits, from taskstats' netlink interface, the ground truth for workloads
 * that do not record themselves (hackbench's 160 processes, matmul).
 *
 *   cb_taskstats -o FILE
 *
 * Registers for the exits on every CPU (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK),
 * prints "ready" on stdout, and writes one line per exiting task until
 * SIGTERM or SIGINT, then takes what is still queued and exits:
 *
 *   task TID TGID PPID COMM RUN_NS DELAY_NS SLICES ETIME_US TICK_RUN_NS
 *
 * RUN_NS is cpu_run_virtual_total, the task's sum_exec_runtime (schedstat's
 * first field), as of its last tick or switch; DELAY_NS cpu_delay_total
 * (run_delay, schedstat's second; zero unless the kernel booted with
 * delayacct); SLICES cpu_count. TICK_RUN_NS is cpu_run_real_total, which
 * despite its name is utime + stime, sampled by the tick: 4 ms grains.
 * A task's exit queues its message before its parent can reap it, so a
 * signal sent after the workload was reaped loses nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define GENL_ATTR(nlh) \
	((struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN))
#define NLA_DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))
#define NLA_NEXT(a) ((struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define NLA_OK(a, end)                                                      \
	((char *)(a) + NLA_HDRLEN <= (end) && (a)->nla_len >= NLA_HDRLEN && \
	 (char *)(a) + (a)->nla_len <= (end))

static char buf[1 << 16];

static void die(const char *what)
{
	fprintf(stderr, "cb_taskstats: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Sends one generic netlink request with one attribute. */
static void send_req(int fd, __u16 family, __u8 cmd, __u16 type,
		     const void *data, size_t len)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[256];
	} req;
	struct nlattr *a = (struct nlattr *)req.attrs;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = family;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_pid = getpid();
	req.g.cmd = cmd;
	req.g.version = 1;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(NLA_DATA(a), data, len);
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		die("sendto");
}

static __u16 family_id(int fd)
{
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct nlattr *a;
	ssize_t len;
	char *end;

	send_req(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		 TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0)
		die("recv");
	if (!NLMSG_OK(n, len) || n->nlmsg_type == NLMSG_ERROR) {
		errno = ENOENT;
		die("no TASKSTATS family (CONFIG_TASKSTATS?)");
	}
	end = (char *)n + n->nlmsg_len;
	for (a = GENL_ATTR(n); NLA_OK(a, end); a = NLA_NEXT(a))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(__u16 *)NLA_DATA(a);
	errno = ENOENT;
	die("no family id");
	return 0;
}

static void print_task(FILE *out, struct nlattr *aggr)
{
	char *end = (char *)aggr + aggr->nla_len;
	struct taskstats ts;
	struct nlattr *a;
	size_t len;

	for (a = NLA_DATA(aggr); NLA_OK(a, end); a = NLA_NEXT(a)) {
		if (a->nla_type != TASKSTATS_TYPE_STATS)
			continue;
		memset(&ts, 0, sizeof(ts));
		len = a->nla_len - NLA_HDRLEN;
		memcpy(&ts, NLA_DATA(a), len < sizeof(ts) ? len : sizeof(ts));
		ts.ac_comm[sizeof(ts.ac_comm) - 1] = 0;
		for (char *c = ts.ac_comm; *c; c++)
			if (*c == ' ')
				*c = '_';
		fprintf(out, "task %u %u %u %s %llu %llu %llu %llu %llu\n",
			ts.ac_pid, ts.ac_tgid, ts.ac_ppid,
			ts.ac_comm[0] ? ts.ac_comm : "-",
			(unsigned long long)ts.cpu_run_virtual_total,
			(unsigned long long)ts.cpu_delay_total,
			(unsigned long long)ts.cpu_count,
			(unsigned long long)ts.ac_etime,
			(unsigned long long)ts.cpu_run_real_total);
	}
}

/* Reads what is queued (all of it if @nowait), printing each task. */
static int drain(int fd, FILE *out, int nowait)
{
	for (;;) {
		ssize_t len =
			recv(fd, buf, sizeof(buf), nowait ? MSG_DONTWAIT : 0);
		struct nlmsghdr *n;

		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			if (errno == ENOBUFS) {
				fprintf(stderr,
					"cb_taskstats: exits lost (socket buffer full)\n");
				return -1;
			}
			die("recv");
		}
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len);
		     n = NLMSG_NEXT(n, len)) {
			char *end = (char *)n + n->nlmsg_len;
			struct nlattr *a;

			if (n->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(n);

				if (e->error) {
					errno = -e->error;
					die("register");
				}
				continue;
			}
			for (a = GENL_ATTR(n); NLA_OK(a, end); a = NLA_NEXT(a))
				if (a->nla_type == TASKSTATS_TYPE_AGGR_PID)
					print_task(out, a);
		}
		if (!nowait)
			return 0;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int fd, sfd, rcvbuf = 32 << 20, lost = 0;
	struct pollfd p[2];
	char cpus[32];
	sigset_t sigs;
	FILE *out;
	__u16 fam;

	if (argc != 3 || strcmp(argv[1], "-o")) {
		fprintf(stderr, "usage: cb_taskstats -o FILE\n");
		return 2;
	}
	out = fopen(argv[2], "w");
	if (!out)
		die(argv[2]);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, 0);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || sfd < 0)
		die("socket");
	/* 160 processes exit at once at the end of hackbench. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	me.nl_pid = getpid();
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)))
		die("bind");
	fam = family_id(fd);
	snprintf(cpus, sizeof(cpus), "0-%ld",
		 sysconf(_SC_NPROCESSORS_CONF) - 1);
	send_req(fd, fam, TASKSTATS_CMD_GET,
		 TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus, strlen(cpus) + 1);
	printf("ready\n");
	fflush(stdout);
	p[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll");
		if (p[1].revents)
			break;
		if (p[0].revents && drain(fd, out, 0))
			lost = 1;
	}
	if (drain(fd, out, 1))
		lost = 1;
	if (fclose(out))
		die(argv[2]);
	return lost;
}
