/*
 * perfdata_syms.c - a call chain's entries -> frames named as
 * stackcollapse-perf.pl names perf script's lines for them: the map of
 * the entry, the symbol from its ELF file (or kallsyms, or the JIT's
 * /tmp/perf-PID.map), cached per (dso, ip, offset) (perfdata.h).
 */
#include "perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----- symbols ----- */

static void hex(char *out, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/* perf's build-id cache directory into buf: both callers use buf, so
 * $PERF_BUILDID_DIR (which perf sets for the programs it runs, under
 * perf stat or perf record) must land there too. */
static void buildid_dir(char *buf, size_t size)
{
	const char *e = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");

	if (e && *e)
		snprintf(buf, size, "%s", e);
	else
		snprintf(buf, size, "%s/.debug", home ? home : "");
}

void sf_pd__cache_path(const unsigned char *bid, size_t len,
		       const char *what, char *out, size_t size)
{
	char bdir[4096], h[41];

	hex(h, bid, len);
	buildid_dir(bdir, sizeof(bdir));
	snprintf(out, size, "%s/.build-id/%.2s/%s/%s", bdir, h, h + 2, what);
}

static void load_dso(struct pd_dso *d)
{
	char h[41];
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
		sf_pd__cache_path(d->bid, d->bid_len, "elf", c1, sizeof(c1));
		sf_pd__cache_path(d->bid, d->bid_len, "debug", c2, sizeof(c2));
		snprintf(c3, sizeof(c3), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 h, h + 2);
		sf_pd__cache_path(d->bid, d->bid_len, "vdso", c4, sizeof(c4));
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

	return a->dso == b->dso && a->ip == b->ip && a->off == b->off &&
	       a->unwound == b->unwound;
}

#define DSO_KERNEL ((uint64_t)-1)
#define DSO_NONE ((uint64_t)-2)
#define INLINE_MAX 64

/*
 * The frame that `perf script`'s line for this entry,
 *
 *     ip sym+0xoff (dso)        or        ip [unknown] (dso)
 *
 * makes in stackcollapse-perf.pl, appended to st->fids (none when perl
 * would skip the line).  The line is composed and cut by the perf script
 * reader's own parser (perf.h), so that a dso name with blanks
 * ("/memfd:x (deleted)") splits as perl splits it; then the rules of that
 * reader's frames_of_line for one frame: the offset dropped, "[unknown]"
 * named after the dso, the name tidied, a name that starts with "("
 * skipped.  An inlined function's line has "(inlined)" for its dso, and
 * its frame is marked so, without a module, as that reader marks it.
 */
static int make_frame(struct pd_state *st, uint64_t ip, const char *sym,
		      const char *mod, bool kernel, bool inlined)
{
	struct sf_sbuf *b = &st->name_buf, *l = &st->line_buf;
	struct stack_line sl;
	char pc[24];
	int pcn = snprintf(pc, sizeof(pc), "%llx", (unsigned long long)ip);
	char *dem = sym ? sf_demangle_perf(sym) : NULL;
	bool ok;

	l->len = 0;
	ok = sf_sbuf_add(l, pc, (size_t)pcn) && sf_sbuf_add(l, " ", 1) &&
	     sf_sbuf_adds(l, sym ? (dem ? dem : sym) : "[unknown]") &&
	     (!sym || sf_sbuf_add(l, "+0x0", 4)) &&
	     sf_sbuf_add(l, " (", 2) &&
	     sf_sbuf_adds(l, inlined ? "inlined" : mod) &&
	     sf_sbuf_add(l, ")", 1);
	free(dem);
	if (!ok)
		return sf_error_nomem(st->ctx);
	if (!sf_perf__parse_stack_line(l->s, l->len, &sl))
		return 0;       /* perl would not see a frame line */
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
	if (fl && f[0] == '(')
		return 0;
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
	if (inlined)
		fr.flags |= SF_FRAME_INLINE;
	else if (strcmp(mod, "[unknown]"))
		fr.module = mod;
	fr.address = ip;
	fr.kind = kernel ? st->k_kernel : NULL;
	if (!grow((void **)&st->fids, &st->cap_fids, st->nfids + 1,
		  sizeof(*st->fids)))
		return sf_error_nomem(st->ctx);
	return sf_profile_frame(st->p, st->ctx, &fr, &st->fids[st->nfids++]);
}

/* Is `a` the symbol `b` once both are demangled, as perf compares an
 * inlined function's name with the symbol's (new_inline_sym)? */
static bool same_name(const char *a, const char *b)
{
	char *da = sf_demangle_perf(a), *db = sf_demangle_perf(b);
	bool same = !strcmp(da ? da : a, db ? db : b);

	free(da);
	free(db);
	return same;
}

/* The frames of a user entry in the map of dso `d`: for an unwound
 * entry one per function addr2line names there (perf's unwind_entry and
 * append_inlines; perf script 6.1 does not do it for the kernel's
 * chains), else the symbol's. */
static int user_frames(struct pd_state *st, struct pd_dso *d, uint64_t ip,
		       uint64_t off, const char *sym, bool unwound)
{
	const char *names[INLINE_MAX];
	size_t n = 0;
	int rc;

	/* perf asks only for an entry with a symbol, in a file */
	if (unwound && sym &&
	    (rc = sf_pd__inlines(d, off, names, INLINE_MAX, &n)))
		return rc;
	if (!n)
		return make_frame(st, ip, sym, d->name, false, false);
	for (size_t i = 0; i < n; i++) {
		bool own = same_name(names[i], sym);
		if ((rc = make_frame(st, ip, own ? sym : names[i], d->name,
				     false, !own)))
			return rc;
	}
	return 0;
}

/* Append the frames of one call chain entry (or unwound address) to
 * st->frames at *n. */
static int frame_of(struct pd_state *st, const struct pd_thread *t,
		    uint64_t ip, int cpumode, bool unwound, size_t *n)
{
	const char *sym = NULL, *mod = "[unknown]";
	bool kernel = cpumode == MISC_KERNEL || cpumode == MISC_GUEST_KERNEL;
	const struct pd_map *m = NULL;
	struct pd_fent key = { DSO_KERNEL, ip, 0, unwound, 0, 0 };
	uint32_t id, k;
	int rc;

	if (kernel) {
		/* in no kernel map: perf prints "[unknown] ([unknown])";
		 * with no kernel map recorded at all, take the kernel's */
		if (m64_find(&st->proc_idx, (uint64_t)-1, &k) &&
		    st->procs[k].n) {
			m = sf_pd__map_find(&st->procs[k], ip);
			key.dso = m ? m->dso : DSO_NONE;
		}
	} else {
		if (t->pid >= 0 &&
		    m64_find(&st->proc_idx, (uint64_t)t->pid, &k))
			m = sf_pd__map_find(&st->procs[k], ip);
		key.dso = m ? m->dso : DSO_NONE;
		key.off = m ? ip - m->start + m->pgoff : 0;
	}
	uint64_t h = sf_hash(&key, 4 * sizeof(uint64_t));
	if (!sf_idx_find(&st->fidx, h, fent_eq, st->fents, &key, &id)) {
		key.first = (uint32_t)st->nfids;
		if (kernel && key.dso != DSO_NONE) {
			if (!st->kallsyms_loaded)
				load_kallsyms(st);
			sym = sf_symtab_lookup(st->kallsyms, ip);
			mod = m ? st->dsos[m->dso].name : "[kernel.kallsyms]";
			rc = make_frame(st, ip, sym, mod, true, false);
		} else if (m) {
			struct pd_dso *d = &st->dsos[m->dso];
			if (!d->loaded)
				load_dso(d);
			sym = sf_symtab_lookup(d->syms, key.off);
			rc = user_frames(st, d, ip, key.off, sym, unwound);
		} else {
			rc = make_frame(st, ip, NULL, mod, kernel, false);
		}
		if (rc)
			return rc;
		key.n = (uint32_t)(st->nfids - key.first);
		if (!grow((void **)&st->fents, &st->cap_f, st->nf + 1,
			  sizeof(*st->fents)))
			return sf_error_nomem(st->ctx);
		st->fents[st->nf] = key;
		if (!sf_idx_insert(&st->fidx, h, (uint32_t)st->nf))
			return sf_error_nomem(st->ctx);
		id = (uint32_t)st->nf++;
	}
	const struct pd_fent *e = &st->fents[id];
	if (!grow((void **)&st->frames, &st->cap_frames, *n + e->n + 1,
		  sizeof(*st->frames)))
		return sf_error_nomem(st->ctx);
	if (e->n)
		memcpy(st->frames + *n, st->fids + e->first,
		       e->n * sizeof(*st->frames));
	*n += e->n;
	return 0;
}

int sf_pd__resolve(struct pd_state *st, const struct pd_thread *th,
		   const unsigned char *chain, uint64_t nr, uint64_t ip,
		   int cpumode, size_t *n)
{
	int mode = MISC_USER;

	if (!chain)
		return frame_of(st, th, ip, cpumode, false, n);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t x = rd64(chain + i * 8);
		if (x < CONTEXT_MAX) {
			int rc = frame_of(st, th, x, mode, false, n);
			if (rc)
				return rc;
		} else if ((mode = context_mode(x)) < 0) {
			/* perf: "invalid callchain context", the chain is
			 * discarded */
			*n = 0;
			return 0;
		}
	}
	return 0;
}

int sf_pd__resolve_user(struct pd_state *st, const struct pd_thread *th,
			const uint64_t *ips, size_t count, size_t *n)
{
	for (size_t i = 0; i < count; i++) {
		int rc;
		if (ips[i] &&
		    (rc = frame_of(st, th, ips[i], MISC_USER, true, n)))
			return rc;
	}
	return 0;
}
