/* options.c - the capture options from their command-line text, so that
 * sfcapture's main only maps its option table onto them. */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sfc_options_init(struct sfc_options *o)
{
	memset(o, 0, sizeof(*o));
	o->hz = 100;
	o->unwind = SFC_UNWIND_DWARF;
	o->stack_bytes = 32 * 1024;
	o->max_frames = 512;
	o->stop_timeout_ns = 20 * 1000000;
}

static int positive(struct sf_ctx *ctx, const char *name, const char *v,
		    double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !(*out > 0) || *out > max)
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"option '--%s' needs a positive number", name);
	return 0;
}

/* "12,34": a malloc'ed list of positive ids. */
static int parse_tids(const char *s, pid_t **out, size_t *n)
{
	size_t cap = 1;

	for (const char *q = s; *q; q++)
		cap += *q == ',';
	if (!(*out = calloc(cap, sizeof(pid_t))))
		return -1;
	*n = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v <= 0 || (*end && *end != ','))
			return -1;
		(*out)[(*n)++] = (pid_t)v;
		s = *end ? end + 1 : end;
	}
	return *n ? 0 : -1;
}

int sfc_options_set(struct sfc_options *o, struct sf_ctx *ctx,
		    const char *name, const char *value)
{
	double v;

	if (!strcmp(name, "pid")) {
		/* repeatable, and a comma list: every process is sampled */
		pid_t *ids = NULL;
		size_t n = 0;
		if (parse_tids(value, &ids, &n)) {
			free(ids);
			return sf_error(ctx, SF_EUSAGE, NULL, 0, "option "
					"'--pid' needs process ids separated "
					"by commas");
		}
		pid_t *all = sf_reallocarray((void *)o->pids, o->npids + n,
					     sizeof(*all));
		if (!all) {
			free(ids);
			return sf_error_nomem(ctx);
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			while (k < o->npids && all[k] != ids[i])
				k++;
			if (k == o->npids)
				all[o->npids++] = ids[i];
		}
		free(ids);
		o->pids = all;
		o->pid = all[0];
	} else if (!strcmp(name, "children")) {
		o->children = true;
	} else if (!strcmp(name, "frequency")) {
		if (positive(ctx, name, value, 1e9, &o->hz))
			return SF_EUSAGE;
	} else if (!strcmp(name, "duration")) {
		if (positive(ctx, name, value, 1e9, &v))
			return SF_EUSAGE;
		o->duration_ns = (int64_t)(v * 1e9);
	} else if (!strcmp(name, "stack-frames")) {
		if (positive(ctx, name, value, 65536, &v))
			return SF_EUSAGE;
		o->max_frames = (unsigned)v;
	} else if (!strcmp(name, "threads")) {
		pid_t *tids = NULL;
		if (parse_tids(value, &tids, &o->ntids)) {
			free(tids);
			return sf_error(ctx, SF_EUSAGE, NULL, 0, "option "
					"'--threads' needs thread ids "
					"separated by commas");
		}
		o->tids = tids;
	} else if (!strcmp(name, "stack-bytes")) {
		char *end;
		unsigned long long n = strtoull(value, &end, 10);
		if (*end == 'k' || *end == 'K')
			n <<= 10, end++;
		if (*end || n < 4096 || n > 256 * 1024)
			return sf_error(ctx, SF_EUSAGE, NULL, 0, "option "
					"'--stack-bytes' needs a size from 4K "
					"to 256K");
		o->stack_bytes = (size_t)n;
	} else if (!strcmp(name, "unwind")) {
		if (!strcmp(value, "fp"))
			o->unwind = SFC_UNWIND_FP;
		else if (!strcmp(value, "dwarf"))
			o->unwind = SFC_UNWIND_DWARF;
		else
			return sf_error(ctx, SF_EUSAGE, NULL, 0, "option "
					"'--unwind' needs 'dwarf' or 'fp'");
	} else if (!strcmp(name, "on-cpu")) {
		o->on_cpu = true;
	} else if (!strcmp(name, "all-stop")) {
		o->all_stop = true;
	} else if (!strcmp(name, "lines")) {
		o->source_lines = true;
	} else if (!strcmp(name, "no-demangle")) {
		o->no_demangle = true;
	} else if (!strcmp(name, "no-boost")) {
		o->no_boost = true;
	} else if (!strcmp(name, "no-python")) {
		o->no_python = true;
	} else if (!strcmp(name, "no-children")) {
		o->no_children = true;
	} else if (!strcmp(name, "no-reuse")) {
		o->no_reuse = true;
	} else if (!strcmp(name, "no-peek")) {
		o->no_peek = true;
	} else if (!strcmp(name, "no-perf")) {
		o->no_perf = true;
	} else if (!strcmp(name, "verify-reuse")) {
		o->verify_reuse = true;
	} else if (!strcmp(name, "verify-symbols")) {
		o->verify_symbols = true;
	} else {
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"unknown capture option '--%s'", name);
	}
	return 0;
}
