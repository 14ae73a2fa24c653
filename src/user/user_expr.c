/* user_expr.c: the manifest's integer expressions (user_expr.h): a
 * recursive-descent parser that emits postfix code, and a stack machine
 * that runs it with checked 64-bit arithmetic. The recursion is bounded by
 * the text's length (USER_EXPR_TEXT_MAX) and by DEPTH_MAX. */
#include "user/user_expr.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"

enum op {
	OP_CONST, OP_NAME, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_MIN, OP_MAX,
	OP_CEIL_DIV,
};

/* Nesting of parentheses, calls and unary signs. */
#define DEPTH_MAX 64

struct parser {
	const char *text;
	size_t at;
	const char *const *names;
	int nnames;
	struct user_expr *e;
	int depth;
	int col;   /* where the error is, 1-based characters */
	char *why;
	size_t len;
};

static int fail_at(struct parser *p, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct parser *p, size_t at, const char *fmt, ...)
{
	va_list ap;
	int col = 1;
	/* columns count characters: UTF-8 continuation bytes are not columns */
	for (size_t i = 0; i < at && p->text[i]; i++)
		col += ((unsigned char)p->text[i] & 0xc0) != 0x80;
	p->col = col;
	va_start(ap, fmt);
	vsnprintf(p->why, p->len, fmt, ap);
	va_end(ap);
	return FGO_EUSAGE;
}

static void skip_space(struct parser *p)
{
	while (p->text[p->at] == ' ' || p->text[p->at] == '\t')
		p->at++;
}

static int emit(struct parser *p, enum op op, long long v, size_t at)
{
	if (p->e->n >= USER_EXPR_OPS_MAX)
		return fail_at(p, at, "the expression is too long (more than %d operations)",
			       USER_EXPR_OPS_MAX);
	p->e->code[p->e->n].op = (unsigned char)op;
	p->e->code[p->e->n].v = v;
	p->e->n++;
	return FGO_OK;
}

