/*
 * fmt_macos_sample.c - the call graph of macOS `sample` (and Activity Monitor's
 * "Sample Process"):
 *
 *     Call graph:
 *         825 Thread_15758535
 *         + 825 thread_start  (in libsystem_pthread.dylib) + 13  [0x7fff...]
 *         +   794 worker  (in rg) + 1035  [0x10393278b]
 *         +   ! 794 search  (in rg) + 172  [0x1037cbcac]
 *         ...
 *     Total number in stack (recursive counted multiple times):
 *
 * Each node line holds the number of samples in which that frame was on
 * the stack; the depth is the indentation after the first four blanks, two
 * characters ("+ ", "! ", ": ", "| ", "  ") per level.  The stacks follow
 * inferno's collapse-sample: a stack is written for each leaf node with
 * the leaf's count, frames are "module`function" (".dylib" removed; only
 * "function" with --no-modules), half-demangled Rust names are repaired,
 * and stacks whose leaf is a waiting function (__psynch_cvwait, __select,
 * __semwait_signal, __ulock_wait, __wait4, __workq_kernreturn, kevent,
 * mach_msg_trap, read, semaphore_wait_trap) are dropped.  The samples of
 * an inner node that are not in any child (its self time) are dropped too,
 * as inferno does, unless --keep-self.  A stack that occurs at several
 * places of the graph (the same functions at different offsets) gets the
 * sum of its counts; inferno keeps only the last one (--inferno does so,
 * and then drops the addresses, as stacks are told apart by their text).
 * Each thread's root line becomes
 * the root frame ("Thread_15758535", or "Thread_N   DispatchQueue..." with
 * the queue) and the sample's thread (tid N, the label as name, the pid of
 * the "Process:" header line).  One sample type ("samples", "count"); the
 * sampling interval of the first line is kept as the period.
 */
#include "records.h"
#include "rustsym.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The "Analysis Tool:" header of the files this writer makes; the reader
 * reads such files exactly (see sample_read) */
#define SAMPLE_TOOL "sftools sample writer"

static const char *const ignore_symbols[] = {
	"__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait",
	"__wait4", "__workq_kernreturn", "kevent", "mach_msg_trap", "read",
	"semaphore_wait_trap",
};

struct smp_node {
	sf_frame_id frame;
	double count, children;
	size_t name_off, name_len;   /* in the name buffer, for the ignore
				      * test */
};

struct smp_state {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	struct sf_input *in;
	bool no_modules, keep_self, inferno;
	bool exact;              /* a file of our writer: see sample_read */
	/* --inferno: the last count of each stack, by stack id */
	double *lastw;
	sf_thread_idx *lastt;
	sf_stack_id *order;
	size_t norder, cap_last, cap_order;
	struct smp_node *stack;
	size_t n, cap;
	struct sf_sbuf names, tmp, fix;
	sf_frame_id *ids;
	size_t cap_ids;
	int64_t pid;
	sf_thread_idx thread;
	double leaf_count;
};

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

