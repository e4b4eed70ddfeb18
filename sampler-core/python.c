/*
 * python.c - CPython frames merged into native stacks (a capture source,
 * docs/capture-sources.md).
 *
 * The runtime is found by its exported symbols: `_PyRuntime` (the root of
 * every interpreter and thread state) and `Py_Version` (3.11 and later),
 * in the main executable or a mapped libpython.  The layout comes from
 * the `_Py_DebugOffsets` that starts `_PyRuntime` from 3.13 on, and from a
 * built-in table for 3.11 and 3.12 (checked against the DWARF of pyenv
 * debug builds).  Before any frame is believed, the layout must pass a
 * self-check: a thread state's `interp` points back at its interpreter.
 *
 * A thread is read while it is stopped (sfc__grab), or inside the
 * schedstat proof of a read without a stop: its thread state is the one
 * whose native_thread_id is the thread's id; its frames are read from the
 * current frame back.  The thread is stopped meanwhile, so the reads are
 * few: for a thread read before, its thread state, the current frame
 * through the cframe seen last time and the block of frames read last
 * time come in one process_vm_readv (each used only if what it hangs
 * from is unchanged), and the code objects of all its frames in a
 * second.  Each _PyEval_EvalFrameDefault call ran one group
 * of frames: on 3.11 up to the frame marked is_entry, on 3.12 and later
 * up to the shim frame the C stack owns (owner FRAME_OWNED_BY_CSTACK).
 * At emit, the k-th _PyEval_EvalFrameDefault from the leaf is replaced by
 * the k-th group, named "qualname (file:line)".
 */
#include "capture_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PY_MAX_FRAMES 256
#define PY_SEP UINT32_MAX       /* ends a group in a record */
#define PY_CSTACK 3             /* FRAME_OWNED_BY_CSTACK */
enum { PY_FRAME, PY_ENTRY, PY_SHIM };   /* a frame, one ending its eval
					 * call (3.11 is_entry), a shim
					 * (3.12+) */

struct py_layout {
	uint64_t rt_interp_head;
	uint64_t is_threads_head;
	uint64_t ts_next, ts_interp, ts_native_id;
	uint64_t ts_cframe;     /* 3.11/3.12: tstate->cframe ... */
	uint64_t cf_current;    /* ... ->current_frame; 3.13: cframe is
				 * UINT64_MAX and ts_current is used */
	uint64_t ts_current;
	uint64_t fr_code, fr_previous, fr_instr, fr_owner, fr_is_entry;
	uint64_t co_filename, co_qualname, co_firstlineno, co_linetable;
	uint64_t co_code;       /* co_code_adaptive */
	uint64_t str_state, str_ascii_size;
	uint64_t bytes_size, bytes_data;
	uint64_t co_lo, co_hi;  /* the bytes of a code object read per
				 * frame: its four fields above (py_find) */
};

/* The most bytes of a code object read per frame */
#define PY_CO_SPAN 128
/* The bytes of a thread's frames read at once: up to half below the
 * current frame (its callers), the rest above it (deeper calls, the
 * next time the thread is read) */
#define PY_BLOCK 4096

/* an interned string ("qualname (file:line)") */
struct py_str {
	char *s;
};

/* a code object seen: its names and line table, by address, and the
 * names of the last few instructions sampled in it (a hot loop comes
 * back to the same few) */
#define PY_CODE_LAST 4
struct py_code {
	uint64_t addr, qualname, filename, linetable;
	int firstline;
	char *name, *file;
	unsigned char *lt;
	size_t ltlen;
	uint64_t last_instr[PY_CODE_LAST];
	uint32_t last_sid[PY_CODE_LAST];
	unsigned nlast;
};

struct sfc_py {
	bool tried, ok;
	uint32_t map_seq;       /* of the last search for the runtime */
	int minor;
	uint64_t runtime;
	struct py_layout L;
	const char *warn;       /* for py_report */
	char warnbuf[200];
	/* strings and records */
	struct py_str *strs;
	size_t nstrs, capstrs;
	struct sf_idx str_idx;
	uint32_t **recs;        /* recs[i][0] = length; recs[0] unused */
	size_t nrecs, caprecs;
	struct sf_idx rec_idx;
	struct py_code *codes;  /* direct-mapped cache */
	size_t ncodes;
	uint64_t samples;       /* samples with Python frames */
	struct {                /* thread state by tid, direct-mapped */
		pid_t tid;
		uint64_t ts;
		uint64_t cframe;        /* 3.11/3.12: tstate->cframe */
		uint64_t blo;           /* the frames' block */
	} tcache[256];
};

