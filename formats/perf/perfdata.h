/*
 * perfdata.h - internal to the perf.data reader, which is made of six
 * files, each calling only those below it:
 *
 *     fmt_perfdata.c      the format entry, the pass over the records
 *                         in time order, the samples
 *     perfdata_header.c   the file header, the event attributes, the
 *                         features and the pipe-mode header records
 *     perfdata_unwind.c   the user stacks of --call-graph dwarf samples,
 *                         unwound with libdwfl
 *     perfdata_syms.c     a call chain's entries -> named frames: ELF
 *                         symbols, kallsyms, the JIT's perf-PID.map
 *     perfdata_inline.c   the inlined functions at an address (DWARF)
 *     perfdata_maps.c     processes, threads, their maps and dsos (the
 *                         MMAP, COMM and FORK records), build-ids
 *
 * and of the small helpers below (maps of ids, growing arrays, errors).
 *
 * fmt_perfdata.c says what the reader does and what it does not read.
 */
#ifndef SF_PERFDATA_H
#define SF_PERFDATA_H

#include "elfsym.h"
#include "perf.h"

#include <stdlib.h>

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
	MISC_MMAP_DATA = 1 << 13, MISC_MMAP_BUILD_ID = 1 << 14,
	MISC_BUILD_ID_SIZE = 1 << 15,
};
/* an MMAP2 record's flags: Linux's MAP_HUGETLB, whatever the host */
#define MAP_HUGETLB_FLAG 0x40000u
#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)
#define CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define CONTEXT_GUEST_USER ((uint64_t)-2560)
/* perf script's --max-stack (PERF_MAX_STACK_DEPTH): where it looks for
 * the user part of an LBR sample's chain */
#define MAX_STACK 127
#define FEAT_BUILD_ID 2
#define FEAT_EVENT_DESC 12
#define BRANCH_CALL_STACK (1u << 11)
#define BRANCH_HW_INDEX (1u << 17)
#define HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16

/* The cpumode a call chain's context marker switches to (entries at
 * CONTEXT_MAX and above are markers), or -1 for one perf does not know:
 * it then drops the chain ("invalid callchain context").  perf script
 * knows three (add_callchain_ip in util/machine.c): a guest's markers,
 * CONTEXT_GUEST_KERNEL and CONTEXT_GUEST_USER, drop the chain too. */
static inline int context_mode(uint64_t x)
{
	switch (x) {
	case CONTEXT_KERNEL:
		return MISC_KERNEL;
	case CONTEXT_USER:
		return MISC_USER;
	case CONTEXT_HV:
		return MISC_HV;
	default:
		return -1;
	}
}

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
	bool not_elf;            /* no ELF file to unwind with */
	struct pd_dwarf *dwarf;  /* for inlines (perfdata_inline.c) */
	bool dwarf_tried;
};

struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	uint32_t prot;           /* PROT_WRITE 2, PROT_EXEC 4, as mapped */
};

