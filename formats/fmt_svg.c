/*
 * fmt_svg.c - interactive flame graph (or icicle graph) as one SVG file.
 *
 * The samples' stacks are merged into one tree: a frame's children are the
 * distinct frames (by name, module and kind) called from it, ordered by
 * name, like FlameGraph's alphabetic x axis.  Each tree node is one
 * <g class="f"> with a <title> (name, weight, percentage), a <rect> whose
 * width is proportional to the node's inclusive weight in the default
 * sample type, and a <text> label cut to fit.  The root "all" spans the
 * full width; callers are below their callees (flame) or above them
 * (--inverted, icicle).
 *
 * Nodes narrower than --min-width pixels (default 0.1) are not written, and
 * neither are their descendants; the subtitle says how many.  --max-frames
 * (default 15000) raises that width when more frames would be drawn, so a
 * profile with 100,000 distinct stacks, however deep, stays a few MB and
 * opens in a browser in about a second.
 *
 * A differential profile (prop "diff", types "base" and "new", from
 * sf_diff_build() or a difffolded input) is drawn with widths from NEW and
 * colours from the change of each node's self weight, NEW - BASE, as
 * FlameGraph does: red where it grew, blue where it shrank, the stronger
 * the larger the change relative to the largest one.
 * Frames with no weight in NEW (only in BASE) have no width and are not
 * drawn; the subtitle counts them.
 *
 * The embedded script (ours) gives click-to-zoom, reset, search by regular
 * expression with highlighted matches and the matched percentage; its API
 * is window.sfFlame = { zoom(g), reset(), search(re), clear() } for tests.
 *
 * Written with libxml2's xmlTextWriter through an xmlOutputBuffer whose
 * write callback is sf_output_write, so escaping and well-formedness are
 * libxml2's job.  Names that are not valid UTF-8 or hold characters XML
 * cannot carry are written with U+FFFD in their place.
 */
#include "format.h"
#include "diff.h"

#include <libxml/chvalid.h>
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_NS "urn:sftools:flamegraph"
#define XPAD 10
#define FRAME_H 16
#define FONT 12
#define CHAR_W (0.59 * FONT)
#define YPAD_TOP 52
#define YPAD_BOTTOM 34

struct node {
	uint32_t parent;
	uint32_t depth;
	const char *name;
	const char *module;
	const char *kind;
	uint32_t flags;
	double w;       /* inclusive weight, default (NEW) type */
	double wb;      /* inclusive BASE weight (differential) */
	double sw, swb; /* self weights: NEW, BASE */
	double x;       /* offset from the left, in weight units */
	bool drawn;
};

struct graph {
	struct node *nodes;
	size_t n;
	uint32_t *order;   /* node ids sorted by (parent, name, module) */
	double total;
	bool diff;
	size_t drawn, elided, removed;
	double minpx;      /* effective minimum width (--min-width or cap) */
	bool capped;       /* --max-frames raised it */
	uint32_t maxdepth;
};

/* ----- colours ----- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	/* splitmix64's finaliser: short names differ in every bit */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

enum palette {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA,
	PAL_YELLOW, PAL_PURPLE, PAL_ORANGE, PAL_JAVA, PAL_JS, PAL_PERL,
};

static const char *const palette_names[] = {
	"hot", "mem", "io", "red", "green", "blue", "aqua", "yellow",
	"purple", "orange", "java", "js", "perl", NULL
};

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

/* What kind of code a frame is: from the model's kind and flags, else
 * from the suffixes stackcollapse-perf.pl --all adds (_[k], _[j],
 * _[i]), or a "[kernel...]" module as perf names it. */
enum fkind { K_OTHER, K_KERNEL, K_JIT, K_INLINE };

static enum fkind frame_kind(const struct node *nd)
{
	if (nd->flags & SF_FRAME_INLINE)
		return K_INLINE;
	if (nd->kind) {
		if (!strcmp(nd->kind, "kernel"))
			return K_KERNEL;
		if (!strcmp(nd->kind, "jit"))
			return K_JIT;
		if (!strcmp(nd->kind, "inline"))
			return K_INLINE;
	}
	if (ends_with(nd->name, "_[k]") ||
	    (nd->module && !strncmp(nd->module, "[kernel", 7)))
		return K_KERNEL;
	if (ends_with(nd->name, "_[j]"))
		return K_JIT;
	if (ends_with(nd->name, "_[i]"))
		return K_INLINE;
	return K_OTHER;
}

