// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the scenario parser: each input is the bytes of a
 * scenario file, parsed from memory like scenario_load() does after reading
 * it. Besides what the sanitizers catch, it checks the parser's contract: a
 * refusal is -EINVAL/-ENOMEM with a message that names the file, and an
 * accepted scenario holds only values its checks allow.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/scenario.h"

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

static void check_accepted(const struct scenario *sc)
{
	unsigned int i;

	check_name(sc->name);
	if (sc->nr_nodes < 2 || sc->nr_nodes > SC_MAX_NODES || !sc->nodes)
		abort();
	for (i = 0; i < sc->nr_nodes; i++)
		check_name(sc->nodes[i].name);
	if (!scenario_node(sc, sc->workload.from) || !scenario_node(sc, sc->workload.to) ||
	    !strcmp(sc->workload.from, sc->workload.to))
		abort();
	if (!sc->workload.nr_rails || sc->workload.nr_rails > SC_MAX_RAILS)
		abort();
	if (sc->nr_faults < 1 || sc->nr_faults > SC_MAX_FAULTS)
		abort();
	for (i = 0; i < sc->nr_faults; i++) {
		const struct sc_fault *f = &sc->faults[i];

		check_name(f->name);
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
		check_accepted(sc);
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
	free(err);
	free(sc);
	return 0;
}
