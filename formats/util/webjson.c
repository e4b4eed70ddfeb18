/*
 * webjson.c - JSON loading and the V8 node table for the web-viewer
 * formats (see webjson.h).
 */
#include "webjson.h"
#include "strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tracks just enough of the JSON syntax to close a truncated document and
 * to find diverted arrays: the open brackets, the current key of the first
 * levels, array positions, and whether we are inside a string. */
#define KEYMAX 64
#define LEVELS 4

struct scan {
	char *open;
	size_t n, cap;
	bool in_str, esc;
	int uhex;    /* hex digits of a \u escape still to come */
	bool uzero;  /* all of them '0' so far: \u0000 */
	char last;   /* last significant byte outside strings */
	/* per level < LEVELS: the current key (objects), element index
	 * (arrays), and whether the next string is a key */
	char key[LEVELS][KEYMAX];
	size_t klen[LEVELS];
	size_t idx[LEVELS];
	bool want_key[LEVELS];
	bool capture;
};

static bool scan_push(struct scan *s, char c)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		char *o = realloc(s->open, nc);
		if (!o)
			return false;
		s->open = o;
		s->cap = nc;
	}
	if (s->n < LEVELS) {
		s->klen[s->n] = 0;
		s->idx[s->n] = 0;
		s->want_key[s->n] = c == '{';
	}
	s->open[s->n++] = c;
	return true;
}

static bool only_space(const char *b, size_t n, uint64_t *line)
{
	for (size_t i = 0; i < n; i++) {
		if (b[i] != ' ' && b[i] != '\n' && b[i] != '\r' &&
		    b[i] != '\t')
			return false;
		*line += b[i] == '\n';
	}
	return true;
}

/* The line of every array and object the scanner meets, in document
 * order, for the tree json-c builds from the same bytes: json-c keeps no
 * positions, so they are matched to its containers afterwards (walking
 * the tree in the same order) and kept in each container's user data. */
struct lines {
	uint64_t *v;
	size_t n, cap;
};

/* A container being walked: the next array index or object entry. */
struct walk {
	struct json_object *o;
	size_t i;
	struct lh_entry *e;
};

struct parser {
	struct sf_ctx *ctx;
	const char *name;
	struct json_tokener *tok, *etok;
	struct json_object *root;
	const struct sf_webjson_divert *dv;
	const struct sf_webjson_divert *div_dv;  /* the path being diverted */
	struct scan sc;
	uint64_t line;
	bool done;                 /* root complete: only space may follow */
	/* diverted array state */
	bool div;
	size_t div_level;          /* sc.n inside the diverted array */
	size_t div_index;
	const char *div_key;
	char any_key[KEYMAX + 1];  /* div_key of an any_key path */
	/* a diverted object (members): its elements are the values, each
	 * after its key (mkey, as written) and a ':' */
	bool div_members;
	bool in_mkey, mkey_done, colon;
	struct sf_sbuf mkey;
	struct sf_sbuf ukey;       /* mkey without its escapes */
	size_t div_n;
	bool elem;                 /* inside an element */
	uint64_t elem_line;        /* where it starts */
	bool have_value;           /* the element's value is complete */
	struct json_object *value;
	enum json_tokener_error jerr;
	/* with dv->inner: the parser each element goes through instead of
	 * etok, so arrays inside the elements are diverted too */
	struct parser *sub;
	bool is_sub;               /* this is one: `top` may be an object */
	const char *after;         /* error for data after the value */
	struct lines lines;        /* containers of the tree */
	struct lines elines;       /* containers of the element (no sub) */
	struct walk *walk;         /* the stack of walk_lines, kept */
	size_t walk_cap;
	/* a root member's value that json-c never sees (root_keys,
	 * events_key): its bytes go to yajl until sc.n is raw_level again */
	bool raw;
	size_t raw_level;
	yajl_handle yh;
	/* bytes parsed, and when to look at the heap next (check_memory) */
	uint64_t fed, next_check;
};

