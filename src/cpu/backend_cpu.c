/* backend_cpu.c: the CPU backend. Ranks on one node share memory through an
 * MPI shared window (MPI_Win_allocate_shared), which is the symmetric heap:
 * every rank can load and store every other rank's part, as GPU peers do
 * over NVLink. A launch runs the algorithm's CPU implementation. Telemetry
 * is the core clock and the hottest thermal zone, where Linux shows them. */
#include <glob.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "backend/backend.h"
#include "backend/check.h"
#include "cpu/collective.h"
#include "cpu/plant.h"
#include "cpu/reference.h"
#include "fgo.h"

struct fgo_backend_ctx {
	MPI_Comm node;
	struct cpu_reference ref; /* the current problem's, for this rank's C shard */
};

/* heap->priv: the window and the launch counter. The counter only grows
 * over the heap's life, so flags left by an earlier configuration (at any
 * offset) are always older than the current launch. */
struct cpu_heap {
	MPI_Win win;
	uint32_t epoch;
};

struct fgo_runnable {
	const struct fgo_algo *algo;
	struct fgo_config cfg;
	struct fgo_layout lay;
	struct fgo_heap *heap;
	int traced;                /* prepare_traced: launches record into tr */
	struct fgo_trace_rank tr;  /* head and ev malloc'd */
};

static int cpu_available(void)
{
	return 1;
}

static int cpu_init(struct fgo_backend_ctx **ctx, MPI_Comm node_comm, char *err, size_t len)
{
	*ctx = calloc(1, sizeof **ctx);
	if (!*ctx) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	(*ctx)->node = node_comm;
	return FGO_OK;
}

/* "Intel(R) Xeon(R) ..." from /proc/cpuinfo, or "" where there is none. */
/* The value of a /proc/cpuinfo line "key<tabs>: value" when the line is
 * key's, else NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *colon = strchr(line, ':');
	if (strncmp(line, key, n) != 0 || !colon ||
	    strspn(line + n, " \t") != (size_t)(colon - line) - n)
		return NULL;
	return colon + 1 + strspn(colon + 1, " ");
}

static void cpu_model(char *out, size_t len)
{
	char line[512];
	const char *v = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");
	out[0] = 0;
	if (!f)
		return;
	while (!v && fgets(line, sizeof line, f))
		if ((v = cpuinfo_value(line, "model name")) != NULL) {
			snprintf(out, len, "%s", v);
			out[strcspn(out, "\n")] = 0;
		}
	fclose(f);
}

static void cpu_describe(struct fgo_backend_ctx *ctx, struct fgo_env *env)
{
	char model[160], mpi[MPI_MAX_LIBRARY_VERSION_STRING];
	struct utsname u;
	int n = 0;
	(void)ctx;

	memset(env, 0, sizeof *env);
	env->device_count = (int)sysconf(_SC_NPROCESSORS_ONLN);
	env->compute_units = env->device_count;
	cpu_model(model, sizeof model);
	snprintf(env->devices, sizeof env->devices, "cpu: %d cores%s%s", env->device_count,
		 model[0] ? ", " : "", model);
	MPI_Get_library_version(mpi, &n);
	mpi[strcspn(mpi, ",\n")] = 0;
	snprintf(env->runtime, sizeof env->runtime, "%.40s; sqlite %s", mpi, sqlite3_libversion());
	snprintf(env->arch, sizeof env->arch, "%.31s", uname(&u) == 0 ? u.machine : "unknown");
}

static int cpu_heap_alloc(struct fgo_backend_ctx *ctx, MPI_Comm comm, size_t bytes,
			  struct fgo_heap *heap, char *err, size_t len)
{
	struct cpu_heap *h = calloc(1, sizeof *h);
	char *mine = NULL;
	int rc;
	(void)ctx;

	memset(heap, 0, sizeof *heap);
	heap->comm = comm;
	MPI_Comm_rank(comm, &heap->rank);
	MPI_Comm_size(comm, &heap->world);
	heap->bytes = bytes ? bytes : 64;
	heap->base = calloc((size_t)heap->world, sizeof *heap->base);
	int ok = h && heap->base;
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	if (!ok) {
		snprintf(err, len, "out of host memory for the heap table");
		goto fail;
	}
	/* Errors come back as codes, so a rank that cannot allocate reports
	 * instead of aborting the job. */
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	rc = MPI_Win_allocate_shared((MPI_Aint)heap->bytes, 1, MPI_INFO_NULL, comm, &mine, &h->win);
	if (rc != MPI_SUCCESS) {
		char size[32];
		snprintf(err, len, "MPI_Win_allocate_shared of %s per rank failed",
			 fmt_bytes((double)heap->bytes, size, sizeof size));
		goto fail;
	}
	for (int r = 0; r < heap->world; r++) {
		MPI_Aint size;
		int disp;
		MPI_Win_shared_query(h->win, r, &size, &disp, &heap->base[r]);
	}
	memset(mine, 0, heap->bytes);
	heap->priv = h;
	MPI_Barrier(comm); /* every part zeroed before anyone reads a flag */
	return FGO_OK;
