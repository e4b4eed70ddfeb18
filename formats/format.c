/* format.c - the format table and detection. */
#include "format.h"

#include <stdlib.h>
#include <string.h>

/* table.gen.h is written by the Makefile: one SF_FORMAT(name) line per
 * `const struct sf_format sf_format_NAME` defined in formats/fmt_*.c or
 * formats/DIR/fmt_*.c. */
#define SF_FORMAT(n) extern const struct sf_format sf_format_##n;
#include "table.gen.h"
#undef SF_FORMAT

static const struct sf_format *const table[] = {
#define SF_FORMAT(n) &sf_format_##n,
#include "table.gen.h"
#undef SF_FORMAT
	NULL
};

const struct sf_format *const *sf_formats(void)
{
	return table;
}

const struct sf_format *sf_format_by_name(const char *name)
{
	for (size_t i = 0; table[i]; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

/* Does `path` end with `ext`?  A trailing '*' in ext makes it a prefix of
 * the base name ("callgrind.out.*"). */
static size_t ext_match(const char *path, const char *ext)
{
	size_t pl = strlen(path), el = strlen(ext);

	if (el && ext[el - 1] == '*') {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		return !strncmp(base, ext, el - 1) ? el - 1 : 0;
	}
	if (pl >= el && !strcmp(path + pl - el, ext))
		return el;
	return 0;
}

const struct sf_format *sf_format_by_path(const char *path, bool for_write)
{
	const struct sf_format *best = NULL;
	size_t best_len = 0;
	char *trimmed = NULL;

	if (!path)
		return NULL;
	/* "x.json.gz": look at the name without ".gz" */
	size_t pl = strlen(path);
	if (pl > 3 && !strcmp(path + pl - 3, ".gz")) {
		trimmed = strndup(path, pl - 3);
		if (!trimmed)
			return NULL;
		path = trimmed;
	}
	for (size_t i = 0; table[i]; i++) {
		const struct sf_format *f = table[i];
		if (!f->extensions || (for_write ? !f->write : !f->read))
			continue;
		for (size_t j = 0; f->extensions[j]; j++) {
			size_t m = ext_match(path, f->extensions[j]);
			if (m > best_len) {
				best = f;
				best_len = m;
			}
		}
	}
	free(trimmed);
	return best;
}

int sf_format_detect(const struct sf_format **out, struct sf_input *in,
		     struct sf_ctx *ctx, const char *path)
{
	const unsigned char *data;
	size_t got;
	int rc, best = 0;
	const struct sf_format *pick = NULL;

	if ((rc = sf_input_peek(in, ctx, SF_PROBE_BYTES, &data, &got)))
		return rc;
	for (size_t i = 0; table[i]; i++) {
		const struct sf_format *f = table[i];
		if (!f->read || !f->probe)
			continue;
		int s = f->probe(data, got);
		if (s > best || (s == best && s > 0 && pick &&
				 f->priority > pick->priority)) {
			best = s;
			pick = f;
		}
	}
	if (!pick) {
		pick = sf_format_by_path(path, false);
		if (pick && !got)
			pick = NULL;
	}
	if (!pick) {
		if (!got)
			return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
					"empty input: no format to detect "
					"(use --from)");
		return sf_error(ctx, SF_EINPUT, sf_input_name(in), 0,
				"unrecognised input format (use --from; "
				"--list-formats shows the formats)");
	}
	*out = pick;
	return 0;
}
