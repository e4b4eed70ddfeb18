/* profile.c - the model: interning, the stack tree, samples (merging
 * two profiles: merge.c; the internal state: profile_int.h). */
#include "profile_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *arena_alloc(struct sf_profile_internal *in, size_t n)
{
	struct arena_block *b = in->arena;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->used = 0;
		b->next = in->arena;
		in->arena = b;
	}
	char *r = b->data + b->used;
	b->used += n;
	return r;
}

/*
 * The stack tree's two arrays (d.stacks, kin) gain an entry a node: on
 * a timeline of 400,000 samples, 3.7 million of them, 12 bytes each, and
 * every page of them is fresh memory, a page fault per 4 KiB (half the
 * faults of loading it).  So they are sf_big_resize's buffers: from
 * 256 KiB a mapping of their own in transparent huge pages, a fault per
 * 2 MiB, grown by mremap without a copy.  Their caps stay counts of
 * entries; nodes_free gives them back.
 */
int sf_profile__nodes_resize(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t bytes = *cap * size;

	if (n > SIZE_MAX / size || sf_big_resize(arr, &bytes, n * size))
		return -1;
	*cap = bytes / size;
	return 0;
}

/* Room for `need` entries, doubling (sf_big_grow). */
int sf_profile__nodes_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t bytes = *cap * size;

	if (need <= *cap)
		return 0;
	if (need > SIZE_MAX / size || sf_big_grow(arr, &bytes, need * size))
		return -1;
	*cap = bytes / size;
	return 0;
}

static void nodes_free(void *a, size_t cap, size_t size)
{
	/* a mapping's size is its cap's bytes rounded up to a page, the
	 * length munmap takes */
	sf_big_free(a, cap * size);
}

int sf_profile_new(struct sf_profile **out, struct sf_ctx *ctx)
{
	struct sf_profile *p = calloc(1, sizeof(*p));

	if (!p || !(p->in = calloc(1, sizeof(*p->in)))) {
		free(p);
		return sf_error_nomem(ctx);
	}
	/* node 0: the empty stack; label set 0: no labels */
	if (sf_profile__nodes_grow(&p->d.stacks, &p->in->cap_stacks, 1,
				   sizeof(*p->d.stacks)) ||
	    sf_profile__nodes_grow(&p->in->kin, &p->in->cap_kin, 1,
				   sizeof(*p->in->kin)) ||
	    sf_grow(&p->d.label_sets, &p->in->cap_labels, 1,
		    sizeof(*p->d.label_sets))) {
		sf_profile_free(p);
		return sf_error_nomem(ctx);
	}
	memset(&p->d.stacks[0], 0, sizeof(p->d.stacks[0]));
	memset(&p->in->kin[0], 0, sizeof(p->in->kin[0]));
	p->d.nstacks = 1;
	memset(&p->d.label_sets[0], 0, sizeof(p->d.label_sets[0]));
	p->d.nlabel_sets = 1;
	p->d.meta.start_time = SF_NO_TIME;
	p->d.meta.duration = SF_NO_TIME;
	*out = p;
	return 0;
}

void sf_profile_free(struct sf_profile *p)
{
	if (!p)
		return;
	if (p->in) {
		struct arena_block *b = p->in->arena;
		while (b) {
			struct arena_block *n = b->next;
			free(b);
			b = n;
		}
		sf_idx_free(&p->in->strings);
		sf_idx_free(&p->in->frames);
		sf_idx_free(&p->in->stacks);
		nodes_free(p->in->kin, p->in->cap_kin, sizeof(*p->in->kin));
		nodes_free(p->d.stacks, p->in->cap_stacks,
			   sizeof(*p->d.stacks));
		sf_idx_free(&p->in->threads);
		sf_idx_free(&p->in->label_sets);
		sf_idx_free(&p->in->agg);
		sf_big_free(p->in->agg_stack, p->in->cap_agg_stack *
					sizeof(*p->in->agg_stack));
		free(p->in->last_frames);
		free(p->in->last_nodes);
		free(p->in->strs);
		free(p->in->strlens);
		free(p->in->named);
		sf_profile__samples_free(p);
		free(p->in);
	}
	free(p->d.frames);
	free(p->d.threads);
	free(p->d.types);
	free(p->d.label_sets);
	free(p->d.meta.props);
	free(p);
}

void sf_profile_set_aggregate(struct sf_profile *p, bool on)
{
	p->d.aggregated = on;
}

void sf_profile_set_fold_exact(struct sf_profile *p, bool on)
{
	p->d.fold_exact = on;
}

void sf_profile_set_drop_zero(struct sf_profile *p, bool on)
{
	p->d.drop_zero = on;
}

void sf_profile_begin_input(struct sf_profile *p, uint32_t index)
{
	p->d.input = index;
}

/* ----- strings ----- */

struct strkey {
	const char *s;
	size_t len;
};

static bool str_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_profile_internal *in = c;
	const struct strkey *key = k;

	return in->strlens[id] == key->len &&
	       !memcmp(in->strs[id], key->s, key->len);
}