fail:
	free(h);
	free(heap->base);
	heap->base = NULL;
	return FGO_EFAIL;
}

static void cpu_heap_free(struct fgo_backend_ctx *ctx, struct fgo_heap *heap)
{
	struct cpu_heap *h = heap->priv;
	(void)ctx;
	if (h) {
		MPI_Win_free(&h->win);
		free(h);
	}
	free(heap->base);
	memset(heap, 0, sizeof *heap);
}

/* backend.h's link_egress on shared memory: each rank copies from its
 * heap's second half into its slot of every peer's first half, all ranks
 * from one barrier; a sample's time is the slowest rank's (the egress of
 * ranks that all send at once). */
static int cpu_link_egress(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *gbps,
			   char *err, size_t len)
{
	(void)ctx;
	int w = heap->world, me = heap->rank;
	size_t slot = (heap->bytes / 2 / (size_t)(w > 0 ? w : 1)) & ~(size_t)63;
	*gbps = 0;
	if (w < 2 || slot < 4096) {
		snprintf(err, len, "link egress needs two ranks and a heap of at least %d KiB a rank",
			 8 * (w > 1 ? w : 2));
		return FGO_EFAIL;
	}
	char *src = heap->base[me] + heap->bytes / 2;
	for (size_t i = 0; i < slot; i++)
		src[i] = (char)(i * 131u + (size_t)me);
	double best = 0;
	for (int rep = 0; rep < 6; rep++) { /* the first warms the pages up */
		MPI_Barrier(heap->comm);
		double t0 = MPI_Wtime();
		for (int k = 1; k < w; k++) {
			int peer = (me + k) % w; /* staggered: not every rank on rank 0 first */
			memcpy(heap->base[peer] + (size_t)me * slot, src, slot);
		}
		double mine = MPI_Wtime() - t0, slowest = 0;
		MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, heap->comm);
		if (rep > 0 && slowest > 0 && (best == 0 || slowest < best))
			best = slowest;
	}
	MPI_Barrier(heap->comm);
	if (!(best > 0)) {
		snprintf(err, len, "timing the link egress gave no positive time");
		return FGO_EFAIL;
	}
	*gbps = (double)(w - 1) * (double)slot / best / 1e9;
	return FGO_OK;
}

static int cpu_prepare(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
		       const struct fgo_config *cfg, struct fgo_heap *heap,
		       struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason,
		       size_t len)
{
	struct fgo_runnable *run = calloc(1, sizeof *run);
	(void)ctx;

	memset(info, 0, sizeof *info);
	if (!run) {
		snprintf(reason, len, "out of host memory");
		return FGO_EFAIL;
	}
	run->algo = algo;
	run->cfg = *cfg;
	run->heap = heap;
	algo->layout(cfg, heap->rank, &run->lay);
	if (run->lay.heap_bytes > heap->bytes) {
		snprintf(reason, len, "needs %zu bytes of heap per rank, the heap has %zu",
			 run->lay.heap_bytes, heap->bytes);
		free(run);
		return FGO_EUSAGE;
	}
	/* a user kernel's C form, compiled (or found in the kernel cache) and loaded */
	if (algo->cpu_prepare) {
		int rc = algo->cpu_prepare(cfg, 1, reason, len);
		if (rc != FGO_OK) {
			free(run);
			return rc;
		}
	}
	/* The flags of this layout may lie where the previous configuration
	 * kept data, whose bytes would read as raised flags. The runner agrees
	 * (a collective) after prepare, so no peer publishes before this. */
	memset(heap->base[heap->rank] + run->lay.flags_offset, 0,
	       run->lay.flags_count * sizeof(uint32_t));
	/* the walk's exchange starts from zero (split-K sums; each launch leaves them so) */
	memset(heap->base[heap->rank] + run->lay.xchg_offset, 0, run->lay.xchg_bytes);
	*out = run;
	return FGO_OK;
}

