/* test_spec_hostile.c: input the spec and dataset readers must refuse
 * rather than read some other way than it looks (issue 21): a key given
 * twice (also in another case, also nested, also two names of one dataset
 * field), a CSV column named twice, a NUL in a string (\u0000) or in the
 * file, and nesting deeper than the JSON reader's limit, each with its
 * position; and what must still be read. */
#include <stdio.h>
#include <unistd.h>

#include "spec_fixture.h"

#define SHAPE "\"M\": 64, \"N\": 64, \"K\": 64"

static const struct {
	const char *id, *path, *text, *where, *what;
} cases[] = {
	{ "dup-key", "t.json", "{\"algorithm\": \"gemm\", " SHAPE ", \"M\": 128}", "t.json:1:50: ",
	  "duplicate key \"M\" (already given as \"M\" at 1:23" },
	{ "dup-key-case", "t.json", "{\"algorithm\": \"gemm\", " SHAPE ", \"m\": 128}", "t.json:1:50: ",
	  "duplicate key \"m\"" },
	{ "dup-key-block", "t.json",
	  "{\"algorithm\": \"gemm\", " SHAPE ",\n \"blocks\": [{\"BLK_M\": 16, \"BLK_M\": 32}]}",
	  "t.json:2:27: ", "duplicate key \"BLK_M\"" },
	{ "dup-key-range", "t.json",
	  "{\"algorithm\": \"gemm\", \"N\": 64, \"K\": 64, \"M\": {\"from\": 16, \"to\": 64, \"to\": 9}}",
	  "t.json:1:69: ", "duplicate key \"to\"" },
	{ "dup-key-dataset", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3, \"n\": 4}]", "t.json:1:27: ",
	  "duplicate key \"n\"" },
	{ "dup-alias-dataset", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3, \"dtype\": \"fp16\", \"datatype\": \"fp32\"}]",
	  "t.json:1:44: ", "\"datatype\" gives the same field as \"dtype\"" },
	{ "dup-column", "t.csv", "m,n,k,m\n1,2,3,4\n", "t.csv:1:7: ", "column \"m\" is named twice" },
	{ "dup-column-alias", "t.csv", "m,n,k,num_sms,gemm_sms\n1,2,3,4,5\n", "t.csv:1:15: ",
	  "column \"gemm_sms\" is named twice (column 4 is \"num_sms\"" },
	{ "nul-algorithm", "t.json", "{\"algorithm\": \"all_scatter\\u0000; evil\", " SHAPE "}",
	  "t.json:1:27: ", "a NUL character (\\u0000) in a string" },
	{ "nul-key", "t.json", "{\"M\\u0000x\": 1}", "t.json:1:4: ", "NUL character" },
	{ "nul-dataset", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3, \"algorithm\": \"gemm\\u0000\"}]",
	  "t.json:1:45: ", "NUL character" },
};

static void check_cases(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(cases[i].id, cases[i].path, cases[i].text, cases[i].where, cases[i].what);
}

/* 1001 levels: one past cJSON's limit, named as such, at the bracket. */
static void check_depth(void)
{
	size_t n = 1001, len = 2 * n + 16, o = 0;
	char *text = malloc(len);
	if (!text)
		return;
	for (size_t i = 0; i < n; i++)
		text[o++] = '[';
	text[o++] = '1';
	for (size_t i = 0; i < n; i++)
		text[o++] = ']';
	text[o] = 0;
	expect_error("deep-nesting", "t.json", text, "t.json:1:1001: ",
		     "nested deeper than 1000 levels");
	free(text);
}

/* What is refused must not catch what is fine: escapes other than
 * \u0000, the same key in different objects, a "\u0000" spelled out in a
 * description with a backslash escaped. */
static void check_still_read(void)
{
	struct fgo_plan p;
	if (parse_ok("ok-same-key-two-objects", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE ", \"blocks\": [{\"BLK_M\": 16}, {\"BLK_M\": 32}]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("ok-same-key-two-objects-count", p.count, 2);
		plan_free(&p);
	}
	if (parse_ok("ok-escapes", "t.json",
		     "{\"description\": \"tab\\t \\u00e9 \\\\u0000 quote\\\"\", \"algorithm\": \"gemm\", "
		     SHAPE "}", NULL, NULL, &p))
		plan_free(&p);
}

/* A NUL byte in the file: spec_load reads it, refuses it with its place. */
static void check_nul_byte(void)
{
	char path[] = "/tmp/fgo-test-spec-XXXXXX", err[512] = "";
	int fd = mkstemp(path);
	static const char text[] = "{\"algorithm\": \"gemm\", " SHAPE "}\n\0{\"evil\": 1}";
	struct fgo_plan p;
	if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) {
		T_CHECK("nul-byte-setup", 0, "cannot write %s", path);
		return;
	}
	close(fd);
	int rc = spec_load(path, NULL, NULL, &p, err, sizeof err);
	T_EQ_INT("nul-byte-rc", rc, FGO_EUSAGE);
	T_CONTAINS("nul-byte-message", err, ":2:1: a NUL byte in the file");
	if (rc == FGO_OK)
		plan_free(&p);
	unlink(path);
}

int main(void)
{
	check_cases();
	check_depth();
	check_still_read();
	check_nul_byte();
	T_DONE();
}
