/*
 * symbols.c - names of native addresses from the ELF files (an address
 * namer, docs/capture-sources.md): .symtab/.dynsym, or a separate debug
 * file found by build-id or debuglink (dwfl_standard_find_debuginfo),
 * with libdwfl's dwfl_module_addrinfo's answer.  That scans the symbol
 * table linearly (~50 µs an address), in every process again, so the
 * answer comes from the file's sorted index shared by every process of
 * the capture (symidx.c, by binary search), and from libdwfl only where
 * the index does not reproduce it.  The symbol version is dropped and
 * C++ names demangled through __cxa_demangle, loaded at run time; the
 * frame keeps the offset into its function.
 */
#include "capture_int.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* the C++ demangler, NULL state when there is none (or --no-demangle) */
struct sym_state {
	void *cxx;
	demangle_fn demangle;
};

static int sym_begin(struct sfc_session *s, struct sf_ctx *ctx, void **state)
{
	struct sym_state *st;
	void *cxx = NULL;
	demangle_fn demangle = NULL;

	if (s->o.no_demangle)
		return 0;
	cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!cxx)
		return 0;
	*(void **)&demangle = dlsym(cxx, "__cxa_demangle");
	if (!(st = malloc(sizeof(*st)))) {
		dlclose(cxx);
		return sf_error_nomem(ctx);
	}
	st->cxx = cxx;
	st->demangle = demangle;
	*state = st;
	return 0;
}

static void sym_end(struct sfc_session *s, void *state)
{
	struct sym_state *st = state;

	if (!st)
		return;
	dlclose(st->cxx);
	free(st);
}

/* --verify-symbols: does libdwfl's own search in the process's module
 * agree with the index? */
static void verify_name(struct sfc_session *s, Dwfl_Module *mod,
			uint64_t pc, const char *name, GElf_Off off)
{
	GElf_Off woff;
	GElf_Sym sym;
	const char *want = dwfl_module_addrinfo(mod, pc, &woff, &sym, NULL,
						NULL, NULL);

	if (want == name || (want && name && !strcmp(want, name) &&
			     woff == off))
		s->head->sym_verified++;
	else
		s->head->sym_mismatch++;
}

static int sym_name(struct sfc_session *s, struct sf_ctx *ctx, void *state,
		    struct sfc_naming *a, struct sf_frame *f)
{
	const struct sym_state *st = state;
	demangle_fn demangle = st ? st->demangle : NULL;
	Dwfl_Module *mod = a->mod;
	uint64_t pc = a->pc;
	char *plain = a->buf, *dem = NULL;
	const char *name, *at;
	GElf_Off off;
	GElf_Sym sym;

	uint64_t xoff;
	if (a->elf && sfc__symidx_find(a->file, a->bias, pc, &name, &xoff)) {
		off = xoff;
		if (s->o.verify_symbols)
			verify_name(s, mod, pc, name, off);
	} else {
		name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL,
					    NULL);
	}
	if (name && (at = strchr(name, '@')) && at > name &&
	    (size_t)(at - name) < sizeof(a->buf)) {
		/* "pthread_cond_wait@@GLIBC_2.3.2": drop the symbol version */
		memcpy(plain, name, (size_t)(at - name));
		plain[at - name] = 0;
		name = plain;
	}
	if (name && demangle && name[0] == '_' && name[1] == 'Z') {
		int ok = -1;
		dem = demangle(name, NULL, NULL, &ok);
		if (ok == 0 && dem)
			name = a->own = dem;
		else
			free(dem);
	}
	if (!name)
		return 0;
	/* the offset into the function, "+ N" as macOS sample prints it:
	 * two return addresses in one function then read as such */
	f->offset = off;
	f->name = name;
	return 1;
}

/* The files' entries are the head's, shared by every process: they go
 * with it */
static void sym_close(struct sfc_session *s)
{
	sfc__symidx_set_free(s->symidx);
	s->symidx = NULL;
}

const struct sfc_namer sfc_namer_symbols = {
	.name = "symbols",
	.begin = sym_begin,
	.end = sym_end,
	.in_module = true,
	.lookup = sym_name,
	.close = sym_close,
};