/* Intern s[0..len): the copy, and its string id in *idp. */
static const char *str_intern(struct sf_profile *p, struct sf_ctx *ctx,
			      const char *s, size_t len, uint32_t *idp)
{
	struct sf_profile_internal *in = p->in;
	struct strkey key = { s, len };
	uint64_t h = sf_hash(s, len);
	uint32_t id;

	if (len > UINT32_MAX) {
		sf_error(ctx, SF_ELIMIT, NULL, 0, "name longer than 4 GiB");
		return NULL;
	}
	if (sf_idx_find(&in->strings, h, str_eq, in, &key, &id)) {
		*idp = id;
		return in->strs[id];
	}
	char *copy = arena_alloc(in, len + 1);
	if (!copy || sf_grow(&in->strs, &in->cap_strs, in->nstrs + 1,
			     sizeof(*in->strs))) {
		sf_error_nomem(ctx);
		return NULL;
	}
	/* strlens and named grow to strs' capacity when it grew.  Not at
	 * every new string: a realloc to the same size is free in glibc
	 * but not under AddressSanitizer, where each one copies the whole
	 * array to a new block, mapped and later unmapped (quadratic in
	 * the strings: 10 s of system time for 20,000 frames) */
	if (in->cap_strinfo < in->cap_strs) {
		uint32_t *nl = sf_reallocarray(in->strlens, in->cap_strs,
					       sizeof(*nl));
		if (nl)
			in->strlens = nl;
		uint32_t *nf = sf_reallocarray(in->named, in->cap_strs,
					       sizeof(*nf));
		if (nf)
			in->named = nf;
		if (!nl || !nf) {
			sf_error_nomem(ctx);
			return NULL;
		}
		in->cap_strinfo = in->cap_strs;
	}
	memcpy(copy, s, len);
	copy[len] = 0;
	id = (uint32_t)in->nstrs;
	in->strs[id] = copy;
	in->strlens[id] = (uint32_t)len;
	in->named[id] = 0;
	if (!sf_idx_insert(&in->strings, h, id)) {
		sf_error_nomem(ctx);
		return NULL;
	}
	in->nstrs++;
	*idp = id;
	return copy;
}

const char *sf_profile_strn(struct sf_profile *p, struct sf_ctx *ctx,
			    const char *s, size_t len)
{
	uint32_t id;

	return str_intern(p, ctx, s, len, &id);
}

const char *sf_profile_str(struct sf_profile *p, struct sf_ctx *ctx,
			   const char *s)
{
	return s ? sf_profile_strn(p, ctx, s, strlen(s)) : NULL;
}

/* ----- frames ----- */

void sf_frame_init(struct sf_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->name = "";
	f->address = SF_NO_ADDR;
	f->offset = SF_NO_OFFSET;
}

static uint64_t frame_hash(const struct sf_frame *f)
{
	/* strings are interned: hash their addresses */
	struct {
		const void *a, *b, *c, *d;
		uint64_t addr, offset;
		uint32_t line, column, flags, aux;
	} k;

	memset(&k, 0, sizeof(k));
	k.a = f->name;
	k.b = f->module;
	k.c = f->file;
	k.d = f->kind;
	k.addr = f->address;
	k.line = f->line;
	k.column = f->column;
	k.flags = f->flags;
	k.aux = f->aux;
	k.offset = f->offset;
	return sf_hash(&k, sizeof(k));
}

static bool frame_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_frame *a = &((const struct sf_profile *)c)->d.frames[id];
	const struct sf_frame *b = k;

	return a->name == b->name && a->module == b->module &&
	       a->file == b->file && a->kind == b->kind &&
	       a->address == b->address && a->line == b->line &&
	       a->column == b->column && a->flags == b->flags &&
	       a->aux == b->aux && a->offset == b->offset;
}

int sf_profile_frame(struct sf_profile *p, struct sf_ctx *ctx,
		     const struct sf_frame *f, sf_frame_id *out)
{
	struct sf_frame k = *f;
	uint32_t id;
	const char *const names[] = { f->name, f->module, f->file };

	/* --max-name holds for every reader, also those that build frames
	 * field by field rather than through sf_profile_frame_named */
	for (size_t i = 0; i < 3; i++) {
		uint64_t max = ctx->limits.max_name;
		size_t len = names[i] ? strnlen(names[i], max < SIZE_MAX ?
						(size_t)max + 1 : SIZE_MAX) : 0;
		if (len > max)
			return sf_error(ctx, SF_ELIMIT, NULL, 0,
					"frame %s longer than the limit of "
					"%llu bytes (--max-name)",
					i == 0 ? "name" : i == 1 ? "module" :
						"file name",
					(unsigned long long)max);
	}
	if (!(k.name = sf_profile_str(p, ctx, f->name ? f->name : "")))
		return ctx->err.code;
	if (f->module && !(k.module = sf_profile_str(p, ctx, f->module)))
		return ctx->err.code;
	if (f->file && !(k.file = sf_profile_str(p, ctx, f->file)))
		return ctx->err.code;
	if (f->kind && !(k.kind = sf_profile_str(p, ctx, f->kind)))
		return ctx->err.code;
	uint64_t h = frame_hash(&k);
	if (sf_idx_find(&p->in->frames, h, frame_eq, p, &k, &id)) {
		*out = id;
		return 0;
	}
	if (p->d.nframes >= UINT32_MAX - 1)
		return sf_error(ctx, SF_ELIMIT, NULL, 0, "too many frames");
	if (sf_grow(&p->d.frames, &p->in->cap_frames, p->d.nframes + 1,
		    sizeof(*p->d.frames)))
		return sf_error_nomem(ctx);
	id = (uint32_t)p->d.nframes;
	p->d.frames[id] = k;
	if (!sf_idx_insert(&p->in->frames, h, id))
		return sf_error_nomem(ctx);
	p->d.nframes++;
	*out = id;
	return 0;
}

