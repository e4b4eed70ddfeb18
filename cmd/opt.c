/* opt.c - the option table parser: getopt_long over the program's table
 * plus the shared options, and --help generated from the same tables. */
#include "opt.h"
#include "analyze.h"
#include "cli.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Keys of the shared options, above any program's. */
enum { K_FROM = 0x1000, K_LIMIT = 0x1100, K_FORMAT = 0x2000 };

static const struct {
	const char *name;
	size_t off;
	const char *help;
} limits[] = {
	{ "max-depth", offsetof(struct sf_limits, max_depth),
	  "frames in one stack (default 1048576)" },
	{ "max-name", offsetof(struct sf_limits, max_name),
	  "bytes in one frame name (default 1M)" },
	{ "max-nesting", offsetof(struct sf_limits, max_nesting),
	  "JSON/XML nesting depth (default 512)" },
	{ "max-line", offsetof(struct sf_limits, max_line),
	  "bytes in one text line (default 256M)" },
	{ "max-decompressed", offsetof(struct sf_limits, max_decompressed),
	  "bytes of decompressed input (default 64G)" },
	{ "max-records", offsetof(struct sf_limits, max_records),
	  "records written by repeating samples: sbsprof,\n"
	  "sampler, cpuprofile (default 256M)" },
	{ "max-memory", offsetof(struct sf_limits, max_memory),
	  "bytes of memory for the whole run (default: half\n"
	  "the RAM or cgroup limit, at least 1G)" },
};
#define NLIMITS (sizeof(limits) / sizeof(limits[0]))

static const struct cli_opt from_opt = {
	"from", 'f', "FORMAT",
	"read the inputs as FORMAT (default: by content, then extension)"
};
static const struct cli_opt jobs_opt = {
	"jobs", 'j', "N",
	"read and write large profiles, and build and print a\n"
	"large call graph, on N threads (default: $SF_JOBS, else\n"
	"the CPUs available; the output is the same)"
};

/* "4096", "64K", "2G": a positive size. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end || !v)
		return -1;
	*out = v;
	return 0;
}

/* "1" .. SF_MAX_JOBS. */
static int parse_jobs(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || !v || v > SF_MAX_JOBS)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static size_t table_len(const struct cli_opt *o)
{
	size_t n = 0;

	while (o[n].name || o[n].help)
		n++;
	return n;
}

static bool name_taken(const struct option *lo, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(lo[i].name, name))
			return true;
	return false;
}

static int add_long(struct cli_getopt *g, size_t *n, const char *name,
		    const char *arg, int key)
{
	if (name_taken(g->longopts, *n, name)) {
		cli_msg("internal error: option '--%s' is declared twice",
			name);
		return -1;
	}
	g->longopts[*n] = (struct option){
		name, !arg ? no_argument :
		      arg[0] == '[' ? optional_argument : required_argument,
		NULL, key };
	++*n;
	return 0;
}

/* The program's own option that is also the format option `name`. */
static const struct cli_opt *program_takes(const struct cli_opt *opts,
					   const char *name)
{
	for (const struct cli_opt *o = opts; o->name || o->help; o++)
		if (o->name && o->key >= CLI_FORMAT_KEY && !strcmp(o->name, name))
			return o;
	return NULL;
}

/* Does some format declare option `name` in `sets`? */
static bool format_declares(const char *name, unsigned sets)
{
	const struct sf_format *const *t = sf_formats();

	for (size_t i = 0; t[i]; i++) {
		const struct sf_option *lists[2] = {
			sets & CLI_READ ? t[i]->read_options : NULL,
			sets & CLI_WRITE ? t[i]->write_options : NULL };
		for (int l = 0; l < 2; l++)
			for (const struct sf_option *o = lists[l]; o && o->name; o++)
				if (!strcmp(o->name, name))
					return true;
	}
	return false;
}

