/*
 * webjson.h - internal: what the web-viewer formats (cpuprofile,
 * chrome-trace, speedscope, firefox) share.
 *
 *   - loading a JSON document from a struct sf_input with json-c's
 *     incremental tokener: the text is fed in 64 KiB chunks and never held
 *     whole, so memory is the parse tree only; nesting is capped by
 *     ctx->limits.max_nesting; errors carry the line number.  A document cut
 *     off after a complete value (a Chrome trace whose writer died before
 *     the final `]`) can be closed on request.  Each array and object of
 *     the tree (and of a diverted element) knows the line where it starts
 *     (sf_webjson__line), for messages.  The bulk arrays of a
 *     format (trace events, speedscope events and samples, a Firefox
 *     thread's tables) and objects (a trace's stackFrames) can be
 *     "diverted": parsed element by element and handed to the reader, so
 *     the tree never holds them (struct sf_webjson_divert).
 *   - lenient accessors: numbers that arrive as JSON strings ("ts": "12")
 *     are numbers, as Hermes and Perfetto exporters write them.
 *   - the V8 CPU profile node table (cpuprof.c) used by both .cpuprofile
 *     files and Chrome trace ProfileChunk events: nodes (id, parent id,
 *     call frame) arrive in any order, possibly spread over chunks; a
 *     node's stack is made when a sample first needs it.
 *
 * Nothing here is public API; names are sf_webjson__* and sf_cpuprof__*.
 */
#ifndef SF_WEBJSON_H
#define SF_WEBJSON_H

#include "format.h"
#include "hash.h"

#include <json-c/json.h>
#include <yajl/yajl_parse.h>

