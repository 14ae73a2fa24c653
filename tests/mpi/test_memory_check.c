/* test_memory_check.c: runner_memory_check (src/run/runner.c) refuses, before
 * anything is allocated, a plan whose heaps cannot fit the node's devices:
 * a stand-in GPU backend reports a device of 64 MiB, then of 64 GiB, to the
 * real check; the CPU backend (heap in host memory) is not asked; the
 * default heap limit (runner_heap_default) of both. Runs
 * under mpirun (any number of ranks). */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "config.h"
#include "fgo.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "testlib.h"

static size_t device_bytes;
static int device_count;

static int fake_device_memory(size_t *bytes, int *count)
{
	*bytes = device_bytes;
	*count = device_count;
	return FGO_OK;
}

int main(int argc, char **argv)
{
	struct fgo_backend fake = fgo_backend_cpu;
	struct fgo_plan_item item;
	struct fgo_plan plan;
	char err[512] = "";
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	fake.name = "fakegpu";
	fake.device_memory = fake_device_memory;

	/* gemm fp32 on one rank, 4096^2 x 2048: A, B and C are 32 + 32 + 64 MiB */
	memset(&item, 0, sizeof item);
	config_defaults(&item.cfg);
	snprintf(item.cfg.algorithm, sizeof item.cfg.algorithm, "gemm");
	item.cfg.dtype = FGO_FP32;
	item.cfg.world = 1;
	item.cfg.m = 4096;
	item.cfg.n = 4096;
	item.cfg.k = 2048;
	item.valid = 1;
	memset(&plan, 0, sizeof plan);
	plan.items = &item;
	plan.count = 1;
	plan.max_world = 1;

	device_bytes = (size_t)64 << 20;
	device_count = 1;
	if (rank == 0) {
		T_EQ_INT("device-too-small",
			 runner_memory_check(MPI_COMM_WORLD, &plan, &fake, (size_t)1 << 40, err, sizeof err),
			 FGO_EUSAGE);
		T_CONTAINS("device-too-small-reason", err, "GiB of GPU memory per device");
		T_CONTAINS("device-too-small-size", err, "more than its 64 MiB");
	} else {
		runner_memory_check(MPI_COMM_WORLD, &plan, &fake, (size_t)1 << 40, err, sizeof err);
	}
	device_bytes = (size_t)64 << 30;
	int rc = runner_memory_check(MPI_COMM_WORLD, &plan, &fake, (size_t)1 << 40, err, sizeof err);
	if (rank == 0)
		T_EQ_INT("device-large-enough", rc, FGO_OK);
	/* over --heap-size: stored as invalid later, not refused here */
	device_bytes = (size_t)64 << 20;
	rc = runner_memory_check(MPI_COMM_WORLD, &plan, &fake, (size_t)32 << 20, err, sizeof err);
	if (rank == 0)
		T_EQ_INT("over-heap-limit-left-to-the-run", rc, FGO_OK);
	/* the CPU backend's heap is host memory: no device asked */
	rc = runner_memory_check(MPI_COMM_WORLD, &plan, &fgo_backend_cpu, (size_t)1 << 40, err,
				 sizeof err);
	if (rank == 0)
		T_EQ_INT("cpu-backend", rc, FGO_OK);
	/* the default heap: a device less an eighth (at least 2 GiB), over the
	 * ranks sharing it; the host's available memory over the node's ranks */
	int size;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	device_bytes = (size_t)64 << 30;
	size_t dflt = runner_heap_default(MPI_COMM_WORLD, &fake);
	if (rank == 0)
		T_EQ_INT("default-device-64g", (long long)(dflt >> 20), (long long)(56 << 10) / size);
	device_bytes = (size_t)8 << 30;
	dflt = runner_heap_default(MPI_COMM_WORLD, &fake);
	if (rank == 0)
		T_EQ_INT("default-device-8g", (long long)(dflt >> 20), (long long)(6 << 10) / size);
	dflt = runner_heap_default(MPI_COMM_WORLD, &fgo_backend_cpu);
	if (rank == 0)
		T_CHECK("default-host",
			dflt >= ((size_t)64 << 20) &&
				(double)dflt * size <= (double)sysconf(_SC_PHYS_PAGES) *
							       (double)sysconf(_SC_PAGE_SIZE),
			"%zu bytes per rank of %d", dflt, size);
	MPI_Finalize();
	if (rank == 0)
		T_DONE();
	return 0;
}
