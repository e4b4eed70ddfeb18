/* t_stacktree.c - the stack tree's index (profile.c: child lists, and the
 * hash index for wide stacks) against a brute-force reference: a push
 * returns the existing stack with that (parent, frame) if there is one,
 * else a new id, the next in order.  Random pushes over few frames (deep
 * chains) and many frames (stacks far wider than the child lists), the
 * same frame names given as names and as frames with a module,
 * sf_profile_trim in the middle (the index is rebuilt), and the index
 * sized up front by sf_profile_reserve_stacks, too large and too small;
 * and the deepest stack, sf_profile_max_depth; a frame's offset is part of
 * its identity; room reserved for the stack tree (sf_profile_stack_room):
 * the arrays do not move while the reserved stacks are added, and
 * another thread faulting their pages in (sf_stack_room_fill) changes no
 * entry; given to the context when loading ends (sf_profile_trim_keep),
 * the child lists' room keeps only its written pages, all faulted in;
 * a chain pushed at once (sf_profile_stack_chain) is the pushes'. */
#include "unit.h"
#include "profile.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

static uint64_t rs = 42;

static uint32_t rnd(uint32_t n)
{
	rs = rs * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rs >> 33) % n;
}

/* the reference: scan every stack */
static sf_stack_id find(const struct sf_profile *p, sf_stack_id parent,
			sf_frame_id f)
{
	for (size_t i = 1; i < p->d.nstacks; i++)
		if (p->d.stacks[i].parent == parent &&
		    p->d.stacks[i].frame == f)
			return (sf_stack_id)i;
	return 0;
}

static int run(struct sf_ctx *ctx, uint32_t nframes, uint32_t pushes,
	       size_t reserve, const char *name)
{
	struct sf_profile *p;
	sf_frame_id *fr = malloc(nframes * sizeof(*fr));
	int bad = 0;

	if (!fr || sf_profile_new(&p, ctx)) {
		free(fr);
		return 1;
	}
	if (reserve && sf_profile_reserve_stacks(p, ctx, reserve))
		bad = 1;
	for (uint32_t i = 0; i < nframes; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "fn%u", i / 2);
		/* odd frames: the same name in a module, another frame */
		if (sf_profile_frame_named(p, ctx, buf, (size_t)n,
					   i % 2 ? "mod" : NULL, &fr[i]))
			bad = 1;
	}
	sf_stack_id s = SF_STACK_EMPTY;
	for (uint32_t k = 0; k < pushes && !bad; k++) {
		if (k == pushes / 2)
			sf_profile_trim(p);
		if (rnd(8) == 0)
			s = SF_STACK_EMPTY;
		else if (rnd(4) == 0 && s)
			s = (sf_stack_id)(1 + rnd((uint32_t)p->d.nstacks - 1));
		sf_frame_id f = fr[rnd(nframes)];
		sf_stack_id want = find(p, s, f), got;
		size_t before = p->d.nstacks;
		if (sf_profile_stack_push(p, ctx, s, f, &got)) {
			bad = 1;
			break;
		}
		if (want ? got != want : got != before ||
			   p->d.nstacks != before + 1 ||
			   p->d.stacks[got].parent != s ||
			   p->d.stacks[got].frame != f ||
			   p->d.stacks[got].depth != p->d.stacks[s].depth + 1)
			bad = 1;
		s = got;
	}
	/* the frame of a name is the same frame every time */
	for (uint32_t i = 0; i < nframes && !bad; i++) {
		char buf[32];
		sf_frame_id f;
		int n = snprintf(buf, sizeof(buf), "fn%u", i / 2);
		if (sf_profile_frame_named(p, ctx, buf, (size_t)n,
					   i % 2 ? "mod" : NULL, &f) ||
		    f != fr[i] || (i % 2 && f == fr[i - 1]))
			bad = 1;
	}
	CHECK(name, !bad);
	sf_profile_free(p);
	free(fr);
	return bad;
}

/* sf_profile_max_depth: stacks a;b;c, a;d and e (depths 3, 2, 1, and
 * their prefixes) give 3 however they come; a new profile gives 0. */
