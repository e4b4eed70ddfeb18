/*
 * fmt_dtrace.c - DTrace stack aggregations, as printed for
 * `@[ustack()] = count();` or `@[stack()] = count();`:
 *
 *     CPU     ID                    FUNCTION:NAME      <- header, up to
 *       0  64091                        :tick-60s       <- the first blank
 *
 *                   module`function+0x1c                <- leaf first
 *                   module`caller+0x20
 *                     17                                <- the count
 *
 * Frame names follow FlameGraph's stackcollapse.pl as inferno's
 * collapse-dtrace implements it: "+0x.." offsets are removed (kept with
 * --includeoffset, except on the leaf), C++ argument lists after a "::"
 * scope are removed, Java "a->b" inlining becomes a;b_[i], ';' becomes ':'
 * and half-demangled Rust names are repaired.  The name keeps the
 * "module`" prefix (the collapsed output shows it); the module is also
 * stored in the frame's module field.  One sample type: ("samples",
 * "count"), the aggregation's value.  No threads, no time.
 */
#include "rustsym.h"
#include "text.h"
#include "chars.h"

#include <stdlib.h>
#include <string.h>

struct dt_state {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	bool includeoffset;
	struct sf_sbuf names;    /* the entries of the current stack */
	size_t *offs, *lens;     /* leaf first */
	size_t n, cap;
	struct sf_sbuf a, b;     /* scratch */
	sf_frame_id *ids;
	size_t cap_ids;
};

static void trim(const char **s, size_t *n)
{
	while (*n && sf_is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && sf_is_space((*s)[*n - 1]))
		(*n)--;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Up to the last '+' (the offset), if any. */
static size_t without_offset(const char *s, size_t n)
{
	for (size_t i = n; i > 0; i--)
		if (s[i - 1] == '+')
			return i - 1;
	return n;
}

static bool has_pair(const char *s, size_t n, char a, char b)
{
	for (size_t i = 1; i < n; i++)
		if (s[i - 1] == a && s[i] == b)
			return true;
	return false;
}

/* stackcollapse.pl's uncpp substitution: after the first "::", cut at the
 * last '(' or '<'. */
static size_t uncpp(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (s[i - 1] != ':' || s[i] != ':')
			continue;
		for (size_t k = n; k > i + 1; k--)
			if (s[k - 1] == '(' || s[k - 1] == '<')
				return k - 1;
		return n;
	}
	return n;
}

static int push_entry(struct dt_state *st, const char *s, size_t n)
{
	if (st->n == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 64;
		size_t *no = sf_reallocarray(st->offs, ncap, sizeof(*no));
		if (no)
			st->offs = no;
		size_t *nl = sf_reallocarray(st->lens, ncap, sizeof(*nl));
		if (nl)
			st->lens = nl;
		if (!no || !nl)
			return sf_error_nomem(st->ctx);
		st->cap = ncap;
	}
	st->offs[st->n] = st->names.len;
	st->lens[st->n] = n;
	st->n++;
	if (!sf_sbuf_add(&st->names, s, n))
		return sf_error_nomem(st->ctx);
	return 0;
}

/* One frame line (trimmed) of the current stack. */
static int on_frame(struct dt_state *st, const char *l, size_t n)
{
	bool inl, cpp, semi;
	const char *f = l;
	size_t fn = n;
	int rc;

	if (st->includeoffset) {
		inl = cpp = semi = true;
	} else {
		inl = has_pair(l, n, '-', '>');
		cpp = has_pair(l, n, ':', ':');
		semi = memchr(l, ';', n) != NULL;
		fn = without_offset(l, n);
	}
	if (cpp)
		fn = uncpp(f, fn);
	struct sf_sbuf *a = &st->a;
	a->len = 0;
	if (!fn) {
		if (!sf_sbuf_add(a, "-", 1))
			return sf_error_nomem(st->ctx);
	} else {
		/* repair a half-demangled Rust name after the "module`" */
		const char *bt = memchr(f, '`', fn);
		bool fixed = false;
		if (bt) {
			const char *fu = bt + 1, *fe = f + fn;
			const char *off = NULL;
			if (st->includeoffset) {
				for (const char *q = fe; q > fu; q--)
					if (q[-1] == '+') {
						off = q - 1;
						break;
					}
			}
			const char *ne = off ? off : fe;
			while (ne > fu && sf_is_space(ne[-1]))
				ne--;
			if (sf_rust_hashed(fu, (size_t)(ne - fu))) {
				if (!sf_sbuf_add(a, f, (size_t)(fu - f)) ||
				    !sf_fix_rust_symbol(a, fu, (size_t)(ne - fu)) ||
				    (off && !sf_sbuf_add(a, off,
							 (size_t)(fe - off))))
					return sf_error_nomem(st->ctx);
				fixed = true;
			}
		}
		if (!fixed && !sf_sbuf_add(a, f, fn))
			return sf_error_nomem(st->ctx);
	}
	if (!inl) {
		if (semi)
			for (size_t i = 0; i < a->len; i++)
				if (a->s[i] == ';')
					a->s[i] = ':';
		return push_entry(st, a->s, a->len);
	}
	/* "a->b->c": b and c are inlined into a; push c, b, a (leaf first) */
	size_t parts[256][2], np = 0;
	size_t q = 0;
	for (;;) {
		size_t e = q;
		while (e + 1 < a->len && !(a->s[e] == '-' && a->s[e + 1] == '>'))
			e++;
		if (e + 1 >= a->len)
			e = a->len;
		if (np < 256) {
			parts[np][0] = q;
			parts[np][1] = e;
			np++;
		}
		if (e == a->len)
			break;
		q = e + 2;
	}
	for (size_t i = np; i > 0; i--) {
		size_t s = parts[i - 1][0], e = parts[i - 1][1];
		while (s < e && a->s[s] == 'L')
			s++;
		struct sf_sbuf *b = &st->b;
		b->len = 0;
		if (!sf_sbuf_add(b, a->s + s, e - s) ||
		    (i > 1 && !sf_sbuf_add(b, "_[i]", 4)))
			return sf_error_nomem(st->ctx);
		if (semi)
			for (size_t k = 0; k < b->len; k++)
				if (b->s[k] == ';')
					b->s[k] = ':';
		if ((rc = push_entry(st, b->s, b->len)))
			return rc;
	}
	return 0;
}