int sf_profile_frame_named(struct sf_profile *p, struct sf_ctx *ctx,
			   const char *name, size_t len, const char *module,
			   sf_frame_id *out)
{
	struct sf_frame f;

	if (len > ctx->limits.max_name)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"frame name of %zu bytes exceeds the limit of "
				"%llu (--max-name)", len,
				(unsigned long long)ctx->limits.max_name);
	const char *s;
	uint32_t sid;
	int rc;

	if (!(s = str_intern(p, ctx, name, len, &sid)))
		return ctx->err.code;
	/* text readers name every frame of every line: the name's string
	 * id gives the frame without hashing the name again and the frame
	 * fields (most of loading a collapsed or sample-lines file) */
	if (!module && p->in->named[sid]) {
		*out = p->in->named[sid] - 1;
		return 0;
	}
	sf_frame_init(&f);
	f.name = s;
	f.module = module;
	if ((rc = sf_profile_frame(p, ctx, &f, out)))
		return rc;
	if (!module)
		p->in->named[sid] = *out + 1;
	return 0;
}

/* ----- stacks ----- */

/* The stack tree's index: (parent, frame) -> child.  A stack's children
 * are a list (first child, next sibling) while they are at most KIN_LIST;
 * the children of a wider stack go to the hash index instead (first =
 * KIN_HASHED).  Why not the hash for all: a fresh branch (a stack seen
 * for the first time past some prefix) is all new nodes, each the child
 * of the node made just before, which has no children yet; with lists
 * that costs appends to arrays in creation order, where a hash index
 * costs a probe at a random place of a table as large as the tree, a
 * cache miss per frame (a quarter of `sfanalyze --callgraph` on 20,000
 * random stacks, issue #18).  Stack ids, and so every output, do not
 * depend on the index. */
#define KIN_LIST 4
#define KIN_HASHED UINT32_MAX

struct stackkey {
	sf_stack_id parent;
	sf_frame_id frame;
};

static bool stack_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_stack_node *n = &((const struct sf_profile *)c)->d.stacks[id];
	const struct stackkey *key = k;

	return n->parent == key->parent && n->frame == key->frame;
}

/* Enter stack `id` (already in p->d.stacks, room in `kin`) as a child of
 * its parent, which has `nkids` children in its list.  False on ENOMEM. */
static bool kin_link(struct sf_profile *p, uint32_t id, uint32_t nkids)
{
	struct sf_profile_internal *in = p->in;
	const struct sf_stack_node *st = p->d.stacks;
	uint32_t parent = st[id].parent;
	struct stack_kin *pk = &in->kin[parent];

	in->kin[id] = (struct stack_kin){ 0, 0, st[id].frame };
	if (pk->first != KIN_HASHED && nkids < KIN_LIST) {
		in->kin[id].next = pk->first;
		pk->first = id;
		return true;
	}
	if (pk->first != KIN_HASHED) {
		/* the list is full: its children move to the hash index */
		for (uint32_t c = pk->first; c; c = in->kin[c].next)
			if (!sf_idx_insert(&in->stacks,
					   sf_hash_u64(parent, st[c].frame), c))
				return false;
		pk->first = KIN_HASHED;
	}
	return sf_idx_insert(&in->stacks, sf_hash_u64(parent, st[id].frame),
			     id);
}

/* After sf_profile_trim: the index again, as the pushes made it. */
static bool kin_rebuild(struct sf_profile *p)
{
	struct sf_profile_internal *in = p->in;
	size_t cap = 0;

	if (sf_profile__nodes_grow(&in->kin, &cap, p->d.nstacks + 1,
				   sizeof(*in->kin)))
		return false;
	in->cap_kin = cap;
	in->kin[0] = (struct stack_kin){ 0, 0, 0 };
	for (size_t i = 1; i < p->d.nstacks; i++) {
		uint32_t n = 0, first = in->kin[p->d.stacks[i].parent].first;
		if (first != KIN_HASHED)
			for (uint32_t c = first; c && n < KIN_LIST;
			     c = in->kin[c].next)
				n++;
		if (!kin_link(p, (uint32_t)i, n))
			return false;
	}
	return true;
}

int sf_profile_stack_push(struct sf_profile *p, struct sf_ctx *ctx,
			  sf_stack_id parent, sf_frame_id frame,
			  sf_stack_id *out)
{
	struct sf_profile_internal *in = p->in;
	uint32_t id, nkids = 0;

	if (in->stacks_trimmed) {
		if (!kin_rebuild(p))
			return sf_error_nomem(ctx);
		in->stacks_trimmed = false;
	}
	/* the newest stack has no children yet (a child's id is larger) */
	if (parent + 1 != p->d.nstacks) {
		uint32_t c = in->kin[parent].first;
		if (c == KIN_HASHED) {
			struct stackkey key = { parent, frame };
			if (sf_idx_find(&in->stacks,
					sf_hash_u64(parent, frame), stack_eq,
					p, &key, &id)) {
				*out = id;
				return 0;
			}
		} else {
			for (; c; c = in->kin[c].next, nkids++) {
				if (in->kin[c].frame == frame) {
					*out = c;
					return 0;
				}
			}
		}
	}
	uint32_t depth = p->d.stacks[parent].depth + 1;
	if (depth > ctx->limits.max_depth)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"stack deeper than the limit of %llu frames "
				"(--max-depth)",
				(unsigned long long)ctx->limits.max_depth);
	if (p->d.nstacks >= UINT32_MAX - 1)
		return sf_error(ctx, SF_ELIMIT, NULL, 0, "too many stacks");
	if (sf_profile__nodes_grow(&p->d.stacks, &in->cap_stacks,
				   p->d.nstacks + 1, sizeof(*p->d.stacks)) ||
	    sf_profile__nodes_grow(&in->kin, &in->cap_kin, p->d.nstacks + 1,
		       sizeof(*in->kin)))
		return sf_error_nomem(ctx);
	id = (uint32_t)p->d.nstacks;
	p->d.stacks[id].parent = parent;
	p->d.stacks[id].frame = frame;
	p->d.stacks[id].depth = depth;
	if (!kin_link(p, id, nkids))
		return sf_error_nomem(ctx);
	p->d.nstacks++;
	if (depth > in->max_depth)
		in->max_depth = depth;
	*out = id;
	return 0;
}

