/* backend_gpu.c: the GPU backend, HIP names through kernels/hip_port.h (CUDA
 * underneath on NVIDIA). One device per rank (by node-local rank), a
 * symmetric heap over IPC handles exchanged with MPI, kernels JIT-compiled
 * per configuration (gpu_compile.c, gpu_jit.c), timed with events; the baseline is the
 * vendor GEMM then the vendor collective (gpu_vendor.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "fgo.h"
#include "gpu/backend_gpu_impl.h"
#include "gpu/gpu_check.h"
#include "gpu/gpu_compile.h"
#include "gpu/gpu_engine.h"
#include "gpu/gpu_heap.h"
#include "gpu/gpu_shape.h"
#include "gpu/gpu_telemetry.h"
#include "gpu/gpu_tma.h"
#include "gpu/gpu_trace.h"
#include "gpu/gpu_user.h"
#include "gpu/gpu_vendor.h"
#include "hip_port.h"
#include "schedule.h"

#define CHECK FGO_HIP_CHECK

static int gpu_available(void)
{
	int n = 0;
	return hipGetDeviceCount(&n) == hipSuccess && n > 0;
}

static int gpu_init(struct fgo_backend_ctx **out, MPI_Comm node_comm, char *err, size_t len)
{
	int local, count = 0, major = 0, minor = 0;
	struct fgo_backend_ctx *ctx = calloc(1, sizeof *ctx);
	if (!ctx) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	*out = ctx;
	MPI_Comm_rank(node_comm, &local);
	CHECK(hipGetDeviceCount(&count), "counting GPUs");
	if (count < 1) {
		snprintf(err, len, "no GPU visible (use --backend cpu)");
		return FGO_EUSAGE;
	}
	ctx->device = local % count;
	{
		int local_size = 1;
		MPI_Comm_size(node_comm, &local_size);
		/* allowed, for checking kernels with one GPU: the GPU time-slices
		 * between the ranks' contexts, so waits still progress */
		if (local_size > count && local == 0)
			warning("%d ranks share %d GPU%s on this node: runs are validated, but their"
				" times mean nothing and the vendor baseline (NCCL) cannot run",
				local_size, count, count == 1 ? "" : "s");
	}
	CHECK(hipSetDevice(ctx->device), "selecting the GPU");
	CHECK(hipFree(NULL), "creating the GPU context");
	hipDeviceGetAttribute(&ctx->sms, hipDeviceAttributeMultiprocessorCount, ctx->device);
	hipDeviceGetAttribute(&ctx->smem_optin, hipDeviceAttributeMaxSharedMemoryPerBlockOptin,
			      ctx->device);
	{
		int l2 = 0;
		hipDeviceGetAttribute(&l2, hipDeviceAttributeL2CacheSize, ctx->device);
		ctx->l2_bytes = (size_t)l2;
	}
	if (ctx->l2_bytes)
		CHECK(hipMalloc((void **)&ctx->l2_flush, 2 * ctx->l2_bytes), "allocating the L2 flush buffer");
#if defined(FGO_GPU_HIP)
	/* the gfx target hiprtc compiles for: "gfx90a" of "gfx90a:sramecc+:xnack-" */
	{
		hipDeviceProp_t p;
		(void)major;
		(void)minor;
		CHECK(hipGetDeviceProperties(&p, ctx->device), "reading the GPU's properties");
		p.gcnArchName[sizeof p.gcnArchName - 1] = 0;
		snprintf(ctx->arch, sizeof ctx->arch, "%.*s", (int)strcspn(p.gcnArchName, ":"),
			 p.gcnArchName);
	}
#else
	hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, ctx->device);
	hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, ctx->device);
	/* sm_90a: Hopper's own instructions (wgmma) need the "a" target */
	snprintf(ctx->arch, sizeof ctx->arch, "sm_%d%d%s", major, minor, major == 9 ? "a" : "");
