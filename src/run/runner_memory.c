/* runner_memory.c: what a plan needs of a node's memory (heaps, the
 * references kept beside them) checked before anything is allocated, and
 * the backend opened for a session. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fgo.h"
#include "run/runner_impl.h"

/* Matrices past 2^50 elements are far beyond any memory; their tile counts
 * and byte counts would overflow the layouts' long and size_t arithmetic,
 * so such a configuration is never laid out (layout_of). */
#define ELEMENTS_MAX 1125899906842624.0

/* The default heap limit: at least this much per rank, and on a device at
 * least this much left beside the heaps and references. */
#define HEAP_DEFAULT_MIN ((double)(64 << 20))
#define HEAP_DEVICE_HEADROOM (2.0 * (1 << 30))

/* cfg's layout on rank 0; 0 with *lay zeroed when the shape is too large
 * to lay out. */
int runner_layout_of(const struct fgo_config *cfg, struct fgo_layout *lay)
{
	double m = (double)cfg->m, n = (double)cfg->n, k = (double)cfg->k;
	memset(lay, 0, sizeof *lay);
	if (m * n > ELEMENTS_MAX || m * k > ELEMENTS_MAX || k * n > ELEMENTS_MAX)
		return 0;
	algo_find(cfg->algorithm)->layout(cfg, 0, lay);
	return 1;
}

/* Bytes of heap cfg needs per rank: the layout's count or, when the shape
 * is so large that the layout's size_t arithmetic would wrap around (or it
 * has none), what every sharding holds at least (1/W of each of A, B and
 * C), whichever is more. A double, so that it cannot wrap itself. */
double runner_heap_need(const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	double e = (double)dtype_size(cfg->dtype), m = (double)cfg->m, n = (double)cfg->n,
	       k = (double)cfg->k;
	double least = e * (m * n + m * k + k * n) / (double)cfg->world;
	return (double)lay->heap_bytes < least ? least : (double)lay->heap_bytes;
}

/* Memory one rank keeps for cfg's reference outside the heap: host memory
 * on the CPU backend, device memory on a GPU. */
double runner_reference_need(const struct fgo_backend *be, const struct fgo_config *cfg,
			     const struct fgo_layout *lay)
{
	return be->reference_bytes ? be->reference_bytes(cfg, lay) : 0;
}

/* This node's memory in bytes: the physical memory, or a smaller cgroup
 * limit (a container, a batch job's allocation). */
static double node_memory(void)
{
	double bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
	static const char *const limits[] = { "/sys/fs/cgroup/memory.max",
					      "/sys/fs/cgroup/memory/memory.limit_in_bytes" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(limits); i++) {
		FILE *f = fopen(limits[i], "r");
		double v = 0;
		if (!f)
			continue;
		if (fscanf(f, "%lf", &v) == 1 && v > 0 && v < bytes)
			bytes = v;
		fclose(f);
	}
	return bytes;
}

/* Memory this node has free for a new process, in bytes: MemAvailable of
 * /proc/meminfo (what can be had without swapping), or the physical
 * memory where that cannot be read; no more than a cgroup leaves (its
 * limit less its usage). */
static double node_available(void)
{
	double bytes = 0, limit = 0, used = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %lf kB", &bytes) == 1) {
			bytes *= 1024.0;
			break;
		}
	if (f)
		fclose(f);
	if (!(bytes > 0))
		bytes = node_memory();
	if ((f = fopen("/sys/fs/cgroup/memory.max", "r"))) {
		if (fscanf(f, "%lf", &limit) != 1)
			limit = 0;
		fclose(f);
	}
	if (limit > 0 && (f = fopen("/sys/fs/cgroup/memory.current", "r"))) {
		if (fscanf(f, "%lf", &used) == 1 && limit - used < bytes)
			bytes = limit > used ? limit - used : 0;
		fclose(f);
	}
	return bytes;
}

size_t runner_heap_default(MPI_Comm comm, const struct fgo_backend *be)
{
	int node_ranks = runner_node_ranks(comm), devices = 0;
	size_t device_bytes = 0;
	double share;
	if (be->device_memory && be->device_memory(&device_bytes, &devices) == FGO_OK &&
	    devices > 0) {
		/* the device less room for what is there beside the heap and
		 * the reference: the context, cuBLAS's workspace, the vendor
		 * baseline's buffers, the L2 flush buffer */
		double headroom = (double)device_bytes / 8;
		if (headroom < HEAP_DEVICE_HEADROOM)
			headroom = HEAP_DEVICE_HEADROOM;
		int per_device = (node_ranks + devices - 1) / devices;
		share = ((double)device_bytes - headroom) / per_device;
	} else {
		/* the host: a quarter of what is available left to the system,
		 * the MPI runtime and the store */
		share = node_available() * 0.75 / node_ranks;
	}
	MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_DOUBLE, MPI_MIN, comm);
	if (share < HEAP_DEFAULT_MIN)
		share = HEAP_DEFAULT_MIN;
	return (size_t)share;
}