/*
 * On a timeline nearly every sample is a stack of its own: its first new
 * frame hangs under an old node of its thread's last stack, so the push
 * looks up that parent's children (its list entry, then each child's, or
 * a slot of the index) at random places of arrays as large as the tree,
 * and finds nothing.  Those reads are cache misses, a chain of them; the
 * reader knows its pushes a batch ahead, so stage 0 fetches the parent's
 * entries, stage 1, once they are in, its first child or index slot, and
 * stage 2 the second child, or the stack the slot names if its tag is
 * the key's (a repeated head under a wide stack: found, then compared).
 */
void sf_profile_stack_prefetch(const struct sf_profile *p,
			       sf_stack_id parent, sf_frame_id frame,
			       int stage)
{
	const struct sf_profile_internal *in = p->in;

	if (in->stacks_trimmed || parent + 1 >= p->d.nstacks)
		return;
	if (stage == 0) {
		__builtin_prefetch(&in->kin[parent]);
		__builtin_prefetch(&p->d.stacks[parent]);
		return;
	}
	uint32_t c = in->kin[parent].first;
	if (c == KIN_HASHED) {
		if (!in->stacks.cap)
			return;
		uint64_t tag = sf_idx_tag(sf_hash_u64(parent, frame));
		const uint64_t *slot =
			&in->stacks.slots[tag & (in->stacks.cap - 1)];
		if (stage == 1)
			__builtin_prefetch(slot);
		else if (*slot >> 32 == tag)
			__builtin_prefetch(&p->d.stacks[(uint32_t)*slot]);
	} else if (c) {
		if (stage == 1)
			__builtin_prefetch(&in->kin[c]);
		else if (in->kin[c].next)
			__builtin_prefetch(&in->kin[in->kin[c].next]);
	}
}

int sf_profile_stack_room(struct sf_profile *p, size_t n,
			  struct sf_stack_room *room)
{
	struct sf_profile_internal *in = p->in;
	size_t want = p->d.nstacks + n, bytes[2];
	void **mem[2] = { (void **)&p->d.stacks, (void **)&in->kin };
	size_t *cap[2] = { &in->cap_stacks, &in->cap_kin };
	const size_t size[2] = { sizeof(*p->d.stacks), sizeof(*in->kin) };

	if (in->stacks_trimmed || n > SIZE_MAX / 16 - p->d.nstacks)
		return -1;
	for (int i = 0; i < 2; i++) {
		bytes[i] = *cap[i] * size[i];
		if (*cap[i] < want &&
		    sf_big_reserve(mem[i], &bytes[i], want * size[i]))
			return -1;
		*cap[i] = bytes[i] / size[i];
		room->mem[i] = *mem[i];
		room->size[i] = size[i];
		room->cap[i] = bytes[i];
	}
	/* the samples of a document come after its stacks: their index by
	 * stack, zeroed by the kernel as the other thread faults it in,
	 * where the first sample's memset faulted in 15 MB of a timeline
	 * on the reader's thread */
	room->mem[2] = NULL;
	room->size[2] = sizeof(*in->agg_stack);
	room->cap[2] = 0;
	size_t ab = 0;
	/* not after sf_profile_trim_keep: the next sample rebuilds the
	 * index, sized then (a room here would be replaced, never freed) */
	if (p->d.aggregated && !in->agg_stack && !in->agg_trimmed &&
	    !sf_big_reserve(&in->agg_stack, &ab,
			    want * sizeof(*in->agg_stack))) {
		in->cap_agg_stack = ab / sizeof(*in->agg_stack);
		room->mem[2] = in->agg_stack;
		room->cap[2] = ab;
	}
	return 0;
}

void sf_stack_room_fill(const struct sf_stack_room *room, size_t from,
			size_t to)
{
	for (int i = 0; i < 3; i++)
		sf_big_populate(room->mem[i], room->cap[i],
				from * room->size[i], to * room->size[i]);
}

int sf_profile_reserve_stacks(struct sf_profile *p, struct sf_ctx *ctx,
			      size_t n)
{
	struct sf_idx *t = &p->in->stacks;

	/* an estimate past what the index can hold is not an error: the
	 * index grows as the stacks come */
	if (n > ((size_t)1 << 30) || p->in->stacks_trimmed)
		return 0;
	if (!sf_idx_reserve(t, t->n + n))
		return sf_error_nomem(ctx);
	return 0;
}

