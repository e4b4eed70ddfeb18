/*
 * fmt_perfdata.c - perf.data as `perf record` writes it (magic PERFILE2),
 * read directly: no `perf script` step.  The layout is perf's
 * tools/perf/Documentation/perf.data-file-format.txt and the record
 * layouts of include/uapi/linux/perf_event.h:
 *
 *     header   magic, sizes, the attrs / data sections, feature bits
 *     attrs    one perf_event_attr per event, with the ids it samples as
 *     data     records: SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT, ...
 *     features after the data: EVENT_DESC (event names), BUILD_ID, ...
 *
 * A pipe-mode file (`perf record -o -`, header of 16 bytes) carries the
 * same in records (HEADER_ATTR, HEADER_BUILD_ID, EVENT_UPDATE).
 *
 * The model is the one `perf script | sfconv --from perf` builds: records
 * are taken in timestamp order (perf script's ordered events), so a
 * sample gets the comm and the maps of its thread at that time; each
 * callchain entry is resolved as perf resolves it (PERF_CONTEXT_* markers
 * switch between kernel and user maps) and named as stackcollapse-perf.pl
 * names `perf script`'s line for it (elfsym.h has the symbol rules);
 * the root frame is the comm.  Anonymous executable maps are named
 * after the JIT's /tmp/perf-PID.map, as perf names them.  Only the
 * samples of the first event seen are kept (--event-filter picks
 * another), as stackcollapse-perf.pl keeps them: its sample type is named
 * after the event without modifiers (nanoseconds for cpu-clock and
 * task-clock, else events) and weighted by the sample's period.
 *
 * `--call-graph dwarf` samples carry the user registers and a copy of
 * the user stack: their user part is unwound (perfdata_unwind.c), and
 * named with the inlined functions perf script adds there
 * (perfdata_inline.c).
 *
 * `--call-graph lbr` samples carry the CPU's last branch records as a
 * call stack: their user part is made of those, as perf script makes it
 * (lbr_chain below).
 *
 * Not read: compressed records (`perf record -z`): refused with a
 * message naming `perf script` as the way round.
 *
 * This file holds the pass over the records and the samples; perfdata.h
 * lists the others.
 *
 * The input is held whole in memory (sections are found by offset, and
 * the records are sorted by time): a regular file is mapped (as perf
 * maps it), which spares the copy and the zeroed pages it was read into
 * (a third of a 164 MB --call-graph dwarf conversion); standard input and
 * gzip are read into memory.
 */
#include "perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The root frame (the comm) after the n frames of st->frames. */
static int add_root(struct pd_state *st, const struct pd_thread *th,
		    size_t *n)
{
	if (!grow((void **)&st->frames, &st->cap_frames, *n + 1,
		  sizeof(*st->frames)))
		return sf_error_nomem(st->ctx);
	st->frames[(*n)++] = th->root;
	return 0;
}

static int add_sample(struct pd_state *st, const struct pd_attr *a,
		      struct pd_thread *th, sf_stack_id stack,
		      uint64_t period, int64_t time)
{
	int rc;

	if (!th->have_idx) {
		if ((rc = sf_profile_thread(st->p, st->ctx, th->pid, th->tid,
					    th->comm, &th->idx)))
			return rc;
		th->have_idx = true;
	}
	for (size_t i = 0; i < st->p->d.ntypes; i++)
		st->w[i] = 0;
	/* without PERIOD in the sample, perf script prints the attr's
	 * fixed period (perf record -c) */
	st->w[a->mtype] = period ? (double)period : 1;
	return sf_profile_add_sample(st->p, st->ctx, stack, th->idx, 0, time,
				     st->w);
}

