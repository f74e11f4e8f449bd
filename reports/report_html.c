// SPDX-License-Identifier: MIT
/*
 * report.html: the report JSON (docs/REPORT.md) as one self-contained page
 * (inline CSS, no script, nothing fetched) led by an SVG timeline of the
 * drill, followed by the same sections as report.md.
 *
 * The timeline is drawn so a test can find every mark in a screenshot: the
 * SVG is the first thing under a header of fixed height, 1 SVG unit is 1 CSS
 * pixel, its root states the scale (data-t0-ms, data-t1-ms, data-x0, data-x1)
 * and every mark carries its class and data-t-ms. The marks' colours are used
 * for nothing else in the drawing (only in the legend, below the lanes):
 *
 *   detection  #e6007e  line.mark.detection  at injected_ms + detection.ms
 *   isolation  #ff8000  line.mark.isolation  at injected_ms + isolation.ms
 *   recovery   #00b84a  line.mark.recovery   at injected_ms + recovery.ms
 *   fault      #ffd0d0  rect.fault-window.injected  injected_ms .. reverted_ms
 *   planned    #f0e2b0  rect.fault-window.planned   at_ms .. at_ms + duration_ms
 *
 * Output depends on the input alone (no clock, no host), so it can be diffed.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "reports/report_util.h"
#include "reports/report_walk.h"

/* ---- HTML text ---------------------------------------------------------- */

/* Text or attribute value, escaped; control characters become spaces. */
static void esc_raw(FILE *f, const char *s)
{
	const char *e;

	for (; s && *s; s++) {
		e = ru_entity((unsigned char)*s, "&#39;");
		if (e)
			fputs(e, f);
		else
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
	}
}

/* As esc_raw, "—" for nothing. */
static void esc(FILE *f, const char *s)
{
	if (!s || !*s)
		fputs(RU_DASH, f);
	else
		esc_raw(f, s);
}

/* A CSS class made from data: [a-z0-9_-] kept, anything else becomes '_'. */
static void css_class(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("unknown", f);
		return;
	}
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'
			  ? *s
			  : '_',
		      f);
}

/* A coordinate or time with one decimal, never "-0.0". */
static const char *f1(double v, char *buf, size_t len)
{
	if (fabs(v) < 0.05)
		v = 0;
	snprintf(buf, len, "%.1f", v);
	return buf;
}

/*
 * The sentences shared with report.md: data escaped, "—" for none. A macro, not a const
 * object, because rw_html's .prose and .cells are initialised with it too (a const object is
 * not a constant expression in C: gcc lets it pass, clang, which builds the fuzzers, does not).
 */
#define HTML_MARKUP                                                                                \
	{                                                                                          \
		esc, {"<li>", "</li>\n"}, {"<b class=\"bad\">", "</b>"},                           \
		{                                                                                  \
			"<code>", "</code>"                                                        \
		}                                                                                  \
	}
static const struct ru_markup html_markup = HTML_MARKUP;

/* <section id="ID"> and its heading. */
static void html_section(FILE *f, const char *id, const char *title)
{
	fputs("<section id=\"", f);
	esc_raw(f, id);
	fputs("\">\n<h2>", f);
	esc_raw(f, title);
	fputs("</h2>\n", f);
}

