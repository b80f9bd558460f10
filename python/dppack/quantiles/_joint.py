"""JointExp (Gillenwater, Joseph and Kulesza 2021): the dynamic program and its exact draw.
Derivation: docs/python/guide/quantiles-joint.md."""

import fractions
import math

import numpy as np

from .. import _random



_MARGIN = 50.0  # the windows' outside weighs at most e^-_MARGIN of their inside


def joint_grid(lower, upper):
    """JointExp's grid g = 2^j and the bounds on it: (j, X_0, X_{n+1}), X_0 = ceil(lower / g),
    X_{n+1} = floor(upper / g); :func:`dppack.quantileDP`'s grid, from the bounds alone.

    Examples
    --------
    >>> joint_grid(-1.0, 1.0) == (-58, -2 ** 58, 2 ** 58)
    True
    """
    j = _random.grid_exponent(max(abs(lower), abs(upper)), 58)
    return j, math.ceil(math.ldexp(lower, -j)), math.floor(math.ldexp(upper, -j))


def _on_grid(values, j, first, last):
    """clip(round(x / g), X_0, X_{n+1}) per value (int64); monotone, so it commutes with sorting."""
    with np.errstate(over="ignore"):
        scaled = np.ldexp(np.asarray(values, dtype=np.float64), -j)
    np.rint(scaled, out=scaled)
    np.clip(scaled, first, last, out=scaled)
    return scaled.astype(np.int64)


class _Order:
    """The clipped data's order statistics x_k (k = 0, ..., n + 1, x_0 = a, x_{n+1} = b) on
    the ranks asked for, by ``numpy.partition`` around them (a full sort when they are many).
    ``values`` is the caller's copy, reordered in place."""

    def __init__(self, values, lower, upper):
        self.values, self.n = values, values.size
        self.lower, self.upper = lower, upper
        self.grid = joint_grid(lower, upper)  # j, X_0, X_{n+1}: quantileDP's grid 2^j
        self.sorted = False
        self._ready = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def prepare(self, starts, stops):
        """Make x_k right for k in [starts[i], stops[i]] (inclusive, in 0 ... n + 1)."""
        if self.sorted:
            return
        first = np.maximum(np.asarray(starts, dtype=np.int64) - 1, 0)  # x_k: data rank k - 1
        last = np.minimum(np.asarray(stops, dtype=np.int64) - 1, self.n - 1)
        keep = first <= last
        first, last = first[keep], last[keep]
        done_first, done_last = self._ready
        if all(np.any((done_first <= f) & (l <= done_last)) for f, l in zip(first, last)):
            return  # inside segments already sorted in place
        if int(np.sum(last - first + 1)) * 4 >= self.n:
            self.values.sort()
            self.sorted = True
            return
        self.values.partition(np.unique(np.concatenate([first, last])))
        for s, e in zip(first, last):
            self.values[s:e + 1].sort()
        self._ready = (first, last)

    def release(self, points):
        """The released values g X of the grid points ``points`` (the nearest doubles)."""
        j = self.grid[0]
        return np.array([math.ldexp(float(p), j) for p in points], dtype=np.float64)

    def at(self, ranks):
        """X_k for the prepared ranks k: x_k rounded to the grid, in grid units (int64;
        X_0 = ceil(a / g), X_{n+1} = floor(b / g), :func:`joint_grid`)."""
        ranks = np.asarray(ranks)
        _, first, last = self.grid
        out = np.empty(ranks.size, dtype=np.int64)
        inner = (ranks >= 1) & (ranks <= self.n)
        out[inner] = _on_grid(self.values[ranks[inner] - 1], *self.grid)
        out[ranks == 0] = first
        out[ranks == self.n + 1] = last
        return out


