/*
 * units.c - weights written for people: the sample type's unit scaled the
 * way pprof scales it (measurement.ScaledLabel), so a number here reads
 * like the same number in `pprof -top`.
 */
#include "analyze.h"
#include "an_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct scale {
	const char *label;
	double factor;   /* in the family's base unit */
};

static const struct scale time_scales[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "hrs", 3600e9 }, { NULL, 0 }
};
static const struct scale byte_scales[] = {
	{ "B", 1 }, { "kB", 1024.0 }, { "MB", 1048576.0 },
	{ "GB", 1073741824.0 }, { "TB", 1099511627776.0 },
	{ "PB", 1125899906842624.0 }, { NULL, 0 }
};
/* counts stay plain up to COUNT_PLAIN, so small reports keep exact
 * integers; beyond, k/M/G as a person reads them */
#define COUNT_PLAIN 1e5
static const struct scale count_scales[] = {
	{ "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
	{ NULL, 0 }
};

struct alias {
	const char *name;   /* lower case, a final 's' removed (pprof's sniff) */
	const struct scale *family;
	double factor;
};

static const struct alias aliases[] = {
	{ "n", time_scales, 1 }, { "nanosecond", time_scales, 1 },
	{ "u", time_scales, 1e3 }, { "microsecond", time_scales, 1e3 },
	{ "m", time_scales, 1e6 }, { "millisecond", time_scales, 1e6 },
	{ "s", time_scales, 1e9 }, { "sec", time_scales, 1e9 },
	{ "second", time_scales, 1e9 },
	{ "b", byte_scales, 1 }, { "byte", byte_scales, 1 },
	{ "kb", byte_scales, 1024.0 }, { "kilobyte", byte_scales, 1024.0 },
	{ "mb", byte_scales, 1048576.0 }, { "megabyte", byte_scales, 1048576.0 },
	{ "count", count_scales, 1 }, { "event", count_scales, 1 },
	{ "sample", count_scales, 1 },
	{ NULL, NULL, 0 }
};

static const struct alias *sniff(const char *unit)
{
	char low[32];
	size_t n = unit ? strlen(unit) : 0;

	if (!n || n >= sizeof(low))
		return NULL;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)(unit[i] >= 'A' && unit[i] <= 'Z' ?
					unit[i] - 'A' + 'a' : unit[i]);
	low[n] = 0;
	/* "ns", "us", "ms" are two letters: pprof drops the 's' only
	 * beyond two, so map them here by hand */
	if (!strcmp(low, "ns") || !strcmp(low, "us") || !strcmp(low, "ms"))
		low[1] = 0;
	else if (n > 2 && low[n - 1] == 's')
		low[n - 1] = 0;
	for (const struct alias *a = aliases; a->name; a++)
		if (!strcmp(a->name, low))
			return a;
	return NULL;
}

const char *sf_an_unit_family(const char *unit)
{
	const struct alias *a = sniff(unit);

	if (!a)
		return "other";
	return a->family == time_scales ? "time" :
	       a->family == byte_scales ? "bytes" : "count";
}

void sf_an_fmt_unit(char *buf, size_t size, double v, const char *unit,
		    bool raw)
{
	const struct alias *a = raw ? NULL : sniff(unit);

	if (!a || !isfinite(v) || v == 0 ||
	    (a->family == count_scales && fabs(v) < COUNT_PLAIN)) {
		sf_an_fmt(buf, size, v);
		return;
	}
	double base = fabs(v) * a->factor;
	const struct scale *pick = &a->family[0];
	for (const struct scale *s = a->family; s->label; s++)
		if (base / s->factor >= 1.0)
			pick = s;
	int n = snprintf(buf, size, "%.2f", base / pick->factor);
	/* pprof trims ".00" only, so 1.50s keeps its zero */
	if (n >= 3 && (size_t)n < size && !strcmp(buf + n - 3, ".00"))
		buf[n -= 3] = 0;
	if (!strcmp(buf, "0")) {
		snprintf(buf, size, "0");
		return;
	}
	if (v < 0 && (size_t)n + 1 < size) {
		memmove(buf + 1, buf, (size_t)n + 1);
		buf[0] = '-';
	}
	size_t len = strlen(buf);
	snprintf(buf + len, size - len, "%s", pick->label);
}

void sf_an_fmt_w(char *buf, size_t size, sf_an_w v, int exp,
		 const char *unit, bool raw)
{
	sf_an_fmt_unit(buf, size, sf_an_double(v, exp), unit, raw);
}

/* "PREFIXtype", "PREFIXunit", "PREFIXsamples" of v */
static void put_kind(struct sf_output *o, const char *prefix,
		     const struct sf_an_view *v)
{
	sf_output_printf(o, "\"%stype\":", prefix);
	sf_an_put_json_str(o, v->type);
	sf_output_printf(o, ",\"%sunit\":", prefix);
	sf_an_put_json_str(o, v->unit);
	sf_output_printf(o, ",\"%ssamples\":", prefix);
	sf_output_u64(o, v->nraw);
}

void sf_an__put_json_kind(struct sf_output *o, const struct sf_an_view *v)
{
	put_kind(o, "", v);
}

void sf_an__put_json_diff_kind(struct sf_output *o,
			       const struct sf_an_view *base,
			       const struct sf_an_view *cur)
{
	put_kind(o, "", cur);
	sf_output_putc(o, ',');
	put_kind(o, "base_", base);
}
