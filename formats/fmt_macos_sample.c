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
 * the "Process:" header line, or of the "Process:" line above the thread
 * in our report of several processes).  A frame keeps its address "[0x...]" and
 * its offset into the function, the "+ 13" after the module (not with
 * --inferno).  One sample type ("samples", "count"); the
 * sampling interval of the first line is kept as the period.
 */
#include "analyze.h"
#include "chars.h"
#include "format.h"
#include "rustsym.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

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

/* Our writer's address of a node line: the last "  [0x" whose hex digits
 * and ']' end the line, or are followed by the "  FILE:LINE" the writer
 * puts after an address.  A name may hold "  [0x" itself (a collapsed
 * name "f  [0xlwo"): taking any last "  [0x" cut such a name there on
 * reading, so read -> write -> read changed it.  NULL when there is none. */
static const char *exact_address(const char *rest, const char *end)
{
	for (const char *q = end; q - rest >= 5; q--) {
		const char *a = q - 5, *h = q;
		if (memcmp(a, "  [0x", 5))
			continue;
		while (h < end && h - q < 16 && sf_is_hex(*h))
			h++;
		if (h == q || h == end || *h != ']')
			continue;
		if (++h == end)
			return a;
		/* "  FILE:LINE": a non-empty file, digits to the end */
		const char *d = end;
		while (d > h && *--d >= '0' && *d <= '9')
			;
		if (end - h > 2 && !memcmp(h, "  ", 2) && *d == ':' &&
		    d > h + 2 && d + 1 < end)
			return a;
	}
	return NULL;
}

/* "func  (in module) + 2567  [0x...]": the offset into the function
 * after the module's ')' at `q`, SF_NO_OFFSET if there is none. */
static uint64_t offset_of(const char *q, const char *end)
{
	uint64_t v = 0;

	while (q < end && *q == ' ')
		q++;
	if (end - q < 3 || q[0] != '+' || q[1] != ' ')
		return SF_NO_OFFSET;
	const char *d = q + 2;
	for (q = d; q < end && *q >= '0' && *q <= '9'; q++) {
		if (v > (UINT64_MAX - 1 - 9) / 10)
			return SF_NO_OFFSET;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	return q > d && (q == end || *q == ' ') ? v : SF_NO_OFFSET;
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
		ad = exact_address(rest, end);
		/* the module's "  (in ": the last one a ')' follows before
		 * the address; one without (a name "  (in val") is text */
		const char *stop = ad ? ad : end, *last = NULL;
		for (const char *q = rest; q < stop; q++)
			if (*q == ')')
				last = q;
		for (const char *q = rest; last && q + 6 <= last; q++)
			if (!memcmp(q, "  (in ", 6))
				in = q;
		fe = in ? in : ad ? ad : end;
	}
	while (fe > rest && (fe[-1] == ' ' || fe[-1] == '\t'))
		fe--;
	const char *mod = NULL, *after = NULL;
	size_t modn = 0;
	if (depth > 1) {
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
		/* the offset follows the module even with --no-modules */
		if (close)
			after = close + 1;
		if (close && !st->no_modules) {
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
	/* --inferno keys stacks on their text, which has no offsets */
	if (after && !st->inferno)
		fr.offset = offset_of(after, end);
	struct sf_sbuf modbuf = { 0 }, srcbuf = { 0 };
	if (modn) {
		if (!sf_sbuf_add(&modbuf, mod, modn))
			return sf_error_nomem(ctx);
		fr.module = modbuf.s;
	} else if (st->exact && mod) {
		/* our writer's "  (in )": an empty module, kept, else the
		 * next write leaves it out and a "  (in X)" ending the name
		 * becomes the module */
		fr.module = "";
	}
	/* "[0x...]" at the end: the address */
	const char *lb = NULL;
	for (const char *q = end; !st->exact && q > rest; q--)
		if (q[-1] == '[') {
			lb = q;
			break;
		}
	if (ad)
		lb = ad + 3;
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

/* "Process:         COMMAND [PID]  N samples" in the call graph (our
 * report of several processes, analyze/sample.c): PID, SF_NO_ID if the
 * line has none. */
static int64_t graph_pid(const char *l, size_t n)
{
	const char *rb = NULL, *lb = NULL;
	int64_t v;

	for (size_t i = n; i-- > 0 && !rb;)
		if (l[i] == ']')
			rb = l + i;
	for (const char *q = rb; q && q-- > l && !lb;)
		if (*q == '[')
			lb = q;
	if (lb && rb - lb > 1 &&
	    sf_parse_i64(lb + 1, (size_t)(rb - lb - 1), &v))
		return v;
	return SF_NO_ID;
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
			} else if (e == 17 + strlen(SF_AN_SAMPLE_TOOL) &&
				   !memcmp(line, "Analysis Tool:   " SF_AN_SAMPLE_TOOL,
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
		if (e > 8 && !memcmp(line, "Process:", 8)) {
			/* our report of several processes: the threads
			 * that follow are this one's */
			st.pid = graph_pid(line, e);
			continue;
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

/* The sample report (analyze/sample.c), pruned as --sample-min says. */
static int sample_write(const struct sf_profile *p, struct sf_output *out,
			struct sf_ctx *ctx)
{
	struct sf_an_sample_opts opt = { 0 };
	const char *min = sf_ctx_opt(ctx, "sample-min");
	int rc;

	if (min && (rc = sf_an_sample_min(&opt, min, ctx)))
		return rc;
	return sf_an_sample(out, p, &opt, ctx);
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
