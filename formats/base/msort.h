/*
 * msort.h - a merge sort with its comparison inline, for arrays of small
 * records sorted often enough that qsort's call per comparison and its
 * generic copies show (the collapsed writer's name keys, the call
 * graph's lists).  SF_MSORT_DEFINE(name, type, ctxtype, less) defines
 *
 *     static void name(type *a, size_t n, type *tmp, const ctxtype *c);
 *
 * sorting a[0..n) stably by less(x, y, c) (x before y), with room for
 * n / 2 records at tmp: runs of 16 sorted by insertion, halves merged
 * with the left half moved out (the output never passes the right
 * half's next record), no merge where the halves are in order already.
 */
#ifndef SF_MSORT_H
#define SF_MSORT_H

#include <stddef.h>
#include <string.h>

#define SF_MSORT_DEFINE(name, type, ctxtype, less)                         \
static void name(type *a, size_t n, type *tmp, const ctxtype *c)          \
{                                                                         \
	size_t h = n / 2, i = 0, j = h, k = 0;                            \
                                                                          \
	if (n <= 16) {                                                    \
		for (size_t m = 1; m < n; m++) {                          \
			type x = a[m];                                    \
			size_t at = m;                                    \
			for (; at && less(&x, &a[at - 1], c); at--)       \
				a[at] = a[at - 1];                        \
			a[at] = x;                                        \
		}                                                         \
		return;                                                   \
	}                                                                 \
	name(a, h, tmp, c);                                               \
	name(a + h, n - h, tmp, c);                                       \
	if (!less(&a[h], &a[h - 1], c))                                   \
		return;                                                   \
	memcpy(tmp, a, h * sizeof(*a));                                   \
	while (i < h && j < n)                                            \
		a[k++] = less(&a[j], &tmp[i], c) ? a[j++] : tmp[i++];     \
	while (i < h)                                                     \
		a[k++] = tmp[i++];                                        \
}

#endif