#endif
	CHECK(hipStreamCreate(&ctx->stream), "creating a stream");
	CHECK(hipEventCreate(&ctx->start), "creating an event");
	CHECK(hipEventCreate(&ctx->stop), "creating an event");
	{
		char why[160];
		if (gpu_telemetry_open(ctx->device, &ctx->nvml, why, sizeof why) != FGO_OK && local == 0)
			warning("no GPU telemetry (clocks, temperature, power are not stored): %s", why);
	}
	if (gpu_vendor_open(&ctx->vendor, ctx->stream, err, len) != FGO_OK)
		return FGO_EFAIL;
	return gpu_check_open(&ctx->check, ctx->arch, ctx->sms, ctx->stream, ctx->vendor, err, len);
}

static void gpu_describe(struct fgo_backend_ctx *ctx, struct fgo_env *env)
{
	int count = 0, drv = 0, rt = 0;
	char name[128] = "GPU";
	memset(env, 0, sizeof *env);
	hipGetDeviceCount(&count);
	gpu_vendor_device_name(ctx->device, name, sizeof name);
	env->device_count = count;
	env->compute_units = ctx->sms;
	snprintf(env->devices, sizeof env->devices, "%dx %s (%d SMs)", count, name, ctx->sms);
	hipDriverGetVersion(&drv);
	hipRuntimeGetVersion(&rt);
	snprintf(env->driver, sizeof env->driver, "%d.%d", drv / 1000, drv % 1000 / 10);
#if defined(FGO_GPU_CUDA)
	const char *runtime = "CUDA";
#else
	const char *runtime = "HIP";
#endif
	snprintf(env->runtime, sizeof env->runtime, "%s %d.%d; %s", runtime, rt / 1000, rt % 1000 / 10,
		 gpu_vendor_versions(ctx->vendor));
	snprintf(env->arch, sizeof env->arch, "%s", ctx->arch);
}

static int gpu_heap_alloc(struct fgo_backend_ctx *ctx, MPI_Comm comm, size_t bytes,
			  struct fgo_heap *heap, char *err, size_t len)
{
	return gpu_heap_open(ctx->device, ctx->vendor, comm, bytes, heap, err, len);
}

static void gpu_heap_free(struct fgo_backend_ctx *ctx, struct fgo_heap *heap)
{
	gpu_heap_close(ctx->vendor, heap);
}

static int gpu_device_memory(size_t *bytes, int *count)
{
	int n = 0;
	*bytes = 0;
	if (hipGetDeviceCount(&n) != hipSuccess || n < 1)
		return FGO_EFAIL;
	for (int d = 0; d < n; d++) {
		hipDeviceProp_t p;
		if (hipGetDeviceProperties(&p, d) != hipSuccess)
			return FGO_EFAIL;
		if (d == 0 || p.totalGlobalMem < *bytes)
			*bytes = p.totalGlobalMem;
	}
	*count = n;
	return FGO_OK;
}

/* prepare's part for a user kernel (gpu_user.h): its modules, its launch
 * shape, its flags from zero. Frees run on failure. */
static int prepare_user(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, int trace_cap,
			struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason,
			size_t len)
{
	struct gpu_heap *h = run->heap->priv;
	int rc = FGO_EUSAGE;
	if (trace_cap > 0)
		snprintf(reason, len, "%s cannot be traced (a user kernel records no events)",
			 run->algo->name);
	else if (run->lay.heap_bytes > run->heap->bytes)
		snprintf(reason, len, "needs %zu bytes of heap per rank, the heap has %zu",
			 run->lay.heap_bytes, run->heap->bytes);
	else
		rc = gpu_user_prepare(run->algo->user, &run->cfg, ctx->arch, ctx->smem_optin, &run->user,
				      &info->registers, reason, len);
	if (rc == FGO_OK) {
		info->shared_bytes = (int)run->user->smem;
		if ((run->lay.flags_count &&
		     hipMemset(h->mine + run->lay.flags_offset, 0, run->lay.flags_count * 4) != hipSuccess) ||
		    hipMemset(h->mine + h->status_off, 0, STATUS_BYTES) != hipSuccess) {
			snprintf(reason, len, "clearing the flags failed");
			rc = FGO_EFAIL;
		}
		hipDeviceSynchronize();
	}
	if (rc != FGO_OK) {
		gpu_user_free(run->user);
		free(run);
		return rc;
	}
	*out = run;
	return FGO_OK;
}