static void max_depth(struct sf_ctx *ctx)
{
	static const char *const stacks[][4] = {
		{ "a", "d" }, { "a", "b", "c" }, { "e" },
	};
	struct sf_profile *p;
	int bad = 0;

	if (sf_profile_new(&p, ctx)) {
		CHECK("stacktree-max-depth", 0);
		return;
	}
	bad |= sf_profile_max_depth(p) != 0;
	for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
		sf_frame_id fr[4];
		sf_stack_id s;
		size_t n = 0;
		for (; n < 4 && stacks[i][n]; n++)
			if (sf_profile_frame_named(p, ctx, stacks[i][n],
						   strlen(stacks[i][n]), NULL,
						   &fr[n]))
				bad = 1;
		if (sf_profile_stack(p, ctx, fr, n, false, &s))
			bad = 1;
		bad |= sf_profile_max_depth(p) != (i ? 3 : 2);
	}
	CHECK("stacktree-max-depth", !bad);
	sf_profile_free(p);
}

/* The deepest depth by a look at every node: what sf_profile_max_depth
 * must answer, which keeps it as nodes are made instead */
static uint32_t scan_depth(const struct sf_profile *p)
{
	uint32_t m = 0;

	for (size_t s = 0; s < p->d.nstacks; s++)
		if (p->d.stacks[s].depth > m)
			m = p->d.stacks[s].depth;
	return m;
}

/* sf_profile_max_depth against scan_depth after each of 3,000 random
 * pushes (under a random node: new or found) and chains (under the
 * newest node, of 1-8 frames), then 0 after sf_profile_drop_stacks. */
static void max_depth_kept(struct sf_ctx *ctx)
{
	struct sf_profile *p;
	sf_frame_id fr[8];
	uint64_t x = 0x9e3779b97f4a7c15u;
	size_t differ = 0, chains = 0;

	if (sf_profile_new(&p, ctx)) {
		CHECK("stacktree-max-depth-kept", 0);
		return;
	}
	for (int i = 0; i < 8; i++)
		if (sf_profile_frame_named(p, ctx, "abcdefgh" + i, 1, NULL,
					   &fr[i]))
			differ++;
	for (int k = 0; k < 3000 && !differ; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sf_stack_id s;
		if (x % 3 == 0) {
			size_t n = 1 + (size_t)(x >> 8) % 8;
			if (sf_profile_stack_chain(p, ctx, fr, n))
				chains++;
		} else if (sf_profile_stack_push(
				   p, ctx, (sf_stack_id)((x >> 8) % p->d.nstacks),
				   fr[(x >> 40) % 8], &s)) {
			differ++;
		}
		differ += sf_profile_max_depth(p) != scan_depth(p);
	}
	CHECK("stacktree-max-depth-kept", !differ && chains > 100 &&
	      sf_profile_max_depth(p) > 20);
	sf_profile_drop_stacks(p, NULL);
	CHECK("stacktree-max-depth-dropped", sf_profile_max_depth(p) == 0);
	sf_profile_free(p);
}

/* sf_profile_stack_chain: frames a b c d e (ids 0-4); a under the root
 * (1), then the chain b c d under it: ids 2, 3, 4, each under the one
 * before at depths 2, 3, 4, as three pushes make them, and found again
 * by pushes (the child lists); five more children of 2 (its list full,
 * moved to the hash index) leave the chain found; past the depth limit it
 * does nothing, sets no error, and the pushes one by one stop at the
 * node past the limit. */
static void chain(struct sf_ctx *ctx)
{
	static const char names[] = "abcde";
	struct sf_profile *p;
	sf_frame_id fr[5], bcd[3];
	sf_stack_id s;
	int bad = 0;

	if (sf_profile_new(&p, ctx)) {
		CHECK("stacktree-chain", 0);
		return;
	}
	for (int i = 0; i < 5; i++)
		bad |= sf_profile_frame_named(p, ctx, names + i, 1, NULL,
					      &fr[i]) != 0;
	bad |= sf_profile_stack_push(p, ctx, 0, fr[0], &s) || s != 1;
	bcd[0] = fr[1];
	bcd[1] = fr[2];
	bcd[2] = fr[3];
	bad |= !sf_profile_stack_chain(p, ctx, bcd, 3) || p->d.nstacks != 5;
	for (uint32_t i = 2; i <= 4; i++)
		bad |= p->d.stacks[i].parent != i - 1 ||
		       p->d.stacks[i].frame != fr[i - 1] ||
		       p->d.stacks[i].depth != i;
	CHECK("stacktree-chain", !bad);
	bad |= sf_profile_stack_push(p, ctx, 1, fr[1], &s) || s != 2;
	bad |= sf_profile_stack_push(p, ctx, 2, fr[2], &s) || s != 3;
	bad |= sf_profile_stack_push(p, ctx, 3, fr[3], &s) || s != 4;
	bad |= sf_profile_stack_push(p, ctx, 4, fr[0], &s) || s != 5;
	for (int i = 0; i < 5; i++)
		bad |= sf_profile_stack_push(p, ctx, 2, fr[i], &s) ||
		       s != (i == 2 ? 3u : (uint32_t)(6 + i - (i > 2)));
	bad |= sf_profile_stack_push(p, ctx, 2, fr[2], &s) || s != 3;
	bad |= sf_profile_stack_push(p, ctx, 3, fr[3], &s) || s != 4;
	CHECK("stacktree-chain-found", !bad && p->d.nstacks == 10);
	/* newest is 9 (a;b;e, depth 3): four more would reach depth 7 */
	ctx->limits.max_depth = 6;
	bad |= sf_profile_stack_chain(p, ctx, fr, 4) || p->d.nstacks != 10 ||
	       ctx->err.code != 0;
	bad |= sf_profile_stack_push(p, ctx, 9, fr[0], &s) || s != 10 ||
	       sf_profile_stack_push(p, ctx, 10, fr[0], &s) || s != 11 ||
	       sf_profile_stack_push(p, ctx, 11, fr[0], &s) || s != 12 ||
	       !sf_profile_stack_push(p, ctx, 12, fr[0], &s) ||
	       p->d.nstacks != 13;
	CHECK("stacktree-chain-limit", !bad);
	sf_profile_free(p);
	sf_ctx_free(ctx);
	sf_ctx_init(ctx);
}

