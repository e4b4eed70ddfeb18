/*
 * peek.c - reading a thread asleep in a system call without stopping it
 * (see capture.h, "Reading without a stop").
 */
#include "capture_int.h"

#include <stdio.h>
#include <string.h>

/* Read a thread asleep in a system call without stopping it (see
 * "Reading without a stop" in capture.h): schedstat, then the registers
 * /proc/.../syscall shows and the stack, then schedstat again; the copy is
 * unwound at once with only those registers.  *done when the sample was
 * taken; otherwise the thread is stopped as usual (and, with
 * verify_reuse, t->verify_peek asks that stop to be compared). */
static int peek(struct sfc_session *s, struct sf_ctx *ctx, struct sfc_thr *t,
		bool *done)
{
	*done = false;
#if defined(__x86_64__)
	struct sfc_cthread *c = &s->threads[t->tidx];
	char path[80], buf[512];
	unsigned long long v[9];
	uint64_t run, slices, run2, slices2;
	uint32_t node;
	bool known;
	int rc;

	if (!s->dwfl || sfc__sched_read(s, c, &run, &slices))
		return 0;
	int64_t t0 = sfc__mono();
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid,
		 (int)t->tid);
	/* "NR ARG1..ARG6 SP PC" only while blocked in a call */
	if (sfc__read_small(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llx %llx %llx %llx %llx %llx %llx %llx",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8]) != 9 || !dwfl_addrmodule(s->dwfl, v[8]))
		return 0;
	sfc_regs *r = &t->regs;
	memset(r, 0, sizeof(*r));
	r->orig_rax = v[0];
	r->rax = (unsigned long long)-38;  /* -ENOSYS, as inside any call */
	r->rdi = v[1];
	r->rsi = v[2];
	r->rdx = v[3];
	r->r10 = v[4];
	r->r8 = v[5];
	r->r9 = v[6];
	r->rsp = v[7];
	r->rip = v[8];
	t->map_seq = s->map_seq;
	sfc__copy_stack(s, t, s->cmp);
	/* the sources: inside the schedstat proof, as the stack is */
	if ((rc = sfc__src_read_asleep(s, ctx, t)))
		return rc;
	sfc__src_read_stopped(s, t);
	if (sfc__sched_read(s, c, &run2, &slices2) || run2 != run ||
	    slices2 != slices)
		return 0;
	t->partial = true;
	bool complete = sfc__src_unwind(s, t, s->cmp, true);
	t->partial = false;
	if (!complete) {
		if (s->unw_short)
			sfc__stack_end(s, c, false);
		return 0;
	}
	sfc__stack_end(s, c, true);
	if ((rc = sfc__intern(s, ctx, true, &node, &known)))
		return rc;
	if (!known)
		return 0;
	int64_t t1 = sfc__mono();
	/* the scan's read with the same values moves the proof back to it */
	int64_t lo = t->ck && t->ck_run == run && t->ck_slices == slices
		     ? t->ck_time : t0;
	c->have = c->base = false;
	if (s->o.verify_reuse) {
		/* stop it anyway; the stop's window tells whether it ran */
		c->node = node;
		t->verify_peek = true;
		t->ck = true;
		t->ck_run = run;
		t->ck_slices = slices;
		t->ck_time = lo;
		return 0;
	}
	/* [lo, t1] is this read's window: ticks the sampler skipped inside
	 * it get its stack (fill_windows).  The reuse baseline starts after
	 * it, so no skipped tick is paid twice; no stop woke the thread, so
	 * equal schedstat later means it still sleeps where it was read. */
	if (sf_grow(&s->wins, &s->capwins, s->nwins + 1, sizeof(*s->wins)) ||
	    sfc__keep_copy(s, c, t, s->cmp))
		return sf_error_nomem(ctx);
	s->wins[s->nwins++] = t->tidx;
	c->win = true;
	c->win_lo = lo;
	c->win_hi = t1;
	c->win_node = node;
	c->win_state = t->state;
	c->win_trunc = false;
	memcpy(c->rec, t->rec, sizeof(c->rec));
	memcpy(c->win_rec, t->rec, sizeof(c->win_rec));
	c->node = node;
	c->truncated = false;
	c->state = t->state;
	c->have = c->base = true;
	c->run = run;
	c->slices = slices;
	c->base_time = t1 + 1;
	if ((rc = sfc__add_sample(s, ctx, t->tidx, node, t->state, t0, SFC_PEEK,
				  t->rec)))
		return rc;
	s->st.peeked++;
	*done = true;
#endif
	return 0;
}

/* Read this tick's sleeping threads without a stop where that works
 * (peek); the others stay in s->cur to be stopped. */
int sfc__peek_all(struct sfc_session *s, struct sf_ctx *ctx)
{
	size_t keep = 0;

	for (size_t i = 0; i < s->ncur; i++) {
		struct sfc_thr *t = &s->cur[i];
		bool done = false;
		if (t->state == 'S' && !t->verify) {
			int rc = peek(s, ctx, t, &done);
			if (rc)
				return rc;
		}
		if (!done)
			s->cur[keep++] = *t;
	}
	s->ncur = keep;
	return 0;
}