static int prepare(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
		   const struct fgo_config *cfg, struct fgo_heap *heap, int trace_cap,
		   struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason, size_t len);
/* Read back and digested on the host: asked only for a user kernel's
 * problems, once when its inputs are made and after each run. */
static int gpu_inputs_digest(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			     const struct fgo_config *cfg, const struct fgo_layout *lay,
			     uint64_t digest[2], char *err, size_t len)
{
	struct gpu_heap *h = heap->priv;
	const struct fgo_matrix *m[2] = { &lay->a, &lay->b };
	(void)ctx;
	for (int i = 0; i < 2; i++) {
		size_t bytes = (size_t)m[i]->rows * (size_t)m[i]->ld * dtype_size(cfg->dtype);
		char *host = malloc(bytes ? bytes : 1);
		if (!host) {
			snprintf(err, len, "out of host memory reading the inputs back (%zu bytes)", bytes);
			return FGO_EFAIL;
		}
		hipError_t e = hipMemcpy(host, h->mine + m[i]->offset, bytes, hipMemcpyDeviceToHost);
		if (e != hipSuccess) {
			free(host);
			snprintf(err, len, "reading the inputs back failed: %s", hipGetErrorString(e));
			return FGO_EFAIL;
		}
		digest[i] = fnv1a64(host, bytes);
		free(host);
	}
	return FGO_OK;
}

/* After an illegal address, a trap or a launch failure the context is
 * lost: every call returns that error from then on. A synchronize may
 * first report an error of an earlier launch that did not stick, so the
 * second one tells. */
static int gpu_health(struct fgo_backend_ctx *ctx, char *err, size_t len)
{
	(void)ctx;
	(void)hipDeviceSynchronize();
	hipError_t e = hipDeviceSynchronize();
	if (e == hipSuccess)
		return FGO_OK;
	snprintf(err, len, "%s (error %d)", hipGetErrorString(e), (int)e);
	return FGO_EFAIL;
}

static void gpu_release(struct fgo_backend_ctx *ctx, struct fgo_runnable *run);

static int gpu_prepare(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
		       const struct fgo_config *cfg, struct fgo_heap *heap,
		       struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason,
		       size_t len)
{
	return prepare(ctx, algo, cfg, heap, 0, out, info, reason, len);
}

/* prepare with the trace hooks in: the kernel compiled with FGO_TRACE, a
 * device buffer for run->grid CTAs of cap events, the module's
 * fgo_trace_buf pointing at it. */
static int gpu_prepare_traced(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
			      const struct fgo_config *cfg, struct fgo_heap *heap, int cap,
			      struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason,
			      size_t len)
{
	if (cap <= 0)
		cap = GPU_TRACE_CAP_DEFAULT;
	int rc = prepare(ctx, algo, cfg, heap, cap, out, info, reason, len);
	if (rc != FGO_OK)
		return rc;
	struct fgo_runnable *run = *out;
	rc = gpu_trace_open(&run->trace, run->module, heap->rank, (int)run->grid, cap, reason, len);
	if (rc != FGO_OK) {
		gpu_release(ctx, run);
		*out = NULL;
	}
	return rc;
}

static int gpu_trace_fetch(struct fgo_backend_ctx *ctx, struct fgo_runnable *run,
			   struct fgo_trace_rank **tr, char *err, size_t len)
{
	if (!run->trace.dev) {
		snprintf(err, len, "the configuration was not prepared for tracing");
		return FGO_EFAIL;
	}
	return gpu_trace_read(&run->trace, ctx->stream, tr, err, len);
}