int runner_backend_open(MPI_Comm comm, const char *backend, const struct fgo_plan *plan,
			size_t *heap_limit, const char *what, const struct fgo_backend **be,
			struct fgo_backend_ctx **ctx, MPI_Comm *node)
{
	char err[FGO_REASON_MAX] = "", big[512];
	int rank, rc, any;

	MPI_Comm_rank(comm, &rank);
	*ctx = NULL;
	*be = backend_find(backend);
	if (!*be) {
		if (rank == 0)
			error("backend \"%s\" is not available in this build (use --backend cpu)",
			      backend);
		return FGO_EUSAGE;
	}
	if (!*heap_limit)
		*heap_limit = runner_heap_default(comm, *be);
	else if (runner_memory_check(comm, plan, *be, *heap_limit, big, sizeof big) != FGO_OK) {
		if (rank == 0)
			error("%s%s%s", what ? what : "", what ? ": " : "", big);
		return FGO_EUSAGE;
	}
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
	rc = (*be)->init(ctx, *node, err, sizeof err);
	MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
	if (any != FGO_OK) {
		if (rc != FGO_OK)
			error("backend %s: %s", (*be)->name, err);
		if (*ctx)
			(*be)->finish(*ctx);
		*ctx = NULL;
		MPI_Comm_free(node);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

int runner_memory_check(MPI_Comm comm, const struct fgo_plan *plan,
			const struct fgo_backend *be, size_t heap_limit, char *err, size_t len)
{
	int node_ranks = runner_node_ranks(comm);
	double have = node_memory(), device = 0;
	size_t device_bytes = 0;
	int devices = 0;
	MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_DOUBLE, MPI_MIN, comm);
	if (be->device_memory && be->device_memory(&device_bytes, &devices) == FGO_OK && devices > 0)
		device = (double)device_bytes;
	MPI_Allreduce(MPI_IN_PLACE, &device, 1, MPI_DOUBLE, MPI_MIN, comm);
	int heap_on_host = strcmp(be->name, "cpu") == 0;
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_config *cfg = &plan->items[i].cfg;
		struct fgo_layout lay;
		if (!plan->items[i].valid || cfg->world > node_ranks)
			continue;
		runner_layout_of(cfg, &lay);
		double heap = runner_heap_need(cfg, &lay);
		if (heap > (double)heap_limit)
			continue; /* stored as invalid, never allocated */
		/* every group of the node allocates at once */
		int ranks = node_ranks / cfg->world * cfg->world;
		/* the heap on the devices: ranks share them round-robin */
		int per_device = devices > 0 ? (ranks + devices - 1) / devices : 0;
		double ref = runner_reference_need(be, cfg, &lay);
		if (!heap_on_host)
			heap += ref; /* on the device, beside the heap */
		char total[32], each[32], has[32], under[32];
		if (device > 0 && heap * per_device > device) {
			snprintf(err, len,
				 "configuration %zu (%s %s W=%d M=%ld N=%ld K=%ld) needs %s of GPU"
				 " memory per device (%d rank%s x %s of heap and reference), more than its %s"
				 " (use smaller shapes, a --heap-size under %s to store such"
				 " configurations as invalid, or leave --heap-size out: the default follows"
				 " the memory)",
				 i + 1, cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m,
				 cfg->n, cfg->k, fmt_bytes(heap * per_device, total, sizeof total),
				 per_device, per_device == 1 ? "" : "s", fmt_bytes(heap, each, sizeof each),
				 fmt_bytes(device, has, sizeof has),
				 fmt_bytes(device / per_device, under, sizeof under));
			return FGO_EUSAGE;
		}
		double per_rank = heap_on_host ? heap + ref : 0;
		if (per_rank * ranks <= have)
			continue;
		snprintf(err, len,
			 "configuration %zu (%s %s W=%d M=%ld N=%ld K=%ld) needs %s of memory on"
			 " a node (%d rank%s x %s), more than its %s (use smaller shapes, a"
			 " --heap-size under %s to store such configurations as invalid, or leave"
			 " --heap-size out: the default follows the memory)",
			 i + 1, cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m,
			 cfg->n, cfg->k, fmt_bytes(per_rank * ranks, total, sizeof total), ranks,
			 ranks == 1 ? "" : "s", fmt_bytes(per_rank, each, sizeof each),
			 fmt_bytes(have, has, sizeof has), fmt_bytes(have / ranks, under, sizeof under));
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

