/* gpu_compile.c: one configuration into the kernel cache (see
 * gpu_compile.h), and the register count read back from a cubin (an AMD
 * code object reads as 0: the backend then has the count from the loaded
 * module). */
#include "gpu/gpu_compile.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "fgo.h"
#include "gpu/gpu_amd_image.h"
#include "gpu/gpu_jit.h"
#include "gpu/gpu_jit_clang.h"
#include "gpu/gpu_user.h"
#include "hip_port.h"

const char *gpu_compile_status_name(enum gpu_compile_status s)
{
	static const char *const names[] = { "compiled", "cached", "skipped",
					     "invalid",  "error",  "failed" };
	return (unsigned)s < FGO_ARRAY_SIZE(names) ? names[s] : "?";
}

int gpu_compile_config(const struct fgo_algo *algo, const struct fgo_config *cfg,
		       const char *arch, int smem_limit, int keep_image, struct gpu_compiled *out,
		       char *err, size_t len)
{
	return gpu_compile_config_traced(algo, cfg, arch, smem_limit, keep_image, 0, out, err, len);
}

int gpu_compile_config_traced(const struct fgo_algo *algo, const struct fgo_config *cfg,
			      const char *arch, int smem_limit, int keep_image, int trace_cap,
			      struct gpu_compiled *out, char *err, size_t len)
{
	char defines[1024];
	int cached = 0, rc;
	double t0 = now_seconds();

	memset(out, 0, sizeof *out);
	if (algo->user) { /* a user kernel's own GPU form (no trace hooks in it) */
		if (trace_cap > 0) {
			snprintf(err, len, "%s cannot be traced (a user kernel records no events)",
				 algo->name);
			out->status = GPU_COMPILE_SKIPPED;
			return FGO_EUSAGE;
		}
		return gpu_user_compile(algo->user, cfg, arch, smem_limit, keep_image, out, err, len);
	}
	if (!algo->gpu_source || !embedded_text(algo->gpu_source)) {
		snprintf(err, len, "no GPU kernel for %s yet", algo->name);
		out->status = GPU_COMPILE_SKIPPED;
		return FGO_EUSAGE;
	}
	if (gpu_shape_check(cfg, arch, smem_limit, &out->shape, err, len) != FGO_OK) {
		out->status = GPU_COMPILE_INVALID;
		return FGO_EUSAGE;
	}
	/* wgmma and setmaxnreg exist only in the sm_90a target */
	if (out->shape.core == GPU_CORE_WGMMA && strcmp(arch, "sm_90a") != 0) {
		snprintf(err, len, "mma=wgmma needs a Hopper GPU and the sm_90a target, not %s", arch);
		out->status = GPU_COMPILE_INVALID;
		return FGO_EUSAGE;
	}
	gpu_jit_defines(algo, cfg, defines, sizeof defines);
	if (trace_cap > 0) { /* only then: an untraced kernel's key is what it always was */
		size_t at = strlen(defines);
		snprintf(defines + at, sizeof defines - at, " -DFGO_TRACE=1 -DFGO_TRACE_CAP=%d", trace_cap);
	}
	rc = gpu_jit_compile(algo->gpu_source, defines, arch, &out->image, &out->bytes, &cached,
			     err, len);
	out->seconds = now_seconds() - t0;
	if (rc != FGO_OK) {
		out->status = rc == FGO_EUSAGE ? GPU_COMPILE_ERROR : GPU_COMPILE_FAILED;
		return rc;
	}
	out->status = cached ? GPU_COMPILE_CACHED : GPU_COMPILE_COMPILED;
	out->registers = gpu_cubin_registers(out->image, out->bytes, "fgo_main");
	struct gpu_amd_kernel k;
	if (gpu_amd_kernel_info(out->image, out->bytes, "fgo_main", &k)) {
		out->amd = 1;
		out->registers = k.vgprs - k.agprs; /* arch VGPRs, aligned to where the AGPRs start */
		out->agprs = k.agprs;
		out->scratch = k.scratch;
		out->lds = k.lds + (int)out->shape.smem_bytes;
		out->waves = gpu_amd_waves_per_simd(&k, (int)out->shape.threads, (int)out->shape.smem_bytes);
	}
	if (!keep_image) {
		free(out->image);
		out->image = NULL;
	}
	return FGO_OK;
}

