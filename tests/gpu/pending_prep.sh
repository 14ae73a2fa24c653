#!/bin/sh
# tests/gpu/pending_prep.sh [BASE_COMMIT]: here, without a GPU, everything
# tests/gpu/pending.sh carries: the GPU build of this checkout in
# build/dev/head and of BASE_COMMIT (default c8e797b, the build before
# issue 48's flight records) in build/dev/base, each with its own kernel
# cache of sweeps/ab_winners.json (their cache formats differ). Carry
# build/dev (about 9 MB; an ignored path) in the device call.
# FULL=1 also compiles the held-out and own per-rank sets, their defaults
# and the W=8 check (about 7 200 kernels, 45 minutes on two cores: start
# it first thing, in the background; kept between runs in build/kfull) and
# packs them into build/dev/kcache.tar.xz (8 MB), which pending.sh unpacks
# into head's cache. Without it the device compiles them (-j 16, minutes
# of device time).
# DERIVED=1 also builds build/dev/derived: this checkout with the table
# `best --defaults --write` derives from the tuning stores merged
# (db/evidence perrank_h100_s13c_1127 and mgpu_w2w4_4xh100_s13_1127), for
# pending.sh's derived step, and compiles both sets' defaults with it.
#   sh tests/gpu/pending_prep.sh && du -sh build/dev
#   FULL=1 DERIVED=1 sh tests/gpu/pending_prep.sh
set -eu
base=${1:-c8e797b}
cuda=${CUDA:-/usr/local/cuda}
repo=$PWD
unset MAKEFLAGS MFLAGS MAKELEVEL
make -s GPU=cuda -j"$(nproc)"
rm -rf build/dev
mkdir -p build/dev/head build/dev/base build/cuda/stub
cp build/cuda/fgobench build/dev/head/
cp -a build/cuda/lib build/dev/head/
wt=$(mktemp -d /tmp/fgobench-base.XXXXXX)
git worktree add -q --detach "$wt" "$base"
(cd "$wt" && make -s GPU=cuda -j"$(nproc)")
cp "$wt/build/cuda/fgobench" build/dev/base/
cp -a "$wt/build/cuda/lib" build/dev/base/
git worktree remove --force "$wt"
# the binary links libcuda.so.1: the toolkit's stub where no driver is
ln -sf "$cuda/lib64/stubs/libcuda.so" build/cuda/stub/libcuda.so.1
for side in head base; do
	LD_LIBRARY_PATH=$repo/build/cuda/stub:$cuda/lib64 build/dev/$side/fgobench compile \
		sweeps/ab_winners.json --arch sm_90a --cache build/dev/$side/kcache --quiet --format csv \
		-j "$(nproc)" >/dev/null
done
if [ "${DERIVED:-0}" = 1 ]; then
	make -s -j"$(nproc)" >/dev/null
	tmp=$(mktemp -d /tmp/fgobench-derive.XXXXXX)
	for s in perrank_h100_s13c_1127 mgpu_w2w4_4xh100_s13_1127; do
		xz -dc "db/evidence/$s.db.xz" >"$tmp/$s.db"
	done
	./fgobench merge "$tmp/perrank_h100_s13c_1127.db" "$tmp/mgpu_w2w4_4xh100_s13_1127.db" \
		-o "$tmp/own_h100_s13.db" >/dev/null
	git worktree add -q --detach "$tmp/tree" HEAD
	./fgobench best --defaults --db "$tmp/own_h100_s13.db" --write "$tmp/tree/src/spec/defaults_rows.inc"
	(cd "$tmp/tree" && git diff --stat && make -s GPU=cuda -j"$(nproc)")
	mkdir -p build/dev/derived
	cp "$tmp/tree/build/cuda/fgobench" build/dev/derived/
	cp -a "$tmp/tree/build/cuda/lib" build/dev/derived/
	git worktree remove --force "$tmp/tree"
	rm -rf "$tmp"
	for spec in heldout_defaults perrank_defaults; do
		LD_LIBRARY_PATH=$repo/build/cuda/stub:$cuda/lib64 build/dev/derived/fgobench compile \
			"sweeps/$spec.json" --arch sm_90a --cache build/kfull --quiet --format csv \
			-j "$(nproc)" >/dev/null || true
	done
fi
if [ "${FULL:-0}" = 1 ]; then
	for spec in heldout_perrank heldout_defaults perrank perrank_defaults w8_check; do
		LD_LIBRARY_PATH=$repo/build/cuda/stub:$cuda/lib64 build/dev/head/fgobench compile \
			"sweeps/$spec.json" --arch sm_90a --cache build/kfull --quiet --format csv \
			-j "$(nproc)" >/dev/null || true
	done
	(cd build/kfull && find . -type f -name '*.bin' | tar cf - -T - | xz -T0 -6) \
		>build/dev/kcache.tar.xz
fi
echo "build/dev: head $(git rev-parse --short HEAD), base $base; carry [\"build/dev\"]"
