/*
 * filter.c - sample selection by label and frame granularity, once for
 * every program (see filter.h).
 *
 * Tags are matched per label set and per thread, not per sample: a
 * profile has few of each, so the per-sample cost is two array loads and
 * a mask test, even on a billion folded samples.
 */
#include "filter.h"
#include "profile_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sf_tag_parse(struct sf_tag *out, char *s, const char *opt,
		 struct sf_ctx *ctx)
{
	char *eq = strchr(s, '=');

	if (!eq || eq == s)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"%s '%s': expected KEY=VALUE", opt, s);
	*eq = 0;
	out->key = s;
	out->value = eq + 1;
	return 0;
}

static bool thread_is(const struct sf_thread *t, const char *want)
{
	char buf[160];

	if (t->name && !strcmp(t->name, want))
		return true;
	sf_thread_label(t, buf, sizeof(buf));
	if (buf[0] && !strcmp(buf, want))
		return true;
	if (t->tid != SF_NO_ID) {
		snprintf(buf, sizeof(buf), "%lld", (long long)t->tid);
		return !strcmp(buf, want);
	}
	return false;
}

int sf_profile_filter_tags(struct sf_profile *p, const struct sf_tag *keep,
			   size_t nkeep, const struct sf_tag *drop,
			   size_t ndrop, uint64_t *matched,
			   struct sf_ctx *ctx)
{
	size_t nsel = nkeep + ndrop, nt = p->d.ntypes;
	uint64_t *lmask = NULL, *tmask = NULL;
	uint64_t groups[SF_TAG_MAX], dropmask = 0;
	size_t ngroups = 0;

	if (nsel > SF_TAG_MAX)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"more than %d --tag and --tag-ignore "
				"selectors", SF_TAG_MAX);
	if (matched)
		memset(matched, 0, nsel * sizeof(*matched));
	if (!nsel)
		return 0;
	/* bit i: selector i (keep first, then drop) */
#define SEL(i) ((i) < nkeep ? &keep[i] : &drop[(i) - nkeep])
	lmask = calloc(p->d.nlabel_sets ? p->d.nlabel_sets : 1,
		       sizeof(*lmask));
	tmask = calloc(p->d.nthreads + 1, sizeof(*tmask));
	if (!lmask || !tmask) {
		free(lmask);
		free(tmask);
		return sf_error_nomem(ctx);
	}
	for (size_t l = 0; l < p->d.nlabel_sets; l++)
		for (size_t i = 0; i < nsel; i++) {
			const char *v = sf_profile_label(p, (sf_labels_id)l,
							 SEL(i)->key);
			if (v && !strcmp(v, SEL(i)->value))
				lmask[l] |= (uint64_t)1 << i;
		}
	for (size_t t = 0; t < p->d.nthreads; t++)
		for (size_t i = 0; i < nsel; i++)
			if (!strcmp(SEL(i)->key, "thread") &&
			    thread_is(&p->d.threads[t], SEL(i)->value))
				tmask[t] |= (uint64_t)1 << i;
	/* keep selectors grouped by key: one bit of each group must hold */
	for (size_t i = 0; i < nkeep; i++) {
		size_t g = 0;
		for (; g < ngroups; g++) {
			size_t first = (size_t)__builtin_ctzll(groups[g]);
			if (!strcmp(keep[first].key, keep[i].key))
				break;
		}
		if (g == ngroups)
			groups[ngroups++] = 0;
		groups[g] |= (uint64_t)1 << i;
	}
	for (size_t i = nkeep; i < nsel; i++)
		dropmask |= (uint64_t)1 << i;
#undef SEL

	size_t out = 0;
	uint64_t kept = 0;
	for (size_t s = 0; s < p->d.nsamples; s++) {
		const struct sf_sample *x = &p->d.samples[s];
		uint64_t m = lmask[x->labels] |
			     tmask[x->thread == SF_NO_THREAD ? p->d.nthreads :
							       x->thread];
		uint64_t c = sf_sample_count(p, s);
		bool ok = !(m & dropmask);
		for (size_t g = 0; g < ngroups && ok; g++)
			ok = (m & groups[g]) != 0;
		if (matched)
			for (uint64_t b = m; b; b &= b - 1)
				matched[__builtin_ctzll(b)] += c;
		if (!ok)
			continue;
		kept += c;
		if (out != s) {
			p->d.samples[out] = *x;
			memmove(&p->d.weights[out * nt], &p->d.weights[s * nt],
				nt * sizeof(*p->d.weights));
			if (p->d.counts)
				p->d.counts[out] = p->d.counts[s];
		}
		out++;
	}
	p->d.nsamples = out;
	p->d.nadded = kept;
	free(lmask);
	free(tmask);
	return 0;
}

