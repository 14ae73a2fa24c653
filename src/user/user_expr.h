/* user_expr.h: the integer expressions of a user kernel's manifest (its
 * grid, block, dynamic shared memory, flags and workspace): integers, the
 * names the caller allows (M, N, K, W and the kernel's tunables), + - * / %
 * with C's precedence and truncating division, unary minus, parentheses
 * and the functions min(a, b), max(a, b) and ceil_div(a, b). Nothing else:
 * an expression is data, never code. Parsed once into a short postfix
 * program, evaluated in 64-bit integers; overflow and division by zero are
 * errors, never undefined behaviour. Pure: no I/O, no globals. */
#ifndef FGO_USER_EXPR_H
#define FGO_USER_EXPR_H

#include <stddef.h>

#define USER_EXPR_TEXT_MAX 512 /* characters of one expression */
#define USER_EXPR_OPS_MAX 128  /* operations of its program */
#define USER_EXPR_NAMES_MAX 16 /* names it may use */

/* A parsed expression: its text (for messages) and its program. */
struct user_expr {
	char text[USER_EXPR_TEXT_MAX];
	int n;                /* operations */
	struct {
		unsigned char op; /* enum in user_expr.c */
		long long v;      /* a constant, or a name's index */
	} code[USER_EXPR_OPS_MAX];
};

/* Parses text. names[0..nnames) are the names it may use; a name's value
 * is values[i] at evaluation. FGO_OK, or FGO_EUSAGE with *col the 1-based
 * column (in characters) where it goes wrong and why (lowercase, no
 * position) e.g. "unknown name \"BLOCK\" (the names are M, N, K, W, BLK)". */
int user_expr_parse(const char *text, const char *const *names, int nnames, struct user_expr *e,
		    int *col, char *why, size_t len);

/* The expression's value for values[] (indexed as the names were): FGO_OK
 * with *out, or FGO_EUSAGE with why ("division by zero", "overflow",
 * "ceil_div by zero"). */
int user_expr_eval(const struct user_expr *e, const long long *values, long long *out, char *why,
		   size_t len);

/* A constant expression: text "v" (for a manifest's plain number). */
void user_expr_constant(struct user_expr *e, long long v);

#endif
