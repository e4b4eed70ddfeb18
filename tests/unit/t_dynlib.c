/*
 * t_dynlib.c - loading a library on first use (formats/base/dynlib.h):
 * the slots are set only when the library and every symbol are there, a
 * failure is one SF_EIO line naming the library and is given again on
 * every later call, and a loaded function is the library's own (checked
 * against values from the C standard's functions in libm).
 */
#include "dynlib.h"
#include "unit.h"

#include <string.h>

static const char *const math_names[] = { "cos", "sqrt" };
static const char *const bad_names[] = { "cos", "sf_no_such_symbol" };

static struct {
	double (*f_cos)(double);
	double (*f_sqrt)(double);
} m;
#define MATH_FUNCS(X) X(cos) X(sqrt)

int main(void)
{
	struct sf_ctx ctx;

	sf_ctx_init(&ctx);
	struct sf_dynlib absent = { "a test library", "libsftools-absent.so.0",
				    math_names, &m, 2, 0, "" };
	CHECK("dynlib-absent-eio", sf_dynlib_load(&absent, &ctx) == SF_EIO);
	const char *want = "cannot load a test library "
			   "(libsftools-absent.so.0): ";
	CHECK("dynlib-absent-message",
	      !strncmp(ctx.err.msg, want, strlen(want)));
	sf_ctx_init(&ctx);
	CHECK("dynlib-absent-again", sf_dynlib_load(&absent, &ctx) == SF_EIO &&
	      strstr(ctx.err.msg, "libsftools-absent.so.0"));
	CHECK("dynlib-absent-no-slot", !m.f_cos && !m.f_sqrt);

	sf_ctx_init(&ctx);
	struct sf_dynlib bad = { "libm", "libm.so.6", bad_names, &m, 2, 0,
				 "" };
	CHECK("dynlib-symbol-eio", sf_dynlib_load(&bad, &ctx) == SF_EIO);
	CHECK("dynlib-symbol-message",
	      strstr(ctx.err.msg, "no symbol sf_no_such_symbol") != NULL);
	CHECK("dynlib-symbol-no-slot", !m.f_cos && !m.f_sqrt);

	sf_ctx_init(&ctx);
	struct sf_dynlib math = SF_DYNLIB_INIT("libm", "libm.so.6", m,
					       MATH_FUNCS);
	CHECK("dynlib-load", sf_dynlib_load(&math, &ctx) == 0);
	CHECK("dynlib-calls", m.f_cos && m.f_sqrt && m.f_cos(0.0) == 1.0 &&
	      m.f_sqrt(16.0) == 4.0);
	CHECK("dynlib-load-again", sf_dynlib_load(&math, &ctx) == 0);
	return unit_failed;
}
