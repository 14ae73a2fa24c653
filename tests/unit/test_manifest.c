/* test_manifest.c: a user kernel's manifest (src/spec/spec_manifest.h) and
 * what fgobench makes of it (src/user/user.h): the fields read, every
 * manifest error with its "PATH:LINE:COL", the configurations a spec with
 * "kernel" expands to (params, source hash, key), the launch and its
 * limits, the layout after the family's, paths joined lexically, and
 * files that are not plain files (a FIFO, a folder, a device) refused at
 * once rather than read. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algo.h"
#include "fgo.h"
#include "spec/spec.h"
#include "spec/spec_manifest.h"
#include "testlib.h"
#include "user/user.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char good[] =
	"{\n"
	"  \"name\": \"mine\",\n"
	"  \"family\": \"all_scatter\",\n"
	"  \"source\": { \"c\": \"k.c\", \"gpu\": \"k.cu\" },\n"
	"  \"headers\": [\"k.h\"],\n"
	"  \"entry\": \"my_kernel\",\n"
	"  \"tunables\": { \"BM\": [32, 64], \"BN\": { \"values\": [16], \"macro\": \"TILE_N\" } },\n"
	"  \"grid\": [\"ceil_div(M, BM)\", \"ceil_div(N / W, BN)\"],\n"
	"  \"block\": 128,\n"
	"  \"shared_memory\": \"BM * BN * 4\",\n"
	"  \"flags\": \"W * ceil_div(M, BM) * ceil_div(N / W, BN)\",\n"
	"  \"workspace\": 1000,\n"
	"  \"modes\": true\n"
	"}\n";

/* The manifest good with `from` replaced by `to` (the first time). */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(good, from);
	size_t n = strlen(good) + strlen(to) + 1;
	char *out = malloc(n);
	if (!at) {
		snprintf(out, n, "%s", good);
		return out;
	}
	snprintf(out, n, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	return out;
}

