// SPDX-License-Identifier: MIT
/* `rdmachaos certs init|issue`: the private CA and per-identity certificates for mutual TLS. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>

#include "common/pki.h"
#include "coordinator/certs.h"
#include "coordinator/drill.h"

#define CERTS_CA_DAYS 3650
#define CERTS_LEAF_DAYS 825
#define CERTS_CA_CN "rdmachaos CA"

static void certs_usage(FILE *f)
{
	char dir[4096];

	certs_default_dir(dir, sizeof(dir));
	fprintf(
	    f,
	    "usage: rdmachaos certs init [--dir DIR] [--days N] [--force]\n"
	    "       rdmachaos certs issue NAME [--dir DIR] [--days N] [--san NAME,...] [--force]\n"
	    "\n"
	    "The private CA and the certificates of mutual TLS between the coordinator and its\n"
	    "agents (docs/PROTOCOL.md, \"Transport security\"). Keys are EC P-256; key files are\n"
	    "written with mode 0600, the directory with 0700.\n"
	    "\n"
	    "  init         DIR/ca.key and DIR/ca.crt: a new self-signed CA (default %d days)\n"
	    "  issue NAME   DIR/NAME.key and DIR/NAME.crt, signed by DIR's CA (default %d days),\n"
	    "               with CN=NAME and SAN DNS:NAME (IP:NAME for an address) plus every\n"
	    "               --san. Issue one per agent, named after its node (the agent's "
	    "--name),\n"
	    "               and one named \"coordinator\" for rdmachaos itself.\n"
	    "\n"
	    "options:\n"
	    "  --dir DIR        the PKI directory (default: $RDMACHAOS_TLS_DIR, else\n"
	    "                   ${XDG_CONFIG_HOME:-~/.config}/rdmachaos/pki; now %s)\n"
	    "  --days N         validity in days, 1..%d\n"
	    "  --san A,B,...    issue: more names, DNS names or IP addresses; repeatable\n"
	    "  --force          replace files that exist (a new CA invalidates every certificate)\n"
	    "  --expired        issue, for tests only: a certificate that expired yesterday\n"
	    "\n"
	    "example:\n"
	    "  rdmachaos certs init\n"
	    "  rdmachaos certs issue coordinator\n"
	    "  rdmachaos certs issue gpu01 --san gpu01.example.com,10.0.0.11\n"
	    "  # then on gpu01: DIR/ca.crt, gpu01.crt and gpu01.key in /etc/rdmachaos/pki, and\n"
	    "  #   rdmachaos-agent --name gpu01 --listen 0.0.0.0:7707 --tls-dir "
	    "/etc/rdmachaos/pki\n",
	    CERTS_CA_DAYS, CERTS_LEAF_DAYS, dir, RC_PKI_MAX_DAYS);
}

void certs_default_dir(char *buf, size_t len)
{
	const char *env = getenv("RDMACHAOS_TLS_DIR");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (xdg && *xdg == '/')
		snprintf(buf, len, "%s/rdmachaos/pki", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.config/rdmachaos/pki", home);
	else
		snprintf(buf, len, "pki");
}

/* mkdir -p; the last component (the PKI itself) 0700: it holds private keys. */
static int certs_mkdirs(const char *dir)
{
	char path[4096];
	char *p;

	if ((size_t)snprintf(path, sizeof(path), "%s", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static int certs_path(char *buf, size_t len, const char *dir, const char *name, const char *ext)
{
	if ((size_t)snprintf(buf, len, "%s/%s.%s", dir, name, ext) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool certs_name_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len > 63 || s[0] == '.' || s[0] == '-' || !strcmp(s, "ca"))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

static void certs_not_after(X509 *x, char *buf, size_t len)
{
	BIO *b = BIO_new(BIO_s_mem());
	int n;

	snprintf(buf, len, "?");
	if (b && ASN1_TIME_print(b, X509_get0_notAfter(x)) &&
	    (n = BIO_read(b, buf, (int)len - 1)) > 0)
		buf[n] = '\0';
	BIO_free(b);
}

struct certs_opts {
	const char *dir;
	int days;
	bool force;
	bool expired;
	const char *name;
	char san_buf[4096];
	struct rc_pki_cert cert;
};

/* Splits "a,b,c" (in o->san_buf, appended) into o->cert.sans. */
static int certs_add_sans(struct certs_opts *o, const char *arg)
{
	size_t used = 0;
	char *p, *save = NULL;

	while (used < sizeof(o->san_buf) && o->san_buf[used])
		used += strlen(o->san_buf + used) + 1;
	if (used + strlen(arg) + 2 > sizeof(o->san_buf))
		return -E2BIG;
	p = o->san_buf + used;
	strcpy(p, arg);
	p[strlen(arg) + 1] = '\0';
	for (p = strtok_r(p, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!rc_pki_san_ok(p)) {
			fprintf(
			    stderr,
			    "rdmachaos certs: --san '%s': want DNS names (letters, digits, '.', "
			    "'-', '_') or IP addresses, separated by commas\n",
			    p);
			return -EINVAL;
		}
		if (o->cert.nr_sans == RC_PKI_MAX_SANS - 1) {
			fprintf(stderr, "rdmachaos certs: --san: at most %d names\n",
				RC_PKI_MAX_SANS - 1);
			return -E2BIG;
		}
		o->cert.sans[o->cert.nr_sans++] = p;
	}
	return 0;
}

static bool certs_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int certs_init(struct certs_opts *o)
{
	char crt[4096], key[4096], err[512], when[64];
	struct rc_pki_cert c = {.cn = CERTS_CA_CN, .days = o->days ?: CERTS_CA_DAYS, .ca = true};
	EVP_PKEY *pk = NULL;
	X509 *x = NULL;
	int ret;

	if (certs_path(crt, sizeof(crt), o->dir, "ca", "crt") ||
	    certs_path(key, sizeof(key), o->dir, "ca", "key")) {
		fprintf(stderr, "rdmachaos certs: --dir %s: path too long\n", o->dir);
		return RC_EXIT_USAGE;
	}
	if (!o->force && (certs_exists(key) || certs_exists(crt))) {
		fprintf(stderr,
			"rdmachaos certs: %s already has a CA (%s); keep it, or pass --force to "
			"replace it (every certificate it signed stops working)\n",
			o->dir, certs_exists(key) ? key : crt);
		return RC_EXIT_FAIL;
	}
	ret = certs_mkdirs(o->dir);
	if (ret) {
		fprintf(stderr, "rdmachaos certs: %s: %s\n", o->dir, strerror(-ret));
		return RC_EXIT_FAIL;
	}
	pk = rc_pki_key_new();
	if (!pk) {
		fprintf(stderr, "rdmachaos certs: cannot make a key pair\n");
		ret = -ENOMEM;
		goto out;
	}
	ret = rc_pki_issue(&c, pk, NULL, pk, &x, err, sizeof(err));
	/* The key first: a certificate without its key would be a CA nobody can use. */
	if (!ret)
		ret = rc_pki_write_key(key, pk, err, sizeof(err));
	if (!ret)
		ret = rc_pki_write_cert(crt, x, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "rdmachaos certs: %s\n", err);
		goto out;
	}
	certs_not_after(x, when, sizeof(when));
	printf("certs: CA %s (key %s: keep it private), valid until %s\n", crt, key, when);
out:
	X509_free(x);
	EVP_PKEY_free(pk);
	return ret ? RC_EXIT_FAIL : 0;
}

static int certs_issue(struct certs_opts *o)
{
	char cacrt[4096], cakey[4096], crt[4096], key[4096], err[512], when[64];
	EVP_PKEY *ca_pk = NULL, *pk = NULL;
	X509 *ca = NULL, *x = NULL;
	unsigned int i;
	int ret;

	if (!certs_name_ok(o->name)) {
		fprintf(stderr,
			"rdmachaos certs issue: NAME '%s': use letters, digits, '.', '_' and '-' "
			"(at most 63, not \"ca\"), e.g. the agent's --name or \"coordinator\"\n",
			o->name);
		return RC_EXIT_USAGE;
	}
	if (certs_path(cacrt, sizeof(cacrt), o->dir, "ca", "crt") ||
	    certs_path(cakey, sizeof(cakey), o->dir, "ca", "key") ||
	    certs_path(crt, sizeof(crt), o->dir, o->name, "crt") ||
	    certs_path(key, sizeof(key), o->dir, o->name, "key")) {
		fprintf(stderr, "rdmachaos certs: --dir %s: path too long\n", o->dir);
		return RC_EXIT_USAGE;
	}
	if (!o->force && (certs_exists(crt) || certs_exists(key))) {
		fprintf(stderr, "rdmachaos certs: %s exists; pass --force to replace it\n",
			certs_exists(crt) ? crt : key);
		return RC_EXIT_FAIL;
	}
	if (!certs_exists(cakey)) {
		fprintf(stderr,
			"rdmachaos certs: %s: no CA key there; run `rdmachaos certs init --dir %s` "
			"first (with a CA of your own, issue with your own tools: see README.md)\n",
			cakey, o->dir);
		return RC_EXIT_FAIL;
	}
	ret = rc_pki_read_cert(cacrt, &ca, err, sizeof(err));
	if (!ret)
		ret = rc_pki_read_key(cakey, &ca_pk, err, sizeof(err));
	if (ret)
		goto fail;
	if (X509_check_private_key(ca, ca_pk) != 1) {
		snprintf(err, sizeof(err), "%.240s does not belong to %.240s", cakey, cacrt);
		ret = -EINVAL;
		goto fail;
	}
	o->cert.cn = o->name;
	o->cert.days = o->days ?: CERTS_LEAF_DAYS;
	o->cert.expired = o->expired;
	pk = rc_pki_key_new();
	if (!pk) {
		snprintf(err, sizeof(err), "cannot make a key pair");
		ret = -ENOMEM;
		goto fail;
	}
	ret = rc_pki_issue(&o->cert, pk, ca, ca_pk, &x, err, sizeof(err));
	if (!ret)
		ret = rc_pki_write_key(key, pk, err, sizeof(err));
	if (!ret)
		ret = rc_pki_write_cert(crt, x, err, sizeof(err));
	if (ret)
		goto fail;
	certs_not_after(x, when, sizeof(when));
	printf("certs: %s: %s and %s (CN=%s, DNS:%s", o->name, crt, key, o->name, o->name);
	for (i = 0; i < o->cert.nr_sans; i++)
		printf(", %s:%s", rc_pki_is_ip(o->cert.sans[i]) ? "IP" : "DNS", o->cert.sans[i]);
	printf("), %s %s\n", o->expired ? "EXPIRED (for tests) since" : "valid until", when);
	goto out;
fail:
	fprintf(stderr, "rdmachaos certs: %s\n", err);
out:
	X509_free(x);
	X509_free(ca);
	EVP_PKEY_free(pk);
	EVP_PKEY_free(ca_pk);
	return ret ? RC_EXIT_FAIL : 0;
}

int certs_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dir", required_argument, NULL, 'd'},
	    {"days", required_argument, NULL, 'n'},
	    {"san", required_argument, NULL, 's'},
	    {"force", no_argument, NULL, 'f'},
	    {"expired", no_argument, NULL, 'x'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static struct certs_opts o; /* large; one per process */
	char dir[4096];
	const char *sub;
	char *end;
	long days;
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		certs_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? RC_EXIT_USAGE : 0;
	}
	sub = argv[1];
	if (strcmp(sub, "init") && strcmp(sub, "issue")) {
		fprintf(stderr,
			"rdmachaos certs: unknown command '%s'; see rdmachaos certs --help\n", sub);
		return RC_EXIT_USAGE;
	}
	memset(&o, 0, sizeof(o));
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.dir = optarg;
			break;
		case 'n':
			errno = 0;
			days = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || days < 1 || days > RC_PKI_MAX_DAYS) {
				fprintf(stderr, "rdmachaos certs: --days '%s': want 1..%d\n",
					optarg, RC_PKI_MAX_DAYS);
				return RC_EXIT_USAGE;
			}
			o.days = (int)days;
			break;
		case 's':
			if (certs_add_sans(&o, optarg))
				return RC_EXIT_USAGE;
			break;
		case 'f':
			o.force = true;
			break;
		case 'x':
			o.expired = true;
			break;
		case 'h':
			certs_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "rdmachaos certs: see rdmachaos certs --help\n");
			return RC_EXIT_USAGE;
		}
	}
	if (!o.dir || !*o.dir) {
		certs_default_dir(dir, sizeof(dir));
		o.dir = dir;
	}
	if (!strcmp(sub, "init")) {
		if (optind != argc - 1 || o.cert.nr_sans || o.expired) {
			fprintf(stderr,
				"rdmachaos certs init: takes only --dir, --days and --force\n");
			return RC_EXIT_USAGE;
		}
		return certs_init(&o);
	}
	if (optind != argc - 2) {
		fprintf(stderr, "rdmachaos certs issue: want one NAME, e.g. rdmachaos certs issue "
				"node-a\n");
		return RC_EXIT_USAGE;
	}
	o.name = argv[optind + 1];
	return certs_issue(&o);
}