static int note_line(struct parser *ps, struct lines *l)
{
	if (sf_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return sf_error_nomem(ps->ctx);
	l->v[l->n++] = ps->line;
	return 0;
}

static bool is_container(struct json_object *o)
{
	return json_object_is_type(o, json_type_object) ||
	       json_object_is_type(o, json_type_array);
}

/* Visit the containers of `root` in document order (iteratively: the
 * depth is --max-nesting), giving the k-th the k-th line of `l`, or no
 * line when `l` is NULL; returns how many there are, or SIZE_MAX without
 * memory.  `l` is never overrun: past its end they get no line. */
static size_t walk_lines(struct parser *ps, struct json_object *root,
			 const struct lines *l)
{
	size_t n = 0, k = 0;

	if (!root || !is_container(root))
		return 0;
	for (struct json_object *o = root; o;) {
		/* o: the next container in document order */
		json_object_set_userdata(o, l && k < l->n ?
					 (void *)(uintptr_t)l->v[k] : NULL,
					 NULL);
		k++;
		if (sf_grow(&ps->walk, &ps->walk_cap, n + 1,
			    sizeof(*ps->walk)))
			return SIZE_MAX;
		ps->walk[n++] = (struct walk){ o, 0,
			json_object_is_type(o, json_type_object) ?
				json_object_get_object(o)->head : NULL };
		o = NULL;
		while (n && !o) {
			struct walk *w = &ps->walk[n - 1];
			struct json_object *c = NULL;
			bool more;
			if (json_object_is_type(w->o, json_type_object)) {
				more = w->e != NULL;
				if (more) {
					c = (struct json_object *)
						lh_entry_v(w->e);
					w->e = w->e->next;
				}
			} else {
				more = w->i < json_object_array_length(w->o);
				if (more)
					c = json_object_array_get_idx(w->o,
								      w->i++);
			}
			if (!more)
				n--;
			else if (c && is_container(c))
				o = c;
		}
	}
	return k;
}

/* Give the containers of `root` their lines and forget the lines.  A
 * document with a key twice has fewer containers than lines (json-c
 * keeps the last value): its tree then has no lines, and the readers
 * name the line of the enclosing value they know. */
static void assign_lines(struct parser *ps, struct json_object *root,
			 struct lines *l)
{
	if (l->n && walk_lines(ps, root, l) != l->n)
		walk_lines(ps, root, NULL);
	l->n = 0;
}

static int feed(struct parser *ps, const char *b, size_t n);

static int feed_main(struct parser *ps, const char *b, size_t n,
		     uint64_t line0)
{
	size_t used;

	if (!n)
		return 0;
	if (ps->done) {
		uint64_t l = line0;
		if (!only_space(b, n, &l))
			return sf_error(ps->ctx, SF_EINPUT, ps->name, l, "%s",
					ps->after);
		return 0;
	}
	ps->root = json_tokener_parse_ex(ps->tok, b, (int)n);
	ps->jerr = json_tokener_get_error(ps->tok);
	used = (size_t)json_tokener_get_parse_end(ps->tok);
	if (ps->jerr == json_tokener_continue)
		return 0;
	for (size_t i = 0; i < used && i < n; i++)
		line0 += b[i] == '\n';
	if (ps->jerr != json_tokener_success)
		return sf_error(ps->ctx, SF_EINPUT, ps->name, line0,
				"invalid JSON: %s",
				json_tokener_error_desc(ps->jerr));
	ps->done = true;
	assign_lines(ps, ps->root, &ps->lines);
	if (!only_space(b + used, n - used, &line0))
		return sf_error(ps->ctx, SF_EINPUT, ps->name, line0, "%s",
				ps->after);
	return 0;
}

/* Ready the element parser for an element that starts on `line`. */
static void sub_restart(struct parser *ps, uint64_t line)
{
	struct parser *sub = ps->sub;

	json_object_put(sub->root);
	json_object_put(sub->value);
	json_tokener_reset(sub->tok);
	json_tokener_reset(sub->etok);
	sub->root = sub->value = NULL;
	sub->sc.n = 0;
	sub->sc.in_str = sub->sc.esc = sub->sc.capture = false;
	sub->sc.uhex = 0;
	sub->sc.last = 0;
	sub->lines.n = sub->elines.n = 0;
	sub->line = line;
	sub->done = sub->div = sub->elem = sub->have_value = false;
	sub->in_mkey = sub->mkey_done = sub->colon = false;
	sub->jerr = json_tokener_continue;
	if (sub->yh)
		yajl_free(sub->yh);
	sub->yh = NULL;
	sub->raw = false;
}

static void elem_start(struct parser *ps)
{
	ps->elem = true;
	ps->elem_line = ps->line;
	ps->elines.n = 0;
	if (ps->sub)
		sub_restart(ps, ps->line);
}

/* What an element is called in messages. */
static const char *elem_word(const struct parser *ps)
{
	return ps->div_members ? "object member" : "array element";
}

static int feed_elem(struct parser *ps, const char *b, size_t n)
{
	struct json_object *o;
	uint64_t l = ps->line;

	if (!n)
		return 0;
	if (ps->sub)
		return feed(ps->sub, b, n);
	if (ps->have_value) {
		/* the element's value is complete: only space may follow */
		if (!only_space(b, n, &l))
			return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
					"invalid JSON: unexpected data after "
					"an %s", elem_word(ps));
		return 0;
	}
	o = json_tokener_parse_ex(ps->etok, b, (int)n);
	enum json_tokener_error e = json_tokener_get_error(ps->etok);
	if (e == json_tokener_continue)
		return 0;
	if (e != json_tokener_success)
		return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
				"invalid JSON: %s",
				json_tokener_error_desc(e));
	/* objects, arrays and strings end at their closing character */
	ps->have_value = true;
	ps->value = o;
	size_t used = (size_t)json_tokener_get_parse_end(ps->etok);
	if (used < n && !only_space(b + used, n - used, &l))
		return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
				"invalid JSON: unexpected data after an %s",
				elem_word(ps));
	return 0;
}