static void check_good(void)
{
	char path[128], err[1024];
	struct fgo_user_kernel *k = NULL;
	snprintf(path, sizeof path, "%s/m.json", dir);
	int rc = manifest_parse(path, good, &k, err, sizeof err);
	T_CHECK("manifest-1.1", rc == FGO_OK && k, "rc %d: %s", rc, err);
	if (!k)
		return;
	T_EQ_STR("manifest-1.2", k->algorithm, "user:mine");
	T_CHECK("manifest-1.3", k->family && !strcmp(k->family->name, "all_scatter"), "family %s",
		k->family ? k->family->name : "none");
	T_EQ_STR("manifest-1.4", k->entry, "my_kernel");
	T_CHECK("manifest-1.5", k->ntunables == 2 && k->tunable[0].nvalues == 2 &&
					k->tunable[0].values[1] == 64 && !strcmp(k->tunable[1].macro, "TILE_N") &&
					!strcmp(k->tunable[0].macro, "BM"),
		"%d tunables", k->ntunables);
	T_CHECK("manifest-1.6", k->c_text && strstr(k->c_text, "int my_kernel") && k->gpu_text &&
					k->nheaders == 1 && strstr(k->header_text[0], "helper"),
		"sources not read");
	T_CHECK("manifest-1.7", k->modes == 1 && strlen(k->hash) == 16, "modes %d hash %s", k->modes,
		k->hash);
	T_EQ_INT("manifest-1.8", user_combos(k), 2);

	/* registered, a spec with "kernel" expands over its tunables */
	const struct fgo_user_kernel *used = NULL;
	rc = user_kernel_register(k, &used, err, sizeof err);
	T_CHECK("manifest-2.1", rc == FGO_OK && used == k && algo_find("user:mine"), "%s", err);
	char spec[512];
	snprintf(spec, sizeof spec,
		 "{\"kernel\": \"m.json\", \"dtype\": \"fp16\", \"world\": [1, 2],"
		 " \"shapes\": [[100, 64, 32]]}");
	char spec_path[128];
	snprintf(spec_path, sizeof spec_path, "%s/s.json", dir);
	struct fgo_plan plan;
	rc = spec_parse(spec_path, spec, NULL, NULL, &plan, err, sizeof err);
	T_CHECK("manifest-2.2", rc == FGO_OK && plan.count == 4, "rc %d, %zu items: %s", rc,
		rc == FGO_OK ? plan.count : 0, err);
	if (rc != FGO_OK)
		return;
	const struct fgo_config *c = &plan.items[3].cfg;
	T_CHECK("manifest-2.3", !strcmp(c->algorithm, "user:mine") && !strcmp(c->params, "BM=64,BN=16") &&
					!strcmp(c->source_hash, k->hash) && c->world == 2,
		"item 4: %s %s %s w%d", c->algorithm, c->params, c->source_hash, c->world);
	char key[FGO_KEY_MAX];
	config_key(c, key, sizeof key);
	T_CHECK("manifest-2.4", strstr(key, "/u:BM=64,BN=16/src:") && strstr(key, k->hash), "key %s", key);
	T_EQ_INT("manifest-2.5", config_key_sans_source(key), strstr(key, "/src:") - key);
	T_CHECK("manifest-2.6", plan.items[0].valid && plan.items[3].valid, "reasons: %s / %s",
		plan.items[0].reason, plan.items[3].reason);

	struct user_launch l;
	rc = user_launch_of(k, c, &l, err, sizeof err);
	/* M=100 over BM=64: 2; N/W=32 over BN=16: 2 */
	T_CHECK("manifest-3.1", rc == FGO_OK && l.grid[0] == 2 && l.grid[1] == 2 && l.grid[2] == 1 &&
					l.block[0] == 128 && l.block[1] == 1 && l.smem == 64 * 16 * 4 &&
					l.flags == 2 * 2 * 2 && l.workspace == 1000,
		"grid %lldx%lldx%lld block %lld smem %lld flags %lld: %s", l.grid[0], l.grid[1],
		l.grid[2], l.block[0], l.smem, l.flags, err);
	/* the family's heap, then the workspace and the kernel's flags */
	const struct fgo_algo *algo = algo_find("user:mine"), *fam = algo_find("all_scatter");
	struct fgo_layout lay, flay;
	struct fgo_config fc = *c;
	snprintf(fc.algorithm, sizeof fc.algorithm, "all_scatter");
	fc.params[0] = fc.source_hash[0] = 0;
	algo->layout(c, 1, &lay);
	fam->layout(&fc, 1, &flay);
	T_CHECK("manifest-3.2", lay.c.offset == flay.c.offset && lay.b.col0 == flay.b.col0 &&
					lay.workspace_offset >= flay.heap_bytes && lay.workspace_bytes == 1000 &&
					lay.flags_offset >= lay.workspace_offset + 1000 && lay.flags_count == 8 &&
					lay.heap_bytes >= lay.flags_offset + 32,
		"workspace %zu+%zu flags %zu+%zu heap %zu (family %zu)", lay.workspace_offset,
		lay.workspace_bytes, lay.flags_offset, lay.flags_count, lay.heap_bytes,
		flay.heap_bytes);
	/* the macros of a compile: the tunables', FGO_DTYPE, FGO_MODE; the
	 * problem's only with "shape_macros" */
	struct user_define d[USER_DEFINES_MAX];
	int nd = user_defines(k, c, 2, d, err, sizeof err);
	T_CHECK("manifest-3.8", nd == 4 && !strcmp(d[0].name, "BM") && d[0].value == 64 &&
					!strcmp(d[1].name, "TILE_N") && d[1].value == 16 &&
					!strcmp(d[2].name, "FGO_DTYPE") && d[2].value == FGO_FP16 &&
					!strcmp(d[3].name, "FGO_MODE") && d[3].value == 2,
		"%d macros: %s", nd, err);
	k->shape_macros = 1;
	nd = user_defines(k, c, 0, d, err, sizeof err);
	T_CHECK("manifest-3.9", nd == 8 && !strcmp(d[4].name, "FGO_M") && d[4].value == 100 &&
					!strcmp(d[5].name, "FGO_N") && d[5].value == 64 &&
					!strcmp(d[6].name, "FGO_K") && d[6].value == 32 &&
					!strcmp(d[7].name, "FGO_W") && d[7].value == 2 && !strcmp(d[7].suffix, "L"),
		"%d macros: %s", nd, err);
	k->shape_macros = 0;
	T_CHECK("manifest-3.3", algo->fused_only == 0 && algo->needs_comm && algo->manifest &&
					!strcmp(algo->family, "all_scatter"),
		"fused_only %d", algo->fused_only);
	/* the family's divisibility holds, its tile rules do not */
	struct fgo_config odd = *c;
	odd.n = 65;
	char why[256];
	T_CHECK("manifest-3.4", config_validate(&odd, why, sizeof why) && strstr(why, "not divisible"),
		"got \"%s\"", why);
	odd = *c;
	odd.m = 8; /* smaller than BM: the kernel's own affair */
	T_CHECK("manifest-3.5", !config_validate(&odd, why, sizeof why), "refused: %s", why);
	/* the same manifest again is the same kernel; another with the name is not */
	struct fgo_user_kernel *again = NULL;
	manifest_parse(path, good, &again, err, sizeof err);
	rc = again ? user_kernel_register(again, &used, err, sizeof err) : FGO_EFAIL;
	T_CHECK("manifest-3.6", rc == FGO_OK && used == k, "rc %d: %s", rc, err);
	char *other = edit("\"block\": 128", "\"block\": 64");
	manifest_parse(path, other, &again, err, sizeof err);
	rc = again ? user_kernel_register(again, &used, err, sizeof err) : FGO_EFAIL;
	T_CHECK("manifest-3.7", rc == FGO_EUSAGE && strstr(err, "was read already"), "rc %d: %s", rc, err);
	user_kernel_free(rc == FGO_OK ? NULL : again);
	free(other);
	plan_free(&plan);
}