#if defined(FGO_GPU_HIP)
/* AMD's code object manager, which hiprtc compiles through: ROCm 7, 5 and 6. */
static const char *const comgr_files[] = { "libamd_comgr.so.3", "libamd_comgr.so.2",
					   "libamd_comgr.so", NULL };
#endif

int gpu_compile_arch_check(const char *arch, char *err, size_t len)
{
#if defined(FGO_GPU_CUDA)
	/* sm_NN with an optional feature suffix (sm_90a, sm_100f), NN one NVRTC knows */
	int n = 0, *archs = NULL, number = 0, end = 0, ok = 0;
	size_t at = 0;
	char list[512] = "";
	if (sscanf(arch, "sm_%d%n", &number, &end) != 1 || arch[3] < '0' || arch[3] > '9')
		end = 0;
	if (end > 3 && (!arch[end] || (strchr("af", arch[end]) && !arch[end + 1])) &&
	    nvrtcGetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0 &&
	    (archs = malloc(sizeof *archs * (size_t)n)) &&
	    nvrtcGetSupportedArchs(archs) == NVRTC_SUCCESS) {
		for (int i = 0; i < n; i++)
			ok |= archs[i] == number;
	}
	if (ok) {
		free(archs);
		return FGO_OK;
	}
	for (int i = 0; archs && i < n && at < sizeof list; i++)
		at += (size_t)snprintf(list + at, sizeof list - at, "%ssm_%d", i ? ", " : "", archs[i]);
	free(archs);
	snprintf(err, len, "unknown architecture \"%s\" (NVRTC here targets %s; e.g. sm_90a)", arch,
		 list[0] ? list : "none it would list");
	return FGO_EUSAGE;
#else
	/* gfxNNN with optional target features (gfx90a, gfx90a:xnack-), NNN one
	 * that hiprtc's code object manager (comgr) lists: hiprtc 5.2 aborts on
	 * a target it does not know instead of failing. comgr stays loaded:
	 * hiprtc uses the same copy, and the LLVM inside cannot load twice. */
	size_t base = strcspn(arch, ":"), at = 0, n = 0;
	char list[512] = "";
	int known = 0, have_list, (*count)(size_t *) = NULL, (*name)(size_t, const char **) = NULL;
	void *comgr = NULL;

	if (strncmp(arch, "gfx", 3) != 0 || arch[3] < '0' || arch[3] > '9')
		base = 0;
	/* clang (no ROCm) says itself what it cannot target, without aborting */
	if (strcmp(gpu_hip_compiler(), "hiprtc") != 0) {
		if (base)
			return FGO_OK;
		snprintf(err, len, "unknown architecture \"%s\" (expected an AMD target: gfx942, gfx90a)", arch);
		return FGO_EUSAGE;
	}
	for (const char *const *f = comgr_files; *f && !comgr; f++)
		comgr = dlopen(*f, RTLD_NOW | RTLD_LOCAL);
	if (comgr) {
		*(void **)&count = dlsym(comgr, "amd_comgr_get_isa_count");
		*(void **)&name = dlsym(comgr, "amd_comgr_get_isa_name");
	}
	have_list = count && name && count(&n) == 0;
	known = base && !have_list; /* no list: hiprtc will say */
	for (size_t i = 0; have_list && i < n; i++) {
		const char *isa = NULL, *target;
		if (name(i, &isa) != 0 || !isa || !(target = strstr(isa, "--")))
			continue;
		target += 2;
		size_t tl = strcspn(target, ":");
		known |= base && tl == base && strncmp(target, arch, base) == 0;
		if (strncmp(target, "gfx9", 4) == 0 && at < sizeof list) /* the compute GPUs, as a hint */
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%.*s", at ? ", " : "",
					       (int)tl, target);
	}
	if (known)
		return FGO_OK;
	if (list[0])
		snprintf(err, len, "unknown architecture \"%s\" (hiprtc here targets %s, among others;"
			 " e.g. gfx90a)", arch, list);
	else
		snprintf(err, len, "unknown architecture \"%s\" (expected an AMD target like gfx90a)",
			 arch);
	return FGO_EUSAGE;