int cli_getopt_init(struct cli_getopt *g, const struct cli_opt *opts,
		    unsigned sets, struct sf_ctx *ctx)
{
	const struct sf_format *const *t = sf_formats();
	size_t nprog = table_len(opts), nfmt = 0, n = 0, s = 0;

	memset(g, 0, sizeof(*g));
	g->opts = opts;
	g->sets = sets;
	g->ctx = ctx;
	for (size_t i = 0; t[i]; i++) {
		for (const struct sf_option *o = t[i]->read_options; o && o->name; o++)
			nfmt++;
		for (const struct sf_option *o = t[i]->write_options; o && o->name; o++)
			nfmt++;
	}
	g->longopts = calloc(nprog + 2 + NLIMITS + nfmt + 1,
			     sizeof(*g->longopts));
	g->shortopts = calloc(3 * nprog + 10, 1);
	g->format = calloc(nfmt + 1, sizeof(*g->format));
	if (!g->longopts || !g->shortopts || !g->format) {
		cli_msg("out of memory");
		return -1;
	}
	/* '-': positional arguments come back in order (key 1); ':' lets
	 * us word the message for a missing argument */
	g->shortopts[s++] = '-';
	g->shortopts[s++] = ':';
	for (size_t i = 0; i < nprog; i++) {
		const struct cli_opt *o = &opts[i];
		if (!o->name)
			continue;
		if (add_long(g, &n, o->name, o->arg, o->key))
			return -1;
		if (o->key > 0 && o->key < CLI_KEY && o->help) {
			g->shortopts[s++] = (char)o->key;
			if (o->arg)
				g->shortopts[s++] = ':';
			if (o->arg && o->arg[0] == '[')
				g->shortopts[s++] = ':';
		}
	}
	if (sets & CLI_READ) {
		if (add_long(g, &n, from_opt.name, from_opt.arg, K_FROM))
			return -1;
		g->shortopts[s++] = 'f';
		g->shortopts[s++] = ':';
		if (add_long(g, &n, jobs_opt.name, jobs_opt.arg, 'j'))
			return -1;
		g->shortopts[s++] = 'j';
		g->shortopts[s++] = ':';
		for (size_t k = 0; k < NLIMITS; k++)
			if (add_long(g, &n, limits[k].name, "SIZE",
				     K_LIMIT + (int)k))
				return -1;
	}
	/* A format option may be declared by several formats (`--pid` by
	 * every reader that keeps threads): one entry, the first's help. */
	for (size_t i = 0; t[i]; i++) {
		const struct sf_option *lists[2] = {
			sets & CLI_READ ? t[i]->read_options : NULL,
			sets & CLI_WRITE ? t[i]->write_options : NULL };
		for (int l = 0; l < 2; l++) {
			for (const struct sf_option *o = lists[l]; o && o->name; o++) {
				bool seen = false;
				for (size_t j = 0; j < g->nformat && !seen; j++)
					seen = !strcmp(g->format[j]->name, o->name);
				if (seen || program_takes(opts, o->name))
					continue;
				if (add_long(g, &n, o->name, o->arg,
					     K_FORMAT + (int)g->nformat))
					return -1;
				g->format[g->nformat++] = o;
			}
		}
	}
	for (size_t i = 0; i < nprog; i++) {
		if (opts[i].name && opts[i].key >= CLI_FORMAT_KEY &&
		    !format_declares(opts[i].name, sets)) {
			cli_msg("internal error: option '--%s' is no format's "
				"option", opts[i].name);
			return -1;
		}
	}
	return 0;
}

static const char *dashed(const struct cli_getopt *g, int key, char *buf,
			  size_t size)
{
	for (const struct option *lo = g->longopts; lo->name; lo++) {
		if (lo->val == key) {
			snprintf(buf, size, "--%s", lo->name);
			return buf;
		}
	}
	snprintf(buf, size, "-%c", key);
	return buf;
}