/* Each case: the manifest good with one edit, the position and message. */
static const struct {
	const char *id, *from, *to, *where, *what;
} errors[] = {
	{ "manifest-4.1", "\"flags\"", "\"flagz\"", ":11:3:", "unknown key \"flagz\" (did you mean \"flags\"?)" },
	{ "manifest-4.2", "ceil_div(M, BM)\"", "ceil_div(M, BK)\"", ":8:25:", "unknown name \"BK\"" },
	{ "manifest-4.3", "\"all_scatter\"", "\"all_scater\"", ":3:13:", "unknown family \"all_scater\" (did you mean \"all_scatter\"?" },
	{ "manifest-4.4", "\"k.c\"", "\"nothere.c\"", ":4:20:", "cannot read" },
	{ "manifest-4.5", "\"my_kernel\"", "\"my kernel\"", ":6:12:", "C identifier" },
	{ "manifest-4.6", "[32, 64]", "[32, 32]", ":7:28:", "lists 32 twice" },
	{ "manifest-4.7", "\"BM\": [", "\"M\": [", ":7:17:", "tunable name \"M\"" },
	{ "manifest-4.8", "\"TILE_N\"", "\"FGO_MODE\"", ":7:66:", "not FGO_*" },
	{ "manifest-4.9", "\"mine\"", "\"mine; rm -rf\"", ":2:11:", "letters, digits" },
	{ "manifest-4.10", "\"block\": 128", "\"block\": \"128 +\"", ":9:18:", "expected a number, a name or '('" },
	{ "manifest-4.11", "\"modes\": true", "\"modes\": 1", ":13:12:", "\"modes\" expects true" },
	{ "manifest-4.12", "\"entry\": \"my_kernel\",\n", "", ": missing \"entry\"", "" },
	{ "manifest-4.13", "\"workspace\": 1000", "\"workspace\": 1.5", ":12:16:", "an integer or an expression" },
	{ "manifest-4.14", "\"modes\": true\n", "\"modes\": true,\n", ":13:16:", "trailing comma" },
	{ "manifest-4.15", "\"gpu\": \"k.cu\"", "\"cuda\": \"k.cu\"", ":4:27:", "unknown source \"cuda\"" },
	{ "manifest-4.16", "\"headers\": [\"k.h\"]", "\"headers\": [\"k.h\"], \"name\": \"x\"", ":5:23:", "duplicate key \"name\"" },
	{ "manifest-4.18", "\"modes\": true", "\"modes\": true, \"shape_macros\": \"yes\"", ":13:34:", "\"shape_macros\" expects true" },
	{ "manifest-4.19", "\"BM\": [", "\"W\": [", ":7:17:", "tunable name \"W\"" },
	{ "manifest-4.20", "\"BM\": [", "\"ceil_div\": [", ":7:17:", "tunable name \"ceil_div\"" },
	{ "manifest-4.17", "[\"ceil_div(M, BM)\", \"ceil_div(N / W, BN)\"]", "[1, 2, 3, 4]", ":8:11:", "a list of 1 to 3" },
};