/* this source's state, behind the session */
#define PY(s) ((struct sfc_py *)(s)->src[SFC_SRC_python])

/* 3.11 and 3.12 (x86-64 and aarch64 alike: LP64) */
static const struct py_layout py311 = {
	.rt_interp_head = 40, .is_threads_head = 16,
	.ts_next = 8, .ts_interp = 16, .ts_native_id = 160,
	.ts_cframe = 56, .cf_current = 8, .ts_current = UINT64_MAX,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69,
	.fr_is_entry = 68,
	.co_filename = 112, .co_qualname = 128, .co_firstlineno = 72,
	.co_linetable = 136, .co_code = 184,
	.str_state = 32, .str_ascii_size = 48,
	.bytes_size = 16, .bytes_data = 32,
};
static const struct py_layout py312 = {
	.rt_interp_head = 40, .is_threads_head = 72,
	.ts_next = 8, .ts_interp = 16, .ts_native_id = 144,
	.ts_cframe = 56, .cf_current = 0, .ts_current = UINT64_MAX,
	.fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70,
	.fr_is_entry = UINT64_MAX,
	.co_filename = 112, .co_qualname = 128, .co_firstlineno = 68,
	.co_linetable = 136, .co_code = 192,
	.str_state = 32, .str_ascii_size = 40,
	.bytes_size = 16, .bytes_data = 32,
};

static bool rd(const struct sfc_session *s, uint64_t addr, void *buf,
	       size_t len)
{
	return addr && sfc__read_mem(s->pid, addr, len, buf) == len;
}

static bool rd64(const struct sfc_session *s, uint64_t addr, uint64_t *v)
{
	return rd(s, addr, v, 8);
}

/* the 3.13+ layout from _Py_DebugOffsets at the start of _PyRuntime */
static bool debug_offsets(struct sfc_session *s, struct py_layout *L)
{
	uint64_t d[74];

	if (!rd(s, PY(s)->runtime, d, sizeof(d)) || memcmp(d, "xdebugpy", 8))
		return false;
	/* indexes are byte offsets / 8 in the 3.13 struct */
	if (d[2])               /* free-threaded: another frame layout */
		return false;
	L->rt_interp_head = d[5];
	L->is_threads_head = d[9];
	L->ts_next = d[21];
	L->ts_interp = d[22];
	L->ts_current = d[23];
	L->ts_native_id = d[25];
	L->ts_cframe = UINT64_MAX;
	L->fr_previous = d[29];
	L->fr_code = d[30];
	L->fr_instr = d[31];
	L->fr_owner = d[33];
	L->fr_is_entry = UINT64_MAX;
	L->co_filename = d[35];
	L->co_qualname = d[37];
	L->co_linetable = d[38];
	L->co_firstlineno = d[39];
	L->co_code = d[43];
	L->str_state = d[68];
	L->str_ascii_size = d[70];
	L->bytes_size = d[65];
	L->bytes_data = d[66];
	return true;
}

static void py_warn(struct sfc_py *py, const char *fmt, int a, int b)
{
	if (py->warn)
		return;
	snprintf(py->warnbuf, sizeof(py->warnbuf), fmt, a, b);
	py->warn = py->warnbuf;
}

/* look for _PyRuntime and Py_Version in the modules named *python* */
static int find_syms(Dwfl_Module *mod, void **ud, const char *name,
		     Dwarf_Addr start, void *arg)
{
	uint64_t *out = arg;
	int n;

	(void)ud;
	(void)start;
	if (!name || !strstr(name, "python") ||
	    (n = dwfl_module_getsymtab(mod)) <= 0)
		return DWARF_CB_OK;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sn = dwfl_module_getsym_info(mod, i, &sym, &addr,
							 NULL, NULL, NULL);
		if (!sn || sym.st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(sn, "_PyRuntime"))
			out[0] = addr;
		else if (!strcmp(sn, "Py_Version"))
			out[1] = addr;
	}
	return out[0] && out[1] ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Find the runtime and its layout, and check it once */
