/*
 * perf.h - what the two perf readers share: the `perf script` reader
 * (fmt_perf.c, perf_script.h) and the perf.data reader (fmt_perfdata.c,
 * perfdata.h), which names its frames as the first would name perf
 * script's lines for them.
 *
 * perf_dialects.c holds the line parsers of the two dialects the text
 * reader follows: FlameGraph's stackcollapse-perf.pl ("perl") and
 * inferno-collapse-perf ("inferno", with --inferno), which split event and
 * frame lines differently.  All parsers take a line without its newline
 * and only look at it: no allocation, no errors.
 *
 * perf_cache.c holds the stack cache both readers keep (struct
 * sf_perf_acache).
 */
#ifndef SF_PERF_H
#define SF_PERF_H

#include "profile.h"
#include "rustsym.h"
#include "text.h"
#include "chars.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Character classes of the C locale, as perl's regexes see them. */
static inline bool is_space(char c)
{
	/* ' ', or '\t' '\v' '\f' '\r' (9, 11-13): one compare for most
	 * bytes */
	return c == ' ' || ((unsigned char)(c - '\t') <= 4 && c != '\n');
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline uint64_t load8(const char *s)
{
	uint64_t v;

	memcpy(&v, s, 8);
	return v;
}

/* memcmp(a, b, n) == 0, without the call for 8 to 32 bytes (an event
 * line's prefix or tail): the first and last 8 bytes of each, and
 * beyond 16 the 8 after the first and before the last. */
static inline bool mem_eq(const char *a, const char *b, size_t n)
{
	if (n < 8 || n > 32)
		return !memcmp(a, b, n);
	uint64_t d = (load8(a) ^ load8(b)) |
		     (load8(a + n - 8) ^ load8(b + n - 8));
	if (n > 16)
		d |= (load8(a + 8) ^ load8(b + 8)) |
		     (load8(a + n - 16) ^ load8(b + n - 16));
	return !d;
}

static inline bool mem_has(const char *s, size_t n, const char *needle)
{
	size_t m = strlen(needle);

	if (m > n)
		return false;
	for (size_t i = 0; i + m <= n; i++)
		if (s[i] == needle[0] && !memcmp(s + i, needle, m))
			return true;
	return false;
}

/* ----- the event line: "comm pid/tid [cpu] time: period event:" ----- */

struct event_line {
	const char *comm;
	size_t comm_len;
	const char *pid, *tid;   /* pid NULL when only a tid was printed */
	size_t pid_len, tid_len;
	size_t end;              /* after the pid/tid and the blanks */
};
/* ----- frame lines: "ip symbol+off (dso)" ----- */

struct stack_line {
	const char *pc, *func, *mod;
	size_t pc_len, func_len, mod_len;
};

/*
 * stackcollapse-perf.pl's event regex /^(\S.+?)\s+(\d+)\/{0,}(\d+)? \s+ (in perl): the
 * shortest comm (at least two characters, not starting with a blank) that
 * is followed by blanks, a number, optionally slashes and a second number,
 * and a blank.
 */
bool sf_perf__parse_event_perl(const char *l, size_t n, struct event_line *e);

/*
 * inferno's event_line_parts: the first all-digit word (optionally
 * "pid/tid") followed by a space; the comm is what comes before it,
 * trimmed.  Accepts indented event lines.
 */
bool sf_perf__parse_event_inferno(const char *l, size_t n,
				  struct event_line *e);

/*
 * The event name and period, perl's /:\s*(\d+)*\s+(\S+):\s*$/: the last
 * word ends with ':' (the event is that word without it), and before it
 * come blanks, optionally a number (the period), optionally blanks, and a
 * ':' (the end of the timestamp).
 */
bool sf_perf__parse_event_type(const char *l, size_t n, const char **ev,
			       size_t *ev_len, double *period);

/* inferno: the event is the last word of the text between the first and
 * second ':' after the pid/tid; a third part is a one-frame stack. */
bool sf_perf__parse_event_type_inferno(const char *l, size_t n, size_t from,
				       const char **ev, size_t *ev_len,
				       double *period, const char **rest,
				       size_t *rest_len);

/* A side-band record, not a sample: after the pid/tid, "[cpu]" and time
 * words, a word starting "PERF_RECORD_" (perf script --show-task-events,
 * --show-mmap-events, --show-switch-events, --show-lost-events ...). */
bool sf_perf__is_record_line(const char *l, size_t n, size_t from);

/* sf_perf__is_record_line, and in the same pass the timestamp: the first
 * "digits.digits:" word after the pid/tid, in nanoseconds (SF_NO_TIME
 * without one).  `known` (may be NULL): the words after the time word of
 * a line known not to be a record; a line ending in them after its time
 * word is answered at once, *known_hit set. */
bool sf_perf__event_tail(const char *l, size_t n, size_t from,
			 const char *known, size_t known_len, int64_t *time,
			 bool *known_hit);

/*
 * perl's /^\s*(\w+)\s*(.+) \((\S*)\)/: a word (the ip), then the symbol,
 * then the last " (dso)" whose dso has no blanks.
 */
bool sf_perf__parse_stack_line(const char *l, size_t n, struct stack_line *s);

/* inferno's stack_line_parts: ip, then the symbol, then the last word,
 * which must be "(dso)". */
bool sf_perf__parse_stack_line_inferno(const char *l, size_t n,
				       struct stack_line *s);

bool sf_perf__perl_is_kernel(const char *m, size_t n);

bool sf_perf__inferno_is_kernel(const char *m, size_t n);

bool sf_perf__is_perf_map(const char *m, size_t n);

bool sf_perf__inferno_is_jit(const char *m, size_t n);

/* perl's tidy_generic on b->s[from..]: ';' -> ':', drop the argument list
 * (unless a Go method ".(...)." or "(anonymous namespace)"), drop quotes. */
void sf_perf__tidy_perl(struct sf_sbuf *b, size_t from);

/* inferno's tidy_generic: ';' -> ':', drop the first top-level argument
 * list (brackets <>{}[] nest), keeping Go ".(" and anonymous namespaces. */
void sf_perf__tidy_inferno(struct sf_sbuf *b, size_t from);

/* ----- the stack cache ----- */

/*
 * An array-keyed cache: a key of bytes (a sample's frame ids, or the
 * words of a perf.data sample's call chain and what it depends on) -> the
 * model stack made of it, so that a stack seen before costs one hash and
 * one memcmp instead of a model lookup (or a resolution) per frame.  The
 * keys are kept back to back in `keys`.  Zeroed memory is an empty cache.
 */
struct sf_perf_acache {
	struct sf_idx idx;
	unsigned char *keys;
	size_t len, cap;
	struct sf_perf_aent {
		size_t off, len;
		sf_stack_id stack;
	} *ents;
	size_t nents, cap_ents;
};

/* The stack of `key` (`bytes` long, hash `h`), if it was added. */
bool sf_perf__acache_find(const struct sf_perf_acache *c, const void *key,
			  size_t bytes, uint64_t h, sf_stack_id *out);

/* Add `key` -> `stack`; a key that would take the cache past `max` bytes
 * of keys is not kept (callers resolve it again next time, with the same
 * result).  Returns 0, or SF_ENOMEM through ctx. */
int sf_perf__acache_add(struct sf_perf_acache *c, struct sf_ctx *ctx,
			const void *key, size_t bytes, uint64_t h,
			sf_stack_id stack, size_t max);

void sf_perf__acache_free(struct sf_perf_acache *c);

/* The read options both readers take, with the meaning
 * stackcollapse-perf.pl gives them (the rows of each reader's table). */
#define SF_PERF_COMMON_ROPTS                                                \
	{ "pid", NULL, "perf: root frame COMM-PID (stackcollapse-perf.pl "   \
	  "--pid)" },                                                         \
	{ "tid", NULL, "perf: root frame COMM-PID/TID (--tid)" },             \
	{ "kernel", NULL, "perf: append _[k] to kernel frames (--kernel)" },  \
	{ "jit", NULL, "perf: append _[j] to JIT frames (--jit)" },           \
	{ "all", NULL, "perf: --kernel and --jit (--all)" }
#define SF_PERF_EVENT_FILTER_ROPT                                           \
	{ "event-filter", "EVENT", "perf: keep only events of type EVENT "   \
	  "(default: the first event type seen)" }

#endif