class _LatticeOrder(_Order):
    """:class:`_Order` on a public resolution: ``values`` holds the records' coordinates on the
    refined candidates (:func:`_lattice_coordinates`), X_0 = 0 and X_{n+1} = (N + 1) G."""

    def __init__(self, coordinates, lattice):
        self.values, self.n = coordinates, coordinates.size
        self.lattice = lattice
        self.grid = (None, 0, lattice.size * SUBPOINTS)
        self.sorted = False
        self._ready = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def at(self, ranks):
        ranks = np.asarray(ranks)
        _, first, last = self.grid
        out = np.empty(ranks.size, dtype=np.int64)
        inner = (ranks >= 1) & (ranks <= self.n)
        out[inner] = self.values[ranks[inner] - 1]
        out[ranks == 0] = first
        out[ranks == self.n + 1] = last
        return out

    def release(self, points):
        """The lattice points t_i of the refined candidates ``points`` (i = point // G)."""
        index = np.asarray(points, dtype=np.int64) // SUBPOINTS
        return self.lattice.points(index)


#: Refined candidates per lattice point: a record on t_i sits at a uniform cut among the
#: 2^SUBPOINT_BITS cuts inside (i, 0), ..., (i, G - 1) (``_lattice_coordinates``). More
#: cuts spread the ties more finely but widen the accuracy report (ln G per quantile):
#: 64 cuts leave a value's ties (rarely) sharing a cut, which only merges two of its counts.
SUBPOINT_BITS = 6
SUBPOINTS = 2 ** SUBPOINT_BITS + 1


