/* test_user_expr.c: the manifest's expressions (src/user/user_expr.h):
 * values, precedence, the functions, the names allowed and nothing else,
 * errors with their column, overflow and division by zero. */
#include <limits.h>

#include "fgo.h"
#include "testlib.h"
#include "user/user_expr.h"

static const char *const names[] = { "M", "N", "K", "W", "BLOCK_M", "BLOCK_N" };
/* M=1000 N=768 K=64 W=4 BLOCK_M=64 BLOCK_N=32 */
static const long long values[] = { 1000, 768, 64, 4, 64, 32 };

static const struct {
	const char *id, *text;
	long long want;
} good[] = {
	{ "expr-1.1", "42", 42 },
	{ "expr-1.2", "M", 1000 },
	{ "expr-1.3", "1 + 2 * 3", 7 },
	{ "expr-1.4", "(1 + 2) * 3", 9 },
	{ "expr-1.5", "10 - 4 - 3", 3 },        /* left to right */
	{ "expr-1.6", "100 / 10 / 5", 2 },
	{ "expr-1.7", "7 % 4 * 2", 6 },
	{ "expr-1.8", "-3 + 5", 2 },
	{ "expr-1.9", "- - 3", 3 },
	{ "expr-1.10", "-7 / 2", -3 },          /* C's truncation */
	{ "expr-1.11", "ceil_div(M, BLOCK_M)", 16 },
	{ "expr-1.12", "ceil_div(M, BLOCK_M) * ceil_div(N / W, BLOCK_N)", 96 },
	{ "expr-1.13", "min(M, N) + max(K, W)", 832 },
	{ "expr-1.14", "ceil_div(-7, 2)", -3 },
	{ "expr-1.15", "ceil_div(7, -2)", -3 },
	{ "expr-1.16", "ceil_div(-7, -2)", 4 },
	{ "expr-1.17", " \tBLOCK_M*BLOCK_N*4 ", 8192 },
	{ "expr-1.18", "max(min(1, 2), min(3, (4)))", 3 },
	{ "expr-1.19", "9223372036854775807", LLONG_MAX },
	{ "expr-1.20", "W * (M / W % 7)", 4 * (250 % 7) },
};

static const struct {
	const char *id, *text;
	int col;
	const char *why;
} bad[] = {
	{ "expr-2.1", "", 1, "empty" },
	{ "expr-2.2", "M +", 4, "expected a number, a name or '('" },
	{ "expr-2.3", "BLOCK", 1, "unknown name \"BLOCK\" (the names are M, N, K, W, BLOCK_M, BLOCK_N" },
	{ "expr-2.4", "M + foo(1)", 5, "unknown name \"foo\"" },
	{ "expr-2.5", "min(1)", 6, "',' (the function takes two arguments)" },
	{ "expr-2.6", "(M + 1", 7, "expected ')'" },
	{ "expr-2.7", "M N", 3, "expected an operator" },
	{ "expr-2.8", "2.5", 2, "digits only" },
	{ "expr-2.9", "M ^ 2", 3, "expected an operator" },
	{ "expr-2.10", "99999999999999999999", 1, "too large" },
	{ "expr-2.11", "m", 1, "unknown name \"m\"" }, /* names are case-sensitive */
	{ "expr-2.12", "ceil_div", 9, "'(' after the function's name" },
	{ "expr-2.13", "M; rm -rf /", 2, "expected an operator" },
	{ "expr-2.14", "$(id)", 1, "expected a number, a name or '('" },
	{ "expr-2.15", "min(1, 2, 3)", 9, "')' after the second argument" },
	{ "expr-2.16", "é + 1", 1, "expected a number" },
	{ "expr-2.17", "1 + é", 5, "expected a number" },
};

