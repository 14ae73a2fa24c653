/* gpu_engine.c: the copy engine beside a kernel (see gpu_engine.h). The
 * copies are plain peer memcpys (the driver gives them to a copy engine:
 * no SM is involved, so a persistent kernel holding every SM cannot starve
 * them) and the flags are stream writes, ordered after the copy before
 * them, with the memory barrier the default flags give. */
#include "gpu/gpu_engine.h"

#include <stdio.h>
#include <stdlib.h>

#include "fgo.h"

#define CHECK FGO_HIP_CHECK

int gpu_engine_plan(const struct fgo_algo *algo, const struct fgo_config *cfg,
		    const struct fgo_layout *lay, int rank, struct fgo_engine_copy **out, int *n,
		    char *err, size_t len)
{
	*out = NULL;
	*n = 0;
	if (!algo->engine_copies || cfg->world < 2)
		return FGO_OK;
	int count = algo->engine_copies(cfg, lay, rank, NULL, 0);
	if (count <= 0)
		return FGO_OK;
	*out = malloc(sizeof **out * (size_t)count);
	if (!*out) {
		snprintf(err, len, "out of host memory");
		return FGO_EFAIL;
	}
	*n = algo->engine_copies(cfg, lay, rank, *out, count);
	return FGO_OK;
}

static int engine_open(struct gpu_engine *e, char *err, size_t len)
{
	if (e->stream)
		return FGO_OK;
	CHECK(hipStreamCreate(&e->stream), "creating the copy engine's stream");
	CHECK(hipEventCreate(&e->fork), "creating an event");
	CHECK(hipEventCreate(&e->join), "creating an event");
	return FGO_OK;
}

int gpu_engine_fork(struct gpu_engine *e, hipStream_t main, char *const *bases, int rank,
		    unsigned int *flags, const struct fgo_engine_copy *c, int n, unsigned int epoch,
		    char *err, size_t len)
{
	if (engine_open(e, err, len) != FGO_OK)
		return FGO_EFAIL;
	CHECK(hipEventRecord(e->fork, main), "recording an event");
	CHECK(hipStreamWaitEvent(e->stream, e->fork, 0), "ordering the copy engine's stream");
	for (int i = 0; i < n; i++) {
		CHECK(hipMemcpyAsync(bases[rank] + c[i].dst_offset, bases[c[i].src_rank] + c[i].src_offset,
				     c[i].bytes, hipMemcpyDefault, e->stream),
		      "queueing a copy from a peer");
		CHECK(fgo_stream_write32(e->stream, flags + c[i].flag, epoch), "queueing a flag write");
	}
	CHECK(hipEventRecord(e->join, e->stream), "recording an event");
	return FGO_OK;
}

int gpu_engine_join(struct gpu_engine *e, hipStream_t main, char *err, size_t len)
{
	CHECK(hipStreamWaitEvent(main, e->join, 0), "waiting for the copy engine");
	return FGO_OK;
}

void gpu_engine_close(struct gpu_engine *e)
{
	if (!e->stream)
		return;
	hipStreamSynchronize(e->stream);
	hipEventDestroy(e->fork);
	hipEventDestroy(e->join);
	hipStreamDestroy(e->stream);
	e->stream = NULL;
}