static void py_find(struct sfc_session *s)
{
	struct sfc_py *py = PY(s);
	uint64_t a[2] = { 0, 0 };
	uint32_t ver;

	if (py->ok || (py->tried && py->map_seq == s->map_seq) || !s->dwfl)
		return;
	py->tried = true;
	py->map_seq = s->map_seq;
	dwfl_getmodules(s->dwfl, find_syms, a, 0);
	if (!a[0] || !a[1] || !rd(s, a[1], &ver, 4))
		return;
	py->runtime = a[0];
	int major = (int)(ver >> 24), minor = (int)(ver >> 16 & 255);
	py->minor = minor;
	if (major != 3 || minor < 11) {
		py_warn(py, "Python %d.%d is not supported (3.11 and later "
			"are): no Python frames", major, minor);
		return;
	}
	if (minor == 11)
		py->L = py311;
	else if (minor == 12)
		py->L = py312;
	else if (minor != 13 || !debug_offsets(s, &py->L)) {
		/* _Py_DebugOffsets changes between minor versions: only
		 * 3.13's is known here */
		py_warn(py, "Python %d.%d: no known _Py_DebugOffsets at "
			"_PyRuntime (3.13's, not free-threaded): no Python "
			"frames", major, minor);
		return;
	}
	/* per frame, only the span of the code object that holds its
	 * names, first line and line table is read */
	struct py_layout *L = &py->L;
	const uint64_t f[4] = { L->co_qualname, L->co_filename,
				L->co_linetable, L->co_firstlineno };
	L->co_lo = UINT64_MAX;
	L->co_hi = 0;
	for (int i = 0; i < 4; i++) {
		L->co_lo = f[i] < L->co_lo ? f[i] : L->co_lo;
		L->co_hi = f[i] + 8 > L->co_hi ? f[i] + 8 : L->co_hi;
	}
	if (L->co_hi - L->co_lo > PY_CO_SPAN) {
		py_warn(py, "Python %d.%d: code object fields too far apart "
			"for this reader: no Python frames", major, minor);
		py->map_seq = UINT32_MAX - 1;   /* never again */
		return;
	}
	/* self-check: the first thread state points back at its
	 * interpreter */
	uint64_t interp, ts, back;
	if (!rd64(s, py->runtime + py->L.rt_interp_head, &interp) || !interp)
		return;         /* not initialized yet: try again later */
	if (!rd64(s, interp + py->L.is_threads_head, &ts) || !ts ||
	    !rd64(s, ts + py->L.ts_interp, &back) || back != interp) {
		py_warn(py, "Python %d.%d: its thread states do not match the "
			"expected layout (tstate->interp != interp): no "
			"Python frames", major, minor);
		py->tried = true;
		py->map_seq = UINT32_MAX - 1;   /* never again */
		return;
	}
	py->ok = true;
}

static bool str_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_py *py = c;

	return !strcmp(py->strs[id].s, key);
}

static int str_get(struct sfc_py *py, const char *s, uint32_t *out)
{
	uint64_t h = sf_hash(s, strlen(s));

	if (sf_idx_find(&py->str_idx, h, str_eq, py, s, out))
		return 0;
	if (sf_grow(&py->strs, &py->capstrs, py->nstrs + 1, sizeof(*py->strs)))
		return -1;
	char *c = strdup(s);
	if (!c)
		return -1;
	*out = (uint32_t)py->nstrs;
	py->strs[py->nstrs++].s = c;
	return sf_idx_insert(&py->str_idx, h, *out) ? 0 : -1;
}

/* A str object's text (compact ASCII only), into out */
static bool read_str(const struct sfc_session *s, uint64_t obj, char *out,
		     size_t size)
{
	const struct py_layout *L = &PY(s)->L;
	uint64_t len;
	uint32_t state;

	if (!rd64(s, obj + 16, &len) || !rd(s, obj + L->str_state, &state, 4))
		return false;
	/* interned:2 kind:3 compact:1 ascii:1 */
	if (!(state >> 5 & 1) || !(state >> 6 & 1))
		return false;
	if (len >= size)
		len = size - 1;
	if (!rd(s, obj + L->str_ascii_size, out, (size_t)len))
		return false;
	out[len] = 0;
	return true;
}

