/* Unit tests of the Rust-name repair shared by the perf, dtrace, sample and
 * xctrace readers; expectations are inferno's documented examples and the
 * legacy mangling's escape table. */
#include "unit.h"
#include "rustsym.h"

#include <stdlib.h>

static const char *fix(struct sf_sbuf *b, const char *s)
{
	b->len = 0;
	if (!sf_fix_rust_symbol(b, s, strlen(s)))
		return NULL;
	return b->s ? b->s : "";
}

int main(void)
{
	struct sf_sbuf b = { 0 };

	CHECK_STR("rust-doc-example",
		  "<grep_searcher::searcher::glue::ReadByLine<'s, M, R, S>>::run",
		  fix(&b, "_$LT$grep_searcher..searcher..glue..ReadByLine$LT$"
			  "$u27$s$C$$u20$M$C$$u20$R$C$$u20$S$GT$$GT$::run::"
			  "h30ecedc997ad7e32"));
	CHECK_STR("rust-closure",
		  "std::rt::lang_start::_{{closure}}",
		  fix(&b, "std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$"
			  "::h7cd9ec399e9db3f7"));
	CHECK_STR("rust-plain-hash-removed", "rg::main",
		  fix(&b, "rg::main::h6909bd3a32e27a08"));
	CHECK_STR("not-rust-unchanged", "std::vector<int>::push_back",
		  fix(&b, "std::vector<int>::push_back"));
	CHECK_STR("short-hash-unchanged", "foo::h123",
		  fix(&b, "foo::h123"));
	CHECK_STR("non-hex-hash-unchanged", "foo::hzz23456789abcdef",
		  fix(&b, "foo::hzz23456789abcdef"));
	CHECK_STR("unknown-escape-kept", "a::$XX$b",
		  fix(&b, "a..$XX$b::h0123456789abcdef"));
	CHECK("hashed", sf_rust_hashed("x::h0123456789abcdef", 20));
	CHECK("not-hashed", !sf_rust_hashed("x::g0123456789abcdef", 20));
	sf_sbuf_free(&b);
	return unit_failed;
}
