/*
 * perfdata_header.c - the perf.data file header, its event attributes and
 * features (EVENT_DESC, BUILD_ID), and the header records a pipe-mode
 * file carries instead (perfdata.h).
 */
#include "perfdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----- attrs and event names ----- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static void default_name(struct pd_attr *a)
{
	if (a->type == 0 && a->config < sizeof(hw_names) / sizeof(*hw_names))
		snprintf(a->name, sizeof(a->name), "%s", hw_names[a->config]);
	else if (a->type == 1 &&
		 a->config < sizeof(sw_names) / sizeof(*sw_names))
		snprintf(a->name, sizeof(a->name), "%s", sw_names[a->config]);
	else
		snprintf(a->name, sizeof(a->name), "event-%u-0x%llx", a->type,
			 (unsigned long long)a->config);
}

/* Read a perf_event_attr of `len` bytes at `off`. */
static int parse_attr(struct pd_state *st, uint64_t off, size_t len,
		      struct pd_attr *a)
{
	const unsigned char *b = st->d + off;

	if (len < 64)
		return bad(st, off, "perf_event_attr shorter than 64 bytes");
	memset(a, 0, sizeof(*a));
	a->off = off;
	a->type = rd32(b);
	a->config = rd64(b + 8);
	a->period = rd64(b + 16);
	a->sample_type = rd64(b + 24);
	a->read_format = rd64(b + 32);
	uint64_t flags = rd64(b + 40);
	a->freq = flags >> 10 & 1;
	a->sample_id_all = flags >> 18 & 1;
	if (len >= 80)
		a->branch_type = rd64(b + 72);
	if (len >= 88)
		a->regs_user = rd64(b + 80);
	default_name(a);
	return 0;
}

static int add_id(struct pd_state *st, uint64_t id, uint32_t attr)
{
	uint32_t have;

	if (m64_find(&st->id_idx, id, &have))
		return 0;
	if (!grow((void **)&st->id_attr, &st->cap_ids, st->nids + 1,
		  sizeof(*st->id_attr)) ||
	    !m64_add(&st->id_idx, id, (uint32_t)st->nids, st->cap_ids))
		return sf_error_nomem(st->ctx);
	st->id_attr[st->nids++] = attr;
	return 0;
}

static int new_attr(struct pd_state *st, struct pd_attr **out)
{
	if (!grow((void **)&st->attrs, &st->cap_attrs, st->nattrs + 1,
		  sizeof(*st->attrs)))
		return sf_error_nomem(st->ctx);
	*out = &st->attrs[st->nattrs++];
	return 0;
}

/* Bytes of the sample_id trailer of a non-sample record. */
size_t sf_pd__trailer_size(const struct pd_attr *a)
{
	uint64_t t = a->sample_type;
	size_t n = 0;

	if (!a->sample_id_all)
		return 0;
	n += (t & S_TID) ? 8 : 0;
	n += (t & S_TIME) ? 8 : 0;
	n += (t & S_ID) ? 8 : 0;
	n += (t & S_STREAM_ID) ? 8 : 0;
	n += (t & S_CPU) ? 8 : 0;
	n += (t & S_IDENTIFIER) ? 8 : 0;
	return n;
}

/* The attr of a record at `off` of `size` bytes (type `type`). */
const struct pd_attr *sf_pd__attr_of(struct pd_state *st, uint64_t off,
				     uint32_t type, size_t size)
{
	const struct pd_attr *a0 = &st->attrs[0];
	uint64_t id;
	uint32_t k;

	if (st->nattrs == 1)
		return a0;
	if (a0->sample_type & S_IDENTIFIER) {
		if (type == R_SAMPLE) {
			if (size < 16)
				return NULL;
			id = rd64(st->d + off + 8);
		} else {
			if (!a0->sample_id_all || size < 16)
				return a0;
			id = rd64(st->d + off + size - 8);
		}
	} else if (type == R_SAMPLE && (a0->sample_type & S_ID)) {
		uint64_t t = a0->sample_type;
		size_t pos = 8 + ((t & S_IP) ? 8 : 0) + ((t & S_TID) ? 8 : 0) +
			     ((t & S_TIME) ? 8 : 0) + ((t & S_ADDR) ? 8 : 0);
		if (pos + 8 > size)
			return NULL;
		id = rd64(st->d + off + pos);
	} else {
		return a0;
	}
	if (!m64_find(&st->id_idx, id, &k))
		return NULL;
	return &st->attrs[st->id_attr[k]];
}