static int prepare(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
		   const struct fgo_config *cfg, struct fgo_heap *heap, int trace_cap,
		   struct fgo_runnable **out, struct fgo_kernel_info *info, char *reason, size_t len)
{
	struct gpu_heap *h = heap->priv;
	struct fgo_runnable *run = calloc(1, sizeof *run);
	struct gpu_compiled kernel;
	int rc = FGO_EUSAGE;

	memset(info, 0, sizeof *info);
	memset(&kernel, 0, sizeof kernel);
	if (!run) {
		snprintf(reason, len, "out of host memory");
		return FGO_EFAIL;
	}
	*out = NULL;
	run->algo = algo;
	run->cfg = *cfg;
	run->heap = heap;
	algo->layout(cfg, heap->rank, &run->lay);
	if (algo->user)
		return prepare_user(ctx, run, trace_cap, out, info, reason, len);
	if (run->lay.heap_bytes > heap->bytes)
		snprintf(reason, len, "needs %zu bytes of heap per rank, the heap has %zu",
			 run->lay.heap_bytes, heap->bytes);
	else /* a kernel exists, its launch shape fits, it compiles (or is cached) */
		rc = gpu_compile_config_traced(algo, cfg, ctx->arch, ctx->smem_optin, 1, trace_cap,
					       &kernel, reason, len);
	if (rc == FGO_OK && fgo_cu(hipModuleLoadData(&run->module, kernel.image)) != hipSuccess) {
		snprintf(reason, len, "loading the compiled kernel failed");
		rc = FGO_EFAIL;
	}
	free(kernel.image);
	if (rc == FGO_OK && fgo_cu(hipModuleGetFunction(&run->main, run->module, "fgo_main")) != hipSuccess) {
		snprintf(reason, len, "the kernel has no fgo_main");
		rc = FGO_EFAIL;
	}
	if (rc == FGO_OK)
		rc = gpu_engine_plan(algo, cfg, &run->lay, heap->rank, &run->copies, &run->n_copies,
				     reason, len);
	if (rc == FGO_OK && kernel.shape.core == GPU_CORE_WGMMA)
		rc = gpu_tma_wgmma_maps(algo, cfg, &run->lay, heap->base, heap->rank, heap->world,
					&run->maps, reason, len);
	if (rc == FGO_OK) {
		int per_sm = 0;
		run->threads = kernel.shape.threads;
		run->smem = kernel.shape.smem_bytes;
		fgo_func_max_dynamic_smem(run->main, (int)run->smem);
		if (fgo_cu(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, run->main, (int)run->threads,
									    run->smem)) != hipSuccess ||
		    per_sm < 1) {
			snprintf(reason, len, "does not fit on an SM (%u threads, %u bytes of shared memory)",
				 run->threads, run->smem);
			rc = FGO_EUSAGE;
		} else if (cfg->cluster > 1) {
			/* whole clusters: a GPC holds clusters of its own SMs only */
			int clusters = 0;
			hipError_t r = fgo_max_active_clusters(run->main, run->threads, run->smem,
								   cfg->cluster, &clusters);
			if (r != hipSuccess || clusters < 1) {
				snprintf(reason, len,
					 "no cluster of %d CTAs (%u threads, %u bytes of shared memory) fits"
					 " on this GPU (use cluster=1)",
					 cfg->cluster, run->threads, run->smem);
				rc = FGO_EUSAGE;
			} else {
				rc = gpu_grid_size(algo, cfg, (long)clusters * cfg->cluster, &run->grid,
						   reason, len);
			}
		} else {
			rc = gpu_grid_size(algo, cfg, (long)per_sm * ctx->sms, &run->grid, reason, len);
		}
		hipFuncGetAttribute(&info->registers, HIP_FUNC_ATTRIBUTE_NUM_REGS, run->main);
		hipFuncGetAttribute(&info->spills, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, run->main);
		info->shared_bytes = (int)run->smem;
		/* flags of this layout start from zero (stale heap bytes are not flags) */
		if (run->lay.flags_count &&
		    hipMemset(h->mine + run->lay.flags_offset, 0, run->lay.flags_count * 4) != hipSuccess)
			rc = FGO_EFAIL;
		/* the exchange starts from zero (split-K sums; each launch leaves them so) */
		if (run->lay.xchg_bytes &&
		    hipMemset(h->mine + run->lay.xchg_offset, 0, run->lay.xchg_bytes) != hipSuccess)
			rc = FGO_EFAIL;
		hipMemset(h->mine + h->status_off, 0, STATUS_BYTES);
		hipDeviceSynchronize();
	}
	if (rc != FGO_OK) {
		if (run->module)
			hipModuleUnload(run->module);
		free(run->maps);
		free(run->copies);
		free(run);
		return rc;
	}
	*out = run;
	return FGO_OK;
}