def _lattice_coordinates(values, lattice, rng):
    """Each record's coordinate on the refined candidates of ``lattice`` (int64): L G strictly
    between t_{L-1} and t_L, L G + V on t_L with V exactly uniform on {1, ..., 64}, so that ties
    spread over t_L's refined candidates (docs/python/guide/quantiles-joint.md)."""
    positions = lattice.positions(values)
    coordinates = (positions // 2) * SUBPOINTS
    on = np.flatnonzero(positions % 2 == 1)
    coordinates[on] += 1 + _random.uniform_bits(SUBPOINT_BITS, on.size, rng)
    return coordinates


# Blocks of the prefix log-sum-exps: a chain of at most (_BLOCK + 1) ceil(log_64 R) roundings
# per prefix value (``prefix_chain``), where a running ``np.logaddexp.accumulate`` has R.
_BLOCK = 64


def _prefix_logsumexp(values):
    """Inclusive prefix log-sum-exps along the last axis, in blocks of ``_BLOCK``: each value is a
    chain of at most :func:`prefix_chain` logaddexps (the bound of :func:`joint_float_slack`)."""
    values = np.asarray(values, dtype=np.float64)
    size = values.shape[-1]
    if size <= _BLOCK:
        return np.logaddexp.accumulate(values, axis=-1)
    lead = values.shape[:-1]
    blocks = -(-size // _BLOCK)
    padded = np.full(lead + (blocks * _BLOCK,), -np.inf)
    padded[..., :size] = values
    within = np.logaddexp.accumulate(padded.reshape(lead + (blocks, _BLOCK)), axis=-1)
    carry = _prefix_logsumexp(within[..., -1])
    before = np.concatenate([np.full(lead + (1,), -np.inf), carry[..., :-1]], axis=-1)
    out = np.logaddexp(within, before[..., None])
    return out.reshape(lead + (blocks * _BLOCK,))[..., :size]


def prefix_chain(size):
    """The longest chain of logaddexps behind a value of :func:`_prefix_logsumexp` on
    ``size`` values: _BLOCK - 1 within a block, then the blocks' own chain plus one."""
    chain = 0
    while size > _BLOCK:
        chain += _BLOCK
        size = -(-size // _BLOCK)
    return chain + max(size - 1, 0)


def _total_logsumexp(values):
    """log sum exp(values) (a 1-d array), as the last prefix of :func:`_prefix_logsumexp`."""
    values = np.asarray(values, dtype=np.float64).ravel()
    return float(_prefix_logsumexp(values)[-1]) if values.size else -math.inf


def _range_logsumexp(values, left, right):
    """log sum exp(values[left[i]:right[i]]) for every i (-inf for an empty range), from a
    segment tree of partial log-sum-exps: sums only, never a difference of sums."""
    size = 1 << max(1, (max(values.size, 1) - 1).bit_length())
    tree = np.full(2 * size, -np.inf)
    tree[size:size + values.size] = values
    level = size
    while level > 1:
        half = level // 2
        tree[half:level] = np.logaddexp(tree[level:2 * level:2], tree[level + 1:2 * level:2])
        level = half
    lo = np.asarray(left, dtype=np.int64) + size
    hi = np.asarray(right, dtype=np.int64) + size
    out = np.full(lo.size, -np.inf)
    while True:
        active = lo < hi
        if not active.any():
            return out
        take = active & (lo & 1 == 1)
        out[take] = np.logaddexp(out[take], tree[lo[take]])
        lo = lo + take
        take = active & (hi & 1 == 1)
        hi = hi - take
        out[take] = np.logaddexp(out[take], tree[hi[take]])
        lo >>= 1
        hi >>= 1


def _sliding_logsumexp(values, length):
    """log sum exp(values[max(t - length, 0):t]) for every t (-inf for t = 0 or length 0), in O(n)
    by van Herk's block prefixes and suffixes; sums only, never a difference of sums."""
    n = values.size
    out = np.full(n, -np.inf)
    if length < 1 or n < 2:
        return out
    blocks = -(-n // length)
    padded = np.full(blocks * length, -np.inf)
    padded[:n] = values
    grid = padded.reshape(blocks, length)
    prefix = _prefix_logsumexp(grid).ravel()
    suffix = _prefix_logsumexp(grid[:, ::-1])[:, ::-1].ravel()
    t = np.arange(1, n)
    start = t - length
    short = start <= 0  # the window [0, t) lies in the first block
    out[1:][short] = prefix[t[short] - 1]
    start, end = start[~short], t[~short] - 1
    aligned = start % length == 0  # the window is one whole block
    both = np.logaddexp(suffix[start], np.where(aligned, -np.inf, prefix[end]))
    out[1:][~short] = both
    return out


def _convolve(ranks, log_e, d, beta):
    """C[k] = log sum_{k' < k} exp(log_e[k'] - beta |k - k' - d|), k and k' over ``ranks``
    (sorted integers). Split at k - k' = d: a prefix log-sum-exp where the kernel decreases,
    a range log-sum-exp where it increases."""
    before = np.searchsorted(ranks, ranks, side="left")  # k' < k
    far = np.minimum(np.searchsorted(ranks, ranks - d, side="right"), before)  # k' <= k - d
    with np.errstate(invalid="ignore"):
        prefix = _prefix_logsumexp(log_e + beta * ranks)
    decreasing = np.where(far > 0, prefix[np.maximum(far - 1, 0)], -np.inf)
    decreasing = decreasing + beta * (d - ranks)
    rising = log_e - beta * ranks
    if ranks.size and ranks[-1] - ranks[0] + 1 == ranks.size:
        # every interval: each window [far, before) is the `length` sources before k
        length = int(np.max(before - far, initial=0))
        increasing = _sliding_logsumexp(rising, length)
    else:
        increasing = _range_logsumexp(rising, far, before)
    increasing = increasing + beta * (ranks - d)
    return np.logaddexp(decreasing, increasing)


class _JointDP:
    """The dynamic program of JointExp over candidate intervals ``ranks`` (sorted), with ``widths``
    (grid points) and ``allowed[j]`` the candidates output j + 1 may take. With ``inside`` (the
    windows), the sequences inside ('in') and outside ('out') are summed side by side, so the
    outside's weight is never a difference (the mixture of :func:`_joint_windowed`)."""

    def __init__(self, ranks, widths, allowed, d, beta, n, inside=None):
        self.ranks, self.widths, self.allowed = ranks, widths, allowed
        self.d, self.beta, self.n, self.inside = d, beta, n, inside
        m = allowed.shape[0]
        self.m = m
        self.cum_d = np.concatenate([[0.0], np.cumsum(d)])  # cum_d[t] = d_1 + ... + d_t
        flags = ("in",) if inside is None else ("in", "out")
        start = -beta * np.abs(ranks - d[0])
        self.c = {"in": [start], "out": [np.full(ranks.size, -np.inf)]}
        self.e = {flag: [] for flag in flags}
        self.last, self.log_zs = {}, {}
        for j in range(1, m + 1):
            for flag in flags:
                terms, _ = self._run_terms(j, flag)
                self.e[flag].append(_reduce_terms(terms, ranks.size))
            if j < m:
                for flag in flags:
                    self.c[flag].append(_convolve(ranks, self.e[flag][-1], d[j], beta))
        for flag in flags:
            self.last[flag] = self.e[flag][-1] - beta * np.abs(n - ranks - d[m])
            self.log_zs[flag] = _total_logsumexp(self.last[flag])
        self.log_z = self.log_zs["in"]
        if inside is not None:
            self.log_z = float(np.logaddexp(self.log_zs["in"], self.log_zs["out"]))

    def _run_terms(self, j, flag, index=None):
        """The log terms of E_j for ``flag`` at ``index`` (or everywhere), and their labels
        (r, source flag): one term per run length r = 1 ... j and source."""
        sel = slice(None) if index is None else index
        w = self.widths[sel]
        volume = np.zeros_like(w)  # log C(w + r - 1, r): the runs of r outputs in w points
        terms, labels = [], []
        for r in range(1, j + 1):
            with np.errstate(divide="ignore"):
                volume = volume + np.log((w + (r - 1)) / r)
            ok = self.allowed[j - r:j, sel].all(axis=0)
            inner = self.cum_d[j] - self.cum_d[j - r + 1]  # gaps d_{j-r+2} ... d_j
            sources = [(flag, ok)]
            if self.inside is not None:
                within = self.inside[j - r:j, sel].all(axis=0)
                sources = ([("in", ok & within)] if flag == "in"
                           else [("out", ok), ("in", ok & ~within)])
            for source, mask in sources:
                with np.errstate(invalid="ignore"):
                    term = self.c[source][j - r][sel] + volume - self.beta * inner
                terms.append(np.where(mask, term, -np.inf))
                labels.append((r, source))
        return terms, labels

    def sample(self, rng, flag="in"):
        """(interval ranks of outputs 1 ... m, window flags): one draw of the sequences of
        ``flag`` ('in': all of them without ``inside``), weight G, backwards."""
        k = np.empty(self.m, dtype=np.int64)
        where = np.empty(self.m, dtype=np.int64)  # index into ranks
        i = _choose(self.last[flag], rng)
        j = self.m
        while True:
            terms, labels = self._run_terms(j, flag, i)
            r, flag = labels[_choose(np.array(terms, dtype=np.float64).ravel(), rng)]
            k[j - r:j], where[j - r:j] = self.ranks[i], i
            j -= r
            if j == 0:
                return k, where
            earlier = np.arange(i)  # k' < k: the ranks are sorted and distinct
            logw = self.e[flag][j - 1][earlier] - self.beta * np.abs(
                self.ranks[i] - self.ranks[earlier] - self.d[j])
            i = int(earlier[_choose(logw, rng)])


def _reduce_terms(terms, size):
    """Elementwise log-sum-exp of the run terms (a chain of at most 2 m logaddexps)."""
    out = np.full(size, -np.inf)
    for term in terms:
        out = np.logaddexp(out, term)
    return out


# exponential_mechanism(u, eps, Delta) draws index i with weight exp(gamma round(u_i / h)),
# h = 2^k, k = grid_exponent(Delta, 20), and gamma = eps / (2 D), D = 2^20 + 1
# (``_random.exponential_grid``): with Delta = 2^-20, h = 2^-40, and eps = 2 D h =
# 2^-19 + 2^-39 (a double), gamma = h: the weight is exp(h round(u_i / h)), each log weight
# moved by at most h / 2 = 2^-41 (``CHOICE_ROUNDING``).
_UNIT_SENSITIVITY = 2.0 ** -20
_UNIT_EPS = 2.0 ** -19 + 2.0 ** -39
CHOICE_ROUNDING = 2.0 ** -41


def _choose(log_weights, rng):
    """An index drawn exactly with probability proportional to exp(L~_i), the ``log_weights`` less
    their maximum rounded to multiples of 2^-40 (``_random.exponential_mechanism``)."""
    logw = np.asarray(log_weights, dtype=np.float64).ravel()
    top = float(np.max(logw, initial=-np.inf))
    if not (top > -np.inf and math.isfinite(top)):
        raise ValueError("At least one weight must be positive and finite.")
    return int(_random.exponential_mechanism(logw - top, _UNIT_EPS, _UNIT_SENSITIVITY, rng))


def _joint_dp(order, ranks, allowed, d, beta, inside=None):
    """The DP on candidate ``ranks`` (with the order statistics prepared around them)."""
    edges = order.at(np.concatenate([ranks, ranks + 1]))
    widths = (edges[ranks.size:] - edges[:ranks.size]).astype(np.float64)
    return _JointDP(ranks, widths, allowed, d, beta, order.n, inside)


def _log_multisets(w, r):
    """log C(w + r - 1, r), the number of non-decreasing r-tuples of w points (-inf for
    w = 0), as a sum of logs (no difference of large lgammas)."""
    return float(sum(math.log((w + i - 1) / i) if w + i - 1 > 0 else -math.inf
                     for i in range(1, r + 1)))


def _windows(targets, half, n):
    lo = np.clip(np.ceil(targets - half), 0, n).astype(np.int64)
    hi = np.clip(np.floor(targets + half), 0, n).astype(np.int64)
    return lo, hi


def joint_sensitivity(quants, which_sensitivity):
    """The sensitivity Delta of JointExp's utility: 2 under 'bounded', 2 (1 - min_i delta_i)
    under 'unbounded' (delta_i = q_i - q_{i-1} the targets' shares), exact in rationals and
    rounded up (derivation: docs/python/guide/quantiles-joint.md).

    Examples
    --------
    >>> joint_sensitivity(np.array([0.25, 0.5, 0.75]), "unbounded")
    1.5
    >>> joint_sensitivity(np.array([0.25, 0.5, 0.75]), "bounded")
    2.0
    """
    if which_sensitivity != "unbounded":
        return 2.0
    shares = [fractions.Fraction(float(v))
              for v in np.diff(np.concatenate([[0.0], quants, [1.0]]))]
    exact = max(abs(1 - s) + sum(shares) - s for s in shares)
    value = float(exact)
    if fractions.Fraction(value) < exact:
        value = math.nextafter(value, math.inf)
    return value


#: The unit roundoff of doubles, and the accuracy assumed of the C library's exp, log and log1p
#: (in units in the last place; glibc documents below 1 ulp for them on x86-64 and arm64).


def joint_exp(values, quants, eps, lower, upper, rng, half=None, sensitivity=2.0,
               lattice=None):
    """The JointExp release on the clipped data ``values`` (a copy, reordered), weight
    exp(eps u / (2 Delta)); on the refined candidates of ``lattice`` when given. ``half`` (tests
    only) fixes the windows' half-width."""
    n, m = values.size, quants.size
    beta = eps / (2.0 * sensitivity)  # exp(eps u / (2 Delta)); eps / 4 for Delta = 2
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    targets = quants * n
    if lattice is None:
        order = _Order(values, lower, upper)
    else:
        order = _LatticeOrder(_lattice_coordinates(values, lattice, rng), lattice)
    _, first, last = order.grid
    log_volume = _log_multisets(last - first, m)  # every ordered m-tuple of grid points
    fixed = half is not None
    if not fixed:
        half = (m * math.log(n + 2.0) + _MARGIN + 10.0) / beta + 2.0
    every = np.arange(n + 1, dtype=np.int64)
    while True:
        lo, hi = _windows(targets, half, n)
        if not fixed and int(np.sum(hi - lo + 1)) * 2 >= n + 1:
            break  # the windows would cover the data: the whole DP
        ranks = np.unique(np.concatenate([np.arange(a, b + 1) for a, b in zip(lo, hi)]))
        allowed = (ranks >= lo[:, None]) & (ranks <= hi[:, None])
        order.prepare(lo, hi + 1)
        window = _joint_dp(order, ranks, allowed, d, beta)
        log_outside = log_volume - beta * half  # U, the outside's weight at most
        if fixed or log_outside < window.log_z - _MARGIN:
            return _joint_windowed(order, window, lo, hi, log_outside, d, beta, rng)
        half *= 8.0
    order.prepare([0], [n + 1])
    whole = _joint_dp(order, every, np.ones((m, n + 1), dtype=bool), d, beta)
    return _joint_outputs(order, whole.sample(rng)[0], rng)


def _joint_windowed(order, window, lo, hi, log_outside, d, beta, rng):
    """A draw of JointExp from the windowed DP, exact by the mixture
    pi Q_out + (1 - pi) Q_W = G / Z (docs/python/guide/quantiles-joint.md)."""
    log_p = math.log(4.0) + log_outside - window.log_z
    # uniform() is a multiple of 2^-53: P[uniform < p] = p exactly for p on that grid.
    p = 1.0 if log_p >= 0 else (
        math.ceil(math.ldexp(math.exp(log_p), 53)) / 2.0 ** 53 if log_p > -745 else 2.0 ** -53)
    if p < 1 and _random.uniform(rng) >= p:
        return _joint_outputs(order, window.sample(rng)[0], rng)
    n, m = order.n, lo.size
    order.prepare([0], [n + 1])
    every = np.arange(n + 1, dtype=np.int64)
    if p >= 1:  # no mixture: a draw of the whole DP (the windows' bound is too weak)
        whole = _joint_dp(order, every, np.ones((m, n + 1), dtype=bool), d, beta)
        return _joint_outputs(order, whole.sample(rng)[0], rng)
    inside = (every >= lo[:, None]) & (every <= hi[:, None])
    whole = _joint_dp(order, every, np.ones((m, n + 1), dtype=bool), d, beta, inside)
    # an exact coin of probability exp(-h round(x / h)), h = 2^-40, x = log(p / pi) >= 0
    # (``_random.exponential_coin``; the rounding is in joint_float_slack)
    x = math.log(p) - (whole.log_zs["out"] - whole.log_z)
    steps = int(round(math.ldexp(x, 40))) if math.isfinite(x) else None
    if steps is not None and _random.exponential_coin(steps, _COIN_RATE, rng):
        return _joint_outputs(order, whole.sample(rng, "out")[0], rng)
    return _joint_outputs(order, window.sample(rng)[0], rng)


_COIN_RATE = fractions.Fraction(1, 2 ** 40)


def _joint_outputs(order, k, rng):
    """The outputs of the interval sequence ``k``: for each run of r outputs in one interval, an
    exact uniform non-decreasing r-tuple of its grid points, as floats g X, in increasing order."""
    order.prepare(k, k + 1)
    low, high = order.at(k), order.at(k + 1)
    points = []
    start = 0
    while start < k.size:
        stop = start + 1
        while stop < k.size and k[stop] == k[start]:
            stop += 1
        base, w = int(low[start]), int(high[start]) - int(low[start])
        points.extend(base + t for t in _uniform_multiset(w, stop - start, rng))
        start = stop
    return np.sort(order.release(points))


def _uniform_multiset(w, r, rng):
    """An exact uniform non-decreasing r-tuple of {0, ..., w - 1} (w >= 1): Floyd's r-subset of
    {0, ..., w + r - 2}, mapped to s_i - i (stars and bars)."""
    if w < 1:
        raise ValueError("an interval of no grid point holds no output")
    size = w + r - 1
    chosen = set()
    for top in range(size - r, size):
        v = _random.uniform_integer(top + 1, rng)
        chosen.add(top if v in chosen else v)
    return [s - i for i, s in enumerate(sorted(chosen))]