struct pd_proc {
	int64_t pid;
	struct pd_map *maps;
	size_t n, cap;
	uint64_t gen;            /* bumped by every change of the maps */
	/* --call-graph dwarf (perfdata_unwind.c): the modules of the
	 * maps as of generation dwfl_gen (their files and places: key) */
	struct Dwfl *dwfl;
	uint64_t dwfl_gen, dwfl_key;
	bool attached;
	int machine;
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

/* A resolved ip -> frames: by the dso (or kernel, or none), the ip (the
 * frames keep it), the offset in the dso (which names them) and whether
 * the entry was unwound here (only those get their inlined functions);
 * its frames are fids[first..first+n), leaf first: several with inlined
 * functions, none for a line perl drops. */
struct pd_fent {
	uint64_t dso, ip, off, unwound;
	uint32_t first, n;
};

/* A --call-graph dwarf sample's user registers and stack copy. */
struct pd_ustack {
	const unsigned char *regs;   /* nregs values, NULL without */
	size_t nregs;
	const unsigned char *stack;  /* len bytes from the sampled sp */
	uint64_t len, abi;
};

/*
 * The stack cache (st->sc, perf.h): a sample whose call chain, process,
 * maps (by generation) and root frame were seen before has the stack it
 * had then; one hash of the chain instead of a lookup per entry.  Keys
 * are words [pid, its maps' generation, the kernel maps' generation, root
 * frame, count, chain...], at most PD_STACK_CACHE_MAX bytes of them
 * (after that, stacks are resolved each time: same result, slower).
 */
#ifndef PD_STACK_CACHE_MAX
#define PD_STACK_CACHE_MAX ((size_t)64 << 20)
#endif

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
	sf_frame_id *fids;       /* the fents' frames */
	size_t nfids, cap_fids;
	struct unw *unw;         /* the sample being unwound */
	/* debug files whose sections are compressed, each inflated once
	 * into a memory file for every process's libdwfl (fd -1: used as
	 * it is) */
	struct pd_dbg {
		char *key, *path;
		int fd;
	} *dbgs;
	size_t ndbgs, cap_dbgs;
	bool slow;               /* SF_PERFDATA_SLOW: none of that */
	/* the vdso perf unwinds with: its own, copied into a memory file
	 * (vdso_tried: made or failed; vdso_fd -1 where it failed) */
	bool vdso_tried;
	int vdso_fd;
	/* does the CFI cover a pc, per (modules key, pc): most return
	 * addresses recur; NULL until the first lookup */
	struct pd_cfi_memo {
		uint64_t key, pc;
		bool covers;
	} *cfi_memo;
	sf_frame_id *frames;
	size_t cap_frames;
	struct sf_perf_acache sc;
	uint64_t *key;
	size_t cap_key;
	uint64_t *lbr;           /* an LBR sample's chain, as perf makes it */
	size_t cap_lbr;
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

static inline uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* An SF_EINPUT error at byte `off`: `what` as it is, or as what runs
 * past the end of the file. */
static inline int bad(struct pd_state *st, uint64_t off, const char *what)
{
	return sf_error_at(st->ctx, SF_EINPUT, st->name, off, "%s", what);
}

static inline int truncated(struct pd_state *st, uint64_t off,
			    const char *what)
{
	return sf_error_at(st->ctx, SF_EINPUT, st->name, off,
			   "perf.data truncated: %s runs past the end of the "
			   "file (%zu bytes); the recording was cut short",
			   what, st->size);
}

/* ----- small maps ----- */

static inline bool key_eq(const void *c, uint32_t id, const void *key)
{
	const uint64_t *keys = c;

	return keys[id] == *(const uint64_t *)key;
}

static inline bool m64_find(const struct pd_map64 *m, uint64_t key,
			    uint32_t *out)
{
	return sf_idx_find(&m->idx, sf_hash_u64(key, 0), key_eq, m->keys,
			   &key, out);
}

/* keys must be sized by the caller to hold index `id`. */
static inline bool m64_add(struct pd_map64 *m, uint64_t key, uint32_t id,
			   size_t cap)
{
	uint64_t *nk = sf_reallocarray(m->keys, cap, sizeof(*nk));

	if (!nk)
		return false;
	m->keys = nk;
	m->keys[id] = key;
	return sf_idx_insert(&m->idx, sf_hash_u64(key, 0), id);
}

static inline void m64_free(struct pd_map64 *m)
{
	sf_idx_free(&m->idx);
	free(m->keys);
}

/* Room for `need` elements of `elem` bytes in *arr (capacity *cap). */
static inline bool grow(void **arr, size_t *cap, size_t need, size_t elem)
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

/* ----- perfdata_maps.c ----- */

/* A build-id recorded for the file `name`. */
int sf_pd__add_bid(struct pd_state *st, const char *name, size_t nl,
		   const unsigned char *bid, size_t len);

/* The process or thread of that id, made on first use. */
int sf_pd__proc_of(struct pd_state *st, int64_t pid, struct pd_proc **out);
int sf_pd__thread_of(struct pd_state *st, int64_t pid, int64_t tid,
		     struct pd_thread **out);

/* The map of `pr` holding `ip`, or NULL. */
const struct pd_map *sf_pd__map_find(const struct pd_proc *pr, uint64_t ip);

/* The generation of the maps of `pid` (0 if it has none). */
uint64_t sf_pd__gen_of(const struct pd_state *st, int64_t pid);

/* The side-band records that change what a sample resolves against. */
int sf_pd__on_mmap(struct pd_state *st, uint64_t off, size_t size,
		   uint32_t type, uint16_t misc);
int sf_pd__on_comm(struct pd_state *st, uint64_t off, size_t size);
int sf_pd__on_fork(struct pd_state *st, uint64_t off, size_t size);

/* ----- perfdata_inline.c ----- */

struct pd_dwarf;

/* The functions addr2line -i -f names for the file offset `off` of `d`
 * (its symbols loaded), innermost first, at most `max` into names; *n 0
 * when perf would ask nothing or hear nothing. */
int sf_pd__inlines(struct pd_dso *d, uint64_t off, const char **names,
		   size_t max, size_t *n);
void sf_pd__dwarf_free(struct pd_dwarf *w);

/* ----- perfdata_syms.c ----- */

/* The frames of a sample into st->frames (leaf first), from *n on: those
 * of the call chain `chain` (nr entries), or of `ip` in `cpumode` when
 * there is none; *n says how many there are then. */
int sf_pd__resolve(struct pd_state *st, const struct pd_thread *th,
		   const unsigned char *chain, uint64_t nr, uint64_t ip,
		   int cpumode, size_t *n);

/* The same for `count` user addresses (an unwound stack). */
int sf_pd__resolve_user(struct pd_state *st, const struct pd_thread *th,
			const uint64_t *ips, size_t count, size_t *n);

/* A file of perf's build-id cache (~/.debug, or $PERF_BUILDID_DIR):
 * .build-id/XX/REST/`what` into out. */
void sf_pd__cache_path(const unsigned char *bid, size_t len,
		       const char *what, char *out, size_t size);

/* ----- perfdata_unwind.c ----- */

/* Unwind a --call-graph dwarf sample's user stack and append its frames
 * to st->frames from *n on. */
int sf_pd__unwind(struct pd_state *st, const struct pd_thread *th,
		  const struct pd_attr *a, const struct pd_ustack *us,
		  size_t *n);
void sf_pd__unwind_free(struct pd_proc *pr);
/* The inflated debug files. */
void sf_pd__unwind_done(struct pd_state *st);

/* ----- perfdata_header.c ----- */

/* The file header of a perf.data file (not pipe mode): its attrs and
 * features; where the data section is. */
int sf_pd__read_file_header(struct pd_state *st, uint64_t *data_off,
			    uint64_t *data_end);

/* A pipe-mode header record (type 64 and up) at `off`. */
int sf_pd__header_record(struct pd_state *st, uint64_t off, uint32_t type,
			 size_t size);

/* The attr of a record at `off` of `size` bytes (type `type`), or NULL. */
const struct pd_attr *sf_pd__attr_of(struct pd_state *st, uint64_t off,
				     uint32_t type, size_t size);

/* Bytes of the sample_id trailer of a non-sample record. */
size_t sf_pd__trailer_size(const struct pd_attr *a);

/* The model's sample type of `a`, made on first use. */
int sf_pd__attr_type(struct pd_state *st, struct pd_attr *a);

#endif