/* The virtual CTAs of cfg's CPU launch: the walk's (gemm_sms Stream-K
 * CTAs, else one) and the comm CTAs of the sk_* families. */
static int cpu_ctas(const struct fgo_algo *algo, const struct fgo_config *cfg)
{
	int walk = cfg->gemm_sms > 0 && cfg->split_k <= 1 ? cfg->gemm_sms : 1;
	return walk + (algo->comm_ctas == FGO_COMM_CTAS_REQUIRED ? cfg->comm_sms : 0);
}

static int cpu_prepare_traced(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
			      const struct fgo_config *cfg, struct fgo_heap *heap, int cap,
			      struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason,
			      size_t len)
{
	int rc = cpu_prepare(ctx, algo, cfg, heap, out, info, reason, len);
	if (rc != FGO_OK)
		return rc;
	struct fgo_runnable *run = *out;
	struct fgo_trace_rank *t = &run->tr;
	/* enough for every event of one virtual CTA walking every tile: a
	 * GEMM, a hand-over or take-over, a put to each peer, a reduction and
	 * a wait on each flag, two events each */
	size_t want = 256 + 16 * run->lay.flags_count;
	t->rank = heap->rank;
	t->ctas = cpu_ctas(algo, cfg);
	t->cap = cap > 0 ? cap : want > (1u << 18) ? 1 << 18 : (int)want;
	t->head = calloc((size_t)t->ctas, sizeof *t->head);
	t->ev = malloc((size_t)t->ctas * (size_t)t->cap * sizeof *t->ev);
	run->traced = 1;
	if (!t->head || !t->ev) {
		snprintf(reason, len, "out of host memory for the trace of %d CTAs", t->ctas);
		free(t->head);
		free(t->ev);
		free(run);
		*out = NULL;
		return FGO_EFAIL;
	}
	return FGO_OK;
}

static int cpu_trace_read(struct fgo_backend_ctx *ctx, struct fgo_runnable *run,
			  struct fgo_trace_rank **tr, char *err, size_t len)
{
	(void)ctx;
	if (!run->traced) {
		snprintf(err, len, "the configuration was not prepared for tracing");
		return FGO_EFAIL;
	}
	*tr = &run->tr;
	return FGO_OK;
}

static unsigned long long monotonic_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

/* A traced launch's frame: every virtual CTA begins at the launch's start
 * and ends at its end, on the core the rank runs on. */
static void trace_kernel(struct fgo_runnable *run, enum fgo_mode mode, int end)
{
	struct fgo_trace_rank *t = &run->tr;
	unsigned long long now = monotonic_ns();
	int core = sched_getcpu();
	if (!end) {
		memset(t->head, 0, (size_t)t->ctas * sizeof *t->head);
		t->ref_ns = now;
		t->cta = 0;
	}
	for (int c = 0; c < t->ctas; c++) {
		t->head[c].sm = (unsigned int)core;
		fgo_trace_host_rec(t, c, FGO_TR_KERNEL | (end ? FGO_TR_END : 0u), now, core, (int)mode,
				   -1, -1, -1);
	}
}

/* Only a user kernel's C form is compiled on the CPU (the families are
 * fgobench's own C): into the kernel cache, the ranks of a node sharing
 * the work before any timing (session.c). */
static int cpu_precompile(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
			  const struct fgo_config *cfg, char *err, size_t len)
{
	(void)ctx;
	return algo->cpu_prepare ? algo->cpu_prepare(cfg, 0, err, len) : FGO_OK;
}

