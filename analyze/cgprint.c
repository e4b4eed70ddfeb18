/*
 * cgprint.c - the call graph's JSON and text (docs/analyze.md, call graph
 * 6 and "Text output") and the read access of the other reports: exact
 * values as integers or the nearest double, whether the graph holds them
 * as 128-bit numerators over one denominator or as GMP rationals.
 */
#include "analyze.h"
#include "an_internal.h"
#include "cg_internal.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exact value q * 2^exp: an exact integer when it is one, else the
 * nearest double. */
static double q_double(const mpq_t q, int exp)
{
	/* nearest double: scale to a 64-bit-or-more quotient, round half to
	 * even by hand (mpq_get_d truncates) */
	mpz_t n, d, qq, rr;
	double res;
	long sh;
	int sign = mpq_sgn(q);

	if (!sign)
		return 0;
	mpz_inits(n, d, qq, rr, NULL);
	mpz_abs(n, mpq_numref(q));
	mpz_set(d, mpq_denref(q));
	/* choose sh so that n * 2^sh / d has 65..66 bits */
	sh = 65 - ((long)mpz_sizeinbase(n, 2) - (long)mpz_sizeinbase(d, 2));
	if (sh > 0)
		mpz_mul_2exp(n, n, (mp_bitcnt_t)sh);
	else if (sh < 0)
		mpz_mul_2exp(d, d, (mp_bitcnt_t)-sh);
	mpz_tdiv_qr(qq, rr, n, d);
	/* qq has 65 or 66 bits: keep 53 with a sticky bit for the rest */
	size_t bits = mpz_sizeinbase(qq, 2);
	long drop = (long)bits - 53;
	mpz_t keep, rest;
	mpz_inits(keep, rest, NULL);
	mpz_tdiv_q_2exp(keep, qq, (mp_bitcnt_t)drop);
	mpz_tdiv_r_2exp(rest, qq, (mp_bitcnt_t)drop);
	/* compare rest (+ sticky remainder) with half */
	mpz_t half;
	mpz_init_set_ui(half, 1);
	mpz_mul_2exp(half, half, (mp_bitcnt_t)(drop - 1));
	int c = mpz_cmp(rest, half);
	if (c == 0 && mpz_sgn(rr))
		c = 1;
	if (c > 0 || (c == 0 && mpz_odd_p(keep)))
		mpz_add_ui(keep, keep, 1);
	res = ldexp(mpz_get_d(keep), (int)(drop - sh + exp));
	mpz_clears(n, d, qq, rr, keep, rest, half, NULL);
	return sign < 0 ? -res : res;
}

/* q_double of n / d (d > 0) without GMP: the same nearest double. */
static double w_div_double(sf_an_w n, sf_an_w d, int exp)
{
	unsigned __int128 u = n < 0 ? -(unsigned __int128)n :
			      (unsigned __int128)n;
	unsigned __int128 ud = (unsigned __int128)d, q = u / ud, r = u % ud;
	unsigned __int128 keep, rest, half;
	int drop, bits = 0;
	double res;

	if (!r) {
		/* an integer: the conversion rounds to nearest, ties to even
		 * (and a count's exponent is 0: no call to scale it, which
		 * was 1 % of the timeline's run, a call per line) */
		res = exp ? ldexp((double)q, exp) : (double)q;
		return n < 0 ? -res : res;
	}
	/* 55 bits of the quotient or more, then the remainder as a sticky
	 * bit; r < d <= 2^96, so r * 2 cannot overflow */
	while (q < ((unsigned __int128)1 << 54)) {
		r <<= 1;
		q <<= 1;
		if (r >= ud) {
			r -= ud;
			q |= 1;
		}
		bits--;
	}
	half = (uint64_t)(q >> 64);
	drop = (half ? 128 - __builtin_clzll((uint64_t)half) :
		       64 - __builtin_clzll((uint64_t)q)) - 53;
	keep = q >> drop;
	rest = q & (((unsigned __int128)1 << drop) - 1);
	half = (unsigned __int128)1 << (drop - 1);
	/* round to nearest, ties (nothing left in r) to even */
	if (rest > half || (rest == half && (r || (keep & 1))))
		keep++;
	res = ldexp((double)keep, drop + bits + exp);
	return n < 0 ? -res : res;
}

/* An edge's caller or callee time as q_double gives it. */
static double time_d(const struct sf_an_cg *g, uint32_t e, bool callee)
{
	if (g->caller)
		return q_double(callee ? g->callee[e] : g->caller[e], g->exp);
	return w_div_double(time_num(g, e, callee), g->den, g->exp);
}

