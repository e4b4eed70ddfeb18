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
 * Not read: `--call-graph dwarf` samples (user stacks to unwind, and
 * perf script adds inlined frames from DWARF there), LBR call stacks,
 * compressed records (`perf record -z`): refused with a message naming
 * `perf script` as the way round.
 *
 * The input is held whole in memory (sections are found by offset, and
 * the records are sorted by time).  NEEDSWORK: a regular file could be
 * mapped instead of read, which would not lower the peak RSS (mapped
 * pages count too) but would spare the copy.
 */
#include "elfsym.h"
#include "perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----- perf's constants (include/uapi/linux/perf_event.h) ----- */

enum {
	S_IDENTIFIER = 1u << 16, S_IP = 1u << 0, S_TID = 1u << 1,
	S_TIME = 1u << 2, S_ADDR = 1u << 3, S_READ = 1u << 4,
	S_CALLCHAIN = 1u << 5, S_ID = 1u << 6, S_CPU = 1u << 7,
	S_PERIOD = 1u << 8, S_STREAM_ID = 1u << 9, S_RAW = 1u << 10,
	S_BRANCH_STACK = 1u << 11, S_REGS_USER = 1u << 12,
	S_STACK_USER = 1u << 13,
};
enum {
	F_TOTAL_TIME_ENABLED = 1, F_TOTAL_TIME_RUNNING = 2, F_ID = 4,
	F_GROUP = 8, F_LOST = 16,
};
enum {
	R_MMAP = 1, R_LOST = 2, R_COMM = 3, R_EXIT = 4, R_FORK = 7,
	R_SAMPLE = 9, R_MMAP2 = 10,
	R_HEADER_ATTR = 64, R_HEADER_EVENT_TYPE = 65,
	R_HEADER_TRACING_DATA = 66, R_HEADER_BUILD_ID = 67,
	R_FINISHED_ROUND = 68, R_AUXTRACE = 71, R_EVENT_UPDATE = 78,
	R_HEADER_FEATURE = 80, R_COMPRESSED = 81,
};
enum {
	MISC_CPUMODE_MASK = 7, MISC_KERNEL = 1, MISC_USER = 2, MISC_HV = 3,
	MISC_GUEST_KERNEL = 4, MISC_GUEST_USER = 5,
	MISC_MMAP_BUILD_ID = 1 << 14, MISC_BUILD_ID_SIZE = 1 << 15,
};
#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)
#define CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define CONTEXT_GUEST_USER ((uint64_t)-2560)
#define FEAT_BUILD_ID 2
#define FEAT_EVENT_DESC 12
#define BRANCH_CALL_STACK (1u << 11)
#define HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16

/* ----- state ----- */

struct pd_attr {
	uint32_t type;
	uint64_t config, sample_type, read_format, period, branch_type;
	uint64_t regs_user;
	bool sample_id_all, freq;
	char name[128];
	bool have_name;
	uint32_t mtype;          /* the model's sample type */
	bool typed;
	uint64_t off;            /* where the attr was read, for messages */
};

struct pd_dso {
	char *name;              /* as the mmap event names it */
	unsigned char bid[20];
	size_t bid_len;
	struct sf_symtab *syms;
	bool loaded;
};

struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

struct pd_proc {
	int64_t pid;
	struct pd_map *maps;
	size_t n, cap;
	uint64_t gen;            /* bumped by every change of the maps */
};

struct pd_thread {
	int64_t pid, tid;
	char comm[64];
	sf_thread_idx idx;
	bool have_idx;
	sf_frame_id root;
	bool have_root;
};

/* An id -> index map for small integer-ish keys (ids, tids, pids). */
struct pd_map64 {
	struct sf_idx idx;
	uint64_t *keys;
};

struct pd_rec {
	uint64_t off, time;
};

/* A resolved ip -> frame: by the dso (or kernel, or none), the ip (the
 * frame keeps it) and the offset in the dso (which names it). */
struct pd_fent {
	uint64_t dso, ip, off;
	sf_frame_id f;
	bool skip;               /* perl drops this frame line */
};

/*
 * Stack cache: a sample whose call chain, process, maps (by generation)
 * and root frame were seen before has the stack it had then; one hash of
 * the chain instead of a lookup per entry.  Keys are words
 * [pid, its maps' generation, the kernel maps' generation, root frame,
 * count, chain...] kept back to back in `words`, at most
 * PD_STACK_CACHE_MAX bytes (after that, stacks are resolved each time:
 * same result, slower).
 */
#ifndef PD_STACK_CACHE_MAX
#define PD_STACK_CACHE_MAX ((size_t)64 << 20)
#endif
struct pd_scache {
	struct sf_idx idx;
	uint64_t *words;
	size_t nwords, cap_words;
	struct pd_sent {
		size_t off;
		uint32_t len;
		sf_stack_id stack;
	} *ents;
	size_t nents, cap_ents;
};