static void check_errors(void)
{
	char path[128], err[1024];
	snprintf(path, sizeof path, "%s/bad.json", dir);
	for (size_t i = 0; i < FGO_ARRAY_SIZE(errors); i++) {
		char *text = edit(errors[i].from, errors[i].to);
		struct fgo_user_kernel *k = NULL;
		err[0] = 0;
		int rc = manifest_parse(path, text, &k, err, sizeof err);
		T_CHECK(errors[i].id,
			rc == FGO_EUSAGE && !k && !strncmp(err, path, strlen(path)) &&
				strstr(err, errors[i].where) && strstr(err, errors[i].what),
			"expected \"%s\" and \"%s\", got rc %d \"%s\"", errors[i].where, errors[i].what,
			rc, err);
		user_kernel_free(k);
		free(text);
	}
	/* a spec naming a kernel and a built-in tunable, or a kernel not there */
	struct fgo_plan plan;
	char spec_path[128];
	snprintf(spec_path, sizeof spec_path, "%s/s.json", dir);
	int rc = spec_parse(spec_path, "{\"kernel\": \"m.json\", \"BLK_M\": 64, \"m\": 64, \"n\": 64, \"k\": 64}",
			    NULL, NULL, &plan, err, sizeof err);
	T_CHECK("manifest-5.1", rc == FGO_EUSAGE && strstr(err, "s.json:1:22: \"BLK_M\" does not apply"),
		"got \"%s\"", err);
	rc = spec_parse(spec_path, "{\"kernel\": \"gone.json\", \"m\": 64, \"n\": 64, \"k\": 64}", NULL, NULL,
			&plan, err, sizeof err);
	T_CHECK("manifest-5.2", rc == FGO_EUSAGE && strstr(err, "s.json:1:12: cannot read the kernel's"
								" manifest"), "got \"%s\"", err);
	/* --kernel: the file's algorithm and tunables are left out */
	struct fgo_config base;
	struct fgo_config_mask set;
	char manifest[128];
	config_defaults(&base);
	memset(&set, 0, sizeof set);
	snprintf(manifest, sizeof manifest, "%s/m.json", dir);
	set.kernel = manifest;
	rc = spec_parse(spec_path, "{\"algorithm\": \"all_scatter\", \"BLK_M\": [16, 32], \"m\": 64,"
				   " \"n\": 64, \"k\": 64, \"world\": 2}", &base, &set, &plan, err, sizeof err);
	T_CHECK("manifest-5.3", rc == FGO_OK && plan.count == 2 &&
					!strcmp(plan.items[0].cfg.algorithm, "user:mine"),
		"rc %d: %s", rc, err);
	if (rc == FGO_OK)
		plan_free(&plan);
}

/* manifest-6: the limits of user.h, each at its value (accepted, all of it
 * read) and one past it (refused, naming the limit): 8 tunables, 8
 * headers, 64 values of a tunable. The numbers are written here, not taken
 * from the macros, so a changed limit is a failing test to update. */
