/* SPDX-License-Identifier: MIT */
/*
 * Inside mr_failure (injectors/mr_failure*.c), not for other modules: one ops
 * table per mechanism and the state they share. mr_failure.c reads the params,
 * picks the mechanism's table once (params.mechanism in prepare, the
 * snapshot's "mechanism" in restore), keeps it in struct mr_priv and calls
 * through it; mr_failure_cgroup.c, mr_failure_memlock.c and mr_failure_shim.c
 * each implement one table. A new mechanism is a new file, its table and its
 * keys in mr_failure.c's lists (mr_mechs, mr_params_all, mr_help), its
 * parameters and its state below.
 */
#ifndef RC_MR_FAILURE_MECH_H
#define RC_MR_FAILURE_MECH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "common/shim_proto.h"
#include "injectors/inj_rdmacg.h"
#include "injectors/injector.h"

#define MR_MAX_DEVS 16

struct mr_mech_ops;

/* Parameters, checked by validate() and read again by prepare(). */
struct mr_params {
	const struct mr_mech_ops *ops; /* params.mechanism's */
	/* cgroup */
	char device[INJ_RDMACG_DEV_LEN]; /* "": the target's, else every device */
	long long hca_object;		 /* -1: "current" */
	long long hca_handle;		 /* -1: "current", -2: not given */
	/* memlock */
	uint64_t bytes;
	/* shim */
	unsigned int count;
	double prob; /* 0: count instead */
	int err_no;
};

struct mr_dev {
	char name[INJ_RDMACG_DEV_LEN];
	char prior[INJ_RDMACG_LINE]; /* its exact rdma.max line before, "" when it had none */
	char limit[INJ_RDMACG_LINE]; /* what inject writes */
};

/* What revert and verify need, per mechanism: all of it goes into the snapshot. */
struct mr_cgroup {
	char rdma_max[300];
	unsigned int nr;
	struct mr_dev dev[MR_MAX_DEVS];
};

struct mr_memlock {
	int pid;
	unsigned long long starttime; /* /proc/PID/stat: the pid still names that process */
	struct rlimit prior, limit;
};

struct mr_shim {
	char sock[108];
	struct shim_cmd cmd;
};

/* f->priv: the mechanism chosen once, and its state (the member its ops use). */
struct mr_priv {
	const struct mr_mech_ops *ops;
	union {
		struct mr_cgroup cg;
		struct mr_memlock ml;
		struct mr_shim sh;
	};
};

/*
 * A mechanism. Each step returns 0 or -errno with a sentence in f->err, as
 * the injector's (injectors/injector.h); priv is f->priv, except in prepare
 * and restore, which fill a new one that becomes f->priv only on success.
 */
struct mr_mech_ops {
	const char *name;	 /* params.mechanism, and the snapshot's "mechanism" */
	const char *const *keys; /* the parameters it takes besides mechanism, NULL-terminated */
	/* Reads its keys of params (known to be its own) into p; -EINVAL with a sentence in err. */
	int (*parse)(const json_t *params, struct mr_params *p, char *err, size_t errlen);
	/* Resolves the workload target (known to be one) and records its prior state. */
	int (*prepare)(struct inj_fault *f, struct mr_priv *priv, const struct mr_params *p);
	int (*inject)(struct inj_fault *f, struct mr_priv *priv);
	int (*revert)(struct inj_fault *f, struct mr_priv *priv);
	int (*verify)(struct inj_fault *f, struct mr_priv *priv);
	/* Adds its fields to o, which holds "mechanism" (and "workload" for describe_prior). */
	void (*describe_prior)(const struct inj_fault *f, const struct mr_priv *priv, json_t *o);
	void (*snapshot)(const struct mr_priv *priv, json_t *o);
	/* Rebuilds its state from a snapshot, touching nothing: 0, or -EINVAL (no sentence). */
	int (*restore)(struct mr_priv *priv, const json_t *snap);
	/*
	 * 0 when what the restored state names is f's target's own (which the agent checked as
	 * its own before restore), else -EPERM with a sentence. A record is a file, and files
	 * can be forged: since revert writes to what it names, a snapshot may never name
	 * another file, socket or process.
	 */
	int (*owned)(struct inj_fault *f, const struct mr_priv *priv);
};

extern const struct mr_mech_ops mr_cgroup_ops, mr_memlock_ops, mr_shim_ops;

/* Writes a sentence into err and returns -EINVAL, for a refused parameter. */

/* Copies a string member of o of 1..len-1 bytes into buf; -EINVAL otherwise. */
int mr_snap_str(const json_t *o, const char *key, char *buf, size_t len);

#endif