struct pd_state {
	struct sf_profile *p;
	struct sf_ctx *ctx;
	const char *name;
	const unsigned char *d;
	size_t size;
	bool pipe;
	struct pd_attr *attrs;
	size_t nattrs, cap_attrs;
	uint64_t *ids;           /* ids[i] belongs to attrs[id_attr[i]] */
	uint32_t *id_attr;
	size_t nids, cap_ids;
	struct pd_map64 id_idx;
	struct pd_dso *dsos;
	size_t ndsos, cap_dsos;
	struct pd_map64 dso_idx; /* hash of the name -> dso */
	struct pd_proc *procs;
	size_t nprocs, cap_procs;
	struct pd_map64 proc_idx;
	struct pd_thread *threads;
	size_t nthreads, cap_threads;
	struct pd_map64 thread_idx;
	/* build-ids from the BUILD_ID feature, by file name */
	struct pd_bid {
		char *name;
		unsigned char bid[20];
		size_t len;
	} *bids;
	size_t nbids, cap_bids;
	unsigned char kbid[20];   /* the kernel's, if recorded */
	size_t kbid_len;
	uint64_t ktext;           /* its "_text" (the kernel map's pgoff) */
	struct sf_symtab *kallsyms;
	bool kallsyms_loaded;
	struct pd_rec *recs;
	size_t nrecs, cap_recs;
	struct pd_fent *fents;
	size_t nf, cap_f;
	struct sf_idx fidx;
	sf_frame_id *frames;
	size_t cap_frames;
	struct pd_scache sc;
	uint64_t *key;
	size_t cap_key;
	double *w;
	bool default_set;
	/* options, as the perf script reader's */
	bool o_pid, o_tid, o_kernel, o_jit;
	const char *event_filter;
	const struct pd_attr *kept;   /* the one event whose samples are
				       * kept */
	struct sf_sbuf name_buf, line_buf;
	const char *k_kernel, *k_process;
};

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int bad(struct pd_state *st, uint64_t off, const char *what)
{
	return sf_error_at(st->ctx, SF_EINPUT, st->name, off, "%s", what);
}

static int truncated(struct pd_state *st, uint64_t off, const char *what)
{
	return sf_error_at(st->ctx, SF_EINPUT, st->name, off,
			   "perf.data truncated: %s runs past the end of the "
			   "file (%zu bytes); the recording was cut short",
			   what, st->size);
}

/* ----- small maps ----- */

static bool key_eq(const void *c, uint32_t id, const void *key)
{
	const uint64_t *keys = c;

	return keys[id] == *(const uint64_t *)key;
}

static bool m64_find(const struct pd_map64 *m, uint64_t key, uint32_t *out)
{
	return sf_idx_find(&m->idx, sf_hash_u64(key, 0), key_eq, m->keys,
			   &key, out);
}

/* keys must be sized by the caller to hold index `id`. */
static bool m64_add(struct pd_map64 *m, uint64_t key, uint32_t id,
		    size_t cap)
{
	uint64_t *nk = sf_reallocarray(m->keys, cap, sizeof(*nk));

	if (!nk)
		return false;
	m->keys = nk;
	m->keys[id] = key;
	return sf_idx_insert(&m->idx, sf_hash_u64(key, 0), id);
}

static void m64_free(struct pd_map64 *m)
{
	sf_idx_free(&m->idx);
	free(m->keys);
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	void *n = sf_reallocarray(*arr, nc, elem);
	if (!n)
		return false;
	*arr = n;
	*cap = nc;
	return true;
}

/* ----- attrs and event names ----- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static void default_name(struct pd_attr *a)
{
	if (a->type == 0 && a->config < sizeof(hw_names) / sizeof(*hw_names))
		snprintf(a->name, sizeof(a->name), "%s", hw_names[a->config]);
	else if (a->type == 1 &&
		 a->config < sizeof(sw_names) / sizeof(*sw_names))
		snprintf(a->name, sizeof(a->name), "%s", sw_names[a->config]);
	else
		snprintf(a->name, sizeof(a->name), "event-%u-0x%llx", a->type,
			 (unsigned long long)a->config);
}

/* Read a perf_event_attr of `len` bytes at `off`. */
static int parse_attr(struct pd_state *st, uint64_t off, size_t len,
		      struct pd_attr *a)
{
	const unsigned char *b = st->d + off;

	if (len < 64)
		return bad(st, off, "perf_event_attr shorter than 64 bytes");
	memset(a, 0, sizeof(*a));
	a->off = off;
	a->type = rd32(b);
	a->config = rd64(b + 8);
	a->period = rd64(b + 16);
	a->sample_type = rd64(b + 24);
	a->read_format = rd64(b + 32);
	uint64_t flags = rd64(b + 40);
	a->freq = flags >> 10 & 1;
	a->sample_id_all = flags >> 18 & 1;
	if (len >= 80)
		a->branch_type = rd64(b + 72);
	if (len >= 88)
		a->regs_user = rd64(b + 80);
	default_name(a);
	if (a->sample_type & S_STACK_USER)
		return bad(st, off,
			   "perf.data recorded with --call-graph dwarf: user "
			   "stacks are not unwound here; convert its text "
			   "instead: perf script -i FILE | sfconv --from perf");
	if ((a->sample_type & S_BRANCH_STACK) &&
	    (a->branch_type & BRANCH_CALL_STACK))
		return bad(st, off,
			   "perf.data recorded with --call-graph lbr is not "
			   "read; convert its text instead: "
			   "perf script -i FILE | sfconv --from perf");
	return 0;
}

static int add_id(struct pd_state *st, uint64_t id, uint32_t attr)
{
	uint32_t have;

	if (m64_find(&st->id_idx, id, &have))
		return 0;
	if (!grow((void **)&st->id_attr, &st->cap_ids, st->nids + 1,
		  sizeof(*st->id_attr)) ||
	    !m64_add(&st->id_idx, id, (uint32_t)st->nids, st->cap_ids))
		return sf_error_nomem(st->ctx);
	st->id_attr[st->nids++] = attr;
	return 0;
}

