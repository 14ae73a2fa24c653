/* test_table.c: the one printer behind every view (table.h): format names,
 * aligned text (numbers right-aligned, empty cells "-", UTF-8 widths),
 * Markdown (header rule, "|" escaped), CSV (RFC 4180 quoting) and JSON
 * (numbers unquoted, empty cells null, strings escaped), the JSON checked by
 * parsing it back with cJSON. */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "fgo.h"
#include "testlib.h"
#include "views/table.h"

/* The table as f prints it (malloc'd), and table_print's result in *rc. */
static char *render(const struct fgo_table *t, enum fgo_format f, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	if (!out) {
		*rc = -2;
		return strdup("");
	}
	*rc = table_print(t, f, out);
	fclose(out);
	return buf;
}

/* Compares whole outputs; on a difference prints both, escaped. */
static void show_escaped(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			printf("\\n");
		else if (*s == '\r')
			printf("\\r");
		else
			putchar(*s);
	}
}

static void check_output(const char *id, const char *got, const char *want)
{
	int same = strcmp(got, want) == 0;
	T_CHECK(id, same, "output differs (escaped lines follow)");
	if (!same) {
		printf("    want: ");
		show_escaped(want);
		printf("\n    got:  ");
		show_escaped(got);
		printf("\n");
	}
}

static void check_format_parse(void)
{
	static const struct {
		const char *name;
		enum fgo_format f;
	} ok[] = {
		{ "table", FGO_FMT_TABLE }, { "md", FGO_FMT_MD },     { "markdown", FGO_FMT_MD },
		{ "csv", FGO_FMT_CSV },     { "json", FGO_FMT_JSON }, { "JSON", FGO_FMT_JSON },
		{ "Markdown", FGO_FMT_MD }, { "CSV", FGO_FMT_CSV },   { "Table", FGO_FMT_TABLE },
	};
	char id[64];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(ok); i++) {
		enum fgo_format f = (enum fgo_format)-1;
		int rc = format_parse(ok[i].name, &f);
		snprintf(id, sizeof id, "format-parse-%s", ok[i].name);
		T_CHECK(id, rc == 0 && f == ok[i].f, "rc %d, format %d (want 0, %d)", rc, (int)f,
			(int)ok[i].f);
	}
	static const char *const bad[] = { "", "xml", "tsv", "jsonl", "mark", "csv ", " json", "m",
					   "tables", "html" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(bad); i++) {
		enum fgo_format f = FGO_FMT_CSV;
		int rc = format_parse(bad[i], &f);
		snprintf(id, sizeof id, "format-reject-\"%s\"", bad[i]);
		T_CHECK(id, rc != 0 && f == FGO_FMT_CSV, "rc %d, format %d (want refused, untouched)",
			rc, (int)f);
	}
}

/* name (text), ms (numbers, one empty), note (text, one empty). */
static struct fgo_table *sample_table(void)
{
	static const char *const headers[] = { "name", "ms", "note" };
	struct fgo_table *t = table_new(3, headers);
	table_add(t, "%s", "alpha");
	table_add(t, "%.1f", 1.5);
	table_add(t, "%s", "fast");
	table_add(t, "b");
	table_add(t, "%s", "");
	table_add(t, "%s", "");
	table_add(t, "%s", "gamma-long");
	table_add(t, "%d", -7);
	table_add(t, "x");
	table_add(t, "%s", "na\xc3\xafve"); /* "naive" with a diaeresis: 5 columns, 6 bytes */
	table_add(t, "%.2f", 123.25);
	table_add(t, "slow");
	return t;
}

static void check_cells(void)
{
	struct fgo_table *t = sample_table();
	T_EQ_INT("rows", table_rows(t), 4);
	T_EQ_STR("cell-0-0", table_cell(t, 0, 0), "alpha");
	T_EQ_STR("cell-3-1", table_cell(t, 3, 1), "123.25");
	T_EQ_STR("cell-empty", table_cell(t, 1, 2), "");
	T_EQ_STR("cell-row-out", table_cell(t, 4, 0), "");
	T_EQ_STR("cell-col-out", table_cell(t, 0, 3), "");
	T_EQ_STR("cell-negative", table_cell(t, -1, 0), "");
	table_add(t, "partial");
	T_EQ_INT("rows-partial", table_rows(t), 5);
	T_EQ_STR("cell-partial-missing", table_cell(t, 4, 1), "");
	table_free(t);
	T_EQ_INT("rows-null", table_rows(NULL), 0);
}