/*
 * The call chain perf script shows for a sample of `perf record
 * --call-graph lbr` (tools/perf/util/machine.c,
 * resolve_lbr_callchain_sample, callee order, no --stitch-lbr): the
 * kernel's chain up to and with its PERF_CONTEXT_USER marker, then where
 * the most recent recorded call went (branch entry 0's "to": the leaf
 * function's start, not the sampled ip), then where each recorded call
 * was made ("from"), most recent first.  What the kernel's chain holds
 * past the marker (the user stack by frame pointers) is not shown.
 *
 * It is made as a chain of the same words, so that it is resolved (and
 * cached) as any other: *chain and *nr are replaced, or left as they are
 * where perf falls back to the kernel's chain: no user part among its
 * first MAX_STACK entries, or an entry perf takes for a context marker it
 * does not know (perf drops the LBR chain then).
 *
 * An empty branch stack still has its entry 0 read (perf does not check):
 * the 24 bytes after the stack, which in a file are the next record's
 * (perf reads the file mapped); past the end of the file, zeros.
 */
static int lbr_chain(struct pd_state *st, const unsigned char *br,
		     uint64_t bn, const unsigned char **chain, uint64_t *nr)
{
	const unsigned char *c = *chain;
	uint64_t u, lim = *nr < MAX_STACK ? *nr : MAX_STACK;

	for (u = 0; u < lim && rd64(c + u * 8) != CONTEXT_USER; u++)
		;
	if (u == lim)
		return 0;
	uint64_t n = u + 2 + bn;
	if (!grow((void **)&st->lbr, &st->cap_lbr, n, sizeof(*st->lbr)))
		return sf_error_nomem(st->ctx);
	memcpy(st->lbr, c, (u + 1) * 8);
	if (bn) {
		st->lbr[u + 1] = rd64(br + 8);
	} else {
		unsigned char to[8] = { 0 };
		size_t at = (size_t)(br - st->d) + 8;
		if (at < st->size)
			memcpy(to, st->d + at,
			       st->size - at < 8 ? st->size - at : 8);
		st->lbr[u + 1] = rd64(to);
	}
	for (uint64_t i = 0; i < bn; i++)
		st->lbr[u + 2 + i] = rd64(br + i * 24);
	for (uint64_t i = u + 1; i < n; i++)
		if (st->lbr[i] >= CONTEXT_MAX && context_mode(st->lbr[i]) < 0)
			return 0;
	*chain = (const unsigned char *)st->lbr;
	*nr = n;
	return 0;
}

