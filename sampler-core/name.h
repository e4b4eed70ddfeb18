/*
 * name.h - internal to sampler-core: the address namers
 * (docs/capture-sources.md, "Address namers").  A namer names native
 * addresses at the end of a capture: the JIT maps, PLT entries, the ELF
 * symbols, the functions inlined at an address.  Each is one file
 * exporting a const struct sfc_namer, and one row of SFC_NAMERS below;
 * interning and emit call the namers only through the table (name.c),
 * never by name.
 *
 * The namers are a table of their own, not rows of SFC_SOURCES: they
 * read no sample, and a row there has a record in every sample, thread
 * and window.
 */
#ifndef SF_NAME_H
#define SF_NAME_H

#include "profile.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sfc_session;

/* The table, one row per namer, in the order an address is offered to
 * them; the first whose lookup names it wins.  A row NAME is the
 * sfc_namer_NAME its file defines.  Why each sits where it does:
 * docs/capture-sources.md. */
#define SFC_NAMERS(X)                                                     \
	X(jitmap)   /* jitmap.c: perf map, jitdump; before any module */  \
	X(plt)      /* plt.c: name@plt; before the symbols */             \
	X(symbols)  /* symbols.c: the ELF symbol tables */                \
	X(inlined)  /* inline.c: inlined frames, after the address's */

enum {
#define SFC_NAM_ID(name) SFC_NAM_##name,
	SFC_NAMERS(SFC_NAM_ID)
#undef SFC_NAM_ID
	SFC_NNAM
};

/* One address being named: what the namers see, and room for what they
 * make.  The frame they fill is passed beside it. */
struct sfc_naming {
	uint64_t pc;
	uint32_t addr;          /* its index among the session's addresses */
	uint32_t tag;           /* its tag (the tag role, when interned) */
	Dwfl_Module *mod;       /* its module; NULL: none, or a namer took
				 * the address out of it */
	/* Set by the module step, before the first in_module row: */
	Elf *elf;               /* the module's ELF file; NULL: unread */
	uint64_t rel;           /* pc in the ELF file's own addresses (bias
				 * removed), else from the module's start */
	uint64_t bias;          /* the ELF file's bias in the module */
	struct sfc_symidx *file; /* what depends only on the module's file,
				 * shared by every process (symidx.c): its
				 * symbol index, its own Dwfl; NULL: none
				 * (read only while mod is not NULL) */
	Dwfl_Module *dmod;      /* where the address's DWARF is read (lines,
				 * inlined scopes): the file's own Dwfl,
				 * else mod (NULL: in no module) ... */
	uint64_t dpc;           /* ... and pc there */
	Dwfl_Module *filemod;   /* the module `file` was found for, kept
				 * across addresses: the next address is
				 * mostly in the same module */
	char buf[512];          /* a name a row makes lives here ... */
	char *own;              /* ... or here (freed once the frame is
				 * made) */
};

/* One namer.  Every role but name may be NULL. */
struct sfc_namer {
	const char *name;
	/* Each stack interned, while the target lives: read what the
	 * namer's input gained.  -1 when out of memory. */
	int (*poll)(struct sfc_session *s, struct sf_ctx *ctx);
	/* Each new address: which version of pc it is now (0: none).
	 * Addresses with different tags are different frames.  An address
	 * keeps one tag, the first row's that is not 0. */
	uint32_t (*tag)(const struct sfc_session *s, uint64_t pc);
	/* Once around symbolization: *state is what lookup gets, end
	 * releases it (called for every row whose begin returned 0). */
	int (*begin)(struct sfc_session *s, struct sf_ctx *ctx,
		     void **state);
	void (*end)(struct sfc_session *s, void *state);
	/* Asked only for an address in a module, after the module step */
	bool in_module;
	/* Name a->pc into f (f->name, and kind, offset, address as it
	 * knows them; a name built lives in a): 1 when named, 0 when it
	 * declines, or a negative sf_code. */
	int (*lookup)(struct sfc_session *s, struct sf_ctx *ctx, void *state,
		      struct sfc_naming *a, struct sf_frame *f);
	/* Each address once it is frame f: frames of its own, recorded for
	 * a->addr.  0 or a negative sf_code. */
	int (*after)(struct sfc_session *s, struct sf_ctx *ctx,
		     struct sf_profile *p, const struct sfc_naming *a,
		     const struct sf_frame *f);
	/* At emit, after address addr's frame is pushed onto *st: push
	 * what after recorded for it. */
	int (*push)(struct sfc_session *s, struct sf_ctx *ctx,
		    struct sf_profile *p, uint32_t addr, sf_stack_id *st);
	/* With the session */
	void (*close)(struct sfc_session *s);
};

#define SFC_NAM_DECL(name) extern const struct sfc_namer sfc_namer_##name;
SFC_NAMERS(SFC_NAM_DECL)
#undef SFC_NAM_DECL

