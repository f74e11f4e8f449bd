// SPDX-License-Identifier: MIT
/* Keys and X.509 certificates of the rdmachaos PKI, built with libcrypto (common/pki.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "common/pki.h"

#define RC_PKI_SKEW_S 3600 /* notBefore an hour back: peers whose clocks lag still agree */

EVP_PKEY *rc_pki_key_new(void)
{
	return EVP_EC_gen("P-256");
}

bool rc_pki_is_ip(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

bool rc_pki_san_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len > 253)
		return false;
	if (rc_pki_is_ip(s))
		return true;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(".-_", s[i]))
			return false;
	return true;
}

static const char *rc_pki_ossl_reason(void)
{
	unsigned long e = ERR_get_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return r ? r : "unknown error";
}

static int rc_pki_ext(X509 *x, X509V3_CTX *v3, int nid, const char *value)
{
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, v3, nid, value);
	int ok = ext && X509_add_ext(x, ext, -1);

	X509_EXTENSION_free(ext);
	return ok ? 0 : -EINVAL;
}

/* A random positive 127-bit serial: unique without a serial file. */
static int rc_pki_serial(X509 *x)
{
	unsigned char raw[16];
	ASN1_INTEGER *ai;
	BIGNUM *bn;
	int ret = -ENOMEM;

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return -EIO;
	raw[0] &= 0x7f;
	raw[0] |= 0x40; /* full length, never zero */
	bn = BN_bin2bn(raw, sizeof(raw), NULL);
	ai = bn ? BN_to_ASN1_INTEGER(bn, NULL) : NULL;
	if (ai && X509_set_serialNumber(x, ai))
		ret = 0;
	ASN1_INTEGER_free(ai);
	BN_free(bn);
	return ret;
}

/* "DNS:node-a,DNS:node-a.example,IP:10.0.0.1": the cn first, then the extra names. */
static int rc_pki_san_value(const struct rc_pki_cert *c, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	off += (size_t)snprintf(buf, len, "%s:%s", rc_pki_is_ip(c->cn) ? "IP" : "DNS", c->cn);
	for (i = 0; i < c->nr_sans && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, ",%s:%s",
					rc_pki_is_ip(c->sans[i]) ? "IP" : "DNS", c->sans[i]);
	return off < len ? 0 : -E2BIG;
}

