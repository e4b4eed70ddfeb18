/*
 * fmt_html.c - one self-contained HTML report: flame graph and icicle,
 * call tree, flat table, callers/callees, transforms, the call-graph
 * picture, per-thread tracks over time, a capture's sample report, and
 * the differential views of a comparison, in a page that needs no
 * network.
 *
 * The page is three source files kept in formats/html/ (report.html, the
 * body; report.css; report.js), embedded into the binary at build time
 * (the Makefile's html.gen.h rule, with xxd -i).  The writer adds:
 *   - a Content-Security-Policy meta tag: default-src 'none' (no network
 *     of any kind: no fetch, no images, fonts or frames from anywhere),
 *     the one script and the one style allowed by their sha256, computed
 *     by the same build rule;
 *   - the profile, gzip'ed and base64-encoded in a <script
 *     type="application/gzip+base64" id="sf-data"> element (never
 *     executed; base64 cannot end the element), which the page inflates
 *     with the browser's own DecompressionStream.
 *
 * The data is the model's, by unique stack, not by sample (but for the
 * tracks of timed samples), so its size does not grow with the number of
 * samples of an aggregated input.  Once
 * inflated it is a 4-byte little-endian length, that many bytes of JSON,
 * then the stack tree in varints (LEB128, 7 bits a byte, low first), which
 * the page reads into typed arrays without parsing text:
 *   JSON   {"v":2, "type", "unit", "diff", "samples" (samples added),
 *          "source" (input format), "n" (stack nodes, the root included),
 *          "names": the distinct frame names, sorted by bytes (strcmp), so
 *          the page's children order by index is flamegraph.pl's order;
 *          "mods": distinct module names; "fmod": per name its module
 *          index, -1 for none (the first module a frame of that name has)}
 *          Names that are not valid UTF-8 have U+FFFD for the bad bytes.
 *   stk    for stack node i = 1..n-1 of the profile's prefix tree:
 *          varint i - parent, varint name index
 *   w      the self weights in the default sample type (summed over
 *          threads and labels): varint count of non-zero nodes, then per
 *          such node varint (node - previous such node, starting from 0)
 *          and the weight: an integer v of magnitude below 2^52 as varint
 *          of 2 * zigzag(v) (zigzag: 2v for v >= 0, -2v - 1 below), any
 *          other value as varint 1 and the 8 bytes of the double, little
 *          endian.
 *   b      for a comparison, the BASE side the same way (w is NEW).
 *   tracks when samples have timestamps and threads (a capture, a trace;
 *          at most HTML_MAX_TRACK samples), per thread of the JSON's
 *          "threads" [{"name", "proc"}] ("proc": its process,
 *          "comm-PID", where the thread has a pid), in that order:
 *          varint count, then per
 *          sample in time order varint (time - previous time; the first
 *          from the JSON's "t0", ns), varint stack node, varint 1 + index
 *          of its "state" label in the JSON's "states" (0: none).  The
 *          page draws one track per thread over time, under a heading
 *          per process when the threads belong to several.  The writer keeps
 *          sample order (needs_order) for them, so a timed input's page
 *          grows with its samples; an untimed (aggregated) one's does not.
 * For a capture (some sample carries the "state" label sfcapture gives
 * every sample) the JSON also holds "sample": the text of the `sample`
 * writer (the macOS sample report: per thread its tree with running and
 * blocked shares), which the page shows as text.  The JSON also holds
 * the call-graph picture (html_callgraph.c) as "callgraph" (SVG text,
 * Graphviz's) where Graphviz could draw it, which the page parses as XML
 * (never as HTML), strips of anything active and shows.
 * The page builds its DOM with textContent only.
 */
#include "html.h"
#include "format.h"
#include "diff.h"

#include "html.gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sample writer, named directly rather than looked up in the format
 * table, which names this writer: the table and this file would call
 * each other. */
extern const struct sf_format sf_format_sample;

/* One JSON string: bad UTF-8 as U+FFFD, and the characters that could
 * end a <script> element or start markup as \u escapes. */
