/* Flame graphs: one self-contained SVG (or an HTML page holding it) drawn
 * from a tree row set, with a small script for hover details, click to
 * zoom and search.  The layout is computed here, so the picture is right
 * without the script too (a viewer that runs none, a PNG made from it);
 * the script only re-lays it out when zooming.  docs/exports.md. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "analyzer/ana/json.h"

#define FG_WIDTH 1200		/* px; the script scales to the window */
#define FG_PAD 10
#define FG_FRAME 16		/* frame height */
#define FG_FONT 12
#define FG_CHAR 0.59		/* average glyph width / font size (Verdana-ish) */
#define FG_TOP 72		/* title, buttons, legend */
#define FG_BOTTOM 34		/* details line */
#define FG_MIN_PX 0.1		/* frames narrower than this are not drawn */

/* Text for XML: markup characters escaped; control bytes and bytes that
 * are not UTF-8 become '?', so the file always parses. */
static void xml_put(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = 0;
	while (*p && n < max) {
		unsigned c = *p;
		size_t len = utf8_len(p);

		if (!len || (len == 1 && (c < 0x20 || c == 0x7f))) {
			putc('?', f);
			p++;
		} else if (len == 1) {
			switch (c) {
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '&': fputs("&amp;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&#39;", f); break;
			default: putc((int)c, f);
			}
			p++;
		} else {
			fwrite(p, 1, len, f);
			p += len;
		}
		n++;
	}
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static const char *base_of(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path ? path : "";
}

/* Colour by module: a hue per module, a lightness per function, so that
 * frames of one library read as one family.  The heaviest modules get
 * hues far apart (warm first, as flame graphs are read); the rest one from
 * their name.  Hues near the search highlight (magenta) are never used. */
static const unsigned palette[] = { 22, 205, 100, 48, 170, 0, 235, 75, 140, 188 };
#define N_PALETTE (sizeof(palette) / sizeof(*palette))

static void module_color(char *buf, size_t len, const char *const *mods, size_t n_mods,
			 const char *module, const char *name)
{
	const char *b = base_of(module);
	uint32_t h = str_hash(b) % 300;
	if (h >= 270)
		h += 60;	/* skip 270..330 */
	for (size_t k = 0; k < n_mods && k < N_PALETTE; k++)
		if (!strcmp(base_of(mods[k]), b))
			h = palette[k];
	unsigned light = 56 + str_hash(name) % 16;
	snprintf(buf, len, "hsl(%u,%u%%,%u%%)", h % 360, h >= 150 && h <= 250 ? 55 : 75, light);
}

/* Differential colour: red where RUN has the larger share, blue where the
 * smaller, deeper with |log ratio| up to 4x; only significant changes get
 * strong colours (full at 2x or 1/2x, or 10 points), the others a faint
 * tint.  A context of RUN that BASE has not at all is violet: no ratio. */
static void diff_color(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio mode)
{
	double t;
	bool up;
	if (c->presence == ANA_ONLY_RUN) {
		/* not a ratio: a context the base has not at all, its own hue */
		snprintf(buf, len, "rgb(178,132,232)");
		return;
	} else if (isnan(c->ratio)) {
		snprintf(buf, len, "rgb(224,224,224)");
		return;
	} else if (mode == ANA_RATIO_DELTA) {
		t = fabs(c->ratio) / 10;	/* 10 points: full colour */
		up = c->ratio > 0;
	} else {
		t = c->ratio > 0 ? fabs(log(c->ratio)) / log(2) : 1;
		up = c->ratio > 1;
	}
	if (t > 1)
		t = 1;
	if (!c->significant)
		t *= 0.15;
	int hi = 245, lo = (int)lround(245 - 200 * t), mid = (int)lround(245 - 120 * t);
	if (up)
		snprintf(buf, len, "rgb(%d,%d,%d)", hi, lo, lo < mid ? lo : mid);
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", lo, mid, hi);
}

struct fg {
	FILE *f;
	const struct ana_rows *r;
	const struct ana_set *s;
	const struct ana_flame_opts *o;
	bool diff;
	unsigned base, run;
	enum ana_kind kind;
	double total;		/* width of the root */
	double scale;		/* px per value unit */
	unsigned max_depth;
	unsigned top;		/* px above the frames: FG_TOP, more with a warning */
	char warn[256];		/* the runs were unwound differently, or "" */
	size_t only_run, only_base;	/* contexts on one side only (outermost of each) */
	struct ana_rows *funcs;	/* compare mode: the functions as the text diff matches
				 * them, for each frame's function-level ratio */
	double only_run_pct, only_base_pct;	/* their inclusive share of their run */
	unsigned long n_frames;
	unsigned r0, r1;	/* runs drawn: compare mode one, else all */
	bool run_roots;		/* several: a root frame each */
	unsigned height;	/* px */
	const char *mods[N_PALETTE];	/* the heaviest modules, heaviest first */
	size_t n_mods;
};

static double fg_x(const struct fg *g, double off)
{
	return FG_PAD + off * g->scale;
}

static unsigned fg_y(const struct fg *g, unsigned depth)
{
	if (g->o->icicle)
		return g->top + depth * FG_FRAME;
	return g->top + (g->max_depth - depth) * FG_FRAME;
}

/* The label that fits w px (the script does the same after a zoom). */
static void fg_label(FILE *f, const char *name, double w)
{
	int fit = (int)((w - 6) / (FG_FONT * FG_CHAR));
	if (fit < 3)
		return;
	size_t n = strlen(name);
	if (n <= (size_t)fit) {
		xml_put(f, name, n);
		return;
	}
	xml_put(f, name, (size_t)fit - 2);	/* counts characters, near enough */
	fputs("..", f);
}

struct frame_desc {
	const char *name, *module, *file, *inlined_into;
	unsigned line;
	bool inlined, synthetic;
	double value;		/* drawn width, in value units */
	double pct;		/* of its run */
	uint64_t samples;
	const struct ana_cmp *cmp;
	double base_pct;
	uint64_t base_samples;
};

/* The frame's function in the text diff's rows (module and function, and
 * for inlined code the function it was inlined into): its comparison. */
static bool func_cmp(const struct fg *g, const struct frame_desc *d, struct ana_cmp *out)
{
	for (size_t i = 0; g->funcs && i < ana_rows_n(g->funcs); i++) {
		const struct ana_row *r = ana_rows_row(g->funcs, i);
		if ((r->name == d->name || !strcmp(r->name, d->name)) &&
		    !strcmp(base_of(r->module), base_of(d->module)) &&
		    (!d->inlined || !r->inlined_into || !d->inlined_into ||
		     !strcmp(r->inlined_into, d->inlined_into)))
			return !ana_rows_compare(g->funcs, i, g->run, out);
	}
	return false;
}

/* "0.9 [0.79, 1.03]" or "new"/"gone" (static buffer: one use at a time). */
static const char *fmt_ratio(const struct ana_cmp *c, enum ana_ratio m)
{
	static char buf[96];
	if (c->presence == ANA_ONLY_RUN || c->presence == ANA_ONLY_BASE)
		snprintf(buf, sizeof(buf), "%s", c->presence == ANA_ONLY_RUN ? "new" : "gone");
	else
		snprintf(buf, sizeof(buf), "%s%.3g [%.3g, %.3g]%s", m == ANA_RATIO_DELTA ? "delta " : "",
			 c->ratio, c->lo, c->hi, c->significant ? " significant" : "");
	return buf;
}

static void fg_frame(struct fg *g, unsigned long id, double off, unsigned depth,
		     const struct frame_desc *d)
{
	FILE *f = g->f;
	double x = fg_x(g, off), w = d->value * g->scale;
	char color[48];
	if (d->synthetic)
		snprintf(color, sizeof(color), "rgb(200,200,200)");
	else if (g->diff && d->cmp)
		diff_color(color, sizeof(color), d->cmp, ana_rows_query(g->r)->ratio);
	else
		module_color(color, sizeof(color), g->mods, g->n_mods, d->module, d->name);
	fprintf(f, "<g class=\"f%s\" id=\"f%lu\" data-x=\"%.10g\" data-v=\"%.10g\" data-d=\"%u\" "
		"data-s=\"%llu\" data-p=\"%.4f\"", d->inlined ? " inl" : "", id, off, d->value, depth,
		(unsigned long long)d->samples, isnan(d->pct) ? 0 : d->pct);
	fputs(" data-n=\"", f);
	xml_put(f, d->name, 4096);
	fputs("\" data-m=\"", f);
	xml_put(f, base_of(d->module), 4096);
	putc('"', f);
	if (d->file) {
		fputs(" data-src=\"", f);
		xml_put(f, base_of(d->file), 4096);
		if (d->line)
			fprintf(f, ":%u", d->line);
		putc('"', f);
	}
	const struct ana_cmp *c = d->cmp;
	if (g->diff && c) {
		enum ana_ratio m = ana_rows_query(g->r)->ratio;
		fprintf(f, " data-bp=\"%.4f\" data-bs=\"%llu\" data-sig=\"%d\" data-pr=\"%s\"",
			isnan(d->base_pct) ? 0 : d->base_pct, (unsigned long long)d->base_samples,
			c->significant, c->presence == ANA_ONLY_RUN ? "new"
					: c->presence == ANA_ONLY_BASE ? "gone" : "both");
		if (!isnan(c->ratio) && !isinf(c->ratio))
			fprintf(f, " data-r=\"%.4g\"", c->ratio);
		if (!isnan(c->lo))
			fprintf(f, " data-lo=\"%.4g\" data-hi=\"%.4g\"", c->lo, c->hi);
		fprintf(f, " data-mode=\"%s\"", m == ANA_RATIO_DELTA ? "delta" : m == ANA_RATIO_RAW ? "raw"
								: "share");
	}
	struct ana_cmp fc;
	bool have_fc = g->diff && !d->synthetic && func_cmp(g, d, &fc);
	if (have_fc && !isnan(fc.ratio))
		fprintf(f, " data-fr=\"%s\"", fmt_ratio(&fc, ana_rows_query(g->r)->ratio));
	fputs(">\n<title>", f);
	xml_put(f, d->name, 4096);
	if (d->inlined)
		fputs(" [inlined]", f);
	if (d->module) {
		fputs(" (", f);
		xml_put(f, base_of(d->module), 4096);
		putc(')', f);
	}
	fprintf(f, ": %llu samples, %.2f%%", (unsigned long long)d->samples,
		isnan(d->pct) ? 0 : d->pct);
	if (g->diff && c && c->presence == ANA_ONLY_RUN)
		fputs("; only in this run: the base has no such calling context", f);
	else if (g->diff && c && !isnan(c->lo))
		fprintf(f, "; ratio %.3g [%.3g, %.3g]%s", c->ratio, c->lo, c->hi,
			c->significant ? " significant" : "");
	if (have_fc && !isnan(fc.ratio))
		fprintf(f, "; as a function, as pmcprof diff matches it: %s",
			fmt_ratio(&fc, ana_rows_query(g->r)->ratio));
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"%s\""
		" rx=\"2\"/>", x, fg_y(g, depth), w, FG_FRAME - 1, color);
	fprintf(f, "<text x=\"%.2f\" y=\"%u\">", x + 3, fg_y(g, depth) + FG_FRAME - 4);
	fg_label(f, d->name, w);
	fputs("</text></g>\n", f);
	g->n_frames++;
}