int sf_granularity_parse(const char *s)
{
	if (!strcmp(s, "functions"))
		return SF_GRAN_FUNCTIONS;
	if (!strcmp(s, "lines"))
		return SF_GRAN_LINES;
	if (!strcmp(s, "addresses"))
		return SF_GRAN_ADDRESSES;
	return -1;
}

int sf_profile_granularity(struct sf_profile *p, enum sf_granularity g,
			   size_t *renamed, struct sf_ctx *ctx)
{
	size_t n = 0;
	char *buf = NULL;
	size_t cap = 0;

	if (renamed)
		*renamed = 0;
	if (g == SF_GRAN_FUNCTIONS)
		return 0;
	for (size_t i = 0; i < p->d.nframes; i++) {
		struct sf_frame *f = &p->d.frames[i];
		bool has = g == SF_GRAN_LINES ? f->line != 0 || f->file :
						f->address != SF_NO_ADDR;
		if (!has)
			continue;
		size_t need = strlen(f->name) +
			      (f->file ? strlen(f->file) : 0) + 48;
		if (need > cap) {
			char *nb = realloc(buf, need);
			if (!nb) {
				free(buf);
				return sf_error_nomem(ctx);
			}
			buf = nb;
			cap = need;
		}
		/* as pprof -lines labels them: the line only when known */
		if (g == SF_GRAN_LINES && f->line)
			snprintf(buf, cap, "%s %s:%u", f->name,
				 f->file ? f->file : "", f->line);
		else if (g == SF_GRAN_LINES)
			snprintf(buf, cap, "%s %s", f->name, f->file);
		else
			snprintf(buf, cap, "%s 0x%llx", f->name,
				 (unsigned long long)f->address);
		const char *s = sf_profile_str(p, ctx, buf);
		if (!s) {
			free(buf);
			return ctx->err.code ? ctx->err.code : SF_ENOMEM;
		}
		f->name = s;
		n++;
	}
	free(buf);
	if (!n)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"--granularity %s: the input has no %s",
				g == SF_GRAN_LINES ? "lines" : "addresses",
				g == SF_GRAN_LINES ? "line numbers" :
						     "addresses");
	if (renamed)
		*renamed = n;
	return 0;
}

int sf_profile_select(struct sf_profile *p, const struct sf_select *s,
		      struct sf_ctx *ctx)
{
	uint64_t matched[SF_TAG_MAX];
	int rc;

	if ((rc = sf_profile_filter_tags(p, s->keep, s->nkeep, s->drop,
					 s->ndrop, matched, ctx)))
		return rc;
	for (size_t i = 0; i < s->nkeep + s->ndrop; i++) {
		bool keep = i < s->nkeep;
		const struct sf_tag *t = keep ? &s->keep[i] :
						&s->drop[i - s->nkeep];
		char kind[300];
		if (matched[i])
			continue;
		snprintf(kind, sizeof(kind), "tag-no-match:%zu", i);
		sf_warn(ctx, kind, "%s '%s=%s' matches no sample",
			keep ? "--tag" : "--tag-ignore", t->key, t->value);
	}
	if ((rc = sf_profile_granularity(p, (enum sf_granularity)
					 s->granularity, NULL, ctx)))
		return rc;
	return sf_transform_any(&s->xf) ?
	       sf_profile_transform(p, &s->xf, s->xf_texts, ctx) : 0;
}

/* ----- transforms ----- */

bool sf_transform_any(const struct sf_transform *t)
{
	return t->ndrop || t->nmerge || t->nlibrary || t->nfocus ||
	       t->collapse_recursion;
}

enum { XF_DROP = 1, XF_MERGE = 2, XF_FOCUS = 4 };

