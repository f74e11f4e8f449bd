// SPDX-License-Identifier: MIT
/* Error and action sentences, and JSON parameter checks shared by the injectors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <netlink/errno.h>

#include "common/shim_proto.h"
#include "injectors/inj_util.h"

int inj_fail(struct inj_fault *f, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return err;
}

void inj_action(struct inj_fault *f, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!f->actions)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(f->actions, json_string(buf));
}

int inj_params_known(const char *who, const json_t *params, const char *const *known, char *err,
		     size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(params)) {
		snprintf(err, errlen, "%s: params: must be a JSON object", who);
		return -EINVAL;
	}
	json_object_foreach((json_t *)params, key, v) {
		const char *const *k;
		char list[160] = "";
		size_t off = 0;

		for (k = known; *k; k++)
			if (!strcmp(*k, key))
				break;
		if (*k)
			continue;
		for (k = known; *k && off < sizeof(list); k++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						off ? ", " : "", *k);
		snprintf(err, errlen, "%s: params.%s: unknown parameter (%s takes %s)", who, key,
			 who, off ? list : "none");
		return -EINVAL;
	}
	return 0;
}

int inj_params_int(const char *who, const json_t *params, const char *key, bool required,
		   json_int_t min, json_int_t max, json_int_t def, json_int_t *out, char *err,
		   size_t errlen)
{
	const json_t *v = json_object_get(params, key);

	if (!v) {
		if (required) {
			snprintf(err, errlen, "%s: params.%s: missing (an integer in %lld..%lld)",
				 who, key, (long long)min, (long long)max);
			return -EINVAL;
		}
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
		snprintf(err, errlen, "%s: params.%s: must be an integer in %lld..%lld", who, key,
			 (long long)min, (long long)max);
		return -EINVAL;
	}
	*out = json_integer_value(v);
	return 0;
}

int inj_params_typed(const struct injector *inj, const json_t *params, json_int_t *vals, char *err,
		     size_t errlen)
{
	const char *known[16];
	unsigned int i;
	int ret;

	if (inj->nr_params >= sizeof(known) / sizeof(known[0]))
		return -E2BIG;
	for (i = 0; i < inj->nr_params; i++)
		known[i] = inj->params[i].wire;
	known[i] = NULL;
	ret = inj_params_known(inj->name, params, known, err, errlen);
	for (i = 0; !ret && i < inj->nr_params; i++) {
		const struct inj_param *p = &inj->params[i];

		ret = inj_params_int(inj->name, params, p->wire, p->required, (json_int_t)p->min,
				     (json_int_t)p->max, (json_int_t)p->def, &vals[i], err, errlen);
	}
	return ret;
}

int inj_nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_PERM:
		return -EPERM;
	case NLE_NODEV:
	case NLE_OBJ_NOTFOUND:
		return -ENODEV;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_INVAL:
	case NLE_RANGE:
		return -EINVAL;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_PROTO_MISMATCH:
	case NLE_AF_NOSUPPORT:
		return -EPROTONOSUPPORT;
	case NLE_AGAIN:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

int inj_shim_call(struct inj_fault *f, const char *sock, const struct shim_cmd *c, int timeout_ms,
		  const char *who, bool gone_ok, json_t **reply)
{
	char why[INJ_ERR_LEN];
	int ret;

	*reply = NULL;
	ret = shim_call(sock, c, timeout_ms, reply, why, sizeof(why));
	if (!ret || (ret == -ESRCH && gone_ok))
		return ret;
	return inj_fail(f, ret, "%s: %s", who, why);
}
