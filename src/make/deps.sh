#!/bin/sh
# deps.sh check | check-gpu cuda|hip [ROOT] | install PACKAGE...: what
# fgobench builds with.
# check: exit 0 when the headers and tools are present.
# check-gpu: the toolchain of `make GPU=cuda` (ROOT: CUDA, default
#   /usr/local/cuda) or `make GPU=hip` (ROOT: HIP_PATH, empty for Debian's
#   packages): exit 0 when its headers and libraries are there, else 2 and
#   what to install, before the compiler stops on a missing header.
# install: apt-get install as root; otherwise print the exact command.
set -u
case "${1:-}" in
check)
	for f in /usr/include/sqlite3.h /usr/include/cjson/cJSON.h; do
		[ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
	done
	for t in mpicc mpirun gnuplot sqlite3 cppcheck; do
		command -v "$t" >/dev/null 2>&1 || { echo "missing $t" >&2; exit 1; }
	done
	exit 0
	;;
check-gpu)
	root=${3:-}
	case "${2:-}" in
	cuda)
		root=${root:-/usr/local/cuda}
		for f in include/cuda.h include/nvrtc.h include/cublas_v2.h; do
			[ -f "$root/$f" ] && continue
			echo "make GPU=cuda: $root/$f is missing: install the CUDA toolkit (NVIDIA's" \
				"cuda-toolkit-12-x packages, with NVRTC and cuBLAS, or Debian's" \
				"nvidia-cuda-toolkit) or point CUDA= at it (make GPU=cuda CUDA=/opt/cuda)" >&2
			exit 2
		done
		ls "$root"/lib64/libnvrtc.so* >/dev/null 2>&1 || {
			echo "make GPU=cuda: no libnvrtc in $root/lib64: install the toolkit's NVRTC" \
				"(cuda-nvrtc-dev-12-x) or point CUDA= at a full toolkit" >&2
			exit 2
		}
		;;
	hip)
		inc=${root:+$root/include}
		inc=${inc:-/usr/include}
		[ -f "$inc/hip/hip_runtime.h" ] || {
			echo "make GPU=hip: $inc/hip/hip_runtime.h is missing: install libamdhip64-dev" \
				"(as root: make deps GPU=hip) or ROCm, and point HIP_PATH= at it" \
				"(make GPU=hip HIP_PATH=/opt/rocm)" >&2
			exit 2
		}
		command -v clang-19 >/dev/null 2>&1 || echo "make GPU=hip: note: clang-19 and" \
			"lld-19 are not installed; the build goes on, but compiling kernels for AMD" \
			"(fgobench compile --arch gfx942) needs them (apt-get install clang-19 lld-19)" >&2
		;;
	*)
		echo "usage: deps.sh check-gpu cuda|hip [ROOT]" >&2
		exit 2
		;;
	esac
	exit 0
	;;
install)
	shift
	if [ "$(id -u)" = 0 ]; then
		echo "installing: $*"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"
	else
		echo "fgobench needs these Debian packages; run:" >&2
		echo "  sudo apt-get install -y $*" >&2
		exit 2
	fi
	;;
*)
	echo "usage: deps.sh check | check-gpu cuda|hip [ROOT] | install PACKAGE..." >&2
	exit 2
	;;
esac
