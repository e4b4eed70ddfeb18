/*
 * fmt_svg.c - interactive flame graph (or icicle graph, or flame chart) as
 * one SVG file, with flamegraph.pl's and inferno's options and meanings.
 *
 * The tree (svg_graph.c): merged stacks, children by name (the default),
 * stacks read leaf first (--reverse), or samples in time order without
 * merging (--flamechart).  Each drawn node is one <g class="f"> with a
 * <title> as flamegraph.pl writes it ("name (1,234 samples, 12.34%)"), a
 * <rect> whose width is proportional to the node's inclusive weight in the
 * default sample type, and a <text> label cut to fit as flamegraph.pl cuts
 * it (as many characters as --fontsize x --fontwidth allow, the last two
 * replaced by ".." when the name is longer).  The root "all" spans the full
 * width; callers are below their callees (flame) or above them
 * (--inverted, icicle).  With --pid-prefix or --thread-prefix each
 * process or thread has a root frame of its own, named as the collapsed
 * writer's prefix (COMM-PID, NAME-TID).
 *
 * Nodes narrower than --minwidth (pixels, or N% of the total; default 0.1
 * px) are not written, and neither are their descendants; the subtitle
 * says how many.  --max-frames (default 15000) raises that width when more
 * frames would be drawn, so a profile with 100,000 distinct stacks stays a
 * few MB and opens in a browser in about a second.
 *
 * A differential profile (prop "diff", types "base" and "new", from
 * sf_diff_build() or a difffolded input) is drawn with widths from NEW and
 * colours from the change of each node's self weight, NEW - BASE, as
 * FlameGraph does: red where it grew, blue where it shrank (--negate swaps
 * them), the stronger the larger the change relative to the largest one.
 * Frames with no weight in NEW (only in BASE) are not drawn; the subtitle
 * counts them.
 *
 * Off-CPU: when samples carry the "state" label (sfcapture), a frame whose
 * weight is mostly off-CPU (state other than "running") is drawn in the io
 * palette and its title gives the off-CPU share (svg_colour.c).
 *
 * The embedded script (ours) gives click-to-zoom, reset, search by regular
 * expression with highlighted matches and the matched percentage, and
 * searches on load for `?s=TERM` in the URL; its API is window.sfFlame =
 * { zoom(g), reset(), search(re), clear(), name(g) } for tests.
 *
 * Written with libxml2's xmlTextWriter through an xmlOutputBuffer whose
 * write callback is sf_output_write, so escaping and well-formedness are
 * libxml2's job.  Names that are not valid UTF-8 or hold characters XML
 * cannot carry are written with U+FFFD in their place.
 */
#include "svg.h"
#include "diff.h"

#include "xmllib.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_NS "urn:sftools:flamegraph"
#define XPAD 10

