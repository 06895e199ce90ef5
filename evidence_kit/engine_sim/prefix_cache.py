"""The simulated prefix cache: full KV blocks of prompts, found again by a hash chain, evicted LRU.

As vLLM's (``vllm/v1/core/kv_cache_manager.py``, ``block_pool.py``): a prompt's full blocks of
``block_size`` tokens are each named by the hash of their tokens and of the block before them,
so a block is found again only behind the same prefix. Blocks live in the engine's one KV pool:
a block a running sequence holds is in use (shared by every sequence whose prompt opens with
it); when the last of them finishes, the block stays cached but free, and is evicted, least
recently used first, only when an admission needs the room. So the pool's size decides how many
prefixes stay hot: a pool with more blocks keeps more of them between their uses. A hit is whole
blocks, and at most the prompt less its last token (the engine recomputes that one for the
logits), as vLLM counts it.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence

__all__ = ["PrefixCache", "block_hashes"]


def block_hashes(tokens: Sequence[int], block_size: int) -> list[bytes]:
    """The hash chain of ``tokens``' full blocks: each block's hash covers every token before its end."""
    hashes: list[bytes] = []
    parent = b""
    for start in range(0, len(tokens) - block_size + 1, block_size):
        block = ",".join(map(str, tokens[start : start + block_size])).encode()
        parent = hashlib.sha256(parent + b"\x1f" + block).digest()
        hashes.append(parent)
    return hashes


class PrefixCache:
    """Which full blocks are cached: those held by running sequences, and the free ones in LRU order."""

    def __init__(self, block_size: int):
        self.block_size = block_size
        self.refs: dict[bytes, int] = {}  # block hash -> running sequences holding it (in use)
        self.free: OrderedDict[bytes, None] = OrderedDict()  # cached blocks nobody holds, least recent first

    @property
    def in_use(self) -> int:
        """Cached blocks running sequences hold (each counted once, however many share it)."""
        return len(self.refs)

    def hit(self, hashes: Sequence[bytes], prompt_tokens: int) -> int:
        """How many leading blocks of ``hashes`` are cached, at most the prompt less its last token."""
        limit = max(prompt_tokens - 1, 0) // self.block_size
        found = 0
        for h in hashes[:limit]:
            if h not in self.refs and h not in self.free:
                break
            found += 1
        return found

    def free_among(self, hashes: Sequence[bytes]) -> int:
        """Of ``hashes``, the blocks cached but free (taking them moves them from free to in use)."""
        return sum(1 for h in hashes if h in self.free)

    def hold(self, hashes: Sequence[bytes]) -> None:
        """A sequence now holds these blocks (cached ones it hit, or new ones it fills)."""
        for h in hashes:
            self.free.pop(h, None)
            self.refs[h] = self.refs.get(h, 0) + 1

    def release(self, hashes: Sequence[bytes]) -> int:
        """A sequence ended: its blocks go back; those nobody holds now stay cached, most recent last.
        Returns how many blocks left use."""
        left = 0
        for h in hashes:
            n = self.refs[h] - 1
            if n:
                self.refs[h] = n
            else:
                del self.refs[h]
                self.free[h] = None
                left += 1
        return left

    def evict(self, n: int) -> None:
        """Drop the ``n`` least recently used free blocks (their room is needed)."""
        for _ in range(min(n, len(self.free))):
            self.free.popitem(last=False)
