/*
 * perf_dialects.c - the line parsers of the `perf script` reader, in its
 * two dialects (stackcollapse-perf.pl and inferno-collapse-perf); see
 * perf.h.
 */
#include "perf.h"

static bool is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_';
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

/* ----- the event line ----- */

bool sf_perf__parse_event_perl(const char *l, size_t n, struct event_line *e)
{
	if (n < 2 || is_space(l[0]))
		return false;
	for (size_t i = 2; i < n; i++) {
		if (!is_space(l[i]))
			continue;
		size_t j = i;
		while (j < n && is_space(l[j]))
			j++;
		size_t d1 = j;
		while (j < n && is_digit(l[j]))
			j++;
		if (j == d1)
			continue;
		size_t d1e = j;
		while (j < n && l[j] == '/')
			j++;
		size_t d2 = j;
		while (j < n && is_digit(l[j]))
			j++;
		size_t d2e = j;
		if (j >= n || !is_space(l[j]))
			continue;
		e->comm = l;
		e->comm_len = i;
		if (d2e > d2 && !(d2e - d2 == 1 && l[d2] == '0')) {
			e->pid = l + d1;
			e->pid_len = d1e - d1;
			e->tid = l + d2;
			e->tid_len = d2e - d2;
		} else {
			/* perl's `if (not $tid)`: a tid of "0" counts as none */
			e->pid = NULL;
			e->pid_len = 0;
			e->tid = l + d1;
			e->tid_len = d1e - d1;
		}
		while (j < n && is_space(l[j]))
			j++;
		e->end = j;
		return true;
	}
	return false;
}

bool sf_perf__parse_event_inferno(const char *l, size_t n, struct event_line *e)
{
	size_t word = 0, slash = 0;
	bool all_digits = false, last_space = false, has_slash = false;

	for (size_t i = 0; i < n; i++) {
		char c = l[i];
		if (c == ' ') {
			if (all_digits && !last_space && word > 0) {
				size_t cs = 0, ce = word - 1;
				while (cs < ce && l[cs] == ' ')
					cs++;
				while (ce > cs && l[ce - 1] == ' ')
					ce--;
				e->comm = l + cs;
				e->comm_len = ce - cs;
				if (has_slash) {
					e->pid = l + word;
					e->pid_len = slash - word;
					e->tid = l + slash + 1;
					e->tid_len = i - slash - 1;
				} else {
					e->pid = NULL;
					e->tid = l + word;
					e->tid_len = i - word;
				}
				e->end = i + 1;
				return true;
			}
			word = i + 1;
			all_digits = true;
			has_slash = false;
		} else if (c == '/') {
			if (all_digits) {
				has_slash = true;
				slash = i;
			}
		} else if (!is_digit(c)) {
			all_digits = false;
			has_slash = false;
		}
		last_space = c == ' ';
	}
	return false;
}

bool sf_perf__parse_event_type(const char *l, size_t n, const char **ev,
			       size_t *ev_len, double *period)
{
	size_t e = n;

	while (e && is_space(l[e - 1]))
		e--;
	if (!e || l[e - 1] != ':')
		return false;
	size_t te = e - 1, ts = te;
	while (ts && !is_space(l[ts - 1]))
		ts--;
	if (ts == te || !ts)
		return false;
	size_t k = ts;
	while (k && is_space(l[k - 1]))
		k--;
	size_t de = k;
	while (k && is_digit(l[k - 1]))
		k--;
	size_t ds = k;
	while (k && is_space(l[k - 1]))
		k--;
	/* (digits not preceded by blanks and ':' cannot be the period, and
	 * then the blanks before the event would have to follow a ':'
	 * directly, which a digit is not) */
	if (!k || l[k - 1] != ':')
		return false;
	*ev = l + ts;
	*ev_len = te - ts;
	*period = 0;
	if (de > ds) {
		double v;
		if (sf_parse_weight(l + ds, de - ds, &v))
			*period = v;
	}
	return true;
}