static int on_sample(struct pd_state *st, uint64_t off, size_t size,
		     uint16_t misc)
{
	struct pd_attr *a = (struct pd_attr *)sf_pd__attr_of(st, off, R_SAMPLE,
							     size);
	const unsigned char *b = st->d + off;
	size_t pos = 8;
	uint64_t t, ip = 0, time = 0, period;
	int64_t pid = -1, tid = -1;
	int rc;

	if (!a)
		return bad(st, off, "sample of an event id the header does "
			   "not list");
	if (!st->kept) {
		if (!st->event_filter || !strcmp(a->name, st->event_filter))
			st->kept = a;
	}
	if (a != st->kept) {
		sf_warn(st->ctx, "perf.event-filtered",
			"kept only events of type '%s' "
			"(--event-filter to choose another)",
			st->kept ? st->kept->name : st->event_filter);
		return 0;
	}
	t = a->sample_type;
#define NEED(n, what)                                                   \
	do {                                                            \
		if (pos + (n) > size)                                   \
			return bad(st, off + pos, "sample record too short " \
				   "for its " what);                     \
	} while (0)
	if (t & S_IDENTIFIER) {
		NEED(8, "identifier");
		pos += 8;
	}
	if (t & S_IP) {
		NEED(8, "ip");
		ip = rd64(b + pos);
		pos += 8;
	}
	if (t & S_TID) {
		NEED(8, "pid/tid");
		pid = (int32_t)rd32(b + pos);
		tid = (int32_t)rd32(b + pos + 4);
		pos += 8;
	}
	if (t & S_TIME) {
		NEED(8, "time");
		time = rd64(b + pos);
		pos += 8;
	}
	pos += (t & S_ADDR) ? 8 : 0;
	pos += (t & S_ID) ? 8 : 0;
	pos += (t & S_STREAM_ID) ? 8 : 0;
	pos += (t & S_CPU) ? 8 : 0;
	period = a->period;
	if (t & S_PERIOD) {
		NEED(8, "period");
		period = rd64(b + pos);
		pos += 8;
	}
	if (t & S_READ) {
		uint64_t rf = a->read_format;
		size_t per = 8 + ((rf & F_ID) ? 8 : 0) + ((rf & F_LOST) ? 8 : 0);
		size_t head = ((rf & F_TOTAL_TIME_ENABLED) ? 8 : 0) +
			      ((rf & F_TOTAL_TIME_RUNNING) ? 8 : 0);
		if (rf & F_GROUP) {
			NEED(8, "read values");
			uint64_t nr = rd64(b + pos);
			if (nr > size)
				return bad(st, off + pos, "sample read group "
					   "count too large");
			pos += 8 + head + nr * per;
		} else {
			pos += head + per;
		}
	}
	uint64_t nr = 0;
	size_t chain = 0;
	if (t & S_CALLCHAIN) {
		NEED(8, "callchain");
		nr = rd64(b + pos);
		pos += 8;
		if (nr > (size - pos) / 8)
			return bad(st, off + pos - 8, "sample callchain longer "
				   "than its record");
		chain = pos;
		pos += nr * 8;
	}
	/* --call-graph dwarf: the user registers and a copy of the user
	 * stack, unwound below (the kernel's chain holds the kernel part) */
	struct pd_ustack us = { NULL, 0, NULL, 0, 0 };
	if (t & S_RAW) {
		NEED(4, "raw data");
		pos += 4 + (size_t)rd32(b + pos);
	}
	/* --call-graph lbr: the call stack the CPU recorded */
	const unsigned char *br = NULL;
	uint64_t bn = 0;
	if (t & S_BRANCH_STACK) {
		NEED(8, "branch stack");
		bn = rd64(b + pos);
		if (bn > size)
			return bad(st, off + pos, "sample branch stack longer "
				   "than its record");
		pos += 8 + ((a->branch_type & BRANCH_HW_INDEX) ? 8 : 0);
		br = b + pos;
		pos += bn * 24;
	}
	if (t & S_REGS_USER) {
		NEED(8, "user registers");
		uint64_t abi = rd64(b + pos);
		pos += 8;
		if (abi) {
			us.nregs = (size_t)__builtin_popcountll(a->regs_user);
			NEED(us.nregs * 8, "user registers");
			us.regs = b + pos;
			us.abi = abi;
			pos += us.nregs * 8;
		}
	}
	if (t & S_STACK_USER) {
		NEED(8, "user stack");
		uint64_t sz = rd64(b + pos);
		pos += 8;
		if (sz) {
			if (sz > size)
				return bad(st, off + pos, "sample user stack "
					   "larger than its record");
			NEED(sz + 8, "user stack");
			us.stack = b + pos;
			us.len = rd64(b + pos + sz);
			if (us.len > sz)
				us.len = sz;
			pos += sz + 8;
		}
	}
	NEED(0, "fields");
#undef NEED
	const unsigned char *cp = (t & S_CALLCHAIN) ? b + chain : NULL;
	if (cp && br && (a->branch_type & BRANCH_CALL_STACK) &&
	    (rc = lbr_chain(st, br, bn, &cp, &nr)))
		return rc;
	if ((rc = sf_pd__attr_type(st, a)))
		return rc;
	struct pd_thread *th;
	if ((rc = sf_pd__thread_of(st, pid, tid, &th)))
		return rc;
	if (!th->have_root) {
		struct sf_sbuf *nb = &st->name_buf;
		nb->len = 0;
		if (!sf_sbuf_adds(nb, th->comm))
			return sf_error_nomem(st->ctx);
		for (size_t i = 0; i < nb->len; i++)
			if (nb->s[i] == ' ')
				nb->s[i] = '_';
		char id[48];
		if (st->o_tid)
			snprintf(id, sizeof(id), "-%lld/%lld",
				 (long long)th->pid, (long long)th->tid);
		else if (st->o_pid)
			snprintf(id, sizeof(id), "-%lld", (long long)th->pid);
		else
			id[0] = 0;
		if (!sf_sbuf_adds(nb, id))
			return sf_error_nomem(st->ctx);
		struct sf_frame fr;
		sf_frame_init(&fr);
		fr.name = nb->s;
		fr.kind = st->k_process;
		if ((rc = sf_profile_frame(st->p, st->ctx, &fr, &th->root)))
			return rc;
		th->have_root = true;
	}
	/* perf unwinds a sample with user registers and a stack copy; its
	 * stack is not cached (the copy would be the key) */
	bool unwind = (t & S_REGS_USER) && (t & S_STACK_USER) && us.regs &&
		      us.len;
	sf_stack_id stack;
	if (unwind) {
		size_t n = 0;
		if ((rc = sf_pd__resolve(st, th, cp, nr, ip,
					 misc & MISC_CPUMODE_MASK, &n)) ||
		    (rc = sf_pd__unwind(st, th, a, &us, &n)) ||
		    (rc = add_root(st, th, &n)) ||
		    (rc = sf_profile_stack(st->p, st->ctx, st->frames, n, true,
					   &stack)))
			return rc;
		return add_sample(st, a, th, stack, period,
				  (t & S_TIME) ? (int64_t)time : 0);
	}
	/* the stack cache's key */
	size_t nk = 5 + ((t & S_CALLCHAIN) ? nr : 2);
	if (!grow((void **)&st->key, &st->cap_key, nk, sizeof(*st->key)))
		return sf_error_nomem(st->ctx);
	uint64_t *key = st->key;
	key[0] = (uint64_t)th->pid;
	key[1] = sf_pd__gen_of(st, th->pid);
	key[2] = sf_pd__gen_of(st, -1);
	key[3] = th->root;
	if (t & S_CALLCHAIN) {
		key[4] = nr;
		memcpy(key + 5, cp, nr * 8);
	} else {
		key[4] = UINT64_MAX;
		key[5] = ip;
		key[6] = misc & MISC_CPUMODE_MASK;
	}
	uint64_t h = sf_hash(key, nk * sizeof(*key));
	if (!sf_perf__acache_find(&st->sc, key, nk * sizeof(*key), h,
				  &stack)) {
		size_t n = 0;
		if ((rc = sf_pd__resolve(st, th, cp, nr, ip,
					 misc & MISC_CPUMODE_MASK, &n)) ||
		    (rc = add_root(st, th, &n)) ||
		    (rc = sf_profile_stack(st->p, st->ctx, st->frames, n, true,
					   &stack)) ||
		    (rc = sf_perf__acache_add(&st->sc, st->ctx, key,
					      nk * sizeof(*key), h, stack,
					      PD_STACK_CACHE_MAX)))
			return rc;
	}
	return add_sample(st, a, th, stack, period,
			  (t & S_TIME) ? (int64_t)time : 0);
}

