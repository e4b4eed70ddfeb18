/*
 * t_fuzz_parallel.c - replay the seeds of the fuzz_parallel target
 * (tests/fuzz/corpus/parallel/, kept crashes in tests/fuzz/crashes/parallel/)
 * and every perf fixture through its LLVMFuzzerTestOneInput without
 * libFuzzer: a -j1 / -jN difference abort()s, which fails the test.
 */
#include "unit.h"
#include "../fuzz/fuzz_parallel.c"

#include <dirent.h>

static size_t replay(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[4096];
		size_t len = strlen(e->d_name), sl = strlen(suffix);
		if (e->d_name[0] == '.' || len < sl ||
		    strcmp(e->d_name + len - sl, suffix))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		static unsigned char buf[1 << 20];
		size_t got = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, got);
		n++;
	}
	closedir(d);
	return n;
}

int main(void)
{
	const char *top = getenv("TOP");
	char dir[4096];
	size_t n;

	if (!top)
		top = ".";
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/parallel", top);
	n = replay(dir, "");
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/parallel", top);
	n += replay(dir, "");
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/perf", top);
	n += replay(dir, ".perf");
	CHECK("fuzz-parallel-replay (-j1 = -j2 = -j3 on seeds and perf fixtures)",
	      n >= 5);
	return unit_failed;
}
