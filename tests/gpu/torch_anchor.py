#!/usr/bin/env python3
"""tests/gpu/torch_anchor.py: what a PyTorch user gets for each fused
family's job, on the same GPUs as fgobench's vendor sequence, so anyone can
check that anchor. One process per GPU under torchrun:

    torchrun --nproc_per_node=2 tests/gpu/torch_anchor.py [M,N,K ...] > torch.csv

Each rank holds its shard as DESIGN.md lays it out (bf16, random inputs):
  all_scatter      C_r = A @ B[:, r-th N/W]; all_gather_into_tensor of C_r
  all_reduce       C = A[:, r-th K/W] @ B[r-th K/W, :]; all_reduce(C)
  reduce_scatter   the same GEMM; reduce_scatter_tensor into M/W rows
  all_gather_gemm  all_gather_into_tensor of the A row shards; then A @ B_r
CUDA events around the GEMM, the collective and both together (one stream,
as fgobench's sequence), 5 warm-up rounds, median of 20; rank 0 prints CSV:
family,m,n,k,world,gemm_us,coll_us,both_us. NVLink multicast stays off
(NCCL_NVLS_ENABLE=0, set here unless already set)."""
import os
import statistics
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

SHAPES = [(128, 4096, 14336), (1024, 4096, 14336), (4096, 4096, 14336), (8192, 8192, 8192),
          (4096, 14336, 4096), (16384, 4096, 14336)]


def timed(fn, reps=20, warm=5):
    """Median of reps event-timed calls of fn, in microseconds."""
    for _ in range(warm):
        fn()
    times = []
    for _ in range(reps):
        dist.barrier()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0)
    return statistics.median(times)


def jobs(m, n, k, w, r, dev):
    """(family, gemm, collective) closures for one shape."""
    rnd = lambda *s: torch.randn(*s, device=dev, dtype=torch.bfloat16)  # noqa: E731
    out = []
    # all_scatter: B column-sharded
    a, b = rnd(m, k), rnd(k, n // w)
    c, gathered = torch.empty(m, n // w, device=dev, dtype=torch.bfloat16), \
        torch.empty(w * m, n // w, device=dev, dtype=torch.bfloat16)
    out.append(("all_scatter", lambda a=a, b=b, c=c: torch.matmul(a, b, out=c),
                lambda c=c, g=gathered: dist.all_gather_into_tensor(g, c)))
    # all_reduce and reduce_scatter: K-sharded
    a2, b2 = rnd(m, k // w), rnd(k // w, n)
    c2 = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    rows = torch.empty(m // w, n, device=dev, dtype=torch.bfloat16)
    out.append(("all_reduce", lambda a=a2, b=b2, c=c2: torch.matmul(a, b, out=c),
                lambda c=c2: dist.all_reduce(c)))
    out.append(("reduce_scatter", lambda a=a2, b=b2, c=c2: torch.matmul(a, b, out=c),
                lambda c=c2, o=rows: dist.reduce_scatter_tensor(o, c)))
    # all_gather_gemm: A row-sharded, B column-sharded; the gather comes first
    shard, full = rnd(m // w, k), torch.empty(m, k, device=dev, dtype=torch.bfloat16)
    b3, c3 = rnd(k, n // w), torch.empty(m, n // w, device=dev, dtype=torch.bfloat16)
    out.append(("all_gather_gemm", lambda a=full, b=b3, c=c3: torch.matmul(a, b, out=c),
                lambda s=shard, f=full: dist.all_gather_into_tensor(f, s)))
    return out


def main():
    dist.init_process_group("nccl")
    r, w = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", r)))
    torch.cuda.set_device(dev)
    shapes = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or SHAPES
    if r == 0:
        print("family,m,n,k,world,gemm_us,coll_us,both_us", flush=True)
    for m, n, k in shapes:
        for fam, gemm, coll in jobs(m, n, k, w, r, dev):
            if fam == "all_gather_gemm":
                both = lambda g=gemm, c=coll: (c(), g())  # noqa: E731
            else:
                both = lambda g=gemm, c=coll: (g(), c())  # noqa: E731
            t = (timed(gemm), timed(coll), timed(both))
            if r == 0:
                print("%s,%d,%d,%d,%d,%.1f,%.1f,%.1f" % ((fam, m, n, k, w) + t), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
