// SPDX-License-Identifier: MIT
/* JSON line output of rdmachaos-stream (stdout contract of docs/PROTOCOL.md). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/units.h"
#include "workloads/stream_out.h"

static FILE *ws_out_file;
static const char *ws_out_role = "client";

void ws_out_init(FILE *f, const char *role)
{
	ws_out_file = f;
	ws_out_role = role;
}

json_t *ws_out_real(double v)
{
	return json_real(round(v * 1000.0) / 1000.0);
}

int ws_out_obj(const char *type, json_t *fields)
{
	FILE *f = ws_out_file ? ws_out_file : stdout;
	json_t *o;
	char *s;
	int ret = 0;

	o = json_pack("{s:s, s:I, s:s}", "type", type, "ts_ns", (json_int_t)rc_now_ns(), "role",
		      ws_out_role);
	if (!o) {
		json_decref(fields);
		return -ENOMEM;
	}
	if (fields) {
		json_object_update(o, fields);
		json_decref(fields);
	}
	/* 10 significant digits: 66.573, not 66.572999999999993. */
	s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (!s)
		return -ENOMEM;
	if (fputs(s, f) == EOF || fputc('\n', f) == EOF || fflush(f) == EOF)
		ret = -EIO;
	free(s);
	return ret;
}

int ws_out(const char *type, const char *fields, ...)
{
	json_error_t jerr;
	json_t *obj = NULL;
	va_list ap;

	if (fields) {
		va_start(ap, fields);
		obj = json_vpack_ex(&jerr, 0, fields, ap);
		va_end(ap);
		if (!obj) {
			/* A programming error: say so, but keep the line. */
			rc_err("output: %s line: %s", type, jerr.text);
			obj = json_object();
		}
	}
	return ws_out_obj(type, obj);
}

json_t *ws_out_interval_fields(int rail, const struct ws_interval *iv)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "rail", rail >= 0 ? json_integer(rail) : json_null());
	json_object_set_new(o, "bytes", json_integer((json_int_t)iv->bytes));
	json_object_set_new(o, "msgs", json_integer((json_int_t)iv->msgs));
	json_object_set_new(o, "mbps", ws_out_real(iv->mbps));
	json_object_set_new(o, "mbit_s", ws_out_real(iv->mbit_s));
	json_object_set_new(o, "lat_us_p50",
			    iv->have_lat ? ws_out_real(iv->lat_us_p50) : json_null());
	json_object_set_new(o, "lat_us_p99",
			    iv->have_lat ? ws_out_real(iv->lat_us_p99) : json_null());
	json_object_set_new(o, "interval_ms", ws_out_real((double)iv->elapsed_ns / 1e6));
	return o;
}