/* Fills the kernel cache with cfg's kernel for this GPU (see gpu_compile.c). */
static int gpu_precompile(struct fgo_backend_ctx *ctx, const struct fgo_algo *algo,
			  const struct fgo_config *cfg, char *err, size_t len)
{
	struct gpu_compiled c;
	return gpu_compile_config(algo, cfg, ctx->arch, ctx->smem_optin, 0, &c, err, len);
}

static int gpu_copy_in(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, size_t offset,
		       const void *src, size_t bytes)
{
	struct gpu_heap *h = heap->priv;
	(void)ctx;
	return offset + bytes <= heap->bytes &&
			       hipMemcpy(h->mine + offset, src, bytes, hipMemcpyHostToDevice) == hipSuccess
		       ? FGO_OK
		       : FGO_EFAIL;
}

/* Timed launches must not find their inputs in L2 from the iteration
 * before: when this rank's working set is under 2 x L2, overwrite 2 x L2
 * bytes on the stream first (outside the events). */
static hipError_t flush_l2(struct fgo_backend_ctx *ctx, const struct fgo_runnable *run)
{
	if (!ctx->l2_flush || run->lay.heap_bytes >= 2 * ctx->l2_bytes)
		return hipSuccess;
	return hipMemsetAsync(ctx->l2_flush, 0, 2 * ctx->l2_bytes, ctx->stream);
}

/* A test hook for the regression checks (tests/gpu/nightly.sh): with
 * FGOBENCH_PLANT_SLOW_NS=N every launch of a run's kernel is followed, on
 * the same stream and so inside the timed region, by a spin of N ns: the
 * same configurations made slower on purpose, which `regress` must catch. */
static int plant_slow(struct fgo_backend_ctx *ctx, char *err, size_t len)
{
	static long long ns = -1;
	if (ns < 0) {
		const char *v = getenv("FGOBENCH_PLANT_SLOW_NS");
		ns = v && *v ? atoll(v) : 0;
		if (ns < 0)
			ns = 0;
	}
	return ns > 0 ? gpu_check_spin(ctx->check, (unsigned long long)ns, err, len) : FGO_OK;
}

/* Enqueues the configuration's kernel in mode on the stream (and, unless
 * the mode has no communication, the copy engine's part of it), without
 * events. */
