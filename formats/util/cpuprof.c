/*
 * cpuprof.c - the V8 CPU profile node table the cpuprofile and
 * chrome-trace readers share (declared in webjson.h): nodes arrive in any
 * order, possibly spread over chunks; a node's stack is made when a
 * sample first needs it.  Kept apart from the JSON loading (webjson.c),
 * which it does not use.
 */
#include "webjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sf_cpuprof__free(struct sf_cpuprof *t)
{
	free(t->nodes);
	sf_idx_free(&t->idx);
	memset(t, 0, sizeof(*t));
}

static bool node_eq(const void *c, uint32_t id, const void *key)
{
	const struct sf_cpuprof *t = c;

	return t->nodes[id].id == *(const int64_t *)key;
}

static bool node_find(const struct sf_cpuprof *t, int64_t id, uint32_t *out)
{
	return sf_idx_find(&t->idx, sf_hash(&id, sizeof(id)), node_eq, t, &id,
			   out);
}

bool sf_cpuprof__has(const struct sf_cpuprof *t, int64_t id)
{
	uint32_t at;

	return node_find(t, id, &at) && (t->nodes[at].frame != UINT32_MAX ||
					 t->nodes[at].is_root);
}

int sf_cpuprof__frame(struct sf_profile *p, struct sf_ctx *ctx,
		     struct json_object *cf, sf_frame_id *out)
{
	struct sf_frame f;
	const char *fn = sf_webjson__str(cf, "functionName");
	const char *url = sf_webjson__str(cf, "url");
	int64_t x;

	sf_frame_init(&f);
	f.name = fn && *fn ? fn : "(anonymous)";
	if (url && *url)
		f.file = url;
	if (sf_webjson__int(sf_webjson__get(cf, "lineNumber"), &x) &&
	    x >= 0 && x < UINT32_MAX)
		f.line = (uint32_t)x + 1;
	if (sf_webjson__int(sf_webjson__get(cf, "columnNumber"), &x) &&
	    x >= 0 && x < UINT32_MAX)
		f.column = (uint32_t)x + 1;
	if (strlen(f.name) > ctx->limits.max_name)
		return sf_error(ctx, SF_ELIMIT, NULL, 0,
				"function name exceeds --max-name");
	return sf_profile_frame(p, ctx, &f, out);
}

/* A new node `id` (defined or only named so far, on `line`), without
 * parent, frame or stack yet; *at is its index. */
static int node_new(struct sf_cpuprof *t, struct sf_ctx *ctx, int64_t id,
		    uint64_t line, uint32_t *at)
{
	if (sf_grow(&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes)))
		return sf_error_nomem(ctx);
	*at = (uint32_t)t->n;
	if (!sf_idx_insert(&t->idx, sf_hash(&id, sizeof(id)), *at))
		return sf_error_nomem(ctx);
	t->nodes[t->n++] = (struct sf_cpuprof_node){
		.id = id, .parent = INT64_MIN, .frame = UINT32_MAX,
		.stack = UINT32_MAX, .line = line };
	return 0;
}

int sf_cpuprof__add_node(struct sf_cpuprof *t, struct sf_profile *p,
			struct sf_ctx *ctx, int64_t id, int64_t parent,
			struct json_object *cf, const char *name,
			uint64_t line)
{
	sf_frame_id fr;
	uint32_t at;
	int rc;

	if ((rc = sf_cpuprof__node_frame(p, ctx, cf, name, line, &fr)))
		return rc;
	return sf_cpuprof__add_framed(t, ctx, id, parent, fr, name, line,
				      &at);
}

int sf_cpuprof__node_frame(struct sf_profile *p, struct sf_ctx *ctx,
			   struct json_object *cf, const char *name,
			   uint64_t line, sf_frame_id *out)
{
	const char *fn = sf_webjson__str(cf, "functionName");
	int rc;

	*out = UINT32_MAX;
	if (fn && !strcmp(fn, "(root)"))
		return 0;
	if ((rc = sf_cpuprof__frame(p, ctx, cf, out)))
		sf_error_place(ctx, name, line);
	return rc;
}

int sf_cpuprof__add_framed(struct sf_cpuprof *t, struct sf_ctx *ctx,
			   int64_t id, int64_t parent, sf_frame_id frame,
			   const char *name, uint64_t line, uint32_t *out)
{
	uint32_t at;
	struct sf_cpuprof_node *nd;
	int rc;

	if (node_find(t, id, &at)) {
		/* a node may be announced by its parent's `children` before
		 * it arrives; a real duplicate is an error */
		nd = &t->nodes[at];
		if (nd->stack != UINT32_MAX || nd->frame != UINT32_MAX)
			return sf_error(ctx, SF_EINPUT, name, line,
					"CPU profile node id %lld appears "
					"twice", (long long)id);
	} else {
		if ((rc = node_new(t, ctx, id, line, &at)))
			return rc;
		nd = &t->nodes[at];
	}
	if (parent != INT64_MIN)
		nd->parent = parent;
	nd->line = line;
	nd->is_root = frame == UINT32_MAX;
	nd->frame = frame;
	*out = at;
	return 0;
}

/* Record that `child` has parent `parent` (from a `children` list on
 * `line`, which stays the child's line until the child itself comes). */