static void check_text(void)
{
	struct fgo_table *t = sample_table();
	int rc;
	char *s = render(t, FGO_FMT_TABLE, &rc);
	T_EQ_INT("text-rc", rc, 0);
	check_output("text-aligned", s,
		     "name            ms  note\n"
		     "----------  ------  ----\n"
		     "alpha          1.5  fast\n"
		     "b                -  -\n"
		     "gamma-long      -7  x\n"
		     "na\xc3\xafve       123.25  slow\n");
	free(s);
	table_free(t);

	/* A column mixing numbers and text aligns left; "1e999", "0x10",
	 * "01" and "nan" are not numbers. */
	static const char *const h2[] = { "id", "n", "v" };
	t = table_new(3, h2);
	const char *cells[] = { "1", "10", "1e999", "x2", "200", "0x10", "3", "-", "nan" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cells); i++)
		table_add(t, "%s", cells[i]);
	s = render(t, FGO_FMT_TABLE, &rc);
	check_output("text-mixed-left", s,
		     "id    n  v\n"
		     "--  ---  -----\n"
		     "1    10  1e999\n"
		     "x2  200  0x10\n"
		     "3     -  nan\n");
	free(s);
	table_free(t);

	/* No rows: header and rule only. */
	static const char *const h3[] = { "alpha", "b" };
	t = table_new(2, h3);
	s = render(t, FGO_FMT_TABLE, &rc);
	check_output("text-no-rows", s, "alpha  b\n-----  -\n");
	free(s);
	table_free(t);
}

/* table_fit: the widest text column narrowed until the table fits (never
 * below max(its header, 12)), its cells wrapped after "; " or ", " where
 * that leaves the line a third full, else at a space; numbers keep their
 * width. The lines below are worked out by hand from those rules (issue
 * 52: no unit test covered table_fit). */
static void check_fit(void)
{
	static const char *const h[] = { "n", "reason", "tag" };
	struct fgo_table *t = table_new(3, h);
	int rc;
	table_add(t, "12");
	table_add(t, "a very long reason; with a phrase, and more words here");
	table_add(t, "ok");
	table_add(t, "3");
	table_add(t, "short");
	table_add(t, "x");
	/* 30 columns: reason gets 30 - 2 (n) - 3 (tag) - 4 (gaps) = 21 */
	table_fit(t, 30);
	char *s = render(t, FGO_FMT_TABLE, &rc);
	check_output("fit-30", s,
		     " n  reason                 tag\n"
		     "--  ---------------------  ---\n"
		     "12  a very long reason;    ok\n"
		     "    with a phrase,\n"
		     "    and more words here\n"
		     " 3  short                  x\n");
	free(s);
	/* 20 columns: reason stops at 12 (wider than its header), 21 in all */
	table_fit(t, 20);
	s = render(t, FGO_FMT_TABLE, &rc);
	check_output("fit-20-floor-12", s,
		     " n  reason        tag\n"
		     "--  ------------  ---\n"
		     "12  a very long   ok\n"
		     "    reason; with\n"
		     "    a phrase,\n"
		     "    and more\n"
		     "    words here\n"
		     " 3  short         x\n");
	free(s);
	/* exactly as wide as the table: nothing narrowed, nothing wrapped */
	table_fit(t, 2 + 2 + 54 + 2 + 3);
	s = render(t, FGO_FMT_TABLE, &rc);
	check_output("fit-exact", s,
		     " n  reason                                                  tag\n"
		     "--  ------------------------------------------------------  ---\n"
		     "12  a very long reason; with a phrase, and more words here  ok\n"
		     " 3  short                                                   x\n");
	free(s);
	/* Markdown is never wrapped */
	s = render(t, FGO_FMT_MD, &rc);
	T_CONTAINS("fit-md-whole", s, "| a very long reason; with a phrase, and more words here |");
	free(s);
	table_free(t);
}