static int enqueue(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, enum fgo_mode mode,
		   double timeout_s, char *err, size_t len)
{
	struct gpu_heap *h = run->heap->priv;
	int rank = run->heap->rank, m = (int)mode;
	unsigned int epoch = ++h->epoch;
	unsigned long long a = run->lay.a.offset, b = run->lay.b.offset, c = run->lay.c.offset,
			   w = run->lay.work_offset, f = run->lay.flags_offset, s = h->status_off,
			   t = (unsigned long long)(timeout_s * 1e9);
	/* in the order of FGO_KERNEL_PARAMS (kernels/gemm_core.h), then the wgmma
	 * core's tensor maps (FGO_TMAP_PARAMS: A of every block as one
	 * parameter, B, C of every block as one; a kernel without them reads
	 * only the parameters it has) */
	const int world = run->heap->world;
	void *args[] = { &h->device_bases, &rank, &epoch, &m, &a, &b, &c, &w, &f, &s, &t, run->maps,
			 run->maps ? run->maps + world : NULL, run->maps ? run->maps + world + 1 : NULL };
	const int engine = run->n_copies > 0 && mode != FGO_MODE_GEMM_ONLY;
	fgo_drv_result r;

	if (run->user) /* a user kernel: its own launch and argument */
		return gpu_user_enqueue(run->user, &run->cfg, &run->lay, m, rank, world, epoch,
					h->device_bases, (unsigned int *)(h->mine + h->status_off),
					timeout_s, ctx->stream, err, len) != FGO_OK
			       ? FGO_EFAIL
			       : plant_slow(ctx, err, len);

	/* the copy engine's chunks beside the kernel, their flags raised as
	 * they land (the kernel waits for them) */
	if (engine && gpu_engine_fork(&ctx->engine, ctx->stream, run->heap->base, rank,
				      (unsigned int *)(h->mine + run->lay.flags_offset), run->copies,
				      run->n_copies, epoch, err, len) != FGO_OK)
		return FGO_EFAIL;
	r = hipModuleLaunchKernel(run->main, run->grid, 1, 1, run->threads, 1, 1, run->smem,
				  ctx->stream, args, NULL);
	if (fgo_cu(r) != hipSuccess) {
		snprintf(err, len, "launching the kernel failed: %s", fgo_cu_text(r));
		return FGO_EFAIL;
	}
	if (engine && gpu_engine_join(&ctx->engine, ctx->stream, err, len) != FGO_OK)
		return FGO_EFAIL;
	return plant_slow(ctx, err, len);
}

static int gpu_launch(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, enum fgo_mode mode,
		      double timeout_s, double *ms, char *err, size_t len)
{
	struct gpu_heap *h = run->heap->priv;
	unsigned int status[2] = { 0, 0 };
	float elapsed = 0;

	CHECK(flush_l2(ctx, run), "flushing L2");
	if (run->trace.dev && gpu_trace_begin(&run->trace, ctx->stream, err, len) != FGO_OK)
		return FGO_EFAIL;
	CHECK(hipEventRecord(ctx->start, ctx->stream), "recording an event");
	if (enqueue(ctx, run, mode, timeout_s, err, len) != FGO_OK)
		return FGO_EFAIL;
	CHECK(hipEventRecord(ctx->stop, ctx->stream), "recording an event");
	CHECK(hipEventSynchronize(ctx->stop), "running the kernel");
	CHECK(hipEventElapsedTime(&elapsed, ctx->start, ctx->stop), "reading the events");
	CHECK(hipMemcpy(status, h->mine + h->status_off, sizeof status, hipMemcpyDeviceToHost),
	      "reading the status");
	*ms = elapsed;
	if (status[0] == 2) { /* kernels/core_wgmma.h: mbar_wait, WG_BAR_* */
		const unsigned int bar = status[1] - 1, stages = (unsigned int)run->cfg.num_stages;
		static const char *const names[] = { "full", "empty", "staged", "freed" };
		hipMemset(h->mine + h->status_off, 0, STATUS_BYTES);
		snprintf(err, len,
			 "the wgmma pipeline stalled: the %s barrier of %s %u did not complete in %g s"
			 " (a fault of the core, not of the configuration)",
			 names[bar < 2 * stages ? bar / stages : 2 + (bar - 2 * stages) / 2],
			 bar < 2 * stages ? "stage" : "consumer",
			 bar < 2 * stages ? bar % stages : (bar - 2 * stages) % 2, timeout_s);
		return FGO_EFAIL;
	}
	if (status[0]) {
		hipMemset(h->mine + h->status_off, 0, STATUS_BYTES);
		snprintf(err, len,
			 "a flag wait gave up after %g s: flag %u of rank %d (layout: %s) never arrived",
			 timeout_s, status[1] - 1, run->heap->rank, run->algo->name);
		return FGO_ETIMEOUT;
	}
	return FGO_OK;
}

