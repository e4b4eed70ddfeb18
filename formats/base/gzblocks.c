/* gzblocks.c - one gzip member compressed in blocks on several threads
 * (contract: gzblocks.h). */
#include "gzblocks.h"
#include "sf.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DICT 32768u   /* deflate's window: what a block may refer back to */
/* deflateBound covers one deflate call that finishes; a sync flush adds
 * an empty stored block (5 bytes) and at most a few bits before it */
#define SLACK 64u

struct slot {
	z_stream zs;
	bool init;
	unsigned char *out;
	size_t nout;
	uLong crc;
	int zr;        /* Z_OK, or what failed */
};

struct sf_gzb {
	int level;
	unsigned jobs;
	bool started, ended;
	uLong crc;         /* of the stream so far */
	uint64_t total;
	unsigned char dict[DICT];   /* the last DICT bytes put */
	size_t ndict;
	struct slot slot[SF_GZB_BATCH];
	size_t outcap;
	/* the batch being compressed */
	const unsigned char *buf;
	size_t len;
	bool last;
	size_t nb;                  /* its blocks */
	_Atomic size_t next;        /* the next block a thread takes */
};

struct sf_gzb *sf_gzb_new(int level, unsigned jobs)
{
	struct sf_gzb *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->level = level;
	z->jobs = jobs ? jobs : 1;
	z->crc = crc32(0, Z_NULL, 0);
	/* deflateBound of a raw stream depends only on the level and the
	 * window, so any stream gives it; compressBound is at least as
	 * large for every level */
	z->outcap = compressBound(SF_GZB_BLOCK) + SLACK;
	return z;
}

void sf_gzb_jobs(struct sf_gzb *z, unsigned jobs)
{
	z->jobs = jobs ? jobs : 1;
}

/* Compress block k of the batch into its slot (sf_run_tasks: each task
 * has its own slot, and reads only the batch and the saved window). */
static void block_task(void *arg, size_t k)
{
	struct sf_gzb *z = arg;
	struct slot *s = &z->slot[k];
	size_t off = k * SF_GZB_BLOCK;
	size_t n = z->len - off < SF_GZB_BLOCK ? z->len - off : SF_GZB_BLOCK;
	bool fin = z->last && off + n == z->len;
	int zr;

	s->nout = 0;
	s->crc = crc32(0, Z_NULL, 0);
	if (!s->init) {
		/* raw deflate (windowBits -15): the header is written once,
		 * for the whole member */
		s->zr = deflateInit2(&s->zs, z->level, Z_DEFLATED, -15, 8,
				     Z_DEFAULT_STRATEGY);
		if (s->zr != Z_OK)
			return;
		s->init = true;
	} else if ((s->zr = deflateReset(&s->zs)) != Z_OK) {
		return;
	}
	if (!s->out && !(s->out = malloc(z->outcap))) {
		s->zr = Z_MEM_ERROR;
		return;
	}
	/* the 32 KiB before the block, whether in this batch or the last */
	const unsigned char *d = k ? z->buf + off - DICT : z->dict;
	size_t nd = k ? DICT : z->ndict;
	if (nd && (s->zr = deflateSetDictionary(&s->zs, d, (uInt)nd)) !=
		  Z_OK)
		return;
	s->zs.next_in = (Bytef *)(uintptr_t)(z->buf + off);
	s->zs.avail_in = (uInt)n;
	s->zs.next_out = s->out;
	s->zs.avail_out = (uInt)z->outcap;
	zr = deflate(&s->zs, fin ? Z_FINISH : Z_SYNC_FLUSH);
	/* all of it in one call: the buffer is larger than any result */
	if (zr != (fin ? Z_STREAM_END : Z_OK) || s->zs.avail_in ||
	    !s->zs.avail_out) {
		s->zr = zr == Z_OK || zr == Z_STREAM_END ? Z_BUF_ERROR : zr;
		return;
	}
	s->nout = z->outcap - s->zs.avail_out;
	if (n)
		s->crc = crc32(s->crc, z->buf + off, (uInt)n);
	s->zr = Z_OK;
}

/*
 * One of the crew: take the batch's next block until none is left.  A
 * block is not tied to a thread: with the blocks dealt out in turn, a
 * thread the writer's thread had kept off its core held the batch up
 * while the other waited, and at -j2 three threads (the writer, two
 * compressing) share two cores.  Which thread compresses a block does
 * not change its bytes.
 */
static void crew_task(void *arg, size_t k)
{
	struct sf_gzb *z = arg;
	size_t b;

	(void)k;
	while ((b = atomic_fetch_add_explicit(&z->next, 1,
					      memory_order_relaxed)) < z->nb)
		block_task(z, b);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int sf_gzb_put(struct sf_gzb *z, const unsigned char *buf, size_t len,
	       bool last, sf_gzb_write_fn *emit, void *arg)
{
	if (z->ended)
		return -1;
	if (!z->started) {
		/* gzip, deflate, no flags, no time, "fastest" for level 1
		 * (as zlib writes it), Unix */
		static const unsigned char head[10] = {
			0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3
		};
		unsigned char h[10];
		memcpy(h, head, sizeof(h));
		h[8] = z->level == 9 ? 2 : z->level == 1 ? 4 : 0;
		emit(arg, h, sizeof(h));
		z->started = true;
	}
	while (len || last) {
		size_t n = len < SF_GZB_BATCH * SF_GZB_BLOCK ?
				   len : SF_GZB_BATCH * SF_GZB_BLOCK;
		bool fin = last && n == len;
		/* an empty last batch still ends the deflate stream */
		size_t nb = n ? (n + SF_GZB_BLOCK - 1) / SF_GZB_BLOCK : 1;
		z->buf = buf;
		z->len = n;
		z->last = fin;
		z->nb = nb;
		atomic_store_explicit(&z->next, 0, memory_order_relaxed);
		/* the threads start after these stores and are joined before
		 * the slots are read (sf_run_tasks) */
		sf_run_tasks(z->jobs < nb ? z->jobs : (unsigned)nb,
			     z->jobs < nb ? z->jobs : nb, crew_task, z);
		for (size_t k = 0; k < nb; k++) {
			struct slot *s = &z->slot[k];
			size_t bn = k + 1 < nb ? SF_GZB_BLOCK :
						 n - k * SF_GZB_BLOCK;
			if (s->zr != Z_OK) {
				z->ended = true;
				return -1;
			}
			emit(arg, s->out, s->nout);
			z->crc = crc32_combine(z->crc, s->crc, (z_off_t)bn);
		}
		z->total += n;
		/* the window of the next batch's first block */
		if (n >= DICT) {
			memcpy(z->dict, buf + n - DICT, DICT);
			z->ndict = DICT;
		}
		buf += n;
		len -= n;
		if (fin) {
			unsigned char t[8];
			put_le32(t, (uint32_t)z->crc);
			put_le32(t + 4, (uint32_t)z->total);   /* mod 2^32 */
			emit(arg, t, sizeof(t));
			z->ended = true;
			break;
		}
	}
	return 0;
}

void sf_gzb_free(struct sf_gzb *z)
{
	if (!z)
		return;
	for (size_t k = 0; k < SF_GZB_BATCH; k++) {
		if (z->slot[k].init)
			deflateEnd(&z->slot[k].zs);
		free(z->slot[k].out);
	}
	free(z);
}