/* A sample for stack[0..depth) with weight w. */
static int emit(struct smp_state *st, size_t depth, double w)
{
	int rc;

	if (!depth || w <= 0)
		return 0;
	if (depth > st->cap_ids) {
		sf_frame_id *ni = sf_reallocarray(st->ids, depth, sizeof(*ni));
		if (!ni)
			return sf_error_nomem(st->ctx);
		st->ids = ni;
		st->cap_ids = depth;
	}
	/* our own files: the thread line is the thread, not a frame */
	size_t skip = st->exact ? 1 : 0;
	for (size_t i = skip; i < depth; i++)
		st->ids[i - skip] = st->stack[i].frame;
	sf_stack_id s = SF_STACK_EMPTY;
	if (depth > skip && (rc = sf_profile_stack(st->p, st->ctx, st->ids,
						   depth - skip, false, &s)))
		return rc;
	if (!st->inferno)
		return sf_profile_add(st->p, st->ctx, s, st->thread, w);
	/* inferno stores each stack's count in a map: the last one wins */
	if (s >= st->cap_last) {
		size_t ncap = st->cap_last ? st->cap_last : 1024;
		while (ncap <= s)
			ncap *= 2;
		double *nw = sf_reallocarray(st->lastw, ncap, sizeof(*nw));
		if (nw)
			st->lastw = nw;
		sf_thread_idx *nt = sf_reallocarray(st->lastt, ncap,
						    sizeof(*nt));
		if (nt)
			st->lastt = nt;
		if (!nw || !nt)
			return sf_error_nomem(st->ctx);
		for (size_t i = st->cap_last; i < ncap; i++)
			st->lastw[i] = -1;
		st->cap_last = ncap;
	}
	if (st->lastw[s] < 0) {
		if (st->norder == st->cap_order) {
			size_t ncap = st->cap_order ? st->cap_order * 2 : 256;
			sf_stack_id *no = sf_reallocarray(st->order, ncap,
							  sizeof(*no));
			if (!no)
				return sf_error_nomem(st->ctx);
			st->order = no;
			st->cap_order = ncap;
		}
		st->order[st->norder++] = s;
	}
	st->lastw[s] = w;
	st->lastt[s] = st->thread;
	return 0;
}

/* The current stack ends at a leaf: inferno's write_stack. */
static int write_leaf(struct smp_state *st)
{
	if (!st->n)
		return 0;
	const struct smp_node *leaf = &st->stack[st->n - 1];
	const char *name = st->names.s + leaf->name_off;
	for (size_t i = 0; !st->exact && i < sizeof(ignore_symbols) /
				 sizeof(ignore_symbols[0]); i++)
		if (ends_with(name, leaf->name_len, ignore_symbols[i]))
			return 0;
	return emit(st, st->n, st->leaf_count);
}

/* Pop the top node; with --keep-self an inner node's own samples. */
static int pop(struct smp_state *st)
{
	struct smp_node *top = &st->stack[st->n - 1];
	int rc = 0;

	if ((st->keep_self || st->exact) && top->children > 0 &&
	    top->count > top->children)
		rc = emit(st, st->n, top->count - top->children);
	st->names.len = top->name_off;
	st->n--;
	return rc;
}

static bool is_indent(char c)
{
	return c == ' ' || c == '+' || c == '|' || c == ':' || c == '!';
}

static int bad(struct smp_state *st, const char *what)
{
	return sf_error(st->ctx, SF_EINPUT, sf_input_name(st->in),
			sf_input_lineno(st->in), "%s", what);
}

/* The name in our writer's thread line "Thread_TID   NAME  (R% running,
 * B% blocked)": [*b, *e), empty when the thread has none. */
static void exact_thread_name(const char *s, const char *end,
			      const char **b, const char **e)
{
	const char *q = s;

	while (q < end && *q != ' ')
		q++;
	if (end - q >= 3 && !memcmp(q, "   ", 3))
		q += 3;
	*b = q;
	*e = end;
	if (end - q > 10 && !memcmp(end - 10, "% blocked)", 10))
		for (const char *c = end - 10; c > q; c--)
			if (!memcmp(c - 1, "  (", 3) && c - 1 >= q) {
				*e = c - 1;
				break;
			}
}