/* A frame's offset into its function is part of its identity: one
 * function at two return addresses is two frames, at one address one. */
static void frame_offset(struct sf_ctx *ctx)
{
	struct sf_profile *p;
	struct sf_frame f;
	sf_frame_id a = 0, b = 0, c = 0, d = 0;
	int rc = 0;

	if (sf_profile_new(&p, ctx)) {
		CHECK("frame-offset-identity", 0);
		return;
	}
	sf_frame_init(&f);
	CHECK("frame-offset-unknown", f.offset == SF_NO_OFFSET);
	f.name = "main";
	f.module = "app";
	rc |= sf_profile_frame(p, ctx, &f, &d);
	f.address = 0x2014;
	f.offset = 20;
	rc |= sf_profile_frame(p, ctx, &f, &a);
	rc |= sf_profile_frame(p, ctx, &f, &c);
	f.address = 0x2024;
	f.offset = 36;
	rc |= sf_profile_frame(p, ctx, &f, &b);
	CHECK("frame-offset-identity", !rc && a == c && a != b && a != d &&
	      p->d.nframes == 3 && p->d.frames[b].offset == 36);
	sf_profile_free(p);
}

struct filler {
	const struct sf_stack_room *room;
	size_t to;
};

/* what the JSON reader's second thread does: fault in the entries ahead,
 * a slice at a time */
static void *fill_thread(void *arg)
{
	const struct filler *f = arg;

	for (size_t at = 0; at < f->to; at += 4096)
		sf_stack_room_fill(f->room, at, at + 4096);
	return NULL;
}

/* 5 stacks, then room for 300,000 more: a thread faults in their entries
 * while 300,000 stacks are pushed (chains of 40 under the root, each
 * starting with a frame of its own, so every push is a new node with a
 * known parent); d.stacks stays where the room put it, and every
 * node reads back as pushed.  Where the room cannot be had (under
 * AddressSanitizer no buffer is a mapping of its own) it says -1 and the
 * pushes grow the arrays as before. */
