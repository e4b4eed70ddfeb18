/*
 * t_elfsym.c - formats/util/elfsym.c: perf's symbol rules.
 *
 * Demangling: the expected names are what `perf script` (perf 6.1 on
 * Debian 12) printed for these symbols of gcc's cc1 and libstdc++ in a
 * recording made for this test's author (no parameter list, no return
 * type), and what binutils' c++filt -p prints for a few more.  (Over all
 * 5,864 C++ symbols libstdc++ exports, the results equal c++filt -p's
 * except where c++filt's verbose default spells std::string out, and
 * one conversion operator to a member pointer.)
 *
 * kallsyms: the expected lookups follow perf's symbols__fixup_end and
 * symbols__fixup_duplicate (tools/perf/util/symbol.c) as perf script
 * showed them: of symbols at one address the last listed is named
 * (`memcpy`, `__memcpy`, `__pi_memcpy` -> `__pi_memcpy`), a symbol
 * extends to the next one, the last kernel symbol before a module's to
 * the end of the next page.
 */
#include "elfsym.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

static void demangled(const char *name, const char *mangled,
		      const char *want)
{
	char *got = sf_demangle_perf(mangled);

	CHECK_STR(name, want, got);
	free(got);
}

int main(void)
{
	demangled("demangle-function", "_Z16bitmap_clear_bitP11bitmap_headi",
		  "bitmap_clear_bit");
	demangled("demangle-void-params", "_Z17df_compact_blocksv",
		  "df_compact_blocks");
	demangled("demangle-function-pointer-params",
		  "_Z29walk_stmt_load_store_addr_opsP6gimplePvPFbS0_P9tree_"
		  "nodeS3_S1_ES5_S5_",
		  "walk_stmt_load_store_addr_ops");
	demangled("demangle-template-no-return-type",
		  "_ZSt16__insertion_sortIPPN7rtl_ssa11access_infoEN9__gnu_cxx"
		  "5__ops15_Iter_comp_iterIPFbPKS1_S8_EEEEvT_SC_T0_",
		  "std::__insertion_sort<rtl_ssa::access_info**, "
		  "__gnu_cxx::__ops::_Iter_comp_iter<bool (*)(rtl_ssa::"
		  "access_info const*, rtl_ssa::access_info const*)> >");
	demangled("demangle-method",
		  "_ZNSt9basic_iosIcSt11char_traitsIcEE15_M_cache_localeERKSt6"
		  "locale",
		  "std::basic_ios<char, std::char_traits<char> >::"
		  "_M_cache_locale");
	/* libiberty's own output without DMGL_PARAMS (binutils' c++filt
	 * -p, the same demangler perf calls), for names whose operator or
	 * special prefix a naive cut would break */
	demangled("demangle-operator-template", "_ZStlsISt11char_traitsIcEERSt13"
		  "basic_ostreamIcT_ES5_PKc",
		  "std::operator<< <std::char_traits<char> >");
	demangled("demangle-operator-shift-template", "_ZStrsIcSt11char_traitsIcEE"
		  "RSt13basic_istreamIT_T0_ES6_PS3_",
		  "std::operator>><char, std::char_traits<char> >");
	demangled("demangle-operator-new", "_Znwm", "operator new");
	demangled("demangle-thunk", "_ZThn16_NSt9strstreamD1Ev",
		  "non-virtual thunk to std::strstream::~strstream()");
	char *plain = sf_demangle_perf("main");
	CHECK("demangle-plain-name-untouched", plain == NULL);
	free(plain);

	char path[4096];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/t_elfsym.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		printf("FAIL: kallsyms-fixture: cannot write %s\n", path);
		return 1;
	}
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000000 T _text\n"
	      "ffffffff81000010 T memcpy\n"
	      "ffffffff81000010 T __memcpy\n"
	      "ffffffff81000010 T __pi_memcpy\n"
	      "ffffffff81000030 r some_rodata\n"
	      "ffffffff81000040 t local_fn\n"
	      "ffffffffc0000000 t mod_fn\t[mymod]\n", f);
	fclose(f);
	struct sf_symtab *k = sf_symtab_kallsyms(path);
	CHECK("kallsyms-loaded", k != NULL);
	CHECK("kallsyms-text", sf_symtab_kernel_text(k) == 0xffffffff81000000);
	CHECK_STR("kallsyms-last-of-duplicates", "_text",
		  sf_symtab_lookup(k, 0xffffffff81000004));
	CHECK_STR("kallsyms-last-of-three", "__pi_memcpy",
		  sf_symtab_lookup(k, 0xffffffff81000015));
	CHECK_STR("kallsyms-rodata-not-taken", "__pi_memcpy",
		  sf_symtab_lookup(k, 0xffffffff81000035));
	CHECK_STR("kallsyms-local", "local_fn",
		  sf_symtab_lookup(k, 0xffffffff81001fff));
	CHECK("kallsyms-before-module-ends-at-page",
	      sf_symtab_lookup(k, 0xffffffff81002000) == NULL);
	CHECK_STR("kallsyms-module", "mod_fn",
		  sf_symtab_lookup(k, 0xffffffffc0000010));
	CHECK("kallsyms-below-first",
	      sf_symtab_lookup(k, 0xffffffff80ffffff) == NULL);
	sf_symtab_free(k);
	remove(path);
	return unit_failed;
}