static int on_node(struct smp_state *st, const char *l, size_t n)
{
	struct sf_ctx *ctx = st->ctx;
	size_t k = 4;
	int rc;

	while (k < n && is_indent(l[k]))
		k++;
	if (k == n)
		return bad(st, "call graph line holds only indentation");
	size_t ind = k - 4;
	if (ind % 2)
		return bad(st, "odd indentation in the call graph (two "
			   "characters per level expected)");
	size_t depth = ind / 2 + 1;
	if (depth > st->n + 1)
		return bad(st, "call graph line skips an indentation level");
	if (depth <= st->n) {
		if ((rc = write_leaf(st)))
			return rc;
		while (st->n >= depth)
			if ((rc = pop(st)))
				return rc;
	}
	/* "COUNT func (...)  (in module) + off  [addr]" */
	const char *s = l + k, *end = l + n;
	const char *sp = memchr(s, ' ', (size_t)(end - s));
	if (!sp)
		return bad(st, "call graph line has no function after its "
			   "count");
	double count;
	if (!sf_parse_weight(s, (size_t)(sp - s), &count) ||
	    memchr(s, '.', (size_t)(sp - s)))
		return bad(st, "call graph line does not start with a sample "
			   "count");
	const char *rest = sp + 1;
	const char *paren = memchr(rest, '(', (size_t)(end - rest));
	const char *fe = paren ? paren : end;
	const char *in = NULL, *ad = NULL;
	if (st->exact) {
		/* names may hold '(' and blanks: "f(int)  (in m)  [0x1]" */
		for (const char *q = rest; q < end; q++) {
			if (end - q >= 6 && !memcmp(q, "  (in ", 6))
				in = q;
			if (end - q >= 5 && !memcmp(q, "  [0x", 5))
				ad = q;
		}
		fe = in ? in : ad ? ad : end;
	}
	while (fe > rest && (fe[-1] == ' ' || fe[-1] == '\t'))
		fe--;
	const char *mod = NULL;
	size_t modn = 0;
	if (!st->no_modules && depth > 1) {
		const char *m = rest;
		for (const char *q = rest; q + 4 <= end; q++)
			if (!memcmp(q, "(in ", 4))
				m = q + 4;
		const char *close = memchr(m, ')', (size_t)(end - m));
		if (st->exact) {
			/* our writer's module is the base name as it is,
			 * ')' and ".dylib" included: up to the last ')'
			 * before the address; none without "  (in " (a ')'
			 * in the name is no module) */
			const char *stop = in && ad > in ? ad : end;
			m = in ? in + 6 : end;
			close = NULL;
			for (const char *q = m; q < stop; q++)
				if (*q == ')')
					close = q;
		}
		if (close) {
			mod = m;
			modn = (size_t)(close - m);
			if (!st->exact && ends_with(mod, modn, ".dylib"))
				modn -= 6;
		}
	}
	/* the name: module`function */
	size_t off = st->names.len;
	st->fix.len = 0;
	if (st->exact ? !sf_sbuf_add(&st->fix, rest, (size_t)(fe - rest)) :
			!sf_fix_rust_symbol(&st->fix, rest, (size_t)(fe - rest)))
		return sf_error_nomem(ctx);
	if ((modn && !st->exact && (!sf_sbuf_add(&st->names, mod, modn) ||
		      !sf_sbuf_add(&st->names, "`", 1))) ||
	    !sf_sbuf_add(&st->names, st->fix.s ? st->fix.s : "", st->fix.len))
		return sf_error_nomem(ctx);
	struct sf_frame fr;
	sf_frame_init(&fr);
	st->tmp.len = 0;
	if (!sf_sbuf_add(&st->tmp, st->names.s + off, st->names.len - off))
		return sf_error_nomem(ctx);
	fr.name = st->tmp.s;
	struct sf_sbuf modbuf = { 0 }, srcbuf = { 0 };
	if (modn) {
		if (!sf_sbuf_add(&modbuf, mod, modn))
			return sf_error_nomem(ctx);
		fr.module = modbuf.s;
	}
	/* "[0x...]" at the end: the address */
	const char *lb = NULL;
	for (const char *q = end; q > rest; q--)
		if (q[-1] == '[') {
			lb = q;
			break;
		}
	if (lb && end - lb > 3 && lb[0] == '0' && lb[1] == 'x') {
		uint64_t a = 0;
		const char *q = lb + 2;
		for (; q < end && q - lb < 18; q++) {
			char c = *q;
			int d = c >= '0' && c <= '9' ? c - '0' :
				c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				break;
			a = a * 16 + (uint64_t)d;
		}
		/* --inferno keys stacks on their text: no addresses */
		if (q < end && *q == ']' && !st->inferno)
			fr.address = a;
		/* "[0x...] file.m:65": the source line, when symbolicated */
		const char *src = q < end ? q + 1 : end;
		while (src < end && *src == ' ')
			src++;
		const char *colon = NULL;
		for (const char *c = src; c < end; c++)
			if (*c == ':')
				colon = c;
		uint64_t ln = 0;
		const char *d = colon ? colon + 1 : end;
		for (; d < end && *d >= '0' && *d <= '9' && ln < UINT32_MAX; d++)
			ln = ln * 10 + (uint64_t)(*d - '0');
		if (!st->inferno && colon && colon > src && d == end &&
		    d > colon + 1 && ln <= UINT32_MAX) {
			if (!sf_sbuf_add(&srcbuf, src, (size_t)(colon - src))) {
				sf_sbuf_free(&modbuf);
				return sf_error_nomem(ctx);
			}
			fr.file = srcbuf.s;
			fr.line = (uint32_t)ln;
		}
	}
	sf_frame_id fid;
	rc = sf_profile_frame(st->p, ctx, &fr, &fid);
	sf_sbuf_free(&modbuf);
	sf_sbuf_free(&srcbuf);
	if (rc)
		return rc;
	if (depth == 1) {
		/* a thread: "Thread_<tid>   label" */
		int64_t tid = SF_NO_ID;
		const char *t = rest;
		if (fe - t > 7 && !memcmp(t, "Thread_", 7)) {
			const char *d = t + 7, *de = d;
			while (de < fe && *de >= '0' && *de <= '9')
				de++;
			int64_t v;
			if (de > d && sf_parse_i64(d, (size_t)(de - d), &v))
				tid = v;
		}
		st->tmp.len = 0;
		const char *nb = rest, *ne = end;
		if (st->exact)
			exact_thread_name(rest, end, &nb, &ne);
		while (ne > nb && (ne[-1] == ' ' || ne[-1] == '\t'))
			ne--;
		if (!sf_sbuf_add(&st->tmp, nb, (size_t)(ne - nb)))
			return sf_error_nomem(ctx);
		st->thread = SF_NO_THREAD;
		if ((!st->exact || tid != SF_NO_ID || ne > nb) &&
		    (rc = sf_profile_thread(st->p, ctx, st->pid, tid,
					    ne > nb ? st->tmp.s : NULL,
					    &st->thread)))
			return rc;
	}
	if (st->n == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 64;
		struct smp_node *nn = sf_reallocarray(st->stack, ncap,
						      sizeof(*nn));
		if (!nn)
			return sf_error_nomem(ctx);
		st->stack = nn;
		st->cap = ncap;
	}
	if (st->n)
		st->stack[st->n - 1].children += count;
	st->stack[st->n++] = (struct smp_node){ fid, count, 0, off,
						st->names.len - off };
	st->leaf_count = count;
	if (st->n > st->ctx->limits.max_depth)
		return sf_error(ctx, SF_ELIMIT, sf_input_name(st->in),
				sf_input_lineno(st->in),
				"call graph deeper than the limit of %llu "
				"(--max-depth)",
				(unsigned long long)ctx->limits.max_depth);
	return 0;
}