/* The key of the member being ended, its escapes undone as json-c
 * undoes them (a key that holds none is used as it is), in ps->ukey. */
static int member_key(struct parser *ps)
{
	struct json_object *k;
	bool ok;

	ps->ukey.len = 0;
	if (!ps->mkey.len || !memchr(ps->mkey.s, '\\', ps->mkey.len))
		return sf_sbuf_add(&ps->ukey, ps->mkey.s ? ps->mkey.s : "",
				   ps->mkey.len) ? 0 : sf_error_nomem(ps->ctx);
	if (!sf_sbuf_add(&ps->ukey, "\"", 1) ||
	    !sf_sbuf_add(&ps->ukey, ps->mkey.s, ps->mkey.len) ||
	    !sf_sbuf_add(&ps->ukey, "\"", 1))
		return sf_error_nomem(ps->ctx);
	/* the scanner does not check escapes: json-c does */
	if (!(k = json_tokener_parse(ps->ukey.s)) ||
	    !json_object_is_type(k, json_type_string)) {
		json_object_put(k);
		return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->elem_line,
				"invalid JSON: a bad escape in an object "
				"key");
	}
	ps->ukey.len = 0;
	ok = sf_sbuf_add(&ps->ukey, json_object_get_string(k),
			 (size_t)json_object_get_string_len(k));
	json_object_put(k);
	return ok ? 0 : sf_error_nomem(ps->ctx);
}

static int end_elem(struct parser *ps)
{
	struct json_object *o;
	int rc;

	ps->elem = false;
	if (ps->sub) {
		/* numbers and literals need a delimiter to end */
		if (!ps->sub->done && (rc = feed(ps->sub, " ", 1)))
			return rc;
		if (!ps->sub->done)
			return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
					"invalid JSON: incomplete array "
					"element");
		o = ps->sub->root;
		ps->sub->root = NULL;
	} else if (ps->have_value) {
		o = ps->value;
	} else {
		/* numbers and literals need a delimiter to end */
		o = json_tokener_parse_ex(ps->etok, " ", 1);
		enum json_tokener_error e = json_tokener_get_error(ps->etok);
		if (!o && e != json_tokener_success) {
			json_tokener_reset(ps->etok);
			return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
					"invalid JSON: %s",
					e == json_tokener_continue ?
					"incomplete array element" :
					json_tokener_error_desc(e));
		}
	}
	ps->have_value = false;
	ps->value = NULL;
	json_tokener_reset(ps->etok);
	if (!ps->sub)
		assign_lines(ps, o, &ps->elines);
	const char *key = ps->div_key;
	if (ps->div_members) {
		if ((rc = member_key(ps))) {
			json_object_put(o);
			return rc;
		}
		key = ps->ukey.s;
	}
	ps->mkey_done = ps->colon = false;
	rc = ps->div_dv->element(ps->div_dv->ud, ps->div_index, key,
			     ps->div_n++, o, ps->elem_line);
	json_object_put(o);
	return rc;
}

/* Is the '[' about to open at level sc.n an array of path `dv`? */
static const char *divert_match(struct parser *ps,
				const struct sf_webjson_divert *dv)
{
	const struct scan *s = &ps->sc;

	if (s->n == 0)
		return dv->root_array ? "" : NULL;
	if (!dv->top && dv->keys) {
		/* arrays that are members of the root object */
		if (s->n != 1 || s->open[0] != '{')
			return NULL;
		for (size_t i = 0; dv->keys[i]; i++)
			if (s->klen[0] == strlen(dv->keys[i]) &&
			    !memcmp(s->key[0], dv->keys[i], s->klen[0]))
				return dv->keys[i];
		return NULL;
	}
	if (!dv->top || s->open[0] != '{' || s->klen[0] != strlen(dv->top) ||
	    memcmp(s->key[0], dv->top, s->klen[0]))
		return NULL;
	if (!dv->keys)
		return s->n == 1 ? dv->top : NULL;
	/* top [i] key, or (inner diverts and top_object) top key when top
	 * is an object */
	size_t lv = (ps->is_sub || dv->top_object) && s->n == 2 &&
		    s->open[1] == '{' ? 1 : 2;
	if (lv == 2 && (s->n != 3 || s->open[1] != '[' || s->open[2] != '{'))
		return NULL;
	for (size_t i = 0; dv->keys[i]; i++)
		if (s->klen[lv] == strlen(dv->keys[i]) &&
		    !memcmp(s->key[lv], dv->keys[i], s->klen[lv]))
			return dv->keys[i];
	if (dv->any_key) {
		/* the key as far as the scanner kept it: a longer one is
		 * no column a reader knows */
		memcpy(ps->any_key, s->key[lv], s->klen[lv]);
		ps->any_key[s->klen[lv]] = 0;
		return ps->any_key;
	}
	return NULL;
}

/* Is the '[' (or '{', `open`) about to open at level sc.n a diverted
 * array (or object)?  Which path it is on goes to ps->div_dv. */