/* the line of code unit `lasti` from a 3.11+ location table */
static int addr2line(const unsigned char *p, size_t n, int line,
		     uint64_t lasti)
{
	const unsigned char *end = p + n;
	uint64_t addr = 0;

	while (p < end) {
		unsigned b = *p++;
		unsigned code = b >> 3 & 15, len = (b & 7) + 1;
		int delta = 0;
		if (code == 15) {
			delta = 0;
		} else if (code == 14 || code == 13) {
			/* svarint: 6-bit chunks, bit 6 continues */
			uint64_t v = 0;
			unsigned sh = 0, c;
			do {
				if (p >= end)
					return -1;
				c = *p++;
				v |= (uint64_t)(c & 63) << sh;
				sh += 6;
			} while (c & 64 && sh < 60);
			delta = v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
			/* long form: end line, column, end column */
			for (int k = 0; code == 14 && k < 3; k++)
				while (p < end && *p++ & 64)
					;
		} else if (code >= 10) {
			delta = (int)code - 10;
			p += 2;
		} else {
			p += 1;
		}
		line += delta;
		if (lasti < addr + len)
			return code == 15 ? -1 : line;
		addr += len;
	}
	return -1;
}

/* name "qualname (file:line)" of the frame running `code` at `instr`;
 * hdr holds the code object's bytes [co_lo, co_hi) */
static int frame_name(struct sfc_session *s, uint64_t code,
		      const unsigned char *hdr, uint64_t instr, uint32_t *out)
{
	struct sfc_py *py = PY(s);
	const struct py_layout *L = &py->L;
	uint64_t qn, fn, lt;
	int32_t first;

	memcpy(&qn, hdr + L->co_qualname - L->co_lo, 8);
	memcpy(&fn, hdr + L->co_filename - L->co_lo, 8);
	memcpy(&lt, hdr + L->co_linetable - L->co_lo, 8);
	memcpy(&first, hdr + L->co_firstlineno - L->co_lo, 4);
	struct py_code *pc = &py->codes[(code >> 4) % py->ncodes];
	/* the same object still, by its fields (an address may be reused
	 * by another code object) */
	if (pc->addr != code || pc->qualname != qn || pc->filename != fn ||
	    pc->linetable != lt || pc->firstline != first) {
		char name[256], file[1024];
		uint64_t n;
		if (!read_str(s, qn, name, sizeof(name)))
			snprintf(name, sizeof(name), "?");
		if (!read_str(s, fn, file, sizeof(file)))
			snprintf(file, sizeof(file), "?");
		free(pc->name);
		free(pc->file);
		free(pc->lt);
		memset(pc, 0, sizeof(*pc));
		pc->name = strdup(name);
		pc->file = strdup(file);
		if (!pc->name || !pc->file)
			return -1;
		if (rd64(s, lt + L->bytes_size, &n) && n < (1 << 20) &&
		    (pc->lt = malloc(n ? n : 1)) &&
		    rd(s, lt + L->bytes_data, pc->lt, (size_t)n))
			pc->ltlen = (size_t)n;
		pc->addr = code;
		pc->qualname = qn;
		pc->filename = fn;
		pc->linetable = lt;
		pc->firstline = first;
	}
	for (unsigned i = 0; i < pc->nlast && i < PY_CODE_LAST; i++)
		if (pc->last_instr[i] == instr) {
			*out = pc->last_sid[i];
			return 0;
		}
	uint64_t base = code + L->co_code;
	int line = instr >= base ? addr2line(pc->lt, pc->ltlen, first,
					     (instr - base) / 2) : -1;
	char buf[1400];
	if (line > 0)
		snprintf(buf, sizeof(buf), "%s (%s:%d)", pc->name, pc->file,
			 line);
	else
		snprintf(buf, sizeof(buf), "%s (%s)", pc->name, pc->file);
	if (str_get(py, buf, out))
		return -1;
	pc->last_instr[pc->nlast % PY_CODE_LAST] = instr;
	pc->last_sid[pc->nlast++ % PY_CODE_LAST] = *out;
	return 0;
}

