/*
 * intern.c - what a capture keeps, interned: its threads (by id),
 * addresses (pc and program image), stack nodes (parent and address),
 * and the samples that name them.
 */
#include "capture_int.h"

#include <string.h>

static bool thread_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_session *s = c;

	return s->threads[id].tid == *(const pid_t *)key;
}

int sfc__thread_get(struct sfc_session *s, pid_t tid, const char *name,
		    uint32_t *out)
{
	uint64_t h = sf_hash(&tid, sizeof(tid));
	uint32_t id;

	if (sf_idx_find(&s->thread_idx, h, thread_eq, s, &tid, &id)) {
		/* a thread may rename itself: the last name wins */
		if (strcmp(s->threads[id].name, name))
			snprintf(s->threads[id].name,
				 sizeof(s->threads[id].name), "%s", name);
		*out = id;
		return 0;
	}
	if (s->nthreads % 64 == 0) {
		void *q = sf_reallocarray(s->threads, s->nthreads + 64,
					  sizeof(*s->threads));
		if (!q)
			return -1;
		s->threads = q;
	}
	id = (uint32_t)s->nthreads++;
	memset(&s->threads[id], 0, sizeof(s->threads[id]));
	s->threads[id].tid = tid;
	s->threads[id].fd = -1;
	s->threads[id].pfd = -1;
	snprintf(s->threads[id].name, sizeof(s->threads[id].name), "%s", name);
	if (!sf_idx_insert(&s->thread_idx, h, id))
		return -1;
	s->st.threads_seen = (uint32_t)s->nthreads;
	*out = id;
	return 0;
}

bool sfc__thread_find(struct sfc_session *s, pid_t tid, uint32_t *out)
{
	return sf_idx_find(&s->thread_idx, sf_hash(&tid, sizeof(tid)),
			   thread_eq, s, &tid, out);
}

static bool addr_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_session *s = c;
	const uint64_t *k = key;

	return id != SFC_ADDR_TRUNCATED && s->addrs[id].pc == k[0] &&
	       s->addrs[id].gen == k[1] && s->addrs[id].tag == k[2];
}

static size_t addr_cap(size_t n)
{
	size_t c = 64;

	while (c < n)
		c *= 2;
	return c;
}

/* An address is a pc of one program image, and of one namer tag: the
 * perf map entry that holds it, for a JIT that reuses a freed range
 * for other code makes the same pc another frame. */
static int addr_get(struct sfc_session *s, uint64_t pc, uint32_t *out)
{
	uint64_t key[3] = { pc, s->gen, sfc__name_tag(s, pc) };
	uint64_t h = sf_hash(key, sizeof(key));
	uint32_t id;

	if (sf_idx_find(&s->addr_idx, h, addr_eq, s, key, &id)) {
		*out = id;
		return 0;
	}
	if (s->naddrs + 1 > addr_cap(s->naddrs) || !s->addrs) {
		void *q = sf_reallocarray(s->addrs, addr_cap(s->naddrs + 1),
					  sizeof(*s->addrs));
		if (!q)
			return -1;
		s->addrs = q;
	}
	id = (uint32_t)s->naddrs++;
	s->addrs[id].pc = pc;
	s->addrs[id].gen = s->gen;
	s->addrs[id].tag = (uint32_t)key[2];
	s->addrs[id].mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	if (!s->addrs[id].mod)
		s->module_miss = true;
	if (!sf_idx_insert(&s->addr_idx, h, id))
		return -1;
	*out = id;
	return 0;
}

static bool node_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_session *s = c;
	const struct sfc_node *k = key;

	return s->nodes[id].parent == k->parent && s->nodes[id].addr == k->addr;
}

static int node_get(struct sfc_session *s, uint32_t parent, uint32_t addr,
		    uint32_t *out)
{
	struct sfc_node k = { parent, addr };
	uint64_t h = sf_hash_u64(parent, addr);
	uint32_t id;

	if (sf_idx_find(&s->node_idx, h, node_eq, s, &k, &id)) {
		*out = id;
		return 0;
	}
	if (s->nnodes + 1 > addr_cap(s->nnodes) || !s->nodes) {
		void *q = sf_reallocarray(s->nodes, addr_cap(s->nnodes + 1),
					  sizeof(*s->nodes));
		if (!q)
			return -1;
		s->nodes = q;
	}
	id = (uint32_t)s->nnodes++;
	s->nodes[id] = k;
	if (!sf_idx_insert(&s->node_idx, h, id))
		return -1;
	*out = id;
	return 0;
}

int sfc__add_sample(struct sfc_session *s, struct sf_ctx *ctx,
		    uint32_t tidx, uint32_t node, char state, int64_t time,
		    enum sfc_how how, const uint32_t *rec)
{
	if (sf_grow(&s->samples, &s->capsamples, s->nsamples + 1,
		  sizeof(*s->samples)))
		return sf_error_nomem(ctx);
	struct sfc_sample *x = &s->samples[s->nsamples++];
	x->time = time - s->start_mono;
	x->thread = tidx;
	x->stack = node;
	x->state = state;
	x->how = (unsigned char)how;
	s->threads[tidx].taken++;
	memcpy(x->rec, rec, sizeof(x->rec));
	s->st.samples++;
	s->st.reused += how == SFC_REUSED;
	return 0;
}

/* Intern s->frames (leaf first) as a stack node, under [truncated] when
 * incomplete; *known: every frame is in a known module. */
int sfc__intern(struct sfc_session *s, struct sf_ctx *ctx, bool complete,
		uint32_t *out, bool *known)
{
	uint32_t node = 0, a;

	if (!complete && node_get(s, node, SFC_ADDR_TRUNCATED, &node))
		return sf_error_nomem(ctx);
	/* the namers' new input (the perf map's new entries name this tick's
	 * JIT code) */
	if (sfc__name_poll(s, ctx))
		return sf_error_nomem(ctx);
	*known = true;
	for (size_t i = s->nframes; i-- > 0;) {
		if (addr_get(s, s->frames[i], &a) || node_get(s, node, a, &node))
			return sf_error_nomem(ctx);
		*known &= s->addrs[a].mod != NULL;
	}
	*out = node;
	return 0;
}