static int finish(struct smp_state *st)
{
	int rc = write_leaf(st);

	while (!rc && st->n)
		rc = pop(st);
	for (size_t i = 0; !rc && i < st->norder; i++) {
		sf_stack_id s = st->order[i];
		rc = sf_profile_add(st->p, st->ctx, s, st->lastt[s],
				    st->lastw[s]);
	}
	return rc;
}

static int sample_read(struct sf_profile *p, struct sf_input *in,
		       struct sf_ctx *ctx)
{
	struct smp_state st;
	char *line;
	size_t len;
	int rc;
	uint32_t t;
	bool started = false, ended = false;

	memset(&st, 0, sizeof(st));
	st.p = p;
	st.ctx = ctx;
	st.in = in;
	st.no_modules = sf_ctx_flag(ctx, "no-modules");
	st.keep_self = sf_ctx_flag(ctx, "keep-self");
	st.inferno = sf_ctx_flag(ctx, "inferno");
	st.pid = SF_NO_ID;
	st.thread = SF_NO_THREAD;
	if ((rc = sf_profile_sample_type(p, ctx, "samples", "count", &t)))
		return rc;
	if (p->d.ntypes != 1)
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge sample counts into a profile "
				"with several sample types");
	while ((rc = sf_input_line(in, ctx, &line, &len)) > 0) {
		rc = 0;
		if (memchr(line, 0, len)) {
			rc = bad(&st, "NUL byte: not a sample report");
			break;
		}
		size_t e = len;
		while (e && (line[e - 1] == ' ' || line[e - 1] == '\t' ||
			     line[e - 1] == '\r'))
			e--;
		if (!started) {
			if (e >= 11 && !memcmp(line, "Call graph:", 11)) {
				started = true;
			} else if (e > 9 && !memcmp(line, "Process:", 8)) {
				/* "Process:         rg [64751]" */
				const char *lb = memchr(line, '[', e);
				int64_t v;
				if (lb && line[e - 1] == ']' &&
				    sf_parse_i64(lb + 1,
						 (size_t)(line + e - 1 - lb - 1),
						 &v))
					st.pid = v;
			} else if (e == 17 + strlen(SAMPLE_TOOL) &&
				   !memcmp(line, "Analysis Tool:   " SAMPLE_TOOL,
					   e)) {
				st.exact = true;
			} else if (e > 12 && !memcmp(line, "Analysis of ", 12)) {
				/* "... every 1 millisecond" */
				const char *ev = NULL;
				for (size_t i = 0; i + 7 <= e; i++)
					if (!memcmp(line + i, " every ", 7))
						ev = line + i + 7;
				if (ev) {
					const char *q = ev;
					while (q < line + e && *q >= '0' &&
					       *q <= '9')
						q++;
					double v;
					if (q > ev && sf_parse_weight(
						    ev, (size_t)(q - ev), &v) &&
					    !strncmp(q, " millisecond", 12)) {
						p->d.meta.period = v * 1e6;
						p->d.meta.period_type.type =
							sf_profile_str(p, ctx,
								       "wall");
						p->d.meta.period_type.unit =
							sf_profile_str(
								p, ctx,
								"nanoseconds");
					}
				}
			}
			continue;
		}
		if (!e)
			continue;
		if (e >= 21 && !memcmp(line, "Total number in stack", 21)) {
			ended = true;
			break;
		}
		if (e < 4 || memcmp(line, "    ", 4)) {
			rc = bad(&st, "call graph line does not start with "
				 "four blanks");
			break;
		}
		if ((rc = on_node(&st, line, e)))
			break;
	}
	if (rc == 0 && !started)
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
			      sf_input_lineno(in), "no 'Call graph:' line up "
			      "to the end: not a sample report");
	if (rc == 0) {
		if (!ended)
			sf_warn(ctx, "sample.truncated",
				"%s: the call graph has no end ('Total number "
				"in stack' line): input truncated?",
				sf_input_name(in));
		rc = finish(&st);
	}
	free(st.stack);
	free(st.ids);
	free(st.lastw);
	free(st.lastt);
	free(st.order);
	sf_sbuf_free(&st.names);
	sf_sbuf_free(&st.tmp);
	sf_sbuf_free(&st.fix);
	return rc < 0 ? rc : 0;
}

