"""Giving freed memory back to the system between chunks, so a long call's memory stays one chunk's.

Measured (one 20k-pair `score()`, packaged MiniLM at layer 4, glibc 2.36, torch CPU): Python objects and
the bytes malloc holds in use stay flat from chunk to chunk (about 430k objects, 150 MiB), but the
encoder's activations (6 to 25 MiB per batch, allocated from malloc's heap once glibc's adaptive mmap
threshold has risen past them) leave free holes between longer-lived small blocks that free() never
returns: the heap's free part grew by ~190 MiB a chunk (about 58 MiB per 1,000 pairs), and the RSS
with it. `malloc_trim(0)` returns every free page of every arena; called once a chunk it costs a few
milliseconds against tens of seconds of encoding.

Trimming between chunks kept the memory *after* each chunk flat, but not the peak *within* one: glibc
raises its mmap threshold each time a mapped block is freed (up to 32 MiB), so after the first chunk the
encoder's activations came from the heap, where they fragment it until the trim. Measured on 10,400 WMT16
pairs (2,600-pair chunks, layer 4): the peak of chunks 1, 2 and 3 was 1,392, 1,607 and 1,819 MiB (the RSS
after each trim 530-549 MiB), so a 20k-pair call peaked at 2,127 MiB against 1,434 at 5k. With the
threshold pinned at 4 MiB (`mallopt(M_MMAP_THRESHOLD)`, which also turns the adaptive rise off), every
block that large is its own mapping, returned the moment it is freed: 928, 1,003 and 1,003 MiB.

4 MiB still left the blocks of 1 to 4 MiB (attention and mask tensors of some batch shapes) to the heap,
which grew from call to call where many calls each score a chunk (a `datasets.map` worker scoring 1,000-row
batches): per-call peaks 767, 797, 814 ... 889 MiB over 8 calls on one thread, the arena 200 -> 337 MiB with
its free part 58 -> 191 MiB, the RSS after each call flat. Pinned at 1 MiB: 724, 720, 727, 724 MiB, the
arena 156-161 MiB. Cost, A/B on 4,000 pairs in 4 calls: 107-121 -> 124-126 CPU s (system time 18-23 -> 32 s).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None where the C library has none (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


#: glibc's mallopt parameter for the mmap threshold (malloc.h: M_MMAP_THRESHOLD)
_M_MMAP_THRESHOLD = -3
#: blocks this large or larger get a mapping of their own (an encoder batch's activations are 1-25 MiB)
MMAP_THRESHOLD_BYTES = 1 << 20


@functools.cache
def keep_large_blocks_mapped() -> bool:
    """Pin glibc's mmap threshold at MMAP_THRESHOLD_BYTES, once per process (see the module docstring);
    True where the C library could (glibc). It holds for the whole process: any program's blocks of 1 MiB
    or more are mapped on their own, glibc's behaviour before its first large free."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))


def release_freed_memory() -> bool:
    """Return the C heap's free pages to the system; True when the C library could (glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
