/*
 * svg_colour.c - the fills of a flame graph: flamegraph.pl's palettes
 * with its formulas, its name hash (--hash), a fixed-seed random mode
 * (--random), the consistent palette file (--cp), background gradients
 * (--bgcolors) and the differential scale.
 */
#include "svg.h"
#include "hash.h"
#include "chars.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette_names[] = {
	"hot", "mem", "io", "wakeup", "chain", "red", "green", "blue",
	"aqua", "yellow", "purple", "orange", "java", "js", "perl", NULL
};

const char sf_svg__palette_list[] =
	"hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, "
	"aqua, yellow, purple, orange";

int sf_svg__palette_parse(const char *name, enum svg_palette *out)
{
	for (int i = 0; palette_names[i]; i++)
		if (!strcmp(name, palette_names[i])) {
			*out = (enum svg_palette)i;
			return 0;
		}
	return -1;
}

static bool is_hex6(const char *v)
{
	if (v[0] != '#' || strlen(v) != 7)
		return false;
	for (int i = 1; i < 7; i++)
		if (!sf_is_hex(v[i]))
			return false;
	return true;
}

int sf_svg__bgcolors(struct svg_opts *o, const char *v, bool diff)
{
	static const struct { const char *name, *c1, *c2; } bg[] = {
		{ "yellow", "#eeeeee", "#eeeeb0" },
		{ "blue", "#eeeeee", "#e0e0ff" },
		{ "green", "#eef2ee", "#e0ffe0" },
		{ "grey", "#f8f8f8", "#e8e8e8" },
	};

	if (!v)
		v = diff || o->palette == PAL_IO || o->palette == PAL_WAKEUP ||
		    o->palette == PAL_CHAIN ? "grey" :
		    o->palette == PAL_MEM ? "blue" : "yellow";
	for (size_t i = 0; i < sizeof(bg) / sizeof(bg[0]); i++)
		if (!strcmp(v, bg[i].name)) {
			o->bg1 = bg[i].c1;
			o->bg2 = bg[i].c2;
			return 0;
		}
	if (!is_hex6(v))
		return -1;
	o->bg1 = o->bg2 = v;
	return 0;
}

/* ----- palette positions ----- */

/* flamegraph.pl's namehash over `n` bytes read forwards or backwards:
 * the first three characters, weighted early over late, after dropping a
 * "module`" prefix. */
