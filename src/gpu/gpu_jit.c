/* gpu_jit.c: NVRTC / hiprtc compilation of embedded kernels, cached on
 * disk by a hash of (source and headers, options, architecture, compiler
 * version), as Triton caches its kernels. The image is a cubin on NVIDIA,
 * an AMDGPU code object on AMD: either is what hipModuleLoadData takes.
 * An entry is verified when read (its length and hash): a damaged one is
 * compiled again and replaced, with one note per process. The cache is
 * the user's own folder (kcache.h: never /tmp), refused when it, or an
 * entry read from it, is another user's or writable by others. */
#include "gpu/gpu_jit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algos/kit.h"
#include "atomic_file.h"
#include "embed.h"
#include "fgo.h"
#include "gpu/gpu_jit_clang.h"
#include "kcache.h"
#include "hip_port.h"

/* The headers kernels may include: every embedded header under kernels/, by the
 * name they include it with. */
#define MAX_HEADERS 32

static int kernel_headers(const char **names, const char **texts)
{
	int n = 0;
	for (const struct fgo_embedded_file *f = fgo_embedded; f->path && n < MAX_HEADERS; f++) {
		size_t l = strlen(f->path);
		if (strncmp(f->path, "kernels/", 8) == 0 && l > 2 && strcmp(f->path + l - 2, ".h") == 0) {
			names[n] = f->path + 8;
			texts[n++] = f->text;
		}
	}
	return n;
}

#ifndef FGO_CUDA_INCLUDE
#define FGO_CUDA_INCLUDE "/usr/local/cuda/include"
#endif

void gpu_jit_defines(const struct fgo_algo *algo, const struct fgo_config *cfg, char *out,
		     size_t len)
{
	struct fgo_gemm_dims d;
	int at;
	algo_gemm_dims(algo, cfg, &d);
	at = snprintf(out, len,
		      "-DDTYPE=%d -DWORLD=%d -DM_=%ldL -DN_=%ldL -DK_=%ldL -DNFULL=%ldL -DMFULL=%ldL"
		      " -DLDA=%ldL -DLDB=%ldL -DBLOCKS=%d"
		      " -DBLK_M=%d -DBLK_N=%d -DBLK_K=%d -DNUM_STAGES=%d -DNUM_WARPS=%d -DMMA=%d"
		      " -DGSIZE_M=%d -DGEMM_SMS=%d -DCOMM_SMS=%d -DCOMM_BLK_M=%d -DCOMM_BLK_N=%d",
		      (int)cfg->dtype, cfg->world, d.m, d.n, d.k, cfg->n, cfg->m, d.lda, d.ldb,
		      d.blocks, cfg->blk_m, cfg->blk_n, cfg->blk_k, cfg->num_stages, cfg->num_warps,
		      cfg->mma, cfg->gsize_m, cfg->gemm_sms, cfg->comm_sms, cfg->comm_blk_m,
		      cfg->comm_blk_n);
	if ((cfg->split_k > 1 || cfg->gemm_sms > 0) && at > 0 && (size_t)at < len) {
		/* the walk (kernels/schedule.h) and where the layout put its
		 * exchange: split-K sums or Stream-K slots, and their flags
		 * (kit_xchg_place) */
		struct fgo_layout lay;
		int streamk = cfg->split_k > 1 ? 0 : 1;
		algo->layout(cfg, 0, &lay);
		at += snprintf(out + at, len - (size_t)at,
			       " -DSPLIT_K=%d -DSTREAM_K=%d -DXCHG_OFF=%zuull -DXCHG_FLAG0=%zuL", cfg->split_k,
			       streamk, lay.xchg_offset, lay.xchg_flag0);
		/* only when asked: every kernel cached before keeps its key */
		if (cfg->deterministic && at > 0 && (size_t)at < len)
			at += snprintf(out + at, len - (size_t)at, " -DDETERMINISTIC=1");
		/* a Stream-K walk whose tiles are cut into few pieces hands
		 * them over through slots (kit_sk_slots) */
		struct sched_grid g = sched_grid_make(d.m, d.n, d.k, cfg->blk_m, cfg->blk_n, cfg->blk_k);
		struct sched_walk w = kit_walk_of(cfg, &g, d.blocks);
		if (kit_sk_slots(cfg, &w) && at > 0 && (size_t)at < len)
			at += snprintf(out + at, len - (size_t)at, " -DWG_SK_SLOTS=1");
	}
	/* only when asked, as DETERMINISTIC */
	if (cfg->cluster > 1 && at > 0 && (size_t)at < len)
		at += snprintf(out + at, len - (size_t)at, " -DCLUSTER=%d", cfg->cluster);
	if (algo->gpu_variant && at > 0 && (size_t)at < len)
		snprintf(out + at, len - (size_t)at, " -D%s=1", algo->gpu_variant);
}

