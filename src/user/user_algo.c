/* user_algo.c: a user kernel as an algorithm (user.h): "user:NAME" takes
 * its family's sharding, validity rules, reference, vendor baseline and
 * link bytes from the family's registry entry, and adds the kernel's own:
 * its tunables (the configuration's params text), its launch (grid, block,
 * shared memory, flags and workspace from the manifest's expressions) and,
 * on the CPU backend, its C form called once per CTA (cpu_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/kit.h"
#include "fgo.h"
#include "fgo_user.h" /* kernels/: the contract's argument struct */
#include "user/user.h"

int user_names(const struct fgo_user_kernel *k, const char **names)
{
	static const char *const fixed[USER_FIXED_NAMES] = { "M", "N", "K", "W" };
	for (int i = 0; i < USER_FIXED_NAMES; i++)
		names[i] = fixed[i];
	for (int i = 0; i < k->ntunables; i++)
		names[USER_FIXED_NAMES + i] = k->tunable[i].name;
	return USER_FIXED_NAMES + k->ntunables;
}

const struct fgo_user_kernel *user_kernel_of(const struct fgo_config *cfg)
{
	const struct fgo_algo *a = algo_find(cfg->algorithm);
	return a ? a->user : NULL;
}

long user_combos(const struct fgo_user_kernel *k)
{
	long n = 1;
	for (int i = 0; i < k->ntunables; i++)
		n *= k->tunable[i].nvalues;
	return n;
}

void user_config_set(const struct fgo_user_kernel *k, long combo, struct fgo_config *cfg)
{
	size_t at = 0;
	long pick[USER_TUNABLES_MAX] = { 0 };
	/* the last tunable varies fastest, as a spec's fields do */
	for (int i = k->ntunables - 1; i >= 0; i--) {
		pick[i] = combo % k->tunable[i].nvalues;
		combo /= k->tunable[i].nvalues;
	}
	snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", k->algorithm);
	cfg->params[0] = 0;
	for (int i = 0; i < k->ntunables && at < sizeof cfg->params; i++)
		at += (size_t)snprintf(cfg->params + at, sizeof cfg->params - at, "%s%s=%lld",
				       i ? "," : "", k->tunable[i].name, k->tunable[i].values[pick[i]]);
	snprintf(cfg->source_hash, sizeof cfg->source_hash, "%s", k->hash);
	/* the built-in tunables mean nothing to a user kernel: no default
	 * (core, tile, split) may be fitted to them */
	cfg->given = (unsigned short)~0u;
}

int user_values(const struct fgo_user_kernel *k, const struct fgo_config *cfg, long long *v,
		char *why, size_t len)
{
	const char *p = cfg->params;
	v[0] = cfg->m;
	v[1] = cfg->n;
	v[2] = cfg->k;
	v[3] = cfg->world;
	for (int i = 0; i < k->ntunables; i++) {
		size_t n = strlen(k->tunable[i].name);
		char *end;
		if (strncmp(p, k->tunable[i].name, n) != 0 || p[n] != '=')
			goto bad;
		v[USER_FIXED_NAMES + i] = strtoll(p + n + 1, &end, 10);
		if (end == p + n + 1 || (*end && *end != ','))
			goto bad;
		p = *end ? end + 1 : end;
	}
	if (*p)
		goto bad;
	return FGO_OK;
bad:
	snprintf(why, len, "the configuration's tunables \"%s\" are not those of %s's manifest %s",
		 cfg->params, k->algorithm, k->manifest);
	return FGO_EUSAGE;
}

int user_defines(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		 struct user_define *out, char *why, size_t len)
{
	static const char *const shape[USER_FIXED_NAMES] = { "FGO_M", "FGO_N", "FGO_K", "FGO_W" };
	long long v[USER_FIXED_NAMES + USER_TUNABLES_MAX];
	int n = 0;
	if (user_values(k, cfg, v, why, len) != FGO_OK)
		return -1;
	for (int i = 0; i < k->ntunables; i++)
		out[n++] = (struct user_define){ k->tunable[i].macro, v[USER_FIXED_NAMES + i], "" };
	out[n++] = (struct user_define){ "FGO_DTYPE", (long long)cfg->dtype, "" };
	out[n++] = (struct user_define){ "FGO_MODE", mode, "" };
	/* only when asked: a kernel without them compiles once for every
	 * problem, and its cached objects keep their keys */
	if (k->shape_macros)
		for (int i = 0; i < USER_FIXED_NAMES; i++)
			out[n++] = (struct user_define){ shape[i], v[i], "L" };
	return n;
}