/* The vendor collective needs one GPU per rank (a family without one,
 * plain gemm, runs its vendor GEMM anyway). */
static int shared_gpu_refusal(const struct fgo_runnable *run, char *err, size_t len)
{
	const struct gpu_heap *h = run->heap->priv;
	if (!h->shared_gpu || !run->algo->needs_comm)
		return 0;
	snprintf(err, len, "ranks share a GPU: the vendor collective (NCCL) needs one GPU per rank");
	return 1;
}

static int gpu_baseline(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, double timeout_s,
			double *ms, char *err, size_t len)
{
	struct gpu_heap *h = run->heap->priv;
	(void)timeout_s;
	if (shared_gpu_refusal(run, err, len))
		return FGO_EUNAVAILABLE;
	CHECK(flush_l2(ctx, run), "flushing L2");
	return gpu_vendor_baseline(ctx->vendor, h->coll, &run->cfg, &run->lay, h->mine, &run->scratch,
				   ctx->start, ctx->stop, ms, err, len);
}

/* bulk: the configuration's own kernel in GEMM-only mode, then the vendor
 * collective with the baseline's sharding, both on the stream between the
 * two events, one time: fgobench's GEMM with nothing overlapped. The
 * collective moves the baseline's bytes (its buffers, or this rank's A
 * shard for the all-gather of A; contents do not change the time). A
 * missing NCCL fails it with that reason, as it fails the baseline. */
static int gpu_bulk(struct fgo_backend_ctx *ctx, struct fgo_runnable *run, double timeout_s,
		    double *ms, char *err, size_t len)
{
	struct gpu_heap *h = run->heap->priv;
	float elapsed = 0;
	int rc;

	if (shared_gpu_refusal(run, err, len))
		return FGO_EUNAVAILABLE;
	if (run->user && run->user->modes < 3) {
		snprintf(err, len, "a user kernel without \"modes\" has no GEMM-only launch");
		return FGO_EUNAVAILABLE;
	}
	/* buffers first: cudaMalloc between the events would be timed */
	rc = gpu_vendor_scratch_alloc(ctx->vendor, h->coll, &run->cfg, &run->scratch, err, len);
	if (rc != FGO_OK)
		return rc;
	CHECK(flush_l2(ctx, run), "flushing L2");
	CHECK(hipEventRecord(ctx->start, ctx->stream), "recording an event");
	if (enqueue(ctx, run, FGO_MODE_GEMM_ONLY, timeout_s, err, len) != FGO_OK)
		return FGO_EFAIL;
	rc = gpu_vendor_collective(ctx->vendor, h->coll, &run->cfg, &run->lay, h->mine,
				   &run->scratch, err, len);
	CHECK(hipEventRecord(ctx->stop, ctx->stream), "recording an event");
	CHECK(hipEventSynchronize(ctx->stop), "running the GEMM and the vendor collective");
	if (rc != FGO_OK)
		return rc;
	CHECK(hipEventElapsedTime(&elapsed, ctx->start, ctx->stop), "reading the events");
	*ms = elapsed;
	return FGO_OK;
}

static int gpu_telemetry(struct fgo_backend_ctx *ctx, struct fgo_telemetry *t)
{
	memset(t, 0, sizeof *t);
	return gpu_telemetry_read(ctx->nvml, t);
}

/* The check on the device (gpu_check.c) works in this rank's own heap. */
static int gpu_inputs_fill(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			   const struct fgo_config *cfg, const struct fgo_layout *lay, uint64_t seed,
			   char *err, size_t len)
{
	struct gpu_heap *h = heap->priv;
	return gpu_check_inputs_fill(ctx->check, h->mine, cfg, lay, seed, err, len);
}

