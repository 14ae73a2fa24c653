/* test_sink.c: the one helper per sink of untrusted text (src/sink.c):
 * what reaches gnuplot keeps only its closed set of characters, a file
 * name only file-safe ones, a terminal sees control characters escaped
 * (tables included, CSV left raw for programs; messages keep their lines
 * and tabs), a shell one quoted
 * word, and -o folders and --junit files are checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "sink.h"
#include "testlib.h"
#include "views/table.h"

static const struct {
	const char *id, *in, *plot, *file, *term;
} cases[] = {
	{ "plain", "nightly-2026.11_20 a:b/c+d=e@f", "nightly-2026.11_20 a:b/c+d=e@f",
	  "nightly-2026.11_20_a_b_c+d_e_f", "nightly-2026.11_20 a:b/c+d=e@f" },
	{ "backquote", "n`touch PWNED`", "n?touch PWNED?", "n_touch_PWNED_", "n`touch PWNED`" },
	{ "dollar", "$(touch X)", "?(touch X)", "__touch_X_", "$(touch X)" },
	{ "quotes", "a\";system(\"x\");#'b", "a??system(?x?)???b", "a__system__x_____b",
	  "a\";system(\"x\");#'b" },
	{ "macro", "@macro", "@macro", "_macro", "@macro" },
	{ "newline", "a\nb\tc\rd", "a?b?c?d", "a_b_c_d", "a\\nb\\tc\\rd" },
	{ "escape", "x\x1b[2Jy\x7f", "x??2Jy?", "x__2Jy_", "x\\x1b[2Jy\\x7f" },
	{ "c1-utf8", "a\xc2\x9b" "1m", "a?1m", "a__1m", "a\\u009b1m" },
	{ "utf8", "caf\xc3\xa9 \xc3\x97", "caf? ?", "caf_____", "caf\xc3\xa9 \xc3\x97" },
	{ "stray-c1", "a\x9b" "b", "a?b", "a_b", "a\\x9bb" },
	{ "dots", "..", "..", "__", ".." },
	{ "slash", "../../etc/passwd", "../../etc/passwd", ".._.._etc_passwd", "../../etc/passwd" },
};

static void check_cases(void)
{
	char out[256], id[96];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sink_plot(cases[i].in, out, sizeof out);
		snprintf(id, sizeof id, "plot-%s", cases[i].id);
		T_EQ_STR(id, out, cases[i].plot);
		T_CHECK(id, !strpbrk(out, "`'\"\\$;#\n"), "unsafe byte left in \"%s\"", out);
		sink_filename(cases[i].in, out, sizeof out);
		snprintf(id, sizeof id, "file-%s", cases[i].id);
		T_EQ_STR(id, out, cases[i].file);
		size_t n = sink_terminal(cases[i].in, out, sizeof out);
		snprintf(id, sizeof id, "term-%s", cases[i].id);
		T_EQ_STR(id, out, cases[i].term);
		snprintf(id, sizeof id, "term-%s-length", cases[i].id);
		T_EQ_INT(id, n, strlen(cases[i].term));
	}
	/* truncation keeps a NUL inside the buffer; NULL input is empty */
	char small[4];
	sink_plot("abcdef", small, sizeof small);
	T_EQ_STR("plot-truncated", small, "abc");
	T_EQ_INT("term-measure", sink_terminal("a\x1b", NULL, 0), 5);
	sink_plot(NULL, out, sizeof out);
	T_EQ_STR("plot-null", out, "");
}

static void check_shell(void)
{
	static const struct {
		const char *id, *in, *want;
	} sh[] = {
		{ "shell-plain", "all_scatter", "all_scatter" },
		{ "shell-empty", "", "''" },
		{ "shell-backquote", "a`touch X`", "'a`touch X`'" },
		{ "shell-dollar", "$(touch X);y", "'$(touch X);y'" },
		{ "shell-single", "it's", "'it'\\''s'" },
		{ "shell-newline", "a\nb", "'a\nb'" },
	};
	char out[64];
	for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
		sink_shell(sh[i].in, out, sizeof out);
		T_EQ_STR(sh[i].id, out, sh[i].want);
	}
	char small[6];
	sink_shell("a b c d e f", small, sizeof small);
	T_EQ_STR("shell-too-long", small, "''");
}

