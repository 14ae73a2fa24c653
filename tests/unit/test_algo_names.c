/* test_algo_names.c: algo_resolve (src/algos/registry.c), the one reading of
 * an algorithm name that flags, specs and datasets share: the registered
 * names, the field's spellings where they name one algorithm, a family that
 * names several listed, anything else a "did you mean". */
#include "algo.h"
#include "testlib.h"

/* One case a line: what is typed, the algorithm meant (NULL: none), and a
 * piece of the message when none. */
static const struct {
	const char *id, *typed, *want, *why;
} cases[] = {
	{ "names-1.1", "all_scatter", "all_scatter", NULL },
	{ "names-1.2", "all_reduce_one_shot", "all_reduce_one_shot", NULL },
	{ "names-1.3", "gemm", "gemm", NULL },
	/* case and separators */
	{ "names-2.1", "All_Reduce_One_Shot", "all_reduce_one_shot", NULL },
	{ "names-2.2", "all-reduce-two-shot", "all_reduce_two_shot", NULL },
	{ "names-2.3", "ALL-SCATTER", "all_scatter", NULL },
	{ "names-2.4", "AllGatherGemmPush", "all_gather_gemm_push", NULL },
	{ "names-2.5", "all reduce one-shot", "all_reduce_one_shot", NULL },
	{ "names-2.6", "allreduce_oneshot", "all_reduce_one_shot", NULL },
	{ "names-2.7", "sk-all-scatter", "sk_all_scatter", NULL },
	/* the field's short names, where one algorithm is meant */
	{ "names-3.1", "gemm_rs", "reduce_scatter", NULL },
	{ "names-3.2", "GEMM+RS", "reduce_scatter", NULL },
	{ "names-3.3", "gemm_reduce_scatter", "reduce_scatter", NULL },
	{ "names-3.4", "matmul_reduce_scatter", "reduce_scatter", NULL },
	{ "names-3.5", "gemm_as", "all_scatter", NULL },
	{ "names-3.6", "gemm_all_scatter", "all_scatter", NULL },
	{ "names-3.7", "ag_gemm_pull", "all_gather_gemm_pull", NULL },
	{ "names-3.8", "allgather_gemm_push", "all_gather_gemm_push", NULL },
	{ "names-3.9", "all_gather_matmul_push", "all_gather_gemm_push", NULL },
	{ "names-3.10", "stream-k-all-reduce", "sk_all_reduce", NULL },
	{ "names-3.11", "streamk_all_scatter", "sk_all_scatter", NULL },
	{ "names-3.12", "gemm_ar_one_shot", "all_reduce_one_shot", NULL },
	{ "names-3.13", "ar-2shot", "all_reduce_two_shot", NULL },
	/* a family names several: listed, never guessed */
	{ "names-4.1", "all_reduce", NULL,
	  "ambiguous algorithm \"all_reduce\" (give one of all_reduce_one_shot, all_reduce_two_shot)" },
	{ "names-4.2", "all_gather_gemm", NULL,
	  "ambiguous algorithm \"all_gather_gemm\" (give one of all_gather_gemm_pull,"
	  " all_gather_gemm_push)" },
	{ "names-4.3", "allgather_gemm", NULL, "all_gather_gemm_pull, all_gather_gemm_push)" },
	{ "names-4.4", "ag_gemm", NULL, "all_gather_gemm_pull, all_gather_gemm_push)" },
	{ "names-4.5", "gemm_ar", NULL, "all_reduce_one_shot, all_reduce_two_shot)" },
	{ "names-4.6", "All-Reduce", NULL, "ambiguous algorithm \"All-Reduce\"" },
	{ "names-4.7", "sk", NULL, "sk_all_reduce, sk_all_scatter)" },
	/* a prefix of one name is suggested, not taken */
	{ "names-5.1", "all_reduce_one", NULL,
	  "unknown algorithm \"all_reduce_one\" (did you mean \"all_reduce_one_shot\"?)" },
	{ "names-5.2", "all_scater", NULL,
	  "unknown algorithm \"all_scater\" (did you mean \"all_scatter\"?)" },
	{ "names-5.3", "zzzzzzzzzz", NULL, "unknown algorithm \"zzzzzzzzzz\" (`fgobench info` lists them)" },
	{ "names-5.4", "", NULL, "unknown algorithm \"\"" },
	{ "names-5.5", "scatter", NULL, "(did you mean \"all_scatter\"?)" },
	{ "names-5.6", "gemm_gemm", NULL, "unknown algorithm \"gemm_gemm\"" },
	{ "names-5.7", "___", NULL, "unknown algorithm \"___\"" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char why[512] = "unset";
		const struct fgo_algo *a = algo_resolve(cases[i].typed, why, sizeof why);
		if (cases[i].want) {
			T_CHECK(cases[i].id, a && !strcmp(a->name, cases[i].want) && !why[0],
				"\"%s\": expected %s, got %s (%s)", cases[i].typed, cases[i].want,
				a ? a->name : "none", why);
		} else {
			T_CHECK(cases[i].id, !a && strstr(why, cases[i].why),
				"\"%s\": expected none with \"%s\", got %s (%s)", cases[i].typed,
				cases[i].why, a ? a->name : "none", why);
		}
	}
	/* every registered name is itself, in any case */
	for (int i = 0; fgo_algos[i]; i++) {
		char upper[64], id[96];
		size_t n = 0;
		for (const char *p = fgo_algos[i]->name; *p && n + 1 < sizeof upper; p++)
			upper[n++] = *p == '_' ? '-' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		upper[n] = '\0';
		snprintf(id, sizeof id, "names-6-%s", fgo_algos[i]->name);
		T_CHECK(id, algo_resolve(fgo_algos[i]->name, NULL, 0) == fgo_algos[i] &&
				    algo_resolve(upper, NULL, 0) == fgo_algos[i],
			"%s or %s did not resolve to itself", fgo_algos[i]->name, upper);
	}
	/* no room for the message: still the answer, nothing written */
	T_CHECK("names-7.1", algo_resolve("gemm_rs", NULL, 0) == algo_find("reduce_scatter"),
		"gemm_rs without a message buffer");
	T_CHECK("names-7.2", algo_resolve(NULL, NULL, 0) == NULL, "NULL name");
	char tiny[8];
	T_CHECK("names-7.3", !algo_resolve("all_reduce", tiny, sizeof tiny) && strlen(tiny) < sizeof tiny,
		"a short buffer holds \"%s\"", tiny);
	T_DONE();
}
