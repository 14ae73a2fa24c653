#!/usr/bin/env python3
"""same_code.py BASE_CACHE NEW_CACHE: whether two builds compile a spec's
kernels to the same machine code.

A kernel change that must leave the existing tiles as they were (a new
tile form beside them) is checked without a GPU: compile one spec with
each build, one kernel at a time, into two fresh caches, then compare
each pair's `.text` sections (the cache keys differ, since the kernel
sources differ; the code should not):

    git worktree add /tmp/base BASE && make -C /tmp/base GPU=cuda
    /tmp/base/build/cuda/fgobench compile SPEC --arch sm_90a --cache /tmp/kb -j 1 --quiet
    build/cuda/fgobench compile SPEC --arch sm_90a --cache /tmp/kn -j 1 --quiet
    python3 tests/bench/same_code.py /tmp/kb /tmp/kn

With -j 1 both caches hold the kernels in the spec's order, so the files
pair by modification time. Exit 0 when every pair has the same code, 1
otherwise (naming the pairs that differ)."""
import os
import struct
import sys


def text_sections(path):
    """The .text sections of the ELF image inside a cache entry."""
    data = open(path, 'rb').read()
    elf = data[data.find(b'\x7fELF'):]
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)
    heads = [struct.unpack_from('<IIQQQQ', elf, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    out = {}
    for name, _type, _flags, _addr, off, size in heads:
        label = elf[names + name:elf.index(b'\0', names + name)].decode()
        if label.startswith('.text'):
            out[label] = elf[off:off + size]
    return out


def in_order(folder):
    files = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith('.bin')]
    return sorted(files, key=os.path.getmtime)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[0])
    base, new = in_order(sys.argv[1]), in_order(sys.argv[2])
    if len(base) != len(new):
        print('same_code: %d kernels against %d: not the same spec' % (len(base), len(new)))
        return 1
    same = 0
    for a, b in zip(base, new):
        if text_sections(a) == text_sections(b):
            same += 1
        else:
            print('same_code: differs: %s %s' % (a, b))
    print('same_code: %d of %d kernels the same machine code' % (same, len(base)))
    return 0 if same == len(base) else 1


if __name__ == '__main__':
    sys.exit(main())