static bool rec_eq(const void *c, uint32_t id, const void *key)
{
	const struct sfc_py *py = c;
	const uint32_t *a = py->recs[id], *b = key;

	return a[0] == b[0] && !memcmp(a + 1, b + 1, a[0] * sizeof(*a));
}

static bool py_active(struct sfc_session *s)
{
	if (!PY(s))
		return false;
	py_find(s);
	return PY(s)->ok;
}

static void py_read(struct sfc_session *s, const struct sfc_thr *t,
		    uint32_t *out)
{
	struct sfc_py *py = PY(s);
	const struct py_layout *L;
	uint32_t rec[2 * PY_MAX_FRAMES + 2];
	uint64_t interp, ts, id, fr;
	size_t n = 1;

	*out = 0;
	if (!py_active(s))
		return;
	L = &py->L;
	/* the thread state of this OS thread: the one found last time
	 * while its native_thread_id is still this thread's (one read of
	 * the fields used, from `interp` to the furthest), else a walk */
	uint64_t cur = L->ts_cframe != UINT64_MAX ? L->ts_cframe
						  : L->ts_current;
	uint64_t lo = L->ts_interp, hi = L->ts_interp;
	lo = cur < lo ? cur : lo;
	lo = L->ts_native_id < lo ? L->ts_native_id : lo;
	hi = cur > hi ? cur : hi;
	hi = L->ts_native_id > hi ? L->ts_native_id : hi;
	hi += 8;
	unsigned char tb[1024];
	if (hi - lo > sizeof(tb))
		return;
	size_t slot = (size_t)t->tid % 256;
	ts = py->tcache[slot].tid == t->tid ? py->tcache[slot].ts : 0;
	/* Frames live in the thread's data stack, older ones below newer:
	 * one read of the block that ends with the current frame usually
	 * holds the callers too */
	unsigned char blk[PY_BLOCK];
	uint64_t blo = 0, bhi = 0;
	uint64_t code[PY_MAX_FRAMES], instr[PY_MAX_FRAMES];
	struct sfc_range co[PY_MAX_FRAMES];
	unsigned char kind[PY_MAX_FRAMES];     /* PY_FRAME, _ENTRY, _SHIM */
	size_t nf = 0, nco = 0;
	size_t need = L->fr_owner + 1;
	bool have_fr = false;
	if (need > 128)
		return;
	if (ts) {
		/* A thread read before: its thread state, the current frame
		 * through the cframe seen last time, and the block of frames
		 * read last time and what lies above it (deeper calls), in
		 * one read; each is used only if what it hangs from is
		 * unchanged */
		uint64_t cf = py->tcache[slot].cframe;
		struct sfc_range r[3] = {
			{ ts + lo, (size_t)(hi - lo) },
			{ cf + L->cf_current, cf ? 8 : 0 },
			{ py->tcache[slot].blo, py->tcache[slot].blo ?
						sizeof(blk) : 0 },
		};
		unsigned char b[sizeof(tb) + 8 + sizeof(blk)];
		size_t got = sfc__read_ranges(s->pid, r, 3, b);
		size_t at = r[0].len + r[1].len;
		if (got >= r[0].len)
			memcpy(&id, b + L->ts_native_id - lo, 8);
		if (got < r[0].len || id != (uint64_t)t->tid) {
			ts = 0;
		} else {
			memcpy(tb, b, r[0].len);
			memcpy(&fr, tb + cur - lo, 8);
			if (L->ts_cframe == UINT64_MAX) {
				have_fr = true;
			} else if (cf && fr == cf && got >= at) {
				memcpy(&fr, b + r[0].len, 8);
				have_fr = true;
			}
			if (have_fr && got > at && fr >= r[2].addr &&
			    fr + need <= r[2].addr + (got - at)) {
				blo = r[2].addr;
				bhi = blo + (got - at);
				memcpy(blk, b + at, (size_t)(bhi - blo));
			}
		}
	}
	if (!ts) {
		if (!rd64(s, py->runtime + L->rt_interp_head, &interp) ||
		    !rd64(s, interp + L->is_threads_head, &ts))
			return;
		for (int k = 0; ts && k < 100000; k++) {
			if (rd(s, ts + lo, tb, hi - lo) &&
			    (memcpy(&id, tb + L->ts_native_id - lo, 8),
			     id == (uint64_t)t->tid))
				break;
			if (!rd64(s, ts + L->ts_next, &ts))
				return;
		}
		if (!ts)
			return;
		py->tcache[slot].tid = t->tid;
		py->tcache[slot].ts = ts;
		py->tcache[slot].cframe = 0;
		py->tcache[slot].blo = 0;
	}
	if (!have_fr) {
		memcpy(&fr, tb + cur - lo, 8);
		if (L->ts_cframe != UINT64_MAX) {
			py->tcache[slot].cframe = fr;
			if (!rd64(s, fr + L->cf_current, &fr))
				return;
		}
	}
	for (; fr && nf < PY_MAX_FRAMES; nf++) {
		unsigned char f[128];
		uint64_t prev;
		if (fr < blo || fr + need > bhi) {
			uint64_t end = fr + need;
			/* not below the page before fr's (a failed read falls
			 * back to the frame alone) */
			uint64_t start = end - PY_BLOCK / 2;
			if (start < (fr & ~(uint64_t)4095) - 4096 || start > end)
				start = (fr & ~(uint64_t)4095) - 4096;
			if (start > fr)
				start = fr;
			size_t got = sfc__read_mem(s->pid, start,
						   (size_t)(end - start), blk);
			if (got != end - start) {
				start = fr;
				if (!rd(s, fr, blk, need))
					return;
			}
			blo = start;
			bhi = end;
			if (!nf)        /* read from there next time */
				py->tcache[slot].blo = start;
		}
		memcpy(f, blk + (fr - blo), need);
		memcpy(&code[nf], f + L->fr_code, 8);
		memcpy(&prev, f + L->fr_previous, 8);
		memcpy(&instr[nf], f + L->fr_instr, 8);
		if (L->fr_is_entry == UINT64_MAX && f[L->fr_owner] == PY_CSTACK) {
			/* 3.12+: the shim at the base of one eval call */
			kind[nf] = PY_SHIM;
		} else {
			kind[nf] = L->fr_is_entry != UINT64_MAX &&
				   f[L->fr_is_entry] ? PY_ENTRY : PY_FRAME;
			co[nco].addr = code[nf] + L->co_lo;
			co[nco++].len = (size_t)(L->co_hi - L->co_lo);
		}
		fr = prev;
	}
	/* the code objects' names and lines, all in one read (a cached
	 * name is still checked against them: an address may be reused) */
	unsigned char hdr[PY_MAX_FRAMES][PY_CO_SPAN];
	size_t span = (size_t)(L->co_hi - L->co_lo);
	size_t nread = sfc__read_ranges(s->pid, co, nco, hdr[0]) / span;
	bool any = false;
	for (size_t k = 0, j = 0; k < nf; k++) {
		if (kind[k] == PY_SHIM) {
			rec[n++] = PY_SEP;
			continue;
		}
		/* past one the read could not copy, each on its own */
		unsigned char *h = hdr[0] + j * span;
		if (j < nread || rd(s, co[j].addr, h, span)) {
			uint32_t sid;
			if (frame_name(s, code[k], h, instr[k], &sid))
				return;
			rec[n++] = sid;
			any = true;
		}
		j++;
		if (kind[k] == PY_ENTRY)
			rec[n++] = PY_SEP;
	}
	if (!any)
		return;
	rec[0] = (uint32_t)(n - 1);
	uint64_t h = sf_hash(rec, n * sizeof(*rec));
	uint32_t rid;
	if (sf_idx_find(&py->rec_idx, h, rec_eq, py, rec, &rid)) {
		*out = rid;
		return;
	}
	uint32_t *c = malloc(n * sizeof(*c));
	if (!c || sf_grow(&py->recs, &py->caprecs, py->nrecs + 1,
			  sizeof(*py->recs))) {
		free(c);
		return;
	}
	memcpy(c, rec, n * sizeof(*c));
	rid = (uint32_t)py->nrecs;
	py->recs[py->nrecs++] = c;
	if (!sf_idx_insert(&py->rec_idx, h, rid))
		return;
	*out = rid;
}

