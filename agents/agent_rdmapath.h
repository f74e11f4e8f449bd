/* SPDX-License-Identifier: MIT */
/*
 * The evidence that a job (a process tree or cgroup the agent started) rides
 * RDMA and not TCP: its processes, the QPs they own (RDMA netlink), its TCP
 * sockets with their byte counts (sock_diag) and the data counters of an RDMA
 * port. Pure data gathering, no events and no struct agent, so that the job
 * code can call it periodically.
 *
 * Everything read from /proc, /sys and the kernel is treated as hostile: counts
 * and sizes are capped, a process or thread that exits meanwhile is skipped
 * (ENOENT and ESRCH are not errors), and a name is checked before it becomes a
 * path. Each answer is a snapshot taken over several reads: a process may fork,
 * exit or have its pid reused between them. The /proc and /sys roots are
 * variables (agent_rp_set_roots) so that tests build fake trees.
 */
#ifndef AGENT_RDMAPATH_H
#define AGENT_RDMAPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_RP_MAX_PIDS 4096 /* processes in a job */
/* Threads whose children are read, /proc/PID/stat files, or cgroups, for one job. */
#define AGENT_RP_MAX_WALK 65536
#define AGENT_RP_MAX_CG_DEPTH 8	   /* cgroup levels below the job's own */
#define AGENT_RP_MAX_FDS (1 << 18) /* file descriptors looked at, over every process of a job */
#define AGENT_RP_MAX_SOCKS 65536   /* socket descriptors, over every process of a job */

/*
 * agent_rp_set_roots() - where /proc and /sys are (NULL: the real ones). The
 * strings are kept, not copied. For tests.
 */
void agent_rp_set_roots(const char *proc, const char *sys);

/* The job's thread-group ids (tgids), each once, in the order found. */
struct agent_rp_pids {
	int *pid;
	size_t n;
	bool truncated; /* past AGENT_RP_MAX_PIDS or AGENT_RP_MAX_WALK: the ones found first */
};

/*
 * agent_rp_job_pids() - the tgids of a job: every process in @cgroup_dir's
 * cgroup.procs and in those of the cgroups below it (up to
 * AGENT_RP_MAX_CG_DEPTH levels) when @cgroup_dir is non-empty; else @root_pid
 * and its descendants, from each thread's /proc/PID/task/TID/children, or,
 * on a kernel without them (CONFIG_PROC_CHILDREN), from the ppid in every
 * /proc/PID/stat. A descendant whose parent exited was reparented out of the
 * tree and is not found; a cgroup keeps it. A @root_pid that is gone gives
 * none and 0. out->pid is malloc()ed (agent_rp_pids_free()). Returns 0, or
 * -errno with a sentence in @err (-ENOENT: @cgroup_dir has no cgroup.procs).
 */
int agent_rp_job_pids(int root_pid, const char *cgroup_dir, struct agent_rp_pids *out, char *err,
		      size_t errlen);
void agent_rp_pids_free(struct agent_rp_pids *p);

/*
 * A job's processes that the agent did not start (ranks an mpirun or srun started through its
 * own launcher): every process whose environment holds AGENT_RP_TAG_ENV=@tag exactly, as the
 * coordinator sets it on the job and the launcher forwards it (mpirun -x). @tag is 1..63 of
 * [A-Za-z0-9._-]. Bounded like agent_rp_job_pids(); 0 (none found is not an error) or -errno.
 */
#define AGENT_RP_TAG_ENV "RDMACHAOS_JOB"
#define AGENT_RP_TAG_LEN 63
#define AGENT_RP_ENVIRON_MAX 65536
int agent_rp_tagged_pids(const char *tag, struct agent_rp_pids *out, char *err, size_t errlen);

struct agent_rp_qp {
	char device[64];
	uint32_t port; /* 0 when the QP is not bound to a port yet */
	uint32_t lqpn;
	int state; /* IB_QPS_*, -1 when the kernel does not say */
	int type;  /* IB_QPT_*: 2 RC, 3 UC, 4 UD, ...; -1 when the kernel does not say */
	int pid;   /* the job's tgid the QP was matched to */
};

/*
 * agent_rp_qps() - the QPs of every RDMA device (inj_rdma_nl_qps) owned by
 * @job. RDMA netlink names the thread that created a QP (UCX's async thread
 * creates them), so each QP's pid is mapped to its tgid through
 * /proc/PID/status "Tgid:" before it is compared. A QP whose creator has
 * exited has no pid in the dump and cannot be matched; neither can a kernel
 * QP. *@qps is malloc()ed (free(); NULL when none) and *@n set. Returns 0,
 * or -errno with a sentence in @err: -EPROTONOSUPPORT when the kernel has no
 * RDMA netlink (no RDMA support loaded).
 */