bool sf_perf__parse_event_type_inferno(const char *l, size_t n, size_t from,
				       const char **ev, size_t *ev_len,
				       double *period, const char **rest,
				       size_t *rest_len)
{
	const char *s = l + from, *end = l + n;
	const char *c1 = memchr(s, ':', (size_t)(end - s));

	*rest = NULL;
	*rest_len = 0;
	if (!c1)
		return false;
	const char *a = c1 + 1;
	const char *c2 = memchr(a, ':', (size_t)(end - a));
	const char *ae = c2 ? c2 : end;
	const char *w = ae;
	while (w > a && w[-1] != ' ')
		w--;
	*ev = w;
	*ev_len = (size_t)(ae - w);
	/* the period: the word before the event, if numeric */
	*period = 0;
	const char *pe = w;
	while (pe > a && pe[-1] == ' ')
		pe--;
	const char *ps = pe;
	while (ps > a && is_digit(ps[-1]))
		ps--;
	double v;
	if (pe > ps && sf_parse_weight(ps, (size_t)(pe - ps), &v))
		*period = v;
	if (c2) {
		const char *pst = c2 + 1;
		const char *q = pst;
		while (q < end && *q != ':' && *q != ' ')
			q++;
		pst = q < end ? q + 1 : pst;
		while (pst < end && is_space(*pst))
			pst++;
		const char *pend = end;
		while (pend > pst && is_space(pend[-1]))
			pend--;
		if (pend > pst) {
			*rest = pst;
			*rest_len = (size_t)(pend - pst);
		}
	}
	return true;
}

/* Not a blank of is_space: every blank is at most ' ', so most bytes
 * take one compare. */
static inline bool not_space(char c)
{
	return (unsigned char)c > ' ' || !is_space(c);
}


/* The time word "sec.nsec:" of l[s..e) (its ':' at e - 1) in
 * nanoseconds, or SF_NO_TIME. */
static int64_t time_word(const char *l, size_t s, size_t e)
{
	size_t k = s;
	int64_t sec = 0, ns = 0;
	int fd = 0;

	while (k < e - 1 && is_digit(l[k]) && sec < INT64_MAX / 100)
		sec = sec * 10 + (l[k++] - '0');
	if (k == s || k >= e - 1 || l[k] != '.')
		return SF_NO_TIME;
	k++;
	while (k < e - 1 && is_digit(l[k])) {
		if (fd < 9) {
			ns = ns * 10 + (l[k] - '0');
			fd++;
		}
		k++;
	}
	if (k != e - 1 || sec > INT64_MAX / 1000000000 - 1)
		return SF_NO_TIME;
	while (fd++ < 9)
		ns *= 10;
	return sec * 1000000000 + ns;
}

/* sf_perf__event_tail from word `i` on, `timed` when the time is
 * decided (in *time) */
static bool tail_words(const char *l, size_t n, size_t i, bool timed,
		       int64_t *time)
{
	for (;;) {
		while (i < n && is_space(l[i]))
			i++;
		size_t s = i;
		while (i < n && not_space(l[i]))
			i++;
		if (i == s)
			return false;
		if (i - s >= 12 && !memcmp(l + s, "PERF_RECORD_", 12))
			return true;
		bool colon = l[i - 1] == ':';
		if (!timed && (colon || l[s] != '[')) {
			timed = true;
			if (colon)
				*time = time_word(l, s, i);
		}
		if (l[s] == '[')
			continue;
		bool tword = colon && is_digit(l[s]);
		for (size_t k = s; tword && k < i - 1; k++)
			tword = is_digit(l[k]) || l[k] == '.';
		if (!tword)
			return false;
	}
}

/* The digits starting at p, 8 bytes of which may be read, eight at a
 * time: their number if fewer than 8 (their value in *v), else 8 (*v
 * unset; the caller reads them one by one).  A time word has 5-7 digits
 * before its '.' and 6 or 9 after, so this spares a loop of a compare
 * and a multiply per digit on every event line. */