int gpu_jit_cache_dir(char *out, size_t len, char *err, size_t elen)
{
	return kcache_dir(NULL, out, len, err, elen);
}

/* A cache entry, KEY.bin: a header, then the image. The header lets a
 * reader tell a whole entry from one overwritten or cut short (a full disk,
 * a copy interrupted, a bit flipped): the image's length and hash must
 * match. Integers in the host's byte order (an entry copied to a host of
 * the other order reads as damaged and is compiled again). An entry of an
 * fgobench before the header (the bare image) reads as damaged too: its
 * integrity cannot be told, and compiling it again costs a second. */
#define ENTRY_MAGIC "FGOKCACH"
#define ENTRY_VERSION 1u

struct entry_header {
	char magic[8];     /* ENTRY_MAGIC, no terminating zero */
	uint32_t version;  /* ENTRY_VERSION */
	uint32_t reserved; /* 0 */
	uint64_t length;   /* bytes of image after the header */
	uint64_t hash;     /* fnv1a64 of those bytes */
};

enum entry_state {
	ENTRY_ABSENT,  /* no such file (or not a plain file: never followed) */
	ENTRY_OK,      /* *image holds the verified image */
	ENTRY_DAMAGED, /* there, but not a whole entry of this format */
	ENTRY_REFUSED, /* another user's, or writable by others (why in err) */
};

/* Reads and verifies the entry at path into a malloc'd *image of *size
 * bytes. A symbolic link is not followed (ENTRY_ABSENT: it is replaced,
 * not written through, when the kernel is compiled). */
static enum entry_state read_entry(const char *path, void **image, size_t *size, char *err,
				   size_t elen)
{
	struct entry_header hd;
	struct stat sb;
	int fd;
	char *data = NULL;
	size_t got = 0;

	*image = NULL;
	*size = 0;
	if (kcache_open(path, &fd, err, elen) != FGO_OK)
		return ENTRY_REFUSED;
	if (fd < 0)
		return ENTRY_ABSENT;
	if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof hd + 1 ||
	    !(data = malloc((size_t)sb.st_size))) {
		close(fd);
		return ENTRY_DAMAGED;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, data + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	memcpy(&hd, data, sizeof hd);
	if (got != (size_t)sb.st_size || memcmp(hd.magic, ENTRY_MAGIC, 8) != 0 ||
	    hd.version != ENTRY_VERSION || hd.length != got - sizeof hd ||
	    hd.hash != fnv1a64(data + sizeof hd, got - sizeof hd)) {
		free(data);
		return ENTRY_DAMAGED;
	}
	memmove(data, data + sizeof hd, got - sizeof hd);
	*image = data;
	*size = got - sizeof hd;
	return ENTRY_OK;
}

/* Whole or not at all (atomic_file.h): ranks compiling or reading the same
 * kernel at once never see half a file, and a damaged entry (or a symbolic
 * link) is replaced by the rename, never written through. A cache that
 * cannot be written is not an error (the kernel is just compiled again
 * next time). */