struct xf_state {
	const struct sf_transform *t;
	uint8_t *cls;      /* per frame of the source: XF_* */
};

static bool re_any(const regex_t *re, size_t n, const char *s, size_t *hit)
{
	for (size_t k = 0; k < n; k++)
		if (!regexec(&re[k], s, 0, NULL, 0)) {
			if (hit)
				hit[k]++;
			return true;
		}
	return false;
}

/* Waiting (focus): -2 until the outermost matching frame. */
static enum sf_place xf_place(void *arg, const struct sf_profile *src,
			      sf_stack_id s, const struct sf_profile *dst,
			      int64_t *state)
{
	const struct xf_state *x = arg;
	const struct sf_stack_node *n = &src->d.stacks[s];
	unsigned c = x->cls[n->frame];

	if (c & XF_DROP)
		return SF_PLACE_DROP;
	if (c & XF_MERGE)
		return SF_PLACE_SKIP;
	if (*state < 0) {
		if (!(c & XF_FOCUS))
			return SF_PLACE_WAIT;
		return SF_PLACE_ROOT;
	}
	if (x->t->collapse_recursion && *state > 0) {
		const struct sf_stack_node *pn = &dst->d.stacks[*state];
		if (!strcmp(dst->d.frames[pn->frame].name,
			    src->d.frames[n->frame].name))
			return SF_PLACE_SKIP;
	}
	return SF_PLACE_KEEP;
}

int sf_profile_transform(struct sf_profile *p, const struct sf_transform *t,
			 const char *const *texts, struct sf_ctx *ctx)
{
	const struct sf_profile_data *d = &p->d;
	size_t nre = t->ndrop + t->nmerge + t->nlibrary + t->nfocus;
	size_t *hit = calloc(nre + 1, sizeof(*hit));
	uint8_t *cls = calloc(d->nframes + 1, 1);
	struct sf_profile *np = NULL;
	int rc;

	if (!hit || !cls) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	size_t *hd = hit, *hm = hd + t->ndrop, *hl = hm + t->nmerge,
	       *hf = hl + t->nlibrary;
	for (size_t i = 0; i < d->nframes; i++) {
		const struct sf_frame *f = &d->frames[i];
		if (re_any(t->drop, t->ndrop, f->name, hd))
			cls[i] |= XF_DROP;
		if (re_any(t->merge, t->nmerge, f->name, hm) ||
		    (f->module && re_any(t->library, t->nlibrary, f->module,
					 hl)))
			cls[i] |= XF_MERGE;
		if (re_any(t->focus, t->nfocus, f->name, hf))
			cls[i] |= XF_FOCUS;
	}
	static const char *const opt[] = { "ignore", "merge-function",
					   "merge-library", "focus-function" };
	size_t cnt[] = { t->ndrop, t->nmerge, t->nlibrary, t->nfocus };
	for (size_t k = 0, i = 0; texts && k < 4; k++)
		for (size_t j = 0; j < cnt[k]; j++, i++) {
			char kind[64];
			if (hit[i])
				continue;
			snprintf(kind, sizeof(kind), "transform-no-match:%zu", i);
			sf_warn(ctx, kind, "--%s '%s' matches no frame%s",
				opt[k], texts[i], k == 2 ? " module" : "");
		}
	if ((rc = sf_profile_new(&np, ctx)))
		goto out;
	sf_profile_set_aggregate(np, d->aggregated);
	sf_profile_set_fold_exact(np, d->fold_exact);
	sf_profile_set_drop_zero(np, d->drop_zero);
	if (d->meta.source_format &&
	    !(np->d.meta.source_format = sf_profile_str(np, ctx,
						d->meta.source_format))) {
		rc = ctx->err.code;
		goto out;
	}
	struct xf_state x = { t, cls };
	if ((rc = sf_profile__merge_placed(np, p, ctx, xf_place, &x,
					   t->nfocus ? -2 : 0)))
		goto out;
	/* the rebuilt profile takes p's place */
	struct sf_profile tmp = *p;
	*p = *np;
	*np = tmp;
out:
	sf_profile_free(np);
	free(hit);
	free(cls);
	return rc;
}
