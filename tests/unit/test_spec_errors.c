/* test_spec_errors.c: the field's JSON and CSV datasets read by spec_parse,
 * every spec and dataset error with its "PATH:LINE:COL" position, and
 * invalid configurations kept in the plan with their reason. */
#include "spec_fixture.h"

static void check_datasets(void)
{
	struct fgo_plan p;
	struct fgo_config base;
	struct fgo_config_mask mask;

	config_defaults(&base);
	snprintf(base.algorithm, sizeof base.algorithm, "gemm");
	base.world = 4;
	base.blk_n = 32;
	base.comm_sms = 2;
	const char *json =
		"[\n"
		"  {\"m\": 128, \"n\": 256, \"k\": 64, \"num_sms\": 4, \"datatype\": \"bf16\"},\n"
		"  {\"M\": 64, \"N\": 64, \"K\": 64, \"BLK_M\": 32, \"gsize_m\": 4},\n"
		"  {\"m\": 128, \"n\": 256, \"k\": 64, \"num_sms\": 4, \"datatype\": \"bf16\"}\n"
		"]\n";
	if (parse_ok("dataset-json-parse", "data/shapes.json", json, &base, NULL, &p)) {
		T_EQ_INT("dataset-json-count", p.count, 2); /* row 3 repeats row 1 */
		if (p.count == 2) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg;
			T_CHECK("dataset-json-shape", a->m == 128 && a->n == 256 && a->k == 64,
				"row 1: %ldx%ldx%ld", a->m, a->n, a->k);
			T_EQ_INT("dataset-json-num_sms", a->gemm_sms, 4);
			T_EQ_INT("dataset-json-datatype", a->dtype, FGO_BF16);
			T_CHECK("dataset-json-base-fields",
				!strcmp(a->algorithm, "gemm") && a->world == 4 && a->blk_m == 64 &&
					a->blk_n == 32 && a->comm_sms == 2,
				"row 1 from base: %s w%d BLK_M %d BLK_N %d comm_sms %d", a->algorithm,
				a->world, a->blk_m, a->blk_n, a->comm_sms);
			T_CHECK("dataset-json-row2",
				b->m == 64 && b->blk_m == 32 && b->gsize_m == 4 && b->gemm_sms == 0 &&
					b->dtype == FGO_FP16,
				"row 2: m%ld BLK_M %d gsize_m %d gemm_sms %d dtype %d", b->m, b->blk_m,
				b->gsize_m, b->gemm_sms, (int)b->dtype);
		}
		T_EQ_STR("dataset-json-name", p.name, "shapes");
		T_EQ_INT("dataset-json-max_world", p.max_world, 4);
		plan_free(&p);
	}
	/* A flag beats the file's datatype. */
	base.dtype = FGO_FP32;
	memset(&mask, 0, sizeof mask);
	mask.dtype = 1;
	if (parse_ok("dataset-json-flag-parse", "shapes.json", json, &base, &mask, &p)) {
		T_CHECK("dataset-json-flag-dtype",
			p.count == 2 && p.items[0].cfg.dtype == FGO_FP32 &&
				p.items[1].cfg.dtype == FGO_FP32,
			"%zu items, dtypes %d %d", p.count, p.count ? (int)p.items[0].cfg.dtype : -1,
			p.count > 1 ? (int)p.items[1].cfg.dtype : -1);
		plan_free(&p);
	}
	/* Flags giving m, n and k let rows leave them out. */
	config_defaults(&base);
	base.m = base.n = base.k = 96;
	memset(&mask, 0, sizeof mask);
	mask.m = mask.n = mask.k = 1;
	if (parse_ok("dataset-json-flag-dims-parse", "s.json", "[{\"BLK_M\": 16}, {\"BLK_M\": 32}]",
		     &base, &mask, &p)) {
		T_CHECK("dataset-json-flag-dims",
			p.count == 2 && p.items[0].cfg.m == 96 && p.items[1].cfg.k == 96 &&
				p.items[1].cfg.blk_m == 32,
			"%zu items", p.count);
		plan_free(&p);
	}

	/* CSV, header form 1. */
	config_defaults(&base);
	snprintf(base.algorithm, sizeof base.algorithm, "all_reduce_one_shot");
	base.blk_k = 64;
	if (parse_ok("csv-form1-parse", "d.csv", "m,n,k,datatype\n128,256,64,bf16\n64,64,64,fp32\n",
		     &base, NULL, &p)) {
		T_EQ_INT("csv-form1-count", p.count, 2);
		if (p.count == 2) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg;
			T_CHECK("csv-form1-row1",
				a->m == 128 && a->n == 256 && a->k == 64 && a->dtype == FGO_BF16,
				"row 1: %ldx%ldx%ld dtype %d", a->m, a->n, a->k, (int)a->dtype);
			T_CHECK("csv-form1-row2", b->m == 64 && b->dtype == FGO_FP32,
				"row 2: m%ld dtype %d", b->m, (int)b->dtype);
			T_CHECK("csv-form1-base",
				!strcmp(a->algorithm, "all_reduce_one_shot") && a->blk_k == 64 &&
					b->blk_m == 64,
				"from base: %s BLK_K %d", a->algorithm, a->blk_k);
		}
		T_EQ_STR("csv-form1-name", p.name, "d");
		plan_free(&p);
	}
	/* CSV, header form 2. */
	if (parse_ok("csv-form2-parse", "d.csv",
		     "m,n,k,blk_m,blk_n,blk_k,gemm_sms,comm_sms\n"
		     "256,256,256,32,64,32,6,2\n"
		     "512,256,128,64,128,64,0,0\n",
		     NULL, NULL, &p)) {
		T_EQ_INT("csv-form2-count", p.count, 2);
		if (p.count == 2) {
			const struct fgo_config *a = &p.items[0].cfg, *b = &p.items[1].cfg;
			T_CHECK("csv-form2-row1",
				a->m == 256 && a->blk_m == 32 && a->blk_n == 64 && a->blk_k == 32 &&
					a->gemm_sms == 6 && a->comm_sms == 2,
				"row 1: m%ld tile %dx%dx%d sms %d+%d", a->m, a->blk_m, a->blk_n,
				a->blk_k, a->gemm_sms, a->comm_sms);
			T_CHECK("csv-form2-row2",
				b->m == 512 && b->k == 128 && b->blk_n == 128 && b->gemm_sms == 0,
				"row 2: m%ld k%ld BLK_N %d gemm_sms %d", b->m, b->k, b->blk_n,
				b->gemm_sms);
			T_CHECK("csv-form2-defaults",
				!strcmp(a->algorithm, "all_scatter") && a->dtype == FGO_FP16 &&
					a->num_stages == 2,
				"defaults: %s dtype %d", a->algorithm, (int)a->dtype);
		}
		plan_free(&p);
	}
	/* Any column order, blanks, CRLF, comments, an upper-case header; the
	 * reader is picked by content when the name is neither .csv nor .json. */
	if (parse_ok("csv-loose-parse", "shapes.txt",
		     "# shapes for the test\r\nK , M , N\r\n\r\n16, 32, 48\r\n  # done\r\n 16 ,32,48\r\n",
		     NULL, NULL, &p)) {
		T_EQ_INT("csv-loose-count", p.count, 1);
		if (p.count == 1)
			T_CHECK("csv-loose-order",
				p.items[0].cfg.k == 16 && p.items[0].cfg.m == 32 && p.items[0].cfg.n == 48,
				"M %ld N %ld K %ld, want 32 48 16", p.items[0].cfg.m, p.items[0].cfg.n,
				p.items[0].cfg.k);
		plan_free(&p);
	}
	/* A UTF-8 byte order mark before the header (CSV) or the object (JSON). */
	if (parse_ok("csv-bom-parse", "d.csv", "\xef\xbb\xbfm,n,k\n32,64,128\n", NULL, NULL, &p)) {
		T_CHECK("csv-bom", p.count == 1 && p.items[0].cfg.m == 32 && p.items[0].cfg.k == 128,
			"%zu items", p.count);
		plan_free(&p);
	}
	if (parse_ok("json-bom-parse", "d.json", "\xef\xbb\xbf{\"algorithm\": \"gemm\", " SHAPE256 "}",
		     NULL, NULL, &p)) {
		T_EQ_INT("json-bom", p.count, 1);
		plan_free(&p);
	}
	/* A CSV flag override: --world 8 for every row. */
	config_defaults(&base);
	base.world = 8;
	memset(&mask, 0, sizeof mask);
	mask.world = 1;
	if (parse_ok("csv-flag-parse", "d.csv", "m,n,k,world\n64,64,64,2\n", &base, &mask, &p)) {
		T_CHECK("csv-flag-world", p.count == 1 && p.items[0].cfg.world == 8, "world %d",
			p.count ? p.items[0].cfg.world : -1);
		plan_free(&p);
	}
}