static void put_q(struct sf_output *o, const mpq_t q, int exp)
{
	if (!mpz_cmp_ui(mpq_denref(q), 1) &&
	    (exp >= 0 || mpz_scan1(mpq_numref(q), 0) >= (mp_bitcnt_t)-exp ||
	     !mpq_sgn(q))) {
		mpz_t z;
		mpz_init(z);
		if (exp >= 0)
			mpz_mul_2exp(z, mpq_numref(q), (mp_bitcnt_t)exp);
		else
			mpz_tdiv_q_2exp(z, mpq_numref(q), (mp_bitcnt_t)-exp);
		if (mpz_fits_slong_p(z)) {
			sf_output_i64(o, mpz_get_si(z));
		} else {
			char *s = mpz_get_str(NULL, 10, z);
			if (s)
				sf_output_puts(o, s);
			free(s);
		}
		mpz_clear(z);
		return;
	}
	sf_output_num(o, q_double(q, exp));
}

/* An edge's caller or callee time as put_q writes it. */
static void put_time(struct sf_output *o, const struct sf_an_cg *g,
		     uint32_t e, bool callee)
{
	sf_an_w v;
	mpq_t q;

	if (g->caller) {
		put_q(o, callee ? g->callee[e] : g->caller[e], g->exp);
		return;
	}
	v = time_num(g, e, callee);
	if (!g->exp && v % g->den == 0 && v / g->den >= INT64_MIN &&
	    v / g->den <= INT64_MAX) {
		sf_output_i64(o, (int64_t)(v / g->den));
		return;
	}
	mpq_init(q);
	sf_an__cg_rational(q, v, g->den);
	put_q(o, q, g->exp);
	mpq_clear(q);
}

static bool shown(const struct sf_an_cg *g, uint32_t n,
		  const struct sf_an_cg_opts *opt)
{
	for (size_t i = 0; i < opt->npeek; i++)
		if (!regexec(&opt->peek[i], g->names[n - 1], 0, NULL, 0))
			return true;
	return !opt->npeek;
}


/* `{"id":NAME,"total":W` of a node or an edge's other end (null for *). */
static void put_id_total(struct sf_output *o, const struct sf_an_cg *g,
			 uint32_t node, sf_an_w total)
{
	sf_output_puts(o, "{\"id\":");
	if (node == STAR)
		sf_output_puts(o, "null");
	else
		sf_an_put_json_str(o, g->names[node - 1]);
	sf_output_puts(o, ",\"total\":");
	sf_an_put_w(o, total, g->exp);
}
static void put_edge_list(struct sf_output *o, const struct sf_an_cg *g,
			  const uint32_t *list, size_t n, bool callees)
{
	sf_output_putc(o, '[');
	for (size_t i = 0; i < n; i++) {
		const struct edge *x = &g->edges[list[i]];
		uint32_t other = callees ? x->to : x->from;
		if (i)
			sf_output_putc(o, ',');
		put_id_total(o, g, other, edge_total(g, list[i]));
		sf_output_puts(o, ",\"caller_time\":");
		put_time(o, g, list[i], false);
		sf_output_puts(o, ",\"callee_time\":");
		put_time(o, g, list[i], true);
		sf_output_putc(o, '}');
	}
	sf_output_putc(o, ']');
}

static void put_node(struct sf_output *o, const struct sf_an_cg *g,
		     uint32_t n)
{
	const struct node *x = &g->nodes[n];

	put_id_total(o, g, n, x->total);
	sf_output_puts(o, ",\"self\":");
	sf_an_put_w(o, x->self, g->exp);
	sf_output_puts(o, ",\"thread_ids\":[");
	for (uint32_t i = x->ntids; i-- > 0;) {
		sf_output_i64(o, x->tids[i]);
		if (i)
			sf_output_putc(o, ',');
	}
	sf_output_puts(o, "],\"callers\":");
	put_edge_list(o, g, g->in_edges + g->in_start[n],
		      g->in_start[n + 1] - g->in_start[n], false);
	sf_output_puts(o, ",\"callees\":");
	put_edge_list(o, g, g->out_edges + g->out_start[n],
		      g->out_start[n + 1] - g->out_start[n], true);
	sf_output_putc(o, '}');
}

