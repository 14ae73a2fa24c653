/* algos/registry.c: the table of algorithm families, sorted by name, and
 * lookup: exact (algo_find), as people type the names (algo_resolve: case,
 * hyphens, the field's short names, families that name several algorithms),
 * with "did you mean" suggestions. Adding a family: write
 * src/algos/<family>.c filling `const struct fgo_algo algo_<name>`, add the
 * extern and the table entry here (keep the order), add it to tests/mpi/test_algos.c.
 * A user kernel (src/user/) is not in the table: reading its manifest
 * registers it for the process (algo_register). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "schedule.h"

extern const struct fgo_algo algo_all_gather_gemm_pull;
extern const struct fgo_algo algo_all_gather_gemm_push;
extern const struct fgo_algo algo_all_reduce_one_shot;
extern const struct fgo_algo algo_all_reduce_two_shot;
extern const struct fgo_algo algo_all_scatter;
extern const struct fgo_algo algo_gemm;
extern const struct fgo_algo algo_reduce_scatter;
extern const struct fgo_algo algo_sk_all_reduce;
extern const struct fgo_algo algo_sk_all_scatter;

const struct fgo_algo *const fgo_algos[] = {
	&algo_all_gather_gemm_pull,
	&algo_all_gather_gemm_push,
	&algo_all_reduce_one_shot,
	&algo_all_reduce_two_shot,
	&algo_all_scatter,
	&algo_gemm,
	&algo_reduce_scatter,
	&algo_sk_all_reduce,
	&algo_sk_all_scatter,
	NULL,
};

/* What algo_register added: user kernels read in this process. */
static const struct fgo_algo *registered[ALGO_REGISTERED_MAX];
static int nregistered;

const char *const fgo_collective_names[FGO_COLLECTIVES] = {
	"all_gather", "all_reduce", "reduce_scatter",
};

int algo_collective(const struct fgo_config *cfg, size_t sum_elt, enum fgo_collective *kind,
		    double *bytes)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	double elt = (double)dtype_size(cfg->dtype), m = (double)cfg->m;
	if (!algo || !algo->needs_comm || cfg->world < 2)
		return 0;
	switch (algo->space) {
	case FGO_SPACE_K:
		*kind = FGO_COLL_ALL_REDUCE;
		*bytes = m * (double)cfg->n * (double)sum_elt;
		break;
	case FGO_SPACE_K_ROWS:
		*kind = FGO_COLL_REDUCE_SCATTER;
		*bytes = m * (double)cfg->n * (double)sum_elt;
		break;
	case FGO_SPACE_A_ROWS:
		*kind = FGO_COLL_ALL_GATHER;
		*bytes = m * (double)cfg->k * elt;
		break;
	default: /* B_COLS: the W blocks of M x N/W */
		*kind = FGO_COLL_ALL_GATHER;
		*bytes = m * (double)(cfg->n / cfg->world * cfg->world) * elt;
		break;
	}
	return 1;
}

int algo_sk_two_shot(const struct fgo_config *cfg)
{
	return SCHED_SK_TWO_SHOT(cfg->world, (long long)cfg->m * cfg->n * (long long)dtype_size(cfg->dtype));
}

const char *algo_base(const struct fgo_algo *a, const struct fgo_config *cfg)
{
	if (a && a->base_two_shot && algo_sk_two_shot(cfg))
		return a->base_two_shot;
	return a ? a->base : NULL;
}

const struct fgo_algo *algo_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		if (strcmp((*a)->name, name) == 0)
			return *a;
	for (int i = 0; i < nregistered; i++)
		if (strcmp(registered[i]->name, name) == 0)
			return registered[i];
	return NULL;
}

int algo_register(const struct fgo_algo *algo)
{
	if (algo_find(algo->name) || nregistered >= ALGO_REGISTERED_MAX)
		return FGO_EUSAGE;
	registered[nregistered++] = algo;
	return FGO_OK;
}

void algo_gemm_dims(const struct fgo_algo *algo, const struct fgo_config *cfg,
		    struct fgo_gemm_dims *d)
{
	int w = cfg->world > 0 ? cfg->world : 1;
	long mw = cfg->m / w, nw = cfg->n / w, kw = cfg->k / w;

	switch (algo->space) {
	case FGO_SPACE_K:
		*d = (struct fgo_gemm_dims){ cfg->m, cfg->n, kw, kw, cfg->n, 1 };
		break;
	case FGO_SPACE_K_ROWS: { /* W / group blocks of group owners' rows (sched_owner_group) */
		int group = sched_owner_group(w, mw, cfg->blk_m);
		*d = (struct fgo_gemm_dims){ group * mw, cfg->n, kw, kw, cfg->n, w / group };
		break;
	}
	case FGO_SPACE_A_ROWS: { /* the wgmma core: W / group blocks of group sources' rows */
		int group = cfg->mma == FGO_MMA_WGMMA ? sched_owner_group(w, mw, cfg->blk_m) : 1;
		*d = (struct fgo_gemm_dims){ group * mw, nw, cfg->k, cfg->k, nw, w / group };
		break;
	}
	default:
		*d = (struct fgo_gemm_dims){ cfg->m, nw, cfg->k, cfg->k, nw, 1 };
		break;
	}
}

