/*
 * json_write.c - the writer of the native JSON form (the format entry is
 * in fmt_json.c).
 *
 * Writing streams: the top-level object is written by hand, and each array
 * element (frame, stack, sample, ...) is one json-c object serialised and
 * freed at once, so memory does not grow with the output.
 *
 * Determinism: members in a fixed order, elements in model order, numbers
 * in their shortest exact form; reading a file this writer made and
 * writing it again gives the same bytes.
 */
#include "json.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static struct json_object *jnum(double v)
{
	char b[40];

	if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		return json_object_new_int64((int64_t)v);
	sf_format_num(b, sizeof(b), v);
	return json_object_new_double_s(v, b);
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* Serialise and free `o`, writing it after `sep`. */
static void emit(struct sf_output *out, const char *sep,
		 struct json_object *o)
{
	size_t len;
	const char *s;

	sf_output_puts(out, sep);
	s = json_object_to_json_string_length(o, JSON_FLAGS, &len);
	sf_output_write(out, s, len);
	json_object_put(o);
}

static struct json_object *frame_obj(const struct sf_frame *f)
{
	struct json_object *o = json_object_new_object();
	char b[32];

	json_object_object_add(o, "name", jstr(f->name));
	if (f->module)
		json_object_object_add(o, "module", jstr(f->module));
	if (f->file)
		json_object_object_add(o, "file", jstr(f->file));
	if (f->line)
		json_object_object_add(o, "line",
				       json_object_new_int64(f->line));
	if (f->column)
		json_object_object_add(o, "column",
				       json_object_new_int64(f->column));
	if (f->address != SF_NO_ADDR) {
		snprintf(b, sizeof(b), "0x%" PRIx64, f->address);
		json_object_object_add(o, "address", jstr(b));
	}
	if (f->flags & SF_FRAME_INLINE)
		json_object_object_add(o, "inline",
				       json_object_new_boolean(1));
	if (f->kind)
		json_object_object_add(o, "kind", jstr(f->kind));
	if (f->flags & SF_FRAME_HAS_AUX)
		json_object_object_add(o, "aux",
				       json_object_new_int64(f->aux));
	/* a JSON integer the reader takes: up to INT64_MAX */
	if (f->offset <= INT64_MAX)
		json_object_object_add(
			o, "offset", json_object_new_int64((int64_t)f->offset));
	return o;
}

static struct json_object *type_obj(const struct sf_sample_type *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "type", jstr(t->type));
	json_object_object_add(o, "unit", jstr(t->unit));
	return o;
}

static struct json_object *meta_obj(const struct sf_profile *p)
{
	const struct sf_meta *m = &p->d.meta;
	struct json_object *o = json_object_new_object();

	if (m->source_format)
		json_object_object_add(o, "source_format",
				       jstr(m->source_format));
	if (m->period_type.type)
		json_object_object_add(o, "period_type",
				       type_obj(&m->period_type));
	if (m->period)
		json_object_object_add(o, "period", jnum(m->period));
	if (m->start_time != SF_NO_TIME)
		json_object_object_add(o, "start_time",
				       json_object_new_int64(m->start_time));
	if (m->duration != SF_NO_TIME)
		json_object_object_add(o, "duration",
				       json_object_new_int64(m->duration));
	json_object_object_add(o, "default_sample_type",
			       json_object_new_int64(m->default_type));
	if (m->nprops) {
		struct json_object *a = json_object_new_array();
		for (size_t i = 0; i < m->nprops; i++) {
			struct json_object *kv = json_object_new_array();
			json_object_array_add(kv, jstr(m->props[i].key));
			json_object_array_add(kv, jstr(m->props[i].value));
			json_object_array_add(a, kv);
		}
		json_object_object_add(o, "properties", a);
	}
	return o;
}

int sf_json__write(const struct sf_profile *p, struct sf_output *out,
		   struct sf_ctx *ctx)
{
	const char *sep;