static void check_markdown(void)
{
	struct fgo_table *t = sample_table();
	int rc;
	char *s = render(t, FGO_FMT_MD, &rc);
	T_EQ_INT("md-rc", rc, 0);
	check_output("md-table", s,
		     "| name       |     ms | note |\n"
		     "|------------|-------:|------|\n"
		     "| alpha      |    1.5 | fast |\n"
		     "| b          |      - | -    |\n"
		     "| gamma-long |     -7 | x    |\n"
		     "| na\xc3\xafve      | 123.25 | slow |\n");
	/* The separator is the second line, and every line has the same
	 * number of (unescaped) cell borders. */
	const char *nl = strchr(s, '\n');
	T_CHECK("md-separator-line", nl && strncmp(nl + 1, "|---", 4) == 0,
		"second line does not start the header rule");
	free(s);
	table_free(t);

	/* "|" is escaped, line breaks become spaces; the minimum width is 3. */
	static const char *const h2[] = { "k", "v" };
	t = table_new(2, h2);
	table_add(t, "a|b");
	table_add(t, "line1\nline2");
	table_add(t, "c");
	table_add(t, "d\r");
	s = render(t, FGO_FMT_MD, &rc);
	check_output("md-escape", s,
		     "| k    | v           |\n"
		     "|------|-------------|\n"
		     "| a\\|b | line1 line2 |\n"
		     "| c    | d           |\n");
	free(s);
	table_free(t);
}

static void check_csv(void)
{
	static const char *const h[] = { "name", "note", "a,b" };
	struct fgo_table *t = table_new(3, h);
	table_add(t, "plain");
	table_add(t, "has,comma");
	table_add(t, "1");
	table_add(t, "say \"hi\"");
	table_add(t, "line1\nline2");
	table_add(t, "%s", "");
	table_add(t, "cr\rhere");
	table_add(t, " spaced ");
	table_add(t, "2.5");
	table_add(t, "\"");
	table_add(t, "semi;colon");
	table_add(t, "-");
	int rc;
	char *s = render(t, FGO_FMT_CSV, &rc);
	T_EQ_INT("csv-rc", rc, 0);
	check_output("csv-rfc4180", s,
		     "name,note,\"a,b\"\n"
		     "plain,\"has,comma\",1\n"
		     "\"say \"\"hi\"\"\",\"line1\nline2\",\n"
		     "\"cr\rhere\", spaced ,2.5\n"
		     "\"\"\"\",semi;colon,'-\n");
	free(s);
	table_free(t);
}

/* Spreadsheet formulas (issue 48): a cell starting with =, +, -, @, a tab
 * or a CR is text behind a leading "'", a number stays a number. */