static const char *divert_key(struct parser *ps, char open)
{
	for (const struct sf_webjson_divert *d = ps->dv; d; d = d->next) {
		if ((open == '{') != d->members)
			continue;
		const char *k = divert_match(ps, d);
		if (k) {
			ps->div_dv = d;
			return k;
		}
	}
	return NULL;
}

/* Strings become C strings in the model: a NUL inside one would cut a
 * name short, so it is refused where it is. */
static int nul_name(struct parser *ps)
{
	return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
			"a string holds a NUL character (\\u0000), which "
			"names cannot hold");
}

/* A diverted object whose members are not "key": value. */
static int bad_member(struct parser *ps)
{
	return sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
			"invalid JSON: expected \"key\": value in an object");
}

static bool in_list(const char *const *keys, const char *k, size_t kl)
{
	/* a key longer than the scanner keeps is none a reader knows */
	for (size_t i = 0; keys[i]; i++)
		if (kl == strlen(keys[i]) && !memcmp(k, keys[i], kl))
			return true;
	return false;
}

/* Is the array or object about to open a member of the root object
 * (of the document, or of an element its own parser reads) that json-c
 * must not see (root_keys, events_key)?  Then *cb is the callbacks for
 * its events (NULL: check only).  A key with an escape might spell a
 * known one: it is left to the tree. */
static bool raw_match(struct parser *ps, const yajl_callbacks **cb)
{
	const struct sf_webjson_divert *dv = ps->dv;
	const struct scan *s = &ps->sc;
	const char *k = s->key[0];
	size_t kl = s->klen[0];

	*cb = NULL;
	if (!dv || s->n != 1 || s->open[0] != '{' || memchr(k, '\\', kl))
		return false;
	if (dv->events_key && kl == strlen(dv->events_key) &&
	    !memcmp(k, dv->events_key, kl)) {
		*cb = dv->events;
		return true;
	}
	return dv->root_keys && !in_list(dv->root_keys, k, kl);
}

static int raw_status(struct parser *ps, yajl_status st)
{
	unsigned char *msg;
	const char *m;
	size_t ml;

	if (st == yajl_status_ok)
		return 0;
	if (st == yajl_status_client_canceled)
		return ps->ctx->err.code ? ps->ctx->err.code :
		       sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line,
				"invalid JSON");
	if (!(msg = yajl_get_error(ps->yh, 0, NULL, 0)))
		return sf_error_nomem(ps->ctx);
	/* "parse error: what\n" */
	m = (const char *)msg;
	if (!strncmp(m, "parse error: ", 13))
		m += 13;
	ml = strlen(m);
	while (ml && (m[ml - 1] == '\n' || m[ml - 1] == ' '))
		ml--;
	sf_error(ps->ctx, SF_EINPUT, ps->name, ps->line, "invalid JSON: %.*s",
		 (int)ml, m);
	yajl_free_error(ps->yh, msg);
	return ps->ctx->err.code;
}

static int raw_feed(struct parser *ps, const char *b, size_t n)
{
	if (!n)
		return 0;
	if (ps->dv->events_line)
		*ps->dv->events_line = ps->line;
	return raw_status(ps, yajl_parse(ps->yh, (const unsigned char *)b,
					 n));
}

static int raw_start(struct parser *ps, const yajl_callbacks *cb)
{
	if (ps->yh)
		yajl_free(ps->yh);
	ps->yh = yajl_alloc(cb, NULL, cb ? ps->dv->events_ud : NULL);
	if (!ps->yh)
		return sf_error_nomem(ps->ctx);
	/* json-c does not check UTF-8 either */
	yajl_config(ps->yh, yajl_dont_validate_strings, 1);
	ps->raw = true;
	ps->raw_level = ps->sc.n;
	return 0;
}

static int raw_end(struct parser *ps)
{
	int rc = raw_status(ps, yajl_complete_parse(ps->yh));

	yajl_free(ps->yh);
	ps->yh = NULL;
	ps->raw = false;
	return rc;
}