static void check_limits(void)
{
	char path[128], err[1024], buf[2048], one[64];
	struct fgo_user_kernel *k;
	int rc;
	snprintf(path, sizeof path, "%s/lim.json", dir);

	/* BM and BN (the grid uses them) and T2 .. T7: 8 tunables; then T8 */
	for (int extra = 6; extra <= 7; extra++) {
		snprintf(buf, sizeof buf, "\"BM\": [32, 64], \"BN\": { \"values\": [16], \"macro\": \"TILE_N\" }");
		for (int i = 2; i < 2 + extra; i++) {
			snprintf(one, sizeof one, ", \"T%d\": [%d]", i, i);
			strncat(buf, one, sizeof buf - strlen(buf) - 1);
		}
		char *text = edit("\"BM\": [32, 64], \"BN\": { \"values\": [16], \"macro\": \"TILE_N\" }", buf);
		k = NULL;
		err[0] = 0;
		rc = manifest_parse(path, text, &k, err, sizeof err);
		if (extra == 6)
			T_CHECK("manifest-6.1 8 tunables accepted", rc == FGO_OK && k && k->ntunables == 8 &&
				!strcmp(k->tunable[7].name, "T7") && k->tunable[7].values[0] == 7,
				"rc %d, %d tunables: %s", rc, k ? k->ntunables : -1, err);
		else
			T_CHECK("manifest-6.2 9 tunables refused", rc == FGO_EUSAGE && !k &&
				strstr(err, ":7:15: more than 8 tunables"), "rc %d: %s", rc, err);
		user_kernel_free(k);
		free(text);
	}

	/* 8 header files, then 9 */
	for (int n = 8; n <= 9; n++) {
		snprintf(buf, sizeof buf, "\"headers\": [");
		for (int i = 0; i < n; i++) {
			snprintf(one, sizeof one, "h%d.h", i);
			write_file(one, "/* a header */\n");
			snprintf(one, sizeof one, "%s\"h%d.h\"", i ? ", " : "", i);
			strncat(buf, one, sizeof buf - strlen(buf) - 1);
		}
		strncat(buf, "]", sizeof buf - strlen(buf) - 1);
		char *text = edit("\"headers\": [\"k.h\"]", buf);
		k = NULL;
		err[0] = 0;
		rc = manifest_parse(path, text, &k, err, sizeof err);
		if (n == 8)
			T_CHECK("manifest-6.3 8 headers accepted", rc == FGO_OK && k && k->nheaders == 8 &&
				k->header_text[7] && strstr(k->header_text[7], "a header"),
				"rc %d, %d headers: %s", rc, k ? k->nheaders : -1, err);
		else
			T_CHECK("manifest-6.4 9 headers refused", rc == FGO_EUSAGE && !k &&
				strstr(err, ":5:14: \"headers\" expects a list of up to 8 paths"),
				"rc %d: %s", rc, err);
		user_kernel_free(k);
		free(text);
	}
	for (int i = 0; i < 9; i++) {
		char p[128];
		snprintf(p, sizeof p, "%s/h%d.h", dir, i);
		unlink(p);
	}

	/* BM with 64 values (16, 32, .. 1024: the grid divides by it), then 65 */
	for (int n = 64; n <= 65; n++) {
		snprintf(buf, sizeof buf, "\"BM\": [");
		for (int i = 1; i <= n; i++) {
			snprintf(one, sizeof one, "%s%d", i > 1 ? ", " : "", 16 * i);
			strncat(buf, one, sizeof buf - strlen(buf) - 1);
		}
		strncat(buf, "]", sizeof buf - strlen(buf) - 1);
		char *text = edit("\"BM\": [32, 64]", buf);
		k = NULL;
		err[0] = 0;
		rc = manifest_parse(path, text, &k, err, sizeof err);
		if (n == 64)
			T_CHECK("manifest-6.5 64 values accepted", rc == FGO_OK && k &&
				k->tunable[0].nvalues == 64 && k->tunable[0].values[63] == 1024,
				"rc %d, %d values: %s", rc, k ? k->tunable[0].nvalues : -1, err);
		else
			T_CHECK("manifest-6.6 65 values refused", rc == FGO_EUSAGE && !k &&
				strstr(err, ":7:23: tunable \"BM\" expects a list of 1 to 64 integers"),
				"rc %d: %s", rc, err);
		user_kernel_free(k);
		free(text);
	}
}

