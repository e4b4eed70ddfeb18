/*
 * t_plt - sfcapture names a pc inside a PLT entry "name@plt"
 * (sampler-core/plt.c) as objdump labels the entries: every PLT entry of
 * this program's own executable and of the libc it runs with, at its first
 * and last byte.  Where objdump's label is "*ABS*+0xADDR@plt" (an
 * R_X86_64_IRELATIVE slot: libc's string functions, filled by their IFUNC
 * resolvers), the name is the function readelf lists at ADDR: of the
 * FUNC and IFUNC symbols there, the most strongly bound, an IFUNC before
 * a FUNC (its resolver) at one binding, the first listed among equals;
 * objdump's label where readelf lists none.  Then two programs built
 * here: one with a file-local IFUNC (its entry is the IFUNC's, not its
 * resolver's), dynamic and static.  A static executable's .plt is a
 * table of 8-byte IRELATIVE stubs that objdump does not label: each
 * stub's slot (objdump's comment on its jump) gives the addend (readelf
 * -r), and that the function.
 */
#include "unit.h"
#include "name.h"

#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

/* readelf's name for the function at addr in path's .dynsym (then its
 * .symtab), without the version; 0 if none */
static int readelf_func(const char *path, unsigned long long addr,
			char *out, size_t size)
{
	static const char *const tabs[] = { "--dyn-syms", "--syms" };

	for (int t = 0; t < 2; t++) {
		char cmd[4200], line[1024];
		int best = -1;
		snprintf(cmd, sizeof(cmd), "readelf -W %s '%s' 2>/dev/null",
			 tabs[t], path);
		FILE *p = popen(cmd, "r");
		/* "  2450: 000000000009c840   241 IFUNC   GLOBAL DEFAULT   16
		 * memset@@GLIBC_2.2.5", one line */
		while (p && fgets(line, sizeof(line), p)) {
			unsigned long long v;
			char type[32], bind[32], vis[32], ndx[32], name[256];
			int r;
			if (sscanf(line, " %*u: %llx %*s %31s %31s %31s %31s %255s",
				   &v, type, bind, vis, ndx, name) != 6 ||
			    v != addr || !strcmp(ndx, "UND") ||
			    (strcmp(type, "FUNC") && strcmp(type, "IFUNC")))
				continue;
			r = 2 * (!strcmp(bind, "GLOBAL") ? 3 :
				 !strcmp(bind, "WEAK") ? 2 :
				 !strcmp(bind, "LOCAL") ? 1 : 0) +
			    !strcmp(type, "IFUNC");
			if (r <= best)
				continue;
			best = r;
			name[strcspn(name, "@")] = 0;
			snprintf(out, size, "%s", name);
		}
		if (p)
			pclose(p);
		if (best >= 0)
			return 1;
	}
	return 0;
}

/* path opened for libelf, checked as "plt-open TAG": the Elf (NULL if
 * it cannot be read, nothing left open then), its descriptor in *fd */
static Elf *open_elf(const char *path, const char *tag, int *fd)
{
	char name[300];
	Elf *elf;

	*fd = open(path, O_RDONLY);
	elf = *fd >= 0 ? elf_begin(*fd, ELF_C_READ, NULL) : NULL;
	snprintf(name, sizeof(name), "plt-open %s", tag);
	CHECK(name, elf != NULL);
	if (!elf && *fd >= 0)
		close(*fd);
	return elf;
}

