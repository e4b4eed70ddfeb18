/*
 * text.h - internal helpers shared by the text formats: number parsing,
 * stack splitting with a whole-line cache, writing a stack as
 * `root;...;leaf`, and two helpers for every format's probe.
 */
#ifndef SF_TEXT_H
#define SF_TEXT_H

#include "format.h"
#include "hash.h"

/* Parse a non-negative decimal weight ("12", "0.5", "1e3") occupying all
 * of s[0..n).  Returns false if it is not one. */
bool sf_parse_weight(const char *s, size_t n, double *out);
/* Parse a signed decimal integer occupying all of s[0..n). */
bool sf_parse_i64(const char *s, size_t n, int64_t *out);

/*
 * A cache from the text of a whole `a;b;c` stack to its stack id: a stack
 * seen before costs one hash and one memcmp, however deep it is.  Memory:
 * the text of each unique stack once.  When stacks rarely repeat (fewer
 * hits than cached stacks each time it has doubled past 64K) the cache
 * turns itself off and is freed: a million distinct stacks would
 * otherwise hold their text twice for nothing.  (Checking a hit against
 * the stack's own frames instead of a copy of the text halves the speed
 * of the common case, many repeats of few stacks.)
 */
struct sf_stack_cache {
	struct sf_idx idx;
	char **texts;
	uint32_t *lens;
	sf_stack_id *ids;
	size_t n, cap;
	size_t hits;
	bool off;
};

void sf_stack_cache_free(struct sf_stack_cache *c);

/* The checks every line-oriented text reader makes on a line: a UTF-8
 * byte-order mark is dropped from the first line (*first is cleared), and
 * a NUL byte is refused (names are C strings in the model, so a NUL would
 * cut one short silently; it means binary data, not text).  Returns 0 or
 * SF_EINPUT with the error set at `name`:`lineno`. */
int sf_text_line_check(struct sf_ctx *ctx, const char *name, uint64_t lineno,
		       bool *first, char **line, size_t *len);

/* For writers of line text whose readers drop a byte-order mark from
 * the start of the input (collapsed, difffolded): called with the first
 * name of the first line, before it is written.  A name that begins with
 * a mark (EF BB BF, FE FF, FF FE: names are carried byte-exact, so any
 * bytes may start one) would lose it, or turn the file into UTF-16, when
 * the output is read back; so an empty line is written first, which the
 * readers skip and which moves the name off the first bytes. */
void sf_text_guard_mark(struct sf_output *o, const char *name, size_t len);

/* The split function (struct sf_format) of a format whose every line is
 * one record: the offset just after the first LF at or after pos - 1. */
size_t sf_text_split_lines(const char *data, size_t size, size_t pos);

/* The stack for `text` (frames separated by ';', root first), made with
 * sf_profile_frame_named for each frame.  An empty text is the empty
 * stack.  Frames are split on every ';' (names in this syntax cannot hold
 * one). */
int sf_stack_from_text(struct sf_profile *p, struct sf_ctx *ctx,
		       struct sf_stack_cache *cache, const char *text,
		       size_t len, sf_stack_id *out);

/* Write the frames of `stack`, root first, separated by ';'.  In names,
 * ';' becomes ':' and LF, CR and TAB become spaces, so the result is one
 * field of one line.  `prefix`, if not NULL, is written as an extra root
 * frame (sanitised the same way). */
void sf_write_stack_text(struct sf_output *o, const struct sf_profile *p,
			 sf_stack_id stack, const char *prefix);
/* Write one name sanitised as above. */
void sf_write_name_text(struct sf_output *o, const char *name);

/* Helpers for probes: they live here, not beside the format table, so
 * that the formats and the table that names them do not call each
 * other. */
/* Skip a UTF-8 BOM and leading whitespace; returns the offset. */
size_t sf_probe_skip_space(const unsigned char *d, size_t n);
/* Does `d` start with `s`? */
bool sf_probe_prefix(const unsigned char *d, size_t n, const char *s);

#endif