/* <table class="CLS"> and its row of header cells. */
static void html_table(FILE *f, const char *cls, const char *const *heads)
{
	size_t i;

	fputs("<table class=\"", f);
	css_class(f, cls);
	fputs("\">\n<tr>", f);
	for (i = 0; heads[i]; i++) {
		fputs("<th>", f);
		esc_raw(f, heads[i]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
}

static void html_cell(FILE *f, const char *cls)
{
	if (!cls) {
		fputs("<td>", f);
		return;
	}
	fputs("<td class=\"", f);
	css_class(f, cls);
	fputs("\">", f);
}

static void html_para_cls(FILE *f, const char *cls, const char *variant)
{
	fputs("<p class=\"", f);
	css_class(f, cls);
	fputs(" ", f);
	css_class(f, cls);
	fputs("-", f);
	css_class(f, variant);
	fputs("\">", f);
}

/* The result's word, in a cell the walker opened with the result's class. */
static void html_mark(FILE *f, enum ru_result res, const char *word)
{
	(void)res;
	esc(f, word);
}

static const struct rw_markup html_walk = {
    .prose = HTML_MARKUP,
    .cells = HTML_MARKUP,
    .section = html_section,
    .section_end = "</section>\n",
    .para = {"<p>", "</p>\n"},
    .bad_para = {"<p class=\"bad\">", "</p>\n"},
    .list = {"<ul>\n", "</ul>\n"},
    .em = {"<i>", "</i>"},
    .bold = {"<b>", "</b>"},
    .para_cls = html_para_cls,
    .table = html_table,
    .table_end = "</table>\n",
    .row = {"<tr>", "</tr>\n"},
    .cell = html_cell,
    .cell_end = "</td>",
    .mark = html_mark,
};

/* ---- the timeline ------------------------------------------------------- */

#define TL_W 1200      /* SVG width in CSS pixels */
#define TL_X0 120      /* plot from x = TL_X0 ... */
#define TL_X1 1180     /* ... to x = TL_X1 */
#define TL_FLAG_Y 6    /* first row of mark flags */
#define TL_FLAG_H 13   /* one row of flags; three rows above the plot */
#define TL_PLOT_Y0 48  /* throughput plot from y = TL_PLOT_Y0 ... */
#define TL_PLOT_Y1 248 /* ... to y = TL_PLOT_Y1 (0 MB/s) */
#define TL_LANE_Y0 276 /* first lane */
#define TL_LANE_H 26   /* height of one lane */
#define TL_LEGEND_COLS 5
#define TL_LEGEND_ROW 20
/* page layout, in CSS pixels: where the SVG's (0, 0) is (see the CSS) */
#define PAGE_TOP 80
#define PAGE_LEFT 16

#define C_DETECTION "#e6007e"
#define C_ISOLATION "#ff8000"
#define C_RECOVERY "#00b84a"
#define C_FAULT "#ffd0d0"
#define C_PLANNED "#f0e2b0"
#define C_THROUGHPUT "#1f5fbf"
#define C_BASELINE "#404040"
#define C_THRESHOLD "#8c8c8c"
#define C_GUARD "#b00020"

/* One category of lane mark: CSS class, colour, legend text. */
struct ev_cat {
	const char *cls;
	const char *colour;
	const char *legend;
};

enum {
	EVC_DOWN,
	EVC_UP,
	EVC_INJECT,
	EVC_REVERT,
	EVC_ERROR,
	EVC_RAIL_DOWN,
	EVC_FAILOVER,
	EVC_STALL,
	EVC_RESUME,
	EVC_PFC,
	EVC_LIFECYCLE,
	EVC_AGENT,
	EVC_GUARD,
	EVC_SCHED_OUT,
	EVC_SCHED_IN,
	EVC_SCHED_JOB,
	EVC_NR
};

static const struct ev_cat ev_cats[EVC_NR] = {
    [EVC_DOWN] = {"ev-down", "#d32f2f", "link/port down"},
    [EVC_UP] = {"ev-up", "#00897b", "link/port/rail up"},
    [EVC_INJECT] = {"ev-inject", "#212121", "fault injected"},
    [EVC_REVERT] = {"ev-revert", "#9e9e9e", "fault reverted"},
    [EVC_ERROR] = {"ev-error", "#8e24aa", "workload error"},
    [EVC_RAIL_DOWN] = {"ev-rail-down", "#bf360c", "workload rail down"},
    [EVC_FAILOVER] = {"ev-failover", "#283593", "failover/failback"},
    [EVC_STALL] = {"ev-stall", "#fbc02d", "workload stall"},
    [EVC_RESUME] = {"ev-resume", "#9e9d24", "workload resumed"},
    [EVC_PFC] = {"ev-pfc", "#5d4037", "PFC event"},
    [EVC_LIFECYCLE] = {"ev-lifecycle", "#b0bec5", "workload start/connect/exit"},
    [EVC_AGENT] = {"ev-agent", "#607d8b", "agent message"},
    [EVC_GUARD] = {"ev-guard", C_GUARD, "guard tripped"},
    [EVC_SCHED_OUT] = {"ev-sched-out", "#e65100", "Slurm: node out of service"},
    [EVC_SCHED_IN] = {"ev-sched-in", "#2e7d32", "Slurm: node back in service"},
    [EVC_SCHED_JOB] = {"ev-sched-job", "#6a1b9a", "Slurm: job state"},
};

struct tl;
static int tl_legend_cats(const struct tl *tl);

/* One throughput sample of the drill's workload. */
struct tl_pt {
	double t, mbps, interval;
	size_t idx; /* position in events, for a stable sort */
};

struct tl {
	double t0, t1; /* drawn span, ms; t0 < t1; lane events outside are not drawn */
	double step;   /* tick step, ms */
	double ymax;   /* MB/s at the top of the plot */
	struct tl_pt *pts;
	size_t nr_pts;
	const char **nodes; /* lane names, in order */
	size_t nr_nodes;
	size_t outside;	 /* lane events not drawn */
	bool guard_lane; /* a "coordinator" lane for guard trips */
	bool sched;	 /* the drill watched a scheduler: its lane's marks are in the legend */
	int lanes_bottom, height;
};

static double tl_x(const struct tl *tl, double t)
{
	return TL_X0 + (t - tl->t0) * (TL_X1 - TL_X0) / (tl->t1 - tl->t0);
}

static double tl_y(const struct tl *tl, double mbps)
{
	double y = TL_PLOT_Y1 - mbps * (TL_PLOT_Y1 - TL_PLOT_Y0) / tl->ymax;

	return y < TL_PLOT_Y0 ? TL_PLOT_Y0 : y > TL_PLOT_Y1 ? TL_PLOT_Y1 : y;
}

static bool ev_is(const json_t *e, const char *key, const char *want)
{
	const char *s = ru_str(e, key);

	return s && !strcmp(s, want);
}

/* Events without a wl_id predate guard flows and belong to the drill's workload. */
static bool ev_drill_interval(const json_t *e)
{
	const char *id = ru_str(e, "wl_id");

	return ev_is(e, "kind", "workload") && (!id || !strcmp(id, "stream")) &&
	       ev_is(e, "role", "client") && ev_is(e, "type", "interval");
}

static bool ev_has(const char *s, const char *part)
{
	return s && strstr(s, part);
}

/*
 * The lane category of a notable event, or -1 for the many that are not
 * drawn (counters, intervals, PFC frame counts, summaries).
 */
static int ev_category(const json_t *e)
{
	const char *kind = ru_str(e, "kind"), *type = ru_str(e, "type");

	if (!kind)
		return -1;
	if (!strcmp(kind, "link"))
		return json_is_true(ru_get(e, "up")) && !json_is_false(ru_get(e, "carrier"))
			   ? EVC_UP
			   : EVC_DOWN;
	if (!strcmp(kind, "port") || !strcmp(kind, "async")) {
		const char *ev = ru_str(e, "event"), *state = ru_str(e, "state");

		if (ev_has(ev, "ACTIVE") || (state && !strcmp(state, "ACTIVE")))
			return EVC_UP;
		if (!strcmp(kind, "async") && !ev_has(ev, "ERR") && !ev_has(ev, "FATAL") &&
		    !ev_has(ev, "DOWN"))
			return EVC_AGENT;
		return EVC_DOWN;
	}
	if (!strcmp(kind, "fault"))
		return ev_is(e, "action", "revert") ? EVC_REVERT : EVC_INJECT;
	if (!strcmp(kind, "pfc"))
		return type && strcmp(type, "rx") ? EVC_PFC : -1;
	if (!strcmp(kind, "agent"))
		return EVC_AGENT;
	if (!strcmp(kind, "scheduler_drain"))
		return EVC_SCHED_OUT;
	if (!strcmp(kind, "scheduler_resume"))
		return EVC_SCHED_IN;
	if (!strcmp(kind, "scheduler_job"))
		return EVC_SCHED_JOB;
	if (strcmp(kind, "workload") || !type)
		return -1;
	if (!strcmp(type, "error") || !strcmp(type, "mr_error"))
		return EVC_ERROR;
	if (!strcmp(type, "rail_down"))
		return EVC_RAIL_DOWN;
	if (!strcmp(type, "rail_up") || !strcmp(type, "mr_recovered"))
		return EVC_UP;
	if (!strcmp(type, "failover") || !strcmp(type, "failback"))
		return EVC_FAILOVER;
	if (!strcmp(type, "stall"))
		return EVC_STALL;
	if (!strcmp(type, "resume"))
		return EVC_RESUME;
	if (!strcmp(type, "ready") || !strcmp(type, "connected") || !strcmp(type, "exit"))
		return EVC_LIFECYCLE;
	return -1;
}

/* A one-line description of a lane event, for its tooltip. */
static void ev_describe(FILE *f, const json_t *e)
{
	static const char *const keys[] = {
	    "wl_id", "role", "type", "action", "fault_id", "ifname", "device", "event", "netdev",
	    "rail", "from_rail", "to_rail", "wc_status", "reason", "message", "text",
	    /* the scheduler's (its lane is "slurm": these say which node or job) */
	    "node", "state", "job_id", "nodes"};
	const char *kind = ru_str(e, "kind");
	size_t i, nr = sizeof(keys) / sizeof(keys[0]);

	esc_raw(f, kind ? kind : "?");
	if (strncmp(kind ?: "", "scheduler_", 10))
		nr -= 4;
	for (i = 0; i < nr; i++) {
		const json_t *v = ru_get(e, keys[i]);
		char *s;

		if (!v || json_is_null(v))
			continue;
		s = ru_compact(v);
		if (!s)
			continue;
		fputc(' ', f);
		esc_raw(f, keys[i]);
		fputc('=', f);
		esc_raw(f, s);
		free(s);
	}
	if (ev_is(e, "kind", "link"))
		fputs(json_is_true(ru_get(e, "up")) && !json_is_false(ru_get(e, "carrier"))
			  ? " up"
			  : " down",
		      f);
}

/* Every time the report itself places on the drill's clock. */
static void tl_report_times(const json_t *r, double *lo, double *hi, bool *any)
{
	const json_t *faults = ru_get(r, "faults"), *ft, *g, *w;
	static const char *const marks[] = {"detection.ms", "isolation.ms", "recovery.ms"};
	double v, at, dur, inj;
	size_t i, k;

#define SEE(x)                                                                                     \
	do {                                                                                       \
		double _x = (x);                                                                   \
		if (!*any || _x < *lo)                                                             \
			*lo = _x;                                                                  \
		if (!*any || _x > *hi)                                                             \
			*hi = _x;                                                                  \
		*any = true;                                                                       \
	} while (0)

	json_array_foreach(faults, i, ft) {
		if (ru_num(ft, "at_ms", &at)) {
			SEE(at);
			if (ru_num(ft, "duration_ms", &dur))
				SEE(at + dur);
		}
		if (ru_num(ft, "reverted_ms", &v))
			SEE(v);
		if (!ru_num(ft, "injected_ms", &inj))
			continue;
		SEE(inj);
		for (k = 0; k < sizeof(marks) / sizeof(marks[0]); k++)
			if (ru_num(ft, marks[k], &v))
				SEE(inj + v);
	}
	json_array_foreach(ru_get(r, "safety.guards"), i, g)
		if (json_is_true(ru_get(g, "tripped")) && ru_num(g, "tripped_ms", &v))
			SEE(v);
	json_array_foreach(ru_get(r, "workload.baseline.window_ms"), i, w)
		if (json_is_number(w))
			SEE(json_number_value(w));
#undef SEE
}

static int tl_pt_cmp(const void *a, const void *b)
{
	const struct tl_pt *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int tl_add_node(struct tl *tl, const char *name)
{
	const char **n;
	size_t i;

	for (i = 0; i < tl->nr_nodes; i++)
		if (!strcmp(tl->nodes[i], name))
			return 0;
	n = realloc(tl->nodes, (tl->nr_nodes + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	tl->nodes = n;
	tl->nodes[tl->nr_nodes++] = name;
	return 0;
}

static const char *ev_node(const json_t *e)
{
	const char *n = ru_str(e, "node");

	/* the scheduler's view has a lane of its own; its marks name the node they are about */
	if (!strncmp(ru_str(e, "kind") ?: "", "scheduler_", 10))
		return "slurm";

	return n && *n ? n : "(no node)";
}

/* A round step (1, 2, 5 x 10^k) that cuts span into at most max pieces. */
static double nice_step(double span, double max, double smallest)
{
	static const double m[] = {1, 2, 5};
	double step = smallest, decade = smallest;
	int i = 0;

	while (span / step > max && i < 60) {
		i++;
		if (i % 3 == 0)
			decade *= 10;
		step = m[i % 3] * decade;
	}
	return step;
}

/*
 * Decides the drawn span: the report's own times and the throughput samples
 * make the core; lane events up to a tenth of the span beyond it widen it,
 * any further out (a timestamp taken before the clocks were aligned) are
 * counted and left out, so one stray event cannot squash the drawing.
 */
static int tl_plan(struct tl *tl, const json_t *r, const json_t *events)
{
	const json_t *e, *n;
	double lo = 0, hi = 0, v, margin, peak = 0;
	bool any = false;
	size_t i;
	int ret;

	tl_report_times(r, &lo, &hi, &any);
	json_array_foreach(events, i, e) {
		if (!ev_drill_interval(e) || !ru_num(e, "t_ms", &v))
			continue;
		if (!any || v < lo)
			lo = v;
		if (!any || v > hi)
			hi = v;
		any = true;
	}
	if (!any || lo > 0)
		lo = 0;
	if (hi < lo + 1000)
		hi = lo + 1000;
	margin = (hi - lo) / 10 + 1000;
	tl->t0 = lo;
	tl->t1 = hi;
	json_array_foreach(events, i, e) {
		if (ev_category(e) < 0 || !ru_num(e, "t_ms", &v) || v < lo - margin ||
		    v > hi + margin)
			continue;
		if (v < tl->t0)
			tl->t0 = v;
		if (v > tl->t1)
			tl->t1 = v;
	}
	tl->step = nice_step(tl->t1 - tl->t0, 12, 100);
	tl->t0 = floor(tl->t0 / tl->step) * tl->step;
	tl->t1 = ceil(tl->t1 / tl->step) * tl->step;
	if (tl->t1 <= tl->t0)
		tl->t1 = tl->t0 + tl->step;

	/* lanes: the inventory's nodes first, then any other node in event order */
	json_array_foreach(ru_get(r, "environment.nodes"), i, n) {
		const char *name = ru_str(n, "name") ?: ru_str(n, "node");

		if (name && *name && (ret = tl_add_node(tl, name)))
			return ret;
	}
	json_array_foreach(events, i, e) {
		if (ev_category(e) < 0 || !ru_num(e, "t_ms", &v))
			continue;
		if (v < tl->t0 || v > tl->t1) {
			tl->outside++;
			continue;
		}
		if ((ret = tl_add_node(tl, ev_node(e))))
			return ret;
	}
	json_array_foreach(ru_get(r, "safety.guards"), i, n)
		if (json_is_true(ru_get(n, "tripped")) && ru_num(n, "tripped_ms", &v))
			tl->guard_lane = true;

	/* the drill's throughput, in time order */
	if (json_array_size(events)) {
		tl->pts = calloc(json_array_size(events), sizeof(*tl->pts));
		if (!tl->pts)
			return -ENOMEM;
	}
	json_array_foreach(events, i, e) {
		struct tl_pt *p = &tl->pts[tl->nr_pts];

		if (!ev_drill_interval(e) || !ru_num(e, "t_ms", &p->t) ||
		    !ru_num(e, "mbps", &p->mbps))
			continue;
		p->interval = 0;
		ru_num(e, "interval_ms", &p->interval);
		p->idx = i;
		if (p->mbps > peak)
			peak = p->mbps;
		tl->nr_pts++;
	}
	if (tl->nr_pts)
		qsort(tl->pts, tl->nr_pts, sizeof(*tl->pts), tl_pt_cmp);
	if (ru_num(r, "workload.baseline.throughput_mbps", &v) && v > peak)
		peak = v;
	if (!(peak > 0))
		peak = 1;
	v = nice_step(peak, 5, 0.1);
	tl->ymax = ceil(peak * 1.05 / v) * v;

	tl->sched = json_is_object(ru_get(r, "scheduler"));
	tl->lanes_bottom = TL_LANE_Y0 + TL_LANE_H * (int)(tl->nr_nodes + (tl->guard_lane ? 1 : 0));
	tl->height =
	    tl->lanes_bottom + 20 +
	    TL_LEGEND_ROW * ((8 + tl_legend_cats(tl) + TL_LEGEND_COLS - 1) / TL_LEGEND_COLS) + 8;
	return 0;
}

#define TL_MAX_TICKS 200

static void tl_axes(FILE *f, const struct tl *tl, const json_t *r)
{
	char b1[32], b2[32], b3[32];
	double t, mb, ystep = nice_step(tl->ymax, 5, 0.1);
	int decimals = tl->step >= 1000 ? 0 : 1, k;

	fputs("<g class=\"axes\">\n", f);
	/* horizontal grid with MB/s labels */
	/* at most TL_MAX_TICKS lines each way: a report with absurd values must not run away */
	for (k = 0, mb = 0; k < TL_MAX_TICKS && mb <= tl->ymax + ystep / 1000; k++, mb += ystep) {
		f1(tl_y(tl, mb), b1, sizeof(b1));
		fprintf(f,
			"<line class=\"grid\" x1=\"%d\" y1=\"%s\" x2=\"%d\" y2=\"%s\"/>"
			"<text class=\"ylabel\" x=\"%d\" y=\"%s\">%s</text>\n",
			TL_X0, b1, TL_X1, b1, TL_X0 - 6, f1(tl_y(tl, mb) + 4, b2, sizeof(b2)),
			f1(mb, b3, sizeof(b3)));
	}
	/* ticks every step, labelled in seconds */
	for (k = 0, t = tl->t0; k < TL_MAX_TICKS && t <= tl->t1 + tl->step / 1000;
	     k++, t += tl->step) {
		f1(tl_x(tl, t), b1, sizeof(b1));
		fprintf(f,
			"<line class=\"grid\" x1=\"%s\" y1=\"%d\" x2=\"%s\" y2=\"%d\"/>"
			"<line class=\"tick\" x1=\"%s\" y1=\"%d\" x2=\"%s\" y2=\"%d\"/>"
			"<text class=\"xlabel\" x=\"%s\" y=\"%d\" data-t-ms=\"%s\">%.*f s</text>\n",
			b1, TL_PLOT_Y0, b1, TL_PLOT_Y1, b1, TL_PLOT_Y1, b1, TL_PLOT_Y1 + 5, b1,
			TL_PLOT_Y1 + 18, f1(t, b2, sizeof(b2)), decimals,
			fabs(t) < 0.05 ? 0.0 : t / 1000);
	}
	fprintf(f, "<text class=\"ytitle\" x=\"%d\" y=\"%d\">", TL_X0 - 6, TL_PLOT_Y0 - 6);
	esc(f, ru_unit(r));
	fprintf(f,
		"</text>\n"
		"<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n</g>\n",
		TL_X0, TL_PLOT_Y0, TL_X1 - TL_X0, TL_PLOT_Y1 - TL_PLOT_Y0);
}

static void tl_windows(FILE *f, const struct tl *tl, const json_t *r)
{
	const json_t *ft;
	char b[4][32];
	size_t i;

	json_array_foreach(ru_get(r, "faults"), i, ft) {
		double from, to, dur;
		const char *state = "injected";

		if (ru_num(ft, "injected_ms", &from)) {
			if (!ru_num(ft, "reverted_ms", &to))
				to = tl->t1; /* never reverted: in force to the end */
		} else if (ru_num(ft, "at_ms", &from) && ru_num(ft, "duration_ms", &dur)) {
			to = from + dur;
			state = "planned";
		} else {
			continue;
		}
		if (to < from)
			to = from;
		fprintf(f, "<rect class=\"fault-window %s\" data-fault=\"", state);
		esc_raw(f, ru_str(ft, "id") ?: "");
		fprintf(f,
			"\" data-t-ms=\"%s\" data-t-end-ms=\"%s\" x=\"%s\" y=\"%d\" width=\"%s\" "
			"height=\"%d\"><title>",
			f1(from, b[0], sizeof(b[0])), f1(to, b[1], sizeof(b[1])),
			f1(tl_x(tl, from), b[2], sizeof(b[2])), TL_PLOT_Y0,
			f1(tl_x(tl, to) - tl_x(tl, from), b[3], sizeof(b[3])),
			tl->lanes_bottom - TL_PLOT_Y0);
		esc(f, ru_str(ft, "id"));
		fprintf(f, " %s %.3f s .. %.3f s</title></rect>\n", state, from / 1000, to / 1000);
		/* near the right edge, the label ends at the edge instead of running past it */
		if (tl_x(tl, from) > TL_X1 - 100)
			fprintf(f,
				"<text class=\"fault-label\" x=\"%d\" y=\"%d\" "
				"text-anchor=\"end\">",
				TL_X1 - 4, TL_PLOT_Y0 + 13);
		else
			fprintf(f, "<text class=\"fault-label\" x=\"%s\" y=\"%d\">",
				f1(tl_x(tl, from) + 4, b[0], sizeof(b[0])), TL_PLOT_Y0 + 13);
		esc(f, ru_str(ft, "id"));
		fputs("</text>\n", f);
	}
}

static void tl_levels(FILE *f, const struct tl *tl, const json_t *r)
{
	char b1[32], b2[32];
	double base, ratio;

	if (!ru_num(r, "workload.baseline.throughput_mbps", &base))
		return;
	fprintf(f,
		"<line class=\"baseline\" data-mbps=\"%s\" x1=\"%d\" y1=\"%s\" x2=\"%d\" "
		"y2=\"%s\"><title>baseline %.3f ",
		f1(base, b1, sizeof(b1)), TL_X0, f1(tl_y(tl, base), b2, sizeof(b2)), TL_X1, b2,
		base);
	esc(f, ru_unit(r));
	fputs("</title></line>\n", f);
	if (!ru_num(r, "expect.recovery.throughput_ratio", &ratio))
		return;
	fprintf(f,
		"<line class=\"threshold\" data-mbps=\"%s\" x1=\"%d\" y1=\"%s\" x2=\"%d\" "
		"y2=\"%s\"><title>recovered above %.0f%% of the baseline</title></line>\n",
		f1(base * ratio, b1, sizeof(b1)), TL_X0, f1(tl_y(tl, base * ratio), b2, sizeof(b2)),
		TL_X1, b2, ratio * 100);
}

/* The throughput as polylines, broken where samples stop coming (a stall, a gap). */
static void tl_throughput(FILE *f, const struct tl *tl)
{
	char b1[32], b2[32];
	size_t i, n = 0;

	for (i = 0; i < tl->nr_pts; i++) {
		const struct tl_pt *p = &tl->pts[i];
		bool gap = i && p->t - tl->pts[i - 1].t > fmax(2000, 3 * p->interval);

		if (gap && n) {
			fputs("\"/>\n", f);
			n = 0;
		}
		if (!n)
			fputs("<polyline class=\"throughput\" data-wl-id=\"stream\" points=\"", f);
		else
			fputc(n % 8 ? ' ' : '\n', f);
		fprintf(f, "%s,%s", f1(tl_x(tl, p->t), b1, sizeof(b1)),
			f1(tl_y(tl, p->mbps), b2, sizeof(b2)));
		n++;
	}
	if (n)
		fputs("\"/>\n", f);
}

static const char *const mark_names[] = {"detection", "isolation", "recovery"};
static const char *const mark_letters[] = {"D", "I", "R"};

static void tl_marks(FILE *f, const struct tl *tl, const json_t *r)
{
	const json_t *ft, *g;
	char b[3][32];
	size_t i, k;
	double v;

	json_array_foreach(ru_get(r, "faults"), i, ft) {
		double inj, ms;

		if (!ru_num(ft, "injected_ms", &inj))
			continue;
		for (k = 0; k < 3; k++) {
			const json_t *m = ru_get(ft, mark_names[k]);
			int flag = TL_FLAG_Y + (int)k * TL_FLAG_H;
			const char *x;

			if (!ru_num(m, "ms", &ms))
				continue;
			x = f1(tl_x(tl, inj + ms), b[0], sizeof(b[0]));
			fprintf(f, "<line class=\"mark %s\" data-fault=\"", mark_names[k]);
			esc_raw(f, ru_str(ft, "id") ?: "");
			fprintf(
			    f,
			    "\" data-t-ms=\"%s\" x1=\"%s\" y1=\"%d\" x2=\"%s\" y2=\"%d\"><title>",
			    f1(inj + ms, b[1], sizeof(b[1])), x, flag, x, TL_PLOT_Y1);
			esc(f, ru_str(ft, "id"));
			fprintf(f, ": %s %s after the injection", mark_names[k],
				ru_fmt_ms(ms, b[2], sizeof(b[2])));
			if (ru_str(m, "signal")) {
				fputs(" (", f);
				esc_raw(f, ru_str(m, "signal"));
				fputc(')', f);
			}
			fprintf(f,
				"</title></line>\n<rect class=\"flag %s\" x=\"%s\" y=\"%d\" "
				"width=\"12\" height=\"%d\"/><text class=\"flag-letter\" x=\"%s\" "
				"y=\"%d\">%s</text>\n",
				mark_names[k], f1(tl_x(tl, inj + ms) - 6, b[1], sizeof(b[1])), flag,
				TL_FLAG_H - 1, x, flag + 10, mark_letters[k]);
		}
	}
	json_array_foreach(ru_get(r, "safety.guards"), i, g) {
		if (!json_is_true(ru_get(g, "tripped")) || !ru_num(g, "tripped_ms", &v))
			continue;
		f1(tl_x(tl, v), b[0], sizeof(b[0]));
		fprintf(f,
			"<line class=\"guard-trip\" data-guard=\"%zu\" data-t-ms=\"%s\" x1=\"%s\" "
			"y1=\"%d\" x2=\"%s\" y2=\"%d\"><title>guard %zu tripped: ",
			i, f1(v, b[1], sizeof(b[1])), b[0], TL_PLOT_Y0, b[0], TL_PLOT_Y1, i);
		esc(f, ru_str(g, "description"));
		fputs("</title></line>\n", f);
	}
}

static void tl_lane_mark(FILE *f, const struct tl *tl, int cat, double t, int lane,
			 const char *node)
{
	char b1[32], b2[32];

	fprintf(f, "<rect class=\"ev %s\" data-node=\"", ev_cats[cat].cls);
	esc_raw(f, node);
	fprintf(f, "\" data-t-ms=\"%s\" x=\"%s\" y=\"%d\" width=\"5\" height=\"16\"><title>%.3f s ",
		f1(t, b1, sizeof(b1)), f1(tl_x(tl, t) - 2.5, b2, sizeof(b2)),
		TL_LANE_Y0 + lane * TL_LANE_H + (TL_LANE_H - 16) / 2, t / 1000);
	esc_raw(f, node);
	fputc(' ', f);
}

static void tl_lanes(FILE *f, const struct tl *tl, const json_t *r, const json_t *events)
{
	const json_t *e, *g;
	size_t i, n, nr = tl->nr_nodes + (tl->guard_lane ? 1 : 0);
	double t;

	for (n = 0; n < nr; n++) {
		int y = TL_LANE_Y0 + (int)n * TL_LANE_H;

		fprintf(f, "<text class=\"lane-label\" x=\"%d\" y=\"%d\">", TL_X0 - 6,
			y + TL_LANE_H / 2 + 4);
		esc(f, n < tl->nr_nodes ? tl->nodes[n] : "coordinator");
		fprintf(f,
			"</text><line class=\"lane-line\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
			"y2=\"%d\"/>\n",
			TL_X0, y + TL_LANE_H, TL_X1, y + TL_LANE_H);
	}
	json_array_foreach(events, i, e) {
		int cat = ev_category(e);
		const char *node;

		if (cat < 0 || !ru_num(e, "t_ms", &t) || t < tl->t0 || t > tl->t1)
			continue;
		node = ev_node(e);
		for (n = 0; n < tl->nr_nodes; n++)
			if (!strcmp(tl->nodes[n], node))
				break;
		tl_lane_mark(f, tl, cat, t, (int)n, node);
		ev_describe(f, e);
		fputs("</title></rect>\n", f);
	}
	/* a job's restarts (restarts.max), on the lane of the node whose rank's exit made them due
	 */
	json_array_foreach(ru_get(r, "job.restarts"), i, g) {
		const char *node = ru_str(g, "node") ?: "?";

		if (!ru_num(g, "restart_ms", &t) || t < tl->t0 || t > tl->t1)
			continue;
		for (n = 0; n < tl->nr_nodes; n++)
			if (!strcmp(tl->nodes[n], node))
				break;
		tl_lane_mark(f, tl, EVC_LIFECYCLE, t, (int)n, node);
		fprintf(f, "job restart %zu: every rank started again", i + 1);
		fputs("</title></rect>\n", f);
	}
	json_array_foreach(ru_get(r, "safety.guards"), i, g) {
		if (!json_is_true(ru_get(g, "tripped")) || !ru_num(g, "tripped_ms", &t))
			continue;
		tl_lane_mark(f, tl, EVC_GUARD, t, (int)tl->nr_nodes, "coordinator");
		fprintf(f, "guard %zu tripped: ", i);
		esc(f, ru_str(g, "description"));
		fputs("</title></rect>\n", f);
	}
}

static void tl_legend_item(FILE *f, int *slot, int y0, const char *cls, const char *text)
{
	int x = TL_X0 + (*slot % TL_LEGEND_COLS) * ((TL_X1 - TL_X0) / TL_LEGEND_COLS);
	int y = y0 + (*slot / TL_LEGEND_COLS) * TL_LEGEND_ROW;

	if (!strncmp(cls, "line ", 5))
		fprintf(
		    f, "<line class=\"legend-swatch %s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
		    cls + 5, x, y + 7, x + 22, y + 7);
	else
		fprintf(f,
			"<rect class=\"legend-swatch %s\" x=\"%d\" y=\"%d\" width=\"22\" "
			"height=\"14\"/>",
			cls, x, y);
	fprintf(f, "<text class=\"legend-text\" x=\"%d\" y=\"%d\">%s</text>\n", x + 28, y + 11,
		text);
	(*slot)++;
}

/* The lane categories in the legend: the scheduler's only when the drill watched one. */
static int tl_legend_cats(const struct tl *tl)
{
	return tl->sched ? EVC_NR : EVC_SCHED_OUT;
}

static void tl_legend(FILE *f, const struct tl *tl)
{
	int slot = 0, y0 = tl->lanes_bottom + 20, i;
	char buf[64];

	fprintf(f, "<g class=\"legend\" data-y=\"%d\">\n", y0);
	tl_legend_item(f, &slot, y0, "line sw-throughput", "throughput (client)");
	tl_legend_item(f, &slot, y0, "line sw-baseline", "baseline");
	tl_legend_item(f, &slot, y0, "line sw-threshold", "recovery threshold");
	tl_legend_item(f, &slot, y0, "sw-injected", "fault in force");
	tl_legend_item(f, &slot, y0, "sw-planned", "fault planned, not injected");
	tl_legend_item(f, &slot, y0, "sw-detection", "D: detection");
	tl_legend_item(f, &slot, y0, "sw-isolation", "I: isolation");
	tl_legend_item(f, &slot, y0, "sw-recovery", "R: recovery");
	for (i = 0; i < tl_legend_cats(tl); i++) {
		snprintf(buf, sizeof(buf), "sw-%s", ev_cats[i].cls);
		tl_legend_item(f, &slot, y0, buf, ev_cats[i].legend);
	}
	fputs("</g>\n", f);
}

static void html_timeline(FILE *f, const struct tl *tl, const json_t *r, const json_t *events)
{
	char b1[32], b2[32];
	int i;

	fprintf(f,
		"<svg class=\"timeline\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" data-t0-ms=\"%s\" data-t1-ms=\"%s\" "
		"data-x0=\"%d\" data-x1=\"%d\" data-y0=\"%d\" data-y1=\"%d\" "
		"data-plot-y0=\"%d\" data-plot-y1=\"%d\" data-lanes-y0=\"%d\" "
		"data-page-left=\"%d\" data-page-top=\"%d\" data-ymax-mbps=\"%g\" "
		"role=\"img\" aria-label=\"drill timeline\">\n",
		TL_W, tl->height, TL_W, tl->height, f1(tl->t0, b1, sizeof(b1)),
		f1(tl->t1, b2, sizeof(b2)), TL_X0, TL_X1, TL_FLAG_Y, tl->lanes_bottom, TL_PLOT_Y0,
		TL_PLOT_Y1, TL_LANE_Y0, PAGE_LEFT, PAGE_TOP, tl->ymax);
	/* colours live here, inside the SVG, so the drawing stands alone when cut out */
	fprintf(
	    f, "<style>\n"
	       ".timeline text{font:11px 'DejaVu Sans',sans-serif;fill:#333}\n"
	       ".timeline .ylabel,.timeline .lane-label,.timeline .ytitle{text-anchor:end}\n"
	       ".timeline .xlabel,.timeline .flag-letter{text-anchor:middle}\n"
	       ".timeline .flag-letter{font-size:10px;font-weight:bold;fill:#fff}\n"
	       ".timeline rect,.timeline line{shape-rendering:crispEdges}\n"
	       ".timeline .bg{fill:#fff}\n"
	       ".timeline .lane-bg{fill:#f6f6f6}\n"
	       ".timeline .grid{stroke:#e8e8e8;stroke-width:1}\n"
	       ".timeline .tick{stroke:#666;stroke-width:1}\n"
	       ".timeline .frame{fill:none;stroke:#999;stroke-width:1}\n"
	       ".timeline .lane-line{stroke:#ddd;stroke-width:1}\n"
	       ".timeline .fault-window.injected,.timeline .sw-injected{fill:" C_FAULT "}\n"
	       ".timeline .fault-window.planned,.timeline .sw-planned{fill:" C_PLANNED "}\n"
	       ".timeline .throughput{fill:none;stroke:" C_THROUGHPUT
	       ";stroke-width:2;stroke-linejoin:round;shape-rendering:auto}\n"
	       ".timeline .baseline{stroke:" C_BASELINE ";stroke-width:2;stroke-dasharray:8 5}\n"
	       ".timeline .threshold{stroke:" C_THRESHOLD ";stroke-width:1;stroke-dasharray:2 3}\n"
	       ".timeline .guard-trip{stroke:" C_GUARD ";stroke-width:2;stroke-dasharray:6 3}\n"
	       ".timeline .mark{stroke-width:4}\n"
	       ".timeline .mark.detection{stroke:" C_DETECTION "}\n"
	       ".timeline .mark.isolation{stroke:" C_ISOLATION "}\n"
	       ".timeline .mark.recovery{stroke:" C_RECOVERY "}\n"
	       ".timeline .flag.detection,.timeline .sw-detection{fill:" C_DETECTION "}\n"
	       ".timeline .flag.isolation,.timeline .sw-isolation{fill:" C_ISOLATION "}\n"
	       ".timeline .flag.recovery,.timeline .sw-recovery{fill:" C_RECOVERY "}\n"
	       ".timeline .sw-throughput{stroke:" C_THROUGHPUT ";stroke-width:2}\n"
	       ".timeline .sw-baseline{stroke:" C_BASELINE ";stroke-width:2;stroke-dasharray:8 5}\n"
	       ".timeline .sw-threshold{stroke:" C_THRESHOLD
	       ";stroke-width:1;stroke-dasharray:2 3}\n");
	for (i = 0; i < EVC_NR; i++)
		fprintf(f, ".timeline .ev.%s,.timeline .sw-%s{fill:%s}\n", ev_cats[i].cls,
			ev_cats[i].cls, ev_cats[i].colour);
	fputs("</style>\n", f);
	fprintf(f, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n", TL_W,
		tl->height);
	for (i = 0; i < (int)(tl->nr_nodes + (tl->guard_lane ? 1 : 0)); i += 2)
		fprintf(f,
			"<rect class=\"lane-bg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
			TL_X0, TL_LANE_Y0 + i * TL_LANE_H, TL_X1 - TL_X0, TL_LANE_H);
	tl_windows(f, tl, r);
	tl_axes(f, tl, r);
	tl_levels(f, tl, r);
	tl_throughput(f, tl);
	tl_marks(f, tl, r);
	tl_lanes(f, tl, r, events);
	tl_legend(f, tl);
	fputs("</svg>\n", f);
}

/* What the drawing leaves out, said under it. */
static void html_timeline_notes(FILE *f, const struct tl *tl, const json_t *r)
{
	const json_t *ft;
	size_t i, k;
	double inj, ms;

	fputs("<p class=\"note\">Time runs from the workload start on the coordinator's clock. "
	      "The line is the drill workload's client throughput per interval; shaded spans "
	      "are the faults in force; D, I and R mark detection, isolation and recovery. "
	      "Below, one lane per node with its notable events (hover for details).",
	      f);
	if (!tl->nr_pts)
		fputs(" No throughput samples were recorded.", f);
	if (tl->outside)
		fprintf(f,
			" %zu event%s with a time far outside the drill (stamped before the "
			"clocks were aligned?) %s not drawn.",
			tl->outside, tl->outside == 1 ? "" : "s", tl->outside == 1 ? "is" : "are");
	json_array_foreach(ru_get(r, "faults"), i, ft) {
		bool injected = ru_num(ft, "injected_ms", &inj);

		for (k = 0; k < 3; k++) {
			const json_t *m = ru_get(ft, mark_names[k]);

			if (!json_is_object(m) || (injected && ru_num(m, "ms", &ms)))
				continue;
			fputs(" ", f);
			esc(f, ru_str(ft, "id"));
			fprintf(f, ": no %s mark (%s).", mark_names[k],
				injected ? "not measured" : "not injected");
		}
	}
	fputs("</p>\n", f);
}

/* ---- the sections ------------------------------------------------------- */

static void html_head(FILE *f, const json_t *r)
{
	const char *name = ru_str(r, "scenario.name"), *v = ru_str(r, "verdict");

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>Drill report: ",
	      f);
	esc(f, name ? name : "unnamed drill");
	fputs(" (", f);
	esc(f, v ? v : "unknown");
	fputs(")</title>\n", f);
	fprintf(
	    f,
	    "<style>\n"
	    "html,body{margin:0;padding:0;background:#fff;color:#222}\n"
	    "body{font:14px/1.45 'DejaVu Sans',sans-serif}\n"
	    "header{box-sizing:border-box;height:%dpx;overflow:hidden;padding:10px %dpx 0;"
	    "white-space:nowrap}\n"
	    "header h1{font-size:22px;margin:0;overflow:hidden;text-overflow:ellipsis}\n"
	    "header p{margin:4px 0 0}\n"
	    "svg.timeline{display:block;margin:0 0 0 %dpx}\n"
	    "main{padding:0 %dpx 24px;max-width:1200px}\n"
	    "h2{font-size:18px;margin:22px 0 8px;border-bottom:1px solid #ddd}\n"
	    "table{border-collapse:collapse;margin:6px 0}\n"
	    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\n"
	    "th{background:#f0f0f0}\n"
	    "td.num{text-align:right}\n"
	    "code{font-family:'DejaVu Sans Mono',monospace;font-size:12px;word-break:break-all}\n"
	    ".note{color:#555;font-size:13px;margin:6px %dpx}\n"
	    ".verdict{display:inline-block;padding:1px 10px;border-radius:4px;font-weight:bold;"
	    "color:#fff;background:#777}\n"
	    ".verdict-pass{background:#2e7d32}.verdict-fail{background:#c62828}\n"
	    ".verdict-inconclusive{background:#ef6c00}.verdict-cleanup_failed{background:#000}\n"
	    ".ok{color:#1b5e20;font-weight:bold}.bad{color:#b71c1c;font-weight:bold}\n"
	    ".warn{color:#e65100;font-weight:bold}\n"
	    ".readiness{border-left:6px solid #777;padding:4px 10px;background:#f7f7f7}\n"
	    ".readiness-ready{border-color:#2e7d32}.readiness-needs_work{border-color:#c62828}\n"
	    ".readiness-defer{border-color:#ef6c00}\n"
	    "</style>\n</head>\n<body>\n",
	    PAGE_TOP, PAGE_LEFT, PAGE_LEFT, PAGE_LEFT, PAGE_LEFT);
}

static void html_header(FILE *f, const json_t *r)
{
	const char *name = ru_str(r, "scenario.name"), *v = ru_str(r, "verdict");
	char b[32];

	fputs("<header>\n<h1>Drill report: ", f);
	esc(f, name ? name : "unnamed drill");
	fputs("</h1>\n<p><span class=\"verdict verdict-", f);
	css_class(f, v);
	fputs("\">", f);
	esc(f, v ? v : "unknown");
	fprintf(f, "</span> exit code %s", ru_num_text(r, "exit_code", 0, b, sizeof(b)));
	if (ru_str(r, "readiness.label")) {
		fputs(" · ", f);
		esc(f, ru_str(r, "readiness.label"));
	}
	fputs("</p>\n</header>\n", f);
}

static int emit_html(FILE *f, const void *arg)
{
	const json_t *const *in = arg, *r = in[0], *events = in[1];
	struct tl tl = {0};
	int ret;

	if (!json_is_array(events))
		events = NULL;
	ret = tl_plan(&tl, r, events);
	if (ret)
		goto out;
	html_head(f, r);
	html_header(f, r);
	html_timeline(f, &tl, r, events);
	html_timeline_notes(f, &tl, r);
	fputs("<main>\n", f);
	rw_summary(f, r, &html_walk);
	rw_goal(f, r, &html_walk);
	rw_environment(f, r, &html_walk);
	rw_actions(f, r, &html_walk);
	rw_results(f, r, &html_walk);
	rw_alerts(f, r, &html_walk);
	rw_scheduler(f, r, &html_walk);
	rw_trials(f, r, &html_walk);
	rw_job(f, r, &html_walk);
	rw_integrity(f, r, &html_walk);
	rw_throughput(f, r, &html_walk);
	rw_anomalies(f, r, &html_walk);
	rw_cleanup(f, r, &html_walk);
	rw_safety(f, r, &html_walk);
	rw_owners(f, r, &html_walk);
	rw_action_items(f, r, &html_walk);
	rw_reasons(f, r, &html_walk);
	fputs("<footer>\n<p class=\"note\">", f);
	ru_record(f, r, &html_markup);
	fputs("</p>\n</footer>\n</main>\n</body>\n</html>\n", f);
	ret = ferror(f) ? -EIO : 0;
out:
	free(tl.pts);
	free(tl.nodes);
	return ret;
}

int report_write_html(const char *path, const json_t *report, const json_t *events)
{
	const json_t *in[2] = {report, events};

	if (!json_is_object(report))
		return -EINVAL;
	return report_write_file(path, emit_html, in);
}