/* The value drawn for row i of the drawn run (0 for rows of the base only). */
static double row_value(const struct fg *g, size_t i, unsigned run)
{
	double v = ana_rows_value(g->r, i, run, ana_rows_event(g->r, run), g->kind);
	return isnan(v) || v < 0 ? 0 : v;
}

/* Rows come depth first; each row's offset is its parent's plus what the
 * earlier siblings took.  off[] holds, per depth, where the next child
 * goes.  base_depth shifts the rows under the synthetic frames. */
static int fg_rows(struct fg *g, unsigned run, double start, unsigned base_depth,
		   unsigned long *id)
{
	const struct ana_rows *r = g->r;
	size_t n = ana_rows_n(r);
	unsigned top = n ? ana_rows_row(r, 0)->depth : 1;
	unsigned maxd = 1;
	for (size_t i = 0; i < n; i++)
		if (ana_rows_row(r, i)->depth > maxd)
			maxd = ana_rows_row(r, i)->depth;
	double *off = calloc(maxd + 2, sizeof(*off));
	if (!off)
		return -ENOMEM;
	off[0] = start;
	for (size_t i = 0; i < n; i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		unsigned d = row->depth >= top ? row->depth - top + 1 : 1;
		double v = row_value(g, i, run);
		double x = off[d - 1];
		off[d - 1] += v;
		off[d] = x;
		if (v * g->scale < FG_MIN_PX)
			continue;
		struct ana_cmp cmp;
		bool have_cmp = g->diff && !ana_rows_compare(r, i, run, &cmp);
		struct frame_desc fd = {
			.name = row->name, .module = row->module, .file = row->file, .line = row->line,
			.inlined_into = row->inlined_into,
			.inlined = row->flags & ANA_ROW_INLINED, .value = v,
			.pct = ana_rows_pct(r, i, run, ana_rows_event(r, run), g->kind),
			.samples = ana_rows_samples(r, i, run, ana_rows_event(r, run), g->kind),
			.cmp = have_cmp ? &cmp : NULL,
		};
		if (g->diff) {
			fd.base_pct = ana_rows_pct(r, i, g->base, ana_rows_event(r, g->base), g->kind);
			fd.base_samples = ana_rows_samples(r, i, g->base, ana_rows_event(r, g->base), g->kind);
		}
		fg_frame(g, (*id)++, x, d + base_depth, &fd);
	}
	free(off);
	return 0;
}

