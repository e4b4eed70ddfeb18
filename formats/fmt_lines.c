/*
 * fmt_lines.c - sample lines: one sample per line,
 *
 *     THREAD <TAB> WEIGHT <TAB> root;...;leaf
 *
 * in the order the samples were taken.  THREAD is `TID`, `TID:NAME`,
 * `:NAME` (a name without an id), or empty (no thread); on input a field
 * that is not all digits and has no "DIGITS:" prefix is also read as a
 * bare name.  WEIGHT is the sample's weight in the profile's default
 * sample type (fractional allowed).  An empty third field is an empty
 * stack.  Frame names are written as in collapsed stacks (';' -> ':', TAB,
 * CR and LF -> space).
 */
#include "text.h"

#include <stdlib.h>
#include <string.h>

static int lines_probe(const unsigned char *d, size_t n)
{
	size_t i = 0, lines = 0;

	if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
		i = 3;
	while (i < n && lines < 20) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		size_t e = lf ? (size_t)(lf - d) : n;
		if (!lf && lines)
			break;
		const unsigned char *t1 = memchr(d + i, '\t', e - i);
		if (!t1)
			return 0;
		const unsigned char *t2 = memchr(t1 + 1, '\t', (size_t)(d + e - t1 - 1));
		if (!t2 || t2 == t1 + 1)
			return 0;
		for (const unsigned char *q = t1 + 1; q < t2; q++)
			if (!((*q >= '0' && *q <= '9') || *q == '.' ||
			      *q == 'e' || *q == 'E' || *q == '+' || *q == '-'))
				return 0;
		lines++;
		i = e + 1;
	}
	return lines ? 40 : 0;
}

static int parse_thread(struct sf_profile *p, struct sf_ctx *ctx,
			const char *f, size_t n, sf_thread_idx *out)
{
	size_t i = 0;
	int64_t tid = SF_NO_ID;
	char namebuf[4096];
	const char *name = NULL;

	if (!n) {
		*out = SF_NO_THREAD;
		return 0;
	}
	while (i < n && f[i] >= '0' && f[i] <= '9')
		i++;
	if (i == n || (f[i] == ':')) {
		if (i && !sf_parse_i64(f, i, &tid))
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"thread id out of range");
		if (i < n) {
			f += i + 1;
			n -= i + 1;
			name = f;
		}
	} else {
		name = f;
	}
	if (name) {
		char *heap = NULL;
		if (n >= sizeof(namebuf)) {
			if (!(heap = sf_strndup(name, n)))
				return sf_error(ctx, SF_ENOMEM, NULL, 0,
						"out of memory");
			name = heap;
		} else {
			memcpy(namebuf, name, n);
			namebuf[n] = 0;
			name = namebuf;
		}
		int rc = sf_profile_thread(p, ctx, SF_NO_ID, tid, name, out);
		free(heap);
		return rc;
	}
	return sf_profile_thread(p, ctx, SF_NO_ID, tid, NULL, out);
}

static int lines_read(struct sf_profile *p, struct sf_input *in,
		      struct sf_ctx *ctx)
{
	struct sf_stack_cache cache = { 0 };
	char *line;
	size_t len;
	int rc;
	uint32_t t;
	double w[64] = { 0 };
	bool first = true;
	/* the previous line's thread field, to skip the thread lookup */
	char *prev = NULL;
	size_t prevlen = 0;
	sf_thread_idx prevthread = SF_NO_THREAD;

	if ((rc = sf_profile_default_type(p, ctx, &t)))
		return rc;
	if (p->d.ntypes > 64)
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge sample lines into a profile "
				"with more than 64 sample types");
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
		/* Names are C strings in the model: a NUL would cut one
		 * short silently (and it means binary data, not text). */
		if (memchr(line, 0, len)) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "unexpected NUL byte in a text line "
				      "(binary data?)");
			break;
		}
		if (!len)
			continue;
		char *t1 = memchr(line, '\t', len);
		char *t2 = t1 ? memchr(t1 + 1, '\t',
				       len - (size_t)(t1 + 1 - line)) : NULL;
		if (!t2) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected THREAD<TAB>WEIGHT<TAB>STACK");
			break;
		}
		if (!sf_parse_weight(t1 + 1, (size_t)(t2 - t1 - 1), &w[t])) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected a non-negative number as "
				      "WEIGHT, found '%.*s'",
				      (int)(t2 - t1 - 1 > 40 ? 40 :
					    t2 - t1 - 1), t1 + 1);
			break;
		}
		size_t tl = (size_t)(t1 - line);
		sf_thread_idx th = prevthread;
		if (!prev || tl != prevlen || memcmp(prev, line, tl)) {
			if ((rc = parse_thread(p, ctx, line, tl, &th)))
				goto located;
			char *np = realloc(prev, tl + 1);
			if (!np) {
				rc = sf_error(ctx, SF_ENOMEM, NULL, 0,
					      "out of memory");
				break;
			}
			prev = np;
			memcpy(prev, line, tl);
			prevlen = tl;
			prevthread = th;
		}
		sf_stack_id stack;
		char *st = t2 + 1;
		if ((rc = sf_stack_from_text(p, ctx, &cache, st,
					     len - (size_t)(st - line),
					     &stack)) ||
		    (rc = sf_profile_add_sample(p, ctx, stack, th, 0,
						SF_NO_TIME, w)))
			goto located;
		continue;
located:
		if (!ctx->err.line)
			ctx->err.line = sf_input_lineno(in);
		if (!ctx->err.source[0])
			snprintf(ctx->err.source, sizeof(ctx->err.source),
				 "%s", sf_input_name(in));
		break;
	}
	free(prev);
	sf_stack_cache_free(&cache);
	return rc < 0 ? rc : 0;
}

static void write_thread(struct sf_output *o, const struct sf_thread *th)
{
	if (th->tid != SF_NO_ID)
		sf_output_i64(o, th->tid);
	if (th->name) {
		sf_output_putc(o, ':');
		for (const char *s = th->name; *s; s++)
			sf_output_putc(o, *s == '\t' || *s == '\n' ||
					  *s == '\r' ? ' ' : *s);
	}
}

static int lines_write(const struct sf_profile *p, struct sf_output *out,
		       struct sf_ctx *ctx)
{
	uint32_t t = p->d.meta.default_type < p->d.ntypes ?
			     p->d.meta.default_type :
			     (uint32_t)(p->d.ntypes ? p->d.ntypes - 1 : 0);

	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *s = &p->d.samples[i];
		if ((i & 0xffff) == 0 && sf_interrupted(ctx))
			return sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
		if (s->thread != SF_NO_THREAD)
			write_thread(out, &p->d.threads[s->thread]);
		sf_output_putc(out, '\t');
		sf_output_num(out, p->d.ntypes ? sf_weight(p, i, t) : 1);
		sf_output_putc(out, '\t');
		sf_write_stack_text(out, p, s->stack, NULL);
		sf_output_putc(out, '\n');
	}
	return 0;
}

static const char *const lines_ext[] = { ".samples.tsv", ".lines", NULL };

const struct sf_format sf_format_lines = {
	.name = "lines",
	.description = "sample lines: THREAD<TAB>WEIGHT<TAB>root;...;leaf",
	.extensions = lines_ext,
	.probe = lines_probe,
	.read = lines_read,
	.write = lines_write,
	.caps = SF_CAP_THREADS | SF_CAP_WEIGHTS | SF_CAP_ORDER,
	.needs_order = true,
	.priority = 2,
};
