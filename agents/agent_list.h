/* SPDX-License-Identifier: MIT */
/*
 * A minimal intrusive doubly linked list, kernel style: the agent keeps its
 * clients, faults, workloads and timers on these so unlinking is O(1) and
 * needs no allocation.
 */
#ifndef AGENT_LIST_H
#define AGENT_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct agent_list {
	struct agent_list *next, *prev;
};

#define agent_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define agent_list_entry(ptr, type, member) agent_container_of(ptr, type, member)

/* Iterates with a lookahead, so the body may unlink (not free others than) the current entry. */
#define agent_list_for_each_safe(pos, tmp, head)                                                   \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head);                           \
	     (pos) = (tmp), (tmp) = (pos)->next)

static inline void agent_list_init(struct agent_list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool agent_list_empty(const struct agent_list *h)
{
	return h->next == h;
}

/* Appends n before h, i.e. at the tail when h is the head. */
static inline void agent_list_add_tail(struct agent_list *n, struct agent_list *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Unlinks n and leaves it self-linked, so a second del is harmless. */
static inline void agent_list_del(struct agent_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	agent_list_init(n);
}

#endif