static int feed(struct parser *ps, const char *b, size_t n)
{
	struct scan *s = &ps->sc;
	size_t from = 0;          /* start of bytes for the current sink */
	uint64_t from_line = ps->line;
	int rc;

	for (size_t i = 0; i < n; i++) {
		char c = b[i];
		if (s->in_str) {
			if (s->uhex) {
				s->uzero &= c == '0';
				if (!--s->uhex && s->uzero)
					return nul_name(ps);
			}
			if (c == 0)
				return nul_name(ps);
			if (s->esc) {
				s->esc = false;
				if (c == 'u') {
					s->uhex = 4;
					s->uzero = true;
				}
			} else if (c == '\\') {
				s->esc = true;
				/* kept: a key with an escape is no plain
				 * key (raw_match) */
				if (s->capture && s->klen[s->n - 1] < KEYMAX)
					s->key[s->n - 1][s->klen[s->n - 1]++] =
						c;
			} else if (c == '"') {
				s->in_str = false;
				s->capture = false;
				s->last = '"';
				if (ps->in_mkey) {
					ps->in_mkey = false;
					ps->mkey_done = true;
				}
				continue;
			} else if (s->capture && s->klen[s->n - 1] < KEYMAX)
				s->key[s->n - 1][s->klen[s->n - 1]++] = c;
			if (ps->in_mkey && !sf_sbuf_add(&ps->mkey, &c, 1))
				return sf_error_nomem(ps->ctx);
			ps->line += c == '\n';
			continue;
		}
		switch (c) {
		case '\n':
			ps->line++;
			break;
		case ' ': case '\r': case '\t':
			break;
		case '"':
			s->in_str = true;
			if (s->n && s->n <= LEVELS && s->open[s->n - 1] == '{' &&
			    s->want_key[s->n - 1]) {
				s->want_key[s->n - 1] = false;
				s->capture = true;
				s->klen[s->n - 1] = 0;
			}
			if (ps->div && s->n == ps->div_level && !ps->elem) {
				if (ps->div_members && !ps->colon) {
					/* a member's key */
					if (ps->mkey_done)
						return bad_member(ps);
					ps->in_mkey = true;
					ps->mkey.len = 0;
					break;
				}
				elem_start(ps);
				from = i;
			}
			break;
		case '[':
		case '{': {
			const char *dk = NULL;
			const yajl_callbacks *cb;
			if (ps->raw) {
				/* as json-c counts: the root is one level */
				if (s->n + 1 > ps->ctx->limits.max_nesting)
					return sf_error(ps->ctx, SF_EINPUT,
							ps->name, ps->line,
							"invalid JSON: "
							"nesting too deep");
				if (!scan_push(s, c))
					return sf_error_nomem(ps->ctx);
				s->last = c;
				/* the events of '{' see its line */
				if ((rc = raw_feed(ps, b + from, i + 1 - from)))
					return rc;
				from = i + 1;
				break;
			}
			if (!ps->div)
				dk = divert_key(ps, c);
			if (!ps->div && !dk && raw_match(ps, &cb)) {
				/* the tree gets null for the value */
				if ((rc = feed_main(ps, b + from, i - from,
						    from_line)) ||
				    (rc = feed_main(ps, "null", 4, ps->line)) ||
				    (rc = raw_start(ps, cb)))
					return rc;
				if (!scan_push(s, c))
					return sf_error_nomem(ps->ctx);
				s->last = c;
				if ((rc = raw_feed(ps, b + i, 1)))
					return rc;
				from = i + 1;
				break;
			}
			if (ps->div && s->n == ps->div_level && !ps->elem) {
				if (ps->div_members && !ps->colon)
					return bad_member(ps);
				elem_start(ps);
				from = i;
			}
			/* an element's own parser notes its lines */
			if (!ps->div || s->n < ps->div_level)
				rc = note_line(ps, &ps->lines);
			else if (!ps->sub)
				rc = note_line(ps, &ps->elines);
			else
				rc = 0;
			if (rc)
				return rc;
			if (!scan_push(s, c))
				return sf_error_nomem(ps->ctx);
			s->last = c;
			if (dk) {
				/* the tree gets "[" now and "]" at the end */
				if ((rc = feed_main(ps, b + from, i + 1 - from,
						    from_line)))
					return rc;
				ps->div = true;
				ps->div_members = c == '{';
				ps->mkey_done = ps->colon = false;
				ps->div_level = s->n;
				ps->div_index = s->n > 2 ? s->idx[1] : 0;
				ps->div_key = dk;
				ps->div_n = 0;
				ps->elem = false;
				from = i + 1;
			}
			break;
		}
		case ']':
		case '}':
			/* json-c would say so, but a diverted array's or a
			 * dropped value's bytes do not reach it */
			if (s->n && (c == ']') != (s->open[s->n - 1] == '['))
				return sf_error(ps->ctx, SF_EINPUT, ps->name,
						ps->line, "invalid JSON: "
						"unexpected character");
			if (ps->raw) {
				if (s->n)
					s->n--;
				s->last = c;
				if (s->n > ps->raw_level)
					break;
				if ((rc = raw_feed(ps, b + from,
						   i + 1 - from)) ||
				    (rc = raw_end(ps)))
					return rc;
				from = i + 1;
				from_line = ps->line;
				break;
			}
			if (ps->div && s->n == ps->div_level &&
			    c == (ps->div_members ? '}' : ']')) {
				/* end of the diverted array */
				if (ps->div_members && !ps->elem &&
				    (ps->mkey_done || ps->colon))
					return bad_member(ps);
				if (ps->elem) {
					if ((rc = feed_elem(ps, b + from,
							    i - from)) ||
					    (rc = end_elem(ps)))
						return rc;
				}
				ps->div = false;
				from = i;
				from_line = ps->line;
			}
			if (s->n)
				s->n--;
			s->last = c;
			break;
		case ',':
			if (s->n && s->n <= LEVELS) {
				if (s->open[s->n - 1] == '{')
					s->want_key[s->n - 1] = true;
				else
					s->idx[s->n - 1]++;
			}
			if (ps->div && s->n == ps->div_level) {
				if (!ps->elem)
					return sf_error(ps->ctx, SF_EINPUT,
							ps->name, ps->line,
							"invalid JSON: an "
							"empty %s",
							elem_word(ps));
				if ((rc = feed_elem(ps, b + from, i - from)) ||
				    (rc = end_elem(ps)))
					return rc;
				from = i + 1;
			}
			s->last = c;
			break;
		case ':':
			if (ps->div && s->n == ps->div_level &&
			    ps->div_members && !ps->elem) {
				if (!ps->mkey_done || ps->colon)
					return bad_member(ps);
				ps->colon = true;
				s->last = c;
				break;
			}
			/* fall through */
		default:
			if (ps->div && s->n == ps->div_level && !ps->elem) {
				if (ps->div_members && !ps->colon)
					return bad_member(ps);
				elem_start(ps);
				from = i;
			}
			s->last = c;
		}
	}
	if (ps->raw)
		return raw_feed(ps, b + from, n - from);
	if (ps->div)
		return ps->elem ? feed_elem(ps, b + from, n - from) : 0;
	return feed_main(ps, b + from, n - from, from_line);
}

