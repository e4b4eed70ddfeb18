/*
 * sample.c - the report macOS `sample` prints (docs/formats.md, "sample"):
 * a header about the process, then per thread, most samples first, its
 * call graph with sample's tree marks, "Total number in stack", "Sort by
 * top of stack" and "Binary Images".  Counts are whole samples by the
 * model's rule (counts.h).  The `sample` writer writes this report, and
 * its reader reads it back exactly (SF_AN_SAMPLE_TOOL).
 */
#include "analyze.h"
#include "counts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A call-graph node of one thread: a stack of the model's prefix tree with
 * the thread's samples at or under it. */
struct wnode {
	sf_stack_id stack, parent;
	uint64_t count;
	const char *name;         /* for ties: the frame name */
};

/* Top-of-stack: own samples per function, "same collapsed" (offsets and
 * addresses apart) */
struct wtop {
	const char *name, *module;
	uint64_t count;
};

struct wtot {
	uint32_t frame;
	uint64_t count;
	const char *name;
	const char *module;
	uint64_t address, offset;
};

struct wr {
	const struct sf_profile *p;
	struct sf_output *out;
	struct sf_ctx *ctx;
	uint32_t *mark;           /* per stack: 1 + thread block last seen */
	uint64_t *incl;           /* per stack: samples at or under it */
	uint32_t *kid0, *nkids;   /* per stack: its children in `nodes` */
	struct wnode *nodes;
	size_t nnodes;
	uint64_t *selfw;          /* per frame: samples with it on top */
	uint64_t *inw;            /* per frame: its occurrences in the
				   * samples' stacks (recursion counted
				   * each time) */
	uint64_t min_abs;         /* prune: fewer samples than this */
	double min_pct;           /* prune: under this share of the thread */
	uint64_t hidden_nodes, hidden_samples;
	bool exact;               /* counts are exact sums of the weights */
};