/* A process that exits needs its unwinding modules no more: a whole
 * system recording of many short processes would keep them all (a
 * sample after all, of a thread left behind, makes them again). */
static int on_exit_rec(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;
	uint32_t k;

	if (size < 24)
		return 0;
	int64_t pid = (int32_t)rd32(b + 8), tid = (int32_t)rd32(b + 16);
	if (pid == tid && m64_find(&st->proc_idx, (uint64_t)pid, &k))
		sf_pd__unwind_free(&st->procs[k]);
	return 0;
}

static int on_record(struct pd_state *st, uint64_t off)
{
	const unsigned char *b = st->d + off;
	uint32_t type = rd32(b);
	uint16_t misc = rd16(b + 4), size = rd16(b + 6);

	switch (type) {
	case R_SAMPLE:
		return on_sample(st, off, size, misc);
	case R_MMAP:
	case R_MMAP2:
		return sf_pd__on_mmap(st, off, size, type, misc);
	case R_COMM:
		return sf_pd__on_comm(st, off, size);
	case R_FORK:
		return sf_pd__on_fork(st, off, size);
	case R_EXIT:
		return on_exit_rec(st, off, size);
	default:
		return 0;
	}
}

/* ----- the pass over the records ----- */

/* Walk the records of [off, end): header records are taken at once, the
 * others are listed (offset, time) for the ordered pass. */