int user_launch_of(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
		   struct user_launch *l, char *why, size_t len)
{
	static const char *const rule_names[USER_RULES] = {
		"grid", "grid", "grid", "block", "block", "block", "shared_memory", "flags",
		"workspace"
	};
	long long v[USER_FIXED_NAMES + USER_TUNABLES_MAX], out[USER_RULES];
	char inner[FGO_REASON_MAX];
	memset(l, 0, sizeof *l);
	if (user_values(k, cfg, v, why, len) != FGO_OK)
		return FGO_EUSAGE;
	for (int r = 0; r < USER_RULES; r++)
		if (user_expr_eval(&k->rule[r], v, &out[r], inner, sizeof inner) != FGO_OK) {
			snprintf(why, len, "\"%s\": %s", rule_names[r], inner);
			return FGO_EUSAGE;
		}
	for (int d = 0; d < 3; d++) {
		l->grid[d] = out[USER_GRID_X + d];
		l->block[d] = out[USER_BLOCK_X + d];
	}
	l->smem = out[USER_SMEM];
	l->flags = out[USER_FLAGS];
	l->workspace = out[USER_WORKSPACE];
	for (int d = 0; d < 3; d++) {
		long long gmax = d ? USER_GRID_YZ_MAX : USER_GRID_X_MAX;
		if (l->grid[d] < 1 || l->grid[d] > gmax) {
			snprintf(why, len, "the grid's %c is %lld (\"%s\"): it must be 1 to %lld", "xyz"[d],
				 l->grid[d], k->rule[USER_GRID_X + d].text, gmax);
			return FGO_EUSAGE;
		}
		if (l->block[d] < 1 || l->block[d] > (d == 2 ? USER_BLOCK_Z_MAX : USER_THREADS_MAX)) {
			snprintf(why, len, "the launch asks for a block of %lld threads in %c (\"%s\"): a GPU"
				 " allows 1 to %d", l->block[d], "xyz"[d], k->rule[USER_BLOCK_X + d].text,
				 d == 2 ? USER_BLOCK_Z_MAX : USER_THREADS_MAX);
			return FGO_EUSAGE;
		}
	}
	long long threads = l->block[0] * l->block[1] * l->block[2];
	if (threads > USER_THREADS_MAX) {
		snprintf(why, len, "the launch asks for %lld threads a CTA (block %lldx%lldx%lld), more"
			 " than the %d a GPU allows", threads, l->block[0], l->block[1], l->block[2],
			 USER_THREADS_MAX);
		return FGO_EUSAGE;
	}
	if (l->grid[0] * l->grid[1] * l->grid[2] > USER_GRID_X_MAX) {
		snprintf(why, len, "the grid %lldx%lldx%lld has more than %lld CTAs", l->grid[0],
			 l->grid[1], l->grid[2], USER_GRID_X_MAX);
		return FGO_EUSAGE;
	}
	if (l->smem < 0 || l->smem > USER_SMEM_MAX) {
		snprintf(why, len, "the launch asks for %lld bytes of dynamic shared memory a CTA"
			 " (\"%s\"), more than the %d (227 KiB) an H100 or H200 allows",
			 l->smem, k->rule[USER_SMEM].text, USER_SMEM_MAX);
		if (l->smem < 0)
			snprintf(why, len, "\"shared_memory\" is %lld bytes (\"%s\"): it must be >= 0",
				 l->smem, k->rule[USER_SMEM].text);
		return FGO_EUSAGE;
	}
	if (l->flags < 0 || l->flags > (1LL << 31)) {
		snprintf(why, len, "\"flags\" is %lld (\"%s\"): it must be 0 to 2^31", l->flags,
			 k->rule[USER_FLAGS].text);
		return FGO_EUSAGE;
	}
	if (l->workspace < 0 || l->workspace > (1LL << 50)) {
		snprintf(why, len, "\"workspace\" is %lld bytes (\"%s\"): it must be 0 to 2^50",
			 l->workspace, k->rule[USER_WORKSPACE].text);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

/* The family's rules without its tile rules: a user kernel's tiles are its
 * own (its tunables), so the family sees the smallest tile, which every
 * shape allows; what stays is what the sharding needs (N % W, K % W, ...). */
static int user_validate(const struct fgo_config *cfg, char *reason, size_t len)
{
	const struct fgo_user_kernel *k = user_kernel_of(cfg);
	struct user_launch l;
	if (!k) {
		snprintf(reason, len, "%s: no manifest of this kernel was read", cfg->algorithm);
		return 1;
	}
	struct fgo_config fam = *cfg;
	fam.blk_m = fam.blk_n = fam.blk_k = 16;
	if (k->family->validate && k->family->validate(&fam, reason, len))
		return 1;
	return user_launch_of(k, cfg, &l, reason, len) != FGO_OK;
}

/* The family's heap (A, B, C, its work area), then the kernel's workspace
 * and its flags: the family's own flags stay unused. */
static void user_layout(const struct fgo_config *cfg, int rank, struct fgo_layout *lay)
{
	const struct fgo_user_kernel *k = user_kernel_of(cfg);
	struct user_launch l;
	char why[FGO_REASON_MAX];
	if (user_launch_of(k, cfg, &l, why, sizeof why) != FGO_OK)
		memset(&l, 0, sizeof l); /* config_validate refused it: never run */
	k->family->layout(cfg, rank, lay);
	size_t cursor = lay->heap_bytes;
	lay->workspace_bytes = (size_t)l.workspace;
	lay->workspace_offset = kit_place(&cursor, lay->workspace_bytes);
	lay->flags_count = (size_t)l.flags;
	lay->flags_offset = kit_place(&cursor, lay->flags_count * sizeof(uint32_t));
	lay->heap_bytes = kit_place(&cursor, 0);
}

static double user_link_bytes(const struct fgo_config *cfg)
{
	return user_kernel_of(cfg)->family->link_bytes(cfg);
}

static int user_cpu_baseline(const struct fgo_exec *ex)
{
	return user_kernel_of(ex->cfg)->family->cpu_baseline(ex);
}

static int user_cpu_prepare(const struct fgo_config *cfg, int load, char *reason, size_t len)
{
	const struct fgo_user_kernel *k = user_kernel_of(cfg);
	user_cpu_entry fn;
	if (!k->c_text) {
		snprintf(reason, len, "%s has no C form (its manifest's \"source\" gives no \"c\"): the"
			 " CPU backend cannot run it", k->algorithm);
		return FGO_EUSAGE;
	}
	for (int mode = FGO_MODE_FUSED; mode <= (k->modes ? FGO_MODE_COMM_ONLY : FGO_MODE_FUSED); mode++) {
		int rc = user_cc_build(k, cfg, mode, load, &fn, reason, len);
		if (rc != FGO_OK)
			return rc;
	}
	return FGO_OK;
}

static void matrix_of(const struct fgo_matrix *m, struct fgo_user_matrix *u)
{
	u->offset = (long long)m->offset;
	u->row0 = m->row0;
	u->rows = m->rows;
	u->col0 = m->col0;
	u->cols = m->cols;
	u->ld = m->ld;
}

void user_args_fill(struct fgo_user_args *a, const struct fgo_config *cfg,
		    const struct fgo_layout *lay, int rank, int world, unsigned int epoch,
		    char *const *heap)
{
	memset(a, 0, sizeof *a);
	a->abi = FGO_USER_ABI;
	a->rank = rank;
	a->world = world;
	a->dtype = (int)cfg->dtype;
	a->m = cfg->m;
	a->n = cfg->n;
	a->k = cfg->k;
	matrix_of(&lay->a, &a->a);
	matrix_of(&lay->b, &a->b);
	matrix_of(&lay->c, &a->c);
	a->work_offset = (long long)lay->work_offset;
	a->work_bytes = (long long)lay->work_bytes;
	a->workspace_offset = (long long)lay->workspace_offset;
	a->workspace_bytes = (long long)lay->workspace_bytes;
	a->flags_offset = (long long)lay->flags_offset;
	a->flags_count = (long long)lay->flags_count;
	a->epoch = epoch;
	a->heap = heap;
}

/* Scratch standing in for a CTA's dynamic shared memory: one buffer per
 * process, grown to the largest asked for (the CTAs run one at a time). */
static void *smem_buffer(long long bytes)
{
	static void *buf;
	static long long have;
	if (bytes < 64) /* a CTA that asks for none still gets a pointer it may not use */
		bytes = 64;
	if (bytes > have) {
		void *bigger = realloc(buf, (size_t)bytes);
		if (!bigger)
			return NULL;
		buf = bigger;
		have = bytes;
	}
	return buf;
}

/* One launch: every CTA of the grid in order, on this rank's thread. */
static int user_cpu_run(const struct fgo_exec *ex, enum fgo_mode mode)
{
	const struct fgo_user_kernel *k = user_kernel_of(ex->cfg);
	const struct fgo_layout *lay = ex->lay;
	char why[FGO_REASON_MAX];
	struct user_launch l;
	user_cpu_entry fn;
	if (user_launch_of(k, ex->cfg, &l, why, sizeof why) != FGO_OK ||
	    user_cc_build(k, ex->cfg, k->modes ? (int)mode : FGO_MODE_FUSED, 1, &fn, why,
			  sizeof why) != FGO_OK) {
		kit_fail(ex, "%s", why);
		return FGO_EFAIL;
	}
	struct fgo_user_args a;
	user_args_fill(&a, ex->cfg, lay, ex->rank, ex->world, ex->epoch, ex->heap);
	a.deadline_ns = (long long)(ex->deadline * 1e9);
	a.err = ex->err;
	a.err_len = ex->err ? (long long)ex->err_len : 0;
	struct fgo_user_cta c;
	memset(&c, 0, sizeof c);
	c.count = (int)(l.grid[0] * l.grid[1] * l.grid[2]);
	for (int d = 0; d < 3; d++) {
		c.grid[d] = (int)l.grid[d];
		c.block[d] = (int)l.block[d];
	}
	c.smem_bytes = l.smem;
	if (!(c.smem = smem_buffer(l.smem))) {
		kit_fail(ex, "out of memory for %lld bytes of shared memory", l.smem);
		return FGO_EFAIL;
	}
	for (c.index = 0; c.index < c.count; c.index++) {
		int rc = fn(&a, &c);
		if (rc == FGO_USER_OK)
			continue;
		if (rc == FGO_USER_TIMEOUT)
			return FGO_ETIMEOUT;
		if (!ex->err || !ex->err[0])
			kit_fail(ex, "%s returned %d from CTA %d of %d (FGO_USER_OK is 0)", k->entry, rc,
				 c.index, c.count);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int user_kernel_register(struct fgo_user_kernel *k, const struct fgo_user_kernel **out, char *err,
			 size_t len)
{
	const struct fgo_algo *there = algo_find(k->algorithm);
	const struct fgo_algo *f = k->family;
	if (there) {
		if (there->user && !strcmp(there->user->hash, k->hash)) {
			*out = there->user;
			user_kernel_free(k);
			return FGO_OK;
		}
		snprintf(err, len, "a kernel named \"%s\" was read already, from %s, with other sources"
			 " (give each kernel its own \"name\")", k->name,
			 there->user ? there->user->manifest : "fgobench itself");
		return FGO_EUSAGE;
	}
	snprintf(k->summary, sizeof k->summary, "user kernel %s (%.160s) with %s's semantics: %.250s",
		 k->name, k->manifest, f->family, f->summary);
	k->algo = (struct fgo_algo){
		.name = k->algorithm,
		.family = f->family,
		.summary = k->summary,
		.needs_comm = f->needs_comm,
		.validate = user_validate,
		.layout = user_layout,
		.link_bytes = user_link_bytes,
		.cpu_run = user_cpu_run,
		.cpu_baseline = user_cpu_baseline,
		.engine_copies = NULL,
		.gpu_source = NULL, /* the GPU form is the kernel's own (k->gpu_source) */
		.gpu_variant = NULL,
		.space = f->space,
		.comm_ctas = FGO_COMM_CTAS_NONE,
		.split_k = 0,
		.user = k,
		.manifest = k->manifest,
		.cpu_prepare = user_cpu_prepare,
		.fused_only = !k->modes,
	};
	if (algo_register(&k->algo) != FGO_OK) {
		snprintf(err, len, "more than %d user kernels in one process", ALGO_REGISTERED_MAX);
		return FGO_EUSAGE;
	}
	*out = k;
	return FGO_OK;
}

void user_kernel_free(struct fgo_user_kernel *k)
{
	if (!k)
		return;
	free(k->c_text);
	free(k->gpu_text);
	for (int i = 0; i < k->nheaders; i++)
		free(k->header_text[i]);
	free(k);
}
