"""Records on a power-of-two grid and their exact integer Gram matrix (private helpers).

A block of B rows with B 4^k <= 2^53 has every partial sum of its products an integer of
magnitude at most 2^53, so BLAS computes it exactly in any order; the blocks are added as
integers, so the result is exact whatever the rows' number, order or partition
(:ref:`guide-erm-kst`).
"""

import numpy as np

__all__ = ["to_grid", "block_rows", "exact_gram", "to_limbs", "from_limbs", "LIMBS"]

# int64 accumulation: blocks of magnitude <= 2^53, at most 2^9 of them at a time (< 2^63)
_INT64_BLOCKS = 2 ** 9
# Dask carries an exact integer S as LIMBS floats: S = sum_l a_l 2^(26 l), 0 <= a_l < 2^26
# for l < LIMBS - 1 and the last limb signed; sums of up to 2^26 partitions' limbs are then
# exact in floats (each below 2^52), and the last limb is exact below 2^53 partitions' worth
_LIMB_BITS = 26
LIMBS = 3


def to_grid(values, c, f, out=None):
    """round((values - c) f), in ``out`` if given (NumPy's rint: half to even).

    Examples
    --------
    >>> import numpy as np
    >>> to_grid(np.array([0.3, -1.0]), 0.0, 4.0)
    array([ 1., -4.])
    """
    out = np.subtract(values, c, out=out)
    np.multiply(out, f, out=out)
    return np.rint(out, out=out)


def block_rows(bits):
    """B = 2^(53 - 2 k): rows per block, so that B 4^k <= 2^53 (module docstring).

    Examples
    --------
    >>> block_rows(20)
    8192
    """
    return 2 ** (53 - 2 * int(bits))


def exact_gram(X, y, bits, exponent=0):
    """The exact Gram matrix [[U'U, U'v], [v'U, v'v]] (Python integers) of grid records
    X = u 2^-k, y = v 2^(e - k), abs(u), abs(v) <= 2^k, k = ``bits`` <= 26, e = ``exponent``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.ones((20000, 1))  # u = 2^20: 20000 4^20 > 2^53, a float sum would round
    >>> int(exact_gram(X, np.zeros(20000), 20)[0, 0]) == 20000 * 4 ** 20
    True
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, p = X.shape
    rows = block_rows(bits)
    units = (4.0 ** bits, 2.0 ** (2 * bits - exponent), 4.0 ** (bits - exponent))
    total = np.zeros((p + 1, p + 1), dtype=object)

    def add(xs, ys):
        # xs: blocks x rows x p, ys: blocks x rows x 1; each block's sums exact in floats,
        # then an exact int64 sum of at most 2^9 blocks
        part = np.zeros((xs.shape[0], p + 1, p + 1))
        xt = xs.transpose(0, 2, 1)
        np.matmul(xt, xs, out=part[:, :p, :p])
        np.matmul(xt, ys, out=part[:, :p, p:])
        np.matmul(ys.transpose(0, 2, 1), ys, out=part[:, p:, p:])
        part[:, :p, :p] *= units[0]
        part[:, :p, p:] *= units[1]
        part[:, p:, p:] *= units[2]
        summed = part.astype(np.int64).sum(axis=0)
        summed[p, :p] = summed[:p, p]
        return summed.astype(object)

    full = n // rows
    if full:
        xs = X[:full * rows].reshape(full, rows, p)
        ys = y[:full * rows].reshape(full, rows, 1)
        for start in range(0, full, _INT64_BLOCKS):
            total = total + add(xs[start:start + _INT64_BLOCKS], ys[start:start + _INT64_BLOCKS])
    if full * rows < n:
        total = total + add(X[None, full * rows:], y[None, full * rows:, None])
    return total


def to_limbs(values):
    """Exact integers (Python ints) as LIMBS floats each (a flat float array, value by value
    then limb by limb), so that float sums over partitions stay exact (module docstring)."""
    mask = (1 << _LIMB_BITS) - 1
    out = []
    for value in np.ravel(values):
        value = int(value)
        for _ in range(LIMBS - 1):
            out.append(float(value & mask))
            value >>= _LIMB_BITS
        out.append(float(value))
    return np.array(out, dtype=np.float64)


def from_limbs(limbs):
    """The Python integers of :func:`to_limbs` (after any float sum of limb arrays)."""
    limbs = np.asarray(limbs, dtype=np.float64).reshape(-1, LIMBS)
    out = []
    for row in limbs:
        value = 0
        for j in range(LIMBS - 1, -1, -1):
            value = (value << _LIMB_BITS) + int(row[j])
        out.append(value)
    return np.array(out, dtype=object)
