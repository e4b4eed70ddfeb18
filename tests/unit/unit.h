/*
 * unit.h - a tiny harness for the C unit tests in tests/unit/.  Each check
 * prints "PASS: name" or "FAIL: name: where"; main returns non-zero when a
 * check failed.
 */
#ifndef SF_UNIT_H
#define SF_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int unit_failed;

#define CHECK(name, cond)                                                  \
	do {                                                               \
		if (cond) {                                                \
			printf("PASS: %s\n", name);                        \
		} else {                                                   \
			printf("FAIL: %s: %s:%d: %s\n", name, __FILE__,    \
			       __LINE__, #cond);                           \
			unit_failed = 1;                                   \
		}                                                          \
	} while (0)

#define CHECK_STR(name, want, got)                                         \
	do {                                                               \
		const char *w_ = (want), *g_ = (got);                      \
		if (w_ && g_ && !strcmp(w_, g_)) {                         \
			printf("PASS: %s\n", name);                        \
		} else {                                                   \
			printf("FAIL: %s: expected \"%s\", got \"%s\"\n",  \
			       name, w_ ? w_ : "(null)", g_ ? g_ : "(null)"); \
			unit_failed = 1;                                   \
		}                                                          \
	} while (0)

/* A fixed pseudo-random sequence (xorshift64) for property checks: the
 * same cases on every run. */
static uint64_t unit_rng = 88172645463325252ull;

static inline uint32_t unit_rnd(uint32_t n)
{
	unit_rng ^= unit_rng << 13;
	unit_rng ^= unit_rng >> 7;
	unit_rng ^= unit_rng << 17;
	return (uint32_t)(unit_rng % n);
}

#endif
