/* gpu_user.c: a user kernel's GPU form on the GPU backend (gpu_user.h).
 * The shipped kernels' JIT and cache (gpu_jit.c) compile it; what is its
 * own is the source (the manifest's "gpu" file, not embedded), the
 * defines (user_defines: its tunables' macros, and the problem's with
 * "shape_macros"), the launch (three dimensions from the
 * manifest) and the argument (struct fgo_user_args, by value). */
#include "gpu/gpu_user.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "fgo_user.h"
#include "gpu/gpu_jit.h"
#include "user/user.h"

/* The -D options of cfg's GPU form in mode (user_defines: the same
 * macros as the C form's). */
static int gpu_defines(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
		       char *out, size_t len, char *err, size_t elen)
{
	struct user_define d[USER_DEFINES_MAX];
	int n = user_defines(k, cfg, mode, d, err, elen);
	size_t at = 0;
	if (n < 0)
		return FGO_EUSAGE;
	out[0] = 0;
	for (int i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s-D%s=%lld%s", i ? " " : "", d[i].name,
				       d[i].value, d[i].suffix);
	return at < len ? FGO_OK : FGO_EFAIL;
}

/* The basenames the manifest's headers are included by. */
static int extra_headers(const struct fgo_user_kernel *k, const char **names, const char **texts)
{
	for (int i = 0; i < k->nheaders; i++) {
		const char *slash = strrchr(k->headers[i], '/');
		names[i] = slash ? slash + 1 : k->headers[i];
		texts[i] = k->header_text[i];
	}
	return k->nheaders;
}

static int compile_mode(const struct fgo_user_kernel *k, const struct fgo_config *cfg, int mode,
			const char *arch, int keep_image, struct gpu_compiled *out, char *err,
			size_t len)
{
	char defines[1024];
	const char *names[USER_HEADERS_MAX], *texts[USER_HEADERS_MAX];
	int n = extra_headers(k, names, texts), cached = 0;
	double t0 = now_seconds();
	int rc = gpu_defines(k, cfg, mode, defines, sizeof defines, err, len);
	if (rc != FGO_OK) {
		out->status = GPU_COMPILE_FAILED;
		return FGO_EFAIL;
	}
	rc = gpu_jit_compile_text(k->gpu_source, k->gpu_text, n, names, texts, defines, arch,
				  &out->image, &out->bytes, &cached, err, len);
	out->seconds += now_seconds() - t0;
	if (rc != FGO_OK) {
		out->status = rc == FGO_EUSAGE ? GPU_COMPILE_ERROR : GPU_COMPILE_FAILED;
		return rc;
	}
	out->status = cached ? GPU_COMPILE_CACHED : GPU_COMPILE_COMPILED;
	out->registers = gpu_cubin_registers(out->image, out->bytes, k->entry);
	if (!keep_image) {
		free(out->image);
		out->image = NULL;
	}
	return FGO_OK;
}

int gpu_user_compile(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
		     const char *arch, int smem_limit, int keep_image, struct gpu_compiled *out,
		     char *err, size_t len)
{
	struct user_launch l;
	memset(out, 0, sizeof *out);
	if (!k->gpu_text) {
		snprintf(err, len, "%s has no GPU form (its manifest's \"source\" gives no \"gpu\")",
			 k->algorithm);
		out->status = GPU_COMPILE_SKIPPED;
		return FGO_EUSAGE;
	}
	if (user_launch_of(k, cfg, &l, err, len) != FGO_OK) {
		out->status = GPU_COMPILE_INVALID;
		return FGO_EUSAGE;
	}
	out->shape.core = GPU_CORE_SIMT;
	out->shape.threads = (unsigned int)(l.block[0] * l.block[1] * l.block[2]);
	out->shape.smem_bytes = (unsigned int)l.smem;
	if (smem_limit > 0 && l.smem > smem_limit) {
		snprintf(err, len, "the launch asks for %lld bytes of dynamic shared memory a CTA, more"
			 " than the %d this GPU allows", l.smem, smem_limit);
		out->status = GPU_COMPILE_INVALID;
		return FGO_EUSAGE;
	}
	/* the halves first, so the fused one's image is what stays in out */
	for (int mode = k->modes ? FGO_MODE_COMM_ONLY : FGO_MODE_FUSED; mode >= FGO_MODE_FUSED; mode--) {
		int rc = compile_mode(k, cfg, mode, arch, keep_image && mode == FGO_MODE_FUSED, out,
				      err, len);
		if (rc != FGO_OK)
			return rc;
	}
	return FGO_OK;
}

