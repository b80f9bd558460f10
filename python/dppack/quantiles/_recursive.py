"""Recursive splitting (Kaplan, Schnapp and Stemmer 2022): quantilesDP's default method."""

import math

import numpy as np

from .. import _random
from ..stats._quantile import exact_quantile, lattice_runs, quantile_sensitivity



def _levels(m):
    """The depth of the recursion that splits m quantiles at the middle one: ceil(log2(m + 1))."""
    return max(1, math.ceil(math.log2(m + 1)))


def recursive_share(eps, m, which_sensitivity):
    """The budget of each quantileDP release of 'recursive': eps / L under 'unbounded',
    eps / (2 L - 1) under 'bounded', L = ceil(log2(m + 1))."""
    levels = _levels(m)
    return eps / levels if which_sensitivity == "unbounded" else eps / (2 * levels - 1)


def recursive(x, quants, slots, eps, lower, upper, rng, out, which_sensitivity="bounded"):
    """ApproximateQuantiles (Kaplan, Schnapp and Stemmer 2022, Algorithm 1) on the records ``x`` in
    [lower, upper]: quants (rescaled to this part) into out[slots], the middle one by quantileDP's
    sampler at ``eps``, then the parts below and above it."""
    if not quants.size:
        return
    middle, q, left, right = _split(quants)
    if not lower < upper:  # a part squeezed to a point: every quantile is that point
        out[slots] = lower
        return
    # quantileDP's sampler takes a part with no data, where every grid point of (lower,
    # upper) has utility 0: the exact uniform on that grid, the same grid and sampler as
    # with data.
    value = exact_quantile(x, q, eps, lower, upper, rng,
                           sensitivity=node_sensitivity(q, which_sensitivity))
    out[slots[middle]] = value
    below = x[x <= value]
    above = x[x > value]
    if middle:
        recursive(below, left, slots[:middle], eps, lower, value, rng, out, which_sensitivity)
    if middle + 1 < quants.size:
        recursive(above, right, slots[middle + 1:], eps, value, upper, rng, out,
                   which_sensitivity)


def node_sensitivity(q, which_sensitivity):
    """The sensitivity of a 'recursive' node's utility for its (rescaled) quantile ``q``:
    max(q, 1 - q) under 'unbounded', 1 under 'bounded' (derivation:
    docs/python/guide/quantiles-joint.md).

    Examples
    --------
    >>> node_sensitivity(0.25, "unbounded"), node_sensitivity(0.25, "bounded")
    (0.75, 1.0)
    """
    return quantile_sensitivity(q, "unbounded" if which_sensitivity == "unbounded"
                                else "bounded")


def recursive_lattice(positions, quants, slots, eps, first, last, lattice, rng, out,
                       which_sensitivity="bounded"):
    """:func:`recursive` on a resolution: the records at ``positions`` among the candidates
    ``first``, ..., ``last`` of ``lattice``, each node by the exponential mechanism on them."""
    if not quants.size:
        return
    middle, q, left, right = _split(quants)
    if first == last:  # one candidate left: every quantile is that point
        out[slots] = lattice.points(np.array([first]))[0]
        return
    local, counts = np.unique(positions - 2 * first, return_counts=True)
    utilities, widths, starts = lattice_runs(local, counts, last - first + 1, q)
    k, offset = _random.exponential_interval(utilities, widths, eps,
                                             node_sensitivity(q, which_sensitivity), rng)
    index = first + int(starts[k]) + offset
    out[slots[middle]] = lattice.points(np.array([index]))[0]
    if middle:  # the records at or below candidate index: positions <= 2 index + 1
        recursive_lattice(positions[positions <= 2 * index + 1], left, slots[:middle], eps,
                           first, index, lattice, rng, out, which_sensitivity)
    if middle + 1 < quants.size:
        recursive_lattice(positions[positions > 2 * index + 1], right, slots[middle + 1:],
                           eps, index, last, lattice, rng, out, which_sensitivity)


def _split(quants):
    """(middle, q, left, right): the index released, its quantile, and the quantiles below and
    above it rescaled to their parts (q_j / q and (q_j - q) / (1 - q), clipped to [0, 1])."""
    middle = (quants.size - 1) // 2
    q = float(quants[middle])
    left = quants[:middle] / q if q > 0 else np.zeros(middle)
    right = quants[middle + 1:]
    right = np.clip((right - q) / (1 - q), 0, 1) if q < 1 else np.ones(right.size)
    return middle, q, left, right


def recursion_weights(quants):
    """For each quantile of ``quants`` (checked), the weights of the node errors on its path (root
    first) in its rank error under 'recursive' (for ``dppack.accuracy``; derivation:
    docs/python/guide/quantiles-joint.md).

    Examples
    --------
    >>> [w.tolist() for w in recursion_weights(np.array([0.25, 0.5, 0.75]))]
    [[0.5, 1.0], [1.0], [0.5, 1.0]]
    """
    return [np.array([w for w, _ in path]) for path in _recursion_paths(quants)]


def recursion_sensitivities(quants, which_sensitivity):
    """The sensitivities of the nodes on each quantile's path under 'recursive', root first,
    aligned with :func:`recursion_weights`.

    Examples
    --------
    >>> [s.tolist() for s in recursion_sensitivities(np.array([0.25, 0.5, 0.75]),
    ...                                              "unbounded")]
    [[0.5, 0.5], [0.5], [0.5, 0.5]]
    """
    return [np.array([node_sensitivity(q, which_sensitivity) for _, q in path])
            for path in _recursion_paths(quants)]


def _recursion_paths(quants):
    """For each quantile, the (weight, node's quantile) of the nodes on its path, root first."""
    paths = [[] for _ in range(quants.size)]

    def visit(part, slots):
        if not part.size:
            return
        middle, q, left, right = _split(part)
        paths[slots[middle]].append((1.0, q))
        for slot, rescaled in zip(slots[:middle], left):
            paths[slot].append((float(rescaled), q))
        for slot, rescaled in zip(slots[middle + 1:], right):
            paths[slot].append((1.0 - float(rescaled), q))
        visit(left, slots[:middle])
        visit(right, slots[middle + 1:])

    visit(np.asarray(quants, dtype=np.float64), list(range(quants.size)))
    return paths