int sf_an_cg_json(struct sf_output *o, const struct sf_an_cg *g,
		  const struct sf_an_cg_opts *opt)
{
	bool first = true;

	sf_output_puts(o, "{\"type\":");
	sf_an_put_json_str(o, g->type);
	sf_output_puts(o, ",\"unit\":");
	sf_an_put_json_str(o, g->unit);
	sf_output_puts(o, ",\"total_time\":");
	sf_an_put_w(o, g->total_time, g->exp);
	sf_output_puts(o, ",\"sample_number\":");
	sf_output_u64(o, g->nraw);
	sf_output_puts(o, ",\"thread_times\":[");
	for (int64_t t = 0; t <= g->max_id; t++) {
		if (t)
			sf_output_putc(o, ',');
		sf_output_putc(o, '[');
		sf_output_i64(o, t);
		sf_output_putc(o, ',');
		sf_an_put_w(o, g->thread_time[t], g->exp);
		sf_output_putc(o, ']');
	}
	sf_output_puts(o, "],\n\"nodes\":[");
	for (size_t i = 0; i + 1 < g->nnodes; i++) {
		if (!shown(g, g->order[i], opt))
			continue;
		sf_output_puts(o, first ? "\n" : ",\n");
		first = false;
		put_node(o, g, g->order[i]);
	}
	sf_output_puts(o, "],\n\"star_node\":");
	put_node(o, g, STAR);
	sf_output_putc(o, '}');
	return 0;
}

/* ----- text, after Racket's profile/render-text ----- */

/* How text_edge writes numbers: a whole, non-negative time below `plain`
 * (or 0) is its digits, as sf_an_fmt_unit writes it: for counts up to
 * COUNT_PLAIN, for every value raw or of an unknown unit. */
struct cgfmt {
	const char *unit;
	bool raw;
	double plain;
};

/* Where the text goes: lines are formatted in place at b + len, not in a
 * line of their own then copied by a call per line (on the timeline of
 * docs/PERFORMANCE.md 7.5 million lines, and the copy and the call were
 * a fifth of the text's time).  A buffer with an output `o` is written
 * out when full; one without grows (a chunk kept until its turn). */
struct tbuf {
	char *b;
	size_t len, cap;
	struct sf_output *o;
	bool failed;          /* out of memory: the rest is dropped */
};

#define TB_SIZE ((size_t)1 << 20)

static bool tb_grow(struct tbuf *tb, size_t n)
{
	size_t ncap = tb->cap ? tb->cap : TB_SIZE;
	char *nb;

	if (tb->failed)
		return false;
	if (tb->o && tb->len) {
		sf_output_write(tb->o, tb->b, tb->len);
		tb->len = 0;
		if (n <= tb->cap)
			return true;
	}
	while (ncap < tb->len + n)
		ncap *= 2;
	if (!(nb = realloc(tb->b, ncap))) {
		tb->failed = true;
		return false;
	}
	tb->b = nb;
	tb->cap = ncap;
	return true;
}

/* Room for n more bytes at tb->b + tb->len; false when there is none */
static inline bool tb_room(struct tbuf *tb, size_t n)
{
	return tb->len + n <= tb->cap || tb_grow(tb, n);
}

static void tb_put(struct tbuf *tb, const char *s, size_t n)
{
	if (tb_room(tb, n)) {
		memcpy(tb->b + tb->len, s, n);
		tb->len += n;
	}
}

static void tb_flush(struct tbuf *tb)
{
	if (tb->o && tb->len && !tb->failed)
		sf_output_write(tb->o, tb->b, tb->len);
	tb->len = 0;
}

/* `s` right-aligned in `width` columns at out; returns the end */
static char *put_right(char *out, const char *s, size_t n, size_t width)
{
	if (n < width) {
		memset(out, ' ', width - n);
		out += width - n;
	}
	memcpy(out, s, n);
	return out + n;
}

/* u right-aligned in w columns (w <= 16): printf's "%Ws" of its digits.
 * Where they fit, the digits are written in place, back from the
 * column's end, after one fixed-size store of 16 blanks (a copy of their
 * own length was a call to memcpy on every line). */
static inline char *put_whole_col(char *out, uint64_t u, size_t w)
{
	static const uint64_t fits[20] = {
		0, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000, 10000000000u, 100000000000u,
		1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u,
		100000000000000000u, 1000000000000000000u, UINT64_MAX,
	};

	/* 16 blanks: every caller has room past the column */
	if (u < fits[w]) {
		memset(out, ' ', 16);
		sf_an__put_digits(out + w, u);
		return out + w;
	}
	char buf[24], *b = buf + sizeof(buf), *d = sf_an__put_digits(b, u);
	return put_right(out, d, (size_t)(b - d), w);
}

/* printf's "%Ws" of sf_an_fmt_unit(v).  Below plain (at most 1e15,
 * where every whole double is exact in 64 bits) the conversion to an
 * integer tells a whole value as floor() did, without its call. */