static int gpu_output_poison(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			     const struct fgo_config *cfg, const struct fgo_layout *lay, char *err,
			     size_t len)
{
	struct gpu_heap *h = heap->priv;
	return gpu_check_output_poison(ctx->check, h->mine, cfg, lay, err, len);
}

static int gpu_reference_make(struct fgo_backend_ctx *ctx, const struct fgo_config *cfg,
			      const struct fgo_layout *lay, uint64_t seed, char *err, size_t len)
{
	return gpu_check_reference_make(ctx->check, cfg, lay, seed, err, len);
}

static int gpu_reference_rows(struct fgo_backend_ctx *ctx, const long *rows, long count,
			      float *want, float *scale, char *err, size_t len)
{
	return gpu_check_reference_rows(ctx->check, rows, count, want, scale, err, len);
}

static int gpu_output_compare(struct fgo_backend_ctx *ctx, struct fgo_heap *heap,
			      const struct fgo_config *cfg, const struct fgo_layout *lay, double tol,
			      struct fgo_check *res, char *err, size_t len)
{
	struct gpu_heap *h = heap->priv;
	return gpu_check_output_compare(ctx->check, h->mine, cfg, lay, tol, res, err, len);
}

static void gpu_release(struct fgo_backend_ctx *ctx, struct fgo_runnable *run)
{
	if (!run)
		return;
	hipStreamSynchronize(ctx->stream);
	gpu_vendor_scratch_free(run->scratch);
	gpu_trace_close(&run->trace);
	if (run->module)
		hipModuleUnload(run->module);
	gpu_user_free(run->user);
	free(run->maps);
	free(run->copies);
	free(run);
}

static void gpu_finish(struct fgo_backend_ctx *ctx)
{
	if (!ctx)
		return;
	gpu_check_close(ctx->check); /* before the stream and the BLAS it uses */
	gpu_vendor_close(ctx->vendor);
	gpu_telemetry_close(ctx->nvml);
	hipFree(ctx->l2_flush);
	gpu_engine_close(&ctx->engine);
	hipEventDestroy(ctx->start);
	hipEventDestroy(ctx->stop);
	hipStreamDestroy(ctx->stream);
	free(ctx);
}

const struct fgo_backend fgo_backend_gpu = {
	.name = "gpu",
	/* event timing: "a resolution of around 0.5 microseconds" (CUDA
	 * runtime API, cudaEventElapsedTime; HIP's events likewise) */
	.timer_resolution_ms = 0.5e-3,
	.available = gpu_available,
	.init = gpu_init,
	.describe = gpu_describe,
	.device_memory = gpu_device_memory,
	.heap_alloc = gpu_heap_alloc,
	.heap_free = gpu_heap_free,
	.prepare = gpu_prepare,
	.prepare_traced = gpu_prepare_traced,
	.trace_read = gpu_trace_fetch,
	.precompile = gpu_precompile,
	.compiles_families = 1,
	.copy_in = gpu_copy_in,
	.launch = gpu_launch,
	.baseline = gpu_baseline,
	.matrix_peak = gpu_matrix_peak,
	.link_bandwidth = gpu_link_bandwidth,
	.link_egress = gpu_link_egress,
	.bulk = gpu_bulk,
	.telemetry = gpu_telemetry,
	.memory_bandwidth = gpu_memory_bandwidth,
	.read_floor = gpu_read_floor,
	.collective_curve = gpu_collective_curve,
	.inputs_fill = gpu_inputs_fill,
	.output_poison = gpu_output_poison,
	.reference_make = gpu_reference_make,
	.reference_rows = gpu_reference_rows,
	.output_compare = gpu_output_compare,
	.reference_bytes = gpu_check_reference_bytes,
	.inputs_digest = gpu_inputs_digest,
	.health = gpu_health,
	.release = gpu_release,
	.finish = gpu_finish,
};
