// SPDX-License-Identifier: MIT
/* Stop requests for rdmachaos-stream: SIGINT/SIGTERM end the run cleanly, with a summary. */
#include <errno.h>
#include <string.h>

#include "workloads/stream.h"

volatile sig_atomic_t ws_stop_signal;

static void ws_on_signal(int sig)
{
	ws_stop_signal = sig;
}

int ws_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ws_on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL))
		return -errno;
	return 0;
}