static void write_entry(const char *path, const void *image, size_t size)
{
	struct atomic_file af;
	struct entry_header hd = { .version = ENTRY_VERSION, .length = size };
	char why[256];
	memcpy(hd.magic, ENTRY_MAGIC, 8);
	hd.hash = fnv1a64(image, size);
	if (atomic_open(&af, path, why, sizeof why) != FGO_OK)
		return;
	if (fwrite(&hd, sizeof hd, 1, af.f) != 1 || fwrite(image, 1, size, af.f) != size)
		atomic_abort(&af);
	else
		atomic_commit(&af, why, sizeof why);
}

/* Says once per process that an entry was damaged and compiled again:
 * the first one named, the others (a whole cache of an older fgobench)
 * silently. */
static void note_damaged(const char *path)
{
	static atomic_int said;
	if (!atomic_exchange(&said, 1))
		note("note: the kernel cache entry %s was damaged (or written by an older"
		     " fgobench); recompiled", path);
}

/* Splits opts on blanks into argv (opts is modified). */
static int split(char *opts, const char **argv, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *p = strtok_r(opts, " ", &save); p && n < max; p = strtok_r(NULL, " ", &save))
		argv[n++] = p;
	return n;
}

int gpu_jit_compile(const char *source, const char *defines, const char *arch, void **image,
		    size_t *size, int *cached, char *err, size_t len)
{
	const char *text = embedded_text(source);
	*image = NULL;
	*cached = 0;
	if (!text) {
		snprintf(err, len, "no kernel source %s in this build", source);
		return FGO_EUSAGE;
	}
	return gpu_jit_compile_text(source, text, 0, NULL, NULL, defines, arch, image, size, cached,
				    err, len);
}