void gpu_user_free(struct gpu_user_launch *l)
{
	if (!l)
		return;
	for (int m = 0; m < 3; m++)
		if (l->module[m])
			hipModuleUnload(l->module[m]);
	free(l);
}

int gpu_user_prepare(const struct fgo_user_kernel *k, const struct fgo_config *cfg,
		     const char *arch, int smem_limit, struct gpu_user_launch **out, int *registers,
		     char *reason, size_t len)
{
	struct gpu_user_launch *l = calloc(1, sizeof *l);
	struct user_launch shape;
	*out = NULL;
	*registers = 0;
	if (!l) {
		snprintf(reason, len, "out of host memory");
		return FGO_EFAIL;
	}
	if (!k->gpu_text) {
		snprintf(reason, len, "%s has no GPU form (its manifest's \"source\" gives no \"gpu\"):"
			 " the GPU backend cannot run it", k->algorithm);
		free(l);
		return FGO_EUSAGE;
	}
	if (user_launch_of(k, cfg, &shape, reason, len) != FGO_OK) {
		free(l);
		return FGO_EUSAGE;
	}
	if (smem_limit > 0 && shape.smem > smem_limit) {
		snprintf(reason, len, "the launch asks for %lld bytes of dynamic shared memory a CTA,"
			 " more than the %d this GPU allows", shape.smem, smem_limit);
		free(l);
		return FGO_EUSAGE;
	}
	for (int d = 0; d < 3; d++) {
		l->grid[d] = (unsigned int)shape.grid[d];
		l->block[d] = (unsigned int)shape.block[d];
	}
	l->smem = (unsigned int)shape.smem;
	l->modes = k->modes ? 3 : 1;
	for (int mode = 0; mode < l->modes; mode++) {
		struct gpu_compiled c;
		memset(&c, 0, sizeof c);
		int rc = compile_mode(k, cfg, mode, arch, 1, &c, reason, len);
		if (rc == FGO_OK && fgo_cu(hipModuleLoadData(&l->module[mode], c.image)) != hipSuccess) {
			snprintf(reason, len, "loading the compiled %s failed", k->gpu_source);
			rc = FGO_EFAIL;
		}
		free(c.image);
		if (rc == FGO_OK &&
		    fgo_cu(hipModuleGetFunction(&l->fn[mode], l->module[mode], k->entry)) != hipSuccess) {
			snprintf(reason, len, "%s has no kernel \"%s\" (the manifest's \"entry\"; is it"
				 " extern \"C\"?)", k->gpu_source, k->entry);
			rc = FGO_EFAIL;
		}
		if (rc == FGO_OK)
			fgo_func_max_dynamic_smem(l->fn[mode], (int)l->smem);
		if (rc == FGO_OK && mode == 0)
			*registers = c.registers;
		if (rc != FGO_OK) {
			gpu_user_free(l);
			return rc == FGO_EUSAGE ? FGO_EFAIL : rc; /* a compile error fails the run */
		}
	}
	*out = l;
	return FGO_OK;
}

int gpu_user_enqueue(const struct gpu_user_launch *l, const struct fgo_config *cfg,
		     const struct fgo_layout *lay, int mode, int rank, int world, unsigned int epoch,
		     char *const *heap_bases, unsigned int *status, double timeout_s,
		     hipStream_t stream, char *err, size_t len)
{
	struct fgo_user_args a;
	user_args_fill(&a, cfg, lay, rank, world, epoch, heap_bases);
	a.timeout_ns = (long long)(timeout_s * 1e9);
	a.status = status;
	int m = mode < l->modes ? mode : 0;
	void *args[] = { &a };
	fgo_drv_result r = hipModuleLaunchKernel(l->fn[m], l->grid[0], l->grid[1], l->grid[2],
						 l->block[0], l->block[1], l->block[2], l->smem, stream,
						 args, NULL);
	if (fgo_cu(r) != hipSuccess) {
		snprintf(err, len, "launching the kernel failed: %s", fgo_cu_text(r));
		return FGO_EFAIL;
	}
	return FGO_OK;
}