struct svgw {
	xmlTextWriterPtr w;
	int err;
	char *buf;      /* scratch for sanitised names */
	size_t cap;
	bool replaced;  /* xml_text() wrote a U+FFFD */
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
		/* xmlGetUTF8Char decodes overlong forms (C0 AF is '/'),
		 * which XML parsers refuse: each byte becomes U+FFFD */
		if (c >= 0 && ((len == 2 && c < 0x80) ||
			       (len == 3 && c < 0x800) ||
			       (len == 4 && c < 0x10000)))
			c = -1;
		if (c < 0 || !xmlIsCharQ(c) || c == 0xfffe || c == 0xffff) {
			memcpy(s->buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			s->replaced = true;
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


/* Our own script: zoom, reset, search, search on load.  Attributes in the
 * sftools namespace (prefix "sf") carry each frame's offset, width and
 * depth in weight units, so zooming is exact arithmetic, and on the root
 * the layout the script needs (character width, label offset, count
 * name, name type, search colour). */
static const char svg_script[] =
"(function(){\"use strict\";\n"
"var svg=document.documentElement,frames=null,total,W,PAD,FULL,CW,TY,SUF,NT,diff;\n"
"var zoomed=null,matchFill,searching=false;\n"
"function $(id){return document.getElementById(id);}\n"
"function num(e,a){return parseFloat(e.getAttribute(\"sf:\"+a));}\n"
"function esc(s){return s.replace(/[.*+?^${}()|[\\]\\\\]/g,\"\\\\$&\");}\n"
"function nameOf(t){var l=t.split(\"\\n\")[0];return diff?l:l.replace(SUF,\"\");}\n"
"function ensure(){if(frames)return;\n"
" total=num(svg,\"total\");PAD=num(svg,\"pad\");W=parseFloat(svg.getAttribute(\"width\"));FULL=W-2*PAD;\n"
" CW=num(svg,\"cw\");TY=num(svg,\"ty\");NT=svg.getAttribute(\"sf:nametype\");matchFill=svg.getAttribute(\"sf:search\");\n"
" diff=svg.getAttribute(\"sf:mode\")===\"diff\";\n"
" SUF=new RegExp(\" \\\\([0-9][0-9,.e+-]* \"+esc(svg.getAttribute(\"sf:count\"))+\", [0-9.]+%\\\\)$\");\n"
" frames=[];var gs=$(\"frames\").children;\n"
" for(var i=0;i<gs.length;i++){var g=gs[i],t=g.firstElementChild;\n"
"  g._x=num(g,\"x\");g._w=num(g,\"w\");g._d=num(g,\"d\");\n"
"  g._r=t.nextElementSibling;g._t=g._r.nextElementSibling;\n"
"  g._name=nameOf(t.textContent);g._fill=g._r.getAttribute(\"fill\");frames.push(g);}}\n"
"function fit(name,w){var n=Math.floor(w/CW);if(n<3)return \"\";\n"
" if(name.length<=n)return name;return name.slice(0,n-2)+\"..\";}\n"
"function place(g,x,w){g._r.setAttribute(\"x\",x.toFixed(2));g._r.setAttribute(\"width\",w.toFixed(2));\n"
" var l=fit(g._name,w);if(!g._t){if(!l)return;\n"
"  g._t=document.createElementNS(\"http://www.w3.org/2000/svg\",\"text\");\n"
"  g._t.setAttribute(\"y\",(parseFloat(g._r.getAttribute(\"y\"))+TY).toFixed(2));g.appendChild(g._t);}\n"
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
"function param(k){var q=window.location.search.substr(1).split(\"&\");\n"
" for(var i=0;i<q.length;i++){var kv=q[i].split(\"=\");if(kv[0]===k&&kv.length>1){try{return decodeURIComponent(kv.slice(1).join(\"=\").replace(/\\+/g,\" \"));}catch(e){return null;}}}return null;}\n"
"window.addEventListener(\"load\",function(){\n"
" var fr=$(\"frames\"),det=$(\"details\");\n"
" fr.addEventListener(\"click\",function(e){var g=frameOf(e);if(g)zoom(g);});\n"
" fr.addEventListener(\"mouseover\",function(e){var g=frameOf(e);if(g)det.textContent=NT+\" \"+g.firstElementChild.textContent.replace(/\\n/g,\"  \");});\n"
" fr.addEventListener(\"mouseout\",function(){det.textContent=\" \";});\n"
" $(\"unzoom\").addEventListener(\"click\",reset);\n"
" $(\"search\").addEventListener(\"click\",ask);\n"
" window.addEventListener(\"keydown\",function(e){if((e.ctrlKey||e.metaKey)&&e.key===\"f\"){e.preventDefault();ask();}\n"
"  else if(e.key===\"Escape\"){if(searching)clear();if(zoomed)reset();}});\n"
" ensure();var s=param(\"s\");if(s)search(s);\n"
"});\n"
"window.sfFlame={zoom:zoom,reset:reset,search:search,clear:clear,name:function(g){ensure();return g._name;}};\n"
"})();\n";

/* flamegraph.pl's count text: rounded to an integer, with thousands
 * separators; a fractional count in its exact shortest form. */
static void count_text(char *b, size_t size, double v)
{
	if (v != floor(v) || fabs(v) >= 1e15) {
		sf_format_num(b, size, v);
		return;
	}
	char d[32];
	int n = snprintf(d, sizeof(d), "%.0f", fabs(v));
	size_t o = 0;
	if (v < 0 && o + 1 < size)
		b[o++] = '-';
	for (int i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			b[o++] = ',';
		b[o++] = d[i];
	}
	b[o] = 0;
}

struct layout {
	double width, height, top, bottom, fh, ty, cw;
};

/* The off-CPU weight of each wait kind under a frame, one line each,
 * heaviest first as the colour picks it: "\nlock: 7 samples (29.17%)",
 * the share of the frame's weight. */
static void wait_lines(char *title, size_t size, const struct svg_node *nd,
		       const struct svg_more *m, const char *unit)
{
	enum svg_wait order[SVG_WAIT_N];
	char nb[64];

	sf_svg__wait_order(m, order);
	for (int k = 0; k < SVG_WAIT_N && m->wait[order[k]] > 0; k++) {
		size_t l = strlen(title);
		double w = m->wait[order[k]];
		count_text(nb, sizeof(nb), w);
		snprintf(title + l, size - l, "\n%s: %s %s (%.2f%%)",
			 sf_svg__wait_names[order[k]], nb, unit,
			 100 * w / nd->w);
	}
}

static void write_title(struct svgw *s, const struct svg_graph *g,
			const struct svg_node *nd, const char *name,
			const struct svg_opts *o, const char *unit)
{
	char title[1024], nb[64], bb[64], db[64];
	double pct = g->total > 0 ? 100 * nd->w / g->total : 0;
	const struct svg_more *m = sf_svg__more(g, nd);

	W(xmlTextWriterStartElement(s->w, BAD_CAST "title"));
	W(xmlTextWriterWriteString(s->w, BAD_CAST name));
	if (g->diff) {
		double delta = nd->w - m->wb;
		sf_format_num(nb, sizeof(nb), nd->w);
		sf_format_num(bb, sizeof(bb), m->wb);
		sf_format_num(db, sizeof(db), fabs(delta));
		double tb = sf_svg__more(g, g->nodes)->wb;
		int n = snprintf(title, sizeof(title),
				 "\nnew: %s %s (%.2f%%)\nbase: %s %s (%.2f%%)"
				 "\nchange: %s%s", nb, unit, pct, bb, unit,
				 tb > 0 ? 100 * m->wb / tb : 0.0,
				 delta < 0 ? "-" : "+", db);
		if (n > 0 && (size_t)n < sizeof(title)) {
			if (m->wb > 0)
				snprintf(title + n, sizeof(title) - (size_t)n,
					 " (%s%.2f%%)", delta < 0 ? "-" : "+",
					 100 * fabs(delta) / m->wb);
			else if (nd->w > 0)
				snprintf(title + n, sizeof(title) - (size_t)n,
					 " (new)");
		}
		double sd = nd->sw - m->swb;
		size_t l = strlen(title);
		sf_format_num(db, sizeof(db), fabs(sd));
		snprintf(title + l, sizeof(title) - l, "\nself change: %s%s",
			 sd < 0 ? "-" : "+", db);
	} else if (o->factor != 1) {
		/* flamegraph.pl: sprintf("%.0f", count * factor), and the
		 * percentage of that rounded count */
		double c = nearbyint(nd->w * o->factor);
		count_text(nb, sizeof(nb), c == 0 ? 0 : c);
		if (nd == g->nodes)
			snprintf(title, sizeof(title), " (%s %s, 100%%)", nb,
				 unit);
		else
			snprintf(title, sizeof(title), " (%s %s, %.2f%%)", nb,
				 unit, g->total > 0 ?
				 100 * c / (g->total * o->factor) : 0.0);
	} else {
		count_text(nb, sizeof(nb), nd->w * o->factor);
		if (nd == g->nodes)
			snprintf(title, sizeof(title), " (%s %s, 100%%)", nb,
				 unit);
		else
			snprintf(title, sizeof(title), " (%s %s, %.2f%%)", nb,
				 unit, pct);
		if (g->offcpu && nd->w > 0) {
			size_t l = strlen(title);
			snprintf(title + l, sizeof(title) - l,
				 "\noff-CPU: %.2f%%", 100 * m->off / nd->w);
		}
		if (g->waits && nd->w > 0)
			wait_lines(title, sizeof(title), nd, m, unit);
	}
	W(xmlTextWriterWriteString(s->w, BAD_CAST title));
	W(xmlTextWriterEndElement(s->w));
}

static void write_frame(struct svgw *s, const struct svg_graph *g,
			const struct svg_node *nd, const struct svg_opts *o,
			const struct layout *ly, const char *fill,
			const char *unit)
{
	/* computed as flamegraph.pl does, so a label at the edge of fitting
	 * is cut the same way */
	double full = ly->width - 2 * XPAD;
	double per = g->total > 0 ? full / g->total : 0;
	double x = XPAD + nd->x * per;
	double w = g->total > 0 ? XPAD + (nd->x + nd->w) * per - x : full;
	double y = o->inverted ? ly->top + nd->depth * ly->fh :
		   ly->height - ly->bottom - (nd->depth + 1.0) * ly->fh;
	const char *name = xml_text(s, sf_svg__name(nd), 0);

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
	/* the name first (the script takes it from the title) */
	write_title(s, g, nd, name, o, unit);

	W(xmlTextWriterStartElement(s->w, BAD_CAST "rect"));
	attr_num(s, "x", x);
	attr_num(s, "y", y);
	attr_num(s, "width", w);
	attr_num(s, "height", ly->fh - 1);
	attr(s, "fill", fill);
	attr(s, "rx", "2");
	W(xmlTextWriterEndElement(s->w));

	/* no <text> where no label fits (most frames of a big profile):
	 * fewer elements load faster; the script adds one on zoom */
	long fits = (long)floor(w / ly->cw);
	if (fits >= 3) {
		const char *label =
			(size_t)fits >= utf8_chars(sf_svg__name(nd)) ? name :
			xml_text(s, sf_svg__name(nd), (size_t)fits);
		if (!label) {
			s->err = 2;
			return;
		}
		W(xmlTextWriterStartElement(s->w, BAD_CAST "text"));
		attr_num(s, "x", x + 3);
		attr_num(s, "y", y + ly->ty);
		W(xmlTextWriterWriteString(s->w, BAD_CAST label));
		W(xmlTextWriterEndElement(s->w));
	}
	W(xmlTextWriterEndElement(s->w));
	W(xmlTextWriterWriteRaw(s->w, BAD_CAST "\n"));
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

/* ----- options ----- */

static int bad(struct sf_ctx *ctx, const char *opt, const char *what,
	       const char *v)
{
	return sf_error(ctx, SF_EUSAGE, NULL, 0, "--%s expects %s, not '%s'",
			opt, what, v);
}

/* A number in [lo, hi] from option `name`, if given. */
static int num_opt(struct sf_ctx *ctx, const char *name, double lo,
		   double hi, const char *what, double *out)
{
	const char *v = sf_ctx_opt(ctx, name);
	char *end;

	if (!v)
		return 0;
	double d = strtod(v, &end);
	if (*end || end == v || !(d >= lo && d <= hi))
		return bad(ctx, name, what, v);
	*out = d;
	return 0;
}

/* Text going into a CSS rule or an attribute the script reads: no
 * character that could end the rule. */
static bool plain(const char *v, const char *extra)
{
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || strchr(extra, *v)))
			return false;
	return true;
}

static int parse_opts(struct svg_opts *o, struct sf_ctx *ctx,
		      const struct sf_profile *p)
{
	const char *v;
	int rc;

	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frame_h = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->minwidth = 0.1;
	o->max_frames = 15000;
	o->factor = 1;
	o->fonttype = "Verdana";
	o->nametype = "Function:";
	o->search_color = "rgb(230,0,230)";
	o->palette_file = "palette.map";
	o->title = sf_ctx_opt(ctx, "title");
	o->subtitle = sf_ctx_opt(ctx, "subtitle");
	o->notes = sf_ctx_opt(ctx, "notes");
	o->countname = sf_ctx_opt(ctx, "countname");
	o->inverted = sf_ctx_flag(ctx, "inverted");
	o->reverse = sf_ctx_flag(ctx, "reverse");
	o->by_module = sf_ctx_flag(ctx, "by-module");
	/* the collapsed writer's prefixes; --pid-prefix wins, as there */
	o->group = sf_ctx_flag(ctx, "pid-prefix") ? GROUP_PROCESS :
		   sf_ctx_flag(ctx, "thread-prefix") ? GROUP_THREAD :
		   GROUP_NONE;
	o->negate = sf_ctx_flag(ctx, "negate");
	o->flamechart = sf_ctx_flag(ctx, "flamechart");
	o->cp = sf_ctx_flag(ctx, "cp");
	o->key = sf_ctx_flag(ctx, "hash") ? KEY_HASH :
		 sf_ctx_flag(ctx, "random") ? KEY_RANDOM : KEY_NAME;
	if ((rc = num_opt(ctx, "width", 100, 1000000,
			  "pixels from 100 to 1000000", &o->width)) ||
	    (rc = num_opt(ctx, "height", 2, 1000,
			  "a frame height in pixels (2 to 1000)",
			  &o->frame_h)) ||
	    (rc = num_opt(ctx, "fontsize", 1, 1000,
			  "a font size in pixels (1 to 1000)", &o->fontsize)) ||
	    (rc = num_opt(ctx, "fontwidth", 0.01, 10,
			  "a character width relative to the font size "
			  "(0.01 to 10)", &o->fontwidth)) ||
	    (rc = num_opt(ctx, "factor", 1e-300, 1e300,
			  "a positive factor", &o->factor)) ||
	    (rc = num_opt(ctx, "total", 1e-300, 1e300,
			  "a positive total", &o->total)))
		return rc;
	if ((v = sf_ctx_opt(ctx, "minwidth"))) {
		char *end;
		o->minwidth = strtod(v, &end);
		o->minwidth_pct = *end == '%';
		if (end == v || end[o->minwidth_pct] ||
		    !(o->minwidth >= 0) ||
		    o->minwidth > (o->minwidth_pct ? 100 : 1e6))
			return bad(ctx, "minwidth", "pixels (0 or more) or a "
				   "percentage of the total (0% to 100%)", v);
	}
	if ((v = sf_ctx_opt(ctx, "max-frames"))) {
		char *end;
		long long n = strtoll(v, &end, 10);
		if (*end || end == v || n < 0)
			return bad(ctx, "max-frames",
				   "a count (0 for no limit)", v);
		o->max_frames = (size_t)n;
	}
	if ((v = sf_ctx_opt(ctx, "colors")) &&
	    sf_svg__palette_parse(v, &o->palette))
		return sf_error(ctx, SF_EUSAGE, NULL, 0,
				"unknown --colors '%s' (%s)", v,
				sf_svg__palette_list);
	if (sf_svg__bgcolors(o, sf_ctx_opt(ctx, "bgcolors"),
			     sf_diff_types(p, &(uint32_t){ 0 },
					   &(uint32_t){ 0 })))
		return bad(ctx, "bgcolors", "yellow, blue, green, grey or "
			   "#rrggbb", sf_ctx_opt(ctx, "bgcolors"));
	if ((v = sf_ctx_opt(ctx, "fonttype"))) {
		if (!*v || !plain(v, " ,-_'"))
			return bad(ctx, "fonttype", "a font family name", v);
		o->fonttype = v;
	}
	if ((v = sf_ctx_opt(ctx, "search-color"))) {
		if (!*v || !plain(v, "#(),. %"))
			return bad(ctx, "search-color",
				   "a colour (#e600e6, rgb(230,0,230), a name)",
				   v);
		o->search_color = v;
	}
	if ((v = sf_ctx_opt(ctx, "nametype")))
		o->nametype = v;
	if ((v = sf_ctx_opt(ctx, "palette-file"))) {
		if (!*v)
			return bad(ctx, "palette-file", "a file name", v);
		o->palette_file = v;
	}
	/* an XML comment cannot hold "--" or end in "-" */
	if (o->notes && (strstr(o->notes, "--") ||
			 (*o->notes && o->notes[strlen(o->notes) - 1] == '-')))
		return bad(ctx, "notes", "text without '--' or a final '-' "
			   "(it is written as an XML comment)", o->notes);
	return 0;
}

static void write_style(struct svgw *s, const struct svg_opts *o)
{
	char css[512], f1[32], f2[32];

	fmt2(f1, sizeof(f1), o->fontsize);
	fmt2(f2, sizeof(f2), o->fontsize + 5);
	snprintf(css, sizeof(css),
		 "text{font-family:%s,sans-serif;font-size:%spx;fill:#000}"
		 "#title{font-size:%spx}"
		 "#subtitle{fill:#555}"
		 ".f{cursor:pointer}"
		 ".f:hover rect{stroke:#000;stroke-width:0.5}"
		 ".f text{pointer-events:none}"
		 ".anc{opacity:0.5}"
		 ".hide{display:none}"
		 "#unzoom,#search{cursor:pointer}"
		 "#unzoom:hover,#search:hover{fill:#00c}",
		 o->fonttype, f1, f2);
	W(xmlTextWriterStartElement(s->w, BAD_CAST "style"));
	W(xmlTextWriterWriteString(s->w, BAD_CAST css));
	W(xmlTextWriterEndElement(s->w));
}

static void write_background(struct svgw *s, const struct svg_opts *o)
{
	bool flat = !strcmp(o->bg1, o->bg2);

	if (!flat) {
		/* flamegraph.pl's vertical gradient */
		W(xmlTextWriterStartElement(s->w, BAD_CAST "defs"));
		W(xmlTextWriterStartElement(s->w, BAD_CAST "linearGradient"));
		attr(s, "id", "background");
		attr(s, "y1", "0");
		attr(s, "y2", "1");
		attr(s, "x1", "0");
		attr(s, "x2", "0");
		W(xmlTextWriterStartElement(s->w, BAD_CAST "stop"));
		attr(s, "stop-color", o->bg1);
		attr(s, "offset", "5%");
		W(xmlTextWriterEndElement(s->w));
		W(xmlTextWriterStartElement(s->w, BAD_CAST "stop"));
		attr(s, "stop-color", o->bg2);
		attr(s, "offset", "95%");
		W(xmlTextWriterEndElement(s->w));
		W(xmlTextWriterEndElement(s->w));
		W(xmlTextWriterEndElement(s->w));
	}
	W(xmlTextWriterStartElement(s->w, BAD_CAST "rect"));
	attr(s, "x", "0");
	attr(s, "y", "0");
	attr(s, "width", "100%");
	attr(s, "height", "100%");
	attr(s, "fill", flat ? o->bg1 : "url(#background)");
	W(xmlTextWriterEndElement(s->w));
}

static void write_subtitle(struct svgw *s, const struct svg_graph *g,
			   const struct sf_profile *p,
			   const struct svg_opts *o, const struct layout *ly)
{
	char sub[256] = "";
	size_t n = 0;
	const char *text = sub;

	if (o->subtitle) {
		/* the user's; what was left out stays in the comment */
		if (!(text = xml_text(s, o->subtitle, 0))) {
			s->err = 2;
			return;
		}
	} else {
		if (g->elided)
			n += (size_t)snprintf(sub + n, sizeof(sub) - n,
				"%zu frame%s narrower than %.3g px not drawn%s",
				g->elided, g->elided == 1 ? "" : "s", g->minpx,
				g->capped ? " (--max-frames)" : "");
		if (g->removed && n < sizeof(sub))
			n += (size_t)snprintf(sub + n, sizeof(sub) - n,
				"%s%zu frame%s only in base not drawn",
				n ? "; " : "", g->removed,
				g->removed == 1 ? "" : "s");
		if (g->diff && n < sizeof(sub))
			n += (size_t)snprintf(sub + n, sizeof(sub) - n,
				"%swidth: new; %s%s", n ? "; " : "",
				o->negate ? "blue: grew, red: shrank" :
				"red: grew, blue: shrank",
				sf_profile_prop(p, "diff.normalized") ?
				" (base normalised)" : "");
		if (g->offcpu && n < sizeof(sub))
			snprintf(sub + n, sizeof(sub) - n, "%s%s",
				 n ? "; " : "", g->waits ?
				 "mostly off-CPU, by wait: purple lock, "
				 "blue I/O, aqua sleep, green other syscall, "
				 "grey no syscall" : "blue: mostly off-CPU");
	}
	element_text(s, NULL, "subtitle", ly->width / 2, 3.5 * o->fontsize,
		     "middle", text);
}

static int svg_write(const struct sf_profile *p, struct sf_output *out,
		     struct sf_ctx *ctx)
{
	struct svg_opts o;
	struct svg_graph g = { 0 };
	struct svgw sw = { 0 }, *s = &sw;
	struct svg_colours *col = NULL;
	struct layout ly;
	int rc;

	if ((rc = parse_opts(&o, ctx, p)) || (rc = sf_xml__load(ctx)))
		return rc;
	if ((rc = sf_svg__graph_build(&g, p, ctx, &o)) ||
	    (!g.diff && (rc = sf_svg__colours_new(&col, ctx, &o))))
		goto out;

	ly.width = o.width;
	ly.fh = o.frame_h;
	ly.top = 4 * o.fontsize + 4;
	ly.bottom = 2 * o.fontsize + 10;
	ly.height = ly.top + (g.maxdepth + 1.0) * ly.fh + ly.bottom;
	ly.ty = (ly.fh - 1) / 2 + o.fontsize / 3;
	ly.cw = o.fontsize * o.fontwidth;
	double maxdelta = 0;
	if (g.diff)
		/* self changes, as FlameGraph colours them: the colour
		 * shows where time moved, not every caller above it; over
		 * every node, drawn or not, as a removed frame is a change
		 * too */
		for (size_t i = 0; i < g.n; i++)
			if (fabs(g.nodes[i].sw - g.more[i].swb) > maxdelta)
				maxdelta = fabs(g.nodes[i].sw - g.more[i].swb);
	const char *title = o.title ? o.title :
			    g.diff ? "Differential Flame Graph" :
			    o.flamechart ? "Flame Chart" :
			    o.inverted ? "Icicle Graph" : "Flame Graph";
	const char *unit = o.countname ? o.countname : unit_word(p, g.diff);

	xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(out_write, out_close,
							out, NULL);
	if (!ob || !(s->w = xmlNewTextWriter(ob))) {
		if (ob)
			xmlOutputBufferClose(ob);
		rc = sf_error_nomem(ctx);
		goto out;
	}
	W(xmlTextWriterStartDocument(s->w, "1.0", "UTF-8", NULL));
	W(xmlTextWriterStartElement(s->w, BAD_CAST "svg"));
	attr(s, "xmlns", "http://www.w3.org/2000/svg");
	attr(s, "xmlns:sf", SVG_NS);
	attr(s, "version", "1.1");
	attr_num(s, "width", ly.width);
	attr_num(s, "height", ly.height);
	{
		char vb[160], a[64], b[64];
		fmt2(a, sizeof(a), ly.width);
		fmt2(b, sizeof(b), ly.height);
		snprintf(vb, sizeof(vb), "0 0 %s %s", a, b);
		attr(s, "viewBox", vb);
	}
	attr_exact(s, "sf:total", g.total);
	attr(s, "sf:pad", "10");
	attr(s, "sf:mode", g.diff ? "diff" : o.flamechart ? "chart" :
			   o.inverted ? "icicle" : "flame");
	attr_exact(s, "sf:cw", ly.cw);
	attr_exact(s, "sf:ty", ly.ty);
	{
		const char *cn = xml_text(s, unit, 0);
		if (cn)
			attr(s, "sf:count", cn);
		const char *nt = xml_text(s, o.nametype, 0);
		if (nt)
			attr(s, "sf:nametype", nt);
		if (!cn || !nt)
			s->err = 2;
	}
	attr(s, "sf:search", o.search_color);
	W(xmlTextWriterWriteFormatComment(s->w,
		" written by sftools %s; %zu frames drawn, %zu narrower than "
		"min-width not drawn ", SF_VERSION,
		g.drawn, g.elided));
	if (o.notes) {
		const char *nt = xml_text(s, o.notes, 0);
		if (nt)
			W(xmlTextWriterWriteFormatComment(s->w, " NOTES: %s ",
							  nt));
		else
			s->err = 2;
	}

	write_style(s, &o);
	W(xmlTextWriterStartElement(s->w, BAD_CAST "script"));
	attr(s, "type", "text/ecmascript");
	W(xmlTextWriterWriteCDATA(s->w, BAD_CAST svg_script));
	W(xmlTextWriterEndElement(s->w));
	write_background(s, &o);

	const char *tt = xml_text(s, title, 0);
	if (!tt) {
		s->err = 2;
	} else {
		W(xmlTextWriterStartElement(s->w, BAD_CAST "text"));
		attr(s, "id", "title");
		attr_num(s, "x", ly.width / 2);
		attr_num(s, "y", 2 * o.fontsize);
		attr(s, "text-anchor", "middle");
		W(xmlTextWriterWriteString(s->w, BAD_CAST tt));
		W(xmlTextWriterEndElement(s->w));
	}
	write_subtitle(s, &g, p, &o, &ly);
	/* hidden until a zoom */
	element_text(s, "hide", "unzoom", XPAD, 2 * o.fontsize, NULL,
		     "Reset Zoom");
	element_text(s, NULL, "search", ly.width - XPAD, 2 * o.fontsize, "end",
		     "Search");
	element_text(s, NULL, "details", XPAD, ly.height - o.fontsize, NULL,
		     " ");
	element_text(s, NULL, "matched", ly.width - XPAD,
		     ly.height - o.fontsize, "end", " ");

	W(xmlTextWriterStartElement(s->w, BAD_CAST "g"));
	attr(s, "id", "frames");
	W(xmlTextWriterWriteRaw(s->w, BAD_CAST "\n"));
	for (size_t k = 0; k < g.n && !s->err && !rc &&
			   !sf_output_failed(out); k++) {
		const struct svg_node *nd = &g.nodes[g.order[k]];
		char fill[32];
		if (!nd->drawn)
			continue;
		if (g.diff)
			sf_svg__colour_diff(nd->sw - g.more[g.order[k]].swb,
					    maxdelta, o.negate, fill,
					    sizeof(fill));
		else if ((rc = sf_svg__colour_frame(col, ctx, nd,
						    sf_svg__more(&g, nd),
						    g.offcpu, g.waits, fill,
						    sizeof(fill))))
			break;
		write_frame(s, &g, nd, &o, &ly, fill, unit);
	}
	W(xmlTextWriterEndElement(s->w));
	W(xmlTextWriterEndDocument(s->w));
	W(xmlTextWriterFlush(s->w));
	xmlFreeTextWriter(s->w);
	if (s->replaced)
		sf_warn(ctx, "svg.utf8", "names with invalid UTF-8 or "
			"characters XML cannot hold were written with U+FFFD "
			"in their place");
	/* a failed output write is reported by sf_output_commit() */
	if (rc || sf_output_failed(out))
		;
	else if (s->err == 2)
		rc = sf_error_nomem(ctx);
	else if (s->err)
		rc = sf_error(ctx, SF_EIO, NULL, 0,
			      "cannot write the SVG (libxml2 writer failed)");
out:
	if (col) {
		int r2 = sf_svg__colours_finish(col, ctx, !rc &&
						!sf_output_failed(out));
		if (!rc)
			rc = r2;
	}
	free(s->buf);
	sf_svg__graph_free(&g);
	return rc;
}

static const char *const svg_ext[] = { ".svg", NULL };

/* flamegraph.pl's and inferno's spellings; an entry without help is
 * another spelling of the one before it */
static const struct sf_option svg_wopts[] = {
	{ "title", "TEXT", "svg: the graph's title" },
	{ "subtitle", "TEXT", "svg: a second line under the title (instead "
	  "of the note on frames not drawn)" },
	{ "notes", "TEXT", "svg: text kept in the file, in a comment" },
	{ "width", "PX", "svg: image width in pixels (default 1200)" },
	{ "height", "PX", "svg: height of each frame (default 16)" },
	{ "minwidth", "PX|N%", "svg: leave out frames narrower than PX "
	  "pixels, or N% of the total (default 0.1 px)" },
	{ "min-width", "PX|N%", NULL },
	{ "max-frames", "N",
	  "svg: draw at most N frames, the widest (default 15000; 0: all)" },
	{ "fonttype", "FONT", "svg: font family (default Verdana)" },
	{ "fontsize", "PX", "svg: font size (default 12)" },
	{ "fontwidth", "F", "svg: average character width relative to the "
	  "font size, for fitting labels (default 0.59)" },
	{ "countname", "WORD", "svg: what the counts are (default: samples, "
	  "or the sample type's unit)" },
	{ "nametype", "WORD", "svg: what the names are, in the details line "
	  "(default Function:)" },
	{ "colors", "PALETTE", "svg: hot (default), mem, io, wakeup, chain, "
	  "java, js, perl, red, green, blue, aqua, yellow, purple, orange" },
	{ "bgcolors", "COLOR", "svg: background: yellow, blue, green, grey "
	  "(gradients) or #rrggbb" },
	{ "hash", NULL, "svg: colours keyed by flamegraph.pl's name hash "
	  "(the same colours as flamegraph.pl --hash)" },
	{ "random", NULL, "svg: colours not keyed by name (from a fixed seed: "
	  "the same input gives the same file)" },
	{ "deterministic", NULL, "svg: a function keeps its colour across "
	  "graphs (the default: colours are keyed by a hash of the name)" },
	{ "cp", NULL, "svg: consistent palette: colours read from and added "
	  "to --palette-file" },
	{ "palette-file", "FILE", "svg: the file of --cp (default "
	  "palette.map)" },
	{ "reverse", NULL, "svg: stacks read leaf first (merged at the leaves)" },
	{ "pid-prefix", NULL, "svg: a root frame per process (COMM-PID), as "
	  "flamegraph.pl draws stackcollapse-perf.pl --pid" },
	{ "thread-prefix", NULL, "svg: a root frame per thread (NAME-TID), "
	  "as the collapsed writer's --thread-prefix" },
	{ "by-module", NULL, "svg: frames of one name from different modules "
	  "(or kinds) are separate boxes (default: one box, as flamegraph.pl)" },
	{ "inverted", NULL, "svg: icicle graph, roots at the top" },
	{ "negate", NULL, "svg: differential: blue for growth, red for "
	  "shrinking" },
	{ "factor", "F", "svg: multiply the counts shown by F" },
	{ "total", "N", "svg: the total the widths are relative to (if "
	  "larger than the samples')" },
	{ "flamechart", NULL, "svg: flame chart: samples in time order, only "
	  "consecutive equal frames merged" },
	{ "search-color", "COLOR", "svg: fill of search matches (default "
	  "rgb(230,0,230))" },
	{ "truncate-text-right", NULL, "svg: cut long labels on the right, "
	  "keeping their start (the default, as flamegraph.pl)" },
	{ NULL, NULL, NULL }
};

const struct sf_format sf_format_svg = {
	.name = "svg",
	.description = "interactive flame graph (differential for --diff)",
	.extensions = svg_ext,
	.write = svg_write,
	.caps = SF_CAP_WEIGHTS | SF_CAP_DIFF,
	.takes_kept = true,
	.write_options = svg_wopts,
	.order_option = "flamechart",
};