int gpu_jit_compile_text(const char *source, const char *text, int n_extra,
			 const char *const *extra_names, const char *const *extra_texts,
			 const char *defines, const char *arch, void **image, size_t *size,
			 int *cached, char *err, size_t len)
{
	const char *headers[MAX_HEADERS + 8], *header_names[MAX_HEADERS + 8];
	int n_headers = kernel_headers(header_names, headers);
	char opts[2048], key_text[64], path[1200];
	int major = 0, minor = 0;

	*image = NULL;
	*cached = 0;
	/* a user kernel's own headers, by the names its source includes them with */
	for (int i = 0; i < n_extra && n_headers < MAX_HEADERS + 8; i++) {
		header_names[n_headers] = extra_names[i];
		headers[n_headers++] = extra_texts[i];
	}
#if defined(FGO_GPU_HIP)
	/* clang without ROCm (gpu_jit_clang.c), or hiprtc: arch is the gfx
	 * target (gfx90a, gfx942); hiprtc finds the HIP headers itself (no -I) */
	const char *hip_cc = gpu_hip_compiler();
	const int use_clang = strcmp(hip_cc, "hiprtc") != 0;
	if (use_clang)
		snprintf(opts, sizeof opts, "%s --offload-arch=%s clang=%s", defines, arch,
			 gpu_clang_version(hip_cc));
	else
		snprintf(opts, sizeof opts, "%s --offload-arch=%s -std=c++17 -DFGO_HIPRTC=1", defines, arch);
	if (!use_clang)
		hiprtcVersion(&major, &minor);
#else
	hiprtcVersion(&major, &minor);
	snprintf(opts, sizeof opts, "%s --gpu-architecture=%s -I" FGO_CUDA_INCLUDE " --std=c++17 -default-device",
		 defines, arch);
#endif

	/* The cache key covers everything that changes the binary. */
	uint64_t h = fnv1a64(text, strlen(text));
	for (int i = 0; i < n_headers; i++)
		h ^= fnv1a64(headers[i], strlen(headers[i])) * (uint64_t)(i + 3);
	h ^= fnv1a64(opts, strlen(opts)) * 7;
	h += (uint64_t)(major * 1000 + minor);
	snprintf(key_text, sizeof key_text, "%016llx", (unsigned long long)h);
	char dir[1024];
	if (gpu_jit_cache_dir(dir, sizeof dir, err, len) != FGO_OK)
		return FGO_EFAIL;
	snprintf(path, sizeof path, "%s/%s.bin", dir, key_text);
	enum entry_state state = read_entry(path, image, size, err, len);
	if (state == ENTRY_REFUSED)
		return FGO_EFAIL;
	if (state == ENTRY_OK) {
		*cached = 1;
		return FGO_OK;
	}

#if defined(FGO_GPU_HIP)
	if (use_clang) {
		int rc = gpu_clang_compile(hip_cc, source, text, n_headers, header_names, headers, defines,
					   arch, image, size, err, len);
		if (rc != FGO_OK)
			return rc;
		write_entry(path, *image, *size);
		if (state == ENTRY_DAMAGED)
			note_damaged(path);
		return FGO_OK;
	}
#endif
	hiprtcProgram prog;
	const char *argv[64];
	char work[2048];
	snprintf(work, sizeof work, "%s", opts);
	int argc = split(work, argv, 64);
	hiprtcResult r = hiprtcCreateProgram(&prog, text, source, n_headers, headers, header_names);
	if (r != HIPRTC_SUCCESS) {
		snprintf(err, len, "JIT: cannot create the program: %s", hiprtcGetErrorString(r));
		return FGO_EFAIL;
	}
	r = hiprtcCompileProgram(prog, argc, argv);
	if (r != HIPRTC_SUCCESS) {
		size_t n = 0;
		hiprtcGetProgramLogSize(prog, &n);
		char *log = malloc(n + 1);
		if (log) {
			hiprtcGetProgramLog(prog, log);
			log[n] = 0;
			for (char *p = log; *p; p++)
				if (*p == '\n')
					*p = ' ';
		}
		snprintf(err, len, "does not compile for %s: %.400s", arch, log ? log : "(no log)");
		free(log);
		hiprtcDestroyProgram(&prog);
		return FGO_EUSAGE;
	}
	hiprtcGetCodeSize(prog, size);
	*image = malloc(*size);
	if (!*image) {
		hiprtcDestroyProgram(&prog);
		snprintf(err, len, "out of memory for a %zu-byte kernel", *size);
		return FGO_EFAIL;
	}
	hiprtcGetCode(prog, *image);
	hiprtcDestroyProgram(&prog);
	write_entry(path, *image, *size);
	if (state == ENTRY_DAMAGED)
		note_damaged(path);
	return FGO_OK;
}

int gpu_jit_load(const char *source, const char *defines, const char *arch, hipModule_t *mod,
		 char *err, size_t len)
{
	char why[FGO_REASON_MAX];
	void *image = NULL;
	size_t size = 0;
	int cached = 0;

	*mod = NULL;
	if (gpu_jit_compile(source, defines, arch, &image, &size, &cached, why, sizeof why) !=
	    FGO_OK) {
		snprintf(err, len, "%s: %s", source, why);
		return FGO_EFAIL;
	}
	fgo_drv_result r = hipModuleLoadData(mod, image);
	free(image);
	if (fgo_cu(r) != hipSuccess) {
		*mod = NULL;
		snprintf(err, len, "loading %s for %s failed: %s", source, arch, fgo_cu_text(r));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_jit_function(hipModule_t mod, const char *source, const char *name, hipFunction_t *fn,
		     char *err, size_t len)
{
	fgo_drv_result r = hipModuleGetFunction(fn, mod, name);
	if (fgo_cu(r) != hipSuccess) {
		snprintf(err, len, "%s has no kernel %s: %s", source, name, fgo_cu_text(r));
		return FGO_EFAIL;
	}
	return FGO_OK;
}