int rc_pki_issue(const struct rc_pki_cert *c, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
		 X509 **out, char *err, size_t errlen)
{
	long from = -RC_PKI_SKEW_S, to = (long)c->days * 86400;
	char san[RC_PKI_MAX_SANS * 260 + 260];
	X509V3_CTX v3;
	X509_NAME *name;
	X509 *x = NULL;
	unsigned int i;

	ERR_clear_error();
	if (!c->cn || !*c->cn || strlen(c->cn) > 64 || (!c->ca && !rc_pki_san_ok(c->cn))) {
		snprintf(err, errlen,
			 "'%s' is not a name for a certificate (letters, digits, '.', "
			 "'-', '_', or an IP address)",
			 c->cn ? c->cn : "");
		return -EINVAL;
	}
	for (i = 0; i < c->nr_sans; i++) {
		if (!rc_pki_san_ok(c->sans[i])) {
			snprintf(err, errlen,
				 "SAN '%s': want a DNS name (letters, digits, '.', '-', '_') or an "
				 "IP address",
				 c->sans[i]);
			return -EINVAL;
		}
	}
	if (!c->expired && (c->days < 1 || c->days > RC_PKI_MAX_DAYS)) {
		snprintf(err, errlen, "validity of %d days: want 1..%d", c->days, RC_PKI_MAX_DAYS);
		return -EINVAL;
	}
	if (c->nr_sans > RC_PKI_MAX_SANS || rc_pki_san_value(c, san, sizeof(san))) {
		snprintf(err, errlen, "too many SANs (at most %d)", RC_PKI_MAX_SANS);
		return -E2BIG;
	}
	if (c->expired) {
		from = -2 * 86400;
		to = -86400;
	}
	x = X509_new();
	if (!x || !X509_set_version(x, X509_VERSION_3) || rc_pki_serial(x) ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), from) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), to) || !X509_set_pubkey(x, key))
		goto ossl_fail;
	name = X509_get_subject_name(x);
	if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
					(const unsigned char *)"rdmachaos", -1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)c->cn, -1,
					-1, 0) ||
	    !X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name))
		goto ossl_fail;
	X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
	if (c->ca) {
		if (rc_pki_ext(x, &v3, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
		    rc_pki_ext(x, &v3, NID_key_usage, "critical,keyCertSign,cRLSign") ||
		    rc_pki_ext(x, &v3, NID_subject_key_identifier, "hash"))
			goto ossl_fail;
	} else {
		/* Both roles: one certificate per identity, whichever side of a connection it is.
		 */
		if (rc_pki_ext(x, &v3, NID_basic_constraints, "critical,CA:FALSE") ||
		    rc_pki_ext(x, &v3, NID_key_usage, "critical,digitalSignature") ||
		    rc_pki_ext(x, &v3, NID_ext_key_usage, "serverAuth,clientAuth") ||
		    rc_pki_ext(x, &v3, NID_subject_key_identifier, "hash") ||
		    rc_pki_ext(x, &v3, NID_authority_key_identifier, "keyid:always") ||
		    rc_pki_ext(x, &v3, NID_subject_alt_name, san))
			goto ossl_fail;
	}
	if (!X509_sign(x, issuer_key, EVP_sha256()))
		goto ossl_fail;
	*out = x;
	return 0;
ossl_fail:
	snprintf(err, errlen, "building the certificate of %s: %s", c->cn, rc_pki_ossl_reason());
	X509_free(x);
	return -EIO;
}

/* Writes through a temporary file in the same directory, then renames it over path. */
static int rc_pki_write(const char *path, mode_t mode, EVP_PKEY *key, X509 *cert, char *err,
			size_t errlen)
{
	char tmp[4096];
	FILE *f = NULL;
	int fd, ok, ret;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp); /* 0600 from the start: a key is never readable by others */
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	ERR_clear_error();
	ok =
	    key ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL) : PEM_write_X509(f, cert);
	if (!ok) {
		snprintf(err, errlen, "%s: %s", path, rc_pki_ossl_reason());
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	if (fflush(f) || fchmod(fileno(f), mode) || fsync(fileno(f))) {
		ret = -errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f)) {
		ret = -errno;
		goto fail;
	}
	if (rename(tmp, path)) {
		ret = -errno;
		goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	unlink(tmp);
	return ret;
}

int rc_pki_write_key(const char *path, EVP_PKEY *key, char *err, size_t errlen)
{
	return rc_pki_write(path, 0600, key, NULL, err, errlen);
}

int rc_pki_write_cert(const char *path, X509 *cert, char *err, size_t errlen)
{
	return rc_pki_write(path, 0644, NULL, cert, err, errlen);
}

static FILE *rc_pki_open(const char *path, int *ret, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		*ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	}
	return f;
}

int rc_pki_read_key(const char *path, EVP_PKEY **out, char *err, size_t errlen)
{
	FILE *f;
	int ret = 0;

	f = rc_pki_open(path, &ret, err, errlen);
	if (!f)
		return ret;
	ERR_clear_error();
	*out = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!*out) {
		snprintf(err, errlen, "%s: not a PEM private key (%s)", path, rc_pki_ossl_reason());
		return -EINVAL;
	}
	return 0;
}

int rc_pki_read_cert(const char *path, X509 **out, char *err, size_t errlen)
{
	FILE *f;
	int ret = 0;

	f = rc_pki_open(path, &ret, err, errlen);
	if (!f)
		return ret;
	ERR_clear_error();
	*out = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (!*out) {
		snprintf(err, errlen, "%s: not a PEM certificate (%s)", path, rc_pki_ossl_reason());
		return -EINVAL;
	}
	return 0;
}