/* json-c ignores some failed allocations (a string or an array it cannot
 * grow is cut short), so the tree must never reach the address-space
 * cap the programs set at --max-memory: the heap is checked against
 * three quarters of the budget, often enough that the tree cannot reach
 * the cap in between: at the end of the first piece (64 KiB) after
 * (cap - in use) / 256 more bytes of JSON (json-c spends at most about
 * 120 bytes a byte, on "[],").
 * Not after every piece: mallinfo walks malloc's free lists, which the
 * elements parsed and freed one by one make long (a file of 300,000
 * small speedscope profiles spent 90% of its time there).  The message
 * is then the true one, not whatever json-c makes of a document it
 * silently cut. */
static int check_memory(struct parser *ps, size_t n)
{
	uint64_t cap = ps->ctx->limits.max_memory / 4 * 3;
	uint64_t used;

	if (!cap)
		return 0;
	ps->fed += n;
	if (ps->fed < ps->next_check)
		return 0;
	used = sf_heap_in_use();
	ps->next_check = ps->fed + (used < cap ? (cap - used) / 256 : 0);
	if (used <= cap)
		return 0;
	return sf_error(ps->ctx, SF_ELIMIT, ps->name, ps->line,
			"the JSON tree outgrows the memory limit: %llu MiB in "
			"use, limit %llu MiB (--max-memory)",
			(unsigned long long)(used >> 20),
			(unsigned long long)(ps->ctx->limits.max_memory >> 20));
}

static void parser_free(struct parser *ps)
{
	json_object_put(ps->root);
	json_object_put(ps->value);
	if (ps->tok)
		json_tokener_free(ps->tok);
	if (ps->etok)
		json_tokener_free(ps->etok);
	free(ps->sc.open);
	free(ps->lines.v);
	free(ps->elines.v);
	free(ps->walk);
	sf_sbuf_free(&ps->mkey);
	sf_sbuf_free(&ps->ukey);
	if (ps->yh)
		yajl_free(ps->yh);
	if (ps->sub) {
		parser_free(ps->sub);
		free(ps->sub);
	}
}

static int parser_init(struct parser *ps, struct sf_ctx *ctx,
		       const char *name, const struct sf_webjson_divert *dv,
		       int depth)
{
	memset(ps, 0, sizeof(*ps));
	ps->ctx = ctx;
	ps->name = name;
	ps->dv = dv;
	ps->line = 1;
	ps->jerr = json_tokener_continue;
	ps->after = "unexpected data after the JSON document";
	ps->tok = json_tokener_new_ex(depth);
	ps->etok = dv ? json_tokener_new_ex(depth) : NULL;
	if (!ps->tok || (dv && !ps->etok))
		return sf_error_nomem(ctx);
	if (dv && dv->inner) {
		int rc;
		if (!(ps->sub = sf_calloc(1, sizeof(*ps->sub))))
			return sf_error_nomem(ctx);
		if ((rc = parser_init(ps->sub, ctx, name, dv->inner, depth)))
			return rc;
		ps->sub->after = "invalid JSON: unexpected data after an "
				 "array element";
		ps->sub->is_sub = true;
	}
	return 0;
}

int sf_webjson__parse_divert(struct sf_input *in, struct sf_ctx *ctx,
			     bool close_truncated, const char *warn_kind,
			     const struct sf_webjson_divert *dv,
			     struct json_object **out, uint64_t *end_line)
{
	struct parser ps;
	char buf[1 << 16];
	int rc = 0;
	bool any = false, last_nl = false;
	int depth = (int)(ctx->limits.max_nesting > 0x7fffffff ? 0x7fffffff :
			  ctx->limits.max_nesting);