int sf_profile_stack(struct sf_profile *p, struct sf_ctx *ctx,
		     const sf_frame_id *frames, size_t n, bool leaf_first,
		     sf_stack_id *out)
{
	sf_stack_id s = SF_STACK_EMPTY;
	int rc;

	if (n > ctx->limits.max_depth)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"stack of %zu frames exceeds the limit of %llu "
				"(--max-depth)", n,
				(unsigned long long)ctx->limits.max_depth);
	struct sf_profile_internal *in = p->in;
	size_t i = 0;
	if (n > in->cap_last) {
		size_t ncap = in->cap_last ? in->cap_last : 64;
		while (ncap < n)
			ncap *= 2;
		sf_frame_id *nf = sf_reallocarray(in->last_frames, ncap,
						  sizeof(*nf));
		if (nf)
			in->last_frames = nf;
		sf_stack_id *nn = sf_reallocarray(in->last_nodes, ncap,
						  sizeof(*nn));
		if (nn)
			in->last_nodes = nn;
		if (!nf || !nn) {
			in->last_n = 0;
			return sf_error_nomem(ctx);
		}
		in->cap_last = ncap;
	}
	/* the prefix shared with the last stack */
	for (; i < n && i < in->last_n; i++) {
		sf_frame_id f = leaf_first ? frames[n - 1 - i] : frames[i];
		if (f != in->last_frames[i])
			break;
	}
	if (i)
		s = in->last_nodes[i - 1];
	for (; i < n; i++) {
		sf_frame_id f = leaf_first ? frames[n - 1 - i] : frames[i];
		if ((rc = sf_profile_stack_push(p, ctx, s, f, &s))) {
			in->last_n = i;
			return rc;
		}
		in->last_frames[i] = f;
		in->last_nodes[i] = s;
	}
	in->last_n = n;
	*out = s;
	return 0;
}

void sf_profile_trim(struct sf_profile *p)
{
	sf_profile_trim_keep(p, NULL);
}

void sf_profile_trim_keep(struct sf_profile *p, struct sf_ctx *ctx)
{
	if (!p)
		return;
	struct sf_profile_internal *in = p->in;

	sf_idx_free(&in->stacks);
	/* the samples' index by stack (4 bytes a node, written) is kept;
	 * the next sample added rebuilds it */
	if (ctx && in->agg_stack) {
		sf_profile__keep_agg(p, ctx);
		in->agg_trimmed = true;
	}
	/* only the child lists' written part: kept whole, their room's
	 * untouched rest (two thirds of it on a timeline) came first for a
	 * taker, as sf_big_keep puts the buffer kept last first, and the
	 * writer's records and places got fresh pages there while the
	 * written ones behind it were given back unused */
	sf_profile__keep_kin(p, ctx);
	/* spare room: a heap block is cut to fit, a mapping kept (its
	 * unused pages were never touched) */
	if (in->cap_stacks > p->d.nstacks)
		sf_profile__nodes_resize(&p->d.stacks, &in->cap_stacks,
					 p->d.nstacks, sizeof(*p->d.stacks));
}

size_t sf_profile_stack_frames(const struct sf_profile *p, sf_stack_id id,
			       sf_frame_id *buf)
{
	size_t depth = p->d.stacks[id].depth;

	for (size_t i = depth; i > 0; i--) {
		buf[i - 1] = p->d.stacks[id].frame;
		id = p->d.stacks[id].parent;
	}
	return depth;
}

uint32_t sf_profile_max_depth(const struct sf_profile *p)
{
	/* nodes are made only by sf_profile_stack_push and
	 * sf_profile_stack_chain, which keep it (0 with only the root,
	 * and after sf_profile_drop_stacks) */
	return p->in->max_depth;
}

/* ----- threads ----- */

struct threadkey {
	uint32_t input;
	int64_t pid, tid;
	const char *name;
};

static uint64_t thread_hash(const struct threadkey *k)
{
	struct {
		int64_t pid, tid;
		const void *name;
		uint64_t input;
	} h = { k->pid, k->tid, k->name, k->input };

	return sf_hash(&h, sizeof(h));
}

static bool thread_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_thread *t = &((const struct sf_profile *)c)->d.threads[id];
	const struct threadkey *key = k;

	return t->input == key->input && t->pid == key->pid &&
	       t->tid == key->tid && t->name == key->name;
}

int sf_profile_thread(struct sf_profile *p, struct sf_ctx *ctx, int64_t pid,
		      int64_t tid, const char *name, sf_thread_idx *out)
{
	struct threadkey key = { p->d.input, pid, tid, NULL };
	uint32_t id;

	if (name && !(key.name = sf_profile_str(p, ctx, name)))
		return ctx->err.code;
	uint64_t h = thread_hash(&key);
	if (sf_idx_find(&p->in->threads, h, thread_eq, p, &key, &id)) {
		*out = id;
		return 0;
	}
	if (p->d.nthreads >= UINT32_MAX - 1)
		return sf_error(ctx, SF_ELIMIT, NULL, 0, "too many threads");
	if (sf_grow(&p->d.threads, &p->in->cap_threads, p->d.nthreads + 1,
		    sizeof(*p->d.threads)))
		return sf_error_nomem(ctx);
	id = (uint32_t)p->d.nthreads;
	p->d.threads[id].pid = pid;
	p->d.threads[id].tid = tid;
	p->d.threads[id].name = key.name;
	p->d.threads[id].input = p->d.input;
	if (!sf_idx_insert(&p->in->threads, h, id))
		return sf_error_nomem(ctx);
	p->d.nthreads++;
	*out = id;
	return 0;
}

int sf_profile_thread_set_name(struct sf_profile *p, struct sf_ctx *ctx,
			       sf_thread_idx t, const char *name)
{
	struct sf_thread *th = &p->d.threads[t];
	const char *n = sf_profile_str(p, ctx, name);

	if (!n)
		return ctx->err.code;
	/* re-key: rebuild the thread index (rare) */
	th->name = n;
	sf_idx_free(&p->in->threads);
	for (size_t i = 0; i < p->d.nthreads; i++) {
		struct threadkey k = { p->d.threads[i].input,
				       p->d.threads[i].pid,
				       p->d.threads[i].tid,
				       p->d.threads[i].name };
		if (!sf_idx_insert(&p->in->threads, thread_hash(&k),
				   (uint32_t)i))
			return sf_error_nomem(ctx);
	}
	return 0;
}