static void json_str(struct sf_output *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	sf_output_putc(o, '"');
	while (*p) {
		unsigned c = *p;
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
			     (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0;
		for (size_t k = 1; ok && k < len; k++)
			ok = (p[k] & 0xc0) == 0x80;
		/* overlong forms, surrogates and values past U+10FFFF */
		if (ok && len == 2 && c < 0xc2)
			ok = false;
		if (ok && len == 3 && ((c == 0xe0 && p[1] < 0xa0) ||
				       (c == 0xed && p[1] >= 0xa0)))
			ok = false;
		if (ok && len == 4 && ((c == 0xf0 && p[1] < 0x90) ||
				       c > 0xf4 || (c == 0xf4 && p[1] >= 0x90)))
			ok = false;
		if (!ok) {
			sf_output_puts(o, "\\ufffd");
			p++;
			continue;
		}
		if (len > 1) {
			sf_output_write(o, p, len);
			p += len;
			continue;
		}
		if (c == '"' || c == '\\') {
			sf_output_putc(o, '\\');
			sf_output_putc(o, (int)c);
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&' ||
			   c == 0x7f) {
			sf_output_printf(o, "\\u%04x", c);
		} else {
			sf_output_putc(o, (int)c);
		}
		p++;
	}
	sf_output_putc(o, '"');
}

/* HTML text (the title). */
static void html_text(struct sf_output *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': sf_output_puts(o, "&amp;"); break;
		case '<': sf_output_puts(o, "&lt;"); break;
		case '>': sf_output_puts(o, "&gt;"); break;
		case '"': sf_output_puts(o, "&quot;"); break;
		default: sf_output_putc(o, *s);
		}
	}
}

static void base64(struct sf_output *o, const unsigned char *b, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)b[i + 1] << 8;
		if (i + 2 < n)
			v |= b[i + 2];
		q[0] = t[v >> 18 & 63];
		q[1] = t[v >> 12 & 63];
		q[2] = i + 1 < n ? t[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? t[v & 63] : '=';
		sf_output_write(o, q, 4);
	}
}

static void varint(struct sf_output *o, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 127);
		v >>= 7;
		if (v)
			b[n] |= 128;
		n++;
	} while (v);
	sf_output_write(o, b, n);
}

/* The self weights of one side (see the top of this file). */
static void weights(struct sf_output *o, const double *w, size_t ns,
		    size_t side)
{
	size_t nz = 0, prev = 0;

	for (size_t s = 1; s < ns; s++)
		nz += w[2 * s + side] != 0;
	varint(o, nz);
	for (size_t s = 1; s < ns; s++) {
		double v = w[2 * s + side];
		if (v == 0)
			continue;
		varint(o, s - prev);
		prev = s;
		if (v == trunc(v) && fabs(v) < 4503599627370496.0) {
			int64_t i = (int64_t)v;
			varint(o, 2 * (i >= 0 ? 2 * (uint64_t)i :
				       2 * (uint64_t)(-(i + 1)) + 1));
		} else {
			unsigned char b[8];
			uint64_t bits;
			memcpy(&bits, &v, 8);
			for (int k = 0; k < 8; k++)
				b[k] = (unsigned char)(bits >> (8 * k));
			varint(o, 1);
			sf_output_write(o, b, 8);
		}
	}
}

#define HTML_MAX_TRACK 2000000

static const struct sf_profile *sort_p;

