/* splitmix.h - the benchmark generators' deterministic random numbers
 * (splitmix64); set `s` to the seed first. */
#ifndef BENCH_SPLITMIX_H
#define BENCH_SPLITMIX_H
#include <stdint.h>

static uint64_t s;

static uint64_t rnd(void)
{
	uint64_t z = (s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
#endif