void sf_thread_label(const struct sf_thread *t, char *buf, size_t size)
{
	if (t->name && t->tid != SF_NO_ID)
		snprintf(buf, size, "%s-%lld", t->name, (long long)t->tid);
	else if (t->name)
		snprintf(buf, size, "%s", t->name);
	else if (t->tid != SF_NO_ID)
		snprintf(buf, size, "%lld", (long long)t->tid);
	else if (size)
		buf[0] = 0;
}

const char *sf_process_command(const struct sf_profile *p,
			       const struct sf_thread *t)
{
	for (size_t i = 0; t->pid != SF_NO_ID && i < p->d.nthreads; i++)
		if (p->d.threads[i].tid == t->pid &&
		    p->d.threads[i].pid == t->pid && p->d.threads[i].name)
			return p->d.threads[i].name;
	return t->name;
}

void sf_process_label(const struct sf_profile *p, const struct sf_thread *t,
		      char *buf, size_t size)
{
	const char *comm = sf_process_command(p, t);

	if (t->pid == SF_NO_ID) {
		sf_thread_label(t, buf, size);
		return;
	}
	snprintf(buf, size, "%s-%lld", comm ? comm : "", (long long)t->pid);
}

/* ----- sample types ----- */

int sf_profile_sample_type(struct sf_profile *p, struct sf_ctx *ctx,
			   const char *type, const char *unit, uint32_t *out)
{
	const char *t = sf_profile_str(p, ctx, type);
	const char *u = sf_profile_str(p, ctx, unit ? unit : "count");

	if (!t || !u)
		return ctx->err.code;
	for (size_t i = 0; i < p->d.ntypes; i++) {
		if (p->d.types[i].type == t && p->d.types[i].unit == u) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	size_t old = p->d.ntypes, n = old + 1;
	struct sf_sample_type *nt = sf_reallocarray(p->d.types, n,
						    sizeof(*nt));
	if (!nt)
		return sf_error_nomem(ctx);
	p->d.types = nt;
	nt[old].type = t;
	nt[old].unit = u;
	if (p->d.nsamples) {
		/* widen every row; existing samples get 0 for the new type */
		if (sf_profile__samples_widen(p, old, n))
			return sf_error_nomem(ctx);
	} else {
		sf_profile__samples_free(p);
	}
	p->d.ntypes = n;
	*out = (uint32_t)old;
	return 0;
}

int sf_profile_default_type(struct sf_profile *p, struct sf_ctx *ctx,
			    uint32_t *out)
{
	if (!p->d.ntypes) {
		int rc = sf_profile_sample_type(p, ctx, "samples", "count",
						out);
		if (rc)
			return rc;
		p->d.meta.default_type = 0;
	}
	*out = p->d.meta.default_type < p->d.ntypes ? p->d.meta.default_type :
						      (uint32_t)p->d.ntypes - 1;
	return 0;
}

/* ----- labels ----- */

static int label_cmp(const void *a, const void *b)
{
	const struct sf_label *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->value, y->value);
}

struct labelkey {
	const struct sf_label *l;
	size_t n;
};

static bool labels_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_label_set *s = &((const struct sf_profile *)c)->d.label_sets[id];
	const struct labelkey *key = k;

	if (s->n != key->n)
		return false;
	for (size_t i = 0; i < key->n; i++)
		if (s->labels[i].key != key->l[i].key ||
		    s->labels[i].value != key->l[i].value)
			return false;
	return true;
}

int sf_profile_labels(struct sf_profile *p, struct sf_ctx *ctx,
		      const struct sf_label *labels, size_t n,
		      sf_labels_id *out)
{
	struct sf_label stackbuf[16], *l = stackbuf;
	uint32_t id;
	int rc = 0;

	if (!n) {
		*out = 0;
		return 0;
	}
	if (n > 16 && !(l = sf_calloc(n, sizeof(*l))))
		return sf_error_nomem(ctx);
	for (size_t i = 0; i < n; i++) {
		l[i].key = sf_profile_str(p, ctx, labels[i].key);
		l[i].value = sf_profile_str(p, ctx, labels[i].value);
		if (!l[i].key || !l[i].value) {
			rc = ctx->err.code;
			goto out;
		}
	}
	qsort(l, n, sizeof(*l), label_cmp);
	struct labelkey key = { l, n };
	uint64_t h = sf_hash(l, n * sizeof(*l));
	if (sf_idx_find(&p->in->label_sets, h, labels_eq, p, &key, &id)) {
		*out = id;
		goto out;
	}
	struct sf_label *copy = (struct sf_label *)arena_alloc(
		p->in, n * sizeof(*copy) + sizeof(void *));
	if (!copy || sf_grow(&p->d.label_sets, &p->in->cap_labels,
			     p->d.nlabel_sets + 1, sizeof(*p->d.label_sets))) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	/* arena memory is char-aligned: align to pointer size */
	copy = (struct sf_label *)(((uintptr_t)copy + sizeof(void *) - 1) &
				   ~(uintptr_t)(sizeof(void *) - 1));
	memcpy(copy, l, n * sizeof(*copy));
	id = (uint32_t)p->d.nlabel_sets;
	p->d.label_sets[id].n = (uint32_t)n;
	p->d.label_sets[id].labels = copy;
	if (!sf_idx_insert(&p->in->label_sets, h, id)) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	p->d.nlabel_sets++;
	*out = id;
out:
	if (l != stackbuf)
		free(l);
	return rc;
}

const char *sf_profile_label(const struct sf_profile *p, sf_labels_id id,
			     const char *key)
{
	const struct sf_label_set *s = &p->d.label_sets[id];

	for (uint32_t i = 0; i < s->n; i++)
		if (!strcmp(s->labels[i].key, key))
			return s->labels[i].value;
	return NULL;
}

