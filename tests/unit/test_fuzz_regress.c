/* test_fuzz_regress.c: what fuzzing found, one case per finding (ids
 * fuzz-N, reproducers under tests/fuzz/regress/), plus every reproducer
 * file replayed through the reader it crashed: each must now be accepted
 * or refused with a one-line message that starts with the path. Runs
 * without clang, and under `make test-asan` with the sanitizers that found
 * them. */
#include <dirent.h>
#include <stdlib.h>

#include "fgo.h"
#include "spec/spec.h"
#include "testlib.h"

struct finding {
	const char *id;
	const char *text;  /* the input, as the file "f.json" */
	const char *want;  /* in the error message (NULL: must parse) */
};

static const struct finding findings[] = {
	/* an escaped newline in a key was echoed into a two-line message */
	{ "fuzz-1", "{\"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64, \"num_sta\\nges\": 2}",
	  "unknown key \"num_sta?ges\"" },
	{ "fuzz-1.1", "{\"algorithm\": \"gemm\\u0007\", \"M\": 64, \"N\": 64, \"K\": 64}",
	  "unknown algorithm \"gemm?\"" },
	/* a range step past long's range was cast to long (undefined) */
	{ "fuzz-2", "{\"algorithm\":\"gemm\",\"M\":{\"from\":1,\"to\":2,\"step\":1e300},\"N\":64,\"K\":64}",
	  "f.json:1:49: \"step\" must be a positive integer up to 1099511627776" },
	{ "fuzz-2.1",
	  "{\"algorithm\":\"gemm\",\"M\":{\"from\":1,\"to\":1099511627776,\"step\":9223372036854775807},"
	  "\"N\":64,\"K\":64}",
	  "\"step\" must be a positive integer up to 1099511627776" },
	{ "fuzz-2.2", "{\"algorithm\":\"gemm\",\"world\":{\"from\":1,\"to\":2,\"step\":3e9},\"M\":64,\"N\":64,\"K\":64}",
	  "\"step\" must be a positive integer up to 2147483647" },
	{ "fuzz-2.3", "{\"algorithm\":\"gemm\",\"M\":{\"from\":64,\"to\":1099511627776,\"step\":1099511627776},\"N\":64,\"K\":64}",
	  NULL },
	/* "iterations" / "warmup" past long's range, the same cast */
	{ "fuzz-3", "{\"algorithm\":\"gemm\",\"M\":64,\"N\":64,\"K\":64,\"iterations\":1e300}",
	  "\"iterations\" expects an integer from 1 to 1000000" },
	{ "fuzz-3.1", "{\"algorithm\":\"gemm\",\"M\":64,\"N\":64,\"K\":64,\"warmup\":-1e300}",
	  "\"warmup\" expects an integer from 0 to 1000000" },
};

/* The same for CSV inputs, read as "f.csv". */
static const struct finding csv_findings[] = {
	/* a first byte 0xef was taken for a 3-byte BOM: read past the end */
	{ "fuzz-4", "\xef\x81", "f.csv:1:1: unknown column \"\xef\x81\"" },
	{ "fuzz-4.1", "\xef", "unknown column" },
	{ "fuzz-4.2", "\xef\xbb\xbfm,n,k\n64,64,64\n", NULL },
};

static void check_finding(const char *path, const struct finding *f)
{
	struct fgo_plan p;
	char err[512], id[64];
	int rc = spec_parse(path, f->text, NULL, NULL, &p, err, sizeof err);
	snprintf(id, sizeof id, "%s-rc", f->id);
	T_EQ_INT(id, rc, f->want ? FGO_EUSAGE : FGO_OK);
	if (rc == FGO_OK) {
		plan_free(&p);
		return;
	}
	snprintf(id, sizeof id, "%s-message", f->id);
	T_CONTAINS(id, err, f->want ? f->want : "(no error)");
	snprintf(id, sizeof id, "%s-one-line", f->id);
	T_CHECK(id, !strchr(err, '\n'), "a newline in \"%s\"", err);
}

/* Reads a whole file; NULL when it cannot. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *text = malloc(cap + 1);
	while (text && (n = fread(text, 1, cap, f)) == cap) {
		char *bigger = realloc(text, 2 * cap + 1);
		if (!bigger) {
			free(text);
			text = NULL;
			break;
		}
		text = bigger;
		n += fread(text + cap, 1, cap, f);
		cap *= 2;
		if (n < cap)
			break;
	}
	fclose(f);
	if (text)
		text[n] = 0;
	return text;
}

/* Every reproducer under tests/fuzz/regress/KIND through spec_parse as the
 * harness fed it (csv and dataset inputs start with the flags byte; the
 * dataset harness puts '[' in its place). */
static void replay(const char *kind, const char *as)
{
	char dir[128];
	snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", kind);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char path[400], id[400], err[1024];
		struct fgo_plan p;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		char *text = slurp(path), *input = text;
		snprintf(id, sizeof id, "fuzz-replay-%s-%s", kind, e->d_name);
		if (!text) {
			T_CHECK(id, 0, "cannot read %s", path);
			continue;
		}
		if (strcmp(kind, "csv") == 0 && *input)
			input++;
		else if (strcmp(kind, "dataset") == 0 && *input)
			input[0] = '[';
		int rc = spec_parse(as, input, NULL, NULL, &p, err, sizeof err);
		if (rc == FGO_OK)
			plan_free(&p);
		T_CHECK(id,
			rc == FGO_OK ||
				(rc == FGO_EUSAGE && strncmp(err, as, strlen(as)) == 0 && !strchr(err, '\n')),
			"rc %d, message \"%s\"", rc, err);
		free(text);
	}
	closedir(d);
}

int main(void)
{
	for (size_t i = 0; i < FGO_ARRAY_SIZE(findings); i++)
		check_finding("f.json", &findings[i]);
	for (size_t i = 0; i < FGO_ARRAY_SIZE(csv_findings); i++)
		check_finding("f.csv", &csv_findings[i]);
	replay("spec", "fuzz.json");
	replay("csv", "fuzz.csv");
	replay("dataset", "fuzz.json");
	T_DONE();
}