/* The model's sample type of `a`, made on first use. */
int sf_pd__attr_type(struct pd_state *st, struct pd_attr *a)
{
	char name[128];
	const char *unit;
	int rc;

	if (a->typed)
		return 0;
	snprintf(name, sizeof(name), "%s", a->name);
	char *colon = strrchr(name, ':');
	if (colon && colon[1] &&
	    strspn(colon + 1, "ukhpPGHISDWe") == strlen(colon + 1))
		*colon = 0;
	if (!(a->sample_type & S_PERIOD) && !a->period) {
		/* perf script prints no period: stackcollapse-perf.pl
		 * counts one per sample */
		snprintf(name, sizeof(name), "samples");
		unit = "count";
	} else if (!strcmp(name, "cpu-clock") || !strcmp(name, "task-clock")) {
		unit = "nanoseconds";
	} else {
		unit = "events";
	}
	if ((rc = sf_profile_sample_type(st->p, st->ctx, name, unit,
					 &a->mtype)))
		return rc;
	a->typed = true;
	if (!st->default_set) {
		st->p->d.meta.default_type = a->mtype;
		st->default_set = true;
		if ((rc = sf_profile_set_prop(st->p, st->ctx, "perf.event",
					      a->name)))
			return rc;
	}
	return 0;
}

/* ----- features ----- */

/* EVENT_DESC: u32 nr, u32 attr_size, then per event the attr, u32 nr_ids,
 * a perf_header_string (u32 len, chars) and the ids. */
static int feat_event_desc(struct pd_state *st, uint64_t off, uint64_t size)
{
	const unsigned char *b = st->d + off;
	uint64_t end = off + size, pos = off + 8;

	if (size < 8)
		return 0;
	uint32_t nr = rd32(b), asz = rd32(b + 4);
	for (uint32_t i = 0; i < nr; i++) {
		if (pos + asz + 8 > end)
			return truncated(st, pos, "an EVENT_DESC entry");
		uint64_t aoff = pos;
		pos += asz;
		uint32_t nids = rd32(st->d + pos);
		uint32_t slen = rd32(st->d + pos + 4);
		pos += 8;
		if (pos + slen + (uint64_t)nids * 8 > end)
			return truncated(st, pos, "an EVENT_DESC entry");
		const char *s = (const char *)st->d + pos;
		size_t sl = strnlen(s, slen);
		pos += slen;
		/* the attr this entry describes: by its first id, else by
		 * its place */
		struct pd_attr *a = NULL;
		uint32_t k;
		if (nids && m64_find(&st->id_idx, rd64(st->d + pos), &k))
			a = &st->attrs[st->id_attr[k]];
		else if (i < st->nattrs && !nids)
			a = &st->attrs[i];
		(void)aoff;
		if (a && sl) {
			snprintf(a->name, sizeof(a->name), "%.*s",
				 (int)(sl < 120 ? sl : 120), s);
			a->have_name = true;
		}
		pos += (uint64_t)nids * 8;
	}
	return 0;
}

/* One build_id record (perf_record_header_build_id) at off. */
static int build_id_rec(struct pd_state *st, uint64_t off, size_t size)
{
	const unsigned char *b = st->d + off;

	if (size < 8 + 4 + 24)
		return 0;
	uint16_t misc = rd16(b + 4);
	size_t len = 20;
	if (misc & MISC_BUILD_ID_SIZE) {
		len = b[12 + 20];
		if (len > 20)
			len = 20;
	}
	const char *name = (const char *)b + 36;
	size_t nl = strnlen(name, size - 36);
	return sf_pd__add_bid(st, name, nl, b + 12, len);
}

static int feat_build_id(struct pd_state *st, uint64_t off, uint64_t size)
{
	uint64_t pos = off, end = off + size;
	int rc;

	while (pos + 8 <= end) {
		uint16_t sz = rd16(st->d + pos + 6);
		if (sz < 8 || pos + sz > end)
			return bad(st, pos, "malformed BUILD_ID feature record");
		if ((rc = build_id_rec(st, pos, sz)))
			return rc;
		pos += sz;
	}
	return 0;
}