static void room(struct sf_ctx *ctx)
{
	enum { N = 300000 };
	struct sf_profile *p;
	struct sf_stack_room rm;
	static sf_frame_id fr[40 + N / 40];
	sf_stack_id s = SF_STACK_EMPTY;
	int bad = 0;

	if (sf_profile_new(&p, ctx)) {
		CHECK("stacktree-room", 0);
		return;
	}
	for (int i = 0; i < 40 + N / 40 && !bad; i++) {
		char buf[16];
		int n = snprintf(buf, sizeof(buf), "f%d", i);
		bad = sf_profile_frame_named(p, ctx, buf, (size_t)n, NULL,
					     &fr[i]) != 0;
	}
	for (int i = 0; i < 5 && !bad; i++)
		bad = sf_profile_stack_push(p, ctx, s, fr[i], &s) != 0;
	int rc = sf_profile_stack_room(p, N, &rm);
	const struct sf_stack_node *st = p->d.stacks;
	struct filler f = { &rm, p->d.nstacks + N };
	pthread_t th;
	bool threaded = !rc && !pthread_create(&th, NULL, fill_thread, &f);
	for (uint32_t k = 0; k < N && !bad; k++) {
		sf_stack_id parent = k % 40 ? s : SF_STACK_EMPTY;
		size_t before = p->d.nstacks;
		if (sf_profile_stack_push(p, ctx, parent,
					  fr[k % 40 ? k % 40 : 40 + k / 40], &s) ||
		    s != before || (!rc && p->d.stacks != st))
			bad = 1;
	}
	if (threaded)
		pthread_join(th, NULL);
	for (size_t i = 6; i < p->d.nstacks && !bad; i++) {
		size_t k = i - 6;
		if (p->d.stacks[i].parent != (k % 40 ? i - 1 : 0) ||
		    p->d.stacks[i].frame != fr[k % 40 ? k % 40 : 40 + k / 40] ||
		    p->d.stacks[i].depth != k % 40 + 1)
			bad = 1;
	}
	CHECK("stacktree-room", !bad && p->d.nstacks == 6 + N &&
				p->d.stacks[5].depth == 5);
#if !defined(__SANITIZE_ADDRESS__)
	/* a plain build maps a room of this size (3.6 MB an array) */
	CHECK("stacktree-room-reserved", rc == 0);
#endif
	sf_profile_free(p);
}

#if !defined(__SANITIZE_ADDRESS__)
/* Are all pages of the mapping [a, a + n) faulted in? */
static bool resident(const void *a, size_t n)
{
	size_t pages = (n + 4095) / 4096;
	unsigned char *v = malloc(pages ? pages : 1);
	bool all = v && !mincore((void *)a, n, v);

	for (size_t i = 0; all && i < pages; i++)
		all = v[i] & 1;
	free(v);
	return all;
}

/* The stack tree in a room reserved for four times the stacks pushed (a
 * reader's estimate), its child lists given to the context when loading
 * ends (sf_profile_trim_keep) for a writer to take: only their written
 * part is kept, every page of it faulted in, and the room's untouched
 * rest is given back.  Kept whole, the untouched rest came first for a
 * taker (the collapsed writer's records got fresh pages there).  N nodes
 * of 12 bytes: 6 MiB written, whole huge pages, so none of the rest
 * shares a written page. */
static void trim_keep_room(void)
{
	enum { N = 524288 };   /* nodes, the empty stack's included */
	struct sf_ctx ctx;
	struct sf_profile *p;
	struct sf_stack_room rm;
	static sf_frame_id fr[41 + N / 40];
	sf_stack_id s = SF_STACK_EMPTY;
	int bad;

	sf_ctx_init(&ctx);
	if (sf_profile_new(&p, &ctx)) {
		CHECK("stacktree-trim-keep-written", 0);
		return;
	}
	bad = sf_profile_stack_room(p, 4 * N, &rm) != 0;
	for (int i = 0; i < 41 + N / 40 && !bad; i++) {
		char buf[16];
		int n = snprintf(buf, sizeof(buf), "f%d", i);
		bad = sf_profile_frame_named(p, &ctx, buf, (size_t)n, NULL,
					     &fr[i]) != 0;
	}
	/* as room() pushes: chains of 40 under distinct root frames */
	for (uint32_t k = 0; p->d.nstacks < N && !bad; k++)
		bad = sf_profile_stack_push(p, &ctx,
					    k % 40 ? s : SF_STACK_EMPTY,
					    fr[k % 40 ? k % 40 : 40 + k / 40],
					    &s) != 0;
	sf_profile_trim_keep(p, &ctx);
	CHECK("stacktree-trim-keep-written", !bad && p->d.nstacks == N &&
	      ctx.spare && ctx.spare_cap == (size_t)N * 12 &&
	      resident(ctx.spare, ctx.spare_cap));
	sf_profile_free(p);
	sf_ctx_free(&ctx);
}
#endif

int main(void)
{
	struct sf_ctx ctx;

	sf_ctx_init(&ctx);
	run(&ctx, 3, 20000, 0, "stacktree-deep-chains");
	run(&ctx, 40, 20000, 0, "stacktree-wide-stacks");
	run(&ctx, 400, 6000, 0, "stacktree-very-wide-root");
	run(&ctx, 40, 20000, 100000, "stacktree-reserved-large");
	run(&ctx, 400, 6000, 10, "stacktree-reserved-small");
	max_depth(&ctx);
	max_depth_kept(&ctx);
	chain(&ctx);
	frame_offset(&ctx);
	room(&ctx);
#if !defined(__SANITIZE_ADDRESS__)
	trim_keep_room();
#endif
	return unit_failed;
}
