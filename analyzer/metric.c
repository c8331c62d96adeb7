/* Derived metrics: "NAME=EXPR" with + - * / parentheses, numbers and event
 * names, compiled to a small stack program.  Event names may contain '-'
 * (cpu-clock): the longest name that resolves wins, else '-' is minus. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/query.h"
#include "analyzer/util.h"

enum op { OP_NUM, OP_COL, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG };

struct ins {
	enum op op;
	double num;
	int col;
};

struct metric {
	char *name;
	struct ins *code;
	size_t n, cap;
};

struct parser {
	const char *p, *start;
	struct metric *m;
	int (*lookup)(void *ctx, const char *name);
	void *ctx;
	char *msg;
	size_t len;
	int err;
	int depth;
};

static void perr(struct parser *ps, const char *fmt, ...)
{
	if (ps->err)
		return;
	ps->err = 1;
	va_list ap;
	va_start(ap, fmt);
	char buf[200];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ps->len)
		snprintf(ps->msg, ps->len, "metric: %s at column %d", buf,
			 (int)(ps->p - ps->start) + 1);
}

static void emit(struct parser *ps, enum op op, double num, int col)
{
	if (ps->err)
		return;
	if (vec_reserve(&ps->m->code, &ps->m->cap, ps->m->n + 1, sizeof(struct ins))) {
		perr(ps, "out of memory");
		return;
	}
	ps->m->code[ps->m->n++] = (struct ins){ op, num, col };
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.' || c == '-';
}

static void expr(struct parser *ps);

static void ident(struct parser *ps)
{
	const char *s = ps->p, *e = s;
	while (name_char(*e))
		e++;
	/* shrink at '-' boundaries until a prefix names a column */
	for (;;) {
		char name[256];
		size_t n = (size_t)(e - s);
		if (n < sizeof(name)) {
			memcpy(name, s, n);
			name[n] = 0;
			int col = ps->lookup(ps->ctx, name);
			if (col >= 0) {
				ps->p = e;
				emit(ps, OP_COL, 0, col);
				return;
			}
		}
		const char *d = e;
		while (d > s && d[-1] != '-')
			d--;
		if (d <= s + 1) {
			ps->p = s;
			int w = (int)strcspn(s, " \t()+*/");
			perr(ps, "unknown event '%.*s'", w, s);
			return;
		}
		e = d - 1;
	}
}

static void factor(struct parser *ps)
{
	skip_ws(ps);
	if (++ps->depth > 100) {
		perr(ps, "expression nested too deeply");
		return;
	}
	char c = *ps->p;
	if (c == '(') {
		ps->p++;
		expr(ps);
		skip_ws(ps);
		if (*ps->p != ')')
			perr(ps, "expected ')'");
		else
			ps->p++;
	} else if (c == '-') {
		ps->p++;
		factor(ps);
		emit(ps, OP_NEG, 0, 0);
	} else if (isdigit((unsigned char)c) || c == '.') {
		char *end;
		double v = strtod(ps->p, &end);
		if (end == ps->p)
			perr(ps, "bad number");
		ps->p = end;
		emit(ps, OP_NUM, v, 0);
	} else if (isalpha((unsigned char)c) || c == '_') {
		ident(ps);
	} else {
		perr(ps, c ? "unexpected '%c'" : "unexpected end%.0s", c);
	}
	ps->depth--;
}

/* One precedence level: operand, then (op operand)* left to right, where
 * op is the character ops[0] (instruction code[0]) or ops[1]. */
static void level(struct parser *ps, void (*operand)(struct parser *), const char ops[2],
		  const enum op code[2])
{
	operand(ps);
	for (;;) {
		skip_ws(ps);
		char c = *ps->p;
		if (ps->err || (c != ops[0] && c != ops[1]))
			return;
		ps->p++;
		operand(ps);
		emit(ps, c == ops[0] ? code[0] : code[1], 0, 0);
	}
}

static void term(struct parser *ps)
{
	level(ps, factor, "*/", (const enum op[]){ OP_MUL, OP_DIV });
}

static void expr(struct parser *ps)
{
	level(ps, term, "+-", (const enum op[]){ OP_ADD, OP_SUB });
}

struct metric *metric_parse(const char *spec, int (*lookup)(void *ctx, const char *name),
			    void *ctx, char *msg, size_t len)
{
	const char *eq = strchr(spec, '=');
	if (len)
		msg[0] = 0;
	if (!eq || eq == spec) {
		if (len)
			snprintf(msg, len, "metric: expected NAME=EXPR, got '%s'", spec);
		errno = ANA_EMETRIC;
		return NULL;
	}
	struct metric *m = calloc(1, sizeof(*m));
	if (!m || !(m->name = strndup(spec, (size_t)(eq - spec)))) {
		free(m);
		return NULL;
	}
	struct parser ps = { .p = eq + 1, .start = spec, .m = m, .lookup = lookup,
			     .ctx = ctx, .msg = msg, .len = len };
	expr(&ps);
	skip_ws(&ps);
	if (!ps.err && *ps.p)
		perr(&ps, "unexpected '%c'", *ps.p);
	if (ps.err) {
		metric_free(m);
		errno = ANA_EMETRIC;
		return NULL;
	}
	return m;
}

const char *metric_name(const struct metric *m)
{
	return m->name;
}

double metric_eval(const struct metric *m, const double *v)
{
	double st[128];
	size_t sp = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct ins *in = &m->code[i];
		double x, y;
		switch (in->op) {
		case OP_NUM:
		case OP_COL:
			if (sp == 128)
				return NAN;
			st[sp++] = in->op == OP_NUM ? in->num : v[in->col];
			break;
		case OP_NEG:
			st[sp - 1] = -st[sp - 1];
			break;
		default:
			y = st[--sp];
			x = st[sp - 1];
			switch (in->op) {
			case OP_ADD: x += y; break;
			case OP_SUB: x -= y; break;
			case OP_MUL: x *= y; break;
			default: x = y == 0 ? NAN : x / y; break;	/* blank, not inf */
			}
			st[sp - 1] = x;
		}
	}
	return sp == 1 ? st[0] : NAN;
}

void metric_free(struct metric *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->code);
	free(m);
}
