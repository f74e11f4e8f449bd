// SPDX-License-Identifier: MIT
/* The table of injectors built from injectors.def, and lookup by name. */
#include <string.h>

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