#endif
}

/* Section header i of the ELF image p (size bytes, header eh) into sh; 0
 * when it lies inside the image. */
static int section(const unsigned char *p, size_t size, const Elf64_Ehdr *eh, unsigned i,
		   Elf64_Shdr *sh)
{
	if (i >= eh->e_shnum)
		return -1;
	memcpy(sh, p + eh->e_shoff + (size_t)i * sizeof *sh, sizeof *sh);
	return sh->sh_type == SHT_NOBITS ||
			       (sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset)
		       ? 0
		       : -1;
}

/* The NUL-terminated string at offset off of string section strs, or "". */
static const char *string_at(const unsigned char *p, const Elf64_Shdr *strs, size_t off)
{
	if (off >= strs->sh_size || !memchr(p + strs->sh_offset + off, 0, strs->sh_size - off))
		return "";
	return (const char *)p + strs->sh_offset + off;
}

/* A cubin is an ELF file; its section ".nv.info" is a list of attribute
 * records (format byte, attribute byte, 16-bit value or payload size, then
 * the payload for format 4). EIATTR_REGCOUNT (0x2f, format 4) holds a
 * kernel's symbol index and its register count (what cuobjdump -res-usage
 * prints). */
#define EIFMT_SVAL 0x04
#define EIATTR_REGCOUNT 0x2f

int gpu_cubin_registers(const void *image, size_t size, const char *name)
{
	const unsigned char *p = image;
	Elf64_Ehdr eh;
	Elf64_Shdr sh, names, symtab, strtab, info;
	long sym = -1;
	int have_info = 0;

	if (!image || size < sizeof eh || memcmp(p, ELFMAG, SELFMAG) != 0 ||
	    p[EI_CLASS] != ELFCLASS64)
		return 0;
	memcpy(&eh, p, sizeof eh);
	if (eh.e_machine != EM_CUDA || eh.e_shentsize != sizeof sh || eh.e_shoff > size ||
	    (size - eh.e_shoff) / sizeof sh < eh.e_shnum ||
	    section(p, size, &eh, eh.e_shstrndx, &names) != 0)
		return 0;
	memset(&symtab, 0, sizeof symtab);
	memset(&info, 0, sizeof info);
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (section(p, size, &eh, i, &sh) != 0)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = sh;
		else if (strcmp(string_at(p, &names, sh.sh_name), ".nv.info") == 0)
			info = sh, have_info = 1;
	}
	if (!have_info || symtab.sh_entsize != sizeof(Elf64_Sym) ||
	    section(p, size, &eh, symtab.sh_link, &strtab) != 0)
		return 0;
	for (size_t i = 0; i < symtab.sh_size / sizeof(Elf64_Sym) && sym < 0; i++) {
		Elf64_Sym s;
		memcpy(&s, p + symtab.sh_offset + i * sizeof s, sizeof s);
		if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && strcmp(string_at(p, &strtab, s.st_name), name) == 0)
			sym = (long)i;
	}
	for (size_t at = 0; sym >= 0 && at + 4 <= info.sh_size;) {
		const unsigned char *r = p + info.sh_offset + at;
		size_t n = (size_t)r[2] | (size_t)r[3] << 8;
		uint32_t v[2];
		if (r[0] != EIFMT_SVAL) {
			at += 4;
			continue;
		}
		if (n > info.sh_size - at - 4)
			break;
		if (r[1] == EIATTR_REGCOUNT && n == sizeof v) {
			memcpy(v, r + 4, sizeof v);
			if (v[0] == (uint32_t)sym)
				return (int)v[1];
		}
		at += 4 + n;
	}
	return 0;
}
