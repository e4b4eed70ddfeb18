/*
 * perfdata_maps.c - what the perf.data reader knows of processes and
 * threads (their comm and maps, from the MMAP, MMAP2, COMM and FORK
 * records), the dsos the maps name with their build-ids, and the small
 * helpers below everything else (perfdata.h).
 */
#include "perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sf_pd__add_bid(struct pd_state *st, const char *name, size_t nl,
		   const unsigned char *bid, size_t len)
{
	if (nl == 17 && !memcmp(name, "[kernel.kallsyms]", 17)) {
		memcpy(st->kbid, bid, len);
		st->kbid_len = len;
	}
	if (!grow((void **)&st->bids, &st->cap_bids, st->nbids + 1,
		  sizeof(*st->bids)))
		return sf_error_nomem(st->ctx);
	struct pd_bid *b = &st->bids[st->nbids];
	b->name = strndup(name, nl);
	if (!b->name)
		return sf_error_nomem(st->ctx);
	memcpy(b->bid, bid, len);
	b->len = len;
	st->nbids++;
	return 0;
}

static const unsigned char *bid_of(struct pd_state *st, const char *name,
				   size_t *len)
{
	for (size_t i = 0; i < st->nbids; i++)
		if (!strcmp(st->bids[i].name, name)) {
			*len = st->bids[i].len;
			return st->bids[i].bid;
		}
	*len = 0;
	return NULL;
}

/* ----- threads, processes, maps ----- */

int sf_pd__proc_of(struct pd_state *st, int64_t pid, struct pd_proc **out)
{
	uint32_t k;

	if (m64_find(&st->proc_idx, (uint64_t)pid, &k)) {
		*out = &st->procs[k];
		return 0;
	}
	if (!grow((void **)&st->procs, &st->cap_procs, st->nprocs + 1,
		  sizeof(*st->procs)) ||
	    !m64_add(&st->proc_idx, (uint64_t)pid, (uint32_t)st->nprocs,
		     st->cap_procs))
		return sf_error_nomem(st->ctx);
	*out = &st->procs[st->nprocs++];
	memset(*out, 0, sizeof(**out));
	(*out)->pid = pid;
	return 0;
}

int sf_pd__thread_of(struct pd_state *st, int64_t pid, int64_t tid,
		     struct pd_thread **out)
{
	uint32_t k;

	if (m64_find(&st->thread_idx, (uint64_t)tid, &k)) {
		*out = &st->threads[k];
		if ((*out)->pid < 0 && pid >= 0)
			(*out)->pid = pid;
		return 0;
	}
	if (!grow((void **)&st->threads, &st->cap_threads, st->nthreads + 1,
		  sizeof(*st->threads)) ||
	    !m64_add(&st->thread_idx, (uint64_t)tid, (uint32_t)st->nthreads,
		     st->cap_threads))
		return sf_error_nomem(st->ctx);
	struct pd_thread *t = &st->threads[st->nthreads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	/* perf's names for a thread it has no comm for */
	if (tid == 0)
		snprintf(t->comm, sizeof(t->comm), "swapper");
	else
		snprintf(t->comm, sizeof(t->comm), ":%lld", (long long)tid);
	*out = t;
	return 0;
}

static void set_comm(struct pd_thread *t, const char *c, size_t n)
{
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	if (strlen(t->comm) == n && !memcmp(t->comm, c, n))
		return;
	memcpy(t->comm, c, n);
	t->comm[n] = 0;
	t->have_idx = false;
	t->have_root = false;
}

static int dso_of(struct pd_state *st, const char *name, size_t nl,
		  const unsigned char *bid, size_t bid_len, uint32_t *out)
{
	uint64_t h = sf_hash(name, nl);
	uint32_t k;

	/* the index is by the name's hash; names that collide are found
	 * by the scan below */
	if (m64_find(&st->dso_idx, h, &k) &&
	    strlen(st->dsos[k].name) == nl &&
	    !memcmp(st->dsos[k].name, name, nl)) {
		*out = k;
		return 0;
	}
	for (k = 0; k < st->ndsos; k++)
		if (strlen(st->dsos[k].name) == nl &&
		    !memcmp(st->dsos[k].name, name, nl)) {
			*out = k;
			return 0;
		}
	if (!grow((void **)&st->dsos, &st->cap_dsos, st->ndsos + 1,
		  sizeof(*st->dsos)) ||
	    !m64_add(&st->dso_idx, h, (uint32_t)st->ndsos, st->cap_dsos))
		return sf_error_nomem(st->ctx);
	struct pd_dso *d = &st->dsos[st->ndsos];
	memset(d, 0, sizeof(*d));
	d->name = strndup(name, nl);
	if (!d->name)
		return sf_error_nomem(st->ctx);
	if (!bid_len)
		bid = bid_of(st, d->name, &bid_len);
	if (bid_len) {
		memcpy(d->bid, bid, bid_len);
		d->bid_len = bid_len;
	}
	*out = (uint32_t)st->ndsos++;
	return 0;
}

/* Insert a map, cutting the parts of older maps it covers (perf's
 * maps__fixup_overlap_and_insert). */
static int map_insert(struct pd_state *st, struct pd_proc *pr,
		      struct pd_map m)
{
	size_t w = 0, n = pr->n;

