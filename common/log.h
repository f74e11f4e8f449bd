/* SPDX-License-Identifier: MIT */
/*
 * Logging shared by every rdmachaos program: one line per message on stderr,
 * prefixed with the program name, so agent, coordinator and workload output
 * can be told apart when they are interleaved in a lab console.
 */
#ifndef RC_LOG_H
#define RC_LOG_H

enum rc_log_level { RC_LOG_ERR, RC_LOG_WARN, RC_LOG_INFO, RC_LOG_DEBUG };

/* Set once at start-up; not thread-safe to change later. */
void rc_log_init(const char *prog, enum rc_log_level level);
enum rc_log_level rc_log_get_level(void);

void rc_log(enum rc_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Called around every line rc_log() writes, e.g. to take a live status line
 * off the terminal and draw it again below the message. NULL: none.
 */
void rc_log_set_hooks(void (*before)(void), void (*after)(void));

#define rc_err(...) rc_log(RC_LOG_ERR, __VA_ARGS__)
#define rc_warn(...) rc_log(RC_LOG_WARN, __VA_ARGS__)
#define rc_info(...) rc_log(RC_LOG_INFO, __VA_ARGS__)
#define rc_dbg(...) rc_log(RC_LOG_DEBUG, __VA_ARGS__)

#endif
