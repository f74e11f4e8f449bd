// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the scenario parser: each input is the bytes of a
 * scenario file, parsed from memory like scenario_load() does after reading
 * it. Besides what the sanitizers catch, it checks the parser's contract: a
 * refusal is -EINVAL/-ENOMEM with a message that names the file, and an
 * accepted scenario holds only values its checks allow. The same bytes go
 * through scenario_check_text() (rdmachaos validate), with a small cap now
 * and then: it must agree with scenario_parse(), its first error must be the
 * one scenario_parse() reports, and every entry names the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/yamldoc.h"
#include "coordinator/fleetfile.h"
#include "coordinator/labenv.h"
#include "coordinator/scenario.h"
#include "coordinator/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz.yaml"

static void check_name(const char *s)
{
	if (!*s)
		abort();
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			abort();
}

/*
 * A drill that picks nodes by label (select:) is whole once bound to a fleet: the lab's, or
 * for a drill on real nodes eight nodes in four racks. A pick that cannot be made is refused
 * with the file's name; one that can leaves a drill that holds every invariant below.
 */
static bool bind_selects(struct scenario *sc, size_t size)
{
	struct fleetfile ff;
	char err[512];
	int ret;

	if (!sc->nr_selects)
		return true;
	if (labenv_fleet(sc->lab ? sc->lab_nodes : 8, &ff))
		abort();
	ret = sel_bind(sc, &ff, "fleet", size, err, sizeof(err));
	ff_free(&ff);
	if (ret && (ret != -EINVAL || strncmp(err, FZ_NAME ":", strlen(FZ_NAME) + 1)))
		abort();
	return !ret;
}

static void check_accepted(struct scenario *sc, size_t size)
{
	unsigned int i;

	if (!bind_selects(sc, size))
		return;
	check_name(sc->name);
	if (sc->nr_nodes < 2 || sc->nr_nodes > SC_MAX_NODES || !sc->nodes)
		abort();
	for (i = 0; i < sc->nr_nodes; i++)
		check_name(sc->nodes[i].name);
	/* a job's ends are its first and last rank: one rank (a launcher) is both */
	if (!scenario_node(sc, sc->workload.from) || !scenario_node(sc, sc->workload.to) ||
	    (!sc->workload.job && !strcmp(sc->workload.from, sc->workload.to)))
		abort();
	if (sc->workload.job) {
		const struct sc_job *j = sc->workload.job;

		if (!j->nr_ranks || j->nr_ranks > SC_JOB_MAX_RANKS || !j->nr_nodes)
			abort();
		/* a throughput from the output or from a job node's counter, never both */
		if (j->tp_counter[0] && (j->tp_regex[0] || !j->tp_node[0]))
			abort();
		for (i = 0; j->tp_counter[0] && i < j->nr_nodes && strcmp(j->nodes[i], j->tp_node);
		     i++)
			;
		if (j->tp_counter[0] && i == j->nr_nodes)
			abort();
	}
	if (!sc->workload.nr_rails || sc->workload.nr_rails > SC_MAX_RAILS)
		abort();
	if (sc->nr_faults < 1 || sc->nr_faults > SC_MAX_FAULTS)
		abort();
	for (i = 0; i < sc->nr_faults; i++) {
		const struct sc_fault *f = &sc->faults[i];

		/* a fault on a name that picked several nodes is one a node: NAME@NODE */
		if (sc->nr_selects && strchr(f->name, '@')) {
			char base[SC_NAME_LEN];

			snprintf(base, sizeof(base), "%s", f->name);
			*strchr(base, '@') = '\0';
			check_name(base);
			if (!strchr(f->name, '@')[1])
				abort();
		} else {
			check_name(f->name);
		}
		if (!json_is_object(f->params) || !scenario_node(sc, f->target.node))
			abort();
		/* only qp_error may last until the drill reverts it (a QP in error stays so) */
		if (f->at_ms < sc->warmup_ms + sc->baseline_ms ||
		    (!f->duration_ms && strcmp(f->injector, "qp_error")))
			abort();
	}
	if (!sc->expect.nr_signals || sc->expect.nr_signals > SC_MAX_SIGNALS)
		abort();
	if (!(sc->expect.recovery_ratio > 0 && sc->expect.recovery_ratio <= 1))
		abort();
}

/* scenario_check_text() agrees with scenario_parse()'s ret and first error err. */
static void check_diags(const uint8_t *data, size_t size, int ret, const char *err)
{
	struct yd_diags l = {.max = size % 5 == 1 ? 1 + size % 3 : 0};
	struct scenario *sc = malloc(sizeof(*sc));
	unsigned int i;
	int ret2;

	if (!sc)
		abort();
	ret2 = scenario_check_text(FZ_NAME, (const char *)data, size, sc, &l);
	if (ret2 != ret && ret != -ENOMEM && ret2 != -ENOMEM)
		abort();
	if (ret2 == 0) {
		if (l.nr_errors)
			abort();
		check_accepted(sc, size);
		scenario_free(sc);
	} else if (ret2 == -EINVAL) {
		/* the first entry found is the error scenario_parse() reports (err may be cut) */
		if (!l.nr_errors || !l.nr || l.v[0].severity != YD_ERROR ||
		    strncmp(l.v[0].text, err, strlen(err)))
			abort();
	}
	if (l.nr > (l.max ? l.max : YD_DIAGS_MAX) ||
	    l.nr + yd_diags_dropped(&l) != l.nr_errors + l.nr_warnings)
		abort();
	for (i = 0; i < l.nr; i++)
		if (strncmp(l.v[i].text, FZ_NAME, strlen(FZ_NAME)) || !l.v[i].msg ||
		    l.v[i].msg < l.v[i].text || l.v[i].msg > l.v[i].text + strlen(l.v[i].text))
			abort();
	yd_diags_sort(&l);
	for (i = 1; i < l.nr; i++)
		if (l.v[i].line < l.v[i - 1].line)
			abort();
	yd_diags_free(&l);
	free(sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario *sc = malloc(sizeof(*sc));
	/* A short message buffer now and then, exactly sized so ASan sees any overrun. */
	size_t errlen = size % 7 == 3 ? 1 + size % 48 : 512;
	char *err = malloc(errlen);
	int ret;

	if (!sc || !err)
		abort();
	ret = scenario_parse(FZ_NAME, (const char *)data, size, sc, err, errlen);
	if (ret == 0) {
		if (err[0])
			abort();
		check_accepted(sc, size);
		scenario_free(sc);
	} else if (ret == -EINVAL || ret == -ENOMEM) {
		/* Refusals name the file (as far as the buffer holds it). */
		if (strncmp(err, FZ_NAME,
			    errlen - 1 < strlen(FZ_NAME) ? errlen - 1 : strlen(FZ_NAME)))
			abort();
		if (memchr(err, '\0', errlen) == NULL)
			abort();
	} else {
		abort();
	}
	check_diags(data, size, ret, err);
	free(err);
	free(sc);
	return 0;
}
