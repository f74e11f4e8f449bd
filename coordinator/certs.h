/* SPDX-License-Identifier: MIT */
/*
 * `rdmachaos certs`: the operator's private CA and the per-identity
 * certificates of mutual TLS between the coordinator and its agents, and
 * where they live by default.
 */
#ifndef RC_CERTS_H
#define RC_CERTS_H

#include <stddef.h>

/* argv[0] is "certs". Returns an exit code (0, 1 failure, 64 usage). */
int certs_main(int argc, char **argv);

/*
 * The default PKI directory: $RDMACHAOS_TLS_DIR, else
 * ${XDG_CONFIG_HOME:-$HOME/.config}/rdmachaos/pki, else ./pki without a home.
 */
void certs_default_dir(char *buf, size_t len);

#endif