static int set_parent(struct sf_cpuprof *t, struct sf_ctx *ctx, int64_t child,
		      int64_t parent, uint64_t line)
{
	uint32_t at;

	int rc;

	if (!node_find(t, child, &at) &&
	    (rc = node_new(t, ctx, child, line, &at)))
		return rc;
	t->nodes[at].parent = parent;
	return 0;
}

int sf_cpuprof__add_node_obj(struct sf_cpuprof *t, struct sf_profile *p,
			    struct sf_ctx *ctx, struct json_object *nd,
			    size_t i, const char *name, uint64_t line)
{
	struct json_object *cf = sf_webjson__get(nd, "callFrame");
	struct json_object *ch = sf_webjson__arr(nd, "children");
	int64_t id, parent = INT64_MIN;
	int rc;

	if (sf_webjson__line(nd))
		line = sf_webjson__line(nd);
	if (!sf_webjson__int(sf_webjson__get(nd, "id"), &id) ||
	    !cf || !json_object_is_type(cf, json_type_object))
		return sf_error(ctx, SF_EINPUT, name, line,
				"nodes[%zu]: expected an object with an "
				"integer \"id\" and a \"callFrame\"", i);
	if (sf_webjson__get(nd, "parent") &&
	    !sf_webjson__int(sf_webjson__get(nd, "parent"), &parent))
		return sf_error(ctx, SF_EINPUT, name, line,
				"nodes[%zu]: \"parent\" must be a node id",
				i);
	if ((rc = sf_cpuprof__add_node(t, p, ctx, id, parent, cf, name,
				      line)))
		return rc;
	for (size_t j = 0; ch && j < json_object_array_length(ch); j++) {
		int64_t c;
		if (!sf_webjson__int(json_object_array_get_idx(ch, j), &c))
			return sf_error(ctx, SF_EINPUT, name,
					sf_webjson__line(ch),
					"nodes[%zu].children: expected node "
					"ids", i);
		if ((rc = set_parent(t, ctx, c, id, sf_webjson__line(ch))))
			return rc;
	}
	return 0;
}

int sf_cpuprof__add_nodes(struct sf_cpuprof *t, struct sf_profile *p,
			 struct sf_ctx *ctx, struct json_object *nodes,
			 const char *name, uint64_t line)
{
	size_t n = json_object_array_length(nodes);
	int rc;

	if (sf_webjson__line(nodes))
		line = sf_webjson__line(nodes);
	for (size_t i = 0; i < n; i++)
		if ((rc = sf_cpuprof__add_node_obj(
			     t, p, ctx, json_object_array_get_idx(nodes, i), i,
			     name, line)))
			return rc;
	return 0;
}

int sf_cpuprof__stack(struct sf_cpuprof *t, struct sf_profile *p,
		     struct sf_ctx *ctx, int64_t id, const char *name,
		     sf_stack_id *out)
{
	uint32_t at, cur, *path = NULL;
	size_t n = 0, cap = 0;
	sf_stack_id s = SF_STACK_EMPTY;
	int rc = 0;

	if (!node_find(t, id, &at))
		return sf_error(ctx, SF_EINPUT, name, 0,
				"sample refers to unknown node id %lld",
				(long long)id);
	/* walk up to a resolved node (or a root), remembering the path, then
	 * push frames on the way back down: iterative, so deep chains cannot
	 * overflow the C stack */
	for (cur = at;;) {
		struct sf_cpuprof_node *nd = &t->nodes[cur];
		uint32_t up;
		if (nd->stack != UINT32_MAX) {
			s = nd->stack;
			break;
		}
		if (nd->resolving) {
			rc = sf_error(ctx, SF_EINPUT, name, nd->line,
				      "CPU profile node %lld is its own "
				      "ancestor", (long long)nd->id);
			goto out;
		}
		if (nd->frame == UINT32_MAX && !nd->is_root) {
			rc = sf_error(ctx, SF_EINPUT, name, nd->line,
				      "a sample refers to CPU profile node "
				      "%lld, which is never defined",
				      (long long)nd->id);
			goto out;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			void *q = sf_reallocarray(path, nc, sizeof(*path));
			if (!q) {
				rc = sf_error_nomem(ctx);
				goto out;
			}
			path = q;
			cap = nc;
		}
		if (n > ctx->limits.max_depth) {
			rc = sf_error(ctx, SF_ELIMIT, name, t->nodes[at].line,
				      "CPU profile nesting exceeds "
				      "--max-depth");
			goto out;
		}
		path[n++] = cur;
		nd->resolving = true;
		if (nd->parent == INT64_MIN)
			break;
		if (!node_find(t, nd->parent, &up) ||
		    (t->nodes[up].frame == UINT32_MAX &&
		     !t->nodes[up].is_root)) {
			/* Chrome drops chunks when its buffer fills: keep the
			 * known part of the stack */
			sf_warn(ctx, "cpuprofile.missing-parent", "%s: CPU "
				"profile node %lld has an unknown parent "
				"%lld; its stack starts there", name,
				(long long)nd->id, (long long)nd->parent);
			break;
		}
		cur = up;
	}
	while (n) {
		struct sf_cpuprof_node *nd = &t->nodes[path[--n]];
		/* "(root)" adds no frame of its own */
		if (!nd->is_root &&
		    (rc = sf_profile_stack_push(p, ctx, s, nd->frame, &s)))
			goto out;
		nd->stack = s;
		nd->resolving = false;
	}
	*out = t->nodes[at].stack;
out:
	while (n)
		t->nodes[path[--n]].resolving = false;
	free(path);
	return rc;
}

