/*
 * t_fuzz_replay.c - replay every fuzz seed and every kept crash reproducer
 * through the fuzz targets' own LLVMFuzzerTestOneInput, without libFuzzer
 * (the standalone-driver idea of libgit2's fuzzers/standalone_driver.c).
 *
 *   t_fuzz_replay                  replay tests/fuzz/{corpus,crashes}/NAME/
 *                                  for every readable format and "detect";
 *                                  every format's seeds and the kept
 *                                  crashes through "parallel" and
 *                                  "roundtrip-W" for every W that reads
 *                                  and writes
 *   t_fuzz_replay NAME FILE...     feed FILEs to target NAME (reproduce a
 *                                  crash under a debugger)
 *
 * Each file runs in a child process, so a crash names its file and the
 * other files still run.  The source tree is $TOP (set by tests/run.sh).
 */
#include "unit.h"
#include "../fuzz/fuzz_read.c"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int feed(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *d = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (cap - n < 65536) {
			unsigned char *nd = realloc(d, cap = cap * 2 + 65536);
			if (!nd) {
				free(d);
				fclose(f);
				return -1;
			}
			d = nd;
		}
		size_t r = fread(d + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(d, n);
	free(d);
	return 0;
}

/* Run one file in a child; 0 if it ended normally. */
static int replay_file(const char *path, char *why, size_t size)
{
	pid_t pid;
	int st;

	fflush(stdout);
	if ((pid = fork()) < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		_exit(feed(path) ? 2 : 0);
	if (waitpid(pid, &st, 0) < 0) {
		snprintf(why, size, "waitpid: %s", strerror(errno));
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(why, size, "%s: killed by signal %d", path,
			 WTERMSIG(st));
	else
		snprintf(why, size, "%s: exit status %d", path,
			 WEXITSTATUS(st));
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file of dir; -1 if the directory is missing. */
static int replay_dir(const char *dir, const char *target, const char *test)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, failed = 0;
	char why[1024] = "";

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap * 2 + 64) *
						    sizeof(*nn));
			if (!nn)
				break;
			names = nn;
		}
		names[n++] = strdup(path);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	fuzz_format = target;
	for (size_t i = 0; i < n; i++) {
		char w[1024];
		if (replay_file(names[i], w, sizeof(w))) {
			if (!failed++)
				snprintf(why, sizeof(why), "%s", w);
		}
		free(names[i]);
	}
	free(names);
	if (failed) {
		printf("FAIL: %s: %zu of %zu files failed, first %s\n", test,
		       failed, n, why);
		unit_failed = 1;
	} else {
		printf("PASS: %s (%zu files)\n", test, n);
	}
	return 0;
}

static void replay_target(const char *top, const char *target)
{
	char dir[4096], test[256];

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top, target);
	snprintf(test, sizeof(test), "fuzz-replay-corpus-%s", target);
	if (replay_dir(dir, target, test))
		printf("SKIP: %s: no seed corpus in tests/fuzz/corpus/%s/ "
		       "(add a few small valid inputs)\n", test, target);
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/%s", top, target);
	snprintf(test, sizeof(test), "fuzz-replay-crashes-%s", target);
	replay_dir(dir, target, test);   /* none kept is fine */
}

/* Every readable format's seeds, then the kept crashes of `target`,
 * through `target` (which takes any format). */
static void replay_every(const char *top, const char *target)
{
	const struct sf_format *const *t = sf_formats();
	char dir[4096], test[256];

	for (size_t i = 0; t[i]; i++) {
		if (!t[i]->read)
			continue;
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top,
			 t[i]->name);
		snprintf(test, sizeof(test), "fuzz-replay-corpus-%s-as-%s",
			 t[i]->name, target);
		replay_dir(dir, target, test);
	}
	if (strcmp(target, "detect")) {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/%s", top,
			 target);
		snprintf(test, sizeof(test), "fuzz-replay-crashes-%s", target);
		replay_dir(dir, target, test);
	}
}

int main(int argc, char **argv)
{
	const struct sf_format *const *t = sf_formats();
	const char *top = getenv("TOP");

	if (argc >= 3) {
		fuzz_format = argv[1];
		for (int i = 2; i < argc; i++) {
			fprintf(stderr, "%s\n", argv[i]);
			if (feed(argv[i]))
				return 2;
		}
		return 0;
	}
	if (!top)
		top = ".";
	for (size_t i = 0; t[i]; i++)
		if (t[i]->read)
			replay_target(top, t[i]->name);
	replay_target(top, "detect");
	/* the detector's seeds are every format's seeds too */
	replay_every(top, "detect");
	replay_every(top, "parallel");
	/* and every perf script fixture: -j1 and -j2 read it alike */
	{
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/tests/fixtures/perf", top);
		replay_dir(dir, "parallel",
			   "fuzz-replay-perf-fixtures-as-parallel");
	}
	for (size_t i = 0; t[i]; i++) {
		static char name[64];
		if (!t[i]->read || !t[i]->write)
			continue;
		snprintf(name, sizeof(name), "roundtrip-%s", t[i]->name);
		replay_every(top, name);
	}
	return unit_failed;
}