static void check_errors(void)
{
	/* malformed JSON: "N" 2 (missing colon) on line 3, column 7 */
	expect_error("err-mma-name", "t.json", "{\"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64,\n \"mma\": \"hgmma\"}",
		     "t.json:2:9: ", "unknown \"mma\" \"hgmma\" (use 16, 32 or \"wgmma\")");
	expect_error("err-json-colon", "t.json", "{\n  \"M\": 1,\n  \"N\" 2\n}", "t.json:3:7: ",
		     "malformed JSON");
	expect_error("err-json-comma", "t.json",
		     "{\n  \"algorithm\": \"gemm\"\n  \"M\": 1\n}\n", "t.json:3:3: ", "malformed JSON");
	/* the text ends inside a list: the position is the end of the text */
	expect_error("err-json-unclosed", "t.json", "{\n  \"M\": [1, 2\n", "t.json:3:1: ",
		     "ends early");
	/* a trailing comma is named as such, at the comma (issue 35: it was "the
	 * text ends early" for an object and "near ']'" for a list); a comma in
	 * a string is not one, and a missing value after a comma is not either */
	expect_error("err-json-trailing-comma-object", "t.json",
		     "{\n  \"algorithm\": \"gemm\",\n  \"M\": 64,\n}\n", "t.json:3:10: ",
		     "a comma before '}' with nothing after it (JSON allows no trailing comma");
	expect_error("err-json-trailing-comma-list", "t.json",
		     "{\"name\": \"a,]\", \"M\": [64, 128 ,\n ], \"N\": 1}", "t.json:1:31: ",
		     "a comma before ']' with nothing after it");
	expect_error("err-json-comma-then-end", "t.json", "{\"M\": 64,\n", "t.json:2:1: ",
		     "ends early");
	/* one '}' too many at the very end (no final newline): the text does not
	 * end early, it goes on too long; the message must point at the '}' */
	expect_error("err-json-extra-brace", "t.json",
		     "{\"algorithm\":\"gemm\",\"M\":1,\"N\":2,\"K\":3}}", "t.json:1:39: ",
		     "near '}'");
	expect_error("err-json-not-object", "t.json", "42", "t.json:1:1: ", "got a number");
	expect_error("err-baseline-value", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64,\n \"baseline\": \"twice\"}",
		     "t.json:2:14: ", "\"baseline\" expects \"once\"");

	/* unknown keys, with and without a suggestion */
	expect_error("err-unknown-key", "t.json",
		     "{\n  \"algorithm\": \"gemm\",\n  \"BLK_MM\": 32,\n  \"M\": 64, \"N\": 64, \"K\": 64\n}",
		     "t.json:3:3: ", "unknown key \"BLK_MM\" (did you mean \"BLK_M\"?)");
	expect_error("err-unknown-key-lower", "t.json",
		     "{\"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64, \"blkm\": 32}",
		     "t.json:1:50: ", "did you mean \"BLK_M\"");
	expect_error("err-unknown-key-none", "t.json", "{\"zzzzzz\": 1}", "t.json:1:2: ",
		     "unknown key \"zzzzzz\" (`man fgobench-sweep`");
	/* a UTF-8 byte order mark is not a column: "x" is at column 39 as an
	 * editor shows it */
	expect_error("err-bom-column", "t.json",
		     "\xef\xbb\xbf{\"algorithm\":\"gemm\",\"M\":1,\"N\":2,\"K\":3,\"x\":1}",
		     "t.json:1:39: ", "unknown key \"x\"");
	/* positions count characters, not bytes (é is two bytes, one column) */
	expect_error("err-unknown-key-utf8", "t.json", "{\"description\": \"\xc3\xa9\", \"BLKM\": 1}",
		     "t.json:1:22: ", "did you mean \"BLK_M\"");
	/* strings with escaped quotes and brackets before the error, in a block */
	expect_error("err-block-position", "t.json",
		     "{\"name\": \"a \\\"}{[\", \"algorithm\": \"gemm\", \"M\": 64, \"N\": 64, \"K\": 64,\n"
		     " \"blocks\": [{}, {\"BLK_M\": 16}, {\"BLK_M\": \"x\"}]}",
		     "t.json:2:42: ", "\"BLK_M\" expects an integer, got a string");

	/* wrong types */
	expect_error("err-type-string", "t.json",
		     "{\n  \"M\": \"big\",\n  \"N\": 1, \"K\": 1, \"algorithm\": \"gemm\"\n}",
		     "t.json:2:8: ", "\"M\" expects an integer, got a string");
	expect_error("err-type-fraction", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"BLK_M\": 32.5}", "t.json:1:62: ",
		     "expects an integer, got 32.5");
	expect_error("err-type-algorithm", "t.json", "{\"algorithm\": 5, " SHAPE256 "}",
		     "t.json:1:15: ", "expects an algorithm name, got a number");
	expect_error("err-type-validate", "t.json",
		     "{\"validate\": 1, \"algorithm\": \"gemm\", " SHAPE256 "}", "t.json:1:14: ",
		     "\"validate\" expects true or false");
	expect_error("err-type-range-algorithm", "t.json",
		     "{\"algorithm\": {\"from\": 1, \"to\": 2, \"step\": 1}, " SHAPE256 "}",
		     "t.json:1:15: ", "not a range");

	/* empty list, zero, out-of-range settings */
	expect_error("err-empty-list", "t.json",
		     "{\n  \"BLK_N\": [],\n  \"algorithm\": \"gemm\", " SHAPE256 "\n}", "t.json:2:12: ",
		     "\"BLK_N\" is an empty list");
	expect_error("err-zero", "t.json",
		     "{\n  \"BLK_K\": [32, 0],\n  \"algorithm\": \"gemm\", " SHAPE256 "\n}",
		     "t.json:2:17: ", "\"BLK_K\" must be a positive integer, got 0");
	expect_error("err-zero-world", "t.json", "{\"world\": 0, \"algorithm\": \"gemm\", " SHAPE256 "}",
		     "t.json:1:11: ", "\"world\" must be a positive integer");
	expect_error("err-negative-sms", "t.json",
		     "{\"gemm_sms\": -1, \"algorithm\": \"gemm\", " SHAPE256 "}", "t.json:1:14: ",
		     "\"gemm_sms\" must be >= 0");
	expect_error("err-iterations-zero", "t.json",
		     "{\"iterations\": 0, \"algorithm\": \"gemm\", " SHAPE256 "}", "t.json:1:16: ",
		     "\"iterations\" expects an integer from 1");

	/* unknown algorithm, with a suggestion, inside a list */
	expect_error("err-algorithm", "t.json",
		     "{\n  \"algorithm\": [\"gemm\", \"all_scater\"],\n  " SHAPE256 "\n}",
		     "t.json:2:25: ", "unknown algorithm \"all_scater\" (did you mean \"all_scatter\"?)");
	expect_error("err-dtype", "t.json", "{\"algorithm\": \"gemm\", \"dtype\": \"fp8\", " SHAPE256 "}",
		     "t.json:1:32: ", "unknown dtype \"fp8\"");

	/* ranges */
	expect_error("err-range-backwards", "t.json",
		     "{\n  \"M\": {\"from\": 512, \"to\": 256, \"mul\": 2},\n"
		     "  \"N\": 1, \"K\": 1, \"algorithm\": \"gemm\"\n}",
		     "t.json:2:28: ", "ends (256) before it starts (512)");
	expect_error("err-range-both", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 1, \"K\": 1, "
		     "\"M\": {\"from\": 1, \"to\": 8, \"mul\": 2, \"step\": 1}}",
		     "t.json:1:44: ", "one of \"mul\" or \"step\"");
	expect_error("err-range-mul-1", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 1, \"K\": 1, \"M\": {\"from\": 1, \"to\": 8, \"mul\": 1}}",
		     "t.json:1:72: ", "\"mul\" must be an integer from 2 to 1024");
	expect_error("err-range-key", "t.json",
		     "{\"algorithm\": \"gemm\", \"N\": 1, \"K\": 1, \"M\": {\"from\": 1, \"until\": 8}}",
		     "t.json:1:56: ", "unknown range key \"until\"");

	/* structure */
	expect_error("err-missing-n", "t.json", "{\"algorithm\": \"gemm\", \"M\": 1, \"K\": 1}", "t.json: ",
		     "missing \"N\"");
	expect_error("err-block-missing", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[1, 1, 1]],\n \"blocks\": [{}, {\"M\": 4}]}",
		     "t.json:2:17: ", "this block has no \"N\"");
	expect_error("err-block-not-object", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"blocks\": [[1]]}", "t.json:1:64: ",
		     "a block is an object");
	expect_error("err-block-setting", "t.json",
		     "{\"algorithm\": \"gemm\", " SHAPE256 ", \"blocks\": [{\"iterations\": 3}]}",
		     "t.json:1:65: ", "belongs at the top level");
	expect_error("err-shapes-and-m", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[1, 1, 1]], \"M\": 4}", "t.json:1:46: ",
		     "give either \"shapes\" or \"M\"");
	expect_error("err-shape-pair", "t.json",
		     "{\"algorithm\": \"gemm\", \"shapes\": [[1, 1, 1], [2, 2]]}", "t.json:1:45: ",
		     "a shape is a list [M, N, K]");

	/* datasets (JSON) */
	expect_error("err-dataset-empty", "t.json", "[]", "t.json:1:1: ", "the dataset list is empty");
	expect_error("err-dataset-row", "t.json",
		     "[\n  {\"m\": 1, \"n\": 2, \"k\": 3},\n  {\"m\": 1, \"n\": 2}\n]", "t.json:3:3: ",
		     "needs \"m\", \"n\" and \"k\"");
	expect_error("err-dataset-key", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3, \"blkm\": 16}]",
		     "t.json:1:27: ", "unknown key \"blkm\" (did you mean \"blk_m\"?)");
	expect_error("err-dataset-zero", "t.json", "[{\"m\": 0, \"n\": 2, \"k\": 3}]", "t.json:1:8: ",
		     "\"m\" must be a positive integer");
	expect_error("err-dataset-not-object", "t.json", "[{\"m\": 1, \"n\": 2, \"k\": 3}, 7]",
		     "t.json:1:28: ", "a dataset row is an object");

	/* CSV */
	expect_error("err-csv-field", "t.csv", "m,n,k\n128,128,128\n64,x4,64\n", "t.csv:3:4: ",
		     "N expects an integer, got \"x4\"");
	expect_error("err-csv-field-blanks", "t.csv", "m, n, k\n 1, 2 , 3x\n", "t.csv:2:9: ",
		     "K expects an integer, got \"3x\"");
	expect_error("err-csv-field-after-comments", "t.csv",
		     "# shapes\nm,n,k\n\n128,128,128\n# x\n1,1,z\n", "t.csv:6:5: ",
		     "K expects an integer, got \"z\"");
	expect_error("err-csv-zero", "t.csv", "m,n,k\n0,64,64\n", "t.csv:2:1: ", "M must be between 1");
	expect_error("err-csv-count", "t.csv", "m,n,k\n1,2,3\n1,2\n", "t.csv:3:1: ",
		     "2 fields where the header has 3");
	expect_error("err-csv-dtype", "t.csv", "m,n,k,datatype\n1,2,3,fp8\n", "t.csv:2:7: ",
		     "unknown datatype \"fp8\"");
	/* a row whose first field is empty is a bad row, not a blank line */
	expect_error("err-csv-empty-first-field", "t.csv", "m,n,k\n128,128,128\n,64,64\n",
		     "t.csv:3:1: ", "M expects an integer");
	expect_error("err-csv-column", "t.csv", "m,n,k,blk_mm\n1,1,1,16\n", "t.csv:1:7: ",
		     "unknown column \"blk_mm\" (did you mean \"blk_m\"?)");
	expect_error("err-csv-header-no-k", "t.csv", "\nm,n,blk_k\n1,1,16\n", "t.csv:2:1: ",
		     "must name the columns m, n and k");
	expect_error("err-csv-no-rows", "t.csv", "m,n,k\n", "t.csv: ", "no configurations");

	/* empty files */
	expect_error("err-empty", "t.json", "", "t.json: ", "the file is empty");
	expect_error("err-empty-blanks", "t.json", "  \n\t\n", "t.json: ", "the file is empty");
	expect_error("err-empty-csv", "t.csv", "\n", "t.csv: ", "the file is empty");
}