/* "Call graph:" and a node line after it, or sample's first line. */
static int sample_probe(const unsigned char *d, size_t n)
{
	if (sf_probe_prefix(d, n, "Analysis of sampling "))
		return 60;
	for (size_t i = 0; i + 11 <= n; i++) {
		if ((i == 0 || d[i - 1] == '\n') &&
		    !memcmp(d + i, "Call graph:", 11)) {
			const unsigned char *lf = memchr(d + i, '\n', n - i);
			if (lf && (size_t)(lf - d) + 5 < n &&
			    !memcmp(lf + 1, "    ", 4) && lf[5] >= '0' &&
			    lf[5] <= '9')
				return 50;
		}
	}
	return 0;
}

/* ----- writing ----- */

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
	uint64_t address;
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

/* "name  (in module)  [0xaddr]  file:line", as sample prints a frame
 * (without "+ offset": the model has no symbol start) */
static void put_frame(struct sf_output *o, const struct sf_frame *f)
{
	/* a name of blanks only would vanish with the line's trailing
	 * blanks, leaving a line without a function: "???" as for none */
	put_text(o, f->name[strspn(f->name, " \t\r\n")] ? f->name : "???");
	if (f->module) {
		sf_output_puts(o, "  (in ");
		put_text(o, base_name(f->module));
		sf_output_putc(o, ')');
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
				p->d.frames[f].address };
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
			       "Analysis Tool:   " SAMPLE_TOOL "\n");
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