static void check_dirs(void)
{
	char err[256];
	T_EQ_INT("dir-plain", sink_check_dir("-o", "o\";system(\"x\");#", err, sizeof err), FGO_OK);
	T_EQ_INT("dir-empty", sink_check_dir("-o", "", err, sizeof err), FGO_EUSAGE);
	T_CONTAINS("dir-empty-message", err, "-o is empty");
	T_EQ_INT("dir-newline", sink_check_dir("-o", "a\nb", err, sizeof err), FGO_EUSAGE);
	T_CONTAINS("dir-newline-message", err, "control character (byte 0x0a)");
	T_EQ_INT("file-ok", sink_check_file("--junit", "/tmp/j.xml", err, sizeof err), FGO_OK);
	T_EQ_INT("file-bare-ok", sink_check_file("--junit", "j.xml", err, sizeof err), FGO_OK);
	T_EQ_INT("file-missing-dir", sink_check_file("--junit", "/nonexistent-fgo/d/j.xml", err,
						     sizeof err), FGO_EUSAGE);
	T_CONTAINS("file-missing-dir-message", err, "folder /nonexistent-fgo/d: is not there");
	T_EQ_INT("file-is-dir", sink_check_file("--junit", "/tmp", err, sizeof err), FGO_EUSAGE);
	T_EQ_INT("file-slash", sink_check_file("--junit", "/tmp/", err, sizeof err), FGO_EUSAGE);
}

/* Tables: the aligned and Markdown forms escape, CSV and JSON keep their
 * own quoting of the raw text. */
static void check_table(void)
{
	static const char *const h[] = { "tag", "n" };
	struct fgo_table *t = table_new(2, h);
	char *buf = NULL;
	size_t len = 0;
	table_add(t, "x\x1b[2Jy\nz");
	table_add(t, "1");
	FILE *f = open_memstream(&buf, &len);
	table_print(t, FGO_FMT_TABLE, f);
	fclose(f);
	T_EQ_STR("table-escaped", buf, "tag           n\n------------  -\nx\\x1b[2Jy\\nz  1\n");
	free(buf);
	f = open_memstream(&buf, &len);
	table_print(t, FGO_FMT_CSV, f);
	fclose(f);
	T_EQ_STR("table-csv-raw", buf, "tag,n\n\"x\x1b[2Jy\nz\",1\n");
	free(buf);
	table_free(t);
}

/* A message keeps its lines and tabs (a compiler's output) and shows every
 * other control character: an escape sequence, a carriage return that
 * would overwrite the line, a C1 CSI. */
static void check_message(void)
{
	static const struct {
		const char *id, *in, *want;
	} m[] = {
		{ "message-lines", "k.c:3: error\n\tint x\n", "k.c:3: error\n\tint x\n" },
		{ "message-escape", "failed: \x1b[2J\x1b]0;title\x07", "failed: \\x1b[2J\\x1b]0;title\\x07" },
		{ "message-cr", "ok\rFAKE", "ok\\rFAKE" },
		{ "message-c1", "a\xc2\x9b" "1m", "a\\u009b1m" },
		{ "message-utf8", "caf\xc3\xa9", "caf\xc3\xa9" },
	};
	char out[128];
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		size_t n = sink_message(m[i].in, out, sizeof out);
		T_EQ_STR(m[i].id, out, m[i].want);
		T_EQ_INT(m[i].id, n, strlen(m[i].want));
	}
}

int main(void)
{
	check_cases();
	check_message();
	check_shell();
	check_dirs();
	check_table();
	T_DONE();
}