	*out = NULL;
	if ((rc = parser_init(&ps, ctx, sf_input_name(in), dv, depth)))
		goto out;
	for (;;) {
		long n = sf_input_read_some(in, ctx, buf, sizeof(buf));
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		last_nl = buf[n - 1] == '\n';
		if (!any) {
			/* a UTF-8 BOM is not JSON but editors write it */
			size_t skip = (n >= 3 && !memcmp(buf, "\xef\xbb\xbf",
							 3)) ? 3 : 0;
			memmove(buf, buf + skip, (size_t)n - skip);
			n -= (long)skip;
			any = true;
		}
		if ((rc = feed(&ps, buf, (size_t)n)) ||
		    (rc = check_memory(&ps, (size_t)n)))
			goto out;
	}
	if (ps.raw) {
		/* cut off inside a value nobody reads (or the events'):
		 * drop it; a closed document has null there */
		ps.sc.n = ps.raw_level;
		ps.sc.in_str = false;
		ps.sc.last = ']';
		ps.raw = false;
	}
	if (!ps.done && ps.div && close_truncated && any &&
	    !(ps.div_members && (ps.sc.in_str || ps.sc.last == ':'))) {
		/* cut off inside a diverted array: deliver the last element
		 * if it is whole, drop it if not, then close the array */
		if (ps.elem && !ps.sc.in_str && ps.sc.last != ':' &&
		    ps.sc.n > ps.div_level && ps.sc.n - ps.div_level < 64) {
			/* close the element's own open brackets too */
			char close[64];
			size_t k = 0;
			while (ps.sc.n > ps.div_level) {
				char c = ps.sc.open[--ps.sc.n];
				close[k++] = c == '[' ? ']' : '}';
			}
			if (feed_elem(&ps, close, k)) {
				sf_error_clear(ctx);
				ps.elem = false;
			}
		}
		sf_warn(ctx, warn_kind, "%s: the JSON document is truncated; "
			"read up to its last complete value", ps.name);
		if (ps.elem && !ps.sc.in_str && ps.sc.n == ps.div_level) {
			if ((rc = end_elem(&ps))) {
				if (ctx->err.code != SF_EINPUT)
					goto out;
				sf_error_clear(ctx);
				rc = 0;
			}
		}
		while (ps.sc.n >= ps.div_level)
			ps.sc.n--;
		ps.div = false;
		ps.sc.in_str = false;
		ps.sc.last = ps.div_members ? '}' : ']';
		if ((rc = feed_main(&ps, ps.div_members ? "}" : "]", 1,
				    ps.line)))
			goto out;
	}
	if (!ps.done && !ps.div && close_truncated && any && !ps.sc.in_str &&
	    ps.sc.n && ps.sc.last != ':') {
		/* close what is open, innermost first */
		char close[64];
		size_t k = 0;
		while (ps.sc.n && k < sizeof(close)) {
			char c = ps.sc.open[--ps.sc.n];
			close[k++] = c == '[' ? ']' : '}';
		}
		ps.root = json_tokener_parse_ex(ps.tok, close, (int)k);
		if (ps.root) {
			ps.done = true;
			assign_lines(&ps, ps.root, &ps.lines);
			sf_warn(ctx, warn_kind, "%s: the JSON document is "
				"truncated; read up to its last complete "
				"value", ps.name);
		}
	}
	if (!ps.done) {
		rc = sf_error(ctx, SF_EINPUT, ps.name, ps.line,
			      !any ? "empty input" :
			      "truncated JSON: the document ends early");
		goto out;
	}
	if (!ps.root) {
		rc = sf_error(ctx, SF_EINPUT, ps.name, ps.line,
			      "expected a JSON object or array, not null");
		goto out;
	}
	*out = ps.root;
	ps.root = NULL;
	/* the line of the last byte, not the one after it */
	*end_line = ps.line - (last_nl && ps.line > 1);
out:
	parser_free(&ps);
	return rc;
}

struct json_object *sf_webjson__get(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, k, &v))
		return NULL;
	return v;
}

const char *sf_webjson__str(struct json_object *o, const char *k)
{
	struct json_object *v = sf_webjson__get(o, k);

	return v && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

struct json_object *sf_webjson__arr(struct json_object *o, const char *k)
{
	struct json_object *v = sf_webjson__get(o, k);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

bool sf_webjson__num(struct json_object *v, double *out)
{
	if (!v)
		return false;
	if (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)) {
		*out = json_object_get_double(v);
		return isfinite(*out);
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		char *end;
		if (!*s)
			return false;
		errno = 0;
		*out = strtod(s, &end);
		return !*end && !errno && isfinite(*out);
	}
	return false;
}

bool sf_webjson__int(struct json_object *v, int64_t *out)
{
	double d;

	if (v && json_object_is_type(v, json_type_int)) {
		errno = 0;
		*out = json_object_get_int64(v);
		return !errno;
	}
	if (!sf_webjson__num(v, &d) || d != floor(d) || fabs(d) >= 9.2e18)
		return false;
	*out = (int64_t)d;
	return true;
}

void sf_webjson__put_num(struct sf_output *o, double v)
{
	if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		sf_output_i64(o, (int64_t)v);
	else
		sf_output_num(o, v);
}

void sf_webjson__put_str(struct sf_output *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	sf_output_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		sf_output_write(o, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"': sf_output_puts(o, "\\\""); break;
		case '\\': sf_output_puts(o, "\\\\"); break;
		case '\n': sf_output_puts(o, "\\n"); break;
		case '\r': sf_output_puts(o, "\\r"); break;
		case '\t': sf_output_puts(o, "\\t"); break;
		default: {
			char u[7] = { '\\', 'u', '0', '0', hex[c >> 4],
				      hex[c & 15], 0 };
			sf_output_puts(o, u);
		}
		}
	}
	sf_output_write(o, run, (size_t)(s - run));
	sf_output_putc(o, '"');
}

