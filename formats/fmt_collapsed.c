/*
 * fmt_collapsed.c - FlameGraph's "folded" stacks: `root;...;leaf COUNT`.
 *
 * Reading: the count is the last blank-separated field and may be
 * fractional; everything before the blanks is the stack, split on ';', names
 * kept verbatim (spaces included).  CRLF line ends and a UTF-8 BOM are
 * accepted; blank lines are skipped.  An empty stack (" 5") is a sample with
 * no frames.  Collapsed stacks carry no threads and no time.
 *
 * Writing: one line per distinct stack (per thread with --thread-prefix),
 * sorted bytewise by the stack text, with the summed weight of the
 * profile's default sample type.  ';' inside a name is written as ':' (the
 * separator cannot be escaped in this syntax), LF/CR/TAB as spaces.
 */
#include "text.h"
#include "utf16.h"

#include <stdlib.h>
#include <string.h>

static int probe_utf8(const unsigned char *d, size_t n);

static int collapsed_probe(const unsigned char *d, size_t n)
{
	/* UTF-16 with a BOM: judge the text, not its encoding */
	char u8[SF_PROBE_BYTES];
	size_t m = sf_utf16_probe(d, n, u8, sizeof(u8));

	return m ? probe_utf8((const unsigned char *)u8, m) :
		   probe_utf8(d, n);
}

static int probe_utf8(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);
	size_t lines = 0, good = 0;

	while (i < n && lines < 20) {
		const unsigned char *lf = memchr(d + i, '\n', n - i);
		size_t e = lf ? (size_t)(lf - d) : n;
		if (!lf && lines)
			break;  /* a partial last line proves nothing */
		size_t le = e;
		if (le > i && d[le - 1] == '\r')
			le--;
		if (le > i) {
			lines++;
			size_t j = le;
			while (j > i && ((d[j - 1] >= '0' && d[j - 1] <= '9') ||
					 d[j - 1] == '.'))
				j--;
			if (j < le && j > i && (d[j - 1] == ' ' ||
						d[j - 1] == '\t') &&
			    d[i] != '@' && d[i] != '#' && d[i] != '{' &&
			    d[i] != '<' && !memchr(d + i, '\t', j - 1 - i))
				good++;
		}
		i = e + 1;
	}
	if (!lines || good != lines)
		return 0;
	return lines >= 2 ? 30 : 15;
}

static int collapsed_read(struct sf_profile *p, struct sf_input *in,
			  struct sf_ctx *ctx)
{
	struct sf_stack_cache cache = { 0 };
	char *line;
	size_t len;
	int rc;
	uint32_t t;
	double w[64] = { 0 };
	bool first = true;
	struct sf_input *u16;
	char *u16buf;

	/* UTF-16 with a BOM: read its UTF-8 transcoding instead */
	if ((rc = sf_utf16_input(&u16, &u16buf, in, ctx)))
		return rc;
	if (u16) {
		rc = collapsed_read(p, u16, ctx);
		sf_input_close(u16);
		free(u16buf);
		return rc;
	}

	if ((rc = sf_profile_default_type(p, ctx, &t)))
		return rc;
	if (p->d.ntypes > 64)
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"cannot merge collapsed stacks into a profile "
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
		/* count: after the last run of blanks */
		size_t e = len;
		while (e && (line[e - 1] == ' ' || line[e - 1] == '\t'))
			e--;
		if (!e)
			continue;   /* blank line */
		size_t c = e;
		while (c && line[c - 1] != ' ' && line[c - 1] != '\t')
			c--;
		if (!c || !sf_parse_weight(line + c, e - c, &w[t])) {
			rc = sf_error(ctx, SF_EINPUT, sf_input_name(in),
				      sf_input_lineno(in),
				      "expected 'STACK COUNT' (frames "
				      "separated by ';', then a blank and a "
				      "non-negative number)");
			break;
		}
		size_t s = c;
		while (s && (line[s - 1] == ' ' || line[s - 1] == '\t'))
			s--;
		sf_stack_id stack;
		if ((rc = sf_stack_from_text(p, ctx, &cache, line, s,
					     &stack)) ||
		    (rc = sf_profile_add_sample(p, ctx, stack, SF_NO_THREAD, 0,
						SF_NO_TIME, w))) {
			if (!ctx->err.line)
				ctx->err.line = sf_input_lineno(in);
			if (!ctx->err.source[0])
				snprintf(ctx->err.source,
					 sizeof(ctx->err.source), "%s",
					 sf_input_name(in));
			break;
		}
	}
	sf_stack_cache_free(&cache);
	return rc < 0 ? rc : 0;
}