static void check_csv_formula(void)
{
	static const struct {
		const char *id, *cell, *want;
	} cases[] = {
		{ "csv-formula-eq", "=1+1", "'=1+1" },
		{ "csv-formula-hyperlink", "=HYPERLINK(\"http://x\",\"y\")",
		  "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"" },
		{ "csv-formula-plus", "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0" },
		{ "csv-formula-minus-expr", "-2+3", "'-2+3" },
		{ "csv-formula-at", "@SUM(A1:A9)", "'@SUM(A1:A9)" },
		{ "csv-formula-tab", "\t=1", "'\t=1" },
		{ "csv-formula-cr", "\r=1", "\"'\r=1\"" },
		{ "csv-formula-comma", "=1,2", "\"'=1,2\"" },
		{ "csv-formula-double-minus", "--1", "'--1" },
		{ "csv-formula-minus-word", "-inf", "'-inf" },
		{ "csv-number-negative", "-1.5", "-1.5" },
		{ "csv-number-plus", "+2.0", "+2.0" },
		{ "csv-number-exp", "-1e-05", "-1e-05" },
		{ "csv-number-percent", "-51%", "-51%" },
		{ "csv-number-plus-percent", "+2.5%", "+2.5%" },
		{ "csv-formula-percent-expr", "-1%+cmd", "'-1%+cmd" },
		{ "csv-formula-bare-minus-percent", "-%", "'-%" },
		{ "csv-number-plain", "12", "12" },
		{ "csv-inner-eq", "a=b", "a=b" },
		{ "csv-empty", "", "" },
	};
	static const char *const h[] = { "v" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		struct fgo_table *t = table_new(1, h);
		table_add(t, "%s", cases[i].cell);
		int rc;
		char *s = render(t, FGO_FMT_CSV, &rc);
		char want[256];
		snprintf(want, sizeof want, "v\n%s\n", cases[i].want);
		check_output(cases[i].id, s, want);
		free(s);
		table_free(t);
	}
	/* a header is a cell too */
	static const char *const bad[] = { "=cmd()" };
	struct fgo_table *t = table_new(1, bad);
	int rc;
	char *s = render(t, FGO_FMT_CSV, &rc);
	check_output("csv-formula-header", s, "'=cmd()\n");
	free(s);
	table_free(t);
}

/* Markdown cells carry no HTML (issue 48): <, > and & as entities, | escaped,
 * the columns aligned on the escaped text. */
static void check_markdown_html(void)
{
	static const char *const h[] = { "tag", "n" };
	struct fgo_table *t = table_new(2, h);
	table_add(t, "<script>alert(1)</script>");
	table_add(t, "1");
	table_add(t, "<img src=x onerror=alert(1)>");
	table_add(t, "22");
	table_add(t, "a&b|c");
	table_add(t, "3");
	int rc;
	char *s = render(t, FGO_FMT_MD, &rc);
	check_output("md-html-escaped", s,
		     "| tag                                   |   n |\n"
		     "|---------------------------------------|----:|\n"
		     "| &lt;script&gt;alert(1)&lt;/script&gt; |   1 |\n"
		     "| &lt;img src=x onerror=alert(1)&gt;    |  22 |\n"
		     "| a&amp;b\\|c                            |   3 |\n");
	T_CHECK("md-no-tag", !strchr(s, '<') && !strchr(s, '>'), "a raw < or > is left: %s", s);
	free(s);
	table_free(t);
}

/* table_nowrap: under table_fit a timestamp stays on one line while the
 * other text columns give up their width. */
static void check_nowrap(void)
{
	static const char *const h[] = { "tag", "started", "spec" };
	struct fgo_table *t = table_new(3, h);
	table_add(t, "a-tag-that-is-long-enough-to-be-wrapped");
	table_add(t, "2026-12-06T20:29:54Z");
	table_add(t, "a-spec-name-that-is-also-long");
	table_fit(t, 50);
	table_nowrap(t, 1);
	int rc;
	char *s = render(t, FGO_FMT_TABLE, &rc);
	T_CONTAINS("nowrap-whole", s, "2026-12-06T20:29:54Z");
	int widest = 0, w = 0;
	for (const char *p = s; *p; p++) {
		w = *p == '\n' ? 0 : w + 1;
		widest = w > widest ? w : widest;
	}
	T_CHECK("nowrap-fits", widest <= 50, "a line of %d columns: %s", widest, s);
	/* table_select keeps the flag */
	static const int cols[] = { 1, 0 };
	struct fgo_table *sel = table_select(t, cols, 2, NULL);
	table_fit(sel, 30);
	free(s);
	s = render(sel, FGO_FMT_TABLE, &rc);
	T_CONTAINS("nowrap-select", s, "2026-12-06T20:29:54Z");
	free(s);
	table_free(sel);
	table_free(t);

	/* a user kernel's params break after a comma, not inside a name */
	static const char *const h2[] = { "algorithm", "config" };
	t = table_new(2, h2);
	table_add(t, "user:my_all_scatter");
	table_add(t, "BLOCK_M=64,BLOCK_N=64");
	table_fit(t, 34);
	table_nowrap(t, 0);
	s = render(t, FGO_FMT_TABLE, &rc);
	check_output("fit-comma", s,
		     "algorithm            config\n"
		     "-------------------  -------------\n"
		     "user:my_all_scatter  BLOCK_M=64,\n"
		     "                     BLOCK_N=64\n");
	free(s);
	table_free(t);
}

/* The string or number under key in obj, for the messages. */
static const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) && v->valuestring ? v->valuestring : "(not a string)";
}