static int new_attr(struct pd_state *st, struct pd_attr **out)
{
	if (!grow((void **)&st->attrs, &st->cap_attrs, st->nattrs + 1,
		  sizeof(*st->attrs)))
		return sf_error_nomem(st->ctx);
	*out = &st->attrs[st->nattrs++];
	return 0;
}

/* Bytes of the sample_id trailer of a non-sample record. */
static size_t trailer_size(const struct pd_attr *a)
{
	uint64_t t = a->sample_type;
	size_t n = 0;

	if (!a->sample_id_all)
		return 0;
	n += (t & S_TID) ? 8 : 0;
	n += (t & S_TIME) ? 8 : 0;
	n += (t & S_ID) ? 8 : 0;
	n += (t & S_STREAM_ID) ? 8 : 0;
	n += (t & S_CPU) ? 8 : 0;
	n += (t & S_IDENTIFIER) ? 8 : 0;
	return n;
}

/* The attr of a record at `off` of `size` bytes (type `type`). */
static const struct pd_attr *attr_of(struct pd_state *st, uint64_t off,
				     uint32_t type, size_t size)
{
	const struct pd_attr *a0 = &st->attrs[0];
	uint64_t id;
	uint32_t k;

	if (st->nattrs == 1)
		return a0;
	if (a0->sample_type & S_IDENTIFIER) {
		if (type == R_SAMPLE) {
			if (size < 16)
				return NULL;
			id = rd64(st->d + off + 8);
		} else {
			if (!a0->sample_id_all || size < 16)
				return a0;
			id = rd64(st->d + off + size - 8);
		}
	} else if (type == R_SAMPLE && (a0->sample_type & S_ID)) {
		uint64_t t = a0->sample_type;
		size_t pos = 8 + ((t & S_IP) ? 8 : 0) + ((t & S_TID) ? 8 : 0) +
			     ((t & S_TIME) ? 8 : 0) + ((t & S_ADDR) ? 8 : 0);
		if (pos + 8 > size)
			return NULL;
		id = rd64(st->d + off + pos);
	} else {
		return a0;
	}
	if (!m64_find(&st->id_idx, id, &k))
		return NULL;
	return &st->attrs[st->id_attr[k]];
}

/* The model's sample type of `a`, made on first use. */
static int attr_type(struct pd_state *st, struct pd_attr *a)
{
	char name[128];
	const char *unit;
	int rc;

	if (a->typed)
		return 0;
	snprintf(name, sizeof(name), "%s", a->name);
	char *colon = strrchr(name, ':');
	if (colon && colon[1] &&
	    strspn(colon + 1, "ukhpPGHISDWe") == strlen(colon + 1))
		*colon = 0;
	if (!(a->sample_type & S_PERIOD) && !a->period) {
		/* perf script prints no period: stackcollapse-perf.pl
		 * counts one per sample */
		snprintf(name, sizeof(name), "samples");
		unit = "count";
	} else if (!strcmp(name, "cpu-clock") || !strcmp(name, "task-clock")) {
		unit = "nanoseconds";
	} else {
		unit = "events";
	}
	if ((rc = sf_profile_sample_type(st->p, st->ctx, name, unit,
					 &a->mtype)))
		return rc;
	a->typed = true;
	if (!st->default_set) {
		st->p->d.meta.default_type = a->mtype;
		st->default_set = true;
		if ((rc = sf_profile_set_prop(st->p, st->ctx, "perf.event",
					      a->name)))
			return rc;
	}
	return 0;
}

/* ----- features ----- */

/* EVENT_DESC: u32 nr, u32 attr_size, then per event the attr, u32 nr_ids,
 * a perf_header_string (u32 len, chars) and the ids. */
static int feat_event_desc(struct pd_state *st, uint64_t off, uint64_t size)
{
	const unsigned char *b = st->d + off;
	uint64_t end = off + size, pos = off + 8;

	if (size < 8)
		return 0;
	uint32_t nr = rd32(b), asz = rd32(b + 4);
	for (uint32_t i = 0; i < nr; i++) {
		if (pos + asz + 8 > end)
			return truncated(st, pos, "an EVENT_DESC entry");
		uint64_t aoff = pos;
		pos += asz;
		uint32_t nids = rd32(st->d + pos);
		uint32_t slen = rd32(st->d + pos + 4);
		pos += 8;
		if (pos + slen + (uint64_t)nids * 8 > end)
			return truncated(st, pos, "an EVENT_DESC entry");
		const char *s = (const char *)st->d + pos;
		size_t sl = strnlen(s, slen);
		pos += slen;
		/* the attr this entry describes: by its first id, else by
		 * its place */
		struct pd_attr *a = NULL;
		uint32_t k;
		if (nids && m64_find(&st->id_idx, rd64(st->d + pos), &k))
			a = &st->attrs[st->id_attr[k]];
		else if (i < st->nattrs && !nids)
			a = &st->attrs[i];
		(void)aoff;
		if (a && sl) {
			snprintf(a->name, sizeof(a->name), "%.*s",
				 (int)(sl < 120 ? sl : 120), s);
			a->have_name = true;
		}
		pos += (uint64_t)nids * 8;
	}
	return 0;
}

