/*
 * source.c - the table of capture sources (source.h), and each role
 * called over it in table order.  The sampling loop and emit reach the
 * sources only through here, so a new source is its own file and one
 * row of SFC_SOURCES.
 */
#include "capture_int.h"

#define SFC_SRC_ROW(name) &sfc_source_##name,
const struct sfc_source *const sfc__sources[SFC_NSRC] = {
	SFC_SOURCES(SFC_SRC_ROW)
};
#undef SFC_SRC_ROW

int sfc__src_open(struct sfc_session *s)
{
	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->open && sfc__sources[i]->open(s))
			return -1;
	return 0;
}

void sfc__src_close(struct sfc_session *s)
{
	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->close)
			sfc__sources[i]->close(s);
}

int sfc__src_image(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc;

	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->image &&
		    (rc = sfc__sources[i]->image(s, ctx)))
			return rc;
	return 0;
}

bool sfc__src_unwind(struct sfc_session *s, const struct sfc_thr *t,
		     const unsigned char *stack, bool fresh)
{
	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->unwind)
			return sfc__sources[i]->unwind(s, t, stack, fresh);
	s->nframes = 0;
	return false;
}

int sfc__src_read_asleep(struct sfc_session *s, struct sf_ctx *ctx,
			 struct sfc_thr *t)
{
	const struct sfc_cthread *c = &s->threads[t->tidx];
	int rc;

	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->read_asleep &&
		    (rc = sfc__sources[i]->read_asleep(s, ctx, c, c->rec[i],
						       &t->rec[i])))
			return rc;
	return 0;
}

void sfc__src_read_stopped(struct sfc_session *s, struct sfc_thr *t)
{
	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->read_stopped)
			sfc__sources[i]->read_stopped(s, t, &t->rec[i]);
}

void sfc__src_confirm(const struct sfc_session *s, struct sfc_thr *t,
		      bool stopped)
{
	for (size_t i = 0; i < SFC_NSRC; i++) {
		const struct sfc_source *src = sfc__sources[i];
		if (!stopped || (src->match && !src->match(s, t->rec[i], t)))
			t->rec[i] = 0;
	}
}

bool sfc__src_needs_stop(struct sfc_session *s)
{
	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->needs_stop &&
		    sfc__sources[i]->needs_stop(s))
			return true;
	return false;
}

int sfc__src_emit(struct sfc_session *s, struct sf_ctx *ctx,
		  struct sf_profile *p, const uint32_t *rec, uint32_t node,
		  const sf_frame_id *fid, sf_stack_id *stack,
		  struct sf_label *labels, size_t *nlabels, bool *relabel)
{
	size_t room = *nlabels + SFC_SRC_LABELS;
	int rc;

	*relabel = false;
	for (size_t i = 0; i < SFC_NSRC; i++) {
		const struct sfc_source *src = sfc__sources[i];
		if (!rec[i] || !src->emit)
			continue;
		/* a table whose sources add more labels than there is room
		 * for is a mistake of this file's: leave their labels out */
		if (*nlabels + src->max_labels > room)
			continue;
		if ((rc = src->emit(s, ctx, p, rec[i], node, fid, stack,
				    labels, nlabels)))
			return rc;
		*relabel |= src->max_labels > 0;
	}
	return 0;
}

int sfc__src_report(struct sfc_session *s, struct sf_ctx *ctx,
		    struct sf_profile *p)
{
	int rc;

	for (size_t i = 0; i < SFC_NSRC; i++)
		if (sfc__sources[i]->report &&
		    (rc = sfc__sources[i]->report(s, ctx, p)))
			return rc;
	return 0;
}