/* One output line before sorting. */
struct entry {
	size_t off, len;   /* stack text in the text buffer */
	double weight;
};

static const char *g_text;   /* qsort has no context argument in C11 */

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(g_text + x->off, g_text + y->off, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

struct key {
	sf_thread_idx thread;
	sf_stack_id stack;
	double weight;
	bool used;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int collapsed_write(const struct sf_profile *p, struct sf_output *out,
			   struct sf_ctx *ctx)
{
	bool prefix = sf_ctx_flag(ctx, "thread-prefix");
	uint32_t t = p->d.ntypes ? (p->d.meta.default_type < p->d.ntypes ?
				    p->d.meta.default_type :
				    (uint32_t)p->d.ntypes - 1) : 0;
	struct key *keys = sf_calloc(p->d.nsamples, sizeof(*keys));
	struct sf_output *text = NULL;
	struct entry *ents = NULL;
	size_t nkeys = 0, nents = 0;
	int rc = 0;

	if (!keys)
		return sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	for (size_t i = 0; i < p->d.nsamples; i++) {
		keys[i].thread = prefix ? p->d.samples[i].thread : SF_NO_THREAD;
		keys[i].stack = p->d.samples[i].stack;
		keys[i].weight = p->d.ntypes ? sf_weight(p, i, t) : 1;
	}
	qsort(keys, p->d.nsamples, sizeof(*keys), key_cmp);
	for (size_t i = 0; i < p->d.nsamples; i++) {
		if (nkeys && !key_cmp(&keys[nkeys - 1], &keys[i]))
			keys[nkeys - 1].weight += keys[i].weight;
		else
			keys[nkeys++] = keys[i];
	}
	if ((rc = sf_output_mem(&text, ctx)))
		goto out;
	if (!(ents = sf_calloc(nkeys, sizeof(*ents)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nkeys; i++) {
		size_t before, after;
		char label[512];
		const char *pre = NULL;
		sf_output_mem_data(text, &before);
		if (prefix && keys[i].thread != SF_NO_THREAD) {
			sf_thread_label(&p->d.threads[keys[i].thread], label,
					sizeof(label));
			pre = label;
		}
		sf_write_stack_text(text, p, keys[i].stack, pre);
		sf_output_mem_data(text, &after);
		ents[nents].off = before;
		ents[nents].len = after - before;
		ents[nents].weight = keys[i].weight;
		nents++;
	}
	if (sf_output_failed(text)) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	size_t tlen;
	g_text = sf_output_mem_data(text, &tlen);
	qsort(ents, nents, sizeof(*ents), entry_cmp);
	for (size_t i = 0; i < nents; i++) {
		double w = ents[i].weight;
		/* equal texts (names that differ only in ';' vs ':', or
		 * threads with equal labels) merge */
		while (i + 1 < nents && !entry_cmp(&ents[i], &ents[i + 1]))
			w += ents[++i].weight;
		sf_output_write(out, g_text + ents[i].off, ents[i].len);
		sf_output_putc(out, ' ');
		sf_output_num(out, w);
		sf_output_putc(out, '\n');
	}
out:
	free(keys);
	free(ents);
	if (text)
		sf_output_abort(text);
	return rc;
}

static const char *const collapsed_ext[] = { ".collapsed", ".folded",
					     ".stacks", NULL };

static const struct sf_option collapsed_wopts[] = {
	{ "thread-prefix", NULL,
	  "collapsed: put the thread (NAME-TID) as the root frame" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_collapsed = {
	.name = "collapsed",
	.description = "FlameGraph folded stacks: root;...;leaf COUNT",
	.extensions = collapsed_ext,
	.probe = collapsed_probe,
	.read = collapsed_read,
	.write = collapsed_write,
	.caps = SF_CAP_WEIGHTS,
	.priority = 1,
	.write_options = collapsed_wopts,
};
