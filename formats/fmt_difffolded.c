/*
 * fmt_difffolded.c - FlameGraph's difffolded.pl output (inferno's
 * diff-folded): `root;...;leaf BASE NEW`, the input of a differential
 * flame graph.
 *
 * Reading: the last two blank-separated fields are the counts (BASE then
 * NEW; non-negative, fractions allowed), the rest is the stack as in
 * collapsed stacks.  The profile gets the sample types ("base", "count")
 * and ("new", "count"), default "new", and prop "diff" = "1", so it is
 * the same shape sf_diff_build() makes.
 *
 * Writing needs a differential profile (sfconv --diff, or a difffolded
 * input).  One line per distinct stack, threads merged, sorted bytewise by
 * the stack text, names sanitised as in collapsed output.  Counts are
 * written as integers, the fraction dropped, as inferno-diff-folded does
 * (it reads "14.23" as 14); difffolded.pl's line order is Perl's hash
 * order, ours is sorted.
 */
#include "text.h"
#include "diff.h"
#include "chars.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The start of the last blank-separated field of line[0..e), or (size_t)-1. */
static size_t last_field(const char *line, size_t e)
{
	size_t c = e;

	while (c && !sf_is_blank(line[c - 1]))
		c--;
	return c == e || !c ? (size_t)-1 : c;
}

static bool is_count(const unsigned char *d, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!((d[i] >= '0' && d[i] <= '9') || d[i] == '.'))
			return false;
		k++;
	}
	return k > 0;
}

static int difffolded_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);
	size_t lines = 0, good = 0;

	while (i < n && lines < 20) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		size_t e = lf ? (size_t)(lf - d) : n;
		if (!lf && lines)
			break;
		size_t le = e;
		if (le > i && d[le - 1] == '\r')
			le--;
		if (le > i) {
			lines++;
			size_t b = le, a;
			while (b > i && !sf_is_blank((char)d[b - 1]))
				b--;
			a = b;
			while (a > i && sf_is_blank((char)d[a - 1]))
				a--;
			size_t s = a;
			while (s > i && !sf_is_blank((char)d[s - 1]))
				s--;
			if (b > i && s > i && is_count(d + b, le - b) &&
			    is_count(d + s, a - s) && d[i] != '#' &&
			    d[i] != '{' && d[i] != '@')
				good++;
		}
		i = e + 1;
	}
	if (!lines || good != lines)
		return 0;
	/* beats collapsed (30), whose probe also accepts these lines */
	return lines >= 2 ? 35 : 16;
}

static int difffolded_read(struct sf_profile *p, struct sf_input *in,
			   struct sf_ctx *ctx)
{
	struct sf_stack_cache cache = { 0 };
	uint32_t tb, tn;
	double w[64] = { 0 };
	char *line;
	size_t len;
	bool first = true;
	int rc;

	if ((rc = sf_profile_sample_type(p, ctx, "base", "count", &tb)) ||
	    (rc = sf_profile_sample_type(p, ctx, "new", "count", &tn)))
		return rc;
	if (p->d.ntypes > 64)
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge differential stacks into a "
				"profile with more than 64 sample types");
	p->d.meta.default_type = tn;
	if ((rc = sf_profile_set_prop(p, ctx, "diff", "1")))
		return rc;
	while ((rc = sf_input_line(in, ctx, &line, &len)) > 0) {
		if (sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			break;
		}
		if (first) {
			first = false;
			if (len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
				line += 3;
				len -= 3;
			}
		}
		size_t e = len;
		while (e && sf_is_blank(line[e - 1]))
			e--;
		if (!e)
			continue;
		size_t cn = last_field(line, e), a, cb = (size_t)-1;
		if (cn != (size_t)-1) {
			a = cn;
			while (a && sf_is_blank(line[a - 1]))
				a--;
			cb = last_field(line, a);
		}
		if (cn == (size_t)-1 || cb == (size_t)-1 ||
		    !sf_parse_weight(line + cn, e - cn, &w[tn]) ||
		    !sf_parse_weight(line + cb, a - cb, &w[tb])) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected 'STACK BASE NEW' (frames "
				      "separated by ';', then two "
				      "non-negative numbers)");
			break;
		}
		size_t s = cb;
		while (s && sf_is_blank(line[s - 1]))
			s--;
		sf_stack_id stack;
		if ((rc = sf_stack_from_text(p, ctx, &cache, line, s,
					     &stack)) ||
		    (rc = sf_profile_add_sample(p, ctx, stack, SF_NO_THREAD, 0,
						SF_NO_TIME, w))) {
			sf_error_place(ctx, sf_input_name(in),
				       sf_input_lineno(in));
			break;
		}
	}
	sf_stack_cache_free(&cache);
	return rc < 0 ? rc : 0;
}