static char *put_time_col(char *out, double v, const struct cgfmt *f,
			  size_t w)
{
	char buf[64];

	if (v >= 0 && !signbit(v) && (v < f->plain || !v) &&
	    (double)(uint64_t)v == v)
		return put_whole_col(out, (uint64_t)v, w);
	sf_an_fmt_unit(buf, sizeof(buf), v, f->unit, f->raw);
	return put_right(out, buf, strlen(buf), w);
}

/* Whether 10p is above (1), at (0) or below (-1) fl + 0.5, exactly, for
 * a finite p > 0 with 10p near it and fl < 1e9; 2 when it cannot tell.
 * p is mi / 2^sh with mi of 53 bits: compare 20 mi with (2 fl + 1) 2^sh. */
static int half_side(double p, double fl)
{
	uint64_t bits, mi;
	int sh;

	memcpy(&bits, &p, sizeof(bits));
	if (!(bits >> 52))
		return 2;       /* subnormal: never near a half */
	mi = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
	sh = 1075 - (int)(bits >> 52);
	if (sh < 0 || sh > 90)
		return 2;
	unsigned __int128 a = (unsigned __int128)mi * 20;
	unsigned __int128 b = (unsigned __int128)(2 * (uint64_t)fl + 1) << sh;
	return (a > b) - (a < b);
}

/* printf's "%W.1f" of p, w 5 or 6 (its store of 8 blanks allows no
 * more): when 10p is not within 1e-6 of a half, the rounded value of
 * the computed 10p (off the exact one by far less) is the decimal
 * rounding printf makes of p; near a half, printf rounds the exact value
 * of p, half to even, which half_side decides (about one line in 80 on
 * the timeline of docs/PERFORMANCE.md, each a call to snprintf before).
 * For 0 <= 10p < 1e9 the conversion to an integer is floor().  Where
 * the digits fit they are written in place after the blanks, as
 * put_whole_col writes them. */
static inline __attribute__((always_inline)) char *
put_pct_col(char *out, double p, int w)
{
	double y = p * 10, fl;
	uint64_t k;
	int side = 1;

	if (!(p >= 0) || signbit(p) || !(y < 1e9) ||
	    (fabs(y - (fl = (double)(uint64_t)y) - 0.5) < 1e-6 &&
	     (side = half_side(p, fl)) == 2)) {
		/* room for the largest double's 309 digits */
		char buf[320];
		int n = snprintf(buf, sizeof(buf), "%*.1f", w, p);
		memcpy(out, buf, (size_t)n);
		return out + n;
	}
	k = (uint64_t)fl;
	if (fabs(y - fl - 0.5) < 1e-6)
		k += side > 0 || (!side && (k & 1));
	else
		k += y - fl > 0.5;
	/* "d.d" in w columns: k below 10^(w - 1) */
	if (k < (w == 5 ? 10000u : 100000u)) {
		char *e = out + w;
		memset(out, ' ', 8);    /* as put_whole_col's 16 */
		e[-1] = (char)('0' + k % 10);
		e[-2] = '.';
		sf_an__put_digits(e - 2, k / 10);
		return e;
	}
	char buf[32], *b = buf + sizeof(buf), *d;
	*--b = (char)('0' + k % 10);
	*--b = '.';
	d = sf_an__put_digits(b, k / 10);
	return put_right(out, d, (size_t)(buf + sizeof(buf) - d), (size_t)w);
}

/* What a line says of its other end, for every node, in one compact
 * table: the index field ("[12]" padded to 8 columns, then a space) and
 * the name as sf_an__put_name writes it, with its newline.  The report
 * has a line per edge end (7.5 million on the timeline of
 * docs/PERFORMANCE.md) and its other ends are scattered over the
 * profile's strings; from the table a line copies two runs of bytes of a
 * few MB that stay in cache.  Entry 0 is unused: * is written apart. */
/* text_edge copies a label in blocks of this many bytes, a fixed size
 * the compiler turns into a few moves, where a copy of a label's own
 * length was a call to memcpy, twice per line; the table and every
 * line's room have that much more */
#define LABEL_SLACK 32

struct cglabel {
	size_t off;           /* in text */
	uint32_t ilen, len;   /* index field; index field, name and newline */
};

struct cglabels {
	struct cglabel *l;    /* by node */
	char *text;
};

static void labels_free(struct cglabels *lb)
{
	free(lb->l);
	free(lb->text);
}

