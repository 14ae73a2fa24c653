/* runner_memory.c: what a plan needs of a node's memory (heaps, the
 * references kept beside them) checked before anything is allocated, and
 * the backend opened for a session. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fgo.h"
#include "runner_impl.h"

/* Matrices past 2^50 elements are far beyond any memory; their tile counts
 * and byte counts would overflow the layouts' long and size_t arithmetic,
 * so such a configuration is never laid out (layout_of). */
#define ELEMENTS_MAX 1125899906842624.0

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
static double reference_need(const struct fgo_backend *be, const struct fgo_config *cfg,
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

int runner_backend_open(MPI_Comm comm, const char *backend, const struct fgo_plan *plan,
			size_t heap_limit, const char *what, const struct fgo_backend **be,
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
	if (runner_memory_check(comm, plan, *be, heap_limit, big, sizeof big) != FGO_OK) {
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
		double ref = reference_need(be, cfg, &lay);
		if (!heap_on_host)
			heap += ref; /* on the device, beside the heap */
		if (device > 0 && heap * per_device > device) {
			snprintf(err, len,
				 "configuration %zu (%s %s W=%d M=%ld N=%ld K=%ld) needs %.1f GiB of GPU"
				 " memory per device (%d rank%s x %.1f GiB of heap and reference), more than its %.1f GiB"
				 " (use smaller shapes, or a --heap-size under %.1fG to store such"
				 " configurations as invalid)",
				 i + 1, cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m,
				 cfg->n, cfg->k, heap * per_device / 1073741824.0, per_device,
				 per_device == 1 ? "" : "s", heap / 1073741824.0, device / 1073741824.0,
				 device / per_device / 1073741824.0);
			return FGO_EUSAGE;
		}
		double per_rank = heap_on_host ? heap + ref : 0;
		if (per_rank * ranks <= have)
			continue;
		snprintf(err, len,
			 "configuration %zu (%s %s W=%d M=%ld N=%ld K=%ld) needs %.1f GiB of memory on"
			 " a node (%d rank%s x %.1f GiB), more than its %.1f GiB (use smaller shapes,"
			 " or a --heap-size under %.1fG to store such configurations as invalid)",
			 i + 1, cfg->algorithm, dtype_name(cfg->dtype), cfg->world, cfg->m,
			 cfg->n, cfg->k, per_rank * ranks / 1073741824.0, ranks, ranks == 1 ? "" : "s",
			 per_rank / 1073741824.0, have / 1073741824.0,
			 have / ranks / 1073741824.0);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

