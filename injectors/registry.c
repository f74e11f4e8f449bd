// SPDX-License-Identifier: MIT
/* The table of injectors built from injectors.def, lookup by name, and what the coordinator reads
 * from it. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "injectors/injector.h"

const struct injector *const injectors[] = {
#define INJECTOR(name) &inj_##name,
#include "injectors/injectors.def"
#undef INJECTOR
    NULL,
};

const struct injector *injector_find(const char *name)
{
	const struct injector *const *i;

	for (i = injectors; *i; i++)
		if (!strcmp((*i)->name, name))
			return *i;
	return NULL;
}

void injectors_warm(void)
{
	const struct injector *const *i;
	char err[256];

	for (i = injectors; *i; i++) {
		err[0] = '\0';
		if ((*i)->warm && (*i)->warm(err, sizeof(err)))
			rc_warn("%s: warm-up failed (its first inject pays for it): %s", (*i)->name,
				err);
	}
}

const char *injector_names(void)
{
	static char names[256];
	const struct injector *const *i;
	size_t off = 0;

	if (names[0])
		return names;
	for (i = injectors; *i && off < sizeof(names); i++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
					i == injectors ? "" : (i[1] ? ", " : " or "), (*i)->name);
	return names;
}

void injector_refusal(const struct injector *inj, const char *msg, char *key, size_t keylen,
		      const char **body)
{
	size_t nlen = strlen(inj->name), k = 0;
	const char *p = msg;

	key[0] = '\0';
	*body = msg;
	if (strncmp(p, inj->name, nlen) || strncmp(p + nlen, ": params", 8))
		return;
	p += nlen + 8;
	if (!strncmp(p, ": ", 2)) {
		*body = p + 2;
		return;
	}
	if (*p++ != '.')
		return;
	while ((isalnum((unsigned char)p[k]) || p[k] == '_') && k + 1 < keylen)
		k++;
	if (!k || isalnum((unsigned char)p[k]) || p[k] == '_')
		return;
	memcpy(key, p, k);
	key[k] = '\0';
	if (!strncmp(p + k, ": ", 2))
		*body = p + k + 2;
}

const struct inj_param *injector_param_by_wire(const struct injector *inj, const char *wire)
{
	unsigned int i;

	for (i = 0; i < inj->nr_params; i++)
		if (!strcmp(inj->params[i].wire, wire))
			return &inj->params[i];
	return NULL;
}