int sf_webjson__runs_note(struct sf_webjson_runs *r, struct sf_ctx *ctx,
			  size_t at, uint64_t line)
{
	if (r->n && r->v[r->n - 1].line == line)
		return 0;
	if (sf_grow(&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return sf_error_nomem(ctx);
	r->v[r->n++] = (struct sf_webjson_run){ at, line };
	return 0;
}

uint64_t sf_webjson__runs_line(const struct sf_webjson_runs *r, size_t at)
{
	size_t lo = 0, hi = r->n;

	/* the last run that starts at or before `at` */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->v[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return r->n ? r->v[lo].line : 0;
}

uint64_t sf_webjson__line(struct json_object *v)
{
	uintptr_t u = v ? (uintptr_t)json_object_get_userdata(v) : 0;

	return u & SF_WEBJSON_MARK ? 0 : u;
}

bool sf_webjson__has(const unsigned char *d, size_t n, const char *k)
{
	return memmem(d, n, k, strlen(k)) != NULL;
}

/* ----- writing helpers ----- */

double sf_webjson__unit_us(const char *u)
{
	if (!u)
		return 0;
	if (!strcmp(u, "nanoseconds") || !strcmp(u, "ns"))
		return 1e-3;
	if (!strcmp(u, "microseconds") || !strcmp(u, "us"))
		return 1;
	if (!strcmp(u, "milliseconds") || !strcmp(u, "ms"))
		return 1e3;
	if (!strcmp(u, "seconds") || !strcmp(u, "s"))
		return 1e6;
	return 0;
}

int sf_webjson__by_thread(const struct sf_profile *p, struct sf_ctx *ctx,
			  size_t **order, size_t **start,
			  sf_thread_idx **thread, size_t *ngroups)
{
	size_t nt = p->d.nthreads + 1, ns = p->d.nsamples;
	size_t *cnt = sf_calloc(nt + 1, sizeof(*cnt));
	size_t *ord = sf_calloc(ns ? ns : 1, sizeof(*ord));
	size_t *st = sf_calloc(nt + 1, sizeof(*st));
	sf_thread_idx *th = sf_calloc(nt, sizeof(*th));
	size_t g = 0;

	if (!cnt || !ord || !st || !th) {
		free(cnt);
		free(ord);
		free(st);
		free(th);
		return sf_error_nomem(ctx);
	}
	/* counting sort on thread index, SF_NO_THREAD as the last bucket */
	for (size_t i = 0; i < ns; i++) {
		sf_thread_idx t = p->d.samples[i].thread;
		cnt[(t == SF_NO_THREAD || t >= p->d.nthreads) ?
			    nt - 1 : t]++;
	}
	size_t pos = 0;
	for (size_t b = 0; b < nt; b++) {
		size_t c = cnt[b];
		cnt[b] = pos;
		if (c) {
			st[g] = pos;
			th[g++] = b == nt - 1 ? SF_NO_THREAD :
						(sf_thread_idx)b;
		}
		pos += c;
	}
	st[g] = pos;
	for (size_t i = 0; i < ns; i++) {
		sf_thread_idx t = p->d.samples[i].thread;
		size_t b = (t == SF_NO_THREAD || t >= p->d.nthreads) ?
				   nt - 1 : t;
		ord[cnt[b]++] = i;
	}
	free(cnt);
	*order = ord;
	*start = st;
	*thread = th;
	*ngroups = g;
	return 0;
}

void sf_webjson__thread_name(const struct sf_profile *p, sf_thread_idx t,
			     const char *fallback, char *buf, size_t size)
{
	if (t == SF_NO_THREAD || t >= p->d.nthreads) {
		snprintf(buf, size, "%s", fallback);
		return;
	}
	sf_thread_label(&p->d.threads[t], buf, size);
	if (!buf[0])
		snprintf(buf, size, "%s", fallback);
}

bool sf_webjson__thread_match(const struct sf_profile *p, sf_thread_idx t,
			      const char *want)
{
	char b[256];
	const struct sf_thread *th;

	if (t == SF_NO_THREAD || t >= p->d.nthreads)
		return false;
	th = &p->d.threads[t];
	if (th->name && !strcmp(th->name, want))
		return true;
	if (th->tid != SF_NO_ID) {
		snprintf(b, sizeof(b), "%lld", (long long)th->tid);
		if (!strcmp(b, want))
			return true;
	}
	sf_thread_label(th, b, sizeof(b));
	return !strcmp(b, want);
}
