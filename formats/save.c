/* save.c - the save stage (save.h): pick the writer, write, commit, and
 * what the writer drops. */
#include "save.h"
#include "diff.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

int sf_save_pick(struct sf_save *out, struct sf_ctx *ctx, const char *path,
		 const char *to, const char *fallback, bool gzip)
{
	const struct sf_format *fmt;
	struct stat st;

	if (to) {
		fmt = sf_format_by_name(to);
		if (!fmt || !fmt->write)
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"unknown output format '%s' (sfconv "
					"--list-formats shows the formats)",
					to);
	} else if (!is_stdout(path)) {
		fmt = sf_format_by_path(path, true);
		/* /dev/null, a FIFO: no extension to go by, and any text
		 * will do */
		if (!fmt && !stat(path, &st) && !S_ISREG(st.st_mode))
			fmt = sf_format_by_name("collapsed");
		if (!fmt)
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"cannot tell the output format from "
					"'%s'; use --to", path);
	} else {
		fmt = sf_format_by_name(fallback);
		if (!fmt || !fmt->write)
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"unknown output format '%s'",
					fallback ? fallback : "(none)");
	}
	if (path) {
		size_t l = strlen(path);
		if (l > 3 && !strcmp(path + l - 3, ".gz"))
			gzip = true;
	}
	out->format = fmt;
	out->path = path;
	out->gzip = gzip;
	return 0;
}

bool sf_save_needs_order(const struct sf_save *s, const struct sf_ctx *ctx)
{
	const struct sf_format *f = s->format;

	return f->needs_order ||
	       (f->order_option && sf_ctx_flag(ctx, f->order_option));
}

int sf_save(const struct sf_save *s, const struct sf_profile *p,
	    struct sf_ctx *ctx)
{
	struct sf_output *o;
	int rc;

	if (!s->format->takes_kept)
		sf_big_drop(ctx);
	if ((rc = sf_output_open(&o, ctx, s->path, s->gzip)))
		return rc;
	/* gzip output (pprof's always) compresses beside the writer */
	sf_output_threads(o, sf_jobs(ctx));
	if ((rc = s->format->write(p, o, ctx))) {
		if (!ctx->err.source[0])
			snprintf(ctx->err.source, sizeof(ctx->err.source),
				 "%s", sf_output_name(o));
		sf_output_abort(o);
		return rc;
	}
	return sf_output_commit(o, ctx);
}

unsigned sf_save_losses(const struct sf_format *to,
			const struct sf_profile *p)
{
	bool threads = false, weights = false, inl = false, labels = false;
	bool locs = false;
	uint32_t t = p->d.meta.default_type, tb, tn;
	unsigned has = 0;

	if ((to->caps & SF_CAP_DIFF) && sf_diff_types(p, &tb, &tn))
		return 0;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		if (p->d.samples[i].thread != SF_NO_THREAD)
			threads = true;
		if (p->d.samples[i].labels)
			labels = true;
		if (p->d.ntypes && t < p->d.ntypes && sf_weight(p, i, t) != 1)
			weights = true;
	}
	for (size_t i = 0; i < p->d.nframes; i++) {
		if (p->d.frames[i].flags & SF_FRAME_INLINE)
			inl = true;
		if (p->d.frames[i].module || p->d.frames[i].file ||
		    p->d.frames[i].address != SF_NO_ADDR)
			locs = true;
	}
	if (threads && p->d.nthreads > 0)
		has |= SF_CAP_THREADS;
	if (p->d.has_time)
		has |= SF_CAP_TIME;
	if (weights)
		has |= SF_CAP_WEIGHTS;
	if (p->d.ntypes > 1)
		has |= SF_CAP_TYPES;
	if (inl)
		has |= SF_CAP_INLINE;
	if (locs)
		has |= SF_CAP_LOCATIONS;
	if (labels)
		has |= SF_CAP_LABELS;
	return has & ~to->caps;
}

size_t sf_save_losses_text(char *buf, size_t size, unsigned lost)
{
	static const struct {
		unsigned cap;
		const char *word;
	} words[] = {
		{ SF_CAP_THREADS, "threads" },
		{ SF_CAP_TIME, "timestamps" },
		{ SF_CAP_WEIGHTS, "weights" },
		{ SF_CAP_TYPES, "extra sample types" },
		{ SF_CAP_INLINE, "inline marks" },
		{ SF_CAP_LOCATIONS, "modules, files and addresses" },
		{ SF_CAP_LABELS, "sample labels" },
	};
	size_t n = 0;

	if (size)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!(lost & words[i].cap))
			continue;
		int w = snprintf(n < size ? buf + n : NULL,
				 n < size ? size - n : 0, "%s%s",
				 n ? ", " : "", words[i].word);
		if (w > 0)
			n += (size_t)w;
	}
	return n;
}