static int sample_write(const struct sf_profile *p, struct sf_output *out,
			struct sf_ctx *ctx)
{
	struct wr w = { .p = p, .out = out, .ctx = ctx };
	size_t ns = p->d.nsamples, nthr = p->d.nthreads;
	size_t nblocks = nthr + 1, *order = NULL, *first = NULL,
	       *blocks = NULL;
	uint64_t *btotal = NULL;
	static const char *const counted[] = { "samples", NULL };
	struct sf_records rec;
	bool rounded = false;
	int rc = 0;
	const char *min = sf_ctx_opt(ctx, "sample-min");

	if (min) {
		char *end;
		double v = strtod(min, &end);
		if (end == min || !(v >= 0) || (*end && strcmp(end, "%")))
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"--sample-min needs a count or a "
					"percentage ('5', '2%%')");
		if (*end)
			w.min_pct = v;
		else
			w.min_abs = (uint64_t)v;
	}
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

	/* the call graph goes to memory first: the header says what the
	 * pruning hid, known only once the graph is made */
	struct sf_output *graph = NULL;
	if ((rc = sf_output_mem(&graph, ctx)))
		goto out;
	w.out = graph;
	for (size_t k = 0; k < nb && !rc; k++) {
		size_t b = blocks[k];
		rc = write_thread(&w, order + first[b], first[b + 1] - first[b],
				  (uint32_t)k, k + 1 < nb, nb > 1, &rec,
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
	return rc;
}

static const struct sf_option sample_ropts[] = {
	{ "no-modules", NULL, "sample: frame names without the module "
	  "(inferno-collapse-sample --no-modules)" },
	{ "keep-self", NULL, "sample: keep the samples of inner nodes that "
	  "are in no child (dropped by default, as inferno does)" },
	{ "inferno", NULL, "sample: a stack seen more than once keeps its "
	  "last count, as inferno-collapse-sample does (default: the counts "
	  "add up)" },
	{ NULL, NULL, NULL }
};

static const struct sf_option sample_wopts[] = {
	{ "sample-min", "N|P%", "sample: hide call graph nodes with fewer than "
	  "N samples, or under P% of their thread's (a header line says what "
	  "was hidden)" },
	{ NULL, NULL, NULL }
};

static const char *const sample_ext[] = { ".sample.txt", NULL };

const struct sf_format sf_format_sample = {
	.name = "sample",
	.description = "macOS sample call graph text",
	.extensions = sample_ext,
	.probe = sample_probe,
	.read = sample_read,
	.write = sample_write,
	/* threads (tid, name), counts, modules, addresses, files, lines */
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS | SF_CAP_LOCATIONS,
	.read_options = sample_ropts,
	.write_options = sample_wopts,
};