/* ----- samples ----- */

struct aggkey {
	sf_stack_id stack;
	sf_thread_idx thread;
	sf_labels_id labels;
};

static bool agg_eq(const void *c, uint32_t id, const void *k)
{
	const struct sf_sample *s = &((const struct sf_profile *)c)->d.samples[id];
	const struct aggkey *key = k;

	return s->stack == key->stack && s->thread == key->thread &&
	       s->labels == key->labels;
}

/* The agg slot holding sample `id` (it is there). */
static uint64_t *agg_slot(struct sf_profile *p, uint64_t h, uint32_t id)
{
	struct sf_idx *t = &p->in->agg;
	size_t mask = t->cap - 1;
	uint64_t v = sf_idx_tag(h) << 32 | id;

	for (size_t i = v >> 32 & mask;; i = (i + 1) & mask)
		if (t->slots[i] == v)
			return &t->slots[i];
}

/* s = a + b is exact (finite, no rounding error). */
static inline bool sum_exact(double a, double b, double s)
{
	/* Knuth's TwoSum: the rounding error of a + b */
	double bb = s - a;

	return isfinite(s) && (a - (s - bb)) + (b - bb) == 0;
}

/* Fold `weights` into sample `id`: false (nothing changed) when exact
 * folding is on and some sum would not be exact. */
static bool fold_into(struct sf_profile *p, uint32_t id,
		      const double *weights)
{
	size_t nt = p->d.ntypes;
	double *w = p->d.weights + (size_t)id * nt;

	if (p->d.fold_exact) {
		for (size_t i = 0; i < nt; i++)
			if (!sum_exact(w[i], weights[i], w[i] + weights[i]))
				return false;
	}
	for (size_t i = 0; i < nt; i++)
		w[i] += weights[i];
	return true;
}

int sf_profile__add_sample(struct sf_profile *p, struct sf_ctx *ctx,
			   sf_stack_id stack, sf_thread_idx thread,
			   sf_labels_id labels, int64_t time,
			   const double *weights, uint32_t *hint,
			   uint64_t count)
{
	size_t nt = p->d.ntypes;
	uint64_t h = 0;
	uint32_t id;

	if (!nt)
		return sf_error(ctx, SF_EINPUT, NULL, 0,
				"internal: sample added before a sample type");
	for (size_t i = 0; i < nt; i++) {
		double x = weights[i];
		if (!isfinite(x))
			return sf_error(ctx, SF_EINPUT, NULL, 0,
					"sample weight is not a finite number");
		if (x < 0 || x > 0x1p53 || x != (double)(uint64_t)x)
			p->in->weights_inexact = true;
		p->in->weights_total += x;
	}
	if (p->d.drop_zero) {
		size_t i = 0;
		while (i < nt && weights[i] == 0)
			i++;
		if (i == nt)
			return 0;
	}
	if (time != SF_NO_TIME)
		p->d.has_time = true;
	bool agg = p->d.aggregated, replace = false;
	uint32_t unfolded = 0;   /* with `replace`: the sample not folded into */
	if (agg && p->d.fold_exact && !p->in->nofold) {
		for (size_t i = 0; i < nt; i++)
			if (weights[i] < 0)
				p->in->nofold = true;
	}
	if (hint && agg && !p->in->nofold && !p->in->multi &&
	    *hint < p->d.nsamples) {
		/* without `multi` a key has one sample: the hint's */
		const struct sf_sample *hs = &p->d.samples[*hint];
		if (hs->stack == stack && hs->thread == thread &&
		    hs->labels == labels && fold_into(p, *hint, weights)) {
			p->d.counts[*hint] += count;
			p->d.nadded += count;
			return 0;
		}
	}
	/* Where a sample of the same key is: the first key seen of each
	 * stack (often its only one: a timeline's samples are each their own
	 * stack, collapsed input has no thread) is found by the stack alone,
	 * in agg_stack; only a stack's other keys are hashed.  A probe into a
	 * hash table as large as the samples missed the cache once a sample,
	 * where agg_stack is read in about the order stacks were made. */
	bool by_stack = false;   /* the key is agg_stack[stack]'s sample's */
	bool hashed = false;     /* `h` is the key's hash */
	if (agg) {
		if (p->in->agg_trimmed && sf_profile__agg_rebuild(p))
			return sf_error_nomem(ctx);
		if (stack >= p->in->cap_agg_stack) {
			size_t old = p->in->cap_agg_stack;
			size_t ncap = old ? old : 1024;
			while (ncap <= stack)
				ncap *= 2;
			/* every stack is below nstacks: room for all of them
			 * at once, when the stacks came first (a document's
			 * section), not a copy at every doubling */
			if (ncap < p->d.nstacks)
				ncap = p->d.nstacks;
			uint32_t *a = p->in->agg_stack;
			size_t bytes = old * sizeof(*a);
			/* a mapping (the room, or past 256 KiB) may come
			 * back larger than asked: its bytes are its entries */
			if (sf_big_resize(&a, &bytes, ncap * sizeof(*a)))
				return sf_error_nomem(ctx);
			ncap = bytes / sizeof(*a);
			memset(a + old, 0, (ncap - old) * sizeof(*a));
			p->in->agg_stack = a;
			p->in->cap_agg_stack = ncap;
		}
		uint32_t first = p->in->agg_stack[stack];
		const struct sf_sample *fs = first ?
					     &p->d.samples[first - 1] : NULL;
		bool found = false;
		if (!fs || (fs->thread == thread && fs->labels == labels)) {
			by_stack = true;
			if (fs) {
				found = true;
				id = first - 1;
			}
		} else {
			struct aggkey key = { stack, thread, labels };
			h = sf_hash(&key, sizeof(key));
			hashed = true;
			found = sf_idx_find(&p->in->agg, h, agg_eq, p, &key,
					    &id);
		}
		if (found) {
			if (!p->in->nofold && fold_into(p, id, weights)) {
				p->d.counts[id] += count;
				p->d.nadded += count;
				if (hint)
					*hint = id;
				return 0;
			}
			replace = true;
			unfolded = id;
		}
		time = SF_NO_TIME;
	}
	if (p->d.nsamples >= UINT32_MAX - 1)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"more than 4 billion samples; use an "
				"aggregated output");
	if (p->d.nsamples >= p->in->cap_samples &&
	    sf_profile__samples_resize(p, p->in->cap_samples ?
					       p->in->cap_samples * 2 : 256))
		return sf_error_nomem(ctx);
	id = (uint32_t)p->d.nsamples;
	p->d.samples[id].stack = stack;
	p->d.samples[id].thread = thread;
	p->d.samples[id].labels = labels;
	p->d.samples[id].time = time;
	memcpy(p->d.weights + (size_t)id * nt, weights, nt * sizeof(double));
	if (agg)
		p->d.counts[id] = count;
	if (replace)
		p->in->multi = true;
	if (hint && agg)
		*hint = id;
	if (by_stack) {
		p->in->agg_stack[stack] = id + 1;
	} else if (replace && hashed) {
		/* later samples of this key fold into the new one */
		uint64_t *slot = agg_slot(p, h, unfolded);
		*slot = (*slot & ~(uint64_t)UINT32_MAX) | id;
	} else if (hashed && !sf_idx_insert(&p->in->agg, h, id)) {
		return sf_error_nomem(ctx);
	}
	p->d.nsamples++;
	p->d.nadded += count;
	return 0;
}

