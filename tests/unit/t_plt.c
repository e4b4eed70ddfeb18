/*
 * t_plt - sfcapture names a pc inside a PLT entry "name@plt"
 * (sampler-core/plt.c) as objdump labels the entries: every PLT entry of this
 * program's own executable, at its first and last byte.
 */
#include "unit.h"
#include "name.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	char exe[4096], cmd[4200], line[512], buf[300];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int checked = 0;

#if !defined(__x86_64__)
	printf("SKIP: plt-names: PLT entries are decoded on x86-64 only\n");
	return 0;
#endif
	if (n <= 0 || system("objdump --version >/dev/null 2>&1")) {
		printf("SKIP: plt-names: no objdump to compare with\n");
		return 0;
	}
	exe[n] = 0;
	elf_version(EV_CURRENT);
	int fd = open(exe, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	CHECK("plt-open", elf != NULL);
	if (!elf)
		return 1;
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 exe);
	FILE *p = popen(cmd, "r");
	/* "0000000000001030 <clock@plt>:" */
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char name[300];
		size_t nl;
		/* not "first@plt-0x10" (the resolver's entry) */
		if (sscanf(line, "%llx <%299[^>]>:", &a, name) != 2 ||
		    (nl = strlen(name)) < 5 || strcmp(name + nl - 4, "@plt"))
			continue;
		const char *got = sfc__plt_name(elf, a, buf, sizeof(buf));
		char label[400];
		snprintf(label, sizeof(label), "plt-names %s", name);
		CHECK_STR(label, name, got);
		/* the last byte of an 8-byte entry is still that entry */
		got = sfc__plt_name(elf, a + 7, buf, sizeof(buf));
		snprintf(label, sizeof(label), "plt-names %s+7", name);
		CHECK_STR(label, name, got);
		checked++;
	}
	if (p)
		pclose(p);
	CHECK("plt-names-some", checked > 0);
	/* not a PLT entry: main itself */
	GElf_Ehdr eh;
	CHECK("plt-not-an-entry", gelf_getehdr(elf, &eh) &&
	      sfc__plt_name(elf, eh.e_entry, buf, sizeof(buf)) == NULL);
	elf_end(elf);
	close(fd);
	return unit_failed;
}