static int cpu_copy_in(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, size_t offset,
		       const void *src, size_t bytes)
{
	(void)ctx;
	if (offset + bytes > heap->bytes)
		return FGO_EFAIL;
	memcpy(heap->base[heap->rank] + offset, src, bytes);
	return FGO_OK;
}

/* The check with the work done once per problem (backend.h): inputs and
 * poison written in place in the shared heap, no staging copies. */
static int cpu_inputs_fill(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			   const struct fgo_config *cfg, const struct fgo_layout *lay, uint64_t seed,
			   char *err, size_t len)
{
	(void)ctx;
	(void)err;
	(void)len;
	char *mine = heap->base[heap->rank];
	input_fill(seed, FGO_A, &lay->a, cfg->dtype, mine + lay->a.offset);
	input_fill(seed, FGO_B, &lay->b, cfg->dtype, mine + lay->b.offset);
	return FGO_OK;
}

static int cpu_output_poison(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			     const struct fgo_config *cfg, const struct fgo_layout *lay, char *err,
			     size_t len)
{
	(void)ctx;
	(void)err;
	(void)len;
	output_poison(&lay->c, cfg->dtype, heap->base[heap->rank] + lay->c.offset);
	return FGO_OK;
}

static int cpu_reference_make_op(struct fgo_backend_ctx *ctx, const struct fgo_config *cfg,
				 const struct fgo_layout *lay, uint64_t seed, char *err, size_t len)
{
	return cpu_reference_make(&ctx->ref, seed, cfg, lay, err, len);
}

static int cpu_reference_rows_op(struct fgo_backend_ctx *ctx, const long *rows, long count,
				 float *want, float *scale, char *err, size_t len)
{
	return cpu_reference_rows(&ctx->ref, rows, count, want, scale, err, len);
}

static int cpu_output_compare_op(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
				 const struct fgo_config *cfg, const struct fgo_layout *lay,
				 double tol, struct fgo_check *res, char *err, size_t len)
{
	return cpu_output_compare(&ctx->ref, heap->base[heap->rank] + lay->c.offset, cfg, lay, tol,
				  res, err, len);
}

/* A matrix's bytes in the heap: its rows at its leading dimension. */
static uint64_t matrix_digest(const char *base, const struct fgo_matrix *m, enum fgo_dtype t)
{
	return fnv1a64(base + m->offset, (size_t)m->rows * (size_t)m->ld * dtype_size(t));
}

static int cpu_inputs_digest(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			     const struct fgo_config *cfg, const struct fgo_layout *lay,
			     uint64_t digest[2], char *err, size_t len)
{
	(void)ctx;
	(void)err;
	(void)len;
	digest[0] = matrix_digest(heap->base[heap->rank], &lay->a, cfg->dtype);
	digest[1] = matrix_digest(heap->base[heap->rank], &lay->b, cfg->dtype);
	return FGO_OK;
}

static struct fgo_exec exec_of(struct fgo_runnable *run, double timeout_s)
{
	struct cpu_heap *h = run->heap->priv;
	return (struct fgo_exec){
		.cfg = &run->cfg,
		.lay = &run->lay,
		.rank = run->heap->rank,
		.world = run->heap->world,
		.comm = run->heap->comm,
		.heap = run->heap->base,
		.epoch = ++h->epoch,
		.deadline = now_seconds() + timeout_s,
	};
}

static int cpu_launch(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, enum fgo_mode mode,
		      double timeout_s, double *ms, char *err, size_t len)
{
	struct fgo_exec ex = exec_of(run, timeout_s);
	char why[256] = "";
	double t0;
	int rc;
	(void)ctx;

	/* err is written only on failure: the caller's buffer may hold a reason */
	ex.err = why;
	ex.err_len = sizeof why;
	if (run->traced) {
		ex.trace = &run->tr;
		trace_kernel(run, mode, 0);
	}
	t0 = now_seconds();
	rc = run->algo->cpu_run(&ex, mode);
	if (rc == FGO_OK) /* the test hook's slowdown, timed as the kernel is */
		cpu_plant_slow(run->cfg.algorithm, (now_seconds() - t0) * 1e3);
	*ms = (now_seconds() - t0) * 1e3;
	if (run->traced)
		trace_kernel(run, mode, 1);
	if (rc == FGO_ETIMEOUT)
		snprintf(err, len, "a flag wait gave up after %g s (a peer never signalled)%s%s",
			 timeout_s, why[0] ? ": " : "", why);
	else if (rc != FGO_OK)
		snprintf(err, len, "%s", why[0] ? why : "the CPU kernel failed (out of memory?)");
	return rc;
}