int sf_pd__header_record(struct pd_state *st, uint64_t off, uint32_t type,
			 size_t size)
{
	const unsigned char *b = st->d + off;
	int rc;

	switch (type) {
	case R_HEADER_ATTR: {
		if (size < 8 + 8)
			return bad(st, off, "attr record too short");
		uint32_t asz = rd32(b + 8 + 4);
		if (asz < 64 || 8 + (size_t)asz > size)
			return bad(st, off, "attr record with a bad attr size");
		struct pd_attr *a = NULL;
		if ((rc = new_attr(st, &a)) ||
		    (rc = parse_attr(st, off + 8, asz, a)))
			return rc;
		for (size_t p = 8 + asz; p + 8 <= size; p += 8)
			if ((rc = add_id(st, rd64(b + p),
					 (uint32_t)(st->nattrs - 1))))
				return rc;
		return 0;
	}
	case R_HEADER_BUILD_ID:
		return build_id_rec(st, off, size);
	case R_EVENT_UPDATE: {
		/* type 2 (NAME): u64 type, u64 id, char name[] */
		uint32_t k;
		if (size < 24 || rd64(b + 8) != 2 ||
		    !m64_find(&st->id_idx, rd64(b + 16), &k))
			return 0;
		struct pd_attr *a = &st->attrs[st->id_attr[k]];
		const char *n = (const char *)b + 24;
		size_t nl = strnlen(n, size - 24);
		if (nl) {
			snprintf(a->name, sizeof(a->name), "%.*s",
				 (int)(nl < 120 ? nl : 120), n);
			a->have_name = true;
		}
		return 0;
	}
	case R_COMPRESSED:
		return bad(st, off, "perf.data with compressed records "
			   "(perf record -z) is not read; convert its text "
			   "instead: perf script -i FILE | sfconv --from perf");
	default:
		return 0;
	}
}

int sf_pd__read_file_header(struct pd_state *st, uint64_t *data_off,
			    uint64_t *data_end)
{
	const unsigned char *d = st->d;
	int rc;

	if (st->size < HEADER_SIZE)
		return truncated(st, 0, "the file header");
	uint64_t attr_size = rd64(d + 16);
	uint64_t aoff = rd64(d + 24), asize = rd64(d + 32);
	uint64_t doff = rd64(d + 40), dsize = rd64(d + 48);
	if (attr_size < 64 + 16 || attr_size > 4096)
		return bad(st, 16, "bad attr entry size in the file header");
	if (aoff > st->size || asize > st->size - aoff)
		return truncated(st, 24, "the attrs section");
	if (doff > st->size || dsize > st->size - doff)
		return truncated(st, 40, "the data section");
	if (!dsize)
		return bad(st, 48, "perf.data with a data size of 0: perf "
			   "record did not finish writing it (was it killed?)");
	for (uint64_t p = aoff; p + attr_size <= aoff + asize;
	     p += attr_size) {
		struct pd_attr *a = NULL;
		uint32_t asz = rd32(d + p + 4);
		if (!asz || asz > attr_size - 16)
			asz = (uint32_t)(attr_size - 16);
		if ((rc = new_attr(st, &a)) ||
		    (rc = parse_attr(st, p, asz, a)))
			return rc;
		uint64_t ioff = rd64(d + p + attr_size - 16);
		uint64_t isize = rd64(d + p + attr_size - 8);
		if (ioff > st->size || isize > st->size - ioff)
			return truncated(st, p + attr_size - 16,
					 "an attr's id list");
		for (uint64_t q = 0; q + 8 <= isize; q += 8)
			if ((rc = add_id(st, rd64(d + ioff + q),
					 (uint32_t)(st->nattrs - 1))))
				return rc;
	}
	if (!st->nattrs)
		return bad(st, 24, "perf.data without event attributes");
	/* the feature sections follow the data */
	uint64_t fpos = doff + dsize;
	for (int bit = 0; bit < 256; bit++) {
		uint64_t word = rd64(d + 72 + (bit / 64) * 8);
		if (!(word >> (bit % 64) & 1))
			continue;
		if (fpos + 16 > st->size)
			return truncated(st, fpos, "the feature table");
		uint64_t foff = rd64(d + fpos), fsize = rd64(d + fpos + 8);
		if (foff > st->size || fsize > st->size - foff)
			return truncated(st, fpos, "a feature section");
		fpos += 16;
		if (bit == FEAT_EVENT_DESC)
			rc = feat_event_desc(st, foff, fsize);
		else if (bit == FEAT_BUILD_ID)
			rc = feat_build_id(st, foff, fsize);
		else
			rc = 0;
		if (rc)
			return rc;
	}
	*data_off = doff;
	*data_end = doff + dsize;
	return 0;
}