static int add_bid(struct pd_state *st, const char *name, size_t nl,
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

/* One build_id record (perf_record_header_build_id) at off. */
static int build_id_rec(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;

	if (size < 8 + 4 + 24)
		return 0;
	uint16_t misc = rd16(b + 4);
	size_t len = 20;
	if (misc & MISC_BUILD_ID_SIZE) {
		len = b[12 + 20];
		if (len > 20)
			len = 20;
	}
	const char *name = (const char *)b + 36;
	size_t nl = strnlen(name, size - 36);
	return add_bid(st, name, nl, b + 12, len);
}

static int feat_build_id(struct pd_state *st, uint64_t off, uint64_t size)
{
	uint64_t pos = off, end = off + size;
	int rc;

	while (pos + 8 <= end) {
		uint16_t sz = rd16(st->d + pos + 6);
		if (sz < 8 || pos + sz > end)
			return bad(st, pos, "malformed BUILD_ID feature record");
		if ((rc = build_id_rec(st, pos, sz)))
			return rc;
		pos += sz;
	}
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

static int proc_of(struct pd_state *st, int64_t pid, struct pd_proc **out)
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

static int thread_of(struct pd_state *st, int64_t pid, int64_t tid,
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
	struct pd_map after = { 0, 0, 0, 0 };
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

static const struct pd_map *map_find(const struct pd_proc *pr, uint64_t ip)
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

/* ----- symbols ----- */

static void hex(char *out, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static const char *buildid_dir(char *buf, size_t size)
{
	const char *e = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");

	if (e && *e)
		return e;
	snprintf(buf, size, "%s/.debug", home ? home : "");
	return buf;
}

static void load_dso(struct pd_dso *d)
{
	char bdir[4096], h[41];
	char c1[4200], c2[4200], c3[4200], c4[4200];
	const char *paths[5];
	size_t n = 0;

	d->loaded = true;
	if (sf_perf__is_perf_map(d->name, strlen(d->name))) {
		d->syms = sf_symtab_perfmap(d->name);
		return;
	}
	/* no build-id recorded (perf lists only files with samples): perf
	 * takes the one of the file on disk */
	if (!d->bid_len && d->name[0] == '/')
		d->bid_len = sf_elf_build_id(d->name, d->bid);
	if (d->bid_len) {
		hex(h, d->bid, d->bid_len);
		buildid_dir(bdir, sizeof(bdir));
		snprintf(c1, sizeof(c1), "%s/.build-id/%.2s/%s/elf", bdir, h,
			 h + 2);
		snprintf(c2, sizeof(c2), "%s/.build-id/%.2s/%s/debug", bdir,
			 h, h + 2);
		snprintf(c3, sizeof(c3), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 h, h + 2);
		snprintf(c4, sizeof(c4), "%s/.build-id/%.2s/%s/vdso", bdir, h,
			 h + 2);
		paths[n++] = c1;
		paths[n++] = c2;
		paths[n++] = c3;
		paths[n++] = c4;
	}
	if (d->name[0] == '/')
		paths[n++] = d->name;
	if (n)
		d->syms = sf_symtab_elf(paths, n, d->bid, d->bid_len);
}

/* Does kallsyms table `t` belong to the recorded kernel?  Its "_text"
 * must be where the recording's kernel map says (perf's ref_reloc_sym
 * check), when the recording says. */
static bool kallsyms_fits(const struct pd_state *st,
			  const struct sf_symtab *t)
{
	return t && (!st->ktext || sf_symtab_kernel_text(t) == st->ktext);
}

/*
 * The kernel's symbols: the copy of kallsyms perf record keeps in
 * ~/.debug/[kernel.kallsyms]/BUILDID/kallsyms (a plain file: reading
 * /proc/kallsyms makes the kernel format 200,000 lines, most of a small
 * conversion's time), else /proc/kallsyms when the running kernel is the
 * recorded one (same build-id); either only where "_text" sits where
 * the recording's kernel map put it (a copy from another boot moved by
 * KASLR does not fit).
 */
static void load_kallsyms(struct pd_state *st)
{
	unsigned char kb[20];
	size_t kl;

	st->kallsyms_loaded = true;
	if (st->kbid_len) {
		char bdir[4096], h[41], path[4200];
		hex(h, st->kbid, st->kbid_len);
		buildid_dir(bdir, sizeof(bdir));
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms",
			 bdir, h);
		st->kallsyms = sf_symtab_kallsyms(path);
		if (kallsyms_fits(st, st->kallsyms))
			return;
		sf_symtab_free(st->kallsyms);
		st->kallsyms = NULL;
	}
	kl = sf_kernel_build_id(kb);
	if (!st->kbid_len || (kl == st->kbid_len &&
			      !memcmp(kb, st->kbid, kl))) {
		st->kallsyms = sf_symtab_kallsyms("/proc/kallsyms");
		if (!kallsyms_fits(st, st->kallsyms)) {
			sf_symtab_free(st->kallsyms);
			st->kallsyms = NULL;
		}
	}
}

static bool fent_eq(const void *c, uint32_t id, const void *key)
{
	const struct pd_fent *a = &((const struct pd_fent *)c)[id];
	const struct pd_fent *b = key;

	return a->dso == b->dso && a->ip == b->ip && a->off == b->off;
}

#define DSO_KERNEL ((uint64_t)-1)
#define DSO_NONE ((uint64_t)-2)

/*
 * The frame that `perf script`'s line for this entry,
 *
 *     ip sym+0xoff (dso)        or        ip [unknown] (dso)
 *
 * makes in stackcollapse-perf.pl.  The line is composed and cut by the
 * perf script reader's own parser (perf.h), so that a dso name with
 * blanks ("/memfd:x (deleted)") splits as perl splits it; then the rules
 * of that reader's frames_of_line for one frame: the offset dropped,
 * "[unknown]" named after the dso, the name tidied, a name that starts
 * with "(" skipped (*skip set).
 */
static int make_frame(struct pd_state *st, uint64_t ip, const char *sym,
		      const char *mod, bool kernel, sf_frame_id *out,
		      bool *skip)
{
	struct sf_sbuf *b = &st->name_buf, *l = &st->line_buf;
	struct stack_line sl;
	char pc[24];
	int pcn = snprintf(pc, sizeof(pc), "%llx", (unsigned long long)ip);
	char *dem = sym ? sf_demangle_perf(sym) : NULL;
	bool ok;

	*skip = false;
	l->len = 0;
	ok = sf_sbuf_add(l, pc, (size_t)pcn) && sf_sbuf_add(l, " ", 1) &&
	     sf_sbuf_adds(l, sym ? (dem ? dem : sym) : "[unknown]") &&
	     (!sym || sf_sbuf_add(l, "+0x0", 4)) &&
	     sf_sbuf_add(l, " (", 2) && sf_sbuf_adds(l, mod) &&
	     sf_sbuf_add(l, ")", 1);
	free(dem);
	if (!ok)
		return sf_error_nomem(st->ctx);
	if (!sf_perf__parse_stack_line(l->s, l->len, &sl)) {
		*skip = true;   /* perl would not see a frame line */
		return 0;
	}
	const char *f = sl.func, *m = sl.mod;
	size_t fl = sl.func_len, ml = sl.mod_len;
	/* strip the last "+0x<hex>" that runs to the end */
	for (size_t i = fl; i >= 3; i--) {
		if (f[i - 3] != '+' || f[i - 2] != '0' || f[i - 1] != 'x')
			continue;
		size_t k = i;
		bool hex = k < fl;
		for (; k < fl; k++)
			if (!(is_digit(f[k]) || (f[k] >= 'a' && f[k] <= 'f')))
				hex = false;
		if (hex)
			fl = i - 3;
		break;
	}
	if (fl && f[0] == '(') {
		*skip = true;
		return 0;
	}
	b->len = 0;
	if (fl == 9 && !memcmp(f, "[unknown]", 9)) {
		const char *base = m;
		size_t bl = ml;
		if (!(ml == 9 && !memcmp(m, "[unknown]", 9))) {
			base = m + ml;
			while (base > m && base[-1] != '/')
				base--;
			bl = (size_t)(m + ml - base);
		} else {
			base = "unknown";
			bl = 7;
		}
		ok = sf_sbuf_add(b, "[", 1) && sf_sbuf_add(b, base, bl) &&
		     sf_sbuf_add(b, "]", 1);
	} else {
		ok = sf_sbuf_add(b, f, fl);
	}
	if (!ok)
		return sf_error_nomem(st->ctx);
	sf_perf__tidy_perl(b, 0);
	if (st->o_kernel && sf_perf__perl_is_kernel(m, ml) &&
	    !sf_sbuf_add(b, "_[k]", 4))
		return sf_error_nomem(st->ctx);
	else if (st->o_jit && sf_perf__is_perf_map(m, ml) &&
		 !mem_has(b->s, b->len, "_[j]") && !sf_sbuf_add(b, "_[j]", 4))
		return sf_error_nomem(st->ctx);
	struct sf_frame fr;
	sf_frame_init(&fr);
	fr.name = b->s ? b->s : "";
	if (strcmp(mod, "[unknown]"))
		fr.module = mod;
	fr.address = ip;
	fr.kind = kernel ? st->k_kernel : NULL;
	return sf_profile_frame(st->p, st->ctx, &fr, out);
}

static int frame_of(struct pd_state *st, const struct pd_thread *t,
		    uint64_t ip, int cpumode, sf_frame_id *out, bool *skip)
{
	const char *sym = NULL, *mod = "[unknown]";
	bool kernel = cpumode == MISC_KERNEL || cpumode == MISC_GUEST_KERNEL;
	const struct pd_map *m = NULL;
	struct pd_fent key = { DSO_KERNEL, ip, 0, 0, false };
	uint32_t id;
	int rc;

	uint32_t k;
	if (kernel) {
		/* in no kernel map: perf prints "[unknown] ([unknown])";
		 * with no kernel map recorded at all, take the kernel's */
		if (m64_find(&st->proc_idx, (uint64_t)-1, &k) &&
		    st->procs[k].n) {
			m = map_find(&st->procs[k], ip);
			key.dso = m ? m->dso : DSO_NONE;
		}
	} else {
		if (t->pid >= 0 &&
		    m64_find(&st->proc_idx, (uint64_t)t->pid, &k))
			m = map_find(&st->procs[k], ip);
		key.dso = m ? m->dso : DSO_NONE;
		key.off = m ? ip - m->start + m->pgoff : 0;
	}
	uint64_t h = sf_hash(&key, 3 * sizeof(uint64_t));
	if (sf_idx_find(&st->fidx, h, fent_eq, st->fents, &key, &id)) {
		*out = st->fents[id].f;
		*skip = st->fents[id].skip;
		return 0;
	}
	if (kernel && key.dso != DSO_NONE) {
		if (!st->kallsyms_loaded)
			load_kallsyms(st);
		sym = sf_symtab_lookup(st->kallsyms, ip);
		mod = m ? st->dsos[m->dso].name : "[kernel.kallsyms]";
	} else if (m) {
		struct pd_dso *d = &st->dsos[m->dso];
		if (!d->loaded)
			load_dso(d);
		sym = sf_symtab_lookup(d->syms, key.off);
		mod = d->name;
	}
	if ((rc = make_frame(st, ip, sym, mod, kernel, &key.f, &key.skip)))
		return rc;
	if (!grow((void **)&st->fents, &st->cap_f, st->nf + 1,
		  sizeof(*st->fents)))
		return sf_error_nomem(st->ctx);
	st->fents[st->nf] = key;
	if (!sf_idx_insert(&st->fidx, h, (uint32_t)st->nf))
		return sf_error_nomem(st->ctx);
	st->nf++;
	*out = key.f;
	*skip = key.skip;
	return 0;
}

/* ----- records ----- */

struct skey {
	const uint64_t *w;
	size_t n;
};

static bool sent_eq(const void *c, uint32_t id, const void *key)
{
	const struct pd_scache *sc = c;
	const struct pd_sent *e = &sc->ents[id];
	const struct skey *k = key;

	return e->len == k->n &&
	       !memcmp(sc->words + e->off, k->w, k->n * sizeof(uint64_t));
}

static int scache_add(struct pd_state *st, const uint64_t *w, size_t n,
		      uint64_t h, sf_stack_id stack)
{
	struct pd_scache *sc = &st->sc;

	if ((sc->nwords + n) * sizeof(uint64_t) > PD_STACK_CACHE_MAX ||
	    n > UINT32_MAX)
		return 0;
	if (!grow((void **)&sc->words, &sc->cap_words, sc->nwords + n,
		  sizeof(*sc->words)) ||
	    !grow((void **)&sc->ents, &sc->cap_ents, sc->nents + 1,
		  sizeof(*sc->ents)))
		return sf_error_nomem(st->ctx);
	memcpy(sc->words + sc->nwords, w, n * sizeof(uint64_t));
	sc->ents[sc->nents] = (struct pd_sent){ sc->nwords, (uint32_t)n,
						stack };
	if (!sf_idx_insert(&sc->idx, h, (uint32_t)sc->nents))
		return sf_error_nomem(st->ctx);
	sc->nwords += n;
	sc->nents++;
	return 0;
}

static uint64_t gen_of(const struct pd_state *st, int64_t pid)
{
	uint32_t k;

	return m64_find(&st->proc_idx, (uint64_t)pid, &k) ?
		       st->procs[k].gen : 0;
}

/* The frames of a sample into st->frames (leaf first): those of the call
 * chain `chain` (nr entries), or of `ip` in `cpumode` when there is none;
 * *n says how many. */
static int resolve(struct pd_state *st, const struct pd_thread *th,
		   const unsigned char *chain, uint64_t nr, uint64_t ip,
		   int cpumode, size_t *n)
{
	int mode = MISC_USER, rc;
	bool skip;

	*n = 0;
	if (!chain) {
		if ((rc = frame_of(st, th, ip, cpumode, &st->frames[0], &skip)))
			return rc;
		*n = !skip;
		return 0;
	}
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t x = rd64(chain + i * 8);
		if (x >= CONTEXT_MAX) {
			if (x == CONTEXT_KERNEL)
				mode = MISC_KERNEL;
			else if (x == CONTEXT_USER)
				mode = MISC_USER;
			else if (x == CONTEXT_HV)
				mode = MISC_HV;
			else if (x == CONTEXT_GUEST_KERNEL)
				mode = MISC_GUEST_KERNEL;
			else if (x == CONTEXT_GUEST_USER)
				mode = MISC_GUEST_USER;
			else {
				/* perf: "invalid callchain context", the
				 * chain is discarded */
				*n = 0;
				return 0;
			}
			continue;
		}
		if ((rc = frame_of(st, th, x, mode, &st->frames[*n], &skip)))
			return rc;
		*n += !skip;
	}
	return 0;
}

static int on_sample(struct pd_state *st, uint64_t off, size_t size,
		     uint16_t misc)
{
	struct pd_attr *a = (struct pd_attr *)attr_of(st, off, R_SAMPLE, size);
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
	NEED(0, "fields");
#undef NEED
	if ((rc = attr_type(st, a)))
		return rc;
	struct pd_thread *th;
	if ((rc = thread_of(st, pid, tid, &th)))
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
	/* the stack cache's key */
	size_t nk = 5 + ((t & S_CALLCHAIN) ? nr : 2);
	if (!grow((void **)&st->key, &st->cap_key, nk, sizeof(*st->key)))
		return sf_error_nomem(st->ctx);
	uint64_t *key = st->key;
	key[0] = (uint64_t)th->pid;
	key[1] = gen_of(st, th->pid);
	key[2] = gen_of(st, -1);
	key[3] = th->root;
	if (t & S_CALLCHAIN) {
		key[4] = nr;
		memcpy(key + 5, b + chain, nr * 8);
	} else {
		key[4] = UINT64_MAX;
		key[5] = ip;
		key[6] = misc & MISC_CPUMODE_MASK;
	}
	uint64_t h = sf_hash(key, nk * sizeof(*key));
	struct skey sk = { key, nk };
	uint32_t hit;
	sf_stack_id stack;
	if (sf_idx_find(&st->sc.idx, h, sent_eq, &st->sc, &sk, &hit)) {
		stack = st->sc.ents[hit].stack;
	} else {
		if (!grow((void **)&st->frames, &st->cap_frames, nr + 2,
			  sizeof(*st->frames)))
			return sf_error_nomem(st->ctx);
		size_t n;
		if ((rc = resolve(st, th, (t & S_CALLCHAIN) ? b + chain : NULL,
				  nr, ip, misc & MISC_CPUMODE_MASK, &n)))
			return rc;
		st->frames[n++] = th->root;
		if ((rc = sf_profile_stack(st->p, st->ctx, st->frames, n, true,
					   &stack)) ||
		    (rc = scache_add(st, key, nk, h, stack)))
			return rc;
	}
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
	return sf_profile_add_sample(st->p, st->ctx, stack, th->idx, 0,
				     (t & S_TIME) ? (int64_t)time : 0, st->w);
}

static int on_mmap(struct pd_state *st, uint64_t off, size_t size,
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
	/* anonymous executable memory: perf names it after the JIT symbol
	 * file /tmp/perf-PID.map and looks addresses up as they are */
	char jit[64];
	if ((fl == 6 && !memcmp(fn, "//anon", 6)) ||
	    (fl >= 9 && !memcmp(fn, "/dev/zero", 9)) ||
	    (fl >= 14 && !memcmp(fn, "/anon_hugepage", 14))) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%lld.map", (long long)pid);
		fn = jit;
		fl = strlen(jit);
		pgoff = start;
	}
	struct pd_proc *pr;
	uint32_t dso = 0;
	if ((rc = proc_of(st, pid, &pr)) ||
	    (rc = dso_of(st, fn, fl, bid, bid_len, &dso)))
		return rc;
	struct pd_map m = { start, start + len, pgoff, dso };
	return map_insert(st, pr, m);
}

static int on_comm(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;
	struct pd_thread *t;
	int rc;

	if (size < 16)
		return bad(st, off, "comm record too short");
	int64_t pid = (int32_t)rd32(b + 8), tid = (int32_t)rd32(b + 12);
	const char *c = (const char *)b + 16;
	if ((rc = thread_of(st, pid, tid, &t)))
		return rc;
	t->pid = pid;
	set_comm(t, c, strnlen(c, size - 16));
	return 0;
}

static int on_fork(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;
	struct pd_thread *t, *parent;
	int rc;

	if (size < 24)
		return bad(st, off, "fork record too short");
	int64_t pid = (int32_t)rd32(b + 8), ppid = (int32_t)rd32(b + 12);
	int64_t tid = (int32_t)rd32(b + 16), ptid = (int32_t)rd32(b + 20);
	if ((rc = thread_of(st, ppid, ptid, &parent)))
		return rc;
	char comm[64];
	memcpy(comm, parent->comm, sizeof(comm));
	if ((rc = thread_of(st, pid, tid, &t)))
		return rc;
	t->pid = pid;
	set_comm(t, comm, strlen(comm));
	if (pid != ppid) {
		/* a new process starts with a copy of its parent's maps */
		struct pd_proc *pp, *np;
		if ((rc = proc_of(st, ppid, &pp)))
			return rc;
		size_t pi = (size_t)(pp - st->procs);
		if ((rc = proc_of(st, pid, &np)))
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
		return on_mmap(st, off, size, type, misc);
	case R_COMM:
		return on_comm(st, off, size);
	case R_FORK:
		return on_fork(st, off, size);
	default:
		return 0;
	}
}

/* ----- the pass over the records ----- */

static int header_record(struct pd_state *st, uint64_t off, uint32_t type,
			 size_t size)
{
	const unsigned char *b = st->d + off;
	int rc;

	switch (type) {
	case R_HEADER_ATTR: {
		if (size < 8 + 8)
			return bad(st, off, "attr record too short");
		uint32_t asz = rd32(b + 8 + 4);
		if (asz < 64 || 8 + (size_t)asz > size)
			return bad(st, off, "attr record with a bad attr size");
		struct pd_attr *a = NULL;
		if ((rc = new_attr(st, &a)) ||
		    (rc = parse_attr(st, off + 8, asz, a)))
			return rc;
		for (size_t p = 8 + asz; p + 8 <= size; p += 8)
			if ((rc = add_id(st, rd64(b + p),
					 (uint32_t)(st->nattrs - 1))))
				return rc;
		return 0;
	}
	case R_HEADER_BUILD_ID:
		return build_id_rec(st, off, size);
	case R_EVENT_UPDATE: {
		/* type 2 (NAME): u64 type, u64 id, char name[] */
		uint32_t k;
		if (size < 24 || rd64(b + 8) != 2 ||
		    !m64_find(&st->id_idx, rd64(b + 16), &k))
			return 0;
		struct pd_attr *a = &st->attrs[st->id_attr[k]];
		const char *n = (const char *)b + 24;
		size_t nl = strnlen(n, size - 24);
		if (nl) {
			snprintf(a->name, sizeof(a->name), "%.*s",
				 (int)(nl < 120 ? nl : 120), n);
			a->have_name = true;
		}
		return 0;
	}
	case R_COMPRESSED:
		return bad(st, off, "perf.data with compressed records "
			   "(perf record -z) is not read; convert its text "
			   "instead: perf script -i FILE | sfconv --from perf");
	default:
		return 0;
	}
}

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
			if ((rc = header_record(st, off, type, size)))
				return rc;
		} else if (type == R_SAMPLE || type == R_MMAP ||
			   type == R_MMAP2 || type == R_COMM ||
			   type == R_FORK) {
			if (!st->nattrs)
				return bad(st, off, "record before any event "
					   "attribute");
			const struct pd_attr *a = attr_of(st, off, type, size);
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
					size_t ts = trailer_size(a);
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

static int cmp_rec(const void *x, const void *y)
{
	const struct pd_rec *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int read_file_header(struct pd_state *st, uint64_t *data_off,
			    uint64_t *data_end)
{
	const unsigned char *d = st->d;
	int rc;

	if (st->size < HEADER_SIZE)
		return truncated(st, 0, "the file header");
	uint64_t attr_size = rd64(d + 16);
	uint64_t aoff = rd64(d + 24), asize = rd64(d + 32);
	uint64_t doff = rd64(d + 40), dsize = rd64(d + 48);
	if (attr_size < 64 + 16 || attr_size > 4096)
		return bad(st, 16, "bad attr entry size in the file header");
	if (aoff > st->size || asize > st->size - aoff)
		return truncated(st, 24, "the attrs section");
	if (doff > st->size || dsize > st->size - doff)
		return truncated(st, 40, "the data section");
	if (!dsize)
		return bad(st, 48, "perf.data with a data size of 0: perf "
			   "record did not finish writing it (was it killed?)");
	for (uint64_t p = aoff; p + attr_size <= aoff + asize;
	     p += attr_size) {
		struct pd_attr *a = NULL;
		uint32_t asz = rd32(d + p + 4);
		if (!asz || asz > attr_size - 16)
			asz = (uint32_t)(attr_size - 16);
		if ((rc = new_attr(st, &a)) ||
		    (rc = parse_attr(st, p, asz, a)))
			return rc;
		uint64_t ioff = rd64(d + p + attr_size - 16);
		uint64_t isize = rd64(d + p + attr_size - 8);
		if (ioff > st->size || isize > st->size - ioff)
			return truncated(st, p + attr_size - 16,
					 "an attr's id list");
		for (uint64_t q = 0; q + 8 <= isize; q += 8)
			if ((rc = add_id(st, rd64(d + ioff + q),
					 (uint32_t)(st->nattrs - 1))))
				return rc;
	}
	if (!st->nattrs)
		return bad(st, 24, "perf.data without event attributes");
	/* the feature sections follow the data */
	uint64_t fpos = doff + dsize;
	for (int bit = 0; bit < 256; bit++) {
		uint64_t word = rd64(d + 72 + (bit / 64) * 8);
		if (!(word >> (bit % 64) & 1))
			continue;
		if (fpos + 16 > st->size)
			return truncated(st, fpos, "the feature table");
		uint64_t foff = rd64(d + fpos), fsize = rd64(d + fpos + 8);
		if (foff > st->size || fsize > st->size - foff)
			return truncated(st, fpos, "a feature section");
		fpos += 16;
		if (bit == FEAT_EVENT_DESC)
			rc = feat_event_desc(st, foff, fsize);
		else if (bit == FEAT_BUILD_ID)
			rc = feat_build_id(st, foff, fsize);
		else
			rc = 0;
		if (rc)
			return rc;
	}
	*data_off = doff;
	*data_end = doff + dsize;
	return 0;
}

static void pd_free(struct pd_state *st)
{
	free(st->attrs);
	free(st->id_attr);
	m64_free(&st->id_idx);
	for (size_t i = 0; i < st->ndsos; i++) {
		free(st->dsos[i].name);
		sf_symtab_free(st->dsos[i].syms);
	}
	free(st->dsos);
	m64_free(&st->dso_idx);
	for (size_t i = 0; i < st->nprocs; i++)
		free(st->procs[i].maps);
	free(st->procs);
	m64_free(&st->proc_idx);
	free(st->threads);
	m64_free(&st->thread_idx);
	for (size_t i = 0; i < st->nbids; i++)
		free(st->bids[i].name);
	free(st->bids);
	sf_symtab_free(st->kallsyms);
	free(st->recs);
	free(st->fents);
	sf_idx_free(&st->fidx);
	free(st->frames);
	free(st->w);
	sf_idx_free(&st->sc.idx);
	free(st->sc.words);
	free(st->sc.ents);
	free(st->key);
	sf_sbuf_free(&st->name_buf);
	sf_sbuf_free(&st->line_buf);
}

static int pd_read(struct sf_profile *p, struct sf_input *in,
		   struct sf_ctx *ctx)
{
	struct pd_state st;
	char *data = NULL;
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
	st.k_kernel = sf_profile_str(p, ctx, "kernel");
	st.k_process = sf_profile_str(p, ctx, "process");
	if (!st.k_kernel || !st.k_process)
		return ctx->err.code;
	if ((rc = sf_input_slurp(in, ctx, ctx->limits.max_decompressed,
				 &data, &size)))
		return rc;
	st.d = (const unsigned char *)data;
	st.size = size;
	if (size < PIPE_HEADER_SIZE) {
		rc = truncated(&st, 0, "the file header");
		goto out;
	}
	if (!memcmp(data, "2ELIFREP", 8)) {
		rc = bad(&st, 0, "perf.data written on a machine of the other "
			 "byte order is not read; run perf script there "
			 "and convert its text");
		goto out;
	}
	if (memcmp(data, "PERFILE2", 8)) {
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
		if ((rc = read_file_header(&st, &doff, &dend)))
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
		qsort(st.recs, st.nrecs, sizeof(*st.recs), cmp_rec);
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
	{ "pid", NULL, "perf: root frame COMM-PID (stackcollapse-perf.pl "
	  "--pid)" },
	{ "tid", NULL, "perf: root frame COMM-PID/TID (--tid)" },
	{ "kernel", NULL, "perf: append _[k] to kernel frames (--kernel)" },
	{ "jit", NULL, "perf: append _[j] to JIT frames (--jit)" },
	{ "all", NULL, "perf: --kernel and --jit (--all)" },
	{ "event-filter", "EVENT", "perf: keep only events of type EVENT "
	  "(default: the first event type seen)" },
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
