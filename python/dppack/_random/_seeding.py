"""Generators from ``random_state``: seeded PCG64 words, OS entropy, R's seed words."""

import functools
import math
import numbers
import os

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence


class _SeedWords(ISpawnableSeedSequence):
    """The seed words of a PCG64, handed to it as its seed sequence (no hashing).

    ``PCG64(seed_sequence)`` asks for four 64-bit words (``generate_state(4, uint64)``) and
    takes them as its initial state and increment. For an integer seed the words are those
    of ``SeedSequence(seed)``, computed once per seed (:func:`_integer_seed_words`), so the
    generator is the one ``default_rng(seed)`` makes; for fresh entropy they are 256 bits
    read from the operating system (``os.urandom``), which is what SeedSequence would hash
    to the same size. ``Generator.spawn`` works as for ``default_rng``: the children come
    from ``SeedSequence(seed)`` (or of the fresh words), made on first use.
    """

    __slots__ = ("words", "_entropy", "_sequence")

    def __init__(self, words, entropy):
        self.words = words
        self._entropy = entropy
        self._sequence = None

    def generate_state(self, n_words, dtype=np.uint32):
        if n_words != 4 or np.dtype(dtype) != np.uint64:  # PCG64's request, and only it
            raise ValueError("seed words: PCG64 asks for four 64-bit words.")
        return self.words

    def spawn(self, n_children):
        if self._sequence is None:
            entropy = self._entropy  # an int seed, or the fresh words' bytes
            if isinstance(entropy, bytes):
                entropy = int.from_bytes(entropy, "little")
            self._sequence = np.random.SeedSequence(entropy)
        return self._sequence.spawn(n_children)


@functools.lru_cache(maxsize=1024)
def _integer_seed_words(seed):
    """The four 64-bit words SeedSequence(seed) gives PCG64 (read-only; cached per seed)."""
    words = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    words.flags.writeable = False
    return words


def _generator(words, entropy):
    return np.random.Generator(np.random.PCG64(_SeedWords(words, entropy)))


def _fresh_generator():
    entropy = os.urandom(32)
    return _generator(np.frombuffer(entropy, dtype=np.uint64), entropy)


def _seeded_generator(seed):
    return _generator(_integer_seed_words(seed), seed)


_RANDOM_STATE_MESSAGE = (
    "random_state must be None, a non-negative integer or a numpy.random.Generator."
)


def as_generator(random_state=None):
    """Turn a ``random_state`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or NumPy Generator
        ``None`` seeds from operating-system entropy; a non-negative integer (or an integral
        float, as R passes numbers) seeds a new PCG64 generator, the one
        ``default_rng(random_state)`` makes; a Generator is used as is, so successive calls
        sharing it continue one stream.

    Returns
    -------
    NumPy Generator

    Raises
    ------
    TypeError
        If ``random_state`` is of any other kind, or a negative or fractional number.

    Notes
    -----
    A PCG64 seeded from 256 bits of ``os.urandom`` for ``None``; for an integer the seed
    words of ``SeedSequence(random_state)``, cached per seed, so that a call costs about
    2 us instead of the 14-26 us of ``default_rng`` (issue 29's small calls).
    """
    if random_state is None:
        return _fresh_generator()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, bool):
        raise TypeError(_RANDOM_STATE_MESSAGE)
    if isinstance(random_state, numbers.Integral) and random_state >= 0:
        return _seeded_generator(int(random_state))
    if isinstance(random_state, numbers.Real):
        value = float(random_state)
        if np.isfinite(value) and value >= 0 and value == int(value):
            return _seeded_generator(int(value))
    raise TypeError(_RANDOM_STATE_MESSAGE)


def generator_from_words(words):
    """A generator seeded by several 32-bit words, all of them entropy of its SeedSequence.

    R's reproducible mode (``options(DPpackPy.reproducible = TRUE)``) seeds each call from
    four 32-bit words of R's random stream, 128 bits, more than one Python integer seed made
    from an R double could carry. NumPy's ``SeedSequence`` takes a sequence of integers as its
    entropy and mixes every word into the generator's state, so streams differing in any one
    word differ.

    Parameters
    ----------
    words : sequence of int or integral float
        At least four whole numbers in [0, 2**32), as R passes them (doubles).

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator whose SeedSequence entropy is ``words``, as integers.

    Raises
    ------
    TypeError
        If ``words`` is not such a sequence.
    """
    message = "random_state words must be at least four whole numbers in [0, 2^32)."
    if isinstance(words, (str, bytes)) or not hasattr(words, "__len__") or len(words) < 4:
        raise TypeError(message)
    entropy = []
    for word in words:
        if isinstance(word, bool) or not isinstance(word, numbers.Real):
            raise TypeError(message)
        value = float(word)
        if not (0 <= value < 2**32) or value != math.floor(value):
            raise TypeError(message)
        entropy.append(int(value))
    return np.random.default_rng(entropy)