/* Samples by thread, then time, then index. */
static int by_thread_time(const void *a, const void *b)
{
	const struct sf_sample *x = &sort_p->d.samples[*(const uint32_t *)a];
	const struct sf_sample *y = &sort_p->d.samples[*(const uint32_t *)b];

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The tracks (see the top of this file): their JSON members into `o`,
 * their samples into `bin`. */
static int write_tracks(const struct sf_profile *p, struct sf_output *o,
			struct sf_output *bin, struct sf_ctx *ctx)
{
	const struct sf_profile_data *d = &p->d;
	uint32_t *idx = malloc((d->nsamples + 1) * sizeof(*idx));
	const char **states = calloc(d->nlabel_sets + 1, sizeof(*states));
	uint32_t *stidx = calloc(d->nlabel_sets + 1, sizeof(*stidx));
	size_t n = 0, nstates = 0;
	int64_t t0 = INT64_MAX;

	if (!idx || !states || !stidx) {
		free(idx);
		free(states);
		free(stidx);
		return sf_error_nomem(ctx);
	}
	for (size_t i = 0; i < d->nsamples; i++)
		if (d->samples[i].time != SF_NO_TIME &&
		    d->samples[i].thread != SF_NO_THREAD) {
			idx[n++] = (uint32_t)i;
			if (d->samples[i].time < t0)
				t0 = d->samples[i].time;
		}
	sort_p = p;
	qsort(idx, n, sizeof(*idx), by_thread_time);
	/* states in order of first label set that has one */
	for (size_t l = 1; l < d->nlabel_sets; l++) {
		const char *v = sf_profile_label(p, (sf_labels_id)l, "state");
		size_t k = 0;
		if (!v)
			continue;
		while (k < nstates && strcmp(states[k], v))
			k++;
		if (k == nstates)
			states[nstates++] = v;
		stidx[l] = (uint32_t)k + 1;
	}
	sf_output_puts(o, ",\"t0\":");
	sf_output_i64(o, t0);
	sf_output_puts(o, ",\"states\":[");
	for (size_t k = 0; k < nstates; k++) {
		if (k)
			sf_output_putc(o, ',');
		json_str(o, states[k]);
	}
	sf_output_puts(o, "],\"threads\":[");
	for (size_t t = 0; t < d->nthreads; t++) {
		char label[256];
		sf_thread_label(&d->threads[t], label, sizeof(label));
		sf_output_puts(o, t ? ",{\"name\":" : "{\"name\":");
		json_str(o, label);
		if (d->threads[t].pid != SF_NO_ID) {
			/* its process, "comm-PID", to group the tracks by */
			sf_process_label(p, &d->threads[t], label,
					 sizeof(label));
			sf_output_puts(o, ",\"proc\":");
			json_str(o, label);
		}
		sf_output_putc(o, '}');
	}
	sf_output_putc(o, ']');
	for (size_t t = 0, i = 0; t < d->nthreads; t++) {
		size_t e = i;
		while (e < n && d->samples[idx[e]].thread == t)
			e++;
		varint(bin, e - i);
		int64_t prev = t0;
		for (; i < e; i++) {
			const struct sf_sample *x = &d->samples[idx[i]];
			varint(bin, (uint64_t)(x->time - prev));
			prev = x->time;
			varint(bin, x->stack);
			varint(bin, stidx[x->labels]);
		}
	}
	free(idx);
	free(states);
	free(stidx);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct sf_frame *fa = &sort_p->d.frames[*(const uint32_t *)a];
	const struct sf_frame *fb = &sort_p->d.frames[*(const uint32_t *)b];
	int c = strcmp(fa->name, fb->name);

	if (c)
		return c;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The data (see the top of this file): the JSON into `o`, the stack tree
 * into `bin`. */
static int write_data(const struct sf_profile *p, struct sf_output *o,
		      struct sf_output *bin, const char *sample,
		      const char *cg, struct sf_ctx *ctx)
{
	const struct sf_profile_data *d = &p->d;
	size_t nf = d->nframes, ns = d->nstacks;
	uint32_t *order = malloc((nf + 1) * sizeof(*order));
	uint32_t *fname = malloc((nf + 1) * sizeof(*fname));
	int32_t *fmod = malloc((nf + 1) * sizeof(*fmod));
	const char **mods = malloc((nf + 1) * sizeof(*mods));
	double *w = calloc(ns + 1, sizeof(*w) * 2);
	uint32_t tb = 0, tn = d->meta.default_type;
	bool diff = sf_diff_types(p, &tb, &tn);
	size_t nnames = 0, nmods = 0;
	int rc = 0;

	if (!order || !fname || !fmod || !mods || !w) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	/* names: frames sorted by name, equal names one index */
	for (size_t i = 0; i < nf; i++)
		order[i] = (uint32_t)i;
	sort_p = p;
	qsort(order, nf, sizeof(*order), by_name);
	/* modules: distinct, sorted */
	for (size_t i = 0; i < nf; i++)
		if (d->frames[i].module)
			mods[nmods++] = d->frames[i].module;
	qsort(mods, nmods, sizeof(*mods), by_str);
	size_t m = 0;
	for (size_t i = 0; i < nmods; i++)
		if (!m || strcmp(mods[m - 1], mods[i]))
			mods[m++] = mods[i];
	nmods = m;

	sf_output_puts(o, "{\"v\":2,\"type\":");
	const struct sf_sample_type *ty = d->ntypes ? &d->types[tn] : NULL;
	json_str(o, ty ? ty->type : "samples");
	sf_output_puts(o, ",\"unit\":");
	json_str(o, ty && ty->unit ? ty->unit : "count");
	sf_output_printf(o, ",\"diff\":%s,\"samples\":", diff ? "true" :
			 "false");
	sf_output_u64(o, d->nadded);
	sf_output_puts(o, ",\"source\":");
	json_str(o, d->meta.source_format ? d->meta.source_format : "");
	if (sample) {
		sf_output_puts(o, ",\"sample\":");
		json_str(o, sample);
	}
	if (cg) {
		sf_output_puts(o, ",\"callgraph\":");
		json_str(o, cg);
	}
	sf_output_puts(o, ",\"n\":");
	sf_output_u64(o, ns);
	sf_output_puts(o, ",\"names\":[");
	for (size_t i = 0; i < nf; i++) {
		const char *nm = d->frames[order[i]].name;
		if (!i || strcmp(d->frames[order[i - 1]].name, nm)) {
			if (nnames)
				sf_output_putc(o, ',');
			json_str(o, nm);
			fmod[nnames++] = -1;
		}
		fname[order[i]] = (uint32_t)(nnames - 1);
		const char *mod = d->frames[order[i]].module;
		if (mod && fmod[nnames - 1] < 0) {
			const char **hit = bsearch(&mod, mods, nmods,
						   sizeof(*mods), by_str);
			fmod[nnames - 1] = (int32_t)(hit - mods);
		}
	}
	sf_output_puts(o, "],\"mods\":[");
	for (size_t i = 0; i < nmods; i++) {
		if (i)
			sf_output_putc(o, ',');
		json_str(o, mods[i]);
	}
	sf_output_puts(o, "],\"fmod\":[");
	for (size_t i = 0; i < nnames; i++) {
		if (i)
			sf_output_putc(o, ',');
		sf_output_i64(o, fmod[i]);
	}
	sf_output_putc(o, ']');
	for (size_t s = 1; s < ns; s++) {
		const struct sf_stack_node *sn = &d->stacks[s];
		/* a prefix tree adds a parent before its children */
		if (sn->parent >= s) {
			rc = sf_error(ctx, SF_EINPUT, NULL, 0, "html: stack "
				      "%zu comes before its parent", s);
			goto out;
		}
		varint(bin, s - sn->parent);
		varint(bin, fname[sn->frame]);
	}
	for (size_t i = 0; i < d->nsamples; i++) {
		if (!d->ntypes)
			break;
		w[2 * d->samples[i].stack] += sf_weight(p, i, tn);
		if (diff)
			w[2 * d->samples[i].stack + 1] += sf_weight(p, i, tb);
	}
	weights(bin, w, ns, 0);
	if (diff)
		weights(bin, w, ns, 1);
	if (!diff && d->has_time && d->nthreads && d->nsamples &&
	    d->nsamples <= HTML_MAX_TRACK)
		rc = write_tracks(p, o, bin, ctx);
	sf_output_putc(o, '}');
out:
	free(order);
	free(fname);
	free(fmod);
	free(mods);
	free(w);
	return rc;
}

/* A capture: some sample has the "state" label. */
static bool is_capture(const struct sf_profile *p)
{
	for (size_t i = 1; i < p->d.nlabel_sets; i++)
		if (sf_profile_label(p, (sf_labels_id)i, "state"))
			return true;
	return false;
}

static int html_write(const struct sf_profile *p, struct sf_output *out,
		      struct sf_ctx *ctx)
{
	struct sf_output *js = NULL, *bin = NULL, *smp = NULL;
	char *sample = NULL, *cg = NULL;
	unsigned char *gz = NULL, *all = NULL;
	size_t jlen = 0, blen = 0, gzlen = 0;
	const char *title = sf_ctx_opt(ctx, "title");
	int rc;

	if ((rc = sf_html__callgraph(p, ctx, &cg)) ||
	    (rc = sf_output_mem(&js, ctx)) || (rc = sf_output_mem(&bin, ctx)))
		goto out;
	/* the sample report of a capture, as the sample writer writes it */
	if (is_capture(p) && !sf_diff_types(p, &(uint32_t){ 0 },
					     &(uint32_t){ 0 })) {
		size_t sl;
		if ((rc = sf_output_mem(&smp, ctx)) ||
		    (rc = sf_format_sample.write(p, smp, ctx)))
			goto out;
		const char *sd = sf_output_mem_data(smp, &sl);
		if (sf_output_failed(smp) || !(sample = strndup(sd, sl))) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
	}
	if ((rc = write_data(p, js, bin, sample, cg, ctx)))
		goto out;
	if (sf_output_failed(js) || sf_output_failed(bin)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	/* the JSON's length, the JSON and the tree in one buffer */
	const char *jd = sf_output_mem_data(js, &jlen);
	const char *bd = sf_output_mem_data(bin, &blen);
	if (!(all = malloc(4 + jlen + blen))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	for (int k = 0; k < 4; k++)
		all[k] = (unsigned char)(jlen >> (8 * k));
	memcpy(all + 4, jd, jlen);
	memcpy(all + 4 + jlen, bd, blen);
	if ((rc = sf_gzip_mem(ctx, all, 4 + jlen + blen, &gz, &gzlen)))
		goto out;

	sf_output_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		       "<meta charset=\"utf-8\">\n"
		       "<meta http-equiv=\"Content-Security-Policy\" "
		       "content=\"default-src 'none'; script-src 'sha256-"
		       HTML_JS_SHA256 "'; style-src 'sha256-" HTML_CSS_SHA256
		       "'; base-uri 'none'; form-action 'none'\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, "
		       "initial-scale=1\">\n<meta name=\"generator\" "
		       "content=\"sftools " SF_VERSION "\">\n<title>");
	html_text(out, title ? title : sf_diff_types(p, &(uint32_t){ 0 },
						     &(uint32_t){ 0 }) ?
		  "Differential profile" : "Profile");
	sf_output_puts(out, "</title>\n<style>");
	sf_output_write(out, report_css, report_css_len);
	sf_output_puts(out, "</style>\n</head>\n<body>\n");
	sf_output_write(out, report_html, report_html_len);
	sf_output_puts(out, "<script id=\"sf-data\" "
		       "type=\"application/gzip+base64\">");
	base64(out, gz, gzlen);
	sf_output_puts(out, "</script>\n<script>");
	sf_output_write(out, report_js, report_js_len);
	sf_output_puts(out, "</script>\n</body></html>\n");
out:
	free(gz);
	free(all);
	free(sample);
	free(cg);
	sf_output_abort(smp);
	sf_output_abort(js);
	sf_output_abort(bin);
	return rc;
}

static const char *const html_ext[] = { ".html", ".htm", NULL };

static const struct sf_option html_wopts[] = {
	{ "title", "TEXT", "html: the page's title" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_html = {
	.name = "html",
	.description = "one offline page: flame graph, call tree, "
		       "callers/callees (differential for --diff)",
	.extensions = html_ext,
	.write = html_write,
	.caps = SF_CAP_WEIGHTS | SF_CAP_DIFF | SF_CAP_THREADS | SF_CAP_TIME,
	/* the tracks draw each timed sample (untimed samples are summed by
	 * stack all the same) */
	.needs_order = true,
	.write_options = html_wopts,
};