/* The field's spellings, word by word: each word of what was typed (split at
 * _ - + space and dot, lowercased) that is here becomes the words after it.
 * Short names that mean one thing: ag all_gather, ar all_reduce, rs
 * reduce_scatter, as all_scatter; matmul and mm are gemm; streamk is sk. */
static const struct {
	const char *word, *as;
} synonyms[] = {
	{ "ag", "all gather" },        { "allgather", "all gather" },
	{ "ar", "all reduce" },        { "allreduce", "all reduce" },
	{ "rs", "reduce scatter" },    { "reducescatter", "reduce scatter" },
	{ "as", "all scatter" },       { "allscatter", "all scatter" },
	{ "matmul", "gemm" },          { "mm", "gemm" },
	{ "streamk", "sk" },           { "oneshot", "one shot" },
	{ "1shot", "one shot" },       { "twoshot", "two shot" },
	{ "2shot", "two shot" },
};

/* What was typed in the registry's spelling: lowercase words joined by _,
 * synonyms replaced, "stream k" as sk, a leading gemm dropped before other
 * words (GEMM + reduce-scatter is the reduce_scatter family). Returns 0, or
 * -1 when it does not fit len. */
static int algo_normalize(const char *name, char *out, size_t len)
{
	char word[64];
	size_t n = 0, used = 0;
	int words = 0, gemm_first = 0;

	out[0] = '\0';
	for (const char *p = name;; p++) {
		int sep = !*p || *p == '_' || *p == '-' || *p == '+' || *p == ' ' || *p == '.';
		if (!sep) {
			if (n + 1 >= sizeof word)
				return -1;
			word[n++] = (char)tolower((unsigned char)*p);
			if (*p)
				continue;
		}
		word[n] = '\0';
		if (n) {
			const char *as = word;
			for (size_t i = 0; i < FGO_ARRAY_SIZE(synonyms); i++)
				if (!strcmp(word, synonyms[i].word))
					as = synonyms[i].as;
			/* "stream k": the k joins the stream before it */
			if (!strcmp(as, "k") && used >= 6 && !strcmp(out + used - 6, "stream") &&
			    (used == 6 || out[used - 7] == '_')) {
				used -= 6;
				as = "sk";
			} else if (words == 0 && !strcmp(as, "gemm")) {
				gemm_first = 1;
			}
			for (const char *a = as; *a; a++) {
				if (used + 2 >= len)
					return -1;
				if (used && (a == as || *a == ' '))
					out[used++] = '_';
				if (*a != ' ')
					out[used++] = *a;
			}
			out[used] = '\0';
			words++;
		}
		n = 0;
		if (!*p)
			break;
	}
	if (gemm_first && words > 1 && strcmp(out + 5, "gemm") != 0)
		memmove(out, out + 5, used - 4);
	return 0;
}

/* a and b equal once underscores are left out ("allreduceoneshot"). */
static int same_letters(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == '_')
			a++;
		while (*b == '_')
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
	}
}

/* The closest name within edit distance 3; failing that, the first name
 * that starts with or contains what was typed ("scatter" -> "all_scatter"). */
const char *algo_suggest(const char *name)
{
	const char *best = NULL;
	int best_d = 4;

	if (!name || !*name)
		return NULL;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++) {
		int d = edit_distance(name, (*a)->name);
		if (d < best_d) {
			best_d = d;
			best = (*a)->name;
		}
	}
	if (best)
		return best;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		if (strncmp((*a)->name, name, strlen(name)) == 0)
			return (*a)->name;
	for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
		if (strstr((*a)->name, name))
			return (*a)->name;
	return NULL;
}

int algo_is_choice(const char *name)
{
	char norm[256];
	return name && algo_normalize(name, norm, sizeof norm) == 0 && same_letters(norm, ALGO_CHOICE);
}

const struct fgo_algo *algo_resolve(const char *name, char *why, size_t len)
{
	char norm[256];
	const struct fgo_algo *family[FGO_ARRAY_SIZE(fgo_algos)];
	int nfamily = 0;

	if (why && len)
		why[0] = '\0';
	if (!name)
		return NULL;
	if (algo_find(name))
		return algo_find(name);
	if (*name && algo_normalize(name, norm, sizeof norm) == 0 && norm[0]) {
		size_t n = strlen(norm);
		for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
			if (same_letters(norm, (*a)->name))
				return *a;
		/* a family: the words typed are the first words of several names */
		for (const struct fgo_algo *const *a = fgo_algos; *a; a++)
			if (!strncmp((*a)->name, norm, n) && (*a)->name[n] == '_')
				family[nfamily++] = *a;
	} else {
		norm[0] = '\0';
	}
	if (!why || !len)
		return NULL;
	if (nfamily > 1) {
		size_t used = (size_t)snprintf(why, len, "ambiguous algorithm \"%s\" (give one of ", name);
		for (int i = 0; i < nfamily && used < len; i++)
			used += (size_t)snprintf(why + used, len - used, "%s%s", family[i]->name,
						 i + 1 < nfamily ? ", " : ")");
		return NULL;
	}
	const char *near = nfamily == 1 ? family[0]->name : algo_suggest(name);
	if (!near && norm[0])
		near = algo_suggest(norm);
	if (near)
		snprintf(why, len, "unknown algorithm \"%s\" (did you mean \"%s\"?)", name, near);
	else
		snprintf(why, len, "unknown algorithm \"%s\" (`fgobench info` lists them)", name);
	return NULL;
}
