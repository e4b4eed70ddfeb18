/* samples.c - the model's arrays of samples: d.samples, d.weights and
 * d.counts, their growth, the room a reader reserves for them, and their
 * release (profile.c adds the samples themselves); the samples' index by
 * stack rebuilt after sf_profile_trim_keep gave it up. */
#include "profile_int.h"

#include <string.h>

/*
 * On a timeline of 400,000 samples the three arrays are 16 MB, grown by
 * doubling from 256 entries.  On the heap each doubling was a realloc
 * that copied the whole array (memmove, 2,400 page faults of the
 * collapsed row) and touched fresh pages for the copy.  So they are
 * sf_big_resize's buffers, as the stack tree's arrays are: from 256 KiB a
 * mapping of its own, grown by mremap without a copy, a fault per 2 MiB
 * where the kernel has huge pages.  in->cap_sbytes holds each one's
 * bytes; cap_samples is the entries all of them hold.
 */

/* Array i's buffer and its entry's bytes (0: the array is not kept). */
static size_t array_of(struct sf_profile *p, int i, void **mem[1])
{
	switch (i) {
	case 0:
		*mem = (void **)&p->d.samples;
		return sizeof(*p->d.samples);
	case 1:
		*mem = (void **)&p->d.weights;
		return p->d.ntypes * sizeof(*p->d.weights);
	default:
		*mem = (void **)&p->d.counts;
		return p->d.aggregated ? sizeof(*p->d.counts) : 0;
	}
}

int sf_profile__samples_resize(struct sf_profile *p, size_t n)
{
	struct sf_profile_internal *in = p->in;
	size_t cap = SIZE_MAX;

	for (int i = 0; i < 3; i++) {
		void **mem;
		size_t size = array_of(p, i, &mem);
		if (!size)
			continue;
		if (n > SIZE_MAX / size ||
		    sf_big_resize(mem, &in->cap_sbytes[i], n * size))
			return -1;
		if (in->cap_sbytes[i] / size < cap)
			cap = in->cap_sbytes[i] / size;
	}
	in->cap_samples = cap == SIZE_MAX ? n : cap;
	return 0;
}

int sf_profile__samples_widen(struct sf_profile *p, size_t old, size_t n)
{
	struct sf_profile_internal *in = p->in;
	double *w = NULL;
	size_t bytes = 0, cap = in->cap_samples;

	if (cap > SIZE_MAX / sizeof(double) / n ||
	    sf_big_resize(&w, &bytes, cap * n * sizeof(double)))
		return -1;
	for (size_t i = 0; i < p->d.nsamples; i++) {
		memcpy(w + i * n, p->d.weights + i * old, old * sizeof(double));
		for (size_t t = old; t < n; t++)
			w[i * n + t] = 0;
	}
	sf_big_free(p->d.weights, in->cap_sbytes[1]);
	p->d.weights = w;
	in->cap_sbytes[1] = bytes;
	return 0;
}

void sf_profile__samples_free(struct sf_profile *p)
{
	sf_profile__samples_keep(p, NULL);
}

void sf_profile__samples_keep(struct sf_profile *p, struct sf_ctx *ctx)
{
	struct sf_profile_internal *in = p->in;

	for (int i = 0; i < 3; i++) {
		void **mem[1];
		size_t size = array_of(p, i, mem);
		sf_big_keep_used(ctx, *mem[0], in->cap_sbytes[i],
				 p->d.nsamples * size);
		*mem[0] = NULL;
		in->cap_sbytes[i] = 0;
	}
	in->cap_samples = 0;
}

int sf_profile_sample_room(struct sf_profile *p, size_t n,
			   struct sf_stack_room *room)
{
	struct sf_profile_internal *in = p->in;
	size_t want = p->d.nsamples + n;

	if (!p->d.ntypes || n > SIZE_MAX / 64 - p->d.nsamples)
		return -1;
	memset(room, 0, sizeof(*room));
	for (int i = 0; i < 3; i++) {
		void **mem;
		size_t size = array_of(p, i, &mem);
		if (!size)
			continue;
		/* a buffer too small to be a mapping is left to grow */
		if (in->cap_sbytes[i] < want * size &&
		    sf_big_reserve(mem, &in->cap_sbytes[i], want * size))
			return -1;
		room->mem[i] = *mem;
		room->size[i] = size;
		room->cap[i] = in->cap_sbytes[i];
	}
	size_t cap = SIZE_MAX;
	for (int i = 0; i < 3; i++)
		if (room->size[i] && room->cap[i] / room->size[i] < cap)
			cap = room->cap[i] / room->size[i];
	in->cap_samples = cap;
	return 0;
}

/* Each stack's entry names the latest sample of the key (thread, labels)
 * its first sample had (sf_profile__add_sample folds into that one, or
 * replaces it where a sum would be inexact); a stack's samples of other
 * keys are in the `agg` index, which trimming keeps. */
int sf_profile__agg_rebuild(struct sf_profile *p)
{
	struct sf_profile_internal *in = p->in;
	size_t n = p->d.nstacks ? p->d.nstacks : 1, bytes = 0;
	uint32_t *a = NULL;

	if (sf_big_resize(&a, &bytes, n * sizeof(*a)))
		return -1;
	memset(a, 0, bytes);
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *s = &p->d.samples[i];
		uint32_t first = a[s->stack];
		if (!first || (p->d.samples[first - 1].thread == s->thread &&
			       p->d.samples[first - 1].labels == s->labels))
			a[s->stack] = (uint32_t)i + 1;
	}
	in->agg_stack = a;
	in->cap_agg_stack = bytes / sizeof(*a);
	in->agg_trimmed = false;
	return 0;
}