/* text with `from` replaced by `to` (the first time), malloc'd */
static char *replace_in(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text) + strlen(to) + 1;
	char *out = malloc(n);
	if (!at)
		snprintf(out, n, "%s", text);
	else
		snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

/* manifest-7: a launch at the limits every backend holds it to (user.h: an
 * H100's 1024 threads a CTA and 232448 bytes of shared memory) runs; more
 * threads or one byte more is refused with the number. The block is BM x
 * 8 by 2 threads (BM 64: 1024; 65: 1040, each side within its own limit)
 * and the shared memory 232448 + BN - 16 bytes (BN 16: 232448; 17: one
 * more). */
static void check_launch_limits(void)
{
	char path[128], err[1024];
	char *a = replace_in(good, "\"BM\": [32, 64]", "\"BM\": [64, 65]");
	char *b = replace_in(a, "\"values\": [16]", "\"values\": [16, 17]");
	char *c = replace_in(b, "\"block\": 128", "\"block\": [\"BM * 8\", 2]");
	char *text = replace_in(c, "\"BM * BN * 4\"", "\"232448 + BN - 16\"");
	struct fgo_user_kernel *k = NULL;
	snprintf(path, sizeof path, "%s/limits.json", dir);
	int rc = manifest_parse(path, text, &k, err, sizeof err);
	T_CHECK("manifest-7.1 parsed", rc == FGO_OK && k, "rc %d: %s", rc, err);
	if (k) {
		static const struct {
			const char *id, *params, *want; /* want: NULL runs, else in the refusal */
		} cases[] = {
			{ "manifest-7.2 1024 threads and 232448 bytes run", "BM=64,BN=16", NULL },
			{ "manifest-7.3 1040 threads refused", "BM=65,BN=16", "1040 threads a CTA" },
			{ "manifest-7.4 232449 bytes refused", "BM=64,BN=17", "232449 bytes" },
		};
		for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
			struct fgo_config cfg;
			struct user_launch l;
			config_defaults(&cfg);
			snprintf(cfg.algorithm, sizeof cfg.algorithm, "%s", k->algorithm);
			snprintf(cfg.params, sizeof cfg.params, "%s", cases[i].params);
			cfg.world = 2;
			cfg.m = 128;
			cfg.n = 64;
			cfg.k = 32;
			err[0] = 0;
			rc = user_launch_of(k, &cfg, &l, err, sizeof err);
			if (!cases[i].want)
				T_CHECK(cases[i].id, rc == FGO_OK && l.block[0] * l.block[1] == 1024 &&
					l.smem == 232448, "rc %d block %lldx%lld smem %lld: %s", rc,
					l.block[0], l.block[1], l.smem, err);
			else
				T_CHECK(cases[i].id, rc == FGO_EUSAGE && strstr(err, cases[i].want),
					"rc %d: %s", rc, err);
		}
	}
	user_kernel_free(k);
	free(a);
	free(b);
	free(c);
	free(text);
}

