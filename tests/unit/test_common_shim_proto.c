// SPDX-License-Identifier: MIT
/*
 * The verbs shim's control protocol: command lines formatted and parsed back,
 * every parse error's sentence, the WC status / errno / QP state name tables,
 * and shim_call() against a fake shim (a SOCK_SEQPACKET server thread that
 * answers as told: a reply, a refusal, garbage, nothing, or a hang-up).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/shim_proto.h"

/* ---- format / parse ---- */

static void fmt_is(const struct shim_cmd *c, const char *want)
{
	char buf[SHIM_LINE_MAX];

	assert_int_equal(shim_cmd_format(c, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
}

static void test_format_each_op(void **state)
{
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_ALL}, "qp_error all");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_QPN, .qpn = 291},
	       "qp_error qpn=291");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_NEXT}, "qp_error next");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_FAIL_WR,
				  .count = 3,
				  .wc_status = IBV_WC_RETRY_EXC_ERR},
	       "fail_wr count=3 status=IBV_WC_RETRY_EXC_ERR");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_FAIL_MR, .mr_count = 2, .mr_errno = ENOMEM},
	       "fail_mr count=2 errno=ENOMEM");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_FAIL_MR, .mr_prob = 0.25, .mr_errno = 12},
	       "fail_mr prob=0.25 errno=ENOMEM");
	/* an errno the name table lacks goes as a number */
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_FAIL_MR, .mr_count = 1, .mr_errno = 200},
	       "fail_mr count=1 errno=200");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_CLEAR}, "clear");
	fmt_is(&(struct shim_cmd){.op = SHIM_OP_STATUS}, "status");
}