struct line {
	size_t off, len;
	double b, n;
};

static int line_cmp(const void *x_, const void *y_, void *text)
{
	const struct line *x = x_, *y = y_;
	const char *t = text;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(t + x->off, t + y->off, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void put_count(struct sf_output *o, double v)
{
	v = trunc(v);
	if (v < 18446744073709551616.0)
		sf_output_u64(o, (uint64_t)v);
	else
		sf_output_num(o, v);
}

static int difffolded_write(const struct sf_profile *p, struct sf_output *out,
			    struct sf_ctx *ctx)
{
	uint32_t tb, tn;
	double *wb = NULL, *wn = NULL;
	bool *used = NULL;
	struct line *lines = NULL;
	struct sf_output *text = NULL;
	size_t nlines = 0;
	int rc = 0;

	if (!sf_diff_types(p, &tb, &tn))
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"difffolded output needs two profiles to "
				"compare (sfconv --diff BASE NEW)");
	size_t ns = p->d.nstacks ? p->d.nstacks : 1;
	wb = sf_calloc(ns, sizeof(*wb));
	wn = sf_calloc(ns, sizeof(*wn));
	used = sf_calloc(ns, sizeof(*used));
	if (!wb || !wn || !used) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_stack_id s = p->d.samples[i].stack;
		wb[s] += sf_weight(p, i, tb);
		wn[s] += sf_weight(p, i, tn);
		if (!used[s])
			nlines++;
		used[s] = true;
	}
	if (!(lines = sf_calloc(nlines ? nlines : 1, sizeof(*lines))) ||
	    (rc = sf_output_mem(&text, ctx))) {
		rc = rc ? rc : sf_error_nomem(ctx);
		goto out;
	}
	nlines = 0;
	for (size_t s = 0; s < p->d.nstacks; s++) {
		size_t before, after;
		if (!used[s])
			continue;
		sf_output_mem_data(text, &before);
		sf_write_stack_text(text, p, (sf_stack_id)s, NULL);
		sf_output_mem_data(text, &after);
		lines[nlines].off = before;
		lines[nlines].len = after - before;
		lines[nlines].b = wb[s];
		lines[nlines].n = wn[s];
		nlines++;
	}
	if (sf_output_failed(text)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	size_t tlen;
	const char *tx = sf_output_mem_data(text, &tlen);
	qsort_r(lines, nlines, sizeof(*lines), line_cmp, (void *)tx);
	for (size_t i = 0; i < nlines; i++) {
		double b = lines[i].b, n = lines[i].n;
		/* the first line written, even when the merge below moves
		 * i past 0 */
		bool first = !i;
		/* names differing only in ';' vs ':' print alike: merge */
		while (i + 1 < nlines &&
		       !line_cmp(&lines[i], &lines[i + 1], (void *)tx)) {
			i++;
			b += lines[i].b;
			n += lines[i].n;
		}
		if (first)
			sf_text_guard_mark(out, tx + lines[i].off,
					   lines[i].len);
		sf_output_write(out, tx + lines[i].off, lines[i].len);
		sf_output_putc(out, ' ');
		put_count(out, b);
		sf_output_putc(out, ' ');
		put_count(out, n);
		sf_output_putc(out, '\n');
	}
out:
	free(wb);
	free(wn);
	free(used);
	free(lines);
	if (text)
		sf_output_abort(text);
	return rc;
}

static const char *const difffolded_ext[] = { ".difffolded", ".diff-folded",
					      NULL };

const struct sf_format sf_format_difffolded = {
	.name = "difffolded",
	.description = "differential folded stacks: root;...;leaf BASE NEW",
	.extensions = difffolded_ext,
	.probe = difffolded_probe,
	.read = difffolded_read,
	.write = difffolded_write,
	.caps = SF_CAP_WEIGHTS | SF_CAP_TYPES | SF_CAP_DIFF,
	.priority = 1,
};
