/*
 * t_symidx - sampler-core/symidx.c names an address exactly as libdwfl's
 * dwfl_module_addrinfo does (the same symbol, the same offset), over real
 * ELF files of the machine: the C library, libstdc++ (weak and local C++
 * symbols), the dynamic linker, libdw, this program, the capture test
 * target built here with and without its symbol table (stripped: only
 * .dynsym), and gcc's cc1 (28,902 dynamic symbols) when present.
 *
 * The index is made from the file reported at one load address and asked
 * about the file reported at another, and about this process's own
 * modules (as sfcapture reads them, from /proc/PID/maps), so an answer
 * that does not move with the module (absolute symbols) would show.  The
 * addresses: every symbol's start, start - 1, middle, last byte and end,
 * the middle of each gap between symbols, each allocated section's ends,
 * the module's end and beyond it, and pseudo-random addresses in the
 * module; for files with many symbols a fixed pseudo-random part of
 * them, so that libdwfl's linear scans stay within seconds.
 */
#include "unit.h"
#include "name.h"

#include <gelf.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char *debuginfo_path;
static const Dwfl_Callbacks offline = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};
static const Dwfl_Callbacks live = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* libdwfl's queries are linear in the table (1 ms each in cc1's here):
 * at most this many symbols visited per file and load address */
#define MAX_VISITS 60000000

struct addrs {
	uint64_t *a;
	size_t n, cap;
};

static void add(struct addrs *q, uint64_t a)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 1024;
		q->a = realloc(q->a, q->cap * sizeof(*q->a));
		if (!q->a)
			abort();
	}
	q->a[q->n++] = a;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The addresses to ask about in mod (its own load address) */
static void addresses(Dwfl_Module *mod, struct addrs *q)
{
	Dwarf_Addr low, high, bias;
	int n = dwfl_module_getsymtab(mod);
	struct addrs starts = { 0 };

	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	/* a part of the symbols when there are many: about 6 queries each */
	uint32_t want = n > 0 ? (uint32_t)(MAX_VISITS / 6 / n) : 0;
	uint32_t keep = n > (int)want ? want : 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr v;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &v,
							   NULL, NULL, NULL);
		if (!name)
			continue;
		add(&starts, v);
		if (keep && unit_rnd((uint32_t)n) >= keep)
			continue;
		add(q, v);
		add(q, v - 1);
		add(q, v + sym.st_size / 2);
		add(q, v + sym.st_size);
		if (sym.st_size)
			add(q, v + sym.st_size - 1);
	}
	/* gaps: between consecutive symbol starts */
	if (starts.n)
		qsort(starts.a, starts.n, sizeof(*starts.a), u64_cmp);
	for (size_t i = 1; i < starts.n; i++)
		if (starts.a[i] - starts.a[i - 1] > 1 &&
		    (!keep || unit_rnd((uint32_t)starts.n) < keep))
			add(q, starts.a[i - 1] + (starts.a[i] - starts.a[i - 1]) / 2);
	free(starts.a);
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		add(q, sh.sh_addr + bias);
		add(q, sh.sh_addr + bias + sh.sh_size - 1);
		add(q, sh.sh_addr + bias + sh.sh_size);
	}
	add(q, high - 1);
	add(q, high);
	add(q, high + 0x100000);
	for (int i = 0; i < 500 && high > low; i++)
		add(q, low + unit_rnd((uint32_t)(high - low < UINT32_MAX ?
						 high - low : UINT32_MAX)));
}

/* Ask index x and libdwfl about the addresses of mod; label the check. */
static void compare(const char *label, const struct sfc_symidx *x,
		    Dwfl_Module *mod)
{
	struct addrs q = { 0 };
	Dwarf_Addr bias;
	size_t bad = 0, asked = 0, named = 0;
	char what[600];

	addresses(mod, &q);
	dwfl_module_getelf(mod, &bias);
	for (size_t i = 0; i < q.n; i++) {
		GElf_Off off;
		GElf_Sym sym;
		const char *want = dwfl_module_addrinfo(mod, q.a[i], &off, &sym,
							NULL, NULL, NULL);
		const char *got;
		uint64_t goff;
		if (!sfc__symidx_find(x, bias, q.a[i], &got, &goff)) {
			asked++;
			continue;
		}
		named += want != NULL;
		if (!want != !got ||
		    (want && (strcmp(want, got) || off != goff))) {
			if (bad++ < 5)
				printf("# %s: 0x%llx: libdwfl %s+%llu, index "
				       "%s+%llu\n", label,
				       (unsigned long long)q.a[i],
				       want ? want : "(none)",
				       (unsigned long long)off,
				       got ? got : "(none)",
				       (unsigned long long)goff);
		}
	}
	printf("# %s: %zu addresses, %zu named, %zu left to libdwfl, %zu "
	       "differ, %.1f s\n", label, q.n, named, asked, bad,
	       (double)clock() / CLOCKS_PER_SEC);
	snprintf(what, sizeof(what), "%s: same as dwfl_module_addrinfo", label);
	CHECK(what, bad == 0 && q.n > 0);
	/* the index answers nearly all itself (libdwfl's rare cases aside) */
	snprintf(what, sizeof(what), "%s: the index answers", label);
	CHECK(what, asked * 100 <= q.n);
	free(q.a);
}