static int scan(struct pd_state *st, uint64_t off, uint64_t end)
{
	int rc;
	uint64_t count = 0;

	while (off < end) {
		if (!(++count & 0xffff) && sf_interrupted(st->ctx))
			return sf_error(st->ctx, SF_EINTR, NULL, 0,
					"interrupted");
		if (end - off < 8)
			return truncated(st, off, "a record header");
		const unsigned char *b = st->d + off;
		uint32_t type = rd32(b);
		uint16_t size = rd16(b + 6);
		if (size < 8)
			return bad(st, off, "record size smaller than its "
				   "header");
		if (size > end - off)
			return truncated(st, off, "a record");
		uint64_t next = off + size;
		if (type == R_HEADER_TRACING_DATA && size >= 12) {
			uint32_t extra = rd32(b + 8);
			next += (extra + 7u) & ~7u;
		} else if (type == R_AUXTRACE && size >= 16) {
			next += rd64(b + 8);
		}
		if (next > end || next < off)
			return truncated(st, off, "a record's data");
		if (type >= 64) {
			if ((rc = sf_pd__header_record(st, off, type, size)))
				return rc;
		} else if (type == R_SAMPLE || type == R_MMAP ||
			   type == R_MMAP2 || type == R_COMM ||
			   type == R_FORK || type == R_EXIT) {
			if (!st->nattrs)
				return bad(st, off, "record before any event "
					   "attribute");
			const struct pd_attr *a = sf_pd__attr_of(st, off, type,
								 size);
			uint64_t time = 0;
			if (a && (a->sample_type & S_TIME)) {
				if (type == R_SAMPLE) {
					uint64_t t = a->sample_type;
					size_t p = 8 +
						   ((t & S_IDENTIFIER) ? 8 : 0) +
						   ((t & S_IP) ? 8 : 0) +
						   ((t & S_TID) ? 8 : 0);
					if (p + 8 <= size)
						time = rd64(b + p);
				} else if (a->sample_id_all) {
					size_t ts = sf_pd__trailer_size(a);
					size_t p = size - ts +
						   ((a->sample_type & S_TID) ?
							    8 : 0);
					if (ts + 8 <= (size_t)size && p + 8 <= size)
						time = rd64(b + p);
				}
			}
			if (!grow((void **)&st->recs, &st->cap_recs,
				  st->nrecs + 1, sizeof(*st->recs)))
				return sf_error_nomem(st->ctx);
			st->recs[st->nrecs++] = (struct pd_rec){ off, time };
		}
		off = next;
	}
	return 0;
}

/* Is record a before b in perf script's order (time, then file order)?
 * A total order: any sort gives the same sequence. */
static inline bool rec_before(const struct pd_rec *a, const struct pd_rec *b)
{
	return a->time != b->time ? a->time < b->time : a->off < b->off;
}

/* Merge the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi). */
static void merge_runs(const struct pd_rec *src, struct pd_rec *dst,
		       size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		dst[k++] = rec_before(&src[j], &src[i]) ? src[j++] : src[i++];
	while (i < mid)
		dst[k++] = src[i++];
	while (j < hi)
		dst[k++] = src[j++];
}

