/* SPDX-License-Identifier: MIT */
/*
 * The rdmachaos PKI's building blocks, on libcrypto: EC P-256 keys, a
 * self-signed CA and certificates it issues, and their PEM files (keys mode
 * 0600, written atomically). `rdmachaos certs` (coordinator/certs.c) is the
 * command line over them; the TLS unit tests make their certificates here too.
 */
#ifndef RC_PKI_H
#define RC_PKI_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#define RC_PKI_MAX_SANS 16
#define RC_PKI_MAX_DAYS 36500

struct rc_pki_cert {
	const char *cn;			   /* the identity (<= 64); also a leaf's first SAN */
	const char *sans[RC_PKI_MAX_SANS]; /* more SANs: DNS names or IP addresses */
	unsigned int nr_sans;
	int days;     /* valid from an hour ago (clock skew) to `days` days from now */
	bool expired; /* for tests: valid from 2 days ago to 1 day ago */
	bool ca;      /* a CA (keyCertSign, pathlen 0) instead of a TLS client+server leaf */
};

/* A new EC P-256 key pair, or NULL. */
EVP_PKEY *rc_pki_key_new(void);

/*
 * A certificate for key, signed by issuer_key; issuer NULL makes it
 * self-signed (issuer_key is then key's own). 0 or -errno with err set.
 */
int rc_pki_issue(const struct rc_pki_cert *c, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
		 X509 **out, char *err, size_t errlen);

/* PEM files, replaced atomically (a temporary file renamed): key 0600, certificate 0644. */
int rc_pki_write_key(const char *path, EVP_PKEY *key, char *err, size_t errlen);
int rc_pki_write_cert(const char *path, X509 *cert, char *err, size_t errlen);
int rc_pki_read_key(const char *path, EVP_PKEY **out, char *err, size_t errlen);
int rc_pki_read_cert(const char *path, X509 **out, char *err, size_t errlen);

/* A SAN entry we accept: an IPv4/IPv6 address or a DNS name of [A-Za-z0-9.-_]. */
bool rc_pki_san_ok(const char *s);
/* s is an IPv4 or IPv6 address literal. */
bool rc_pki_is_ip(const char *s);

#endif