static int labels_make(struct cglabels *lb, const struct sf_an_cg *g)
{
	size_t size = 0, at = 0;

	lb->text = NULL;
	if (!(lb->l = malloc(g->nnodes * sizeof(*lb->l))))
		return -1;
	for (size_t n = 1; n < g->nnodes; n++) {
		size_t len = strlen(g->names[n - 1]);
		/* "[" up to 10 digits "]", padding to 8, a space, a newline */
		if (len > UINT32_MAX - 16)
			return -1;
		size += len + 16;
	}
	/* LABEL_SLACK more: text_edge copies in blocks of that size */
	if (!(lb->text = malloc(size + LABEL_SLACK)))
		return -1;
	for (size_t n = 1; n < g->nnodes; n++) {
		char *p = lb->text + at, *d, idx[16], *i = idx + sizeof(idx);
		const char *s = g->names[n - 1];

		*--i = ']';
		d = sf_an__put_digits(i, g->index[n]);
		*--d = '[';
		memcpy(p, d, (size_t)(idx + sizeof(idx) - d));
		p += idx + sizeof(idx) - d;
		while (p < lb->text + at + 8)
			*p++ = ' ';
		*p++ = ' ';
		lb->l[n].ilen = (uint32_t)(p - (lb->text + at));
		for (; *s; s++)
			*p++ = (unsigned char)*s < 0x20 ? ' ' : *s;
		*p++ = '\n';
		lb->l[n].off = at;
		lb->l[n].len = (uint32_t)(p - (lb->text + at));
		at += lb->l[n].len;
	}
	return 0;
}

/* n bytes from s to d, and up to LABEL_SLACK - 1 more after them (both
 * have that room) */
static inline void copy_blocks(char *d, const char *s, size_t n)
{
	size_t k = 0;

	/* n >= 1: the first block needs no test */
	do {
		memcpy(d + k, s + k, LABEL_SLACK);
		k += LABEL_SLACK;
	} while (k < n);
}

/* "   %-6s %-8s %14s %6.1f%%  NAME\n" with the other end's label `lab`
 * (index field ilen bytes, then the name and newline, len bytes in all)
 * and its time: `whole` when `isw` (a whole value below the plain
 * limit, as put_time_col would find it), else t; t is the time either
 * way, for the percentage */
static inline __attribute__((always_inline)) void
text_edge(struct tbuf *tb, const char *lab, uint32_t ilen, uint32_t len,
	  bool isw, uint64_t whole, double t, bool callee, double total,
	  const struct cgfmt *f)
{
	char *p;

	/* prefix 10, the time's column at least 14 and the unit's 64 at
	 * most, 1, the percentage up to 320, 3, and what the label's two
	 * copies write past their ends */
	if (!tb_room(tb, (size_t)len + 416 + 2 * LABEL_SLACK))
		return;
	p = tb->b + tb->len;
	memcpy(p, callee ? "   callee " : "   caller ", 10);
	p += 10;
	/* the index field: at most 13 bytes ("[" 10 digits "]" and a
	 * blank), one fixed copy */
	memcpy(p, lab, 16);
	p += ilen;
	p = isw ? put_whole_col(p, whole, 14) : put_time_col(p, t, f, 14);
	*p++ = ' ';
	p = put_pct_col(p, sf_an__pct(t, total), 6);
	memcpy(p, "%  ", 3);
	p += 3;
	copy_blocks(p, lab + ilen, len - ilen);
	tb->len = (size_t)(p + len - ilen - tb->b);
}

/* The lines of one list (entries `from` to `to` of the CSR arrays, their
 * times `t` unless rationals).  The other ends' labels lie scattered in
 * their table: ask for them some lines ahead. */
static void text_list(struct tbuf *tb, const struct sf_an_cg *g,
		      const struct cglabels *lb, const uint32_t *edges,
		      const uint32_t *other, const int64_t *t, uint32_t from,
		      uint32_t to, bool callee, double total,
		      const struct cgfmt *f)
{
	/* *'s labels: the stack's root as a caller, self time as a callee
	 * (with room for copy_blocks to read past them) */
	static const char star[2][64] = { "*        (stack root)\n",
					  "*        (self time)\n" };
	/* whole times in 64 bits: no 128-bit division per line (a call) */
	bool fast = !g->caller && !g->exp && g->den > 0 &&
		    g->den <= INT64_MAX;
	uint64_t den = fast ? (uint64_t)g->den : 1;

	for (uint32_t j = from; j < to; j++) {
		uint32_t x = other[j];
		bool isw = false;
		uint64_t whole = 0;
		double tj;

		if (fast) {
			sf_an_w v = entry_time(g, t, j, edges[j], callee);
			uint64_t u = (uint64_t)v;
			if (v >= 0 && v <= INT64_MAX &&
			    (den == 1 || u % den == 0)) {
				whole = den == 1 ? u : u / den;
				tj = (double)whole;
				/* put_time_col's digits, as it would find */
				isw = (tj < f->plain || !whole) &&
				      whole < ((uint64_t)1 << 53);
			} else {
				tj = w_div_double(v, g->den, g->exp);
			}
		} else {
			tj = g->caller ? time_d(g, edges[j], callee) :
			     w_div_double(entry_time(g, t, j, edges[j],
						     callee),
					  g->den, g->exp);
		}

		/* the label's place 16 lines ahead, its bytes 8 ahead (a
		 * load of the place there would wait as long as the line) */
		if (j + 16 < to)
			__builtin_prefetch(&lb->l[other[j + 16]]);
		if (j + 8 < to && other[j + 8] != STAR)
			__builtin_prefetch(lb->text +
					   lb->l[other[j + 8]].off);
		if (x == STAR)
			text_edge(tb, star[callee], 9,
				  (uint32_t)strlen(star[callee]), isw, whole,
				  tj, callee, total, f);
		else
			text_edge(tb, lb->text + lb->l[x].off, lb->l[x].ilen,
				  lb->l[x].len, isw, whole, tj, callee, total,
				  f);
	}
}