	if (m.end <= m.start)
		return 0;
	/* at most one more piece than before, plus the new map */
	if (!grow((void **)&pr->maps, &pr->cap, n + 2, sizeof(*pr->maps)))
		return sf_error_nomem(st->ctx);
	struct pd_map after = { 0, 0, 0, 0, 0 };
	bool have_after = false;
	for (size_t i = 0; i < n; i++) {
		struct pd_map o = pr->maps[i];
		if (o.end <= m.start || o.start >= m.end) {
			pr->maps[w++] = o;
			continue;
		}
		if (o.end > m.end) {
			after = o;
			after.pgoff += m.end - o.start;
			after.start = m.end;
			have_after = true;
		}
		if (o.start < m.start) {
			o.end = m.start;
			pr->maps[w++] = o;
		}
	}
	if (have_after)
		pr->maps[w++] = after;
	/* keep sorted by start */
	size_t i = w;
	while (i && pr->maps[i - 1].start > m.start) {
		pr->maps[i] = pr->maps[i - 1];
		i--;
	}
	pr->maps[i] = m;
	w++;
	if (have_after) {
		/* `after` was appended unsorted: bubble it into place */
		for (size_t j = 1; j < w; j++)
			for (size_t k2 = j; k2 && pr->maps[k2 - 1].start >
						  pr->maps[k2].start; k2--) {
				struct pd_map t = pr->maps[k2];
				pr->maps[k2] = pr->maps[k2 - 1];
				pr->maps[k2 - 1] = t;
			}
	}
	pr->n = w;
	pr->gen++;
	return 0;
}

const struct pd_map *sf_pd__map_find(const struct pd_proc *pr, uint64_t ip)
{
	size_t lo = 0, hi = pr->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pr->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip >= pr->maps[lo - 1].end)
		return NULL;
	return &pr->maps[lo - 1];
}

uint64_t sf_pd__gen_of(const struct pd_state *st, int64_t pid)
{
	uint32_t k;

	return m64_find(&st->proc_idx, (uint64_t)pid, &k) ?
		       st->procs[k].gen : 0;
}