int sf_profile_add_sample(struct sf_profile *p, struct sf_ctx *ctx,
			  sf_stack_id stack, sf_thread_idx thread,
			  sf_labels_id labels, int64_t time,
			  const double *weights)
{
	return sf_profile__add_sample(p, ctx, stack, thread, labels, time,
				      weights, NULL, 1);
}

int sf_profile_add_sample_hint(struct sf_profile *p, struct sf_ctx *ctx,
			       sf_stack_id stack, sf_thread_idx thread,
			       sf_labels_id labels, int64_t time,
			       const double *weights, uint32_t *hint)
{
	/* A reader folding one event at a time (perf script) comes here
	 * once an event, nearly always with the hint right: that case,
	 * with one sample type and a positive weight, is what
	 * sf_profile__add_sample does for it, without its general steps
	 * (its frame and loops were a tenth of the read).  Anything else,
	 * or a fold that would not be exact, goes there, nothing changed. */
	uint32_t id = *hint;
	if (p->d.ntypes == 1 && p->d.aggregated && !p->in->nofold &&
	    !p->in->multi && id < p->d.nsamples) {
		const struct sf_sample *hs = &p->d.samples[id];
		double x = weights[0], *w = &p->d.weights[id], sum = *w + x;
		if (x > 0 && x < INFINITY && hs->stack == stack &&
		    hs->thread == thread && hs->labels == labels &&
		    (!p->d.fold_exact || sum_exact(*w, x, sum))) {
			if (x > 0x1p53 || x != (double)(uint64_t)x)
				p->in->weights_inexact = true;
			p->in->weights_total += x;
			if (time != SF_NO_TIME)
				p->d.has_time = true;
			*w = sum;
			p->d.counts[id]++;
			p->d.nadded++;
			return 0;
		}
	}
	return sf_profile__add_sample(p, ctx, stack, thread, labels, time,
				      weights, hint, 1);
}

int sf_profile_add(struct sf_profile *p, struct sf_ctx *ctx,
		   sf_stack_id stack, sf_thread_idx thread, double weight)
{
	double w[8] = { 0 };
	uint32_t t;
	int rc;

	if ((rc = sf_profile_default_type(p, ctx, &t)))
		return rc;
	if (p->d.ntypes > 8)
		return sf_error(ctx, SF_EINPUT, NULL, 0,
				"internal: sf_profile_add with many types");
	w[t] = weight;
	return sf_profile_add_sample(p, ctx, stack, thread, 0, SF_NO_TIME, w);
}

/* ----- metadata ----- */

int sf_profile_set_prop(struct sf_profile *p, struct sf_ctx *ctx,
			const char *key, const char *value)
{
	const char *k = sf_profile_str(p, ctx, key);
	const char *v = sf_profile_str(p, ctx, value);

	if (!k || !v)
		return ctx->err.code;
	for (size_t i = 0; i < p->d.meta.nprops; i++) {
		if (p->d.meta.props[i].key == k) {
			p->d.meta.props[i].value = v;
			return 0;
		}
	}
	struct sf_label *n = sf_reallocarray(p->d.meta.props,
					     p->d.meta.nprops + 1, sizeof(*n));
	if (!n)
		return sf_error_nomem(ctx);
	p->d.meta.props = n;
	n[p->d.meta.nprops].key = k;
	n[p->d.meta.nprops].value = v;
	p->d.meta.nprops++;
	return 0;
}

const char *sf_profile_prop(const struct sf_profile *p, const char *key)
{
	for (size_t i = 0; i < p->d.meta.nprops; i++)
		if (!strcmp(p->d.meta.props[i].key, key))
			return p->d.meta.props[i].value;
	return NULL;
}