static void test_format_refuses(void **state)
{
	char buf[SHIM_LINE_MAX], tiny[6];

	assert_int_equal(
	    shim_cmd_format(
		&(struct shim_cmd){.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_QPN, .qpn = 0x1000000},
		buf, sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(&(struct shim_cmd){.op = SHIM_OP_FAIL_WR, .count = 0, .wc_status = 12},
			    buf, sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(
		&(struct shim_cmd){.op = SHIM_OP_FAIL_WR, .count = 1, .wc_status = IBV_WC_SUCCESS},
		buf, sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(&(struct shim_cmd){.op = SHIM_OP_FAIL_WR, .count = 1, .wc_status = 99},
			    buf, sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(&(struct shim_cmd){.op = SHIM_OP_FAIL_MR, .mr_count = 1, .mr_errno = 0},
			    buf, sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(
		&(struct shim_cmd){.op = SHIM_OP_FAIL_MR, .mr_prob = 1.5, .mr_errno = 12}, buf,
		sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(
		&(struct shim_cmd){.op = SHIM_OP_FAIL_MR, .mr_count = 0, .mr_errno = 12}, buf,
		sizeof(buf)),
	    -EINVAL);
	assert_int_equal(
	    shim_cmd_format(&(struct shim_cmd){.op = (enum shim_op)42}, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(shim_cmd_format(&(struct shim_cmd){.op = SHIM_OP_STATUS}, tiny, 6),
			 -ENOSPC);
}

static void test_round_trip(void **state)
{
	const struct shim_cmd cmds[] = {
	    {.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_ALL},
	    {.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_QPN, .qpn = 0},
	    {.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_QPN, .qpn = 0xffffff},
	    {.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_NEXT},
	    {.op = SHIM_OP_FAIL_WR, .count = 1, .wc_status = IBV_WC_WR_FLUSH_ERR},
	    {.op = SHIM_OP_FAIL_WR, .count = 2147483647, .wc_status = IBV_WC_TM_RNDV_INCOMPLETE},
	    {.op = SHIM_OP_FAIL_MR, .mr_count = 7, .mr_errno = EAGAIN},
	    {.op = SHIM_OP_FAIL_MR, .mr_prob = 0.1, .mr_errno = 4095},
	    {.op = SHIM_OP_FAIL_MR, .mr_prob = 1.0, .mr_errno = EFAULT},
	    {.op = SHIM_OP_CLEAR},
	    {.op = SHIM_OP_STATUS},
	};
	char buf[SHIM_LINE_MAX], err[256];
	struct shim_cmd back;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_true(shim_cmd_format(&cmds[i], buf, sizeof(buf)) > 0);
		assert_int_equal(shim_cmd_parse(buf, &back, err, sizeof(err)), 0);
		assert_int_equal(back.op, cmds[i].op);
		assert_int_equal(back.sel, cmds[i].sel);
		assert_int_equal(back.qpn, cmds[i].qpn);
		assert_int_equal(back.wc_status, cmds[i].wc_status);
		assert_int_equal(back.mr_errno, cmds[i].mr_errno);
		assert_true(back.mr_prob == cmds[i].mr_prob); /* %.17g is exact */
		if (cmds[i].op == SHIM_OP_FAIL_WR)
			assert_int_equal(back.count, cmds[i].count);
		if (cmds[i].op == SHIM_OP_FAIL_MR)
			assert_int_equal(back.mr_count, cmds[i].mr_prob ? 0 : cmds[i].mr_count);
	}
}

static void test_parse_accepts(void **state)
{
	struct shim_cmd c;
	char err[256];

	assert_int_equal(
	    shim_cmd_parse("fail_wr count=3 status=IBV_WC_RETRY_EXC_ERR\n", &c, err, sizeof(err)),
	    0);
	assert_int_equal(c.op, SHIM_OP_FAIL_WR);
	assert_int_equal(c.count, 3);
	assert_int_equal(c.wc_status, IBV_WC_RETRY_EXC_ERR);

	/* keys in any order, names in any case, with or without the prefix */
	assert_int_equal(
	    shim_cmd_parse("fail_wr status=rem_access_err count=9", &c, err, sizeof(err)), 0);
	assert_int_equal(c.wc_status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(c.count, 9);

	/* defaults */
	assert_int_equal(shim_cmd_parse("fail_wr", &c, err, sizeof(err)), 0);
	assert_int_equal(c.count, 1);
	assert_int_equal(c.wc_status, IBV_WC_RETRY_EXC_ERR);
	assert_int_equal(shim_cmd_parse("fail_mr", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mr_count, 1);
	assert_int_equal(c.mr_errno, ENOMEM);

	assert_int_equal(shim_cmd_parse("fail_mr prob=0.25 errno=12", &c, err, sizeof(err)), 0);
	assert_int_equal(c.op, SHIM_OP_FAIL_MR);
	assert_true(c.mr_prob == 0.25);
	assert_int_equal(c.mr_count, 0);
	assert_int_equal(c.mr_errno, ENOMEM);

	assert_int_equal(shim_cmd_parse("fail_mr errno=eagain count=2", &c, err, sizeof(err)), 0);
	assert_int_equal(c.mr_errno, EAGAIN);
	assert_int_equal(c.mr_count, 2);

	assert_int_equal(shim_cmd_parse("qp_error qpn=291", &c, err, sizeof(err)), 0);
	assert_int_equal(c.sel, SHIM_QP_QPN);
	assert_int_equal(c.qpn, 291);
	assert_int_equal(shim_cmd_parse("clear\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c.op, SHIM_OP_CLEAR);
	assert_int_equal(shim_cmd_parse("status", &c, err, sizeof(err)), 0);
	assert_int_equal(c.op, SHIM_OP_STATUS);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *line, *err;
	} cases[] = {
	    {"", "empty shim command"},
	    {"\n", "empty shim command"},
	    {"reboot",
	     "unknown shim command \"reboot\" (expected qp_error, fail_wr, fail_mr, clear "
	     "or status)"},
	    {"QP_ERROR all", "unknown shim command \"QP_ERROR\" (expected qp_error, fail_wr, "
			     "fail_mr, clear or status)"},
	    {" status", "shim command has an empty word (words are separated by one space)"},
	    {"qp_error  all", "shim command has an empty word (words are separated by one space)"},
	    {"status ", "shim command has an empty word (words are separated by one space)"},
	    {"fail_mr count=1 errno=1 prob=1 x", "shim command has too many words (at most 4)"},
	    {"status\tx", "shim command contains a control or non-ASCII byte at offset 6"},
	    {"status\r\n", "shim command contains a control or non-ASCII byte at offset 6"},
	    {"qp_error", "qp_error takes one argument: all, next or qpn=N"},
	    {"qp_error all next", "qp_error takes one argument: all, next or qpn=N"},
	    {"qp_error some", "qp_error: unknown argument \"some\" (expected all, next or qpn=N)"},
	    {"qp_error qpn=", "qp_error: qpn \"\" is not a QP number (0..16777215)"},
	    {"qp_error qpn=0x12", "qp_error: qpn \"0x12\" is not a QP number (0..16777215)"},
	    {"qp_error qpn=-1", "qp_error: qpn \"-1\" is not a QP number (0..16777215)"},
	    {"qp_error qpn=16777216",
	     "qp_error: qpn \"16777216\" is not a QP number (0..16777215)"},
	    {"fail_wr count=0", "fail_wr: count \"0\" is not an integer in 1..2147483647"},
	    {"fail_wr count=2147483648", "fail_wr: count \"2147483648\" is not an integer in "
					 "1..2147483647"},
	    {"fail_wr count=3x", "fail_wr: count \"3x\" is not an integer in 1..2147483647"},
	    {"fail_wr count=1 count=2", "fail_wr: count= given twice"},
	    {"fail_wr status=bogus", "fail_wr: status \"bogus\" is not a work completion status "
				     "(e.g. IBV_WC_RETRY_EXC_ERR)"},
	    {"fail_wr status=IBV_WC_SUCCESS", "fail_wr: status IBV_WC_SUCCESS is not a failure"},
	    {"fail_wr status=0", "fail_wr: status IBV_WC_SUCCESS is not a failure"},
	    {"fail_wr qpn=3", "fail_wr: unknown argument \"qpn=3\" (expected count=N or "
			      "status=NAME)"},
	    {"fail_wr 3", "fail_wr: unknown argument \"3\" (expected count=N or status=NAME)"},
	    {"fail_mr count=1 prob=0.5", "fail_mr: give count= or prob=, not both"},
	    {"fail_mr prob=0", "fail_mr: prob \"0\" is not a number in (0, 1]"},
	    {"fail_mr prob=1.01", "fail_mr: prob \"1.01\" is not a number in (0, 1]"},
	    {"fail_mr prob=nan", "fail_mr: prob \"nan\" is not a number in (0, 1]"},
	    {"fail_mr prob=", "fail_mr: prob \"\" is not a number in (0, 1]"},
	    {"fail_mr prob=0.5x", "fail_mr: prob \"0.5x\" is not a number in (0, 1]"},
	    {"fail_mr errno=EBOGUS",
	     "fail_mr: errno \"EBOGUS\" is not an errno name (e.g. ENOMEM) or "
	     "a number in 1..4095"},
	    {"fail_mr errno=0", "fail_mr: errno \"0\" is not an errno name (e.g. ENOMEM) or a "
				"number in 1..4095"},
	    {"fail_mr errno=4096",
	     "fail_mr: errno \"4096\" is not an errno name (e.g. ENOMEM) or a "
	     "number in 1..4095"},
	    {"fail_mr size=1", "fail_mr: unknown argument \"size=1\" (expected count=N, prob=P or "
			       "errno=E)"},
	    {"clear all", "clear takes no arguments"},
	    {"status now", "status takes no arguments"},
	};
	char err[256], long_line[SHIM_LINE_MAX + 8];
	struct shim_cmd c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		if (shim_cmd_parse(cases[i].line, &c, err, sizeof(err)) != -EINVAL)
			fail_msg("\"%s\" was accepted", cases[i].line);
		if (strcmp(err, cases[i].err))
			fail_msg("\"%s\": got \"%s\", want \"%s\"", cases[i].line, err,
				 cases[i].err);
	}
	assert_int_equal(shim_cmd_parse(NULL, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "empty shim command");
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	assert_int_equal(shim_cmd_parse(long_line, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "shim command is too long (at most 255 bytes)");
	/* a NULL error buffer is allowed */
	assert_int_equal(shim_cmd_parse("nope", &c, NULL, 0), -EINVAL);
}

/* ---- name tables ---- */

static void test_wc_status_names(void **state)
{
	int i;

	assert_int_equal(shim_wc_status_parse("IBV_WC_RETRY_EXC_ERR"), IBV_WC_RETRY_EXC_ERR);
	assert_int_equal(shim_wc_status_parse("retry_exc_err"), IBV_WC_RETRY_EXC_ERR);
	assert_int_equal(shim_wc_status_parse("Ibv_Wc_Wr_Flush_Err"), IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(shim_wc_status_parse("ibv_wc_success"), IBV_WC_SUCCESS);
	assert_int_equal(shim_wc_status_parse("5"), IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(shim_wc_status_parse("IBV_WC_"), -EINVAL);
	assert_int_equal(shim_wc_status_parse("RETRY"), -EINVAL);
	assert_int_equal(shim_wc_status_parse(""), -EINVAL);
	assert_int_equal(shim_wc_status_parse(NULL), -EINVAL);
	assert_int_equal(shim_wc_status_parse("24"), -EINVAL);
	assert_int_equal(shim_wc_status_parse("-1"), -EINVAL);
	assert_string_equal(shim_wc_status_name(IBV_WC_RETRY_EXC_ERR), "IBV_WC_RETRY_EXC_ERR");
	assert_string_equal(shim_wc_status_name(IBV_WC_TM_RNDV_INCOMPLETE),
			    "IBV_WC_TM_RNDV_INCOMPLETE");
	assert_null(shim_wc_status_name(-1));
	assert_null(shim_wc_status_name(IBV_WC_TM_RNDV_INCOMPLETE + 1));
	/* every value has a name that parses back, with and without its prefix */
	for (i = IBV_WC_SUCCESS; i <= IBV_WC_TM_RNDV_INCOMPLETE; i++) {
		assert_non_null(shim_wc_status_name(i));
		assert_int_equal(shim_wc_status_parse(shim_wc_status_name(i)), i);
		assert_int_equal(shim_wc_status_parse(shim_wc_status_name(i) + 7), i);
	}
}

static void test_errno_and_state_names(void **state)
{
	assert_int_equal(shim_errno_parse("ENOMEM"), ENOMEM);
	assert_int_equal(shim_errno_parse("enomem"), ENOMEM);
	assert_int_equal(shim_errno_parse("12"), 12);
	assert_int_equal(shim_errno_parse("EAGAIN"), EAGAIN);
	assert_int_equal(shim_errno_parse("0"), -EINVAL);
	assert_int_equal(shim_errno_parse("4096"), -EINVAL);
	assert_int_equal(shim_errno_parse("ENOPE"), -EINVAL);
	assert_int_equal(shim_errno_parse(""), -EINVAL);
	assert_string_equal(shim_errno_name(ENOMEM), "ENOMEM");
	assert_string_equal(shim_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_null(shim_errno_name(4000));
	assert_string_equal(shim_qp_state_name(IBV_QPS_RESET), "RESET");
	assert_string_equal(shim_qp_state_name(IBV_QPS_RTS), "RTS");
	assert_string_equal(shim_qp_state_name(IBV_QPS_ERR), "ERR");
	assert_string_equal(shim_qp_state_name(IBV_QPS_UNKNOWN), "UNKNOWN");
	assert_string_equal(shim_qp_state_name(-1), "UNKNOWN");
}

/* ---- shim_call against a fake shim ---- */

enum fake_mode { FAKE_REPLY, FAKE_SILENT, FAKE_HANGUP };

struct fake_shim {
	char dir[64], path[128];
	int lfd;
	enum fake_mode mode;
	const char *reply;
	char got[SHIM_LINE_MAX]; /* the datagram it received */
	pthread_t thread;
};

static void *fake_main(void *arg)
{
	struct fake_shim *s = arg;
	ssize_t n;
	int fd;

	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	n = recv(fd, s->got, sizeof(s->got) - 1, 0);
	s->got[n > 0 ? n : 0] = '\0';
	if (s->mode == FAKE_REPLY)
		send(fd, s->reply, strlen(s->reply), MSG_NOSIGNAL);
	else if (s->mode == FAKE_SILENT)
		usleep(400000); /* longer than the caller's timeout */
	close(fd);
	return NULL;
}

static struct fake_shim *fake_start(enum fake_mode mode, const char *reply)
{
	struct fake_shim *s = calloc(1, sizeof(*s));
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	assert_non_null(s);
	strcpy(s->dir, "/tmp/test-shim-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/wl.sock", s->dir);
	strcpy(sa.sun_path, s->path);
	s->lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s->lfd, 4), 0);
	s->mode = mode;
	s->reply = reply;
	assert_int_equal(pthread_create(&s->thread, NULL, fake_main, s), 0);
	return s;
}

static void fake_stop(struct fake_shim *s)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
	unlink(s->path);
	rmdir(s->dir);
}

static const struct shim_cmd status_cmd = {.op = SHIM_OP_STATUS};

static void test_call_ok(void **state)
{
	struct fake_shim *s = fake_start(FAKE_REPLY, "{\"ok\":true,\"op\":\"qp_error\","
						     "\"moved\":[291],\"qps\":[]}");
	const struct shim_cmd c = {.op = SHIM_OP_QP_ERROR, .sel = SHIM_QP_QPN, .qpn = 291};
	json_t *reply = NULL;
	char err[256] = "";

	assert_int_equal(shim_call(s->path, &c, 1000, &reply, err, sizeof(err)), 0);
	fake_stop(s);
	assert_string_equal(s->got, "qp_error qpn=291");
	assert_non_null(reply);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(reply, "moved"), 0)),
			 291);
	json_decref(reply);
	free(s);
}

static void test_call_refused_by_shim(void **state)
{
	struct fake_shim *s =
	    fake_start(FAKE_REPLY, "{\"ok\":false,\"errno\":2,\"error\":\"no QP with QPN 5\"}");
	json_t *reply = (json_t *)1;
	char err[256], want[256];

	/* the shim's errno is named, not returned: it is the workload's, not the agent's */
	assert_int_equal(shim_call(s->path, &status_cmd, 1000, &reply, err, sizeof(err)),
			 -EREMOTEIO);
	snprintf(want, sizeof(want),
		 "workload's shim at %s refused: no QP with QPN 5 (No such file or directory)",
		 s->path);
	fake_stop(s);
	free(s);
	assert_null(reply);
	assert_string_equal(err, want);

	/* ESRCH would read as "the process is gone" (a revert taken as done); a line break in
	 * its sentence would forge a line in the agent's log */
	s = fake_start(FAKE_REPLY, "{\"ok\":false,\"errno\":3,\"error\":\"gone\\nrdmachaos-agent: "
				   "info: forged\"}");
	reply = (json_t *)1;
	assert_int_equal(shim_call(s->path, &status_cmd, 1000, &reply, err, sizeof(err)),
			 -EREMOTEIO);
	snprintf(want, sizeof(want),
		 "workload's shim at %s refused: gone?rdmachaos-agent: info: forged (No such "
		 "process)",
		 s->path);
	fake_stop(s);
	free(s);
	assert_null(reply);
	assert_string_equal(err, want);

	/* no errno in the refusal (or a made-up one): the same code, and none named */
	s = fake_start(FAKE_REPLY, "{\"ok\":false,\"errno\":4294967298,\"error\":\"bad\"}");
	assert_int_equal(shim_call(s->path, &status_cmd, 1000, &reply, err, sizeof(err)),
			 -EREMOTEIO);
	assert_non_null(strstr(err, "refused: bad"));
	assert_null(strstr(err, "(")); /* no strerror of a number that is no errno */
	fake_stop(s);
	free(s);
}

static void test_call_gone(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[] = "/tmp/test-shim-XXXXXX", path[128], err[256], want[320];
	json_t *reply = (json_t *)1;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/wl.sock", dir);
	/* no socket file: the process never started one or is long gone */
	assert_int_equal(shim_call(path, &status_cmd, 500, &reply, err, sizeof(err)), -ESRCH);
	assert_null(reply);
	snprintf(want, sizeof(want),
		 "workload's shim at %s is not answering: No such file or directory (the process "
		 "has exited, or was started without the shim)",
		 path);
	assert_string_equal(err, want);

	/* a stale socket file that nobody listens on: ECONNREFUSED, the same answer */
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(shim_call(path, &status_cmd, 500, &reply, err, sizeof(err)), -ESRCH);
	snprintf(want, sizeof(want),
		 "workload's shim at %s is not answering: Connection refused (the process has "
		 "exited, or was started without the shim)",
		 path);
	assert_string_equal(err, want);
	unlink(path);
	rmdir(dir);
}

static void test_call_timeout(void **state)
{
	struct fake_shim *s = fake_start(FAKE_SILENT, NULL);
	json_t *reply = NULL;
	char err[256], want[320];

	assert_int_equal(shim_call(s->path, &status_cmd, 100, &reply, err, sizeof(err)),
			 -ETIMEDOUT);
	snprintf(want, sizeof(want),
		 "workload's shim at %s did not answer \"status\" within 100 ms", s->path);
	fake_stop(s);
	free(s);
	assert_null(reply);
	assert_string_equal(err, want);
}

static void test_call_bad_replies(void **state)
{
	static const struct {
		enum fake_mode mode;
		const char *reply, *err_tail;
	} cases[] = {
	    {FAKE_REPLY, "not json", "answered something that is not a JSON object: "},
	    {FAKE_REPLY, "[1,2]", "answered something that is not a JSON object: not an object"},
	    {FAKE_REPLY, "{\"op\":\"status\"}", "answered without a boolean \"ok\""},
	    {FAKE_HANGUP, NULL, "closed the connection without answering \"status\""},
	};
	char err[256], want[320];
	struct fake_shim *s;
	json_t *reply;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = fake_start(cases[i].mode, cases[i].reply);
		reply = NULL;
		assert_int_equal(shim_call(s->path, &status_cmd, 1000, &reply, err, sizeof(err)),
				 -EPROTO);
		snprintf(want, sizeof(want), "workload's shim at %s %s", s->path,
			 cases[i].err_tail);
		fake_stop(s);
		free(s);
		assert_null(reply);
		if (strncmp(err, want, strlen(want)))
			fail_msg("case %zu: got \"%s\", want \"%s...\"", i, err, want);
	}
}

static void test_call_bad_arguments(void **state)
{
	char err[256], path[200];
	json_t *reply;

	assert_int_equal(shim_call("", &status_cmd, 100, &reply, err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "shim_call: no shim socket given (start the workload with the shim)");
	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	assert_int_equal(shim_call(path, &status_cmd, 100, &reply, err, sizeof(err)),
			 -ENAMETOOLONG);
	assert_non_null(strstr(err, "is longer than 107 bytes"));
	assert_int_equal(shim_call("/tmp/x.sock",
				   &(struct shim_cmd){.op = SHIM_OP_FAIL_WR, .count = 0}, 100,
				   &reply, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "shim command cannot be formatted: a field is out of range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_each_op),
	    cmocka_unit_test(test_format_refuses),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_parse_accepts),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_wc_status_names),
	    cmocka_unit_test(test_errno_and_state_names),
	    cmocka_unit_test(test_call_ok),
	    cmocka_unit_test(test_call_refused_by_shim),
	    cmocka_unit_test(test_call_gone),
	    cmocka_unit_test(test_call_timeout),
	    cmocka_unit_test(test_call_bad_replies),
	    cmocka_unit_test(test_call_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