/* name.c: the table, and each role called over it */
extern const struct sfc_namer *const sfc__namers[SFC_NNAM];
/* poll of every row; -1 when out of memory */
int sfc__name_poll(struct sfc_session *s, struct sf_ctx *ctx);
/* The tag of a new address at pc (the first row's that is not 0) */
uint32_t sfc__name_tag(const struct sfc_session *s, uint64_t pc);
/* Every address of the session as a frame, into out[naddrs] */
int sfc__symbolize(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, sf_frame_id *out);
/* Push address addr's frame (fid[addr]) onto *st, then what the rows
 * add after it (its inlined frames). */
int sfc__name_push(struct sfc_session *s, struct sf_ctx *ctx,
		   struct sf_profile *p, const sf_frame_id *fid, uint32_t addr,
		   sf_stack_id *st);
void sfc__name_close(struct sfc_session *s);

/* ----- the rows' own functions (their unit tests call them) ----- */

/* plt.c: "name@plt" when addr (an address of elf's own, bias removed)
 * is in a PLT entry, into buf; else NULL (and elsewhere than x86-64) */
const char *sfc__plt_name(Elf *elf, uint64_t addr, char *buf, size_t size);

/* symidx.c: what depends only on an ELF file, kept once for all the
 * processes of a capture: the file's symbols sorted, answering as
 * dwfl_module_addrinfo does (for the symbols row), and the file alone in
 * a Dwfl of its own, whose DWARF is read once (for the inlined row,
 * source lines and unwinding's .debug_frame check).  A set holds the
 * files of one capture (the head session's, freed by the symbols row's
 * close); it is made on the first call, and owns the entries and their
 * names. */
struct sfc_symidx;
struct sfc_symidx_set;
/* The entry of mod's file in *set, made from mod's symbol table on first
 * use (*out stays NULL when the file has neither build id nor a file
 * to stat); -1 when out of memory. */
int sfc__symidx_get(struct sfc_symidx_set **set, Dwfl_Module *mod,
		    struct sfc_symidx **out);
/* The symbol dwfl_module_addrinfo names for pc in a module of x's file
 * whose main file's bias is `bias` (dwfl_module_getelf), into *name
 * (NULL: none; valid while x lives) and the offset into it, *off: 1.
 * 0 when libdwfl must be asked (no index, or a case it does not
 * reproduce; see symidx.c). */
int sfc__symidx_find(const struct sfc_symidx *x, uint64_t bias, uint64_t pc,
		     const char **name, uint64_t *off);
/* The module to ask for x's DWARF (inlined scopes, lines, .debug_frame)
 * about pc of mod, a module of x's file whose main file's bias is
 * `bias`: the file alone in a Dwfl of x's own (made on first use with
 * the callbacks cbs, which must outlive x), so that its DWARF is read
 * and decompressed once for all processes, and *pc moved to it; else
 * mod, *pc unchanged (no build id, or the file at mod's path is not the
 * one mapped). */
Dwfl_Module *sfc__symidx_dwarf(struct sfc_symidx *x, const Dwfl_Callbacks *cbs,
			       Dwfl_Module *mod, uint64_t bias, uint64_t *pc);
void sfc__symidx_free(struct sfc_symidx *x);
/* A symbol's binding as libdwfl ranks it (its binding_value): GLOBAL 3,
 * WEAK 2, LOCAL 1, anything else 0. */
int sfc__binding_rank(const GElf_Sym *sym);
void sfc__symidx_set_free(struct sfc_symidx_set *set);

/* jitmap.c: names for JIT code from /tmp/perf-PID.map */
#define SFC_JITMAP_MAX ((off_t)64 << 20)
/* Open path for reading only if it is a regular file owned by `owner`
 * or root, not a symbolic link, at most max bytes (O_NOFOLLOW |
 * O_NONBLOCK: a FIFO is never waited on).  1 with *fd open; 0 when there
 * is no such file; -1 with the reason in why. */
int sfc__open_owned(const char *path, uid_t owner, off_t max, int *fd,
		    char *why, size_t whysize);
/* Read what the target's perf map gained, at most once per tick (s->jit,
 * made on the first call; one warning when the map is refused); -1 when
 * out of memory. */
int sfc__jit_poll(struct sfc_session *s, struct sf_ctx *ctx);
/* The entry of the map as read so far that holds pc (its number, kept
 * with the address), or 0 */
uint32_t sfc__jit_holder(const struct sfc_session *s, uint64_t pc);
/* The whole map, read to its end, and the mapped jitdump's records; the
 * caller owns it (s->jit is taken).  NULL when out of memory. */
struct sfc_jitmap *sfc__jit_load(struct sfc_session *s, struct sf_ctx *ctx);
/* The name of entry `held` (sfc__jit_holder when pc was sampled), or
 * when 0 of the last entry holding pc; NULL when none */
const char *sfc__jit_find(const struct sfc_jitmap *m, uint64_t pc,
			  uint32_t held);
void sfc__jit_free(struct sfc_jitmap *m);

#endif