static void base_colour(enum palette pal, double v1, double v2, double v3,
			int rgb[3])
{
	switch (pal) {
	case PAL_MEM:
		rgb[0] = 0; rgb[1] = 190 + (int)(50 * v2);
		rgb[2] = (int)(210 * v1);
		break;
	case PAL_IO:
		rgb[0] = 80 + (int)(60 * v1); rgb[1] = rgb[0];
		rgb[2] = 190 + (int)(55 * v2);
		break;
	case PAL_RED:
		rgb[0] = 200 + (int)(55 * v1); rgb[1] = (int)(80 * v1);
		rgb[2] = rgb[1];
		break;
	case PAL_GREEN:
		rgb[0] = (int)(50 * v1); rgb[1] = 200 + (int)(55 * v1);
		rgb[2] = rgb[0];
		break;
	case PAL_BLUE:
		rgb[0] = (int)(80 * v1); rgb[1] = rgb[0];
		rgb[2] = 205 + (int)(50 * v1);
		break;
	case PAL_AQUA:
		rgb[0] = 50 + (int)(60 * v1); rgb[1] = 165 + (int)(55 * v1);
		rgb[2] = rgb[1];
		break;
	case PAL_YELLOW:
		rgb[0] = 175 + (int)(55 * v1); rgb[1] = rgb[0];
		rgb[2] = 50 + (int)(20 * v1);
		break;
	case PAL_PURPLE:
		rgb[0] = 190 + (int)(65 * v1); rgb[1] = 80 + (int)(60 * v1);
		rgb[2] = rgb[0];
		break;
	case PAL_ORANGE:
		rgb[0] = 190 + (int)(65 * v1); rgb[1] = 90 + (int)(65 * v1);
		rgb[2] = 0;
		break;
	default:   /* hot */
		rgb[0] = 205 + (int)(50 * v3); rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
		break;
	}
}

static void frame_colour(enum palette pal, const struct node *nd, int rgb[3])
{
	uint64_t h = fnv1a(nd->name);
	double v1 = (double)(h & 0xffff) / 65535.0;
	double v2 = (double)((h >> 16) & 0xffff) / 65535.0;
	double v3 = (double)((h >> 32) & 0xffff) / 65535.0;
	enum fkind k = frame_kind(nd);
	const char *n = nd->name;
	enum palette use = pal;

	switch (pal) {
	case PAL_HOT:
	case PAL_JAVA:
	case PAL_JS:
	case PAL_PERL:
		if (k == K_KERNEL)
			use = PAL_ORANGE;
		else if (k == K_INLINE)
			use = PAL_AQUA;
		else if (k == K_JIT)
			use = PAL_GREEN;
		else if (pal == PAL_JAVA)
			use = (strchr(n, '/') || (strchr(n, '.') &&
						  !strstr(n, "::"))) ?
			      PAL_GREEN : strstr(n, "::") ? PAL_YELLOW :
			      PAL_RED;
		else if (pal == PAL_JS)
			use = strstr(n, ".js") || strchr(n, '/') ?
			      PAL_GREEN : strstr(n, "::") ? PAL_YELLOW :
			      PAL_RED;
		else if (pal == PAL_PERL)
			use = strstr(n, "::") || strstr(n, ".pl") ?
			      PAL_GREEN : PAL_RED;
		else
			use = PAL_HOT;
		break;
	default:
		break;
	}
	base_colour(use, v1, v2, v3, rgb);
}

static void diff_colour(double delta, double maxdelta, int rgb[3])
{
	if (delta == 0 || maxdelta <= 0) {
		rgb[0] = rgb[1] = rgb[2] = 235;
		return;
	}
	double v = fabs(delta) / maxdelta;
	int c = (int)lround(220 * (1 - v));
	if (delta > 0) {
		rgb[0] = 255; rgb[1] = c; rgb[2] = c;
	} else {
		rgb[0] = c; rgb[1] = c; rgb[2] = 255;
	}
}

/* ----- the merged tree ----- */

static const struct node *g_nodes;   /* for qsort */

static int strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

static int desc_cmp(const void *a_, const void *b_)
{
	double a = *(const double *)a_, b = *(const double *)b_;

	return a > b ? -1 : a < b;
}

static int order_cmp(const void *a_, const void *b_)
{
	const struct node *a = &g_nodes[*(const uint32_t *)a_];
	const struct node *b = &g_nodes[*(const uint32_t *)b_];
	int c;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	if ((c = strcmp(a->name, b->name)))
		return c;
	if ((c = strcmp_null(a->module, b->module)))
		return c;
	if ((c = strcmp_null(a->kind, b->kind)))
		return c;
	return *(const uint32_t *)a_ < *(const uint32_t *)b_ ? -1 : 1;
}

