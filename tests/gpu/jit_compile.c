/* jit_compile.c: compiles an embedded kernel source with NVRTC exactly as
 * the GPU backend does (gpu_jit_compile), on a machine without a GPU, so a
 * kernel's compile errors show before GPU time is spent. Prints
 * "PASS jit-SOURCE-ARCH (N bytes)" or "FAIL ...: the compiler's log".
 *   make GPU=cuda
 *   cc -std=c11 -Isrc -Ikernels -DFGO_GPU_CUDA -I/usr/local/cuda/include \
 *      $(mpicc --showme:compile) tests/gpu/jit_compile.c build/cuda/obj/libfgo.a \
 *      -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lnvrtc -lcuda -lcudart_static \
 *      -lsqlite3 -lcjson -lm $(mpicc --showme:link) -ldl -lpthread -lrt -o build/cuda/jit_compile
 *   mkdir -p /tmp/stub && ln -sf /usr/local/cuda/lib64/stubs/libcuda.so /tmp/stub/libcuda.so.1
 *   FGOBENCH_CACHE=$(mktemp -d) LD_LIBRARY_PATH=/tmp/stub:/usr/local/cuda/lib64 \
 *      build/cuda/jit_compile sm_90a kernels/calibrate.hip "-DCALIB_THREADS=256"
 * (an empty FGOBENCH_CACHE makes NVRTC compile rather than read the cache) */
#include <stdio.h>
#include <stdlib.h>

#include "fgo.h"
#include "gpu/gpu_jit.h"

int main(int argc, char **argv)
{
	char err[2048];
	void *image = NULL;
	size_t size = 0;
	int cached = 0;
	if (argc < 3) {
		fprintf(stderr, "usage: jit_compile ARCH SOURCE [DEFINES]\n");
		return 2;
	}
	int rc = gpu_jit_compile(argv[2], argc > 3 ? argv[3] : "", argv[1], &image, &size, &cached,
				 err, sizeof err);
	if (rc != FGO_OK) {
		printf("FAIL jit-%s-%s: %s\n", argv[2], argv[1], err);
		return 1;
	}
	printf("PASS jit-%s-%s (%zu bytes%s)\n", argv[2], argv[1], size, cached ? ", from the cache" : "");
	free(image);
	return 0;
}
