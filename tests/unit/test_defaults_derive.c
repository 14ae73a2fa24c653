/* test_defaults_derive.c: the defaults table derived from measurements
 * (src/spec/defaults_derive.c, defaults_write.c): the derived pick (most
 * problems covered, then the lowest geomean, the lower worst, the pick's
 * order), each verdict and the 1% margin from both sides, and the table's
 * text: the committed src/spec/defaults_rows.inc is the writer's output
 * for the built-in table, counts as K_ and M_, quotes escaped, evidence
 * broken at spaces within 100 columns. */
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "spec/defaults_derive.h"
#include "testlib.h"

static const struct defaults_pick A = { 64, 64, 64, 6, 8, 1, 0 };
static const struct defaults_pick B = { 128, 128, 64, 4, 8, 1, 0 };
static const struct defaults_pick C = { 64, 128, 64, 4, 8, 1, 0 };

/* The text defaults_rows_write makes of rows[0..n), in a buffer to free. */
static char *written(const struct defaults_row *rows, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = defaults_rows_write(f, rows, n);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_choice(void)
{
	/* three problems of row 0, one of row 1 (ignored by row 0's judging) */
	struct derive_problem p[] = { { 0, 0.5 }, { 0, 0.25 }, { 0, 0.4 }, { 1, 0.1 } };
	struct derive_meas m[] = {
		{ 0, A, 1.0 }, { 0, B, 0.8 }, { 0, C, 0.5 },
		{ 1, A, 0.4 }, { 1, B, 0.32 },
		{ 2, A, 0.5 }, { 2, B, 0.4 },
		{ 3, C, 0.1 }, { 3, B, 0.1 },
	};
	struct derive_row r;
	T_EQ_INT("choice-rc", derive_row(p, 4, m, FGO_ARRAY_SIZE(m), 0, &A, &r), 0);
	T_EQ_INT("choice-problems", r.problems, 3);
	T_EQ_INT("choice-cur-measured", r.cur.measured, 3);
	T_NEAR("choice-cur-geomean", r.cur.geomean, cbrt(2.0 * 1.6 * 1.25), 1e-12);
	T_NEAR("choice-cur-worst", r.cur.worst, 2.0, 1e-12);
	T_EQ_INT("choice-cur-worst-at", r.cur.worst_at, 0);
	/* C is the best on problem 0 but covers 1 of 3: B (all 3) wins */
	T_CHECK("choice-derived-covers-most", r.have_derived && derive_pick_eq(&r.derived, &B),
		"expected 128x128 s4, got %dx%d s%d", r.derived.blk_m, r.derived.blk_n,
		r.derived.num_stages);
	T_EQ_INT("choice-der-measured", r.der.measured, 3);
	T_NEAR("choice-der-geomean", r.der.geomean, cbrt(1.6 * 1.28 * 1.0), 1e-12);
	T_NEAR("choice-vs-current", r.vs_current, 0.8, 1e-12);
	T_EQ_INT("choice-paired", r.paired, 3);
	T_EQ_INT("choice-verdict", r.verdict, DERIVE_REPLACE);

	/* a row no problem maps to */
	T_EQ_INT("none-rc", derive_row(p, 4, m, FGO_ARRAY_SIZE(m), 5, &A, &r), 0);
	T_EQ_INT("none-verdict", r.verdict, DERIVE_NO_PROBLEM);
	T_EQ_INT("none-problems", r.problems, 0);

	/* row 1: one problem, C and B tie on everything: the pick's order
	 * (64x128 before 128x128); one problem, even the row's only one, is
	 * thin (the row is kept) */
	derive_row(p, 4, m, FGO_ARRAY_SIZE(m), 1, &A, &r);
	T_CHECK("tie-order", derive_pick_eq(&r.derived, &C), "expected 64x128, got %dx%d",
		r.derived.blk_m, r.derived.blk_n);
	T_EQ_INT("tie-thin", r.verdict, DERIVE_THIN);
}

/* The margin: the derived pick replaces only below 0.99x the pick's time
 * (0.992x kept, 0.988x replaced). */
static void test_margin(void)
{
	struct derive_problem p[] = { { 0, 1.0 }, { 0, 1.0 } };
	struct derive_meas m[] = { { 0, A, 1.0 }, { 0, B, 0.992 }, { 1, A, 1.0 }, { 1, B, 0.992 } };
	struct derive_row r;
	char text[128];
	p[0].best_ms = p[1].best_ms = 0.992;
	derive_row(p, 2, m, 4, 0, &A, &r);
	T_EQ_INT("margin-0.992-kept", r.verdict, DERIVE_CLOSE);
	derive_verdict_text(&r, text, sizeof text);
	T_EQ_STR("margin-0.992-text", text, "kept: 0.992x on 2");
	m[1].ms = m[3].ms = 0.988;
	p[0].best_ms = p[1].best_ms = 0.988;
	derive_row(p, 2, m, 4, 0, &A, &r);
	T_EQ_INT("margin-0.988-replaced", r.verdict, DERIVE_REPLACE);
	derive_verdict_text(&r, text, sizeof text);
	T_EQ_STR("margin-0.988-text", text, "replace: 0.988x on 2");
	derive_evidence(&r, "s.db", text, sizeof text);
	T_EQ_STR("evidence", text,
		 "derived from s.db by best --defaults: within 0.0% of the best on 2 of 2 problems,"
		 " geomean 1.000");
	/* the same pick: kept whatever the numbers */
	derive_row(p, 2, m, 4, 0, &B, &r);
	T_EQ_INT("same", r.verdict, DERIVE_SAME);
	/* on 1 of 2 problems: thin */
	struct derive_meas one[] = { { 0, A, 1.0 }, { 0, B, 0.5 } };
	derive_row(p, 2, one, 2, 0, &A, &r);
	T_EQ_INT("thin", r.verdict, DERIVE_THIN);
	/* on the row's only problem: thin too (one point of its box) */
	derive_row(p, 1, one, 2, 0, &A, &r);
	T_EQ_INT("thin-only-problem", r.verdict, DERIVE_THIN);
	derive_verdict_text(&r, text, sizeof text);
	T_EQ_STR("thin-only-problem-text", text, "kept: derived on 1 of 1");
	/* the lower worst breaks a tie of coverage and geomean */
	struct derive_problem q[] = { { 0, 1.0 }, { 0, 1.0 } };
	struct derive_meas w[] = { { 0, A, 1.0 }, { 1, A, 1.44 }, { 0, C, 1.2 }, { 1, C, 1.2 } };
	derive_row(q, 2, w, 4, 0, &B, &r);
	T_CHECK("tie-worst", derive_pick_eq(&r.derived, &C), "expected 64x128 (worst 1.2), got %dx%d",
		r.derived.blk_m, r.derived.blk_n);
	/* the Stream-K forms' walk takes no split */
	struct defaults_row row = { "wgmma", "sk_*", 0, 0, 0, 0, 0, 64, 64, 64, 12, 8, 4, 0, "e" };
	struct defaults_pick pk;
	derive_row_pick(&row, 1, &pk);
	T_EQ_INT("pick-units-no-split", pk.split_k, 1);
	derive_row_pick(&row, 0, &pk);
	T_EQ_INT("pick-split", pk.split_k, 4);
}

static void test_write(void)
{
	char *got = written(defaults_table, defaults_table_rows);
	char *file = read_file("src/spec/defaults_rows.inc");
	T_CHECK("write-committed", got && file && !strcmp(got, file),
		"src/spec/defaults_rows.inc is not defaults_rows_write's output for the table"
		" (regenerate it: fgobench best --defaults --write src/spec/defaults_rows.inc)");
	int longest = 0;
	for (const char *s = got ? got : "", *e; *s; s = *e ? e + 1 : e) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		if (e - s > longest)
			longest = (int)(e - s);
	}
	T_CHECK("write-100-columns", longest <= 100, "a line of %d columns", longest);
	free(got);
	free(file);

	const char *word = "x123456789x123456789x123456789x123456789x123456789x123456789x123456789"
			   "x123456789x123456789 tail";
	struct defaults_row rows[] = {
		{ "wgmma", NULL, 0, 0, 0, 2 * 1024 * 1024, 0, 64, 64, 64, 6, 8, 1, 0,
		  "a \"quoted\" \\ text" },
		{ "wgmma", "sk_*", 1, 2, 3, 1000, 5, 16, 64, 64, 12, 8, 2, 512, word },
		{ "wgmma", "gemm", 0, 0, 0, 512 * 1024, 0, 64, 64, 64, 6, 8, 1, 0, "" },
	};
	got = written(rows, 3);
	T_CONTAINS("write-m", got ? got : "",
		   "/* row 1 */\n{ \"wgmma\", NULL, 0, 0, 0, 2 * M_, 0, 64, 64, 64, 6, 8, 1, 0,\n"
		   "  \"a \\\"quoted\\\" \\\\ text\" },\n");
	T_CONTAINS("write-long-word", got ? got : "",
		   "/* row 2 */\n{ \"wgmma\", \"sk_*\", 1, 2, 3, 1000, 5, 16, 64, 64, 12, 8, 2, 512,\n"
		   "  \"x123456789x123456789x123456789x123456789x123456789x123456789x123456789"
		   "x123456789x123456789\"\n  \" tail\" },\n");
	T_CONTAINS("write-k", got ? got : "",
		   "/* row 3 */\n{ \"wgmma\", \"gemm\", 0, 0, 0, 512 * K_, 0, 64, 64, 64, 6, 8, 1, 0,\n"
		   "  \"\" },\n");
	free(got);
}

int main(void)
{
	test_choice();
	test_margin();
	test_write();
	T_DONE();
}