static void check_json(void)
{
	static const char *const h[] = { "name", "value", "empty", "text", "q\"h\\" };
	struct fgo_table *t = table_new(5, h);
	/* row 0 */
	table_add(t, "alpha");
	table_add(t, "1.5");
	table_add(t, "%s", "");
	table_add(t, "say \"hi\" \\ back");
	table_add(t, "-0.5e-3");
	/* row 1: things that look numeric but are not JSON numbers */
	table_add(t, "007");
	table_add(t, "1e999");
	table_add(t, "0x10");
	table_add(t, "tab\there\nnl\x01" "ctl\x1f\b\f\r end");
	table_add(t, "NaN");
	/* row 2 */
	table_add(t, "h\xc3\xa9llo");
	table_add(t, "-12");
	table_add(t, " 1");
	table_add(t, "1.");
	table_add(t, "0");
	int rc;
	char *s = render(t, FGO_FMT_JSON, &rc);
	T_EQ_INT("json-rc", rc, 0);
	T_CONTAINS("json-number-unquoted", s, "\"value\": 1.5");
	T_CONTAINS("json-null", s, "\"empty\": null");
	T_CONTAINS("json-control-escaped", s, "\\u0001");
	T_CONTAINS("json-control-1f", s, "\\u001f");
	T_CONTAINS("json-header-escaped", s, "\"q\\\"h\\\\\"");
	T_CHECK("json-no-raw-control", !strchr(s, '\t') && !strchr(s, '\r') && !strchr(s, '\x01'),
		"raw control characters in the JSON");

	cJSON *doc = cJSON_Parse(s);
	T_CHECK("json-parses", doc != NULL, "cJSON cannot parse: %s", s);
	if (!doc) {
		free(s);
		table_free(t);
		return;
	}
	T_CHECK("json-array-3", cJSON_IsArray(doc) && cJSON_GetArraySize(doc) == 3,
		"not an array of 3 objects");
	const cJSON *r0 = cJSON_GetArrayItem(doc, 0), *r1 = cJSON_GetArrayItem(doc, 1),
		    *r2 = cJSON_GetArrayItem(doc, 2);
	T_EQ_INT("json-row0-keys", cJSON_GetArraySize(r0), 5);
	T_EQ_STR("json-name", json_str(r0, "name"), "alpha");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(r0, "value");
	T_CHECK("json-value-number", cJSON_IsNumber(v) && v->valuedouble == 1.5,
		"value is not the number 1.5");
	T_CHECK("json-empty-null", cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r0, "empty")),
		"empty cell is not null");
	T_EQ_STR("json-quotes-backslash", json_str(r0, "text"), "say \"hi\" \\ back");
	v = cJSON_GetObjectItemCaseSensitive(r0, "q\"h\\");
	T_CHECK("json-header-key", cJSON_IsNumber(v) && v->valuedouble == -0.5e-3,
		"key q\"h\\ missing or not -0.0005");

	T_EQ_STR("json-leading-zero-string", json_str(r1, "name"), "007");
	T_EQ_STR("json-inf-string", json_str(r1, "value"), "1e999");
	T_EQ_STR("json-hex-string", json_str(r1, "empty"), "0x10");
	T_EQ_STR("json-control-roundtrip", json_str(r1, "text"),
		 "tab\there\nnl\x01" "ctl\x1f\b\f\r end");
	T_EQ_STR("json-nan-string", json_str(r1, "q\"h\\"), "NaN");

	T_EQ_STR("json-utf8", json_str(r2, "name"), "h\xc3\xa9llo");
	v = cJSON_GetObjectItemCaseSensitive(r2, "value");
	T_CHECK("json-negative-int", cJSON_IsNumber(v) && v->valuedouble == -12, "not -12");
	T_EQ_STR("json-space-string", json_str(r2, "empty"), " 1");
	T_EQ_STR("json-trailing-dot-string", json_str(r2, "text"), "1.");
	v = cJSON_GetObjectItemCaseSensitive(r2, "q\"h\\");
	T_CHECK("json-zero", cJSON_IsNumber(v) && v->valuedouble == 0, "not the number 0");
	cJSON_Delete(doc);
	free(s);

	/* A short last row: missing cells are null. */
	table_add(t, "short");
	s = render(t, FGO_FMT_JSON, &rc);
	doc = cJSON_Parse(s);
	const cJSON *r3 = doc ? cJSON_GetArrayItem(doc, 3) : NULL;
	T_CHECK("json-partial-row", r3 && strcmp(json_str(r3, "name"), "short") == 0 &&
		cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r3, "text")),
		"partial last row not {name: short, ..., text: null}: %s", s);
	cJSON_Delete(doc);
	free(s);
	table_free(t);

	/* No rows: an empty array. */
	static const char *const h1[] = { "a" };
	t = table_new(1, h1);
	s = render(t, FGO_FMT_JSON, &rc);
	doc = cJSON_Parse(s);
	T_CHECK("json-empty-array", doc && cJSON_IsArray(doc) && cJSON_GetArraySize(doc) == 0,
		"no rows is not []: %s", s);
	cJSON_Delete(doc);
	free(s);
	table_free(t);
}

static void check_errors(void)
{
	T_EQ_INT("print-null-table", table_print(NULL, FGO_FMT_TABLE, stdout), -1);
	/* A stream that cannot be written: table_print says so. */
	FILE *ro = fopen("/dev/null", "r");
	static const char *const h[] = { "a" };
	struct fgo_table *t = table_new(1, h);
	table_add(t, "1");
	if (ro) {
		T_EQ_INT("print-write-error", table_print(t, FGO_FMT_CSV, ro), -1);
		fclose(ro);
	}
	table_free(t);
	table_free(NULL); /* no crash */
	T_PASS("free-null");
}

int main(void)
{
	check_format_parse();
	check_cells();
	check_text();
	check_fit();
	check_markdown();
	check_csv();
	check_csv_formula();
	check_markdown_html();
	check_nowrap();
	check_json();
	check_errors();
	T_DONE();
}