/* every entry objdump labels in path; the number checked */
static int check_file(const char *path, const char *tag, int *irelative)
{
	char cmd[4200], line[512], buf[300];
	int checked = 0, fd;
	Elf *elf = open_elf(path, tag, &fd);

	if (!elf)
		return 0;
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 path);
	FILE *p = popen(cmd, "r");
	/* "0000000000001030 <clock@plt>:" */
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long a, abs;
		char name[300], want[320], label[400];
		size_t nl;
		/* not "first@plt-0x10" (the resolver's entry) */
		if (sscanf(line, "%llx <%299[^>]>:", &a, name) != 2 ||
		    (nl = strlen(name)) < 5 || strcmp(name + nl - 4, "@plt"))
			continue;
		snprintf(want, sizeof(want), "%s", name);
		if (sscanf(name, "*ABS*+0x%llx@plt", &abs) == 1) {
			char fn[256];
			if (readelf_func(path, abs, fn, sizeof(fn)))
				snprintf(want, sizeof(want), "%s@plt", fn);
			(*irelative)++;
		}
		const char *got = sfc__plt_name(elf, a, buf, sizeof(buf));
		snprintf(label, sizeof(label), "plt-names %s %s", tag, name);
		CHECK_STR(label, want, got);
		/* the last byte of an 8-byte entry is still that entry */
		got = sfc__plt_name(elf, a + 7, buf, sizeof(buf));
		snprintf(label, sizeof(label), "plt-names %s %s+7", tag, name);
		CHECK_STR(label, want, got);
		checked++;
	}
	if (p)
		pclose(p);
	/* not a PLT entry: the entry point */
	GElf_Ehdr eh;
	snprintf(line, sizeof(line), "plt-not-an-entry %s", tag);
	CHECK(line, gelf_getehdr(elf, &eh) &&
	      sfc__plt_name(elf, eh.e_entry, buf, sizeof(buf)) == NULL);
	elf_end(elf);
	close(fd);
	return checked;
}

/* The addend of the IRELATIVE relocation of GOT slot `slot` in path
 * (readelf -r); 0 if none */
static int readelf_irelative(const char *path, unsigned long long slot,
			     unsigned long long *addend)
{
	char cmd[4200], line[1024];
	int found = 0;

	snprintf(cmd, sizeof(cmd), "readelf -rW '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	/* "00000000004a40b8  0000000000000025 R_X86_64_IRELATIVE   41e470" */
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long off, a;
		char type[64];
		if (sscanf(line, "%llx %*x %63s %llx", &off, type, &a) == 3 &&
		    off == slot && !strcmp(type, "R_X86_64_IRELATIVE")) {
			*addend = a;
			found = 1;
		}
	}
	if (p)
		pclose(p);
	return found;
}

/* A static executable: every stub of its .plt, at its first and last
 * byte, as objdump and readelf read `path` and sfcapture reads `file`
 * (path or a copy); the number checked */
static int check_static(const char *path, const char *file)
{
	char cmd[4200], line[512], buf[300];
	int checked = 0, fd;
	const char *tag = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	Elf *elf = open_elf(file, tag, &fd);

	if (!elf)
		return 0;
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	/* "  401020:	ff 25 e2 2f 0a 00    	jmp    *0xa2fe2(%rip)
	 *   # 4a4008 <...>", one line */
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long a, slot, addend;
		char want[320], fn[256], label[400];
		const char *hash = strstr(line, "# ");
		if (!strstr(line, "jmp    *") || !strstr(line, "(%rip)") ||
		    sscanf(line, " %llx:", &a) != 1 || !hash ||
		    sscanf(hash + 2, "%llx", &slot) != 1)
			continue;
		if (!readelf_irelative(path, slot, &addend))
			continue;
		if (readelf_func(path, addend, fn, sizeof(fn)))
			snprintf(want, sizeof(want), "%s@plt", fn);
		else
			snprintf(want, sizeof(want), "*ABS*+0x%llx@plt", addend);
		snprintf(label, sizeof(label), "plt-names %s %llx", tag, a);
		CHECK_STR(label, want, sfc__plt_name(elf, a, buf, sizeof(buf)));
		snprintf(label, sizeof(label), "plt-names %s %llx+7", tag,
			 a);
		CHECK_STR(label, want,
			  sfc__plt_name(elf, a + 7, buf, sizeof(buf)));
		checked++;
	}
	if (p)
		pclose(p);
	elf_end(elf);
	close(fd);
	return checked;
}

/* A copy of the ELF file `from` at `to` whose .rela.plt names a symbol
 * table that is not there (sh_link 9999); 0 when made */