static int wnode_cmp(const void *a, const void *b)
{
	const struct wnode *x = a, *y = b;
	int c;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int wtop_cmp(const void *a, const void *b)
{
	const struct wtop *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return strcmp(x->module ? x->module : "", y->module ? y->module : "");
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* A name on one line: LF and CR (which would end the node line) become
 * blanks. */
static void put_text(struct sf_output *o, const char *s)
{
	if (!strpbrk(s, "\n\r")) {
		sf_output_puts(o, s);
		return;
	}
	for (; *s; s++)
		sf_output_putc(o, *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* "name  (in module) + offset  [0xaddr]  file:line", as sample prints a
 * frame; the offset only after a module, where sample has it and where
 * our reader looks for it */
static void put_frame(struct sf_output *o, const struct sf_frame *f)
{
	/* a name of blanks only would vanish with the line's trailing
	 * blanks, leaving a line without a function: "???" as for none */
	put_text(o, f->name[strspn(f->name, " \t\r\n")] ? f->name : "???");
	if (f->module) {
		sf_output_puts(o, "  (in ");
		put_text(o, base_name(f->module));
		sf_output_putc(o, ')');
		if (f->offset != SF_NO_OFFSET)
			sf_output_printf(o, " + %llu",
					 (unsigned long long)f->offset);
	}
	if (f->address != SF_NO_ADDR) {
		sf_output_printf(o, "  [0x%llx]", (unsigned long long)f->address);
		if (f->file && f->line) {
			sf_output_puts(o, "  ");
			put_text(o, f->file);
			sf_output_printf(o, ":%u", f->line);
		}
	}
}

/* A capture's counts of thread tid: samples taken and missed, from the
 * properties capture.taken:TID and capture.missed:TID (sfcapture).
 * False when the profile has none. */
static bool thread_counts(const struct sf_profile *p, int64_t tid,
			  uint64_t *taken, uint64_t *missed)
{
	char key[48];
	const char *v;

	snprintf(key, sizeof(key), "capture.missed:%lld", (long long)tid);
	if (!(v = sf_profile_prop(p, key)))
		return false;
	*missed = strtoull(v, NULL, 10);
	if (taken) {
		snprintf(key, sizeof(key), "capture.taken:%lld",
			 (long long)tid);
		v = sf_profile_prop(p, key);
		*taken = v ? strtoull(v, NULL, 10) : 0;
	}
	return true;
}

/* The thread line's own text: "Thread_TID   name  (R% running, B%
 * blocked)", with "N missed; " first when a capture missed samples of
 * it; the share only when the samples carry the `state` label. */
static void put_thread(struct wr *w, sf_thread_idx th, const size_t *idx,
		       size_t n, const struct sf_records *r)
{
	const struct sf_profile *p = w->p;
	const struct sf_thread *td = th == SF_NO_THREAD ? NULL :
							  &p->d.threads[th];
	double run = 0, other = 0;

	if (td && td->tid != SF_NO_ID)
		sf_output_printf(w->out, "Thread_%lld", (long long)td->tid);
	else
		sf_output_puts(w->out, "Thread_?");
	if (td && td->name && td->name[0]) {
		sf_output_puts(w->out, "   ");
		put_text(w->out, td->name);
	}
	/* a capture's samples of this thread it missed (sfcapture) */
	uint64_t missed = 0;
	if (td && td->tid != SF_NO_ID)
		thread_counts(p, td->tid, NULL, &missed);
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];
		const char *st = sf_profile_label(p, p->d.samples[i].labels,
						  "state");
		double x = sf_records_of(p, r, i);
		if (st && !strcmp(st, "running"))
			run += x;
		else if (st)
			other += x;
	}
	if (run + other > 0 && missed)
		sf_output_printf(w->out, "  (%llu missed; %.0f%% running, "
				 "%.0f%% blocked)", (unsigned long long)missed,
				 100 * run / (run + other),
				 100 * other / (run + other));
	else if (run + other > 0)
		sf_output_printf(w->out, "  (%.0f%% running, %.0f%% blocked)",
				 100 * run / (run + other),
				 100 * other / (run + other));
}

/* Is node `c` (count) shown under a thread of `total` samples? */
static bool shown(const struct wr *w, uint64_t c, uint64_t total)
{
	return c >= w->min_abs && !(100.0 * (double)c < w->min_pct *
					       (double)total);
}

/* One thread's call graph: nodes touched by its samples, children sorted
 * by count, printed depth first with sample's tree marks: the column of
 * an ancestor that has a later sibling holds a mark, '+', '!', ':', '|'
 * by how many branching nodes lie above it. */
static int write_thread(struct wr *w, const size_t *idx, size_t n,
			uint32_t block, bool later_thread, bool many_threads,
			const struct sf_records *r, sf_thread_idx th)
{
	const struct sf_profile *p = w->p;
	uint64_t total = 0;
	int rc = 0;

	w->nnodes = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];
		uint64_t c = (uint64_t)nearbyint(sf_records_of(p, r, i));
		sf_stack_id s = p->d.samples[i].stack;
		total += c;
		if (s)
			w->selfw[p->d.stacks[s].frame] += c;
		for (; s; s = p->d.stacks[s].parent) {
			if (w->mark[s] != block + 1) {
				w->mark[s] = block + 1;
				w->incl[s] = 0;
				w->nkids[s] = 0;
				w->nodes[w->nnodes++] = (struct wnode){
					s, p->d.stacks[s].parent, 0,
					p->d.frames[p->d.stacks[s].frame].name
				};
			}
			w->incl[s] += c;
		}
	}
	for (size_t k = 0; k < w->nnodes; k++) {
		w->nodes[k].count = w->incl[w->nodes[k].stack];
		/* a node's samples hold its frame once each: the sum over
		 * the nodes of a frame counts a recursive frame each time */
		w->inw[p->d.stacks[w->nodes[k].stack].frame] +=
			w->nodes[k].count;
	}
	qsort(w->nodes, w->nnodes, sizeof(*w->nodes), wnode_cmp);
	/* children of a node are one run of `nodes`; the roots' parent is
	 * the empty stack 0, kept in slot 0 of kid0/nkids for this thread */
	w->nkids[0] = 0;
	for (size_t k = w->nnodes; k-- > 0;) {
		sf_stack_id par = w->nodes[k].parent;
		w->kid0[par] = (uint32_t)k;
		if (shown(w, w->nodes[k].count, total))
			w->nkids[par]++;
		else if (!par || shown(w, w->incl[par], total)) {
			/* the top of a hidden subtree */
			w->hidden_nodes++;
			w->hidden_samples += w->nodes[k].count;
		}
	}

	sf_output_printf(w->out, "    %llu ", (unsigned long long)total);
	put_thread(w, th, idx, n, r);
	sf_output_putc(w->out, '\n');

	/* depth-first; per depth: the node, the next child, its mark */
	size_t cap = 64, d = 0;
	uint32_t *cur = sf_calloc(cap, sizeof(*cur));
	sf_stack_id *at = sf_calloc(cap, sizeof(*at));
	char *mark = sf_calloc(cap, 1);
	unsigned *branches = sf_calloc(cap, sizeof(*branches));
	if (!cur || !at || !mark || !branches) {
		rc = sf_error(w->ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	at[0] = 0;
	cur[0] = 0;
	/* branches[d]: branching nodes from the list of threads down to
	 * at[d]; the mark of a child with later siblings is chosen by it */
	mark[0] = later_thread ? '+' : ' ';
	branches[0] = many_threads + (w->nkids[0] > 1);
	for (uint64_t lines = 1;; lines++) {
		sf_stack_id s = at[d];
		if (cur[d] >= w->nkids[s]) {
			if (!d)
				break;
			d--;
			continue;
		}
		const struct wnode *c = &w->nodes[w->kid0[s] + cur[d]];
		cur[d]++;
		if (d + 1 >= cap) {
			size_t nc = cap * 2;
			uint32_t *a1 = sf_reallocarray(cur, nc, sizeof(*a1));
			if (a1)
				cur = a1;
			sf_stack_id *a2 = sf_reallocarray(at, nc, sizeof(*a2));
			if (a2)
				at = a2;
			char *a3 = sf_reallocarray(mark, nc, 1);
			if (a3)
				mark = a3;
			unsigned *a4 = sf_reallocarray(branches, nc,
						       sizeof(*a4));
			if (a4)
				branches = a4;
			if (!a1 || !a2 || !a3 || !a4) {
				rc = sf_error(w->ctx, SF_ENOMEM, NULL, 0,
					      "out of memory");
				goto out;
			}
			cap = nc;
		}
		sf_output_puts(w->out, "    ");
		for (size_t j = 0; j <= d; j++) {
			sf_output_putc(w->out, mark[j]);
			sf_output_putc(w->out, ' ');
		}
		sf_output_printf(w->out, "%llu ", (unsigned long long)c->count);
		put_frame(w->out, &p->d.frames[p->d.stacks[c->stack].frame]);
		sf_output_putc(w->out, '\n');
		/* the mark of c's column, for the lines under c */
		unsigned b = branches[d];
		d++;
		at[d] = c->stack;
		cur[d] = 0;
		branches[d] = b + (w->nkids[c->stack] > 1);
		mark[d] = cur[d - 1] < w->nkids[s] ? "+!:|"[(b - 1) % 4] : ' ';
		if ((lines & 0xffff) == 0 && sf_interrupted(w->ctx)) {
			rc = sf_error(w->ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
	}
out:
	free(cur);
	free(at);
	free(mark);
	free(branches);
	return rc;
}

/* most first, then by name, module and address (as the lines read, not
 * the frame table's order, which a reader may change), then by frame */
static int total_cmp(const void *a, const void *b)
{
	const struct wtot *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	if ((c = strcmp(x->module, y->module)))
		return c;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* "Total number in stack": each frame (function at one address) with the
 * number of its occurrences in the samples' stacks, a recursive frame
 * counted each time, those >= 5, most first (then by name), as sample
 * lists them: "        COUNT   frame". */
static int write_total(struct wr *w)
{
	const struct sf_profile *p = w->p;
	struct wtot *t = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				   sizeof(*t));
	size_t n = 0;

	if (!t)
		return sf_error(w->ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t f = 0; f < p->d.nframes; f++)
		if (w->inw[f] >= 5)
			t[n++] = (struct wtot){ (uint32_t)f, w->inw[f],
				p->d.frames[f].name ? p->d.frames[f].name : "",
				p->d.frames[f].module ?
					base_name(p->d.frames[f].module) : "",
				p->d.frames[f].address,
				p->d.frames[f].offset };
	qsort(t, n, sizeof(*t), total_cmp);
	for (size_t i = 0; i < n; i++) {
		sf_output_printf(w->out, "        %-8llu",
				 (unsigned long long)t[i].count);
		put_frame(w->out, &p->d.frames[t[i].frame]);
		sf_output_putc(w->out, '\n');
	}
	free(t);
	return 0;
}

/* "Sort by top of stack": own samples per function and module, collapsed
 * over addresses, at least 5 as sample shows them. */
static int write_top(struct wr *w)
{
	const struct sf_profile *p = w->p;
	struct wtop *top = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				     sizeof(*top));
	size_t n = 0;

	if (!top)
		return sf_error(w->ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t f = 0; f < p->d.nframes; f++)
		if (w->selfw[f])
			top[n++] = (struct wtop){ p->d.frames[f].name,
				p->d.frames[f].module ?
				base_name(p->d.frames[f].module) : NULL,
				w->selfw[f] };
	/* equal (name, module) pairs next to each other, then summed */
	qsort(top, n, sizeof(*top), wtop_cmp);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && top[i].count; j++)
			if (top[j].count && !strcmp(top[i].name, top[j].name) &&
			    !strcmp(top[i].module ? top[i].module : "",
				    top[j].module ? top[j].module : "")) {
				top[i].count += top[j].count;
				top[j].count = 0;
			}
	qsort(top, n, sizeof(*top), wtop_cmp);
	sf_output_puts(w->out, "Sort by top of stack, same collapsed (when >= "
			       "5):\n");
	for (size_t i = 0; i < n && top[i].count >= 5; i++) {
		sf_output_puts(w->out, "        ");
		put_text(w->out, top[i].name[0] ? top[i].name : "???");
		if (top[i].module) {
			sf_output_puts(w->out, "  (in ");
			put_text(w->out, top[i].module);
			sf_output_putc(w->out, ')');
		}
		sf_output_printf(w->out, "        %llu\n",
				 (unsigned long long)top[i].count);
	}
	free(top);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "Binary Images": every module a frame names, by path.  The load range
 * and build id come from the property "image:PATH" = "0xSTART 0xEND
 * BUILD-ID" when the profile has one (sfcapture), else "???". */
static int write_images(struct wr *w)
{
	const struct sf_profile *p = w->p;
	const char **mods = sf_calloc(p->d.nframes ? p->d.nframes : 1,
				      sizeof(*mods));
	size_t n = 0;

	if (!mods)
		return sf_error(w->ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t f = 0; f < p->d.nframes; f++)
		if (p->d.frames[f].module)
			mods[n++] = p->d.frames[f].module;
	qsort(mods, n, sizeof(*mods), cmp_str);
	sf_output_puts(w->out, "Binary Images:\n");
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(mods[i], mods[i - 1]))
			continue;
		char key[4096], lo[24] = "???", hi[24] = "???", id[130] = "?";
		snprintf(key, sizeof(key), "image:%s", mods[i]);
		const char *v = sf_profile_prop(p, key);
		if (v)
			sscanf(v, "%23s %23s %129s", lo, hi, id);
		sf_output_printf(w->out, "%18s - %18s  ", lo, hi);
		put_text(w->out, base_name(mods[i]));
		sf_output_printf(w->out, " (?) <%s> ", id);
		put_text(w->out, mods[i]);
		sf_output_putc(w->out, '\n');
	}
	free(mods);
	return 0;
}

/* Threads with fewer samples due are left out of the comparison */
#define SMP_UNEVEN_MIN 20
/* Miss rates further apart than this (points) are uneven */
#define SMP_UNEVEN_POINTS 2.0

/* A capture's missed samples (property capture.missed), and in the same
 * line, when they fell unevenly across threads, the threads that missed
 * the largest and the smallest share of their samples. */
static void write_missed(struct wr *w)
{
	const struct sf_profile *p = w->p;
	const char *v = sf_profile_prop(p, "capture.missed");
	uint64_t all = 0, taken, missed, total = 0;
	double hi = -1, lo = 2;
	size_t ihi = 0, ilo = 0;

	if (!v)
		return;
	all = strtoull(v, NULL, 10);
	for (size_t i = 0; i < p->d.nthreads; i++) {
		const struct sf_thread *t = &p->d.threads[i];
		if (t->tid == SF_NO_ID ||
		    !thread_counts(p, t->tid, &taken, &missed))
			continue;
		total += taken + missed;
		if (taken + missed < SMP_UNEVEN_MIN)
			continue;
		double r = (double)missed / (double)(taken + missed);
		if (r > hi) {
			hi = r;
			ihi = i;
		}
		if (r < lo) {
			lo = r;
			ilo = i;
		}
	}
	sf_output_printf(w->out, "Missed:          %llu", (unsigned long long)all);
	if (total)
		sf_output_printf(w->out, " of %llu samples due (%.1f%%)",
				 (unsigned long long)total,
				 100.0 * (double)all / (double)total);
	if (all && hi >= 0 && 100 * (hi - lo) > SMP_UNEVEN_POINTS) {
		const struct sf_thread *a = &p->d.threads[ihi],
				       *b = &p->d.threads[ilo];
		sf_output_printf(w->out, ", unevenly: thread %lld",
				 (long long)a->tid);
		if (a->name && a->name[0]) {
			sf_output_puts(w->out, " ");
			put_text(w->out, a->name);
		}
		sf_output_printf(w->out, " missed %.0f%% of its samples, "
				 "thread %lld", 100 * hi, (long long)b->tid);
		if (b->name && b->name[0]) {
			sf_output_puts(w->out, " ");
			put_text(w->out, b->name);
		}
		sf_output_printf(w->out, " %.0f%%", 100 * lo);
	}
	sf_output_putc(w->out, '\n');
}

/* A size as sample prints it: "112K", "227.5M", "1.2G". */
static void footprint(double bytes, char *buf, size_t size)
{
	if (bytes < 1024.0 * 1024)
		snprintf(buf, size, "%.0fK", bytes / 1024);
	else if (bytes < 1024.0 * 1024 * 1024)
		snprintf(buf, size, "%.1fM", bytes / (1024.0 * 1024));
	else
		snprintf(buf, size, "%.1fG", bytes / (1024.0 * 1024 * 1024));
}

/* The header sample prints before the call graph, from what the profile
 * knows: the command and pid of a capture, the interval, the time; for a
 * capture also the executable, architecture, parent, system and memory
 * (capture.path, .arch, .parent, .os, .footprint, .footprint_peak). */
static void write_header(struct wr *w)
{
	const struct sf_profile *p = w->p;
	const char *cmd = sf_profile_prop(p, "capture.command");
	const char *pid = sf_profile_prop(p, "capture.pid");
	char b[24];
	double ms = p->d.meta.period_type.unit &&
		    !strcmp(p->d.meta.period_type.unit, "nanoseconds") ?
		    p->d.meta.period / 1e6 : 0;

	if (!pid) {
		/* the first thread with a pid that is written, i.e. has a
		 * sample: one without would not come back from the report
		 * (found by the roundtrip-sample fuzz target) */
		size_t first = p->d.nthreads;
		for (size_t i = 0; i < p->d.nsamples; i++) {
			sf_thread_idx t = p->d.samples[i].thread;
			if (t != SF_NO_THREAD && t < first &&
			    p->d.threads[t].pid != SF_NO_ID)
				first = t;
		}
		if (first < p->d.nthreads) {
			snprintf(b, sizeof(b), "%lld",
				 (long long)p->d.threads[first].pid);
			pid = b;
		}
	}
	if (!cmd || !cmd[0] || strpbrk(cmd, "\n\r"))
		cmd = "profile";
	sf_output_printf(w->out, "Analysis of sampling %s (pid %s)", cmd,
			 pid ? pid : "?");
	if (ms > 0)
		sf_output_printf(w->out, " every %g millisecond%s", ms,
				 ms == 1 ? "" : "s");
	sf_output_puts(w->out, "\n");
	if (pid)
		sf_output_printf(w->out, "Process:         %s [%s]\n", cmd,
				 pid);
	/* the lines sample prints about the process, where a capture
	 * recorded them (a blank line closes the group, as in sample) */
	static const char *const about[][2] = {
		{ "Path:            ", "capture.path" },
		{ "Code Type:       ", "capture.arch" },
		{ "Parent Process:  ", "capture.parent" },
	};
	bool any = false;
	for (size_t i = 0; i < sizeof(about) / sizeof(about[0]); i++) {
		const char *v = sf_profile_prop(p, about[i][1]);
		if (!v || strpbrk(v, "\n\r"))
			continue;
		sf_output_puts(w->out, about[i][0]);
		sf_output_puts(w->out, v);
		sf_output_putc(w->out, '\n');
		any = true;
	}
	if (any)
		sf_output_putc(w->out, '\n');
	if (p->d.meta.start_time != SF_NO_TIME) {
		time_t sec = (time_t)(p->d.meta.start_time / 1000000000);
		struct tm tm;
		char when[40];
		gmtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		sf_output_printf(w->out, "Date/Time:       %s.%03d +0000\n", when,
				 (int)(p->d.meta.start_time / 1000000 % 1000));
	}
	if (p->d.meta.duration != SF_NO_TIME && p->d.meta.duration > 0)
		sf_output_printf(w->out, "Duration:        %.2fs\n",
				 (double)p->d.meta.duration / 1e9);
	write_missed(w);
	const char *os = sf_profile_prop(p, "capture.os");
	if (os && !strpbrk(os, "\n\r"))
		sf_output_printf(w->out, "OS Version:      %s\n", os);
	sf_output_puts(w->out, "Report Version:  7\n"
			       "Analysis Tool:   " SF_AN_SAMPLE_TOOL "\n");
	const char *fp = sf_profile_prop(p, "capture.footprint");
	const char *fpk = sf_profile_prop(p, "capture.footprint_peak");
	if (fp && fpk) {
		char a[32], b2[32];
		footprint(strtod(fp, NULL), a, sizeof(a));
		footprint(strtod(fpk, NULL), b2, sizeof(b2));
		sf_output_printf(w->out, "\nPhysical footprint:         %s\n"
				 "Physical footprint (peak):  %s\n", a, b2);
	}
}

/* The pid of thread block b (nthreads: the samples without a thread). */
static int64_t block_pid(const struct sf_profile *p, size_t b)
{
	return b < p->d.nthreads ? p->d.threads[b].pid : SF_NO_ID;
}

struct grank {
	size_t rank, pos, block;
};

static int grank_cmp(const void *a, const void *b)
{
	const struct grank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The processes of the thread blocks (sorted most samples first): *ng
 * of them.  When there are several, blocks[] is reordered so that a
 * process's threads are together, still most samples first, and the
 * processes with most samples come first (the one seen first on a tie);
 * (*group)[k] is then the rank of blocks[k]'s process and (*gtotal)[r]
 * the samples of the process of rank r. */
static int group_processes(struct wr *w, size_t *blocks, size_t nb,
			   const uint64_t *btotal, size_t **group,
			   uint64_t **gtotal, size_t *ng)
{
	const struct sf_profile *p = w->p;
	size_t cap = nb ? nb : 1, n = 0;
	int64_t *gpid = sf_calloc(cap, sizeof(*gpid));
	size_t *rank = sf_calloc(cap, sizeof(*rank));
	uint64_t *sum = sf_calloc(cap, sizeof(*sum));
	struct grank *r = sf_calloc(cap, sizeof(*r));
	int rc = 0;

	*group = sf_calloc(cap, sizeof(**group));
	*gtotal = sf_calloc(cap, sizeof(**gtotal));
	if (!gpid || !rank || !sum || !r || !*group || !*gtotal) {
		rc = sf_error(w->ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* processes in order of first sight; a few, so a linear search */
	for (size_t k = 0; k < nb; k++) {
		int64_t pid = block_pid(p, blocks[k]);
		size_t g = 0;
		while (g < n && gpid[g] != pid)
			g++;
		if (g == n)
			gpid[n++] = pid;
		(*group)[k] = g;
		sum[g] += btotal[blocks[k]];
	}
	*ng = n;
	for (size_t g = 0; g < n; g++) {
		for (size_t h = 0; h < n; h++)
			if (sum[h] > sum[g] || (sum[h] == sum[g] && h < g))
				rank[g]++;
		(*gtotal)[rank[g]] = sum[g];
	}
	for (size_t k = 0; k < nb; k++)
		r[k] = (struct grank){ rank[(*group)[k]], k, blocks[k] };
	qsort(r, nb, sizeof(*r), grank_cmp);
	for (size_t k = 0; k < nb; k++) {
		blocks[k] = r[k].block;
		(*group)[k] = r[k].rank;
	}
out:
	free(gpid);
	free(rank);
	free(sum);
	free(r);
	return rc;
}

/* The line over a process's threads in the call graph of several
 * processes: "Process:         COMMAND [PID]  N samples", as the header
 * names the process (our reader takes the pid of the threads under it
 * from it). */
static void put_process(struct wr *w, size_t b, uint64_t total)
{
	const struct sf_profile *p = w->p;
	const struct sf_thread *t = b < p->d.nthreads ? &p->d.threads[b] :
							NULL;
	const char *cmd = t ? sf_process_command(p, t) : NULL;

	sf_output_puts(w->out, "Process:         ");
	put_text(w->out, cmd && cmd[0] ? cmd : "???");
	if (t && t->pid != SF_NO_ID)
		sf_output_printf(w->out, " [%lld]", (long long)t->pid);
	sf_output_printf(w->out, "  %llu sample%s\n", (unsigned long long)total,
			 total == 1 ? "" : "s");
}

int sf_an_sample_min(struct sf_an_sample_opts *out, const char *text,
		     struct sf_ctx *ctx)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || !(v >= 0) || (*end && strcmp(end, "%")))
		return sf_error(ctx, SF_EUSAGE, NULL, 0, "--sample-min needs "
				"a count or a percentage ('5', '2%%')");
	*out = (struct sf_an_sample_opts){ 0 };
	if (*end)
		out->min_percent = v;
	else
		out->min_count = (uint64_t)v;
	return 0;
}

int sf_an_sample(struct sf_output *out, const struct sf_profile *p,
		 const struct sf_an_sample_opts *opt, struct sf_ctx *ctx)
{
	struct wr w = { .p = p, .out = out, .ctx = ctx };
	size_t ns = p->d.nsamples, nthr = p->d.nthreads;
	size_t nblocks = nthr + 1, *order = NULL, *first = NULL,
	       *blocks = NULL;
	uint64_t *btotal = NULL, *gtotal = NULL;
	size_t *group = NULL;
	static const char *const counted[] = { "samples", NULL };
	struct sf_records rec;
	bool rounded = false;
	int rc = 0;

	w.min_abs = opt->min_count;
	w.min_pct = opt->min_percent;
	sf_records_count(p, counted, &rec);
	w.mark = sf_calloc(p->d.nstacks, sizeof(*w.mark));
	w.incl = sf_calloc(p->d.nstacks, sizeof(*w.incl));
	w.kid0 = sf_calloc(p->d.nstacks, sizeof(*w.kid0));
	w.nkids = sf_calloc(p->d.nstacks, sizeof(*w.nkids));
	w.nodes = sf_calloc(p->d.nstacks, sizeof(*w.nodes));
	w.selfw = sf_calloc(p->d.nframes ? p->d.nframes : 1,
			    sizeof(*w.selfw));
	w.inw = sf_calloc(p->d.nframes ? p->d.nframes : 1, sizeof(*w.inw));
	order = sf_calloc(ns ? ns : 1, sizeof(*order));
	first = sf_calloc(nblocks + 1, sizeof(*first));
	blocks = sf_calloc(nblocks, sizeof(*blocks));
	btotal = sf_calloc(nblocks, sizeof(*btotal));
	if (!w.mark || !w.incl || !w.kid0 || !w.nkids || !w.nodes ||
	    !w.selfw || !w.inw || !order || !first || !blocks || !btotal) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	/* samples by thread block (samples without a thread last), in
	 * profile order within a block */
	for (size_t i = 0; i < ns; i++) {
		sf_thread_idx th = p->d.samples[i].thread;
		size_t b = th == SF_NO_THREAD ? nthr : th;
		uint64_t c;
		if ((rc = sf_records_whole(p, ctx, &rec, i, 1e15,
					  "a sample count", &c, &rounded)))
			goto out;
		first[b + 1]++;
		btotal[b] += c;
	}
	for (size_t b = 0; b < nblocks; b++)
		first[b + 1] += first[b];
	{
		size_t *at = sf_calloc(nblocks, sizeof(*at));
		if (!at) {
			rc = sf_error(ctx, SF_ENOMEM, NULL, 0,
				      "out of memory");
			goto out;
		}
		memcpy(at, first, nblocks * sizeof(*at));
		for (size_t i = 0; i < ns; i++) {
			sf_thread_idx th = p->d.samples[i].thread;
			order[at[th == SF_NO_THREAD ? nthr : th]++] = i;
		}
		free(at);
	}
	if (rounded)
		sf_warn(ctx, "sample.weight-rounded",
			"weights that are not whole numbers of samples were "
			"rounded to whole sample counts");
	/* threads with samples, most samples first */
	size_t nb = 0;
	for (size_t b = 0; b < nblocks; b++)
		if (first[b + 1] > first[b])
			blocks[nb++] = b;
	for (size_t i = 1; i < nb; i++)
		for (size_t j = i; j > 0 && btotal[blocks[j]] >
						   btotal[blocks[j - 1]]; j--) {
			size_t x = blocks[j];
			blocks[j] = blocks[j - 1];
			blocks[j - 1] = x;
		}

	/* several processes: their threads under each process's line */
	size_t ngroups = 0;
	if ((rc = group_processes(&w, blocks, nb, btotal, &group, &gtotal,
				  &ngroups)))
		goto out;

	/* the call graph goes to memory first: the header says what the
	 * pruning hid, known only once the graph is made */
	struct sf_output *graph = NULL;
	if ((rc = sf_output_mem(&graph, ctx)))
		goto out;
	w.out = graph;
	/* the threads of one process, blocks[k0..end), are one list as
	 * sample's threads are */
	for (size_t k = 0, k0 = 0, end = 0; k < nb && !rc; k++) {
		size_t b = blocks[k];
		if (k == end) {
			for (k0 = end = k; end < nb && group[end] == group[k0];)
				end++;
			if (ngroups > 1)
				put_process(&w, b, gtotal[group[k0]]);
		}
		rc = write_thread(&w, order + first[b], first[b + 1] - first[b],
				  (uint32_t)k, k + 1 < end, end - k0 > 1, &rec,
				  b == nthr ? SF_NO_THREAD : (sf_thread_idx)b);
	}
	w.out = out;
	if (!rc) {
		size_t glen;
		const char *g = sf_output_mem_data(graph, &glen);
		write_header(&w);
		if (w.hidden_nodes)
			sf_output_printf(out, "Pruned:          %llu call graph "
					 "node%s hidden (%llu samples, counted "
					 "in their callers), those under ",
					 (unsigned long long)w.hidden_nodes,
					 w.hidden_nodes > 1 ? "s" : "",
					 (unsigned long long)w.hidden_samples);
		if (w.hidden_nodes && w.min_pct > 0)
			sf_output_printf(out, "%g%% of their thread's samples\n",
					 w.min_pct);
		else if (w.hidden_nodes)
			sf_output_printf(out, "%llu samples\n",
					 (unsigned long long)w.min_abs);
		sf_output_puts(out, "----\n\nCall graph:\n");
		sf_output_write(out, g, glen);
		sf_output_puts(out, "\nTotal number in stack (recursive counted "
				    "multiple, when >=5):\n");
		rc = write_total(&w);
		sf_output_puts(out, "\n");
		if (!rc)
			rc = write_top(&w);
	}
	sf_output_abort(graph);
	if (!rc) {
		sf_output_puts(out, "\n");
		rc = write_images(&w);
	}
out:
	free(w.mark);
	free(w.incl);
	free(w.kid0);
	free(w.nkids);
	free(w.nodes);
	free(w.selfw);
	free(w.inw);
	free(order);
	free(first);
	free(blocks);
	free(btotal);
	free(group);
	free(gtotal);
	return rc;
}
