/*
 * t_units.c - weights written for people (analyze/units.c).  Expected
 * strings worked out by hand from pprof's rule (largest unit with a value
 * of at least 1, "%.2f", ".00" dropped): 675224100 ns = 0.675224100 s =
 * 675.2241 ms -> "675.22ms".
 */
#include "analyze.h"
#include "unit.h"

static const char *f(double v, const char *unit, bool raw)
{
	static char buf[64];

	sf_an_fmt_unit(buf, sizeof(buf), v, unit, raw);
	return buf;
}

int main(void)
{
	/* time */
	CHECK_STR("ns-ms", "675.22ms", f(675224100, "nanoseconds", false));
	CHECK_STR("ns-s", "23.99s", f(23987487463.5, "nanoseconds", false));
	CHECK_STR("ns-plain", "999ns", f(999, "nanoseconds", false));
	CHECK_STR("ns-us", "1us", f(1000, "nanoseconds", false));
	CHECK_STR("ns-keep-zero", "1.50s", f(1.5e9, "nanoseconds", false));
	CHECK_STR("ns-half", "12.50ns", f(12.5, "nanoseconds", false));
	CHECK_STR("ns-hours", "2hrs", f(7200e9, "nanoseconds", false));
	CHECK_STR("ms-unit", "1.23s", f(1234, "milliseconds", false));
	CHECK_STR("us-short", "10ms", f(10000, "us", false));
	CHECK_STR("seconds", "500ms", f(0.5, "seconds", false));
	CHECK_STR("zero", "0", f(0, "nanoseconds", false));
	CHECK_STR("negative", "-2.50ms", f(-2.5e6, "nanoseconds", false));
	/* bytes: 1024-based as pprof */
	CHECK_STR("bytes-plain", "512B", f(512, "bytes", false));
	CHECK_STR("bytes-kB", "1.50kB", f(1536, "bytes", false));
	CHECK_STR("bytes-MB", "3MB", f(3 * 1048576.0, "bytes", false));
	/* counts: plain below 100000 */
	CHECK_STR("count-plain", "99999", f(99999, "count", false));
	CHECK_STR("count-k", "123.46k", f(123456, "count", false));
	CHECK_STR("events-M", "2.50M", f(2500000, "events", false));
	CHECK_STR("count-frac", "2.5", f(2.5, "count", false));
	/* unknown units and --raw: the exact number */
	CHECK_STR("other", "123456", f(123456, "widgets", false));
	CHECK_STR("raw", "675224100", f(675224100, "nanoseconds", true));
	CHECK_STR("raw-half", "23987487463.5",
		  f(23987487463.5, "nanoseconds", true));
	/* sf_an_fmt writes a whole value's digits itself: printf's "%.0f"
	 * of it, on values of every length, both signs, -0, and into
	 * buffers too small (cut as snprintf cuts) */
	{
		static const double edge[] = { 0.0, -0.0, 1, -1, 9, 10, 99,
			100, 1e14 - 1, 1e14, 999999999999999.0,
			-999999999999999.0, 4503599627370496.0 / 8 };
		char want[64], got[64];
		int bad = 0;
		for (int i = 0; i < 200000 && bad < 3; i++) {
			double v;
			size_t size = sizeof(got);
			if (i < (int)(sizeof(edge) / sizeof(edge[0]))) {
				v = edge[i];
			} else {
				uint64_t u = ((uint64_t)unit_rnd(1u << 30) << 20 |
					      unit_rnd(1u << 20)) >>
					     unit_rnd(50);
				v = (double)(u % 999999999999999u);
				if (unit_rnd(2))
					v = -v;
				if (!unit_rnd(8))
					size = 1 + unit_rnd(8);
			}
			snprintf(want, size, "%.0f", v);
			sf_an_fmt(got, size, v);
			if (strcmp(want, got)) {
				printf("FAIL: fmt-whole-%d: %.17g in %zu: "
				       "expected \"%s\", got \"%s\"\n",
				       i, v, size, want, got);
				bad++;
			}
		}
		if (bad)
			unit_failed = 1;
		else
			printf("PASS: fmt-whole\n");
	}
	CHECK_STR("family-time", "time", sf_an_unit_family("nanoseconds"));
	CHECK_STR("family-bytes", "bytes", sf_an_unit_family("bytes"));
	CHECK_STR("family-count", "count", sf_an_unit_family("events"));
	CHECK_STR("family-other", "other", sf_an_unit_family("widgets"));
	return unit_failed;
}
