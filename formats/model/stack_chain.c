/*
 * stack_chain.c - the stack tree's nodes pushed a chain at a time
 * (sf_profile_stack_chain): the fast way for a reader whose file lists a
 * fresh branch's nodes one after another (the native JSON reader).
 */
#include "profile_int.h"

/*
 * A fresh branch is a chain: each node the child of the one made just
 * before, which has no children yet, so no lookup can find it and each
 * entry is known in advance, its child list too (its one child is the
 * next node).  Written in one pass, without sf_profile_stack_push's
 * checks per node: on a timeline nine nodes in ten are such.
 */
bool sf_profile_stack_chain(struct sf_profile *p, const struct sf_ctx *ctx,
			    const sf_frame_id *frames, size_t n)
{
	struct sf_profile_internal *in = p->in;
	size_t id = p->d.nstacks;
	uint32_t depth = p->d.stacks[id - 1].depth;

	/* past a limit, or out of memory: pushed one by one, which says so
	 * at the node it happens */
	if (in->stacks_trimmed || !n || ctx->limits.max_depth < depth ||
	    n > ctx->limits.max_depth - depth || n >= UINT32_MAX - id ||
	    sf_profile__nodes_grow(&p->d.stacks, &in->cap_stacks, id + n,
				   sizeof(*p->d.stacks)) ||
	    sf_profile__nodes_grow(&in->kin, &in->cap_kin, id + n,
				   sizeof(*in->kin)))
		return false;
	struct sf_stack_node *st = p->d.stacks + id;
	struct stack_kin *k = in->kin + id;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = (uint32_t)(id + i);
		st[i].parent = s - 1;
		st[i].frame = frames[i];
		st[i].depth = depth + 1 + (uint32_t)i;
		k[i].first = s + 1;
		k[i].next = 0;
		k[i].frame = frames[i];
	}
	k[n - 1].first = 0;
	in->kin[id - 1].first = (uint32_t)id;
	p->d.nstacks = id + n;
	if (depth + n > in->max_depth)
		in->max_depth = depth + (uint32_t)n;
	return true;
}