/* The entries of nodes order[from..to): what every chunk of the text
 * report formats, on its own (no state passes from one node to the
 * next but whether one was written before) */
struct textctx {
	const struct sf_an_cg *g;
	const struct sf_an_cg_opts *opt;
	struct cgfmt f;
	double tt;
	struct cglabels lb;
};

static void text_nodes(struct tbuf *tb, const struct textctx *c,
		       size_t from, size_t to, bool first)
{
	const struct sf_an_cg *g = c->g;
	static const char sep[] =
		"---------------------------------------------------------------"
		"---------\n";

	for (size_t i = from; i < to; i++) {
		uint32_t n = g->order[i];
		const struct node *x = &g->nodes[n];
		const struct cglabel *l = &c->lb.l[n];
		double tot = sf_an_double(x->total, g->exp);
		double self = sf_an_double(x->self, g->exp);
		char idx[24], *p, *q, *d;

		if (!shown(g, n, c->opt))
			continue;
		if (!first)
			tb_put(tb, sep, sizeof(sep) - 1);
		first = false;
		text_list(tb, g, &c->lb, g->in_edges, g->in_from, g->in_t,
			  g->in_start[n], g->in_start[n + 1], false, tot,
			  &c->f);
		/* " %-6s %12s (%5.1f%%) %12s (%5.1f%%)  " of the index, the
		 * total and the self time (once a snprintf per node, a
		 * seventh of the text's instructions on the timeline of
		 * docs/PERFORMANCE.md); room for the index's 22 bytes, two
		 * times as sf_an_fmt_unit writes them (64 bytes at most),
		 * two percentages of up to 320 and what the columns' blanks
		 * write past them */
		if (!tb_room(tb, 1024))
			break;
		p = tb->b + tb->len;
		*p++ = ' ';
		memset(p, ' ', 8);
		*p = '[';
		d = sf_an__put_digits(idx + sizeof(idx), i + 1);
		memcpy(p + 1, d, (size_t)(idx + sizeof(idx) - d));
		q = p + 1 + (idx + sizeof(idx) - d);
		*q++ = ']';
		p = q - p < 6 ? p + 6 : q;
		*p++ = ' ';
		p = put_time_col(p, tot, &c->f, 12);
		memcpy(p, " (", 2);
		p = put_pct_col(p + 2, sf_an__pct(tot, c->tt), 5);
		memcpy(p, "%) ", 3);
		p = put_time_col(p + 3, self, &c->f, 12);
		memcpy(p, " (", 2);
		p = put_pct_col(p + 2, sf_an__pct(self, c->tt), 5);
		memcpy(p, "%)  ", 4);
		tb->len = (size_t)(p + 4 - tb->b);
		/* the name as sf_an__put_name writes it, and the newline */
		tb_put(tb, c->lb.text + l->off + l->ilen, l->len - l->ilen);
		text_list(tb, g, &c->lb, g->out_edges, g->out_to, g->out_t,
			  g->out_start[n], g->out_start[n + 1], true, tot,
			  &c->f);
	}
}

/* The text report of a large graph is cut into chunks of about
 * TEXT_LINES lines; a node that alone has more is a chunk of its own,
 * formatted straight into the output when its turn comes, so that no
 * buffer holds it.  This thread and one helper take the chunks in order,
 * each formatting chunk k into memory buffer k % TEXT_SLOTS, taken only
 * once chunk k - TEXT_SLOTS is written out; this thread writes the
 * chunks in order.  A node's lines depend only on the node (and the
 * first node of the report has no separator), so the bytes are those of
 * one pass whichever thread formats a chunk.  The buffers (about 1.5 MB
 * each on the timeline of docs/PERFORMANCE.md) are reused to the end,
 * and the helper is one thread for the whole report, where a thread
 * started per round of two chunks made 230 on that timeline. */
