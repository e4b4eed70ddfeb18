/*
 * fmt_json.c - the native, lossless JSON form of the model
 * ("format": "sftools-profile", "version": 1).  docs/profile.schema.json is
 * the schema; docs/formats.md explains each member.
 *
 * This file holds the format entry and the probe.  The reader streams
 * with yajl's event parser: json_fast.c is its read loop and layout fast
 * path, json_events.c its handling of yajl's events (their shared state:
 * json_read.h), json_scan.c its input bounds; json_write.c is the writer.
 * Calls go one way: this file calls the reader and the writer, the read
 * loop calls the events, nothing calls back up.
 */
#include "json.h"

#include <string.h>

static int json_probe(const unsigned char *d, size_t n)
{
	size_t i = sf_probe_skip_space(d, n);

	if (i >= n || d[i] != '{')
		return 0;
	/* the marker may come after other members in foreign files */
	if (memmem(d + i, n - i, "\"sftools-profile\"", 17))
		return 90;
	return 0;
}

static const char *const json_ext[] = { ".json", NULL };

const struct sf_format sf_format_json = {
	.name = "json",
	.description = "sftools native JSON, lossless (docs/profile.schema.json)",
	.extensions = json_ext,
	.probe = json_probe,
	.read = sf_json__read,
	.write = sf_json__write,
	.caps = SF_CAP_THREADS | SF_CAP_TIME | SF_CAP_WEIGHTS | SF_CAP_TYPES |
		SF_CAP_INLINE | SF_CAP_LOCATIONS | SF_CAP_LABELS |
		SF_CAP_ORDER,
	.needs_order = true,
	.priority = 5,
};
