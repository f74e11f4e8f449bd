/* SPDX-License-Identifier: MIT */
/*
 * The agent's crash-safe revert journal: one JSON file per fault in the
 * state directory (--state-dir), written durably before the injector's
 * inject() runs and removed durably once the fault's revert is verified. A
 * record still there at start-up belongs to an agent that died with its fault
 * applied (SIGKILL, a crash, an OOM kill): the agent replays it (rebuilds the
 * injector's state, reverts, verifies) before it serves anyone.
 *
 * Durability: a record is written to a hidden temporary file, fsynced,
 * renamed to its final name and the directory fsynced, so after a crash a
 * record is whole or absent, never half; closing one is an unlink followed by
 * a directory fsync. A temporary file left behind is a record that was never
 * committed, so its fault was never injected: start-up deletes it. A record
 * that cannot be read back is logged with its path and renamed to NAME.bad.
 *
 * The directory is locked (flock) for the agent's lifetime, so two agents
 * never replay (revert) each other's faults.
 */
#ifndef AGENT_JOURNAL_H
#define AGENT_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "injectors/injector.h"

#define AGENT_JOURNAL_DEFAULT_DIR "/var/lib/rdmachaos/journal"
#define AGENT_JOURNAL_FORMAT 1
#define AGENT_JOURNAL_PATH_LEN 4096
/* "fault-" + a fault id of <= 63 bytes, each escaped to at most 3, + ".json" */
#define AGENT_JOURNAL_NAME_LEN 256

struct agent_journal {
	int dir_fd; /* -1: no journal (unit tests that never start one) */
	char dir[AGENT_JOURNAL_PATH_LEN];
	uint64_t started_ns;	  /* this agent's start, CLOCK_MONOTONIC */
	uint64_t started_wall_ns; /* the same, CLOCK_REALTIME */
	char boot_id[40];	  /* /proc/sys/kernel/random/boot_id, "" if unknown */
};

/* An open record as read back: what the agent needs to rebuild and revert the fault. */
struct agent_journal_entry {
	char name[AGENT_JOURNAL_NAME_LEN]; /* file name in the directory */
	/*
	 * inj, id, target, params (owned: agent_journal_entry_fini drops it
	 * unless the caller took it), duration_ms, and injected_at_ns when the
	 * record is from this boot (else 0: another boot's clock means nothing).
	 */
	struct inj_fault f;
	const json_t *snapshot; /* the injector's, borrowed from rec */
	uint64_t lease_ms;	/* 0: none */
	bool same_boot;		/* written during this boot of the node */
	json_t *rec;		/* the whole record (owned) */
};

/* A journal that is off; agent_journal_start() turns it on. */
void agent_journal_init(struct agent_journal *j);
/*
 * Creates dir (and its parents, mode 0700) if needed, opens and locks it,
 * checks it is writable and deletes stale temporary files. 0, or -errno with
 * a sentence naming the directory in err.
 */
int agent_journal_start(struct agent_journal *j, const char *dir, char *err, size_t errlen);
void agent_journal_stop(struct agent_journal *j);
static inline bool agent_journal_on(const struct agent_journal *j)
{
	return j->dir_fd >= 0;
}

/* The file name of fault_id's record: "fault-ID.json", ID %-escaped outside [A-Za-z0-9._-]. */
void agent_journal_name(const char *fault_id, char *buf, size_t len);
/*
 * Writes f's record durably. -EEXIST when a record of that fault id is
 * already open (an earlier fault whose revert never verified: overwriting it
 * would lose its snapshot). 0, or -errno with a sentence in err; on error no
 * record of f is left.
 */
int agent_journal_write(struct agent_journal *j, const struct inj_fault *f, uint64_t lease_ms,
			char *err, size_t errlen);
/* Closes (durably removes) fault_id's record; 0 when there is none. -errno with a sentence. */
int agent_journal_close(struct agent_journal *j, const char *fault_id, char *err, size_t errlen);

/* Checks a record and fills e from it (e->rec is not set). -EINVAL with a sentence. */
int agent_journal_parse(const struct agent_journal *j, const json_t *rec,
			struct agent_journal_entry *e, char *err, size_t errlen);
void agent_journal_entry_fini(struct agent_journal_entry *e);

/*
 * Handles one open record at start-up. Returns 0 when it is dealt with
 * (closed, or deliberately left open), or -errno (a sentence in e->f.err)
 * when the record cannot be used, e.g. the injector refused its snapshot: it
 * is then set aside as NAME.bad like an unreadable one.
 */
typedef int (*agent_journal_replay_fn)(void *arg, struct agent_journal_entry *e);
/*
 * Calls fn for every open record, in name order; unreadable or invalid ones
 * are logged with their path and renamed to NAME.bad. The number of records
 * handed to fn, or -errno when the directory cannot be read.
 */
int agent_journal_replay(struct agent_journal *j, agent_journal_replay_fn fn, void *arg);

#endif