#define TEXT_LINES 16384
#define TEXT_SLOTS 4

struct textpipe {
	const struct textctx *c;
	struct tbuf m[TEXT_SLOTS];
	size_t *cut;              /* chunk k: order[cut[k]..cut[k + 1]) */
	unsigned char *done;      /* per chunk: formatted (or direct) */
	size_t nchunks;
	pthread_mutex_t mu;
	pthread_cond_t cv;        /* a chunk formatted, or one written */
	size_t next;              /* the next chunk to take */
	size_t written;           /* chunks written out */
};

/* Lines of the entry of order[i]: its callers, itself, its callees and
 * the separator. */
static size_t node_lines(const struct sf_an_cg *g, size_t i)
{
	uint32_t n = g->order[i];

	return (size_t)(g->in_start[n + 1] - g->in_start[n]) +
	       (g->out_start[n + 1] - g->out_start[n]) + 2;
}

/* A chunk of one node with more than TEXT_LINES lines */
static bool direct(const struct textpipe *p, size_t k)
{
	return p->cut[k + 1] - p->cut[k] == 1 &&
	       node_lines(p->c->g, p->cut[k]) > TEXT_LINES;
}

/* With mu held: take the next chunk if its buffer is free, format it
 * (mu released meanwhile) and say so.  False when there is none to
 * take now. */
static bool take(struct textpipe *p)
{
	size_t k = p->next;

	if (k >= p->nchunks || k >= p->written + TEXT_SLOTS)
		return false;
	p->next++;
	if (!direct(p, k)) {
		pthread_mutex_unlock(&p->mu);
		text_nodes(&p->m[k % TEXT_SLOTS], p->c, p->cut[k],
			   p->cut[k + 1], !p->cut[k]);
		pthread_mutex_lock(&p->mu);
	}
	p->done[k] = 1;
	pthread_cond_broadcast(&p->cv);
	return true;
}