static const struct {
	const char *id, *text, *why;
} runtime[] = {
	{ "expr-3.1", "M / (W - 4)", "division by zero" },
	{ "expr-3.2", "M % (W - 4)", "remainder by zero" },
	{ "expr-3.3", "ceil_div(M, 0)", "ceil_div by zero" },
	{ "expr-3.4", "9223372036854775807 + 1", "overflows" },
	{ "expr-3.5", "M * 9223372036854775807", "overflows" },
	{ "expr-3.6", "-9223372036854775807 - 2", "overflows" },
	{ "expr-3.7", "(-9223372036854775807 - 1) / -1", "overflows" },
	{ "expr-3.8", "-(-9223372036854775807 - 1)", "overflows" },
};

int main(void)
{
	struct user_expr e;
	char why[512], id[64];
	int col;
	long long v;

	for (size_t i = 0; i < FGO_ARRAY_SIZE(good); i++) {
		int rc = user_expr_parse(good[i].text, names, 6, &e, &col, why, sizeof why);
		snprintf(id, sizeof id, "%s-parse", good[i].id);
		T_CHECK(id, rc == FGO_OK, "\"%s\": %s (col %d)", good[i].text, why, col);
		if (rc != FGO_OK)
			continue;
		rc = user_expr_eval(&e, values, &v, why, sizeof why);
		T_CHECK(good[i].id, rc == FGO_OK && v == good[i].want, "\"%s\": expected %lld, got %lld (%s)",
			good[i].text, good[i].want, v, rc == FGO_OK ? "ok" : why);
	}
	for (size_t i = 0; i < FGO_ARRAY_SIZE(bad); i++) {
		why[0] = 0;
		int rc = user_expr_parse(bad[i].text, names, 6, &e, &col, why, sizeof why);
		T_CHECK(bad[i].id, rc == FGO_EUSAGE && col == bad[i].col && strstr(why, bad[i].why),
			"\"%s\": expected col %d \"%s\", got rc %d col %d \"%s\"", bad[i].text,
			bad[i].col, bad[i].why, rc, col, why);
	}
	for (size_t i = 0; i < FGO_ARRAY_SIZE(runtime); i++) {
		int rc = user_expr_parse(runtime[i].text, names, 6, &e, &col, why, sizeof why);
		if (rc == FGO_OK) {
			why[0] = 0;
			rc = user_expr_eval(&e, values, &v, why, sizeof why);
		}
		T_CHECK(runtime[i].id, rc == FGO_EUSAGE && strstr(why, runtime[i].why),
			"\"%s\": expected \"%s\", got rc %d \"%s\"", runtime[i].text, runtime[i].why, rc,
			why);
	}
	/* a constant (a manifest's plain number), and the text limit */
	user_expr_constant(&e, -5);
	T_CHECK("expr-4.1", user_expr_eval(&e, values, &v, why, sizeof why) == FGO_OK && v == -5 &&
				    !strcmp(e.text, "-5"), "got %lld \"%s\"", v, e.text);
	char longtext[USER_EXPR_TEXT_MAX + 8];
	memset(longtext, '1', sizeof longtext - 1);
	longtext[sizeof longtext - 1] = 0;
	T_CHECK("expr-4.2", user_expr_parse(longtext, names, 6, &e, &col, why, sizeof why) == FGO_EUSAGE &&
				    strstr(why, "longer than"), "got \"%s\"", why);
	/* deep nesting is refused, not a stack overflow */
	char deep[300];
	memset(deep, '(', 200);
	snprintf(deep + 200, sizeof deep - 200, "1");
	T_CHECK("expr-4.3", user_expr_parse(deep, names, 6, &e, &col, why, sizeof why) == FGO_EUSAGE &&
				    strstr(why, "nested deeper"), "got \"%s\"", why);
	/* more operations than the program holds */
	char many[USER_EXPR_TEXT_MAX];
	size_t at = 0;
	while (at + 5 < sizeof many)
		at += (size_t)snprintf(many + at, sizeof many - at, "1+");
	snprintf(many + at, sizeof many - at, "1");
	T_CHECK("expr-4.4", user_expr_parse(many, names, 6, &e, &col, why, sizeof why) == FGO_EUSAGE &&
				    strstr(why, "too long"), "got \"%s\"", why);
	T_DONE();
}