static Dwfl_Module *report(Dwfl **dw, const char *path, uint64_t base)
{
	Dwfl_Module *m;

	if (!(*dw = dwfl_begin(&offline)))
		return NULL;
	dwfl_report_begin(*dw);
	m = dwfl_report_elf(*dw, path, path, -1, base, false);
	dwfl_report_end(*dw, NULL, NULL);
	return m;
}

/* The module of this process holding addr */
static Dwfl_Module *self_module(Dwfl *self, const void *addr)
{
	return self ? dwfl_addrmodule(self, (Dwarf_Addr)(uintptr_t)addr) :
		      NULL;
}

static void check_file(const char *name, const char *path, Dwfl *self,
		       const void *inside)
{
	Dwfl *a = NULL, *b = NULL;
	struct sfc_symidx_set *set = NULL;
	struct sfc_symidx *x = NULL, *x2 = NULL;
	char label[300];

	if (access(path, R_OK)) {
		printf("SKIP: symidx-%s: no %s\n", name, path);
		return;
	}
	Dwfl_Module *ma = report(&a, path, 0x10000000);
	Dwfl_Module *mb = report(&b, path, 0x7f3a5c200000);
	snprintf(label, sizeof(label), "symidx-%s-open", name);
	CHECK(label, ma && mb && !sfc__symidx_get(&set, ma, &x) && x &&
		     !sfc__symidx_get(&set, mb, &x2));
	if (!ma || !mb || !x)
		goto out;
	/* one file, one index, whatever its load address */
	snprintf(label, sizeof(label), "symidx-%s-shared", name);
	CHECK(label, x2 == x);
	snprintf(label, sizeof(label), "symidx-%s", name);
	compare(label, x, ma);
	snprintf(label, sizeof(label), "symidx-%s-moved", name);
	compare(label, x, mb);
	Dwfl_Module *ms = self_module(self, inside);
	if (ms) {
		snprintf(label, sizeof(label), "symidx-%s-live", name);
		compare(label, x, ms);
	}
out:
	sfc__symidx_set_free(set);
	if (a)
		dwfl_end(a);
	if (b)
		dwfl_end(b);
}

/* the file of this process's module holding addr */
static const char *self_path(Dwfl *self, const void *addr)
{
	const char *path = NULL;
	Dwfl_Module *m = self_module(self, addr);
	Dwarf_Addr bias;

	if (m && dwfl_module_getelf(m, &bias))
		dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &path, NULL);
	return path;
}

int main(void)
{
	char exe[4096], dir[4200], cmd[9000];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *top = getenv("TOP"), *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/t_symidx.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");

	elf_version(EV_CURRENT);
	Dwfl *self = dwfl_begin(&live);
	if (self) {
		dwfl_report_begin(self);
		dwfl_linux_proc_report(self, getpid());
		dwfl_report_end(self, NULL, NULL);
	}
	if (n > 0) {
		exe[n] = 0;
		check_file("self", exe, self, (const void *)main);
	}
	const char *p;
	if ((p = self_path(self, (const void *)printf)))
		check_file("libc", p, self, (const void *)printf);
	else
		printf("SKIP: symidx-libc: not found in this process\n");
	if ((p = self_path(self, (const void *)dwfl_begin)))
		check_file("libdw", p, self, (const void *)dwfl_begin);
	check_file("ld.so", "/lib64/ld-linux-x86-64.so.2", NULL, NULL);
	check_file("libstdc++", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		   NULL, NULL);
	check_file("cc1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", NULL, NULL);

	/* the capture tests' target, built as they build it */
	if (!top || system("cc --version >/dev/null 2>&1") || !mkdtemp(dir)) {
		printf("SKIP: symidx-target: no compiler or no TOP\n");
	} else {
		snprintf(cmd, sizeof(cmd),
			 "cc -O2 -g -pthread -o %s/target "
			 "'%s/tests/fixtures/capture/target.c' && "
			 "cc -O2 -s -pthread -o %s/target-stripped "
			 "'%s/tests/fixtures/capture/target.c'",
			 dir, top, dir, top);
		if (system(cmd)) {
			printf("SKIP: symidx-target: the target did not "
			       "build\n");
		} else {
			snprintf(cmd, sizeof(cmd), "%s/target", dir);
			check_file("target", cmd, NULL, NULL);
			snprintf(cmd, sizeof(cmd), "%s/target-stripped", dir);
			check_file("target-stripped", cmd, NULL, NULL);
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	if (self)
		dwfl_end(self);
	return unit_failed;
}