static int on_count(struct dt_state *st, double count)
{
	struct sf_ctx *ctx = st->ctx;
	int rc;

	if (st->n > st->cap_ids) {
		sf_frame_id *ni = sf_reallocarray(st->ids, st->n, sizeof(*ni));
		if (!ni)
			return sf_error_nomem(ctx);
		st->ids = ni;
		st->cap_ids = st->n;
	}
	for (size_t i = 0; i < st->n; i++) {
		const char *s = st->names.s + st->offs[i];
		size_t n = st->lens[i];
		if (i == 0 && st->includeoffset)
			n = without_offset(s, n);   /* the leaf has none */
		struct sf_frame fr;
		sf_frame_init(&fr);
		st->a.len = 0;
		if (!sf_sbuf_add(&st->a, s, n))
			return sf_error_nomem(ctx);
		fr.name = st->a.s;
		const char *bt = memchr(s, '`', n);
		if (bt) {
			st->b.len = 0;
			if (!sf_sbuf_add(&st->b, s, (size_t)(bt - s)))
				return sf_error_nomem(ctx);
			fr.module = st->b.s;
		}
		if ((rc = sf_profile_frame(st->p, ctx, &fr, &st->ids[i])))
			return rc;
	}
	sf_stack_id stack;
	if ((rc = sf_profile_stack(st->p, ctx, st->ids, st->n, true, &stack)))
		return rc;
	st->n = 0;
	st->names.len = 0;
	return sf_profile_add(st->p, ctx, stack, SF_NO_THREAD, count);
}

static int dtrace_read(struct sf_profile *p, struct sf_input *in,
		       struct sf_ctx *ctx)
{
	struct dt_state st;
	char *line;
	size_t len;
	int rc;
	uint32_t t;
	bool header = true;
	uint64_t start_line = 0;

	memset(&st, 0, sizeof(st));
	st.p = p;
	st.ctx = ctx;
	st.includeoffset = sf_ctx_flag(ctx, "includeoffset");
	if ((rc = sf_profile_sample_type(p, ctx, "samples", "count", &t)))
		return rc;
	if (p->d.ntypes != 1) {
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge DTrace counts into a profile "
				"with several sample types");
	}
	while ((rc = sf_input_line(in, ctx, &line, &len)) > 0) {
		const char *s = line;
		size_t n = len;
		rc = 0;
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			break;
		}
		if (memchr(s, 0, n)) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "NUL byte: not DTrace text output");
			break;
		}
		trim(&s, &n);
		if (header) {
			/* everything up to the first blank line */
			if (!n)
				header = false;
			continue;
		}
		if (!n)
			continue;
		if (all_digits(s, n)) {
			double c;
			if (!sf_parse_weight(s, n, &c)) {
				rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
					      sf_input_lineno(in),
					      "count '%.*s' is too large",
					      (int)(n < 40 ? n : 40), s);
				break;
			}
			if ((rc = on_count(&st, c))) {
				sf_error_place(ctx, NULL, sf_input_lineno(in));
				break;
			}
			continue;
		}
		if (!st.n)
			start_line = sf_input_lineno(in);
		if ((rc = on_frame(&st, s, n)))
			break;
	}
	if (rc == 0 && header && sf_input_lineno(in) > 0)
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), 1,
			      "no blank line ends the header: not DTrace "
			      "aggregation output");
	if (rc == 0 && st.n)
		rc = sf_error(ctx, SF_EINPUT, sf_input_name(in), start_line,
			      "the stack starting here has no count line "
			      "(input ends in the middle of a stack)");
	sf_sbuf_free(&st.names);
	sf_sbuf_free(&st.a);
	sf_sbuf_free(&st.b);
	free(st.offs);
	free(st.lens);
	free(st.ids);
	return rc < 0 ? rc : 0;
}

/*
 * After the first blank line: frame lines holding a '`' (or a bare 0x
 * address) and then a line with only a count.
 */
static int dtrace_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	bool blank = false, frame = false;
	int lines = 0;

	while (i < n && lines < 400) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		if (!lf)
			break;  /* only whole lines */
		const char *s = (const char *)d + i;
		size_t len = (size_t)(lf - d) - i;
		i = (size_t)(lf - d) + 1;
		lines++;
		trim(&s, &len);
		if (!len) {
			blank = true;
			continue;
		}
		if (!blank)
			continue;
		if (all_digits(s, len))
			return frame ? 50 : 0;
		if (memchr(s, '`', len) ||
		    (len > 2 && s[0] == '0' && s[1] == 'x')) {
			frame = true;
			continue;
		}
		return 0;
	}
	return 0;
}

static const char *const dtrace_ext[] = { ".dtrace", NULL };

static const struct sf_option dtrace_ropts[] = {
	{ "includeoffset", NULL, "dtrace: keep the +0x offsets of "
	  "non-leaf frames (stackcollapse.pl --includeoffset)" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_dtrace = {
	.name = "dtrace",
	.description = "DTrace stack()/ustack() aggregation output",
	.extensions = dtrace_ext,
	.probe = dtrace_probe,
	.read = dtrace_read,
	.read_options = dtrace_ropts,
};