static int cpu_baseline(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, double timeout_s,
			double *ms, char *err, size_t len)
{
	struct fgo_exec ex = exec_of(run, timeout_s);
	double t0 = now_seconds();
	int rc = run->algo->cpu_baseline(&ex);
	(void)ctx;

	*ms = (now_seconds() - t0) * 1e3;
	if (rc != FGO_OK)
		snprintf(err, len, "the MPI baseline failed (out of memory?)");
	return rc;
}

/* Mean of the "cpu MHz" lines of /proc/cpuinfo (one per logical CPU); 0
 * where there are none (some virtual machines and architectures). */
static double cpu_mhz(void)
{
	char line[512];
	double sum = 0;
	int n = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		const char *v = cpuinfo_value(line, "cpu MHz");
		char *end;
		double mhz = v ? strtod(v, &end) : 0;
		if (v && end != v && mhz > 0) {
			sum += mhz;
			n++;
		}
	}
	fclose(f);
	return n ? sum / n : 0;
}

/* The hottest of /sys/class/thermal/thermal_zone*\/temp (millidegrees C);
 * 0 where none can be read (containers, virtual machines). */
static double cpu_temp_c(void)
{
	glob_t g;
	double hottest = 0;
	if (glob("/sys/class/thermal/thermal_zone*/temp", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		long milli = 0;
		if (!f)
			continue;
		if (fscanf(f, "%ld", &milli) == 1 && milli / 1000.0 > hottest)
			hottest = milli / 1000.0;
		fclose(f);
	}
	globfree(&g);
	return hottest;
}

/* The core clock stands in for the compute (SM) clock; a CPU shows no
 * memory clock or power here, so those stay 0 (cannot tell). */
static int cpu_telemetry(struct fgo_backend_ctx *ctx, struct fgo_telemetry *t)
{
	(void)ctx;
	memset(t, 0, sizeof *t);
	t->sm_clock_mhz = cpu_mhz();
	t->temp_c = cpu_temp_c();
	return FGO_OK;
}

/* Copy bandwidth of one core's view of memory: bytes read + bytes written
 * over the best of a few copies of a buffer far larger than the caches. */
static int cpu_memory_bandwidth(struct fgo_backend_ctx *ctx, double *gbps, char *err, size_t len)
{
	size_t bytes = (size_t)256 << 20;
	char *src = malloc(bytes), *dst = malloc(bytes);
	double best = 0;
	(void)ctx;

	if (!src || !dst) {
		free(src);
		free(dst);
		snprintf(err, len, "out of memory for the copy buffers");
		return FGO_EFAIL;
	}
	memset(src, 1, bytes);
	memset(dst, 0, bytes);
	for (int i = 0; i < 5; i++) {
		double t0 = now_seconds();
		memcpy(dst, src, bytes);
		double t = now_seconds() - t0;
		double bw = 2.0 * (double)bytes / t / 1e9;
		if (bw > best && dst[bytes - 1] == 1)
			best = bw;
	}
	free(src);
	free(dst);
	*gbps = best;
	return FGO_OK;
}

/* The read floor on one core: 8-byte loads summed in four chains, the
 * clock around one read as cpu_launch times a run. Each read of a size
 * starts where the one before ended in a buffer of the largest size, so a
 * small read does not find its bytes in the cache (the GPU flushes its L2
 * instead); the sum is kept, so no read can be dropped. A size is read
 * reps times and on until its reads have taken FLOOR_SPAN_S: the best of
 * five 1 MiB reads fits in half a millisecond, inside one time slice a
 * busy machine gives another process, which made 1 MiB read as slowly as
 * 8 MiB in a loaded CI run; spread over 20 ms one read escapes it. */
#define FLOOR_SPAN_S 0.02
#define FLOOR_READS_MAX 100000
static int cpu_read_floor(struct fgo_backend_ctx *ctx, const size_t *bytes, int n, int reps,
			  double *seconds, char *method, size_t method_len, char *err, size_t len)
{
	size_t total = n > 0 ? bytes[n - 1] : 0;
	uint64_t *buf = total >= 16 ? malloc(total) : NULL;
	volatile uint64_t sink = 0;
	(void)ctx;

	if (!buf) {
		snprintf(err, len, "out of memory for the %zu MiB read-floor buffer", total >> 20);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < total / 8; i++)
		buf[i] = i * 0x9e3779b97f4a7c15ull;
	size_t at = 0, words = total / 8;
	for (int s = 0; s < n; s++) {
		size_t count = bytes[s] / 8;
		seconds[s] = 0;
		double spent = 0;
		for (int r = 0; r <= reps || (spent < FLOOR_SPAN_S && r <= FLOOR_READS_MAX); r++) {
			/* the first read warms up */
			if (at + count > words)
				at = 0;
			const uint64_t *p = buf + at;
			uint64_t a = 0, b = 0, c = 0, d = 0;
			double t0 = now_seconds();
			size_t i = 0;
			for (; i + 4 <= count; i += 4) {
				a += p[i];
				b ^= p[i + 1];
				c += p[i + 2];
				d ^= p[i + 3];
			}
			for (; i < count; i++)
				a += p[i];
			double t = now_seconds() - t0;
			sink += a ^ b ^ c ^ d;
			at += count;
			spent += t;
			if (r > 0 && t > 0 && (seconds[s] == 0 || t < seconds[s]))
				seconds[s] = t;
		}
		if (!(seconds[s] > 0)) {
			free(buf);
			snprintf(err, len, "reading %zu bytes took no measurable time", bytes[s]);
			return FGO_EFAIL;
		}
	}
	(void)sink;
	free(buf);
	snprintf(method, method_len, "cpu: one core, 8-byte loads, each read starting where the one"
		 " before ended in a %zu MiB buffer; monotonic clock around one read; best of %d"
		 " or more, over at least %.0f ms a size", total >> 20, reps, FLOOR_SPAN_S * 1e3);
	return FGO_OK;
}

static void cpu_release(struct fgo_backend_ctx *ctx, struct fgo_runnable *run)
{
	(void)ctx;
	if (run) {
		free(run->tr.head);
		free(run->tr.ev);
	}
	free(run);
}

static void cpu_finish(struct fgo_backend_ctx *ctx)
{
	if (ctx)
		cpu_reference_free(&ctx->ref);
	free(ctx);
}

const struct fgo_backend fgo_backend_cpu = {
	.name = "cpu",
	/* clock_getres says 1 ns, but the two clock reads and barrier of an
	 * empty launch (all_scatter at W=1) already measure ~0.2 us on the
	 * development VM: 1 us keeps that out of overlap's denominator */
	.timer_resolution_ms = 1e-3,
	.available = cpu_available,
	.init = cpu_init,
	.describe = cpu_describe,
	.heap_alloc = cpu_heap_alloc,
	.link_egress = cpu_link_egress,
	.heap_free = cpu_heap_free,
	.prepare = cpu_prepare,
	.prepare_traced = cpu_prepare_traced,
	.trace_read = cpu_trace_read,
	.precompile = cpu_precompile,
	.compiles_families = 0,
	.copy_in = cpu_copy_in,
	.launch = cpu_launch,
	.baseline = cpu_baseline,
	/* No bulk: the CPU baseline already is the reference GEMM (the same
	 * core the fused kernels use) then the MPI collective, which is what
	 * bulk would measure. */
	.bulk = NULL,
	.telemetry = cpu_telemetry,
	.memory_bandwidth = cpu_memory_bandwidth,
	.read_floor = cpu_read_floor,
	.collective_curve = cpu_collective_curve,
	.inputs_fill = cpu_inputs_fill,
	.output_poison = cpu_output_poison,
	.reference_make = cpu_reference_make_op,
	.reference_rows = cpu_reference_rows_op,
	.output_compare = cpu_output_compare_op,
	.reference_bytes = cpu_reference_bytes,
	.inputs_digest = cpu_inputs_digest,
	.health = NULL, /* a CPU rank that survives a run can run the next */
	.release = cpu_release,
	.finish = cpu_finish,
};