static int py_open(struct sfc_session *s)
{
	if (s->o.no_python)
		return 0;
	struct sfc_py *py = sf_calloc(1, sizeof(*py));

	if (!(s->src[SFC_SRC_python] = py))
		return -1;
	py->nrecs = 1;
	py->caprecs = 0;
	py->ncodes = 4096;
	if (!(py->codes = sf_calloc(py->ncodes, sizeof(*py->codes))))
		return -1;
	return 0;
}

static void py_close(struct sfc_session *s)
{
	struct sfc_py *py = PY(s);

	if (!py)
		return;
	for (size_t i = 0; i < py->nstrs; i++)
		free(py->strs[i].s);
	free(py->strs);
	for (size_t i = 1; i < py->nrecs; i++)
		free(py->recs[i]);
	free(py->recs);
	for (size_t i = 0; i < py->ncodes; i++) {
		free(py->codes[i].name);
		free(py->codes[i].file);
		free(py->codes[i].lt);
	}
	free(py->codes);
	sf_idx_free(&py->str_idx);
	sf_idx_free(&py->rec_idx);
	free(py);
	s->src[SFC_SRC_python] = NULL;
}

static int py_report(struct sfc_session *s, struct sf_ctx *ctx,
		     struct sf_profile *p)
{
	char b[32];