#define SF_WEBJSON_FLAGS (JSON_C_TO_STRING_PLAIN | \
			  JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * Diverted arrays, for documents whose bulk is one kind of array (the
 * events of a speedscope evented profile, a trace's events): the elements
 * of every array at the path  top-key [i] sub-key  (e.g.
 * "profiles"[i]."events"), or of the array  top-key  itself, or of a root
 * array, are parsed one at a time and handed to `element`, which keeps
 * what it needs in a compact form; the tree gets an empty array in their
 * place.  With close_truncated, a document cut off inside a diverted array
 * keeps the elements delivered so far.  A json-c
 * object costs about a kilobyte, so this is what keeps a 375 MB evented
 * file from needing ten times that.
 *
 * With `inner`, each element is itself parsed with `inner` as its divert,
 * the element as the root: the bulk arrays of one element (a Firefox
 * thread's sample columns, "samples"."stack") reach inner->element while
 * the element is read, before `element` gets the rest of it.  For `inner`,
 * `top` may name an object as well as an array: top . key (for the outer
 * divert too with `top_object`).  Several paths are a chain (`next`), as
 * speedscope's shared.frames and profiles[i].events.  Errors inside
 * an element carry the line where they are.
 */
struct sf_webjson_divert {
	bool root_array;                /* divert a root array's elements */
	const char *top;                /* key in the root object, or NULL */
	const char *const *keys;        /* NULL-terminated keys below
					 * top[i]; NULL to divert the
					 * elements of top itself; with top
					 * NULL, keys of the root object */
	/* `elem` is borrowed (NULL for a JSON null); `index` is the
	 * position in the top array, `key` the sub-key, `n` the element's
	 * position, `line` where it starts. */
	int (*element)(void *ud, size_t index, const char *key, size_t n,
		       struct json_object *elem, uint64_t line);
	void *ud;
	const struct sf_webjson_divert *inner;   /* or NULL */
	bool top_object;                /* top . key: top is an object */
	/* another path, tried when this one does not match (its own
	 * element and ud; `inner` of the first applies to all) */
	const struct sf_webjson_divert *next;
	/* top . KEY for every key: the arrays of a table whose members
	 * the reader does not all know, so that none stays in the tree
	 * (`keys` still lists the known ones, for their pointers; an
	 * unknown key reaches `element` as a string valid until the
	 * array ends) */
	bool any_key;
	/* the path names an object, not an array: its members' values
	 * are the elements, `key` each one's name (escapes undone, valid
	 * until `element` returns), `n` its position (a Chrome trace's
	 * "stackFrames": {"id": {...}, ...}) */
	bool members;
	/* Only in the first path of the chain, for the root object (of
	 * the document; in `inner`, of each element): the members the
	 * reader reads from the tree.  When set, the value of
	 * any other member that is an array or an object is checked by
	 * yajl, which keeps nothing, and dropped: the tree gets null in its
	 * place, so a member the reader does not know costs no memory
	 * however large it is.  A key with an escape is left to the tree
	 * (it might spell a known one). */
	const char *const *root_keys;
	/* Only in the first path: the root member `events_key`, an array or
	 * an object, is handed over as yajl events (`events`, with
	 * `events_ud` as their context) instead of being parsed, for a
	 * value that nests without bound (a legacy .cpuprofile's "head");
	 * the tree gets null in its place.  Before the callbacks see a '{'
	 * or '[', *events_line is set to its line.  A callback that fails
	 * sets the context's error and returns 0. */
	const char *events_key;
	const yajl_callbacks *events;
	void *events_ud;
	uint64_t *events_line;
};

/* Parse all of `in`, handing the diverted arrays' elements to `dv` (or
 * NULL).  With `close_truncated`, input that ends inside arrays or
 * objects after a complete value is closed (warning kind "<warn_kind>")
 * instead of rejected.  *out is the root (caller puts it); *end_line the
 * document's last line, for what is missing from it. */
int sf_webjson__parse_divert(struct sf_input *in, struct sf_ctx *ctx,
			     bool close_truncated, const char *warn_kind,
			     const struct sf_webjson_divert *dv,
			     struct json_object **out, uint64_t *end_line);

/* The line where array or object `v` starts, kept in its json-c user
 * data; 0 for a number, string or literal, for NULL, and in a tree whose
 * lines could not be matched (an object with a key twice).  A reader may
 * put its own marks in the user data with SF_WEBJSON_MARK set. */
#define SF_WEBJSON_MARK ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))
uint64_t sf_webjson__line(struct json_object *v);

/* The lines of a diverted array's elements once they are kept in a
 * compact array: a run of elements on one line costs one entry, so a file
 * on one line costs one, and one with an element a line about as much as
 * the elements themselves. */
struct sf_webjson_runs {
	struct sf_webjson_run { size_t at; uint64_t line; } *v;
	size_t n, cap;
};

/* Element `at` (at least the last one noted) is on `line`. */
int sf_webjson__runs_note(struct sf_webjson_runs *r, struct sf_ctx *ctx,
			  size_t at, uint64_t line);
/* The line of element `at` (0 when none was noted). */
uint64_t sf_webjson__runs_line(const struct sf_webjson_runs *r, size_t at);

/* Member `k` of object `o`, or NULL (also when `o` is not an object). */
struct json_object *sf_webjson__get(struct json_object *o, const char *k);
/* A string member, or NULL. */
const char *sf_webjson__str(struct json_object *o, const char *k);
/* A finite number: a JSON number or a string holding a decimal number. */
bool sf_webjson__num(struct json_object *v, double *out);
/* An integer (also an integral double or a numeric string). */
bool sf_webjson__int(struct json_object *v, int64_t *out);
/* An array member, or NULL. */
struct json_object *sf_webjson__arr(struct json_object *o, const char *k);

/* sf_output_num with a fast path for integral values (the common case:
 * timestamps, counts), which skips the printf/strtod round trip. */
void sf_webjson__put_num(struct sf_output *o, double v);

/* Write `s` as a JSON string literal (quotes included). */
void sf_webjson__put_str(struct sf_output *o, const char *s);

/* Probe helper: does the first `n` bytes of `d` hold the quoted key `k`
 * ("\"nodes\"")? */
bool sf_webjson__has(const unsigned char *d, size_t n, const char *k);

/* ----- V8 CPU profile nodes ----- */

struct sf_cpuprof_node {
	int64_t id;
	int64_t parent;         /* id, or INT64_MIN for none */
	sf_frame_id frame;
	bool is_root;           /* "(root)": not a frame of its own */
	bool resolving;
	sf_stack_id stack;      /* UINT32_MAX until resolved */
	uint64_t line;          /* where it is defined (or first named) */
};

struct sf_cpuprof {
	struct sf_cpuprof_node *nodes;
	size_t n, cap;
	struct sf_idx idx;      /* id -> index */
};

void sf_cpuprof__free(struct sf_cpuprof *t);
/* Add the nodes of a `nodes` array (V8 Profile.nodes: id, callFrame,
 * children and/or parent). `name` is for messages, and `line` where the
 * array's own line is not known. */
int sf_cpuprof__add_nodes(struct sf_cpuprof *t, struct sf_profile *p,
			 struct sf_ctx *ctx, struct json_object *nodes,
			 const char *name, uint64_t line);
/* Add nodes[i], `nd` (which ends on `line`). */
int sf_cpuprof__add_node_obj(struct sf_cpuprof *t, struct sf_profile *p,
			    struct sf_ctx *ctx, struct json_object *nd,
			    size_t i, const char *name, uint64_t line);
/* Add one node whose call frame fields sit in `cf` (the `callFrame`
 * object, or the node itself in the pre-2017 "head" format), defined on
 * `line`. */
int sf_cpuprof__add_node(struct sf_cpuprof *t, struct sf_profile *p,
			struct sf_ctx *ctx, int64_t id, int64_t parent,
			struct json_object *cf, const char *name,
			uint64_t line);
/* The same in two steps, for a reader that makes a node's frame before
 * it knows the node's id (the legacy "head" read as events):
 * sf_cpuprof__node_frame makes the model frame of call frame `cf`
 * (UINT32_MAX for "(root)", which has none), sf_cpuprof__add_framed adds
 * node `id` with it and puts the node's index in *out. */
int sf_cpuprof__node_frame(struct sf_profile *p, struct sf_ctx *ctx,
			   struct json_object *cf, const char *name,
			   uint64_t line, sf_frame_id *out);
int sf_cpuprof__add_framed(struct sf_cpuprof *t, struct sf_ctx *ctx,
			   int64_t id, int64_t parent, sf_frame_id frame,
			   const char *name, uint64_t line, uint32_t *out);
/* Is node `id` defined (not only named as a child or parent)? */
bool sf_cpuprof__has(const struct sf_cpuprof *t, int64_t id);
/* The stack of node `id`. */
int sf_cpuprof__stack(struct sf_cpuprof *t, struct sf_profile *p,
		     struct sf_ctx *ctx, int64_t id, const char *name,
		     sf_stack_id *out);
/* The model frame for a V8 call frame: "(anonymous)" for an empty
 * function name, url as file, 0-based lineNumber/columnNumber made
 * 1-based. */
int sf_cpuprof__frame(struct sf_profile *p, struct sf_ctx *ctx,
		     struct json_object *cf, sf_frame_id *out);



/* ----- writing helpers ----- */

/* Microseconds per `unit` ("nanoseconds", "microseconds", "milliseconds",
 * "seconds", also "ns", "us", "ms", "s"); 0 for a unit that is not time. */
double sf_webjson__unit_us(const char *unit);

/* Sample indices grouped by thread: groups in thread order, samples with
 * SF_NO_THREAD last, model order kept inside a group.  *order has
 * nsamples entries; group g is order[start[g] .. start[g+1]); *thread
 * gives its thread (SF_NO_THREAD for the last group if any).  Empty groups
 * are left out.  Caller frees the three arrays. */
int sf_webjson__by_thread(const struct sf_profile *p, struct sf_ctx *ctx,
			  size_t **order, size_t **start,
			  sf_thread_idx **thread, size_t *ngroups);

/* Display name of a group's thread ("name-tid", "name", "tid"), or
 * `fallback` for SF_NO_THREAD / an anonymous thread. */
void sf_webjson__thread_name(const struct sf_profile *p, sf_thread_idx t,
			     const char *fallback, char *buf, size_t size);

/* Does `want` (from an option) name thread t: its name, tid or label? */
bool sf_webjson__thread_match(const struct sf_profile *p, sf_thread_idx t,
			      const char *want);
#endif