/* What the character at p->at is, for "expected ... got X". */
static const char *got(struct parser *p, char *buf, size_t len)
{
	unsigned char c = (unsigned char)p->text[p->at];
	if (!c)
		return "the end";
	if (isprint(c))
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static int expr(struct parser *p);

static int expect(struct parser *p, char c, const char *what)
{
	char buf[16];
	skip_space(p);
	if (p->text[p->at] == c) {
		p->at++;
		return FGO_OK;
	}
	return fail_at(p, p->at, "expected %s, got %s", what, got(p, buf, sizeof buf));
}

static const struct {
	const char *name;
	enum op op;
} functions[] = { { "min", OP_MIN }, { "max", OP_MAX }, { "ceil_div", OP_CEIL_DIV } };

/* The list of names, for "unknown name" messages. */
static void name_list(const struct parser *p, char *out, size_t len)
{
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < p->nnames && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", p->names[i]);
}

static int name_or_call(struct parser *p)
{
	size_t start = p->at, n;
	while (isalnum((unsigned char)p->text[p->at]) || p->text[p->at] == '_')
		p->at++;
	n = p->at - start;
	for (size_t f = 0; f < FGO_ARRAY_SIZE(functions); f++) {
		if (strlen(functions[f].name) != n || strncmp(p->text + start, functions[f].name, n))
			continue;
		int rc;
		if ((rc = expect(p, '(', "'(' after the function's name")) || (rc = expr(p)) ||
		    (rc = expect(p, ',', "',' (the function takes two arguments)")) ||
		    (rc = expr(p)) || (rc = expect(p, ')', "')' after the second argument")))
			return rc;
		return emit(p, functions[f].op, 0, start);
	}
	for (int i = 0; i < p->nnames; i++)
		if (strlen(p->names[i]) == n && !strncmp(p->text + start, p->names[i], n))
			return emit(p, OP_NAME, i, start);
	char list[256];
	name_list(p, list, sizeof list);
	return fail_at(p, start, "unknown name \"%.*s\" (the names are %s; the functions min, max"
		       " and ceil_div)", (int)(n > 40 ? 40 : n), p->text + start, list);
}

static int number(struct parser *p)
{
	size_t start = p->at;
	long long v = 0;
	while (isdigit((unsigned char)p->text[p->at])) {
		int d = p->text[p->at] - '0';
		if (v > (LLONG_MAX - d) / 10)
			return fail_at(p, start, "the number is too large (at most %lld)", LLONG_MAX);
		v = v * 10 + d;
		p->at++;
	}
	if (isalpha((unsigned char)p->text[p->at]) || p->text[p->at] == '_' || p->text[p->at] == '.')
		return fail_at(p, p->at, "a number is digits only (no suffix, no decimal point)");
	return emit(p, OP_CONST, v, start);
}

/* primary := number | name | function '(' expr ',' expr ')' | '(' expr ')'
 * unary := ('-' | '+') unary | primary */
static int unary(struct parser *p)
{
	char buf[16];
	int rc;
	skip_space(p);
	size_t at = p->at;
	char c = p->text[at];
	if (++p->depth > DEPTH_MAX)
		return fail_at(p, at, "nested deeper than %d levels", DEPTH_MAX);
	if (c == '-' || c == '+') {
		p->at++;
		rc = unary(p);
		if (rc == FGO_OK && c == '-')
			rc = emit(p, OP_NEG, 0, at);
	} else if (c == '(') {
		p->at++;
		if ((rc = expr(p)) == FGO_OK)
			rc = expect(p, ')', "')'");
	} else if (isdigit((unsigned char)c)) {
		rc = number(p);
	} else if (isalpha((unsigned char)c) || c == '_') {
		rc = name_or_call(p);
	} else {
		rc = fail_at(p, at, "expected a number, a name or '(', got %s", got(p, buf, sizeof buf));
	}
	p->depth--;
	return rc;
}

/* term := unary (('*' | '/' | '%') unary)* */
static int term(struct parser *p)
{
	int rc = unary(p);
	for (;;) {
		if (rc)
			return rc;
		skip_space(p);
		size_t at = p->at;
		char c = p->text[at];
		if (c != '*' && c != '/' && c != '%')
			return FGO_OK;
		p->at++;
		if ((rc = unary(p)) == FGO_OK)
			rc = emit(p, c == '*' ? OP_MUL : c == '/' ? OP_DIV : OP_MOD, 0, at);
	}
}

/* expr := term (('+' | '-') term)* */
static int expr(struct parser *p)
{
	int rc = term(p);
	for (;;) {
		if (rc)
			return rc;
		skip_space(p);
		size_t at = p->at;
		char c = p->text[at];
		if (c != '+' && c != '-')
			return FGO_OK;
		p->at++;
		if ((rc = term(p)) == FGO_OK)
			rc = emit(p, c == '+' ? OP_ADD : OP_SUB, 0, at);
	}
}

int user_expr_parse(const char *text, const char *const *names, int nnames, struct user_expr *e,
		    int *col, char *why, size_t len)
{
	char buf[16];
	struct parser p = { .text = text, .names = names, .nnames = nnames, .e = e, .col = 1,
			    .why = why, .len = len };
	memset(e, 0, sizeof *e);
	*col = 1;
	if (strlen(text) >= sizeof e->text) {
		snprintf(why, len, "the expression is longer than %d characters", USER_EXPR_TEXT_MAX - 1);
		return FGO_EUSAGE;
	}
	snprintf(e->text, sizeof e->text, "%s", text);
	skip_space(&p);
	int rc = p.text[p.at] ? expr(&p) : fail_at(&p, 0, "the expression is empty");
	if (rc == FGO_OK) {
		skip_space(&p);
		if (p.text[p.at])
			rc = fail_at(&p, p.at, "expected an operator (+ - * / %%) or the end, got %s",
				     got(&p, buf, sizeof buf));
	}
	if (rc != FGO_OK) {
		*col = p.col;
		e->n = 0;
	}
	return rc;
}

void user_expr_constant(struct user_expr *e, long long v)
{
	memset(e, 0, sizeof *e);
	snprintf(e->text, sizeof e->text, "%lld", v);
	e->code[0].op = OP_CONST;
	e->code[0].v = v;
	e->n = 1;
}

/* Mathematical ceiling of a / b (b != 0), without overflow for any a. */
static long long ceil_div(long long a, long long b)
{
	long long q = a / b;
	return q + (a % b != 0 && (a < 0) == (b < 0));
}

int user_expr_eval(const struct user_expr *e, const long long *values, long long *out, char *why,
		   size_t len)
{
	long long st[USER_EXPR_OPS_MAX];
	int sp = 0;
	for (int i = 0; i < e->n; i++) {
		enum op op = (enum op)e->code[i].op;
		if (op == OP_CONST || op == OP_NAME) {
			st[sp++] = op == OP_CONST ? e->code[i].v : values[e->code[i].v];
			continue;
		}
		if (op == OP_NEG) {
			if (st[sp - 1] == LLONG_MIN)
				goto overflow;
			st[sp - 1] = -st[sp - 1];
			continue;
		}
		long long b = st[--sp], a = st[sp - 1], r = 0;
		switch (op) {
		case OP_ADD:
			if (__builtin_add_overflow(a, b, &r))
				goto overflow;
			break;
		case OP_SUB:
			if (__builtin_sub_overflow(a, b, &r))
				goto overflow;
			break;
		case OP_MUL:
			if (__builtin_mul_overflow(a, b, &r))
				goto overflow;
			break;
		case OP_DIV:
		case OP_MOD:
		case OP_CEIL_DIV:
			if (b == 0) {
				snprintf(why, len, "%s by zero in \"%s\"",
					 op == OP_MOD ? "remainder" : op == OP_DIV ? "division" : "ceil_div",
					 e->text);
				return FGO_EUSAGE;
			}
			if (a == LLONG_MIN && b == -1)
				goto overflow;
			r = op == OP_DIV ? a / b : op == OP_MOD ? a % b : ceil_div(a, b);
			break;
		case OP_MIN:
			r = a < b ? a : b;
			break;
		case OP_MAX:
			r = a > b ? a : b;
			break;
		default:
			snprintf(why, len, "a damaged expression (operation %d)", (int)op);
			return FGO_EUSAGE;
		}
		st[sp - 1] = r;
	}
	if (sp != 1) {
		snprintf(why, len, "\"%s\" is not one value", e->text);
		return FGO_EUSAGE;
	}
	*out = st[0];
	return FGO_OK;
overflow:
	snprintf(why, len, "\"%s\" overflows 64-bit integers", e->text);
	return FGO_EUSAGE;
}