static void check_paths(void)
{
	static const struct {
		const char *id, *path, *want;
	} cases[] = {
		{ "path-1.1", "sweeps/../kernels/user/m.json", "kernels/user/m.json" },
		{ "path-1.2", "k.c", "k.c" },
		{ "path-1.3", "/a/b/./c/../d.c", "/a/b/d.c" },
		{ "path-1.4", "a/../../k.c", "../k.c" },
		{ "path-1.5", "/abs/k.c", "/abs/k.c" },
		{ "path-1.6", "a//b/k.c", "a/b/k.c" },
		{ "path-1.7", "/../../k.c", "/k.c" },
	};
	char out[256], file[128], want[256];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		manifest_path_clean(cases[i].path, out, sizeof out);
		T_EQ_STR(cases[i].id, out, cases[i].want);
	}
	/* joined: the short form where it is the same file, not through a link
	 * to a folder elsewhere (a clone's sweeps/ linked to another's) */
	char sub[128], link[128];
	snprintf(sub, sizeof sub, "%s/sub", dir);
	snprintf(link, sizeof link, "%s/sub/up", dir);
	mkdir(sub, 0700);
	snprintf(file, sizeof file, "%s/sub/../m.json", dir);
	manifest_path_join(file, "k.c", out, sizeof out);
	snprintf(want, sizeof want, "%s/k.c", dir);
	T_EQ_STR("path-2.1", out, want);
	if (symlink("/tmp", link) == 0) {
		snprintf(file, sizeof file, "%s/sub/up/x.json", dir);
		manifest_path_join(file, "../k.c", out, sizeof out);
		snprintf(want, sizeof want, "%s/sub/up/../k.c", dir); /* /tmp/../k.c, not sub/k.c */
		T_EQ_STR("path-2.2", out, want);
		unlink(link);
	}
	rmdir(sub);
}

/* A FIFO as manifest, source or header would block forever, a folder read
 * as "larger than 16 MiB", a device never end: each is refused, named.
 * (An alarm ends a test that blocks: a failure, not a hang.) */
static void check_not_files(void)
{
	char path[128], fifo[128], folder[128], err[1024];
	struct fgo_user_kernel *k = NULL;
	snprintf(path, sizeof path, "%s/m.json", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(folder, sizeof folder, "%s/folder.c", dir);
	if (mkfifo(fifo, 0600) != 0 || mkdir(folder, 0700) != 0) {
		T_CHECK("manifest-6.0", 0, "cannot make a FIFO and a folder in %s", dir);
		return;
	}
	alarm(20);
	int rc = manifest_load(fifo, &k, err, sizeof err);
	T_CHECK("manifest-6.1", rc == FGO_EUSAGE && !k &&
					strstr(err, "fifo: cannot read the kernel's manifest: it is a FIFO (a named pipe),"
						    " not a plain file"),
		"rc %d: %s", rc, err);
	static const struct {
		const char *id, *from, *to, *what;
	} cases[] = {
		{ "manifest-6.2", "\"k.c\"", "\"fifo\"", ":4:20: cannot read %s/fifo: it is a FIFO (a named pipe), not a plain file" },
		{ "manifest-6.3", "\"k.h\"", "\"fifo\"", ":5:15: cannot read %s/fifo: it is a FIFO" },
		{ "manifest-6.4", "\"k.c\"", "\"folder.c\"", ":4:20: cannot read %s/folder.c: it is a folder, not a file" },
		{ "manifest-6.5", "\"k.cu\"", "\"/dev/zero\"", ": cannot read /dev/zero: it is a device, not a plain file" },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		char *text = edit(cases[i].from, cases[i].to), want[256];
		snprintf(want, sizeof want, cases[i].what, dir);
		k = NULL;
		err[0] = 0;
		rc = manifest_parse(path, text, &k, err, sizeof err);
		T_CHECK(cases[i].id, rc == FGO_EUSAGE && !k && strstr(err, want), "expected \"%s\", got rc %d \"%s\"",
			want, rc, err);
		user_kernel_free(k);
		free(text);
	}
	alarm(0);
	unlink(fifo);
	rmdir(folder);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/fgobench-manifest.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("FAIL manifest-0: cannot make a folder\n");
		return 1;
	}
	write_file("k.c", "#include \"k.h\"\nint my_kernel(void) { return 0; }\n");
	write_file("k.cu", "extern \"C\" __global__ void my_kernel() {}\n");
	write_file("k.h", "/* helper */\n");
	write_file("m.json", good);
	check_good();
	check_errors();
	check_limits();
	check_launch_limits();
	check_paths();
	check_not_files();
	const char *files[] = { "k.c", "k.cu", "k.h", "m.json" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(files); i++) {
		char p[128];
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
	T_DONE();
}