	if (!PY(s))
		return 0;
	if (PY(s)->warn)
		sf_warn(ctx, "capture.python", "%s", PY(s)->warn);
	if (!PY(s)->ok)
		return 0;
	snprintf(b, sizeof(b), "%" PRIu64, PY(s)->samples);
	return sf_profile_set_prop(p, ctx, "capture.python_samples", b);
}

static int py_emit(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, uint32_t rec, uint32_t node,
		   const sf_frame_id *fid, sf_stack_id *stack,
		   struct sf_label *labels, size_t *nlabels)
{
	struct sfc_py *py = PY(s);
	uint32_t chain[1024];
	size_t nc = 0;
	int rc;

	if (!py || !rec || rec >= py->nrecs)
		return 0;
	/* the native frames, leaf first */
	for (uint32_t n = node; n && nc < 1024; n = s->nodes[n].parent)
		chain[nc++] = n;
	/* groups of the record, innermost first */
	const uint32_t *r = py->recs[rec];
	size_t ngroups = 0, gstart[PY_MAX_FRAMES + 1], gend[PY_MAX_FRAMES + 1];
	size_t at = 1;
	while (at <= r[0] && ngroups <= PY_MAX_FRAMES) {
		gstart[ngroups] = at;
		while (at <= r[0] && r[at] != PY_SEP)
			at++;
		gend[ngroups++] = at;
		at++;
	}
	/* which native frames are _PyEval_EvalFrameDefault, counted from
	 * the leaf */
	size_t evals = 0;
	for (size_t i = 0; i < nc; i++) {
		const char *nm = p->d.frames[fid[s->nodes[chain[i]].addr]].name;
		evals += nm && !strcmp(nm, "_PyEval_EvalFrameDefault");
	}
	if (!evals)
		return 0;
	sf_stack_id st = SF_STACK_EMPTY;
	size_t k = evals;       /* eval index from the leaf, +1 */
	bool used = false;
	for (size_t i = nc; i-- > 0;) {
		sf_frame_id f = fid[s->nodes[chain[i]].addr];
		const char *nm = p->d.frames[f].name;
		if (nm && !strcmp(nm, "_PyEval_EvalFrameDefault")) {
			k--;
			if (k < ngroups) {
				/* this eval ran group k: oldest frame first */
				for (size_t j = gend[k]; j-- > gstart[k];) {
					struct sf_frame fm;
					sf_frame_id id;
					sf_frame_init(&fm);
					fm.name = py->strs[r[j]].s;
					fm.kind = "python";
					if ((rc = sf_profile_frame(p, ctx, &fm,
								   &id)) ||
					    (rc = sf_profile_stack_push(
						     p, ctx, st, id, &st)))
						return rc;
				}
				used = true;
				continue;
			}
		}
		if ((rc = sfc__name_push(s, ctx, p, fid,
					 s->nodes[chain[i]].addr, &st)))
			return rc;
	}
	if (used) {
		*stack = st;
		py->samples++;
	}
	return 0;
}

const struct sfc_source sfc_source_python = {
	.name = "python",
	.open = py_open,
	.close = py_close,
	.read_stopped = py_read,
	.needs_stop = py_active,
	.emit = py_emit,
	.report = py_report,
};