static int bad_link_copy(const char *from, const char *to)
{
	int rc = -1;
	FILE *f = fopen(from, "rb");
	long size;
	unsigned char *b = NULL;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(b = malloc((size_t)size)) ||
	    fread(b, 1, (size_t)size, f) != (size_t)size)
		goto out;
	Elf64_Ehdr eh;
	memcpy(&eh, b, sizeof(eh));
	if (eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) >
	    (uint64_t)size || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	Elf64_Shdr str;
	memcpy(&str, b + eh.e_shoff + eh.e_shstrndx * sizeof(str),
	       sizeof(str));
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		unsigned char *at = b + eh.e_shoff + i * sizeof(sh);
		memcpy(&sh, at, sizeof(sh));
		if (str.sh_offset + sh.sh_name + 10 <= (uint64_t)size &&
		    !memcmp(b + str.sh_offset + sh.sh_name, ".rela.plt", 10)) {
			sh.sh_link = 9999;
			memcpy(at, &sh, sizeof(sh));
			rc = 0;
		}
	}
	FILE *o = rc ? NULL : fopen(to, "wb");
	if (!o || fwrite(b, 1, (size_t)size, o) != (size_t)size)
		rc = -1;
	if (o && fclose(o))
		rc = -1;
out:
	if (f)
		fclose(f);
	free(b);
	return rc;
}

/* A program with a file-local IFUNC, calling memset and strlen */
static const char ifunc_src[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"static int foo_impl(int x) { return x + 1; }\n"
	"static void *resolve_foo(void) { return (void *)foo_impl; }\n"
	"static int foo(int) __attribute__((ifunc(\"resolve_foo\")));\n"
	"int main(int argc, char **argv)\n{\n\tchar b[64];\n"
	"\tmemset(b, argc, sizeof(b));\n"
	"\tprintf(\"%zu %d\\n\", strlen(argv[0]) + b[3], foo(argc));\n"
	"\treturn 0;\n}\n";

/* The programs above, built in a directory of their own; checked */
static void check_built(void)
{
	char dir[] = "/tmp/t_plt.XXXXXX", cmd[512], path[256];
	int irelative = 0;

	if (system("cc --version >/dev/null 2>&1")) {
		printf("SKIP: plt-names-built: no cc\n");
		return;
	}
	if (!mkdtemp(dir)) {
		CHECK("plt-built-dir", 0);
		return;
	}
	snprintf(path, sizeof(path), "%s/ifunc.c", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(ifunc_src, f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "cc -O0 -o %s/dyn %s/ifunc.c", dir, dir);
	CHECK("plt-built-dynamic", f && !system(cmd));
	snprintf(path, sizeof(path), "%s/dyn", dir);
	check_file(path, "local-ifunc", &irelative);
	/* its own IFUNC's entry: objdump's *ABS*+0xADDR@plt */
	CHECK("plt-names-irelative local-ifunc", irelative > 0);
	snprintf(cmd, sizeof(cmd),
		 "cc -static -O0 -o %s/static %s/ifunc.c 2>/dev/null", dir, dir);
	if (system(cmd)) {
		printf("SKIP: plt-names-static: cc -static fails "
		       "(no static libc)\n");
	} else {
		snprintf(path, sizeof(path), "%s/static", dir);
		CHECK("plt-names-some static", check_static(path, path) > 0);
		/* an IRELATIVE slot needs no symbol table: a .rela.plt
		 * whose link is broken still names the stubs as in the
		 * original (which objdump reads: it refuses the copy) */
		char bad[256];
		snprintf(bad, sizeof(bad), "%s/static-bad-link", dir);
		CHECK("plt-bad-link-copy", !bad_link_copy(path, bad));
		CHECK("plt-names-some static-bad-link",
		      check_static(path, bad) > 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("note: %s left behind\n", dir);
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so")) {
		snprintf(data, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

int main(void)
{
	char exe[4096], libc[4096] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int irelative = 0, own;

#if !defined(__x86_64__)
	printf("SKIP: plt-names: PLT entries are decoded on x86-64 only\n");
	return 0;
#endif
	if (n <= 0 || system("objdump --version >/dev/null 2>&1") ||
	    system("readelf --version >/dev/null 2>&1")) {
		printf("SKIP: plt-names: no objdump and readelf to compare with\n");
		return 0;
	}
	exe[n] = 0;
	elf_version(EV_CURRENT);
	own = check_file(exe, "exe", &irelative);
	CHECK("plt-names-some exe", own > 0);
	dl_iterate_phdr(find_libc, libc);
	CHECK("plt-libc-found", libc[0] != 0);
	if (libc[0]) {
		int before = irelative;
		CHECK("plt-names-some libc", check_file(libc, "libc", &irelative) > 0);
		/* glibc fills its string functions' slots with IRELATIVE */
		CHECK("plt-names-irelative libc", irelative > before);
	}
	check_built();
	return unit_failed;
}