static void *text_helper(void *arg)
{
	struct textpipe *p = arg;

	pthread_mutex_lock(&p->mu);
	while (p->next < p->nchunks)
		if (!take(p))
			pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Write chunk k out, on this thread, in order (through `out`, which
 * writes to the output) */
static void put_chunk(struct tbuf *out, struct textpipe *p, size_t k)
{
	struct tbuf *m = &p->m[k % TEXT_SLOTS];

	/* a buffer that could not grow: format the chunk again, straight
	 * into the output */
	if (direct(p, k) || m->failed) {
		text_nodes(out, p->c, p->cut[k], p->cut[k + 1], !p->cut[k]);
		tb_flush(out);
	} else {
		sf_output_write(out->o, m->b, m->len);
	}
	m->len = 0;
	m->failed = false;
}

/* The chunks' cuts; 0 when out of memory */
static size_t text_cuts(struct textpipe *p, const struct sf_an_cg *g)
{
	size_t N = g->nnodes - 1, k = 0, lines = 0;

	/* at most one chunk per node */
	if (!(p->cut = malloc((N + 1) * sizeof(*p->cut))) ||
	    !(p->done = calloc(N ? N : 1, 1)))
		return 0;
	p->cut[0] = 0;
	for (size_t i = 0; i < N; i++) {
		size_t l = node_lines(g, i);
		/* a node of more than TEXT_LINES alone; else a chunk ends
		 * once it has TEXT_LINES */
		if (lines && (l > TEXT_LINES || lines >= TEXT_LINES)) {
			p->cut[++k] = i;
			lines = 0;
		}
		lines += l;
		if (l > TEXT_LINES) {
			p->cut[++k] = i + 1;
			lines = 0;
		}
	}
	if (lines)
		p->cut[++k] = N;
	return k;
}

/* The whole text of the nodes on this thread and one helper, through
 * `out`; false when they could not be had (nothing is written then) */
static bool text_pipe(struct tbuf *out, const struct textctx *c)
{
	struct textpipe p = { .c = c };
	pthread_t th;
	bool helper = false;

	if (!(p.nchunks = text_cuts(&p, c->g))) {
		free(p.cut);
		free(p.done);
		return false;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	/* no helper: this thread takes every chunk */
	helper = !sf_thread_start(&th, text_helper, &p);
	pthread_mutex_lock(&p.mu);
	while (p.written < p.nchunks) {
		size_t k = p.written;
		if (p.done[k]) {
			pthread_mutex_unlock(&p.mu);
			put_chunk(out, &p, k);
			pthread_mutex_lock(&p.mu);
			p.written++;
			pthread_cond_broadcast(&p.cv);
		} else if (!take(&p)) {
			/* the helper has it */
			pthread_cond_wait(&p.cv, &p.mu);
		}
	}
	pthread_mutex_unlock(&p.mu);
	if (helper)
		pthread_join(th, NULL);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	for (size_t k = 0; k < TEXT_SLOTS; k++)
		free(p.m[k].b);
	free(p.cut);
	free(p.done);
	return true;
}

int sf_an_cg_text(struct sf_output *o, const struct sf_an_cg *g,
		  const struct sf_an_cg_opts *opt, struct sf_ctx *ctx)
{
	bool raw = opt->raw;
	double tt = sf_an_double(g->total_time, g->exp);
	const char *fam = sf_an_unit_family(g->unit);
	struct textctx c = { g, opt, { g->unit, raw,
				       raw || !strcmp(fam, "other") ? 1e15 :
				       !strcmp(fam, "count") ? 1e5 : 0 },
			     tt, { NULL, NULL } };
	struct tbuf out = { .o = o };
	unsigned jobs = sf_jobs(ctx);
	char val[64];
	int rc = 0;
	static const char rule[] =
		"==============================================================="
		"=========\n";

	if (labels_make(&c.lb, g)) {
		labels_free(&c.lb);
		return sf_error_nomem(ctx);
	}
	sf_an_fmt_unit(val, sizeof(val), tt, g->unit, raw);
	sf_output_printf(o, "Call graph (%s, %s)\n", g->type, g->unit);
	sf_output_printf(o, "  Total time: %s\n", val);
	sf_output_printf(o, "  Samples: %llu\n", (unsigned long long)g->nraw);
	sf_output_puts(o, "  Thread times:");
	for (int64_t t = 0; t <= g->max_id; t++) {
		/* tids up to 1023 are ids: list only threads with time */
		if (!raw && !g->thread_time[t])
			continue;
		sf_an_fmt_w(val, sizeof(val), g->thread_time[t], g->exp,
			    g->unit, raw);
		sf_output_printf(o, " %lld: %s", (long long)t, val);
	}
	sf_output_puts(o, g->max_id < 0 ? " none\n" : "\n");
	sf_output_puts(o, rule);
	sf_output_puts(o, " Idx         Total (pct)           Self (pct)  "
			  "Name\n");
	sf_output_puts(o, "   caller: time of the node spent called from "
			  "it, % of the node's total\n");
	sf_output_puts(o, "   callee: time of the node spent calling it, "
			  "% of the node's total\n");
	sf_output_puts(o, rule);
	/* with --peek, whether a separator comes first depends on the nodes
	 * shown before: those few entries are written in one pass */
	if (!(jobs > 1 && !opt->npeek && g->nnodes > 1 && text_pipe(&out, &c)))
		text_nodes(&out, &c, 0, g->nnodes - 1, true);
	tb_flush(&out);
	if (out.failed)
		rc = sf_error_nomem(ctx);
	else
		sf_output_puts(o, rule);
	free(out.b);
	labels_free(&c.lb);
	return rc;
}

/* ----- read access, for the reports in other files ----- */

void sf_an_cg_info(const struct sf_an_cg *g, struct sf_an_cg_info *out)
{
	*out = (struct sf_an_cg_info){ g->exp, g->type, g->unit,
				       g->total_time, g->nraw,
				       g->nnodes - 1 };
}

void sf_an_cg_node(const struct sf_an_cg *g, size_t i,
		   struct sf_an_cg_node *out)
{
	uint32_t n = g->order[i - 1];

	*out = (struct sf_an_cg_node){
		g->names[n - 1], g->nodes[n].total, g->nodes[n].self,
		g->in_start[n + 1] - g->in_start[n],
		g->out_start[n + 1] - g->out_start[n] };
}

void sf_an_cg_edge(const struct sf_an_cg *g, size_t i, bool callees,
		   size_t j, struct sf_an_cg_edge *out)
{
	uint32_t n = g->order[i - 1];
	uint32_t e = callees ? g->out_edges[g->out_start[n] + j] :
			       g->in_edges[g->in_start[n] + j];
	uint32_t other = callees ? g->edges[e].to : g->edges[e].from;

	*out = (struct sf_an_cg_edge){
		other == STAR ? 0 : g->index[other], edge_total(g, e),
		time_d(g, e, false), time_d(g, e, true) };
}