/*
 * Sort the records by time.  perf writes them in rounds, each made of a
 * few runs already in time order (one per CPU buffer): merging the runs
 * as they come takes one pass per halving of their number, where qsort
 * took a pass per halving of the records, through a call per comparison
 * (15% of a frame-pointer conversion's user time, on records that were
 * in order already).  False without memory for the second array.
 */
static bool sort_recs(struct pd_rec *r, size_t n)
{
	size_t i = 1;

	/* a recording of one CPU's records, or of one round, often is */
	while (i < n && !rec_before(&r[i], &r[i - 1]))
		i++;
	if (i >= n)
		return true;
	struct pd_rec *tmp = sf_reallocarray(NULL, n, sizeof(*tmp));
	struct pd_rec *src = r, *dst = tmp;

	if (!tmp)
		return false;
	for (;;) {
		size_t lo = 0, runs = 0;
		while (lo < n) {
			size_t mid = lo + 1, hi;
			while (mid < n && !rec_before(&src[mid], &src[mid - 1]))
				mid++;
			hi = mid < n ? mid + 1 : n;
			while (hi < n && !rec_before(&src[hi], &src[hi - 1]))
				hi++;
			merge_runs(src, dst, lo, mid, hi);
			runs++;
			lo = hi;
		}
		struct pd_rec *t = src;
		src = dst;
		dst = t;
		if (runs <= 1)
			break;
	}
	if (src != r)
		memcpy(r, src, n * sizeof(*r));
	free(tmp);
	return true;
}

static void pd_free(struct pd_state *st)
{
	free(st->attrs);
	free(st->id_attr);
	m64_free(&st->id_idx);
	for (size_t i = 0; i < st->ndsos; i++) {
		free(st->dsos[i].name);
		sf_symtab_free(st->dsos[i].syms);
		sf_pd__dwarf_free(st->dsos[i].dwarf);
	}
	free(st->dsos);
	m64_free(&st->dso_idx);
	for (size_t i = 0; i < st->nprocs; i++) {
		free(st->procs[i].maps);
		sf_pd__unwind_free(&st->procs[i]);
	}
	free(st->procs);
	m64_free(&st->proc_idx);
	sf_pd__unwind_done(st);
	free(st->threads);
	m64_free(&st->thread_idx);
	for (size_t i = 0; i < st->nbids; i++)
		free(st->bids[i].name);
	free(st->bids);
	sf_symtab_free(st->kallsyms);
	free(st->recs);
	free(st->fents);
	free(st->fids);
	sf_idx_free(&st->fidx);
	free(st->frames);
	free(st->w);
	sf_perf__acache_free(&st->sc);
	free(st->key);
	free(st->lbr);
	sf_sbuf_free(&st->name_buf);
	sf_sbuf_free(&st->line_buf);
}

static int pd_read(struct sf_profile *p, struct sf_input *in,
		   struct sf_ctx *ctx)
{
	struct pd_state st;
	char *data = NULL;
	const unsigned char *map = NULL;
	size_t size = 0;
	uint64_t doff = 0, dend = 0;
	int rc;