int agent_rp_qps(const struct agent_rp_pids *job, struct agent_rp_qp **qps, size_t *n, char *err,
		 size_t errlen);

struct agent_rp_tcp {
	char local[64], remote[64]; /* "ADDR:PORT", "[ADDR]:PORT" for IPv6; IPv4-mapped as IPv4 */
	uint64_t bytes_acked;	    /* tcp_info's tcpi_bytes_acked: sent and acknowledged */
	uint64_t bytes_received;    /* tcpi_bytes_received */
	int pid;		    /* the lowest of the job's tgids holding the socket */
};

/*
 * agent_rp_tcp() - the TCP sockets of @job that are not listening: the
 * socket inodes of each tgid's /proc/PID/fd links ("socket:[INODE]") matched
 * to a sock_diag dump (agent_rp_diag_dump). With @n_peers > 0, only the
 * sockets whose remote address is one of @peers (IPv4 or IPv6 addresses,
 * no port; "::ffff:10.0.0.2" is 10.0.0.2). The dump sees the agent's network
 * namespace only: a job in another one shows no sockets. *@socks is malloc()ed
 * (free(); NULL when none) and *@n set. Returns 0, or -errno with a sentence in
 * @err: -EINVAL for a peer that is not an address, -EACCES for a process whose
 * fds may not be read, -E2BIG past AGENT_RP_MAX_FDS or AGENT_RP_MAX_SOCKS, or
 * what opening NETLINK_SOCK_DIAG gave (-EPROTONOSUPPORT, -EPERM).
 */
int agent_rp_tcp(const struct agent_rp_pids *job, const char *const *peers, size_t n_peers,
		 struct agent_rp_tcp **socks, size_t *n, char *err, size_t errlen);

/*
 * The data counters of an RDMA port, for "bytes over RDMA". Bytes come from
 * counters/port_xmit_data and port_rcv_data (the IBTA PortCounters, in units
 * of 4 bytes, multiplied out here; without the extended counters they are 32
 * bits and stop at 4294967295, 16 GiB). Packets come from
 * counters/port_xmit_packets and port_rcv_packets, else from
 * hw_counters/sent_pkts and rcvd_pkts. Soft-RoCE (rxe) has no performance
 * MADs, so no counters/ folder (older kernels show one whose files read
 * "N/A (no PMA)"): only hw_counters, packets and no bytes. A pair is used
 * only when both of its files read as numbers.
 */
struct agent_rp_port {
	uint64_t tx_bytes, rx_bytes, tx_pkts, rx_pkts;
	bool has_bytes, has_pkts;
	const char *pkts_group; /* "counters" or "hw_counters": where the packets came from */
};

/*
 * agent_rp_port_counters() - @device's port @port under @sysfs_root
 * ("/sys/class/infiniband"; NULL or "": under the root agent_rp_set_roots
 * gave). @device must be a plain name: 1..63 of [A-Za-z0-9._-], not "." or
 * "..". Returns 0 with what was found in *@out, or -errno with a sentence in
 * @err: -EINVAL for a bad name, -ENODEV when the device or port is not there,
 * -ENODATA when it has neither bytes nor packets.
 */
int agent_rp_port_counters(const char *sysfs_root, const char *device, unsigned int port,
			   struct agent_rp_port *out, char *err, size_t errlen);

/*
 * The sock_diag dump agent_rp_tcp() matches sockets against, in a file of its
 * own (agents/agent_rdmapath_diag.c) so that tests replace it (-Wl,--wrap).
 */
struct agent_rp_ep {
	int family; /* AF_INET or AF_INET6; an IPv4-mapped IPv6 address is AF_INET */
	uint16_t port;
	unsigned char addr[16]; /* network order; 4 bytes for AF_INET */
};

struct agent_rp_diag {
	uint64_t inode; /* 0 for a socket without one (TIME_WAIT, SYN_RECV) */
	struct agent_rp_ep local, remote;
	uint64_t bytes_acked, bytes_received; /* 0 when the kernel's tcp_info is too short */
};

/*
 * agent_rp_diag_dump() - every TCP socket of this network namespace that is
 * not listening, IPv4 and IPv6 (NETLINK_SOCK_DIAG through libnl,
 * inet_diag_req_v2 with INET_DIAG_INFO), offered to @keep; those it keeps
 * (at most AGENT_RP_MAX_SOCKS, then -E2BIG) are in *@out, malloc()ed
 * (free(); NULL when none), their number in *@n. Returns 0, or -errno with a
 * sentence in @err.
 */
int agent_rp_diag_dump(bool (*keep)(const struct agent_rp_diag *d, void *arg), void *arg,
		       struct agent_rp_diag **out, size_t *n, char *err, size_t errlen);

#endif
