/*
 * record.c - a stop's copy becomes a sample: unwound with the target
 * running again, interned, checked (verify_reuse), kept for later reuse
 * and for the ticks its window pays; late stops recorded at their tick.
 */
#include "capture_int.h"

#include <stdlib.h>
#include <string.h>

/* Inside a system call that the kernel restarts once the stop is over?
 * Then the thread goes back to the same wait with the same registers
 * (only rax and the pc are rewound, and the pc comes back). */
static bool in_restart(const sfc_regs *r)
{
#if defined(__x86_64__)
	long long ax = (long long)r->rax;

	return (long long)r->orig_rax >= 0 &&
	       (ax == -512 || ax == -513 || ax == -514 || ax == -516);
#else
	return false;
#endif
}

/* Keep what the unwinder read, for the reuse checks of later ticks. */
int sfc__keep_copy(struct sfc_session *s, struct sfc_cthread *c,
		   const struct sfc_thr *t, const unsigned char *stack)
{
	size_t len = 0;

	if (s->unw_hi > t->stack_base)
		len = (size_t)(s->unw_hi - t->stack_base);
	if (len > t->stack_len)
		len = t->stack_len;
	if (sf_grow(&c->copy, &c->copy_cap, len ? len : 1, 1))
		return -1;
	memcpy(c->copy, stack, len);
	c->copy_base = t->stack_base;
	c->copy_len = len;
	c->regs = t->regs;
	c->cand = in_restart(&t->regs);
	return 0;
}

/* After a stop that followed a read without a stop (verify_reuse): when
 * schedstat read just after the interrupt still had the read's values
 * (window_start moved win_lo to the read), the thread did not run in
 * between, and the two stacks must be one. */
static void verify_peek(struct sfc_session *s, const struct sfc_thr *t,
			uint32_t node)
{
	const struct sfc_cthread *c = &s->threads[t->tidx];

	if (!t->ck || t->win_lo != t->ck_time)
		return;
	if (node == c->node)
		s->st.peek_verified++;
	else
		s->st.peek_mismatch++;
}

/* After unwinding a copy of c: a complete stack moves c->stack_hi up to
 * the highest word read; a copy that ended there and proved too short
 * (the unwinder asked past it) turns short copies off for the thread. */
void sfc__stack_end(struct sfc_session *s, struct sfc_cthread *c,
		    bool complete)
{
	if (!complete && s->unw_short)
		c->stack_hi = UINT64_MAX;
	else if (complete && c->stack_hi != UINT64_MAX &&
		 s->unw_hi > c->stack_hi)
		c->stack_hi = s->unw_hi;
}

int sfc__record(struct sfc_session *s, struct sf_ctx *ctx,
		struct sfc_thr *t, const unsigned char *stack)
{
	struct sfc_cthread *c = &s->threads[t->tidx];
	bool fresh, known;
	uint32_t node;
	int rc = sfc__leaf_check(s, ctx, t, &fresh);

	if (rc)
		return rc;
	bool complete = sfc__src_unwind(s, t, stack, fresh);
	if (sfc__refresh_for(s))
		complete = sfc__src_unwind(s, t, stack, fresh);
	if (!complete) {
		s->st.truncated++;
		sf_warn(ctx, "capture.truncated",
			"a stack could not be unwound to its end (corrupt "
			"stack, missing unwind info, or deeper than "
			"--stack-bytes or --stack-frames allow: raise them); "
			"it is marked [truncated]");
	}
	sfc__stack_end(s, c, complete);
	if ((rc = sfc__intern(s, ctx, complete, &node, &known)))
		return rc;
	return sfc__settle(s, ctx, t, stack, node, complete, known, SFC_STOP);
}

/* The rest of record, once the stack is a node: the audits, the window,
 * the copy kept for reuse, the sample. */
int sfc__settle(struct sfc_session *s, struct sf_ctx *ctx,
		struct sfc_thr *t, const unsigned char *stack, uint32_t node,
		bool complete, bool known, enum sfc_how how)
{
	struct sfc_cthread *c = &s->threads[t->tidx];

	if (t->verify) {
		if (node == c->node)
			s->st.reuse_verified++;
		else
			s->st.reuse_mismatch++;
	}
	if (t->verify_peek)
		verify_peek(s, t, node);
	/* the sources: what was read before the stop is this stop's only
	 * if the stop confirms it (kernel.c: it interrupted that call) */
	sfc__src_confirm(s, t, how == SFC_STOP);
	c->have = false;
	c->base = false;
	if (t->win) {
		if (sf_grow(&s->wins, &s->capwins, s->nwins + 1,
			    sizeof(*s->wins)))
			return sf_error_nomem(ctx);
		s->wins[s->nwins++] = t->tidx;
		c->win = true;
		c->win_lo = t->win_lo;
		c->win_hi = t->t_rel;
		c->win_node = node;
		c->win_state = t->state;
		c->win_trunc = !complete;
		memcpy(c->win_rec, t->rec, sizeof(c->win_rec));
	}
	/* a frame outside every known module may be a library not reported
	 * yet (just after an exec or a dlopen): unwind it again next time */
	if (s->reuse && known) {
		if (sfc__keep_copy(s, c, t, stack))
			return sf_error_nomem(ctx);
		c->node = node;
		c->truncated = !complete;
		c->state = t->state;
		memcpy(c->rec, t->rec, sizeof(c->rec));
		c->have = true;
	}
	return sfc__add_sample(s, ctx, t->tidx, node, t->state, t->t_int, how,
			       t->rec);
}

/* Record the late stops read since the last tick (take_late): each was
 * counted missed by its tick and becomes a sample at that tick's time. */
int sfc__record_late(struct sfc_session *s, struct sf_ctx *ctx)
{
	int rc = 0;
	size_t i;

	for (i = 0; i < s->nlateq && !rc; i++) {
		struct sfc_late *l = &s->late[i];
		uint64_t trunc = s->st.truncated;
		l->t.verify = false;
		/* its tick's window is paid by sfc__owe and below */
		l->t.win = false;
		if ((rc = sfc__record(s, ctx, &l->t, l->stack)))
			break;
		s->st.missed--;
		s->st.late++;
		/* the same stack pays every tick that found it pending */
		const struct sfc_sample *x = &s->samples[s->nsamples - 1];
		uint32_t node = x->stack, rec[SFC_NSRC];
		memcpy(rec, x->rec, sizeof(rec));
		trunc = s->st.truncated - trunc;
		for (size_t k = 0; k < s->nowed && !rc; k++) {
			const struct sfc_owed *w = &s->owed[k];
			if (w->tid != l->t.tid)
				continue;
			if ((rc = sfc__add_sample(s, ctx, l->t.tidx, node,
						  w->state, w->at, SFC_LATE,
						  rec)))
				break;
			s->st.missed--;
			s->st.late++;
			s->st.truncated += trunc;
		}
	}
	for (i = 0; i < s->nlateq; i++)
		free(s->late[i].stack);
	s->nlateq = 0;
	/* what is owed to a thread no longer pending stays missed (it
	 * exited, or its stop came when no copy could be kept) */
	size_t keep = 0;
	for (size_t k = 0; k < s->nowed; k++)
		if (sfc__is_pending(s, s->owed[k].tid))
			s->owed[keep++] = s->owed[k];
	s->nowed = keep;
	return rc;
}