	memset(&st, 0, sizeof(st));
	st.p = p;
	st.ctx = ctx;
	st.name = sf_input_name(in);
	st.o_pid = sf_ctx_flag(ctx, "pid");
	st.o_tid = sf_ctx_flag(ctx, "tid");
	st.o_kernel = sf_ctx_flag(ctx, "kernel") || sf_ctx_flag(ctx, "all");
	st.o_jit = sf_ctx_flag(ctx, "jit") || sf_ctx_flag(ctx, "all");
	st.event_filter = sf_ctx_opt(ctx, "event-filter");
	const char *slow = getenv("SF_PERFDATA_SLOW");
	st.slow = slow && *slow && strcmp(slow, "0");
	st.k_kernel = sf_profile_str(p, ctx, "kernel");
	st.k_process = sf_profile_str(p, ctx, "process");
	if (!st.k_kernel || !st.k_process)
		return ctx->err.code;
	rc = sf_input_map(in, ctx, ctx->limits.max_decompressed, &map, &size);
	if (rc < 0)
		return rc;
	if (!rc && (rc = sf_input_slurp(in, ctx, ctx->limits.max_decompressed,
					&data, &size)))
		return rc;
	st.d = map ? map : (const unsigned char *)data;
	st.size = size;
	if (size < PIPE_HEADER_SIZE) {
		rc = truncated(&st, 0, "the file header");
		goto out;
	}
	if (!memcmp(st.d, "2ELIFREP", 8)) {
		rc = bad(&st, 0, "perf.data written on a machine of the other "
			 "byte order is not read; run perf script there "
			 "and convert its text");
		goto out;
	}
	if (memcmp(st.d, "PERFILE2", 8)) {
		rc = bad(&st, 0, "not a perf.data version 2 file (magic "
			 "PERFILE2 expected)");
		goto out;
	}
	uint64_t hsize = rd64(st.d + 8);
	if (hsize == PIPE_HEADER_SIZE) {
		st.pipe = true;
		doff = PIPE_HEADER_SIZE;
		dend = size;
	} else if (hsize >= HEADER_SIZE) {
		if ((rc = sf_pd__read_file_header(&st, &doff, &dend)))
			goto out;
	} else {
		rc = bad(&st, 8, "unknown perf.data header size");
		goto out;
	}
	if ((rc = scan(&st, doff, dend)))
		goto out;
	if (!st.nattrs) {
		rc = bad(&st, doff, "perf.data without event attributes");
		goto out;
	}
	bool ordered = true;
	for (size_t i = 0; i < st.nattrs; i++)
		if (!(st.attrs[i].sample_type & S_TIME) ||
		    !st.attrs[i].sample_id_all)
			ordered = false;
	if (ordered && st.nrecs > 1)
		if (!sort_recs(st.recs, st.nrecs)) {
			rc = sf_error_nomem(ctx);
			goto out;
		}
	if (p->d.ntypes + st.nattrs > 256) {
		rc = sf_error(ctx, SF_EINPUT, st.name, 0,
			      "too many sample types to merge");
		goto out;
	}
	st.w = sf_calloc(p->d.ntypes + st.nattrs + 1, sizeof(double));
	if (!st.w) {
		rc = sf_error_nomem(ctx);
		goto out;
	}
	st.default_set = p->d.ntypes > 0;
	for (size_t i = 0; i < st.nrecs; i++) {
		if (!((i + 1) & 0xffff) && sf_interrupted(ctx)) {
			rc = sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
			goto out;
		}
		if ((rc = on_record(&st, st.recs[i].off))) {
			sf_error_place_at(ctx, st.name, st.recs[i].off);
			goto out;
		}
	}
	if (st.event_filter && !st.kept)
		sf_warn(ctx, "perf.event-filtered",
			"no samples of event '%s' (--event-filter)",
			st.event_filter);
	rc = 0;
out:
	pd_free(&st);
	sf_input_unmap(map, size);
	free(data);
	return rc;
}

static int pd_probe(const unsigned char *d, size_t n)
{
	if (n >= 8 && (!memcmp(d, "PERFILE2", 8) || !memcmp(d, "2ELIFREP", 8)))
		return 100;
	return 0;
}

static const char *const pd_ext[] = { ".data", NULL };

static const struct sf_option pd_ropts[] = {
	SF_PERF_COMMON_ROPTS,
	SF_PERF_EVENT_FILTER_ROPT,
	{ NULL, NULL, NULL },
};

const struct sf_format sf_format_perfdata = {
	.name = "perfdata",
	.description = "perf.data as perf record writes it (read directly, "
		       "symbols from the mapped ELF files and kallsyms)",
	.extensions = pd_ext,
	.probe = pd_probe,
	.read = pd_read,
	.read_options = pd_ropts,
};