int sf_pd__on_mmap(struct pd_state *st, uint64_t off, size_t size,
		   uint32_t type, uint16_t misc)
{
	const unsigned char *b = st->d + off;
	size_t fixed = type == R_MMAP ? 8 + 8 + 24 : 8 + 8 + 24 + 24 + 8;
	int rc;

	if (size < fixed)
		return bad(st, off, "mmap record too short");
	int64_t pid = (int32_t)rd32(b + 8);
	uint64_t start = rd64(b + 16), len = rd64(b + 24), pgoff = rd64(b + 32);
	const unsigned char *bid = NULL;
	size_t bid_len = 0;
	if (type == R_MMAP2 && (misc & MISC_MMAP_BUILD_ID)) {
		bid_len = b[40] > 20 ? 20 : b[40];
		bid = b + 44;
	}
	const char *fn = (const char *)b + fixed;
	size_t fl = strnlen(fn, size - fixed);
	char kname[256];
	if (pid == -1) {
		/* the kernel ("[kernel.kallsyms]_text") and its modules
		 * ("/lib/modules/.../nf_tables.ko"): their symbols come
		 * from kallsyms, perf names them "[kernel.kallsyms]" and
		 * "[nf_tables]" */
		if (fl >= 17 && !memcmp(fn, "[kernel.kallsyms]", 17)) {
			if (fl == 22 && !memcmp(fn + 17, "_text", 5))
				st->ktext = pgoff;
			fl = 17;
		} else {
			const char *base = fn + fl;
			while (base > fn && base[-1] != '/')
				base--;
			size_t bl = (size_t)(fn + fl - base);
			const char *dot = memchr(base, '.', bl);
			if (dot)
				bl = (size_t)(dot - base);
			snprintf(kname, sizeof(kname), "[%.*s]",
				 (int)(bl < 200 ? bl : 200), base);
			fn = kname;
			fl = strlen(kname);
		}
	}
	/* MMAP2 says the protection; an MMAP is of code unless flagged as
	 * data */
	uint32_t prot = type == R_MMAP2 ? rd32(b + 64) :
			(misc & MISC_MMAP_DATA) ? 1 : 5;
	/* memory of no file (perf's map__new): addresses are looked up as
	 * they are; where it is executable (a JIT's code) perf names it
	 * after the JIT's symbol file /tmp/perf-PID.map, elsewhere (a
	 * pointer into the heap a stack holds) it keeps the name the
	 * record gives ("//anon", "[heap]") */
	char jit[64];
	bool anon = (fl == 6 && !memcmp(fn, "//anon", 6)) ||
		    (fl >= 9 && !memcmp(fn, "/dev/zero", 9)) ||
		    (fl >= 14 && !memcmp(fn, "/anon_hugepage", 14)) ||
		    (type == R_MMAP2 && (rd32(b + 68) & MAP_HUGETLB_FLAG));
	bool no_dso = (fl >= 6 && !memcmp(fn, "[stack", 6)) ||
		      (fl >= 5 && !memcmp(fn, "/SYSV", 5)) ||
		      (fl == 6 && !memcmp(fn, "[heap]", 6));
	if (anon || no_dso) {
		pgoff = start;
		if (prot & 4) {
			snprintf(jit, sizeof(jit), "/tmp/perf-%lld.map",
				 (long long)pid);
			fn = jit;
			fl = strlen(jit);
		}
	}
	struct pd_proc *pr;
	uint32_t dso = 0;
	if ((rc = sf_pd__proc_of(st, pid, &pr)) ||
	    (rc = dso_of(st, fn, fl, bid, bid_len, &dso)))
		return rc;
	struct pd_map m = { start, start + len, pgoff, dso, prot };
	return map_insert(st, pr, m);
}

int sf_pd__on_comm(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;
	struct pd_thread *t;
	int rc;

	if (size < 16)
		return bad(st, off, "comm record too short");
	int64_t pid = (int32_t)rd32(b + 8), tid = (int32_t)rd32(b + 12);
	const char *c = (const char *)b + 16;
	if ((rc = sf_pd__thread_of(st, pid, tid, &t)))
		return rc;
	t->pid = pid;
	set_comm(t, c, strnlen(c, size - 16));
	return 0;
}

int sf_pd__on_fork(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;
	struct pd_thread *t, *parent;
	int rc;

	if (size < 24)
		return bad(st, off, "fork record too short");
	int64_t pid = (int32_t)rd32(b + 8), ppid = (int32_t)rd32(b + 12);
	int64_t tid = (int32_t)rd32(b + 16), ptid = (int32_t)rd32(b + 20);
	if ((rc = sf_pd__thread_of(st, ppid, ptid, &parent)))
		return rc;
	char comm[64];
	memcpy(comm, parent->comm, sizeof(comm));
	if ((rc = sf_pd__thread_of(st, pid, tid, &t)))
		return rc;
	t->pid = pid;
	set_comm(t, comm, strlen(comm));
	if (pid != ppid) {
		/* a new process starts with a copy of its parent's maps */
		struct pd_proc *pp, *np;
		if ((rc = sf_pd__proc_of(st, ppid, &pp)))
			return rc;
		size_t pi = (size_t)(pp - st->procs);
		if ((rc = sf_pd__proc_of(st, pid, &np)))
			return rc;
		pp = &st->procs[pi];
		if (!grow((void **)&np->maps, &np->cap, pp->n,
			  sizeof(*np->maps)))
			return sf_error_nomem(st->ctx);
		if (pp->n)
			memcpy(np->maps, pp->maps, pp->n * sizeof(*np->maps));
		np->n = pp->n;
		np->gen++;
	}
	return 0;
}