static double namehash(const char *s, size_t n, bool backwards)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;

	for (size_t k = 0; k < n; k++) {
		unsigned char c = (unsigned char)(backwards ? s[n - 1 - k] :
						  s[k]);
		int i = c % mod;
		vector += ((double)i / (mod++ - 1)) * weight;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static void hash_values(const char *name, double v[3])
{
	/* s/.(.*?)`// : everything up to the first backtick after the
	 * first character goes (perl applies it before reversing too) */
	const char *tick = name[0] ? strchr(name + 1, '`') : NULL;
	const char *s = tick ? tick + 1 : name;
	size_t n = strlen(s);

	v[0] = namehash(s, n, false);
	v[1] = v[2] = namehash(s, n, true);
}

struct pal_entry {
	const char *name;
	char fill[24];
};

struct svg_colours {
	const struct svg_opts *o;
	uint64_t rng;
	/* --cp: the map, with an open-addressing index */
	struct pal_entry *map;
	size_t nmap, capmap;
	struct sf_idx idx;
	char **owned;       /* names read from the file */
	size_t nowned;
	bool changed;
};

static double rng_next(struct svg_colours *c)
{
	/* xorshift64*: --random needs colours not keyed by name, and the
	 * output must still be the same for the same input */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (double)((c->rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

/* ----- what kind of code a frame is ----- */

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

/* From the model's kind and flags, else from the suffixes
 * stackcollapse-perf.pl --all adds (_[k], _[j], _[i]), or a "[kernel...]"
 * module as perf names it. */
enum fkind { K_OTHER, K_KERNEL, K_JIT, K_INLINE };

static enum fkind frame_kind(const struct svg_node *nd)
{
	const char *kind = sf_svg__kind(nd), *module = sf_svg__module(nd);
	const char *name = sf_svg__name(nd);

	if (nd->flags & SF_FRAME_INLINE)
		return K_INLINE;
	if (kind) {
		if (!strcmp(kind, "kernel"))
			return K_KERNEL;
		if (!strcmp(kind, "jit"))
			return K_JIT;
		if (!strcmp(kind, "inline"))
			return K_INLINE;
	}
	if (ends_with(name, "_[k]") ||
	    (module && !strncmp(module, "[kernel", 7)))
		return K_KERNEL;
	if (ends_with(name, "_[j]"))
		return K_JIT;
	if (ends_with(name, "_[i]"))
		return K_INLINE;
	return K_OTHER;
}

static bool java_name(const char *n)
{
	static const char *const pre[] = { "java/", "javax/", "jdk/", "net/",
					   "org/", "com/", "io/", "sun/" };

	if (n[0] == 'L')
		n++;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(n, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* The multi palettes choose a single palette by the name, as
 * flamegraph.pl does. */
static enum svg_palette resolve(enum svg_palette pal,
				const struct svg_node *nd)
{
	const char *n = sf_svg__name(nd);
	enum fkind k = frame_kind(nd);

	switch (pal) {
	case PAL_WAKEUP:
		return PAL_AQUA;
	case PAL_CHAIN:
		return strstr(n, "_[w]") ? PAL_AQUA : PAL_BLUE;
	case PAL_HOT:
	case PAL_JAVA:
	case PAL_JS:
	case PAL_PERL:
		break;
	default:
		return pal;
	}
	if (k == K_KERNEL)
		return PAL_ORANGE;
	if (k == K_INLINE)
		return PAL_AQUA;
	if (k == K_JIT)
		return pal == PAL_JS && !strchr(n, '/') ? PAL_AQUA : PAL_GREEN;
	switch (pal) {
	case PAL_JAVA:
		return java_name(n) || strstr(n, ":::") ? PAL_GREEN :
		       strstr(n, "::") ? PAL_YELLOW : PAL_RED;
	case PAL_JS: {
		const char *sl = strchr(n, '/');
		return strstr(n, "::") ? PAL_YELLOW :
		       sl && strstr(sl, ".js") ? PAL_GREEN :
		       strchr(n, ':') ? PAL_AQUA :
		       !strcmp(n, " ") ? PAL_GREEN : PAL_RED;
	}
	case PAL_PERL:
		return strstr(n, "::") ? PAL_YELLOW :
		       strstr(n, "Perl") || strstr(n, ".pl") ? PAL_GREEN :
		       PAL_RED;
	default:
		return PAL_HOT;
	}
}

/* flamegraph.pl's formulas; int() truncates. */
static void base_colour(enum svg_palette pal, const double v[3], int rgb[3])
{
	double v1 = v[0], v2 = v[1], v3 = v[2];

	switch (pal) {
	case PAL_MEM:
		rgb[0] = 0; rgb[1] = 190 + (int)(50 * v2);
		rgb[2] = (int)(210 * v1);
		break;
	case PAL_IO:
		rgb[0] = 80 + (int)(60 * v1); rgb[1] = rgb[0];
		rgb[2] = 190 + (int)(55 * v2);
		break;
	case PAL_RED:
		rgb[0] = 200 + (int)(55 * v1); rgb[1] = 50 + (int)(80 * v1);
		rgb[2] = rgb[1];
		break;
	case PAL_GREEN:
		rgb[0] = 50 + (int)(60 * v1); rgb[1] = 200 + (int)(55 * v1);
		rgb[2] = rgb[0];
		break;
	case PAL_BLUE:
		rgb[0] = 80 + (int)(60 * v1); rgb[1] = rgb[0];
		rgb[2] = 205 + (int)(50 * v1);
		break;
	case PAL_AQUA:
		rgb[0] = 50 + (int)(60 * v1); rgb[1] = 165 + (int)(55 * v1);
		rgb[2] = rgb[1];
		break;
	case PAL_YELLOW:
		rgb[0] = 175 + (int)(55 * v1); rgb[1] = rgb[0];
		rgb[2] = 50 + (int)(20 * v1);
		break;
	case PAL_PURPLE:
		rgb[0] = 190 + (int)(65 * v1); rgb[1] = 80 + (int)(60 * v1);
		rgb[2] = rgb[0];
		break;
	case PAL_ORANGE:
		rgb[0] = 190 + (int)(65 * v1); rgb[1] = 90 + (int)(65 * v1);
		rgb[2] = 0;
		break;
	default:   /* hot */
		rgb[0] = 205 + (int)(50 * v3); rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
		break;
	}
}

/* ----- the consistent palette file ----- */

static bool entry_eq(const void *ctx, uint32_t id, const void *key)
{
	return !strcmp(((const struct svg_colours *)ctx)->map[id].name, key);
}

/* The entry of `name`, made (fill empty) if missing; NULL when out of
 * memory. */
static struct pal_entry *map_find(struct svg_colours *c, const char *name)
{
	uint64_t h = sf_hash(name, strlen(name));
	uint32_t id;

	if (sf_idx_find(&c->idx, h, entry_eq, c, name, &id))
		return &c->map[id];
	if (c->nmap == c->capmap) {
		size_t nc = c->capmap ? c->capmap * 2 : 64;
		struct pal_entry *nm = realloc(c->map, nc * sizeof(*nm));
		if (!nm)
			return NULL;
		c->map = nm;
		c->capmap = nc;
	}
	if (!sf_idx_insert(&c->idx, h, (uint32_t)c->nmap))
		return NULL;
	struct pal_entry *e = &c->map[c->nmap++];
	e->name = name;
	e->fill[0] = 0;
	return e;
}

/* "name->rgb(r,g,b)" lines, as flamegraph.pl writes them.  A missing
 * file is an empty map. */
static int map_read(struct svg_colours *c, struct sf_ctx *ctx)
{
	FILE *f = fopen(c->o->palette_file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t lineno = 0;
	int rc = 0;

	if (!f)
		return 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		/* the last "->": a fill never holds one, a name may */
		char *arrow = NULL;
		for (char *q = strstr(line, "->"); q; q = strstr(q + 1, "->"))
			arrow = q;
		if (!arrow || strlen(arrow + 2) >= sizeof(c->map[0].fill)) {
			rc = sf_error(ctx, SF_EINPUT, c->o->palette_file,
				      lineno, "expected 'NAME->rgb(R,G,B)'");
			break;
		}
		*arrow = 0;
		char **no = realloc(c->owned, (c->nowned + 1) *
				    sizeof(*no));
		char *name = strdup(line);
		struct pal_entry *e = NULL;
		if (no)
			c->owned = no;
		if (no && name) {
			c->owned[c->nowned++] = name;
			e = map_find(c, name);
		} else {
			free(name);
		}
		if (!e) {
			rc = sf_error_nomem(ctx);
			break;
		}
		snprintf(e->fill, sizeof(e->fill), "%s", arrow + 2);
	}
	free(line);
	fclose(f);
	return rc;
}

static int pal_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pal_entry *)a)->name,
		      ((const struct pal_entry *)b)->name);
}

static int map_write(struct svg_colours *c, struct sf_ctx *ctx)
{
	struct sf_output *out;
	int rc;

	qsort(c->map, c->nmap, sizeof(*c->map), pal_cmp);
	if ((rc = sf_output_open(&out, ctx, c->o->palette_file, false)))
		return rc;
	for (size_t i = 0; i < c->nmap; i++)
		sf_output_printf(out, "%s->%s\n", c->map[i].name,
				 c->map[i].fill);
	return sf_output_commit(out, ctx);
}

/* ----- the interface ----- */

int sf_svg__colours_new(struct svg_colours **out, struct sf_ctx *ctx,
			const struct svg_opts *o)
{
	struct svg_colours *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return sf_error_nomem(ctx);
	c->o = o;
	c->rng = 0x9e3779b97f4a7c15ull;
	if (o->cp && (rc = map_read(c, ctx))) {
		sf_svg__colours_finish(c, ctx, false);
		return rc;
	}
	*out = c;
	return 0;
}

const char *const sf_svg__wait_names[SVG_WAIT_N] = {
	[SVG_WAIT_LOCK] = "lock", [SVG_WAIT_IO] = "I/O",
	[SVG_WAIT_SLEEP] = "sleep", [SVG_WAIT_OTHER] = "other syscall",
	[SVG_WAIT_NONE] = "no syscall",
};

void sf_svg__wait_order(const struct svg_more *nd,
			enum svg_wait order[SVG_WAIT_N])
{
	/* insertion sort, stable: equal weights keep the kinds' order */
	for (int k = 0; k < SVG_WAIT_N; k++) {
		int j = k;
		for (; j > 0 && nd->wait[order[j - 1]] < nd->wait[k]; j--)
			order[j] = order[j - 1];
		order[j] = (enum svg_wait)k;
	}
}

int sf_svg__colour_frame(struct svg_colours *c, struct sf_ctx *ctx,
			 const struct svg_node *nd, const struct svg_more *m,
			 bool offcpu, bool waits, char *buf, size_t size)
{
	double v[3];
	int rgb[3];
	struct pal_entry *e = NULL;

	const char *name = sf_svg__name(nd);

	/* separators between stacks, as flamegraph.pl and inferno */
	if (!strcmp(name, "--") || !strcmp(name, "-")) {
		int g = name[1] ? 160 : 200;
		snprintf(buf, size, "rgb(%d,%d,%d)", g, g, g);
		return 0;
	}
	/* flamegraph.pl's root has the empty name: its colour under
	 * --hash and its key in the palette file */
	const char *key = nd->parent == UINT32_MAX ? "" : name;
	if (c->o->cp) {
		if (!(e = map_find(c, key)))
			return sf_error_nomem(ctx);
		if (e->fill[0]) {
			snprintf(buf, size, "%s", e->fill);
			return 0;
		}
	}
	switch (c->o->key) {
	case KEY_HASH:
		hash_values(key, v);
		break;
	case KEY_RANDOM:
		v[0] = rng_next(c);
		v[1] = rng_next(c);
		v[2] = rng_next(c);
		break;
	default: {
		uint64_t h = sf_hash(name, strlen(name));
		v[0] = (double)(h & 0xffff) / 65535.0;
		v[1] = (double)((h >> 16) & 0xffff) / 65535.0;
		v[2] = (double)((h >> 32) & 0xffff) / 65535.0;
		break;
	}
	}
	/* off-CPU: a frame whose weight is mostly off-CPU is drawn in the
	 * io palette (blue), as in off-CPU flame graphs; with wait kinds, in
	 * the palette of its heaviest kind (the first on a tie) */
	bool off = offcpu && 2 * m->off > nd->w;
	enum svg_wait wk = SVG_WAIT_IO, order[SVG_WAIT_N];
	if (off && waits) {
		sf_svg__wait_order(m, order);
		wk = order[0];
	}
	static const enum svg_palette wait_pal[] = {
		[SVG_WAIT_LOCK] = PAL_PURPLE, [SVG_WAIT_IO] = PAL_IO,
		[SVG_WAIT_SLEEP] = PAL_AQUA, [SVG_WAIT_OTHER] = PAL_GREEN,
	};
	if (off && wk == SVG_WAIT_NONE) {
		/* blocked without a system call: grey */
		rgb[0] = rgb[1] = rgb[2] = 150 + (int)(50 * v[0]);
	} else {
		base_colour(off ? wait_pal[wk] : resolve(c->o->palette, nd),
			    v, rgb);
	}
	snprintf(buf, size, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
	if (e) {
		snprintf(e->fill, sizeof(e->fill), "%s", buf);
		c->changed = true;
	}
	return 0;
}

void sf_svg__colour_diff(double delta, double maxdelta, bool negate,
			 char *buf, size_t size)
{
	if (negate)
		delta = -delta;
	if (delta == 0 || maxdelta <= 0) {
		snprintf(buf, size, "rgb(235,235,235)");
		return;
	}
	double v = fabs(delta) / maxdelta;
	int c = (int)lround(220 * (1 - v));
	if (delta > 0)
		snprintf(buf, size, "rgb(255,%d,%d)", c, c);
	else
		snprintf(buf, size, "rgb(%d,%d,255)", c, c);
}

int sf_svg__colours_finish(struct svg_colours *c, struct sf_ctx *ctx,
			   bool write_back)
{
	int rc = 0;

	if (!c)
		return 0;
	if (write_back && c->o->cp && c->changed)
		rc = map_write(c, ctx);
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->map);
	sf_idx_free(&c->idx);
	free(c);
	return rc;
}