/* The script: hover details, click to zoom, search, and parameters in the
 * address (#x=ID zooms, #s=REGEX searches, #h=ID shows a frame's details as
 * a hover does; also ?x= ...) so a view can be linked to.  It marks the root <svg> data-js="ready" when done. */
static const char fg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function(){\n"
	"'use strict';\n"
	"var svg=document.getElementById('flamegraph');\n"
	"var W=+svg.getAttribute('data-w'),PAD=+svg.getAttribute('data-pad');\n"
	"var FONT=+svg.getAttribute('data-font'),CH=+svg.getAttribute('data-char');\n"
	"var TOTAL=+svg.getAttribute('data-total');\n"
	"var frames=[].slice.call(svg.querySelectorAll('g.f'));\n"
	"var details=document.getElementById('details'),matched=document.getElementById('matched');\n"
	"var unzoomBtn=document.getElementById('unzoom'),searchBtn=document.getElementById('search');\n"
	"var zoomed=null,pattern=null;\n"
	"function num(g,a){return +g.getAttribute(a);}\n"
	"function fit(g,w){var t=g.querySelector('text'),n=g.getAttribute('data-n');\n"
	" var k=Math.floor((w-6)/(FONT*CH));\n"
	" t.textContent=k<3?'':(n.length<=k?n:n.substring(0,k-2)+'..');}\n"
	"function place(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text');\n"
	" r.setAttribute('x',x.toFixed(2));r.setAttribute('width',w.toFixed(2));\n"
	" t.setAttribute('x',(x+3).toFixed(2));fit(g,w);}\n"
	"function zoom(z){\n"
	" var x0=z?num(z,'data-x'):0,w0=z?num(z,'data-v'):TOTAL,d0=z?num(z,'data-d'):0;\n"
	" var sc=(W-2*PAD)/w0,eps=w0*1e-9,shown=0;\n"
	" frames.forEach(function(g){var x=num(g,'data-x'),v=num(g,'data-v'),d=num(g,'data-d');\n"
	"  var inside=x>=x0-eps&&x+v<=x0+w0+eps&&d>=d0,above=d<d0&&x<=x0+eps&&x+v>=x0+w0-eps;\n"
	"  if(!z||inside){g.style.display='';place(g,PAD+(x-x0)*sc,v*sc);shown++;}\n"
	"  else if(above){g.style.display='';g.classList.add('parent');place(g,PAD,W-2*PAD);shown++;}\n"
	"  else g.style.display='none';\n"
	"  if(!z)g.classList.remove('parent');});\n"
	" zoomed=z;unzoomBtn.style.opacity=z?'1':'0.3';\n"
	" svg.setAttribute('data-zoom',z?z.id:'');svg.setAttribute('data-shown',shown);}\n"
	"function describe(g){\n"
	" var s=g.getAttribute('data-n')+(g.classList.contains('inl')?' [inlined]':'');\n"
	" var m=g.getAttribute('data-m');if(m)s+=' ('+m+')';\n"
	" var src=g.getAttribute('data-src');if(src)s+=' '+src;\n"
	" s+=': '+g.getAttribute('data-s')+' samples, '+num(g,'data-p').toFixed(2)+'%';\n"
	" if(g.hasAttribute('data-bp')){\n"
	"  s+=' (base '+num(g,'data-bp').toFixed(2)+'%, '+g.getAttribute('data-bs')+' samples)';\n"
	"  var pr=g.getAttribute('data-pr');\n"
	"  if(pr==='new')s+=', only in this run: the base has no such calling context';\n"
	"  else if(pr!=='both')s+=', '+pr;\n"
	"  if(g.hasAttribute('data-r'))s+=(g.getAttribute('data-mode')==='delta'?', delta ':', ratio ')\n"
	"   +g.getAttribute('data-r');\n"
	"  if(g.hasAttribute('data-lo'))s+=' CI ['+g.getAttribute('data-lo')+', '+g.getAttribute('data-hi')+']';\n"
	"  s+=g.getAttribute('data-sig')==='1'?' significant':' not significant';\n"
	"  if(g.hasAttribute('data-fr'))s+='; as a function (pmcprof diff): '+g.getAttribute('data-fr');}\n"
	" return s;}\n"
	"function search(p){\n"
	" var re=null;pattern=p||null;\n"
	" if(pattern){try{re=new RegExp(pattern);}catch(e){re=null;pattern=null;}}\n"
	" var ranges=[],sum=0;\n"
	" frames.forEach(function(g){var r=g.querySelector('rect');\n"
	"  if(!g.hasAttribute('data-fill'))g.setAttribute('data-fill',r.getAttribute('fill'));\n"
	"  var hit=re&&re.test(g.getAttribute('data-n'));\n"
	"  r.setAttribute('fill',hit?'rgb(230,0,230)':g.getAttribute('data-fill'));\n"
	"  g.classList.toggle('match',!!hit);\n"
	"  if(hit)ranges.push([num(g,'data-x'),num(g,'data-v'),num(g,'data-d')]);});\n"
	" ranges.sort(function(a,b){return a[0]-b[0]||a[2]-b[2];});\n"
	" var end=-1;ranges.forEach(function(q){if(q[0]>=end){sum+=q[1];end=q[0]+q[1];}\n"
	"  else if(q[0]+q[1]>end){sum+=q[0]+q[1]-end;end=q[0]+q[1];}});\n"
	" var pct=TOTAL>0?100*sum/TOTAL:0;\n"
	" matched.textContent=pattern?'Matched: '+pct.toFixed(2)+'%':'';\n"
	" searchBtn.textContent=pattern?'Reset search':'Search';\n"
	" if(pattern)svg.setAttribute('data-matched',pct.toFixed(4));else svg.removeAttribute('data-matched');}\n"
	"svg.addEventListener('mouseover',function(e){var g=e.target.closest&&e.target.closest('g.f');\n"
	" if(g)details.textContent=describe(g);});\n"
	"svg.addEventListener('mouseout',function(e){var g=e.target.closest&&e.target.closest('g.f');\n"
	" if(g)details.textContent=' ';});\n"
	"svg.addEventListener('click',function(e){var g=e.target.closest&&e.target.closest('g.f');\n"
	" if(g){zoom(g===zoomed&&g.classList.contains('parent')?null:g);if(pattern)search(pattern);}});\n"
	"unzoomBtn.addEventListener('click',function(){zoom(null);});\n"
	"searchBtn.addEventListener('click',function(){\n"
	" if(pattern){search(null);return;}\n"
	" var p=window.prompt('Search for (regular expression):','');if(p)search(p);});\n"
	"document.addEventListener('keydown',function(e){\n"
	" if((e.ctrlKey||e.metaKey)&&e.key==='f'){e.preventDefault();searchBtn.dispatchEvent(new Event('click'));}\n"
	" else if(e.key==='Escape'){zoom(null);search(null);}});\n"
	"var q=new URLSearchParams(location.search||location.hash.replace(/^#/,''));\n"
	"zoom(q.get('x')?document.getElementById(q.get('x')):null);\n"
	"if(q.get('s'))search(q.get('s'));\n"
	"var h=q.get('h')&&document.getElementById(q.get('h'));\n"
	"if(h){details.textContent=describe(h);h.querySelector('rect').style.stroke='#000';}\n"
	"svg.setAttribute('data-js','ready');\n"
	"})();\n"
	"]]></script>\n";

/* The heaviest modules by self value, for the palette and the legend. */
static void fg_modules(struct fg *g)
{
	const struct ana_rows *r = g->r;
	const char *mods[64];
	double val[64];
	size_t nm = 0;
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		if (!row->module)
			continue;
		double v = 0;
		for (unsigned run = 0; run < ana_set_n_runs(g->s); run++)
			v += ana_rows_value(r, i, run, ana_rows_event(r, run), ANA_SELF);
		size_t k;
		for (k = 0; k < nm && strcmp(base_of(mods[k]), base_of(row->module)); k++)
			;
		if (k < nm) {
			val[k] += v;
			continue;
		}
		if (nm < 64) {
			mods[nm] = row->module;
			val[nm++] = v;
		}
	}
	/* the heaviest first */
	for (size_t a = 0; a < nm; a++)
		for (size_t b = a + 1; b < nm; b++)
			if (val[b] > val[a]) {
				double tv = val[a];
				const char *tm = mods[a];
				val[a] = val[b];
				mods[a] = mods[b];
				val[b] = tv;
				mods[b] = tm;
			}
	for (size_t k = 0; k < nm && k < N_PALETTE; k++)
		g->mods[g->n_mods++] = mods[k];
}

