// SPDX-License-Identifier: MIT
/* The TLS flags of the commands that talk to agents (coordinator/cli_tls.h). */
#include <stdio.h>

#include "coordinator/cli_tls.h"
#include "coordinator/drill.h"

bool cli_tls_opt(int c, const char *arg, struct fleet_tls_opts *t)
{
	switch (c) {
	case CLI_OPT_TLS_DIR:
		t->dir = arg;
		return true;
	case CLI_OPT_TLS_CA:
		t->ca = arg;
		return true;
	case CLI_OPT_TLS_CERT:
		t->cert = arg;
		return true;
	case CLI_OPT_TLS_KEY:
		t->key = arg;
		return true;
	case CLI_OPT_INSECURE:
		t->insecure_plaintext = true;
		return true;
	default:
		return false;
	}
}

int cli_tls_check(const char *cmd, const struct fleet_tls_opts *t)
{
	if (t->insecure_plaintext && (t->dir || t->ca || t->cert || t->key)) {
		fprintf(stderr,
			"rdmachaos %s: --insecure-plaintext turns TLS off; drop it or the "
			"TLS flags\n",
			cmd);
		return RC_EXIT_USAGE;
	}
	fleet_tls_set(t);
	return 0;
}