int cli_getopt_next(struct cli_getopt *g, int argc, char **argv,
		    const char **arg)
{
	char name[80];
	uint64_t size;

	for (;;) {
		int before = optind;
		int c = getopt_long(argc, argv, g->shortopts, g->longopts,
				    NULL);
		*arg = optarg;
		g->optind = optind;
		switch (c) {
		case -1:
			/* "--" as the argument of an option is no end */
			g->dashdash = before < argc && optind == before + 1 &&
				      !strcmp(argv[before], "--");
			if (g->sets & CLI_READ)
				cli_memory_budget(g->ctx);
			return -1;
		case '?':
			/* a known key here is a flag given a value */
			if (optopt >= CLI_KEY || (optopt && !strncmp(
				    argv[optind - 1], "--", 2)))
				cli_msg("option '%s' takes no argument",
					dashed(g, optopt, name, sizeof(name)));
			else if (optopt)
				cli_msg("unknown option '-%c' (see --help)",
					optopt);
			else
				cli_msg("unknown option '%s' (see --help)",
					argv[optind - 1]);
			return '?';
		case ':':
			/* name the option as it was typed: -o or --output */
			if (optopt > 0 && optopt < CLI_KEY &&
			    strncmp(argv[optind - 1], "--", 2))
				snprintf(name, sizeof(name), "-%c", optopt);
			else
				dashed(g, optopt, name, sizeof(name));
			cli_msg("option '%s' needs an argument", name);
			return '?';
		case 'f':
			/* -f is --from where the program reads */
			if (!(g->sets & CLI_READ))
				return c;
			/* fall through */
		case K_FROM:
			if (!(g->from = sf_format_by_name(optarg)) ||
			    !g->from->read) {
				cli_msg("unknown input format '%s' "
					"(--list-formats shows the formats)",
					optarg);
				return '?';
			}
			continue;
		case 'j':
			if (!(g->sets & CLI_READ))
				return c;
			if (parse_jobs(optarg, &g->ctx->jobs)) {
				cli_msg("option '--jobs' needs a number of "
					"threads from 1 to %u", SF_MAX_JOBS);
				return '?';
			}
			continue;
		default:
			break;
		}
		if (c >= K_LIMIT && c < K_LIMIT + (int)NLIMITS) {
			const char *lname = limits[c - K_LIMIT].name;
			if (parse_size(optarg, &size)) {
				cli_msg("option '--%s' needs a positive size "
					"(e.g. 4096, 64K, 2G)", lname);
				return '?';
			}
			*(uint64_t *)((char *)&g->ctx->limits +
				      limits[c - K_LIMIT].off) = size;
			continue;
		}
		for (const struct cli_opt *o = g->opts; o->name || o->help; o++) {
			if (o->name && c >= CLI_FORMAT_KEY && o->key == c &&
			    sf_ctx_set_opt(g->ctx, o->name,
					   o->arg ? optarg : "1")) {
				cli_msg("out of memory");
				return '?';
			}
		}
		if (c >= K_FORMAT && c < K_FORMAT + (int)g->nformat) {
			const struct sf_option *o =
				sf_option_canonical(g->format[c - K_FORMAT]);
			if (sf_ctx_set_opt(g->ctx, o->name,
					   o->arg ? optarg : "1")) {
				cli_msg("out of memory");
				return '?';
			}
			continue;
		}
		return c;
	}
}

/* "  -o, --output FILE      help", continuation lines under the help. */
static void help_line(FILE *f, int key, const char *name, const char *arg,
		      const char *help, const char *also)
{
	char left[96];
	int n;

	if (key > 0 && key < CLI_KEY)
		n = snprintf(left, sizeof(left), "  -%c, --%s", key, name);
	else
		n = snprintf(left, sizeof(left), "      --%s", name);
	if (arg && n >= 0 && (size_t)n < sizeof(left))
		snprintf(left + n, sizeof(left) - (size_t)n, "%s%s",
			 arg[0] == '[' ? "" : " ", arg);
	if (strlen(left) > 24)
		fprintf(f, "%s\n%-25s", left, "");
	else
		fprintf(f, "%-25s", left);
	/* word-wrap at 79 columns; '\n' in the help breaks a line too */
	int col = 25;
	for (const char *p = help; *p;) {
		size_t w = strcspn(p, " \n");
		if (col > 25 && col + 1 + (int)w > 79) {
			fprintf(f, "\n%-25s", "");
			col = 25;
		} else if (col > 25) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		if (*p == '\n') {
			fprintf(f, "\n%-25s", "");
			col = 25;
		}
		if (*p)
			p++;
	}
	if (also)
		fprintf(f, "\n%-25s(also %s)", "", also);
	fputc('\n', f);
}

/* The help of every format that declares option `name`, one per line. */
static void joined_help(const struct cli_getopt *g, const char *name,
			char *buf, size_t size)
{
	const struct sf_format *const *t = sf_formats();
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; t[i]; i++) {
		const struct sf_option *lists[2] = {
			g->sets & CLI_READ ? t[i]->read_options : NULL,
			g->sets & CLI_WRITE ? t[i]->write_options : NULL };
		for (int l = 0; l < 2; l++) {
			for (const struct sf_option *o = lists[l]; o && o->name; o++) {
				/* aliases have no help; one text shared by
				 * several formats is said once */
				if (strcmp(o->name, name) || len >= size ||
				    !o->help || strstr(buf, o->help))
					continue;
				int w = snprintf(buf + len, size - len, "%s%s",
						 len ? "\n" : "", o->help);
				if (w > 0)
					len += (size_t)w;
			}
		}
	}
}