static void fg_legend_modules(struct fg *g)
{
	const char *const *mods = g->mods;
	double x = FG_PAD;
	fputs("<g id=\"legend\">", g->f);
	for (size_t k = 0; k < g->n_mods && x < FG_WIDTH - 200; k++) {
		char color[48];
		module_color(color, sizeof(color), g->mods, g->n_mods, mods[k], "");
		fprintf(g->f, "<rect x=\"%.0f\" y=\"38\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"47\" class=\"small\">", x, color, x + 14);
		xml_put(g->f, base_of(mods[k]), 40);
		fputs("</text>", g->f);
		x += 24 + (double)(strlen(base_of(mods[k])) < 40 ? strlen(base_of(mods[k])) : 40) * 6.5;
	}
	fputs("</g>\n", g->f);
}

static void fg_legend_diff(struct fg *g)
{
	FILE *f = g->f;
	enum ana_ratio m = ana_rows_query(g->r)->ratio;
	static const double ratios[] = { 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2 };
	static const double deltas[] = { -10, -5, -2, 0, 2, 5, 10 };
	fputs("<g id=\"legend\"><text x=\"10\" y=\"47\" class=\"small\">", f);
	fputs(m == ANA_RATIO_DELTA ? "delta (points):" : "run / base:", f);
	fputs("</text>", f);
	double x = 110;
	for (size_t k = 0; k < 7; k++) {
		struct ana_cmp c = { .ratio = m == ANA_RATIO_DELTA ? deltas[k] : ratios[k],
				     .significant = true, .presence = ANA_IN_BOTH };
		char color[48];
		diff_color(color, sizeof(color), &c, m);
		fprintf(f, "<rect x=\"%.0f\" y=\"38\" width=\"44\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"61\" class=\"small\" text-anchor=\"middle\">%s%s%g%s</text>",
			x, color, x + 22, k == 0 ? "\u2264" : k == 6 ? "\u2265" : "",
			m == ANA_RATIO_DELTA && c.ratio > 0 ? "+" : "", c.ratio,
			m == ANA_RATIO_DELTA ? "" : "x");
		x += 46;
	}
	struct ana_cmp ns = { .ratio = m == ANA_RATIO_DELTA ? 10 : 4, .significant = false,
			      .presence = ANA_IN_BOTH };
	char color[48];
	diff_color(color, sizeof(color), &ns, m);
	fprintf(f, "<rect x=\"%.0f\" y=\"38\" width=\"10\" height=\"10\" fill=\"%s\" stroke=\"#999\"/>"
		"<text x=\"%.0f\" y=\"47\" class=\"small\">not significant (the %g%% interval includes "
		"%s): faint.  Widths: ", x + 10, color, x + 24,
		100 * (ana_rows_query(g->r)->conf > 0 ? ana_rows_query(g->r)->conf : 0.95),
		m == ANA_RATIO_DELTA ? "0" : "1");
	xml_put(f, ana_set_run(g->s, g->run)->label, 60);
	fputs("</text>", f);
	/* one side only: not a change of share, said apart */
	struct ana_cmp only = { .presence = ANA_ONLY_RUN };
	diff_color(color, sizeof(color), &only, m);
	fprintf(f, "<rect x=\"%.0f\" y=\"52\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		"<text x=\"%.0f\" y=\"61\" class=\"small\" id=\"only\">only in ", x + 10, color, x + 24);
	xml_put(f, ana_set_run(g->s, g->run)->label, 30);
	fprintf(f, ": %zu context%s, %.1f%% of it (no ratio); only in ", g->only_run,
		g->only_run == 1 ? "" : "s", g->only_run_pct);
	xml_put(f, ana_set_run(g->s, g->base)->label, 30);
	fprintf(f, ": %zu context%s, %.1f%% of it (not drawn)</text>",
		g->only_base, g->only_base == 1 ? "" : "s", g->only_base_pct);
	if (g->warn[0]) {
		fprintf(f, "<text x=\"10\" y=\"%d\" class=\"small\" id=\"warning\" "
			"style=\"fill:#b00000;font-weight:bold\">", FG_TOP + 2);
		xml_put(f, g->warn, sizeof(g->warn));
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

static const char *run_meta(const struct ana_set *s, unsigned run, const char *key)
{
	const struct ana_run *r = ana_set_run(s, run);
	for (size_t i = 0; r && i < r->n_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

/* What the legend says about the sides: the outermost contexts present on
 * one side only, with their inclusive share; and a warning when the runs
 * were unwound differently (frame pointers against DWARF: their contexts
 * differ where the unwinders do, not where the program does). */
static void fg_sides(struct fg *g)
{
	const struct ana_rows *r = g->r;
	unsigned skip_run = UINT_MAX, skip_base = UINT_MAX;
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		struct ana_cmp c;
		if (row->depth <= skip_run)
			skip_run = UINT_MAX;
		if (row->depth <= skip_base)
			skip_base = UINT_MAX;
		if (ana_rows_compare(r, i, g->run, &c))
			continue;
		if (c.presence == ANA_ONLY_RUN && skip_run == UINT_MAX) {
			g->only_run++;
			g->only_run_pct += ana_rows_pct(r, i, g->run, ana_rows_event(r, g->run), g->kind);
			skip_run = row->depth;
		} else if (c.presence == ANA_ONLY_BASE && skip_base == UINT_MAX) {
			g->only_base++;
			g->only_base_pct += ana_rows_pct(r, i, g->base, ana_rows_event(r, g->base), g->kind);
			skip_base = row->depth;
		}
	}
	const struct ana_query *q = ana_rows_query(r);
	ANA_QUERY(fq, .view = ANA_VIEW_FUNCS, .event = q->event, .kind = q->kind, .ratio = q->ratio,
		  .conf = q->conf);
	fq.base = q->base;
	g->funcs = ana_set_query(ana_rows_set(r), &fq);	/* NULL: frames go without it */
	const char *a = run_meta(g->s, g->base, "call_graph"), *b = run_meta(g->s, g->run, "call_graph");
	if (a && b && strcmp(a, b))
		snprintf(g->warn, sizeof(g->warn), "warning: the runs were unwound differently (%s in "
			 "the base, %s in the run): their calling contexts differ where the unwinders "
			 "do; compare functions with pmcprof diff", a, b);
}

/* Run run's total on the event it is drawn on: the width of its root
 * (*samples: its sample count). */
static double run_total(const struct fg *g, unsigned run, uint64_t *samples)
{
	double v = 0;
	uint64_t n = 0;
	ana_set_total(g->s, run, ana_rows_event(g->r, run), &n, &v);
	if (samples)
		*samples = n;
	return v;
}

/* The runs drawn (compare mode: the one against the base), the scale and
 * the depth.  0 or -EINVAL. */
static int fg_layout(struct fg *g)
{
	const struct ana_rows *r = g->r;
	unsigned nr = ana_set_n_runs(g->s);
	if (g->diff) {
		g->base = (unsigned)ana_rows_query(r)->base;
		g->run = g->o->run < nr && g->o->run != g->base ? g->o->run : g->base == 0 ? 1 : 0;
		if (g->run >= nr)
			return -EINVAL;
		fg_sides(g);
		if (g->warn[0])
			g->top += 14;
	}
	g->r0 = g->diff ? g->run : 0;
	g->r1 = g->diff ? g->run + 1 : nr;
	g->run_roots = g->r1 - g->r0 > 1;
	for (unsigned run = g->r0; run < g->r1; run++)
		g->total += run_total(g, run, NULL);
	if (!(g->total > 0))
		g->total = 1;
	g->scale = (FG_WIDTH - 2 * FG_PAD) / g->total;
	unsigned top = ana_rows_n(r) ? ana_rows_row(r, 0)->depth : 1, deepest = 0;
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		unsigned d = ana_rows_row(r, i)->depth;
		if (d >= top && d - top + 1 > deepest)
			deepest = d - top + 1;
	}
	g->max_depth = deepest + (g->run_roots ? 1 : 0);
	g->height = g->top + (g->max_depth + 1) * FG_FRAME + FG_BOTTOM;
	return 0;
}

/* The heading: opts.title, or made from the runs' labels and the slice
 * they are of (the runs' time_slice fact: a sliced graph says so). */
static const char *fg_title(const struct fg *g, char *buf, size_t len)
{
	const struct ana_set *s = g->s;
	const char *slice = ana_facts_slice(ana_set_facts(s, 0));
	int n;
	if (g->o->title)
		return g->o->title;
	if (g->diff)
		n = snprintf(buf, len, "Differential flame graph: %s against %s",
			     ana_set_run(s, g->run)->label, ana_set_run(s, g->base)->label);
	else
		n = snprintf(buf, len, "%s: %s",
			     ana_rows_query(g->r)->view == ANA_VIEW_BOTTOMUP ? "Bottom-up flame graph"
									     : "Flame graph",
			     ana_set_n_runs(s) == 1 ? ana_set_run(s, 0)->label : "all runs");
	if (n >= 0 && (size_t)n < len && slice)
		snprintf(buf + n, len - (size_t)n, " (--time %s)", slice);
	return buf;
}

static const char fg_style[] =
	"\">\n<style>\n"
	"text{font-family:Verdana,'DejaVu Sans',sans-serif;font-size:12px;fill:#000}\n"
	".small{font-size:11px}.title{font-size:16px;text-anchor:middle}\n"
	".btn{cursor:pointer;fill:#333}.btn:hover{fill:#000;text-decoration:underline}\n"
	"g.f text{pointer-events:none}g.f{cursor:pointer}g.f rect{stroke:#fbfbf7;stroke-width:0.6}\n"
	"g.f:hover rect{stroke:#000;stroke-width:0.5}\n"
	"g.inl rect{stroke:#555;stroke-dasharray:3,2;stroke-width:1}g.inl text{font-style:italic}\n"
	"g.parent rect{opacity:0.55}\n"
	"</style>\n";

/* The page or file's head, the svg element and its style. */
static void fg_head(const struct fg *g, const char *title)
{
	FILE *f = g->f;
	const struct ana_query *q = ana_rows_query(g->r);
	if (g->o->html) {
		fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>", f);
		xml_put(f, title, 4096);
		fputs("</title>\n<style>body{margin:0;background:#fff}svg{width:100%;height:auto}</style>\n"
		      "</head><body>\n", f);
	} else {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	}
	fprintf(f, "<svg version=\"1.1\" id=\"flamegraph\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" data-w=\"%d\" data-pad=\"%d\" "
		"data-font=\"%d\" data-char=\"%g\" data-total=\"%.10g\" data-mode=\"%s\" "
		"data-event=\"", FG_WIDTH, g->height, FG_WIDTH, g->height, FG_WIDTH, FG_PAD, FG_FONT,
		FG_CHAR, g->total,
		g->diff ? "diff" : q->view == ANA_VIEW_BOTTOMUP ? "bottom-up" : "top-down");
	xml_put(f, ana_set_event(g->s, ana_rows_event(g->r, g->r0)), 4096);
	fputs(fg_style, f);
}

/* Background, title, buttons and the line saying what is drawn. */
static void fg_heading(const struct fg *g, const char *title)
{
	FILE *f = g->f;
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#fbfbf7\"/>\n",
		FG_WIDTH, g->height);
	fprintf(f, "<text x=\"%d\" y=\"20\" class=\"title\">", FG_WIDTH / 2);
	xml_put(f, title, 4096);
	fputs("</text>\n<text x=\"10\" y=\"20\" id=\"unzoom\" class=\"btn\" style=\"opacity:0.3\">"
	      "Reset zoom</text>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"20\" id=\"search\" class=\"btn\" text-anchor=\"end\">Search</text>\n"
		"<text x=\"%d\" y=\"%u\" id=\"matched\" text-anchor=\"end\"></text>\n",
		FG_WIDTH - FG_PAD, FG_WIDTH - FG_PAD, g->height - 12);
	fprintf(f, "<text x=\"%d\" y=\"32\" class=\"small\" text-anchor=\"middle\">event ",
		FG_WIDTH / 2);
	xml_put(f, ana_set_event(g->s, ana_rows_event(g->r, g->r0)), 200);
	fprintf(f, ", %s; width: %s samples%s; inlined frames: dashed, italic; "
		"click: zoom, Ctrl-F: search</text>\n",
		ana_set_opts(g->s)->weighted ? "weighted" : "sample counts",
		g->kind == ANA_INCL ? "inclusive" : "self (bottom-up)", g->diff ? " of the run" : "");
}

/* The frames: "all", each run's root when there are several, the rows. */
static int fg_frames(struct fg *g)
{
	unsigned long id = 0;
	double start = 0;
	struct frame_desc all = { .name = "all", .synthetic = true, .value = g->total, .pct = 100 };
	for (unsigned run = g->r0; run < g->r1; run++) {
		uint64_t n;
		run_total(g, run, &n);
		all.samples += n;
	}
	fg_frame(g, id++, 0, 0, &all);
	int e = 0;
	for (unsigned run = g->r0; run < g->r1 && !e; run++) {
		uint64_t n;
		double t = run_total(g, run, &n);
		if (g->run_roots) {
			struct frame_desc rd = { .name = ana_set_run(g->s, run)->label, .synthetic = true,
						 .value = t, .pct = 100, .samples = n };
			if (t * g->scale >= FG_MIN_PX)
				fg_frame(g, id++, start, 1, &rd);
		}
		e = fg_rows(g, run, start, g->run_roots ? 1 : 0, &id);
		start += t;
	}
	return e;
}

int ana_rows_write_flame(const struct ana_rows *r, const struct ana_flame_opts *oin, FILE *f)
{
	struct ana_flame_opts o = { 0 };
	if (oin)
		memcpy(&o, oin, oin->sz < sizeof(o) ? oin->sz : sizeof(o));
	const struct ana_query *q = ana_rows_query(r);
	const struct ana_set *s = ana_rows_set(r);
	if (q->view != ANA_VIEW_TOPDOWN && q->view != ANA_VIEW_BOTTOMUP)
		return -EINVAL;
	if (q->event >= ana_set_n_sampled_events(s))
		return -EINVAL;	/* a metric has no samples to draw */
	struct fg g = { .f = f, .r = r, .s = s, .o = &o, .diff = q->base >= 0,
			.kind = q->view == ANA_VIEW_BOTTOMUP ? ANA_SELF : ANA_INCL, .top = FG_TOP };
	if (fg_layout(&g))
		return -EINVAL;
	char tbuf[512];
	const char *title = fg_title(&g, tbuf, sizeof(tbuf));
	fg_head(&g, title);
	fg_heading(&g, title);
	fg_modules(&g);
	if (g.diff)
		fg_legend_diff(&g);
	else
		fg_legend_modules(&g);
	fprintf(f, "<text x=\"10\" y=\"%u\" id=\"details\"> </text>\n", g.height - 12);
	fputs("<g id=\"frames\">\n", f);
	int e = fg_frames(&g);
	fputs("</g>\n", f);
	ana_rows_free(g.funcs);
	fputs(fg_script, f);
	fputs("</svg>\n", f);
	if (o.html)
		fputs("</body></html>\n", f);
	fflush(f);
	if (e)
		return e;
	return ferror(f) ? -EIO : 0;
}
