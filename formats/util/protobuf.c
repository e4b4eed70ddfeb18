/*
 * protobuf.c - the protobuf wire format, as much as profile.proto uses:
 * varints, fixed 32/64-bit fields (skipped), length-delimited fields and
 * packed repeated scalars.  Contracts in protobuf.h.
 */
#include "protobuf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sf_pb_probe_varint(const unsigned char *d, size_t n, size_t *i,
		       uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned s = 0; s < 64; s += 7) {
		if (*i >= n)
			return 0;
		unsigned char c = d[(*i)++];
		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80)) {
			*v = x;
			return 1;
		}
	}
	return -1;
}

bool sf_pb_probe_sub(const unsigned char *d, size_t n, uint64_t ok)
{
	size_t i = 0;
	uint64_t v;

	while (i < n) {
		unsigned char t = d[i++];
		if (t >= 64 || !(ok >> t & 1))
			return false;
		if ((t & 7) == SF_PB_VARINT) {
			if (sf_pb_probe_varint(d, n, &i, &v) != 1)
				return false;
		} else if ((t & 7) == SF_PB_LEN) {
			if (sf_pb_probe_varint(d, n, &i, &v) != 1 ||
			    v > n - i)
				return false;
			i += v;
		} else {
			return false;
		}
	}
	return true;
}

int sf_pb_error(struct sf_pb_dec *r, size_t at, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sf_error_at(r->ctx, SF_EINPUT, r->name, r->base + at, "%s",
			   msg);
}

int sf_pb_varint(struct sf_pb_dec *r, size_t *pos, size_t end, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = *pos;

	for (unsigned s = 0;; s += 7) {
		if (i >= end)
			return sf_pb_error(r, *pos, "truncated varint (the %s "
					   "ends inside it)", r->top ? "input" :
					   "enclosing message");
		unsigned char c = r->b[i++];
		if (s == 63 && c > 1)
			return sf_pb_error(r, *pos, "malformed varint (more "
					   "than 64 bits)");
		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	*pos = i;
	*v = x;
	return 0;
}

int sf_pb_field(struct sf_pb_dec *r, size_t *pos, size_t end,
		struct sf_pb_field *f)
{
	uint64_t tag;
	int rc;

	f->at = *pos;
	if ((rc = sf_pb_varint(r, pos, end, &tag)))
		return rc;
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		return sf_pb_error(r, f->at, "invalid protobuf field number "
				   "%" PRIu64, tag >> 3);
	switch (f->wt) {
	case SF_PB_VARINT:
		return sf_pb_varint(r, pos, end, &f->v);
	case SF_PB_I64:
	case SF_PB_I32: {
		size_t k = f->wt == SF_PB_I64 ? 8 : 4;
		if (end - *pos < k)
			return sf_pb_error(r, f->at, "truncated fixed-size "
					   "field %u", f->num);
		f->v = 0;
		for (size_t i = 0; i < k; i++)
			f->v |= (uint64_t)r->b[*pos + i] << (8 * i);
		*pos += k;
		return 0;
	}
	case SF_PB_LEN: {
		size_t lat = *pos;
		if ((rc = sf_pb_varint(r, pos, end, &f->v)))
			return rc;
		if (f->v > end - *pos)
			return sf_pb_error(r, lat, "length %" PRIu64 " of "
					   "field %u runs past the end of the "
					   "%s (%zu bytes left)", f->v, f->num,
					   r->top ? "input" :
					   "enclosing message", end - *pos);
		f->data = *pos;
		*pos += f->v;
		return 0;
	}
	default:
		return sf_pb_error(r, f->at, "unsupported protobuf wire "
				   "type %u (field %u)", f->wt, f->num);
	}
}

int sf_pb_want(struct sf_pb_dec *r, const struct sf_pb_field *f,
	       unsigned wt, const char *msg)
{
	if (f->wt == wt)
		return 0;
	return sf_pb_error(r, f->at, "field %u of %s has wire type %u, "
			   "expected %u", f->num, msg, f->wt, wt);
}

int sf_pb_repeated(struct sf_pb_dec *r, const struct sf_pb_field *f,
		   const char *msg,
		   int (*each)(struct sf_pb_dec *, void *, uint64_t, size_t),
		   void *arg)
{
	int rc;

	if (f->wt == SF_PB_VARINT)
		return each(r, arg, f->v, f->at);
	if (f->wt != SF_PB_LEN)
		return sf_pb_want(r, f, SF_PB_LEN, msg);
	size_t pos = f->data, end = f->data + f->v;
	while (pos < end) {
		size_t at = pos;
		uint64_t v;
		if ((rc = sf_pb_varint(r, &pos, end, &v)) ||
		    (rc = each(r, arg, v, at)))
			return rc;
	}
	return 0;
}

void sf_pb_put_raw(struct sf_pb_buf *b, const void *p, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->n + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		while (nc < b->n + n)
			nc *= 2;
		unsigned char *nd = realloc(b->d, nc);
		if (!nd) {
			b->oom = true;
			return;
		}
		b->d = nd;
		b->cap = nc;
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

/* v's varint bytes into t (10 bytes): how many */
static size_t varint_bytes(unsigned char *t, uint64_t v)
{
	size_t n = 0;

	do {
		t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

void sf_pb__put_varint_grow(struct sf_pb_buf *b, uint64_t v)
{
	unsigned char t[10];

	sf_pb_put_raw(b, t, varint_bytes(t, v));
}

void sf_pb_put_bytes(struct sf_pb_buf *b, uint32_t field, const void *p,
		     size_t n)
{
	sf_pb_put_tag(b, field, SF_PB_LEN);
	sf_pb_put_varint(b, n);
	sf_pb_put_raw(b, p, n);
}

size_t sf_pb_open(struct sf_pb_buf *b, uint32_t field)
{
	sf_pb_put_tag(b, field, SF_PB_LEN);
	sf_pb_put_varint(b, 0);
	return b->n;
}

void sf_pb_close(struct sf_pb_buf *b, size_t mark)
{
	unsigned char t[10];

	if (b->oom)
		return;
	size_t len = b->n - mark, k = varint_bytes(t, len);
	if (k > 1) {
		/* room for the longer length: the content moves up */
		sf_pb_put_raw(b, t, k - 1);
		if (b->oom)
			return;
		memmove(b->d + mark - 1 + k, b->d + mark, len);
	}
	memcpy(b->d + mark - 1, t, k);
}

/* an empty buffer may have no storage */
void sf_pb_flush(struct sf_output *o, struct sf_pb_buf *b)
{
	if (b->n)
		sf_output_write(o, b->d, b->n);
	b->n = 0;
}

void sf_pb_put_msg(struct sf_pb_buf *b, uint32_t field,
		   struct sf_pb_buf *sub)
{
	sf_pb_put_bytes(b, field, sub->d, sub->n);
	sub->oom |= b->oom;
	b->oom |= sub->oom;
	sub->n = 0;
}
