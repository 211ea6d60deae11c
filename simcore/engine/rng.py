"""Counter-based random streams for the kernels.

Each trial owns one 64-bit key. Its xoshiro256** state is seeded from the key with
SplitMix64, so a trial's draws depend only on its key: never on which thread runs it,
how trials are batched, or how many trials run beside it.

Keys are derived from a :class:`numpy.random.SeedSequence` per block of
:data:`TRIAL_BLOCK` trials (:func:`trial_keys`); adding trials to a cell appends new
keys and leaves the earlier ones unchanged.
"""

import hashlib
import json

import numpy as np

from simcore.engine._jit import jit

TRIAL_BLOCK = 1024
"""Trials per seed block: trial ``t`` uses block ``t // TRIAL_BLOCK``."""

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0


@jit
def mix64(value):
    """Return the SplitMix64 finaliser of ``value`` (a bijection on uint64)."""
    z = value
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@jit
def seed_state(key, state):
    """Fill the 4-word xoshiro256** ``state`` from a trial ``key`` with SplitMix64."""
    x = key
    for word in range(4):
        x = x + _GAMMA
        state[word] = mix64(x)


@jit
def _rotl(value, shift):
    return (value << np.uint64(shift)) | (value >> np.uint64(64 - shift))


@jit
def next_uint64(state):
    """Advance xoshiro256** ``state`` in place and return the next 64-bit output."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@jit
def uniform(state):
    """Return a float64 uniform on [0, 1) with 53 random bits."""
    return float(next_uint64(state) >> np.uint64(11)) * _TWO_POW_MINUS_53


@jit
def below(state, bound):
    """Return an integer uniform on ``0 .. bound - 1`` (bias below 2**-53 * bound)."""
    value = int(uniform(state) * bound)
    if value >= bound:
        value = bound - 1
    return value


@jit
def _keys_for_block(block_seed, first, count, out):
    for index in range(count):
        out[index] = mix64(block_seed ^ mix64(np.uint64(first + index) + _GAMMA))


def stable_key(data):
    """Return a 4-word spawn key from JSON-able ``data``: SHA-256, four 32-bit words.

    ``json.dumps(data, sort_keys=True)`` is the canonical text, so the key depends on the
    values only (not on dict order, the process or the platform). Every seed sequence keyed
    by parameters (a cell's coordinates, a real-data split) takes its key from here.
    """
    text = json.dumps(data, sort_keys=True)
    digest = hashlib.sha256(text.encode()).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


def trial_keys(cell_sequence, start, stop):
    """Return the uint64 keys of trials ``range(start, stop)`` of one cell.

    Parameters
    ----------
    cell_sequence : numpy.random.SeedSequence
        The cell's seed sequence (root seed plus the cell's coordinate hash).
    start, stop : int
        Trial index range; trial ``t`` belongs to block ``t // TRIAL_BLOCK``, whose
        seed is ``SeedSequence(entropy, spawn_key=cell_key + (block,))``.

    Returns
    -------
    numpy.ndarray
        ``stop - start`` keys, dtype uint64. The key of a trial never depends on
        ``start`` or ``stop``.
    """
    keys = np.empty(max(stop - start, 0), dtype=np.uint64)
    position = 0
    trial = start
    while trial < stop:
        block = trial // TRIAL_BLOCK
        block_end = min(stop, (block + 1) * TRIAL_BLOCK)
        block_sequence = np.random.SeedSequence(
            cell_sequence.entropy, spawn_key=(*cell_sequence.spawn_key, block)
        )
        block_seed = block_sequence.generate_state(1, dtype=np.uint64)[0]
        count = block_end - trial
        _keys_for_block(
            block_seed, trial - block * TRIAL_BLOCK, count, keys[position : position + count]
        )
        position += count
        trial = block_end
    return keys