static inline size_t digits8(const char *p, int64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;

	memcpy(&x, p, 8);
	/* a byte is a digit when its high nibble is 3 and its low one at
	 * most 9 (adding 6 then carries into the high nibble) */
	uint64_t bad = ((x & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
		       (((x & 0x0F0F0F0F0F0F0F0Full) + 0x0606060606060606ull) &
			0xF0F0F0F0F0F0F0F0ull);
	if (!bad)
		return 8;
	size_t c = (size_t)__builtin_ctzll(bad) / 8;
	if (!c) {
		*v = 0;
		return 0;
	}
	/* the c digits to the top bytes, zeros below: then pairs, fours
	 * and eights of digits are combined, the first the most
	 * significant */
	uint64_t d = (x & 0x0F0F0F0F0F0F0F0Full) << (8 * (8 - c));
	d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFull;
	d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;
	d = (d * 10000 + (d >> 32)) & 0xFFFFFFFFull;
	*v = (int64_t)d;
	return c;
#else
	(void)p;
	(void)v;
	return 8;
#endif
}

/*
 * One pass over the words after the pid/tid for both questions: the time
 * is the first word ending in ':' ("[cpu]" words may come before it; any
 * other word first means no time), and the line is a record when the
 * first word that is neither "[cpu]" nor all digits and dots before a
 * ':' starts "PERF_RECORD_".  The usual line ("sec.nsec: period event:")
 * is read in one go: the time word, then the next word's first byte
 * decides unless it is '[', 'P' or a digit.
 */
bool sf_perf__event_tail(const char *l, size_t n, size_t from,
			 const char *known, size_t known_len, int64_t *time,
			 bool *known_hit)
{
	size_t i = from;
	int64_t sec = 0, ns = 0;
	int fd = 0;

	*time = SF_NO_TIME;
	*known_hit = false;
	while (i < n && is_space(l[i]))
		i++;
	size_t s = i, c;
	if (n - i >= 8 && (c = digits8(l + i, &sec)) < 8)
		i += c;
	else
		while (i < n && is_digit(l[i]) && sec < INT64_MAX / 100)
			sec = sec * 10 + (l[i++] - '0');
	if (i == s || i >= n || l[i] != '.')
		return tail_words(l, n, from, false, time);
	i++;
	if (n - i >= 8 && (c = digits8(l + i, &ns)) < 8) {
		i += c;
		fd = (int)c;
	} else {
		while (i < n && is_digit(l[i])) {
			if (fd < 9) {
				ns = ns * 10 + (l[i] - '0');
				fd++;
			}
			i++;
		}
	}
	if (i >= n || l[i] != ':' || (i + 1 < n && not_space(l[i + 1])) ||
	    sec > INT64_MAX / 1000000000 - 1)
		return tail_words(l, n, from, false, time);
	static const int64_t pow10[10] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000
	};
	*time = sec * 1000000000 + ns * pow10[9 - fd];
	i++;
	/* the words after the time are those of a line read before */
	if (known && n - i == known_len && mem_eq(l + i, known, known_len)) {
		*known_hit = true;
		return false;
	}
	while (i < n && is_space(l[i]))
		i++;
	if (i == n)
		return false;
	if (is_digit(l[i])) {
		/* the period, unless digits and dots end in ':' */
		while (i < n && (is_digit(l[i]) || l[i] == '.'))
			i++;
		return i < n && l[i] == ':' &&
		       tail_words(l, n, from, false, time);
	}
	if (l[i] == '[' || l[i] == 'P')
		return tail_words(l, n, from, false, time);
	return false;
}

bool sf_perf__is_record_line(const char *l, size_t n, size_t from)
{
	int64_t time;
	bool hit;

	return sf_perf__event_tail(l, n, from, NULL, 0, &time, &hit);
}

/* ----- frame lines ----- */

/* From `q`, a run of non-blanks holding a ')': the dso is up to the last
 * ')' of the run. */
static bool dso_close(const char *l, size_t n, size_t q, size_t *len)
{
	size_t last = 0;
	bool found = false;

	for (size_t i = q; i < n && !is_space(l[i]); i++)
		if (l[i] == ')') {
			last = i;
			found = true;
		}
	if (found)
		*len = last - q;
	return found;
}

bool sf_perf__parse_stack_line(const char *l, size_t n, struct stack_line *s)
{
	size_t i = 0;

	while (i < n && is_space(l[i]))
		i++;
	size_t pcs = i;
	while (i < n && is_word(l[i]))
		i++;
	if (i == pcs)
		return false;
	s->pc = l + pcs;
	s->pc_len = i - pcs;
	size_t ws = i;
	while (i < n && is_space(l[i]))
		i++;
	size_t fs = i;
	/* the rightmost " (" after the symbol start whose following
	 * non-blank run holds a ')' */
	for (size_t p = n; p >= fs + 2 && p >= 2; p--) {
		size_t sp = p - 2;
		if (sp < fs + 1 || l[sp] != ' ' || l[sp + 1] != '(')
			continue;
		if (dso_close(l, n, sp + 2, &s->mod_len)) {
			s->func = l + fs;
			s->func_len = sp - fs;
			s->mod = l + sp + 2;
			return true;
		}
	}
	/* none: (.+) takes one blank back from \s*, as perl backtracks
	 * ("ip  (dso)" gives the symbol " ") */
	if (fs >= ws + 2 && fs < n && l[fs] == '(' && l[fs - 1] == ' ' &&
	    dso_close(l, n, fs + 1, &s->mod_len)) {
		s->func = l + fs - 2;
		s->func_len = 1;
		s->mod = l + fs + 1;
		return true;
	}
	return false;
}

bool sf_perf__parse_stack_line_inferno(const char *l, size_t n,
				       struct stack_line *s)
{
	size_t i = 0;

	while (i < n && is_space(l[i]))
		i++;
	size_t pcs = i;
	while (i < n && l[i] != ' ')
		i++;
	if (i >= n)
		return false;
	size_t pce = i;
	while (pce > pcs && is_space(l[pce - 1]))
		pce--;
	s->pc = l + pcs;
	s->pc_len = pce - pcs;
	size_t rs = i + 1;
	size_t sp = n;
	while (sp > rs && l[sp - 1] != ' ')
		sp--;
	if (sp <= rs)
		return false;   /* no blank between the symbol and "(dso)" */
	const char *m = l + sp;
	size_t ml = n - sp;
	if (ml < 2 || m[0] != '(' || m[ml - 1] != ')')
		return false;
	s->mod = m + 1;
	s->mod_len = ml - 2;
	size_t fs = rs, fe = sp - 1;
	while (fs < fe && is_space(l[fs]))
		fs++;
	while (fe > fs && is_space(l[fe - 1]))
		fe--;
	if (fe == fs) {
		s->func = " ";
		s->func_len = 1;
	} else {
		s->func = l + fs;
		s->func_len = fe - fs;
	}
	return true;
}

bool sf_perf__perl_is_kernel(const char *m, size_t n)
{
	return ((n && m[0] == '[') || ends_with(m, n, "vmlinux")) &&
	       !mem_has(m, n, "unknown");
}

bool sf_perf__inferno_is_kernel(const char *m, size_t n)
{
	if (n == 9 && !memcmp(m, "[unknown]", 9))
		return false;
	if ((n && m[0] == '[') || ends_with(m, n, ".ko"))
		return true;
	/* "vmlinux" followed only by [A-Za-z0-9._-] */
	for (size_t i = n; i >= 7; i--) {
		if (memcmp(m + i - 7, "vmlinux", 7))
			continue;
		for (size_t k = i; k < n; k++)
			if (!(is_word(m[k]) || m[k] == '-' || m[k] == '.'))
				return false;
		return true;
	}
	return false;
}

bool sf_perf__is_perf_map(const char *m, size_t n)
{
	/* m:/tmp/perf-\d+\.map: */
	for (size_t i = 0; i + 10 <= n; i++) {
		if (memcmp(m + i, "/tmp/perf-", 10))
			continue;
		size_t k = i + 10, d = k;
		while (k < n && is_digit(m[k]))
			k++;
		if (k > d && n - k >= 4 && !memcmp(m + k, ".map", 4))
			return true;
	}
	return false;
}

bool sf_perf__inferno_is_jit(const char *m, size_t n)
{
	return (n >= 10 && !memcmp(m, "/tmp/perf-", 10) &&
		ends_with(m, n, ".map")) ||
	       (mem_has(m, n, "/jitted-") && ends_with(m, n, ".so"));
}

void sf_perf__tidy_perl(struct sf_sbuf *b, size_t from)
{
	char *s = b->s + from;
	size_t n = b->len - from;

	for (size_t i = 0; i < n; i++)
		if (s[i] == ';')
			s[i] = ':';
	bool go = false;
	for (size_t i = 0; i + 1 < n && !go; i++) {
		if (s[i] == '.' && s[i + 1] == '(') {
			for (size_t k = i + 2; k + 1 < n; k++)
				if (s[k] == ')' && s[k + 1] == '.') {
					go = true;
					break;
				}
			break;   /* the first ".(" decides: .* is greedy */
		}
	}
	if (!go) {
		for (size_t i = 0; i < n; i++) {
			if (s[i] != '(')
				continue;
			if (n - i >= 21 &&
			    !memcmp(s + i, "(anonymous namespace)", 21))
				continue;
			n = i;
			break;
		}
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '"' && s[i] != '\'')
			s[o++] = s[i];
	b->len = from + o;
	b->s[b->len] = 0;
}

void sf_perf__tidy_inferno(struct sf_sbuf *b, size_t from)
{
	char *s = b->s + from;
	size_t n = b->len - from;
	long depth = 0;
	size_t last_dot = (size_t)-1, cut = n;

	for (size_t i = 0; i < n; i++)
		if (s[i] == ';')
			s[i] = ':';
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '<' || c == '{' || c == '[') {
			depth++;
		} else if (c == '>' || c == '}' || c == ']' || c == ')') {
			depth--;
		} else if (c == '(') {
			if (depth == 0) {
				bool go = last_dot == i;
				bool anon = n - i >= 21 &&
					    !memcmp(s + i,
						    "(anonymous namespace)", 21);
				if (!go && !anon) {
					cut = i;
					break;
				}
			}
			depth++;
		} else if (c == '.') {
			last_dot = i + 1;
		}
	}
	b->len = from + cut;
	b->s[b->len] = 0;
}