	sf_output_puts(out, "{\"format\":\"sftools-profile\",\"version\":1,"
			    "\n\"meta\":");
	emit(out, "", meta_obj(p));

	sf_output_puts(out, ",\n\"sample_types\":[");
	for (size_t i = 0; i < p->d.ntypes; i++)
		emit(out, i ? "," : "", type_obj(&p->d.types[i]));
	if (!p->d.ntypes) {
		/* a profile with no samples may have no type yet (an empty
		 * perf script); the document always names one */
		struct sf_sample_type dflt = { "samples", "count" };
		emit(out, "", type_obj(&dflt));
	}

	sf_output_puts(out, "],\n\"threads\":[");
	for (size_t i = 0; i < p->d.nthreads; i++) {
		const struct sf_thread *t = &p->d.threads[i];
		struct json_object *o = json_object_new_object();
		if (t->pid != SF_NO_ID)
			json_object_object_add(o, "pid",
					       json_object_new_int64(t->pid));
		if (t->tid != SF_NO_ID)
			json_object_object_add(o, "tid",
					       json_object_new_int64(t->tid));
		if (t->name)
			json_object_object_add(o, "name", jstr(t->name));
		if (t->input)
			json_object_object_add(o, "input",
					       json_object_new_int64(t->input));
		emit(out, i ? ",\n" : "\n", o);
	}

	sf_output_puts(out, "],\n\"frames\":[");
	for (size_t i = 0; i < p->d.nframes; i++)
		emit(out, i ? ",\n" : "\n", frame_obj(&p->d.frames[i]));

	/* stacks[k] describes node k+1: [parent, frame] */
	sf_output_puts(out, "],\n\"stacks\":[");
	for (size_t i = 1; i < p->d.nstacks; i++) {
		sf_output_puts(out, i > 1 ? ",\n[" : "\n[");
		sf_output_u64(out, p->d.stacks[i].parent);
		sf_output_putc(out, ',');
		sf_output_u64(out, p->d.stacks[i].frame);
		sf_output_putc(out, ']');
	}

	sf_output_puts(out, "],\n\"label_sets\":[");
	for (size_t i = 1; i < p->d.nlabel_sets; i++) {
		const struct sf_label_set *s = &p->d.label_sets[i];
		struct json_object *a = json_object_new_array();
		for (uint32_t j = 0; j < s->n; j++) {
			struct json_object *kv = json_object_new_array();
			json_object_array_add(kv, jstr(s->labels[j].key));
			json_object_array_add(kv, jstr(s->labels[j].value));
			json_object_array_add(a, kv);
		}
		emit(out, i > 1 ? ",\n" : "\n", a);
	}

	/* samples: [stack, thread|null, time|null, labels, w1, ..., wn] */
	sf_output_puts(out, "],\n\"samples\":[");
	sep = "\n";
	for (size_t i = 0; i < p->d.nsamples; i++) {
		const struct sf_sample *s = &p->d.samples[i];
		if ((i & 0xffff) == 0 && sf_interrupted(ctx))
			return sf_error(ctx, SF_EINTR, NULL, 0, "interrupted");
		sf_output_puts(out, sep);
		sep = ",\n";
		sf_output_putc(out, '[');
		sf_output_u64(out, s->stack);
		sf_output_putc(out, ',');
		if (s->thread == SF_NO_THREAD)
			sf_output_puts(out, "null");
		else
			sf_output_u64(out, s->thread);
		sf_output_putc(out, ',');
		if (s->time == SF_NO_TIME)
			sf_output_puts(out, "null");
		else
			sf_output_i64(out, s->time);
		sf_output_putc(out, ',');
		sf_output_u64(out, s->labels);
		for (size_t t = 0; t < p->d.ntypes; t++) {
			sf_output_putc(out, ',');
			sf_output_num(out, sf_weight(p, i, (uint32_t)t));
		}
		sf_output_putc(out, ']');
	}
	sf_output_puts(out, "]}\n");
	return 0;
}
