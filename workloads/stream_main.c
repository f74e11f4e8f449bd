// SPDX-License-Identifier: MIT
/* rdmachaos-stream's entry point: parse the command line, run the chosen role. */
#include <stdio.h>

#include "common/log.h"
#include "workloads/stream.h"
#include "workloads/stream_out.h"

int main(int argc, char **argv)
{
	struct ws_opts o;
	char err[512];
	int ret;

	rc_log_init(argv[0], RC_LOG_INFO);
	ret = ws_parse_args(argc, argv, &o, err, sizeof(err));
	if (ret > 0)
		return 0;
	if (ret < 0) {
		rc_err("%s", err);
		return 2;
	}
	if (o.verbose)
		rc_log_init(argv[0], RC_LOG_DEBUG);
	ret = ws_signals_install();
	if (ret) {
		rc_err("sigaction failed");
		return 1;
	}
	ws_out_init(stdout, o.role == WS_ROLE_SERVER ? "server" : "client");
	return o.role == WS_ROLE_SERVER ? ws_server_run(&o) : ws_client_run(&o);
}