static void check_invalid_kept(void)
{
	struct fgo_plan p;

	/* reduce_scatter on 3 ranks: M=96 splits, M=100 does not; both stay. */
	if (parse_ok("invalid-divisible-parse", "t.json",
		     "{\"algorithm\": \"reduce_scatter\", \"world\": 3, \"M\": [96, 100], \"N\": 64,"
		     " \"K\": 96, \"BLK_M\": 16, \"BLK_N\": 16, \"BLK_K\": 16}",
		     NULL, NULL, &p)) {
		T_EQ_INT("invalid-divisible-count", p.count, 2);
		if (p.count == 2) {
			T_CHECK("invalid-divisible-good", p.items[0].valid == 1 && !p.items[0].reason[0],
				"M=96 on 3 ranks: valid %d reason \"%s\"", p.items[0].valid,
				p.items[0].reason);
			T_EQ_INT("invalid-divisible-bad", p.items[1].valid, 0);
			T_CONTAINS("invalid-divisible-reason", p.items[1].reason, "divisible");
			T_CONTAINS("invalid-divisible-reason-names", p.items[1].reason, "M=100");
		}
		T_EQ_INT("invalid-divisible-max_world", p.max_world, 3);
		plan_free(&p);
	}

	/* BLK_M larger than M: all_scatter at M=32 takes BLK_M 16 and 32, not 128. */
	if (parse_ok("invalid-exceeds-parse", "t.json",
		     "{\"algorithm\": \"all_scatter\", \"M\": 32, \"N\": 256, \"K\": 64,"
		     " \"BLK_M\": [16, 32, 128]}",
		     NULL, NULL, &p)) {
		T_EQ_INT("invalid-exceeds-count", p.count, 3);
		T_EQ_INT("invalid-exceeds-valid", count_valid(&p), 2);
		if (p.count == 3) {
			T_EQ_INT("invalid-exceeds-bad", p.items[2].valid, 0);
			T_CONTAINS("invalid-exceeds-reason", p.items[2].reason, "exceeds");
			T_CONTAINS("invalid-exceeds-reason-blk", p.items[2].reason, "BLK_M=128");
		}
		plan_free(&p);
	}

	/* Invalid worlds still count towards max_world; Stream-K needs SMs. */
	if (parse_ok("invalid-world-parse", "t.json",
		     "{\"algorithm\": [\"gemm\", \"sk_all_scatter\"], \"world\": [2, 2048], " SHAPE256 "}",
		     NULL, NULL, &p)) {
		T_EQ_INT("invalid-world-count", p.count, 4);
		T_EQ_INT("invalid-world-max_world", p.max_world, 2048);
		T_EQ_INT("invalid-world-valid", count_valid(&p), 1);
		if (p.count == 4) {
			T_CONTAINS("invalid-world-reason", p.items[1].reason, "world=2048");
			T_CONTAINS("invalid-sk-reason", p.items[2].reason, "gemm_sms >= 1");
		}
		plan_free(&p);
	}
}

int main(void)
{
	check_datasets();
	check_errors();
	check_invalid_kept();
	T_DONE();
}