void cli_getopt_help(const struct cli_getopt *g, FILE *f)
{
	for (const struct cli_opt *o = g->opts; o->name || o->help; o++) {
		if (!o->name) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (!o->help)
			continue;
		/* aliases: later entries with the same key and no help */
		char also[256] = "";
		size_t len = 0;
		for (const struct cli_opt *a = o + 1; a->name || a->help; a++) {
			if (a->name && !a->help && a->key == o->key && len < sizeof(also)) {
				int w = snprintf(also + len, sizeof(also) - len,
						 "%s--%s", len ? ", " : "", a->name);
				if (w > 0)
					len += (size_t)w;
			}
		}
		help_line(f, o->key, o->name, o->arg, o->help,
			  len ? also : NULL);
	}
	if (g->sets & CLI_READ) {
		fprintf(f, "\nInput:\n");
		help_line(f, from_opt.key, from_opt.name, from_opt.arg,
			  from_opt.help, NULL);
		help_line(f, jobs_opt.key, jobs_opt.name, jobs_opt.arg,
			  jobs_opt.help, NULL);
		fprintf(f, "\nInput limits (a bigger input is refused with a "
			"message):\n");
		for (size_t k = 0; k < NLIMITS; k++)
			help_line(f, 0, limits[k].name, "SIZE",
				  limits[k].help, NULL);
	}
	if (g->nformat) {
		fprintf(f, "\nFormat options:\n");
		for (size_t i = 0; i < g->nformat; i++) {
			const struct sf_option *o = g->format[i];
			char help[1024], also[256] = "";
			size_t len = 0;
			if (!o->help)
				continue;
			/* its aliases follow it */
			for (const struct sf_option *a = o + 1;
			     a->name && !a->help && len < sizeof(also); a++) {
				int w = snprintf(also + len, sizeof(also) - len,
						 "%s--%s", len ? ", " : "",
						 a->name);
				if (w > 0)
					len += (size_t)w;
			}
			joined_help(g, o->name, help, sizeof(help));
			help_line(f, 0, o->name, o->arg, help,
				  len ? also : NULL);
		}
	}
}

const char *cli_getopt_name(const struct cli_getopt *g, int key)
{
	for (const struct cli_opt *o = g->opts; o->name || o->help; o++)
		if (o->name && o->key == key)
			return o->name;
	return NULL;
}

void cli_getopt_free(struct cli_getopt *g)
{
	free(g->longopts);
	free(g->shortopts);
	free(g->format);
	memset(g, 0, sizeof(*g));
}

struct cli_opt *cli_report_options(const struct cli_opt *mid, size_t nmid,
				   const struct cli_opt *rest, int key_report,
				   int key_option)
{
	const struct sf_an_report *k, *reports = sf_an_reports();
	const struct sf_an_report_option *o;
	size_t n = 3 + nmid, nrest = 0, i = 0, j = 0;
	struct cli_opt *t;

	while (rest[nrest].name || rest[nrest].help)
		nrest++;
	n += nrest;
	for (k = reports; k->name; k++)
		for (n++, o = k->options; o && o->name; o++)
			n++;
	if (!(t = calloc(n, sizeof(*t))))
		return NULL;
	t[i++] = (struct cli_opt)CLI_OPT_HEADING("Reports:");
	for (k = reports; k->name; k++)
		t[i++] = (struct cli_opt){ k->name,
					   key_report + (int)(k - reports),
					   NULL, k->help };
	memcpy(t + i, mid, nmid * sizeof(*mid));
	i += nmid;
	t[i++] = (struct cli_opt)CLI_OPT_HEADING("Report options:");
	for (k = reports; k->name; k++)
		for (o = k->options; o && o->name; o++)
			t[i++] = (struct cli_opt){ o->name,
						   key_option + (int)j++,
						   o->arg, o->help };
	memcpy(t + i, rest, (nrest + 1) * sizeof(*rest));
	return t;
}