static uint64_t node_hash(uint32_t parent, const struct sf_frame *f)
{
	uint64_t k[4] = { parent, (uint64_t)(uintptr_t)f->name,
			  (uint64_t)(uintptr_t)f->module,
			  (uint64_t)(uintptr_t)f->kind };
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 4; i++) {
		h ^= k[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h;
}

static int build_graph(struct graph *g, const struct sf_profile *p,
		       struct sf_ctx *ctx, double width, double minw,
		       size_t max_frames)
{
	uint32_t t = 0, tb = 0;
	size_t ns = p->d.nstacks ? p->d.nstacks : 1;
	double *self = NULL, *selfb = NULL;
	uint32_t *map = NULL, *slots = NULL;
	size_t cap = 16;
	int rc = 0;

	memset(g, 0, sizeof(*g));
	g->diff = sf_diff_types(p, &tb, &t);
	if (!g->diff && p->d.ntypes)
		t = p->d.meta.default_type < p->d.ntypes ?
		    p->d.meta.default_type : (uint32_t)p->d.ntypes - 1;
	while (cap < 2 * ns + 2)
		cap *= 2;
	self = sf_calloc(ns, sizeof(*self));
	selfb = sf_calloc(ns, sizeof(*selfb));
	map = sf_calloc(ns, sizeof(*map));
	slots = sf_malloc(cap * sizeof(*slots));
	g->nodes = sf_calloc(ns, sizeof(*g->nodes));
	if (!self || !selfb || !map || !slots || !g->nodes) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	memset(slots, 0xff, cap * sizeof(*slots));
	for (size_t i = 0; i < p->d.nsamples; i++) {
		sf_stack_id s = p->d.samples[i].stack;
		self[s] += p->d.ntypes ? sf_weight(p, i, t) : 1;
		if (g->diff)
			selfb[s] += sf_weight(p, i, tb);
	}
	/* node 0 is "all"; stack ids grow from parent to child, so each
	 * stack's parent is mapped before it */
	g->nodes[0].name = "all";
	g->nodes[0].parent = UINT32_MAX;
	g->n = 1;
	map[0] = 0;
	for (size_t s = 1; s < p->d.nstacks; s++) {
		const struct sf_stack_node *sn = &p->d.stacks[s];
		const struct sf_frame *f = &p->d.frames[sn->frame];
		uint32_t par = map[sn->parent];
		size_t i = node_hash(par, f) & (cap - 1);
		for (;; i = (i + 1) & (cap - 1)) {
			uint32_t id = slots[i];
			if (id == UINT32_MAX) {
				id = (uint32_t)g->n++;
				struct node *nd = &g->nodes[id];
				nd->parent = par;
				nd->depth = g->nodes[par].depth + 1;
				nd->name = f->name;
				nd->module = f->module;
				nd->kind = f->kind;
				nd->flags = f->flags;
				slots[i] = id;
				map[s] = id;
				break;
			}
			const struct node *nd = &g->nodes[id];
			if (nd->parent == par && nd->name == f->name &&
			    nd->module == f->module && nd->kind == f->kind) {
				map[s] = id;
				break;
			}
		}
	}
	for (size_t s = 0; s < p->d.nstacks; s++) {
		g->nodes[map[s]].sw += self[s];
		g->nodes[map[s]].swb += selfb[s];
	}
	for (size_t i = 0; i < g->n; i++) {
		g->nodes[i].w = g->nodes[i].sw;
		g->nodes[i].wb = g->nodes[i].swb;
	}
	for (size_t i = g->n; i-- > 1;) {
		struct node *nd = &g->nodes[i];
		g->nodes[nd->parent].w += nd->w;
		g->nodes[nd->parent].wb += nd->wb;
	}
	g->total = g->nodes[0].w;
	if (!(g->order = sf_malloc(g->n * sizeof(*g->order)))) {
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < g->n; i++)
		g->order[i] = (uint32_t)i;
	g_nodes = g->nodes;
	/* node 0 has parent UINT32_MAX: sort only the others */
	qsort(g->order + 1, g->n - 1, sizeof(*g->order), order_cmp);
	/* x offsets: children follow each other from the parent's x; the
	 * groups come in parent-id order, so a parent is placed first */
	uint32_t cur = UINT32_MAX;
	double cx = 0;
	g->nodes[0].drawn = true;
	g->drawn = 1;
	double scale = g->total > 0 ? (width - 2 * XPAD) / g->total : 0;
	/* --max-frames: a frame is never wider than its caller, so keeping
	 * the frames wider than the (max+1)-th widest keeps a connected
	 * tree of at most max frames; it acts as a larger --min-width */
	double cut = -1;
	g->minpx = minw;
	if (max_frames && g->n > max_frames && scale > 0) {
		double *ws = sf_malloc(g->n * sizeof(*ws));
		if (!ws) {
			rc = sf_error(ctx, SF_ENOMEM, NULL, 0,
				      "out of memory");
			goto out;
		}
		for (size_t i = 0; i < g->n; i++)
			ws[i] = g->nodes[i].w;
		qsort(ws, g->n, sizeof(*ws), desc_cmp);
		if (ws[max_frames] * scale >= minw) {
			cut = ws[max_frames];
			g->minpx = cut * scale;
			g->capped = true;
		}
		free(ws);
	}
	for (size_t k = 1; k < g->n; k++) {
		struct node *nd = &g->nodes[g->order[k]];
		if (nd->parent != cur) {
			cur = nd->parent;
			cx = g->nodes[cur].x;
		}
		nd->x = cx;
		cx += nd->w;
		nd->drawn = g->nodes[nd->parent].drawn && nd->w > 0 &&
			    nd->w * scale >= minw && nd->w > cut;
		if (nd->drawn) {
			g->drawn++;
			if (nd->depth > g->maxdepth)
				g->maxdepth = nd->depth;
		} else if (nd->w > 0) {
			g->elided++;
		} else if (g->diff && nd->wb > 0) {
			g->removed++;
		}
	}
out:
	free(self);
	free(selfb);
	free(map);
	free(slots);
	return rc;
}

/* ----- writing ----- */

struct svgw {
	xmlTextWriterPtr w;
	int err;
	char *buf;      /* scratch for sanitised names */
	size_t cap;
};

/* Always "succeeds": a failed write is sticky in sf_output and reported
 * by sf_output_commit(), while a -1 here would make libxml2 print its own
 * "I/O error" on stderr (the library never prints). */
static int out_write(void *context, const char *buf, int len)
{
	sf_output_write(context, buf, (size_t)len);
	return len;
}

static int out_close(void *context)
{
	(void)context;
	return 0;
}

#define W(call) do { if ((call) < 0) s->err = 1; } while (0)

/* `name` as valid XML text: bad UTF-8 and characters XML 1.0 forbids
 * become U+FFFD; at most `maxch` characters (then ".." is appended);
 * maxch 0 = all.  Returns s->buf or NULL on allocation failure. */
static const char *xml_text(struct svgw *s, const char *name, size_t maxch)
{
	size_t n = strlen(name), need = n * 3 + 8;

	if (need > s->cap) {
		char *b = realloc(s->buf, need);
		if (!b)
			return NULL;
		s->buf = b;
		s->cap = need;
	}
	size_t o = 0, chars = 0, i = 0;
	while (i < n) {
		int len = (int)(n - i > 4 ? 4 : n - i);
		int c = xmlGetUTF8Char((const unsigned char *)name + i, &len);
		if (maxch && chars == maxch - 2 && i < n) {
			/* room for the ".." only if more remains */
			size_t rest = 0, j = i;
			while (j < n && rest < 3) {
				if (((unsigned char)name[j] & 0xc0) != 0x80)
					rest++;
				j++;
			}
			if (rest > 2) {
				memcpy(s->buf + o, "..", 2);
				o += 2;
				break;
			}
		}
		if (c < 0 || !xmlIsCharQ(c) || c == 0xfffe || c == 0xffff) {
			memcpy(s->buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += c < 0 ? 1 : (size_t)len;
		} else {
			memcpy(s->buf + o, name + i, (size_t)len);
			o += (size_t)len;
			i += (size_t)len;
		}
		chars++;
	}
	s->buf[o] = 0;
	return s->buf;
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* "%.2f" without trailing zeros. */
static void fmt2(char *b, size_t size, double v)
{
	snprintf(b, size, "%.2f", v);
	char *e = b + strlen(b);
	while (e > b && e[-1] == '0')
		*--e = 0;
	if (e > b && e[-1] == '.')
		*--e = 0;
	if (!strcmp(b, "-0"))
		strcpy(b, "0");
}

static void attr(struct svgw *s, const char *name, const char *v)
{
	W(xmlTextWriterWriteAttribute(s->w, BAD_CAST name, BAD_CAST v));
}

static void attr_num(struct svgw *s, const char *name, double v)
{
	char b[64];

	fmt2(b, sizeof(b), v);
	attr(s, name, b);
}

static void attr_exact(struct svgw *s, const char *name, double v)
{
	char b[64];

	sf_format_num(b, sizeof(b), v);
	attr(s, name, b);
}

static void element_text(struct svgw *s, const char *cls, const char *id,
			 double x, double y, const char *anchor,
			 const char *text)
{
	W(xmlTextWriterStartElement(s->w, BAD_CAST "text"));
	if (id)
		attr(s, "id", id);
	if (cls)
		attr(s, "class", cls);
	attr_num(s, "x", x);
	attr_num(s, "y", y);
	if (anchor)
		attr(s, "text-anchor", anchor);
	W(xmlTextWriterWriteString(s->w, BAD_CAST text));
	W(xmlTextWriterEndElement(s->w));
}

static const char svg_style[] =
"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
"#title{font-size:17px}"
"#subtitle{fill:#555}"
".f{cursor:pointer}"
".f:hover rect{stroke:#000;stroke-width:0.5}"
".f text{pointer-events:none}"
".anc{opacity:0.5}"
".hide{display:none}"
"#unzoom,#search{cursor:pointer}"
"#unzoom:hover,#search:hover{fill:#00c}";

/* Our own script: zoom, reset, search.  Attributes in the sftools
 * namespace (written with prefix "sf") carry each frame's offset, width
 * and depth in weight units, so zooming is exact arithmetic. */
static const char svg_script[] =
"(function(){\"use strict\";\n"
"var svg=document.documentElement,frames=null,total,W,PAD,FULL,CW=0.59*12;\n"
"var zoomed=null,matchFill=\"rgb(230,0,230)\",searching=false;\n"
"function $(id){return document.getElementById(id);}\n"
"function num(e,a){return parseFloat(e.getAttribute(\"sf:\"+a));}\n"
"function ensure(){if(frames)return;\n"
" total=num(svg,\"total\");PAD=num(svg,\"pad\");W=parseFloat(svg.getAttribute(\"width\"));FULL=W-2*PAD;\n"
" frames=[];var gs=$(\"frames\").children;\n"
" for(var i=0;i<gs.length;i++){var g=gs[i],t=g.firstElementChild;\n"
"  g._x=num(g,\"x\");g._w=num(g,\"w\");g._d=num(g,\"d\");\n"
"  g._r=t.nextElementSibling;g._t=g._r.nextElementSibling;\n"
"  g._name=t.textContent.split(\"\\n\")[0];g._fill=g._r.getAttribute(\"fill\");frames.push(g);}}\n"
"function fit(name,w){var n=Math.floor((w-6)/CW);if(n<3)return \"\";\n"
" if(name.length<=n)return name;return name.slice(0,n-2)+\"..\";}\n"
"function place(g,x,w){g._r.setAttribute(\"x\",x.toFixed(2));g._r.setAttribute(\"width\",w.toFixed(2));\n"
" var l=fit(g._name,w);if(!g._t){if(!l)return;\n"
"  g._t=document.createElementNS(\"http://www.w3.org/2000/svg\",\"text\");\n"
"  g._t.setAttribute(\"y\",(parseFloat(g._r.getAttribute(\"y\"))+11.5).toFixed(2));g.appendChild(g._t);}\n"
" g._t.setAttribute(\"x\",(x+3).toFixed(2));g._t.textContent=l;}\n"
"function zoom(g){ensure();var zx=g._x,zw=g._w,zd=g._d,eps=total*1e-12;\n"
" if(!(zw>0))return;\n"
" for(var i=0;i<frames.length;i++){var f=frames[i];\n"
"  if(f._d<zd&&f._x<=zx+eps&&f._x+f._w>=zx+zw-eps){place(f,PAD,FULL);f.classList.add(\"anc\");f.classList.remove(\"hide\");}\n"
"  else if(f._d>=zd&&f._x>=zx-eps&&f._x+f._w<=zx+zw+eps){place(f,PAD+(f._x-zx)/zw*FULL,f._w/zw*FULL);f.classList.remove(\"anc\");f.classList.remove(\"hide\");}\n"
"  else f.classList.add(\"hide\");}\n"
" zoomed=g;$(\"unzoom\").classList.remove(\"hide\");}\n"
"function reset(){ensure();for(var i=0;i<frames.length;i++){var f=frames[i];\n"
"  place(f,PAD+f._x/total*FULL,f._w/total*FULL);f.classList.remove(\"anc\");f.classList.remove(\"hide\");}\n"
" zoomed=null;$(\"unzoom\").classList.add(\"hide\");}\n"
"function clear(){ensure();for(var i=0;i<frames.length;i++){var f=frames[i];f._r.setAttribute(\"fill\",f._fill);f.classList.remove(\"match\");}\n"
" searching=false;$(\"matched\").textContent=\" \";$(\"search\").textContent=\"Search\";}\n"
"function search(term){ensure();var re;\n"
" try{re=new RegExp(term);}catch(e){$(\"matched\").textContent=\"bad regular expression\";return null;}\n"
" var iv=[];for(var i=0;i<frames.length;i++){var f=frames[i];\n"
"  if(f._d>0&&re.test(f._name)){f._r.setAttribute(\"fill\",matchFill);f.classList.add(\"match\");iv.push([f._x,f._x+f._w]);}\n"
"  else{f._r.setAttribute(\"fill\",f._fill);f.classList.remove(\"match\");}}\n"
" iv.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-Infinity;\n"
" for(var j=0;j<iv.length;j++){var a=Math.max(iv[j][0],end);if(iv[j][1]>a){sum+=iv[j][1]-a;}if(iv[j][1]>end)end=iv[j][1];}\n"
" var pct=total>0?100*sum/total:0;\n"
" $(\"matched\").textContent=\"Matched: \"+pct.toFixed(2)+\"%\";$(\"search\").textContent=\"Reset Search\";searching=true;return pct;}\n"
"function ask(){if(searching){clear();return;}var t=window.prompt(\"Search for (regular expression):\",\"\");if(t)search(t);}\n"
"function frameOf(e){var n=e.target;while(n&&n!==svg){if(n.classList&&n.classList.contains(\"f\"))return n;n=n.parentNode;}return null;}\n"
"window.addEventListener(\"load\",function(){\n"
" var fr=$(\"frames\"),det=$(\"details\");\n"
" fr.addEventListener(\"click\",function(e){var g=frameOf(e);if(g)zoom(g);});\n"
" fr.addEventListener(\"mouseover\",function(e){var g=frameOf(e);if(g)det.textContent=g.firstElementChild.textContent.replace(/\\n/g,\"  \");});\n"
" fr.addEventListener(\"mouseout\",function(){det.textContent=\" \";});\n"
" $(\"unzoom\").addEventListener(\"click\",reset);\n"
" $(\"search\").addEventListener(\"click\",ask);\n"
" window.addEventListener(\"keydown\",function(e){if((e.ctrlKey||e.metaKey)&&e.key===\"f\"){e.preventDefault();ask();}\n"
"  else if(e.key===\"Escape\"){if(searching)clear();if(zoomed)reset();}});\n"
"});\n"
"window.sfFlame={zoom:zoom,reset:reset,search:search,clear:clear};\n"
"})();\n";

static void write_frame(struct svgw *s, const struct graph *g,
			const struct node *nd, enum palette pal, double width,
			double height, bool inverted, double maxdelta,
			const char *unit)
{
	double full = width - 2 * XPAD;
	double x = XPAD + (g->total > 0 ? nd->x / g->total * full : 0);
	double w = g->total > 0 ? nd->w / g->total * full : full;
	double y = inverted ? YPAD_TOP + nd->depth * FRAME_H :
		   height - YPAD_BOTTOM - (nd->depth + 1.0) * FRAME_H;
	char title[1024], nb[64], bb[64], db[64];
	int rgb[3];
	const char *name = xml_text(s, nd->name, 0);

	if (!name) {
		s->err = 2;
		return;
	}
	W(xmlTextWriterStartElement(s->w, BAD_CAST "g"));
	attr(s, "class", "f");
	attr_exact(s, "sf:x", nd->x);
	attr_exact(s, "sf:w", nd->w);
	{
		char d[16];
		snprintf(d, sizeof(d), "%u", nd->depth);
		attr(s, "sf:d", d);
	}
	/* title: the name on the first line (the script reads it) */
	sf_format_num(nb, sizeof(nb), nd->w);
	double pct = g->total > 0 ? 100 * nd->w / g->total : 0;
	W(xmlTextWriterStartElement(s->w, BAD_CAST "title"));
	W(xmlTextWriterWriteString(s->w, BAD_CAST name));
	if (g->diff) {
		double delta = nd->w - nd->wb;
		sf_format_num(bb, sizeof(bb), nd->wb);
		sf_format_num(db, sizeof(db), fabs(delta));
		double tb = g->nodes[0].wb;
		int n = snprintf(title, sizeof(title),
				 "\nnew: %s %s (%.2f%%)\nbase: %s %s (%.2f%%)"
				 "\nchange: %s%s", nb, unit, pct, bb, unit,
				 tb > 0 ? 100 * nd->wb / tb : 0.0,
				 delta < 0 ? "-" : "+", db);
		if (n > 0 && (size_t)n < sizeof(title)) {
			if (nd->wb > 0)
				snprintf(title + n, sizeof(title) - (size_t)n,
					 " (%s%.2f%%)", delta < 0 ? "-" : "+",
					 100 * fabs(delta) / nd->wb);
			else if (nd->w > 0)
				snprintf(title + n, sizeof(title) - (size_t)n,
					 " (new)");
		}
		double sd = nd->sw - nd->swb;
		size_t l = strlen(title);
		sf_format_num(db, sizeof(db), fabs(sd));
		snprintf(title + l, sizeof(title) - l, "\nself change: %s%s",
			 sd < 0 ? "-" : "+", db);
	} else {
		snprintf(title, sizeof(title), "\n%s %s, %.2f%%", nb,
			 nd->w == 1 && !strcmp(unit, "samples") ? "sample" :
			 unit, pct);
	}
	W(xmlTextWriterWriteString(s->w, BAD_CAST title));
	W(xmlTextWriterEndElement(s->w));

	if (g->diff)
		diff_colour(nd->sw - nd->swb, maxdelta, rgb);
	else
		frame_colour(pal, nd, rgb);
	char fill[32];
	snprintf(fill, sizeof(fill), "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
	W(xmlTextWriterStartElement(s->w, BAD_CAST "rect"));
	attr_num(s, "x", x);
	attr_num(s, "y", y);
	attr_num(s, "width", w);
	attr(s, "height", "15");
	attr(s, "fill", fill);
	attr(s, "rx", "2");
	W(xmlTextWriterEndElement(s->w));

	/* no <text> where no label fits (most frames of a big profile):
	 * fewer elements load faster; the script adds one on zoom */
	long fits = (long)floor((w - 6) / CHAR_W);
	if (fits >= 3) {
		const char *label = (size_t)fits >= utf8_chars(nd->name) ?
				    name : xml_text(s, nd->name, (size_t)fits);
		if (!label) {
			s->err = 2;
			return;
		}
		W(xmlTextWriterStartElement(s->w, BAD_CAST "text"));
		attr_num(s, "x", x + 3);
		attr_num(s, "y", y + 11.5);
		W(xmlTextWriterWriteString(s->w, BAD_CAST label));
		W(xmlTextWriterEndElement(s->w));
	}
	W(xmlTextWriterEndElement(s->w));
	W(xmlTextWriterWriteRaw(s->w, BAD_CAST "\n"));
}

static int parse_palette(const char *v, enum palette *out)
{
	for (int i = 0; palette_names[i]; i++)
		if (!strcmp(v, palette_names[i])) {
			*out = (enum palette)i;
			return 0;
		}
	return -1;
}

static const char *unit_word(const struct sf_profile *p, bool diff)
{
	uint32_t t = p->d.meta.default_type, tb;

	if (diff)
		sf_diff_types(p, &tb, &t);
	if (!p->d.ntypes || t >= p->d.ntypes)
		return "samples";
	const char *u = p->d.types[t].unit;
	if (!u || !strcmp(u, "count"))
		return "samples";
	/* a unit goes into every title: keep it plain ASCII */
	for (const char *c = u; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			return "units";
	return u;
}

static int svg_write(const struct sf_profile *p, struct sf_output *out,
		     struct sf_ctx *ctx)
{
	const char *o_title = sf_ctx_opt(ctx, "title");
	const char *o_width = sf_ctx_opt(ctx, "width");
	const char *o_minw = sf_ctx_opt(ctx, "min-width");
	const char *o_maxf = sf_ctx_opt(ctx, "max-frames");
	size_t max_frames = 15000;
	const char *o_colors = sf_ctx_opt(ctx, "colors");
	bool inverted = sf_ctx_flag(ctx, "inverted");
	double width = 1200, minw = 0.1;
	enum palette pal = PAL_HOT;
	struct graph g;
	struct svgw sw = { 0 }, *s = &sw;
	int rc;

	if (o_width) {
		char *end;
		long v = strtol(o_width, &end, 10);
		if (*end || end == o_width || v < 100 || v > 1000000)
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"--width expects pixels from 100 to "
					"1000000, not '%s'", o_width);
		width = (double)v;
	}
	if (o_minw) {
		char *end;
		minw = strtod(o_minw, &end);
		if (*end || end == o_minw || !(minw >= 0) || minw > 1e6)
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"--min-width expects pixels (0 or "
					"more), not '%s'", o_minw);
	}
	if (o_colors && parse_palette(o_colors, &pal))
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"unknown --colors '%s' (hot, mem, io, red, "
				"green, blue, aqua, yellow, purple, orange, "
				"java, js, perl)", o_colors);
	if (o_maxf) {
		char *end;
		long long v = strtoll(o_maxf, &end, 10);
		if (*end || end == o_maxf || v < 0)
			return sf_error(ctx, SF_EUSAGE, NULL, 0,
					"--max-frames expects a count (0 for "
					"no limit), not '%s'", o_maxf);
		max_frames = (size_t)v;
	}
	if ((rc = build_graph(&g, p, ctx, width, minw, max_frames)))
		goto out;

	double height = YPAD_TOP + (g.maxdepth + 1.0) * FRAME_H + YPAD_BOTTOM;
	double maxdelta = 0;
	if (g.diff)
		/* self changes, as FlameGraph colours them: the colour
		 * shows where time moved, not every caller above it; over
		 * every node, drawn or not, as a removed frame is a change
		 * too */
		for (size_t i = 0; i < g.n; i++)
			if (fabs(g.nodes[i].sw - g.nodes[i].swb) > maxdelta)
				maxdelta = fabs(g.nodes[i].sw - g.nodes[i].swb);
	const char *title = o_title ? o_title :
			    g.diff ? "Differential Flame Graph" :
			    inverted ? "Icicle Graph" : "Flame Graph";
	const char *unit = unit_word(p, g.diff);

	xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(out_write, out_close,
							out, NULL);
	if (!ob || !(s->w = xmlNewTextWriter(ob))) {
		if (ob)
			xmlOutputBufferClose(ob);
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
		goto out;
	}
	W(xmlTextWriterStartDocument(s->w, "1.0", "UTF-8", NULL));
	W(xmlTextWriterStartElement(s->w, BAD_CAST "svg"));
	attr(s, "xmlns", "http://www.w3.org/2000/svg");
	attr(s, "xmlns:sf", SVG_NS);
	attr(s, "version", "1.1");
	attr_num(s, "width", width);
	attr_num(s, "height", height);
	{
		char vb[160], a[64], b[64];
		fmt2(a, sizeof(a), width);
		fmt2(b, sizeof(b), height);
		snprintf(vb, sizeof(vb), "0 0 %s %s", a, b);
		attr(s, "viewBox", vb);
	}
	attr_exact(s, "sf:total", g.total);
	attr(s, "sf:pad", "10");
	attr(s, "sf:mode", g.diff ? "diff" : inverted ? "icicle" : "flame");
	W(xmlTextWriterWriteFormatComment(s->w,
		" written by sftools %s; %zu frames drawn, %zu narrower than "
		"min-width not drawn ", SF_VERSION,
		g.drawn, g.elided));

	W(xmlTextWriterStartElement(s->w, BAD_CAST "style"));
	W(xmlTextWriterWriteString(s->w, BAD_CAST svg_style));
	W(xmlTextWriterEndElement(s->w));
	W(xmlTextWriterStartElement(s->w, BAD_CAST "script"));
	attr(s, "type", "text/ecmascript");
	W(xmlTextWriterWriteCDATA(s->w, BAD_CAST svg_script));
	W(xmlTextWriterEndElement(s->w));

	W(xmlTextWriterStartElement(s->w, BAD_CAST "rect"));
	attr(s, "x", "0");
	attr(s, "y", "0");
	attr(s, "width", "100%");
	attr(s, "height", "100%");
	attr(s, "fill", g.diff ? "rgb(250,250,250)" : "rgb(248,248,238)");
	W(xmlTextWriterEndElement(s->w));

	const char *tt = xml_text(s, title, 0);
	if (!tt) {
		s->err = 2;
	} else {
		W(xmlTextWriterStartElement(s->w, BAD_CAST "text"));
		attr(s, "id", "title");
		attr_num(s, "x", width / 2);
		attr(s, "y", "24");
		attr(s, "text-anchor", "middle");
		W(xmlTextWriterWriteString(s->w, BAD_CAST tt));
		W(xmlTextWriterEndElement(s->w));
	}
	{
		char sub[256] = "";
		size_t n = 0;
		if (g.elided)
			n += (size_t)snprintf(sub + n, sizeof(sub) - n,
				"%zu frame%s narrower than %.3g px not drawn%s",
				g.elided, g.elided == 1 ? "" : "s", g.minpx,
				g.capped ? " (--max-frames)" : "");
		if (g.removed && n < sizeof(sub))
			n += (size_t)snprintf(sub + n, sizeof(sub) - n,
				"%s%zu frame%s only in base not drawn",
				n ? "; " : "", g.removed,
				g.removed == 1 ? "" : "s");
		if (g.diff && n < sizeof(sub))
			snprintf(sub + n, sizeof(sub) - n,
				 "%swidth: new; red: grew, blue: shrank%s",
				 n ? "; " : "",
				 sf_profile_prop(p, "diff.normalized") ?
				 " (base normalised)" : "");
		element_text(s, NULL, "subtitle", width / 2, 42, "middle",
			     sub);
	}
	/* hidden until a zoom */
	element_text(s, "hide", "unzoom", XPAD, 24, NULL, "Reset Zoom");
	element_text(s, NULL, "search", width - XPAD, 24, "end", "Search");
	element_text(s, NULL, "details", XPAD, height - 12, NULL, " ");
	element_text(s, NULL, "matched", width - XPAD, height - 12, "end",
		     " ");

	W(xmlTextWriterStartElement(s->w, BAD_CAST "g"));
	attr(s, "id", "frames");
	W(xmlTextWriterWriteRaw(s->w, BAD_CAST "\n"));
	for (size_t k = 0; k < g.n && !s->err && !sf_output_failed(out); k++) {
		const struct node *nd = &g.nodes[g.order[k]];
		if (nd->drawn)
			write_frame(s, &g, nd, pal, width, height, inverted,
				    maxdelta, unit);
	}
	W(xmlTextWriterEndElement(s->w));
	W(xmlTextWriterEndDocument(s->w));
	W(xmlTextWriterFlush(s->w));
	xmlFreeTextWriter(s->w);
	/* a failed output write is reported by sf_output_commit() */
	if (sf_output_failed(out))
		rc = 0;
	else if (s->err == 2)
		rc = sf_error(ctx, SF_ENOMEM, NULL, 0, "out of memory");
	else if (s->err)
		rc = sf_error(ctx, SF_EIO, NULL, 0,
			      "cannot write the SVG (libxml2 writer failed)");
out:
	free(s->buf);
	free(g.nodes);
	free(g.order);
	return rc;
}

static const char *const svg_ext[] = { ".svg", NULL };

static const struct sf_option svg_wopts[] = {
	{ "title", "TEXT", "svg: the graph's title" },
	{ "width", "PX", "svg: image width in pixels (default 1200)" },
	{ "min-width", "PX",
	  "svg: leave out frames narrower than PX pixels (default 0.1)" },
	{ "max-frames", "N",
	  "svg: draw at most N frames, the widest (default 15000; 0: all)" },
	{ "inverted", NULL, "svg: icicle graph, roots at the top" },
	{ "colors", "PALETTE",
	  "svg: hot (default), mem, io, red, green, blue, aqua, yellow, "
	  "purple, orange, java, js, perl" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_svg = {
	.name = "svg",
	.description = "interactive flame graph (differential for --diff)",
	.extensions = svg_ext,
	.write = svg_write,
	.caps = SF_CAP_WEIGHTS | SF_CAP_DIFF,
	.write_options = svg_wopts,
};
