"""Recursive splitting (Kaplan, Schnapp and Stemmer 2022): quantilesDP's default method."""

import math

import numpy as np

from .. import _random
from ..stats._quantile import exact_quantile, lattice_runs, quantile_sensitivity



def _levels(m):
    """The depth of the recursion that splits m quantiles at the middle one: ceil(log2(m + 1))."""
    return max(1, math.ceil(math.log2(m + 1)))


def recursive_share(eps, m, which_sensitivity):
    """The budget of each quantileDP release of 'recursive' (see :func:`quantilesDP`):
    eps / L under 'unbounded', eps / (2 L - 1) under 'bounded', L = :func:`_levels` (m)."""
    levels = _levels(m)
    return eps / levels if which_sensitivity == "unbounded" else eps / (2 * levels - 1)


def recursive(x, quants, slots, eps, lower, upper, rng, out, which_sensitivity="bounded"):
    """ApproximateQuantiles on the records ``x`` in [lower, upper]: quants (rescaled to this
    part of the data) into out[slots]. Each call releases its middle quantile with
    :func:`dppack.quantileDP`'s sampler at ``eps``, then recurses on the records at or below
    it and those above it, with the quantiles below and above it rescaled to their part. A
    part of the data meets one release per level (Kaplan, Schnapp and Stemmer 2022,
    Algorithm 1). The node's sensitivity: :func:`node_sensitivity`."""
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
    """The sensitivity of the utility of a node of 'recursive' that releases the (rescaled)
    quantile ``q`` of its part: ``stats._quantile.quantile_sensitivity`` under
    'unbounded', max(q, 1 - q); 1 under 'bounded'.

    Under add/remove neighbours the record added or removed lies in exactly one part on
    each level, given the releases above (they fix the parts' ranges): that node's part
    gains or loses one record, an add/remove neighbour for its rank utility, which moves by
    at most max(q, 1 - q) (``quantile_sensitivity``); the other nodes see the same data.
    So each node is eps / L-DP and a record meets L of them (Kaplan, Schnapp and Stemmer
    2022, Theorem 3.3's composition over levels). Under 'bounded' the split eps / (2 L - 1)
    and sensitivity 1 are DPpack-compatible and kept as they were.

    Examples
    --------
    >>> node_sensitivity(0.25, "unbounded"), node_sensitivity(0.25, "bounded")
    (0.75, 1.0)
    """
    return quantile_sensitivity(q, "unbounded" if which_sensitivity == "unbounded"
                                else "bounded")


def recursive_lattice(positions, quants, slots, eps, first, last, lattice, rng, out,
                       which_sensitivity="bounded"):
    """:func:`recursive` on a resolution: the part of the data with ``positions``
    (``stats.Lattice.positions``) among the candidates ``first``, ..., ``last`` of
    ``lattice``. Each node releases its middle quantile by quantileDP's mechanism on these
    candidates (``stats.lattice_runs``, ``_random.exponential_interval``: the exponential
    mechanism with :func:`node_sensitivity` on a candidate set fixed by the releases before
    it), then
    recurses on the records at or below the released candidate i (candidates first ... i)
    and those above it (i ... last), as Kaplan, Schnapp and Stemmer (2022, Algorithm 1)."""
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
    """How :func:`recursive` splits its quantiles: (middle, q, left, right), ``middle`` the
    index of the one released, q = quants[middle], ``left`` the quantiles below it rescaled
    to the records at or below the release (q_j / q) and ``right`` those above it rescaled
    to the records above it ((q_j - q) / (1 - q), clipped to [0, 1] against rounding)."""
    middle = (quants.size - 1) // 2
    q = float(quants[middle])
    left = quants[:middle] / q if q > 0 else np.zeros(middle)
    right = quants[middle + 1:]
    right = np.clip((right - q) / (1 - q), 0, 1) if q < 1 else np.ones(right.size)
    return middle, q, left, right


def recursion_weights(quants):
    """The weights of the node errors in each quantile's rank error under 'recursive'
    (for accuracy reports, ``dppack.accuracy``).

    A node releases its middle quantile q (rescaled) with a local rank error e (the records
    of its part at or below the release, minus q times their number). A quantile q_j of
    its left part is then asked, in that part, for the rank (q_j / q)(q n_v + e): its target
    moves by (q_j / q) e = q'_j e, q'_j its rescaled quantile; one of the right part is asked
    for q'_j ((1 - q) n_v - e) records above the release, q'_j = (q_j - q) / (1 - q), so its
    target among all the records moves by (1 - q'_j) e. So the rank error of quantile j is
    the sum, over the nodes on its path, of these weights times their errors, weight 1 at
    its own node (all weights in [0, 1]; from the quantiles alone).

    Parameters
    ----------
    quants : numpy.ndarray
        The checked quantiles (``check_quants``).

    Returns
    -------
    list of numpy.ndarray
        For each quantile, the weights of the nodes on its path (root first); its length is
        the quantile's depth.

    Examples
    --------
    >>> [w.tolist() for w in recursion_weights(np.array([0.25, 0.5, 0.75]))]
    [[0.5, 1.0], [1.0], [0.5, 1.0]]
    """
    return [np.array([w for w, _ in path]) for path in _recursion_paths(quants)]


def recursion_sensitivities(quants, which_sensitivity):
    """The sensitivities (:func:`node_sensitivity`) of the nodes on each quantile's path
    under 'recursive', root first, aligned with :func:`recursion_weights` (for accuracy
    reports, ``dppack.accuracy``).

    Examples
    --------
    >>> [s.tolist() for s in recursion_sensitivities(np.array([0.25, 0.5, 0.75]),
    ...                                              "unbounded")]
    [[0.5, 0.5], [0.5], [0.5, 0.5]]
    """
    return [np.array([node_sensitivity(q, which_sensitivity) for _, q in path])
            for path in _recursion_paths(quants)]


def _recursion_paths(quants):
    """For each quantile, the (weight, node's released quantile) of the nodes on its path,
    root first, as :func:`recursive` visits them (:func:`recursion_weights`)."""
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
