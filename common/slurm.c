// SPDX-License-Identifier: MIT
/* Reading Slurm's scontrol --oneliner records (common/slurm.h). */
#include <errno.h>
#include <string.h>

#include "common/slurm.h"

static void slurm_copy(const char *s, size_t n, char *out, size_t outlen)
{
	if (!outlen)
		return;
	if (n > outlen - 1)
		n = outlen - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

int slurm_field(const char *line, size_t len, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key), i, e;

	if (outlen)
		out[0] = '\0';
	for (i = 0; i + klen < len; i++) {
		if (i && line[i - 1] != ' ')
			continue;
		if (memcmp(line + i, key, klen) || line[i + klen] != '=')
			continue;
		i += klen + 1;
		for (e = i; e < len && line[e] != ' ' && line[e] != '\n'; e++)
			;
		slurm_copy(line + i, e - i, out, outlen);
		return 0;
	}
	return -ENOENT;
}

void slurm_reason(const char *line, size_t len, char *out, size_t outlen)
{
	const char *r = NULL, *e, *b;
	size_t i;

	if (outlen)
		out[0] = '\0';
	for (i = 0; i + 8 <= len; i++)
		if ((!i || line[i - 1] == ' ') && !memcmp(line + i, "Reason=", 7)) {
			r = line + i + 7;
			break;
		}
	if (!r)
		return;
	e = memchr(r, '\n', (size_t)(line + len - r)) ?: line + len;
	while (e > r && e[-1] == ' ')
		e--;
	if (e > r && e[-1] == ']') {
		for (b = e - 1; b > r && *b != '['; b--)
			;
		if (*b == '[' && b > r && b[-1] == ' ')
			e = b - 1;
	}
	if ((size_t)(e - r) == 6 && !memcmp(r, "(null)", 6))
		return;
	slurm_copy(r, (size_t)(e - r), out, outlen);
}

bool slurm_state_has(const char *state, const char *flag)
{
	size_t flen = strlen(flag), n;
	bool prefix = flen && flag[flen - 1] == '*';
	const char *p = state;

	if (prefix)
		flen--;
	while (*p) {
		n = strcspn(p, "+");
		size_t m = n && p[n - 1] == '*' ? n - 1 : n; /* sinfo's "not responding" mark */

		if (prefix ? m >= flen && !memcmp(p, flag, flen)
			   : m == flen && !memcmp(p, flag, flen))
			return true;
		p += n;
		if (*p == '+')
			p++;
	}
	return false;
}

bool slurm_state_unschedulable(const char *state)
{
	static const char *const flags[] = {"DRAIN*",	      "DOWN",  "FAIL*",
					    "NOT_RESPONDING", "ERROR", NULL};
	unsigned int i;

	if (strchr(state, '*'))
		return true;
	for (i = 0; flags[i]; i++)
		if (slurm_state_has(state, flags[i]))
			return true;
	return false;
}
