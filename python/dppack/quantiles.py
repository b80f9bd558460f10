"""Several private quantiles at once, and a private clipping range (issue 16).

:func:`quantilesDP` releases m quantiles of one variable under one budget eps, by one of three
methods:

* ``"recursive"`` (the default): ApproximateQuantiles of Kaplan, Schnapp and Stemmer (2022),
  the middle quantile first, then each half of the data on its own, every level with its
  share of eps; every release is :func:`dppack.quantileDP`'s exact sampler on a grid (a part
  with no data included), so the guarantee holds exactly;
* ``"joint"``: JointExp of Gillenwater, Joseph and Kulesza (2021), one draw of the exponential
  mechanism over the sorted m-vectors of outputs, on a grid (or on a public resolution's
  lattice); its interval selection weighs candidates by log-sums computed in floating
  point, whose error is bounded from public values: the release is (eps + slack)-DP and
  charges that (see "Floating point" below; slack below 1e-9 for a thousand records);
* ``"independent"``: the baseline, :func:`dppack.quantileDP` for each quantile with eps / m
  (basic composition), sorted afterwards (post-processing); exact.

:func:`boundsDP` releases a range [lower, upper] for the data from a public grid of candidates
spanning many orders of magnitude (both signs), so that the bounds the other releases need can
themselves be private, charged to the same accountant.

JointExp: the derivation
------------------------
The outputs are points of :func:`dppack.quantileDP`'s grid g = 2^j (from the bounds alone:
max(abs(a), abs(b)) < 2^59 g), and every datum is clipped and rounded to it, record by record:
X_i = clip(round(x_i / g), X_0, X_{n+1}), X_0 = ceil(a / g), X_{n+1} = floor(b / g). The
candidates are the grid points t in [X_0, X_{n+1}) (all in [a, b]). Sorted, the X_i cut them
into n + 1 intervals I_k = [X_k, X_{k+1}), k = 0, ..., n, of w_k grid points (ties give 0).
For t in I_k, c(t) = k rounded data lie at or below it. For outputs t_1 <= ... <= t_m and
quantiles q_1 <= ... <= q_m (q_0 = 0, q_{m+1} = 1), the utility is

    u(o) = - sum_{j=1}^{m+1} | c(o_j) - c(o_{j-1}) - (q_j - q_{j-1}) n |,

with c(o_0) = 0 and c(o_{m+1}) = n: the distance between the numbers of data in the m + 1 gaps
the outputs cut and the numbers the quantiles ask for (Gillenwater et al. 2021, Section 3).

Sensitivity 2, bounded or unbounded. Changing one record changes one rounded X_i, so moves it
from one gap to another: two gap counts change by 1. Adding or removing a record changes one gap
count by 1 and every target (q_j - q_{j-1}) n by q_j - q_{j-1}, which add up to 1. Either way
|u| moves by at most 2, so the weight exp(eps u(t) / 4) on the non-decreasing m-tuples of grid
points (counting measure) is the exponential mechanism with Delta = 2, eps-DP (McSherry and
Talwar 2007, Theorem 6), as in the paper (whose Lebesgue measure on [a, b]^m the grid replaces).
For m = 1 it is :func:`dppack.quantileDP`'s law (u = -2 |k - q n|, exp(-eps |k - q n| / 2)).

u depends on t only through the intervals k_1 <= ... <= k_m holding the outputs. The
non-decreasing tuples with these intervals number prod_runs C(w + r - 1, r), a run being r
outputs in one interval of w grid points (the paper's volume w^r / r! on the grid). So the
sequence k is drawn with weight

    G(k) = prod_runs C(w + r - 1, r) * exp(-beta sum_j |k_j - k_{j-1} - d_j|),  beta = eps / 4,

d_j = (q_j - q_{j-1}) n, k_0 = 0, k_{m+1} = n; then, for each run, a uniform non-decreasing
r-tuple of its interval's grid points, drawn exactly (a uniform r-subset of w + r - 1 points by
Floyd's algorithm, then stars and bars; one exact uniform integer per output,
``_random.uniform_integer``). The release is g t (the nearest double where the grid is finer
than the doubles: post-processing). G is summed and sampled by a dynamic program over runs, all
in log space: with E_j[k] the total weight of the prefixes k_1, ..., k_j whose last run ends at
output j in interval k, and C_i[k] = sum_{k' < k} E_i[k'] exp(-beta |k - k' - d_{i+1}|) (C_0[k]
= exp(-beta |k - d_1|)),

    E_j[k] = sum_{r=1}^{j} C_{j-r}[k] C(w_k + r - 1, r) exp(-beta (d_{j-r+2} + ... + d_j)),

the run's inner gaps being empty (count 0, target d_i). Each C_i is one pass: the kernel
exp(-beta |t - d|) is a decreasing exponential for t >= d (a prefix log-sum-exp of
E[k'] + beta k') and an increasing one for t < d (a log-sum-exp of E[k'] - beta k' over the
sources with k - d < k' < k: over every interval, a sliding window, from prefix and suffix
log-sum-exps within blocks of its length; over the windows below, a segment tree). Sums only,
never a difference of sums, so no cancellation. The sample is drawn backwards
(the last interval, its run length, the interval before, ...), each step one categorical draw
over the computed log weights, exact given them: rounded to multiples of 2^-40 and drawn by
the exact exponential mechanism (``_random.exponential_mechanism``, integer decisions only).
The paper's algorithm has the same law; its cost is O(m n log n + m^2 n), ours O(m n log n)
for the whole DP.

Speed: windows, exactly. Most of G's mass lies where every k_j is near q_j n: if |k_j - q_j n| >
h for some j, then u < -h (the gaps up to j miss their targets by that much in total), so all
such sequences together weigh at most U = C(W + m - 1, m) exp(-beta h), W the number of grid
points (the count of all ordered outputs). The DP is therefore run first on the windows W_j = {k
: |k - q_j n| <= h} alone, which needs only the order statistics of the data near the ranks q_j
n (``numpy.partition``, no sort), and gives their total Z_W; h is widened until U < e^-50 Z_W.
The law stays exactly JointExp's by a mixture: with probability p (a multiple of 2^-53 at
least 4 U / Z_W, drawn exactly), the whole DP is run in two parts side by side, 'in' (every
output inside its window) and 'out' (some output outside), sums of positive terms both, and
gives pi = Z_out / Z; then a sequence of the 'out' part is drawn with probability pi / p
(at most 1/2: an exact coin exp(-x), x = log(p / pi) rounded to 2^-40), and otherwise (and
with probability 1 - p) a draw of the windowed DP. The law: pi G 1_out / Z_out + (1 - pi)
G 1_W / Z_W = G / Z (where 4 U >= Z_W, p = 1: simply a draw of the whole DP). The whole DP
runs with probability p < 4 e^-50 in practice. Nothing is
computed as a difference of nearly equal weights (a rejection step 1 - (1 - p) Z / Z_W would
be: its relative error, divided by p, would be unbounded).

On a public resolution r (``resolution``; the lattice t_i = a + i r of ``stats.Lattice``,
i = 0, ..., N). The same mechanism on refined candidates: each lattice point t_i is G = 65
candidates (i, 0), ..., (i, 64) (coordinate i G + v), and each record gets a coordinate
X, counted by the candidates c >= X: a record strictly between t_{L-1} and t_L has X = L G,
one on t_L has X = L G + V with V uniform on {1, ..., 64}, drawn exactly and independently
for each record (``_random.uniform_bits``). Then (i, 0) counts lt(t_i) records (those below
t_i), (i, 64) counts le(t_i) (those at or below it), and the ties of t_i split its
candidates into runs with each count between: every count a tied value spans has positive
mass, so the true quantiles of integer data are reachable (issue 28). The release is the
lattice point t_i of each refined output (post-processing). Privacy: for fixed draws V the
refined records are a record-by-record function of the data, so JointExp on them is
eps-DP, neighbours going to neighbours; the V of the other records are the same under both
neighbours (a coupling), so the mixture over V is eps-DP too (Gillenwater, Joseph and
Kulesza 2021, Section 3, on the refined candidates with counting measure).

Floating point: the bound, and its charge. The outputs are exact: grid points of a
data-independent grid (or lattice points), drawn uniformly by integer arithmetic within the
chosen intervals, and each categorical draw is exact given its log weights rounded to 2^-40
(moved by at most 2^-41 each). The log weights themselves come from a fixed,
data-independent program (given n, m and the grid): sums, products and logaddexp(a, b) =
max + log1p(exp(-abs(a - b))) of doubles. Each rounded operation on values of size at most M
errs by at most e = u (M + 2 kappa + 2) (u = 2^-53, kappa = 4 the assumed ulps of the C
library's exp, log and log1p; the log of a run volume, at most 61 ln 2, by at most 4 e),
where M = 4 beta (n + 1) + m ln(W + m) + 1 bounds every
finite intermediate (a log weight lies between -2 beta n and m ln(W + m); the prefix terms
add at most 2 beta (n + 1)). A logaddexp's error is at most the larger of its inputs'
errors plus e (its derivatives are weights summing to 1), an addition's the sum of its
inputs' plus e: so a log weight's error is e times the longest chain of operations behind
it. The prefix log-sum-exps are blocked (``_prefix_logsumexp``: at most 64 + 1 per level of
64), the range log-sum-exps a segment tree (3 log2 R), so every log weight of the DP is
within tau_f = e (m (9 m + 6) + (m - 1)(L + 10) + L' + 11) of the exact one (L, L' the
chains of the range and prefix log-sum-exps on n + 1 values; ``joint_float_slack``), and
as drawn within tau = tau_f + 2 e + 2^-41. A categorical draw from weights within a factor
e^tau of the exact ones has each probability within e^(2 tau) of the exact conditional; a
sequence is at most 2 m draws, so its probability is within e^(4 m tau) of G(k) / Z; the
mixture's pi and its coin add 2 tau_f + 6 e + 2^-40. So each output's probability is within
e^X of JointExp's exact one, X = 4 m tau + 2 tau_f + 6 e + 2^-40, and the release is
(eps + 2 X)-DP (``joint_loss_eps``; under 'unbounded', where n is private, at n = 2^27
records, plus 4 beta u (n + 1) for the targets q_j n rounded differently on the two
neighbours). quantilesDP therefore runs JointExp at eps' = eps - slack(eps) (the slack grows
with eps; ``joint_mechanism_eps``), so the release is eps-DP and the accountant is charged
eps exactly. The slack is about 7e-10 for
quartiles of 532 records at eps 1, 2e-6 for a million, 2.5e-4 for nine quantiles of 10^7;
5e-4 eps under 'unbounded'. The measured errors are some 1000 times smaller than the bound
(``tests/python/quantiles/test_joint_float.py`` computes the DP in 60-digit decimal arithmetic). The
assumptions: IEEE doubles with rounding to nearest, and exp, log and log1p within 4 ulps;
under 'unbounded', at most 2^27 records. The windowed path is taken only when U < e^-50 Z_W,
so pi < e^-50 and the inside's share 1 - pi moves by a negligible factor (fixing ``half``,
for tests only, drops that check).

References
----------
Gillenwater, Joseph and Kulesza (2021), "Differentially private quantiles", ICML;
Kaplan, Schnapp and Stemmer (2022), "Differentially private approximate quantiles", ICML;
McSherry and Talwar (2007), "Mechanism design via differential privacy", FOCS;
Smith (2011), "Privacy-preserving statistical estimation with optimal convergence rates".
"""

import collections
import fractions
import math
import numbers
import warnings

import numpy as np

from . import _checks, _messages, _random, accounting
from .accounting import PrivacyLoss
from .stats._quantile import (check_resolution, exact_quantile, lattice_runs,
                              quantile_sensitivity, quantileDP)

__all__ = ["boundsDP", "quantilesDP"]

METHODS = ("joint", "independent", "recursive")
WHICH = ("bounded", "unbounded")
_MARGIN = 50.0  # the windows' outside weighs at most e^-_MARGIN of their inside


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def check_quants(quants):
    """quants as a float array: at least one number, each in [0, 1], in increasing order."""
    message = "quants must be numbers in [0, 1]."
    if isinstance(quants, (str, bytes)) or quants is None:
        raise _messages.value_error(message)
    values = np.asarray(quants, dtype=object).ravel()
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)
    if not values.size or not numeric:
        raise _messages.value_error(message)
    values = values.astype(np.float64)
    if np.isnan(values).any() or values.min() < 0 or values.max() > 1:
        raise _messages.value_error(message)
    if np.any(np.diff(values) < 0):
        raise _messages.value_error("quants must be in increasing order.")
    return values


def _bounds(lower_bound, upper_bound):
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    return bounds["lower.bound"], bounds["upper.bound"]


def _quantiles_loss(eps):
    return PrivacyLoss.pure(_checks.check_finite_budget(eps, "eps"))


def _record_count(x):
    """The number of entries of the data from their shape (numpy, pandas, polars, ...) or
    length, without reading them; None when neither is known."""
    if type(x).__module__.split(".")[0] == "dask":  # refused later; never computed here
        return None
    shape = getattr(x, "shape", None)
    try:
        if isinstance(shape, tuple) and all(isinstance(v, numbers.Integral) for v in shape):
            return int(np.prod(shape, dtype=np.int64))
        return int(np.size(x))
    except (TypeError, ValueError):
        return None


def _joint_eps(eps, quants, lower_bound, upper_bound, which_sensitivity, resolution, count):
    """The eps JointExp runs at (:func:`joint_mechanism_eps`), so that the release, its
    floating-point slack included, costs at most ``eps``; from public values: the bounds
    (its grid, or the resolution's refined candidates), the quantiles, the relation and,
    under 'bounded', the number of entries ``count``."""
    eps = _checks.check_finite_budget(eps, "eps")
    lower, upper = _bounds(lower_bound, upper_bound)
    quants = check_quants(quants)
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH)
    lattice = check_resolution(resolution, lower, upper)
    if lattice is None:
        _, first, last = joint_grid(lower, upper)
        points = last - first
    else:
        points = lattice.size * SUBPOINTS
    n = UNBOUNDED_RECORDS if count is None else max(int(count), 1)
    return joint_mechanism_eps(eps, n, quants.size, joint_sensitivity(quants, which_sensitivity),
                               points, which_sensitivity)


# --------------------------------------------------------------------------------------------
# quantilesDP
# --------------------------------------------------------------------------------------------


def quantilesDP(x, quants, eps, lower_bound, upper_bound, method="recursive",
                which_sensitivity="bounded", random_state=None, resolution=None,
                accountant=None):
    """Differentially private quantiles: m quantiles of one variable under one budget.

    Parameters
    ----------
    x : array_like
        Numeric, finite data, at least one value under 'bounded' (none needed under
        'unbounded', where n is private; a matrix counts all its entries; each entry
        is one person, as for :func:`dppack.quantileDP`). In memory (numpy, pandas, polars,
        pyarrow); Dask data get a TypeError.
    quants : array_like of float
        The quantiles q_1 <= ... <= q_m, in [0, 1], in increasing order.
    eps : float
        The whole budget, > 0 and finite.
    lower_bound, upper_bound : float
        Public bounds, lower < upper; the data are clipped to them.
    method : {'recursive', 'joint', 'independent'}, default 'recursive'
        'recursive': ApproximateQuantiles (Kaplan, Schnapp and Stemmer 2022, Algorithm 1):
        the middle quantile by :func:`dppack.quantileDP`, then the data below it and above
        it, each with its quantiles rescaled, recursively; the L = ceil(log2(m + 1)) levels
        share eps (see ``which_sensitivity``). A part with no data gets quantileDP's release
        on no data (the exact uniform on its grid). Exact: every draw on a grid.
        'joint': JointExp (Gillenwater, Joseph and Kulesza 2021; module docstring): one
        exponential mechanism over the sorted m-vectors of grid points, utility sensitivity
        2. Its outputs are exact grid points; the interval selection's weights are
        log-sums computed in floating point, within a proved, data-independent error of
        the exact ones, so the release is (eps + slack)-DP and charges eps + slack
        (``quantiles.joint_float_slack``; module docstring, "Floating point"; below 1e-9 for a
        thousand records). More accurate than 'recursive' for several quantiles.
        'independent': :func:`dppack.quantileDP` for each quantile with eps / m (basic
        composition), the results sorted. Exact.
    which_sensitivity : {'bounded', 'unbounded'}, default 'bounded'
        The neighbouring relation the guarantee is for. Under 'unbounded' (a record added
        or removed) every method uses its utility's add/remove sensitivity, smaller than
        the bounded one: max(q, 1 - q) for each quantileDP draw ('independent', and each
        node of 'recursive' with its rescaled q: ``node_sensitivity``), 2 (1 - min_i
        (q_i - q_{i-1})) for 'joint' (q_0 = 0, q_{m+1} = 1: ``joint_sensitivity``) instead
        of 2. 'recursive' also splits eps by it: under 'unbounded' a record reaches one
        release per level, eps / L each; under 'bounded' (a record changed, sensitivity 1
        per node) the changed record may leave one half for the other, so that two
        releases change on every level below the first: eps / (2 L - 1) each. 'bounded'
        releases are DPpack-compatible; 'unbounded' ones are more accurate at the same eps
        than with sensitivity 1 (ours).
    random_state : None, int or NumPy Generator, optional
    resolution : float, optional
        A public spacing r (e.g. 1 for whole numbers): every release is one of the
        candidates lower_bound + i r. 'recursive' and 'independent' draw as
        :func:`dppack.quantileDP` draws with a resolution (the exponential mechanism on
        them, McSherry and Talwar 2007; Smith 2011); 'recursive' keeps the candidates of
        the whole range: a node between two earlier releases chooses among the candidates
        between them (both included), a set fixed by the releases before it, so the
        argument of Kaplan, Schnapp and Stemmer (2022) holds unchanged. 'joint' runs
        JointExp on the candidates, each split into 65 refined ones among which the
        records on it are placed at random (module docstring, "On a public resolution"):
        every count a tied value spans has positive mass, so the true quantiles of integer
        data are reachable. None (default): the fine grid of :func:`dppack.quantileDP`.
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps) once ('joint' runs at eps less its float slack,
        ``quantiles.joint_mechanism_eps``, from the bounds, resolution, quantiles and,
        under 'bounded', the data's size), label "quantilesDP"; by default the session's
        accountant, if any. An overspend is refused before the data are read.

    Returns
    -------
    numpy.ndarray
        The m released quantiles, in increasing order, in [lower_bound, upper_bound]:
        points of :func:`dppack.quantileDP`'s grid (of the bounds, or for 'recursive' of
        the range each release is made on).

    Raises
    ------
    ValueError
        For bounds, resolution, quants, eps, method, which_sensitivity or data that are not
        as above, and for an overspend: all before any random number is drawn (a bad
        resolution before the data are read).

    Notes
    -----
    Accuracy, in ranks (error = abs(rank of the release - q n)): JointExp's error per quantile
    grows about as (m log n) / eps in the worst case but is much smaller in practice, since
    the outputs share one draw; the independent baseline pays a factor m in eps; recursive
    pays a factor log2(m + 1) (or 2 log2(m + 1) under 'bounded'). ``benchmarks/quantiles.py``
    measures them on four data shapes (``benchmarks/README.md``, "Joint quantiles").
    ``noiseIntervalDP("quantilesDP", eps, quants=..., lower_bound=..., upper_bound=...,
    method=...)`` gives a bound from public values on these rank errors ('joint' needs the
    data's public ``resolution``; ``dppack.accuracy``).

    Speed: 'joint' needs the order statistics near the ranks q_j n only
    (``numpy.partition``), then a dynamic program over a few thousand intervals: on
    n = 10^7, m = 9 it takes less time than ``numpy.sort`` (benchmark). Its whole-data
    dynamic program (module docstring) runs with probability below e^-50, or where the
    windows would cover the data (small n or small eps): O(m n log n) then.

    References
    ----------
    Gillenwater, Joseph and Kulesza (2021), "Differentially private quantiles", ICML;
    Kaplan, Schnapp and Stemmer (2022), "Differentially private approximate quantiles",
    ICML; Smith (2011), STOC.

    Examples
    --------
    The quartiles of plasma glucose (true values 98.75, 115, 141.25), bounded in [50, 200]:

    >>> from dppack import quantilesDP
    >>> from dppack.datasets import load_pima
    >>> glu = load_pima()["glu"]
    >>> q = quantilesDP(glu, [0.25, 0.5, 0.75], 1.0, 50, 200, random_state=1)
    >>> [round(float(v), 1) for v in q]
    [98.2, 117.5, 145.5]
    >>> q = quantilesDP(glu, [0.25, 0.5, 0.75], 1.0, 50, 200, method="joint",
    ...                 random_state=1)
    >>> [round(float(v), 1) for v in q]
    [97.1, 112.6, 138.9]
    >>> quantilesDP(glu, [0.25, 0.5, 0.75], 5.0, 50, 200, method="joint", random_state=1,
    ...             resolution=1).tolist()
    [98.0, 115.0, 140.0]
    >>> from dppack.quantiles import joint_float_slack
    >>> print(f"{joint_float_slack(glu.size, 3, 1.0):.1e}")  # joint runs at eps less this
    7.4e-10
    >>> quantilesDP(glu, [0.25, 0.5, 0.75], 1.0, 50, 200, random_state=1,
    ...             resolution=1).tolist()
    [98.0, 115.0, 144.0]
    """
    joint = isinstance(method, str) and method == "joint"
    count = _record_count(x) if joint else None  # public under 'bounded' (the shape)
    bill = accounting.charge(accountant, lambda: _quantiles_loss(eps), "quantilesDP")
    lower, upper = _bounds(lower_bound, upper_bound)
    lattice = check_resolution(resolution, lower, upper)  # public: before the data
    # Under add/remove neighbours n is private: no record is needed (refusing an empty
    # dataset while releasing its neighbour of one record would depend on the data).
    unbounded = _checks.is_one_of(which_sensitivity, ("unbounded",))
    x, _, _ = _checks.as_finite_data(x, "x", 0 if unbounded else 1)
    quants = check_quants(quants)
    _checks.check_choice(method, "method", METHODS)
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH)
    eps = _checks.check_finite_budget(eps, "eps")
    if joint and not unbounded and (count is None or x.size > count):
        # the charge's float slack was computed for `count` records (n is public here)
        raise _messages.value_error("x must be an array whose shape gives its size.")
    if joint:  # public values only: eps less its float slack
        inner_eps = _joint_eps(eps, quants, lower_bound, upper_bound, which_sensitivity,
                               resolution, None if unbounded else count)
    rng = _random.as_generator(random_state)
    bill.spend()
    if method == "joint":
        values = np.clip(x.ravel(order="K"), lower, upper)  # a copy: partitioned in place
        return _joint_exp(values, quants, inner_eps, lower, upper, rng,
                          sensitivity=joint_sensitivity(quants, which_sensitivity),
                          lattice=lattice)
    if method == "independent":
        out = [quantileDP(x, q, eps / quants.size, lower, upper, which_sensitivity,
                          random_state=rng, accountant=accounting.UNCHARGED,
                          resolution=resolution) for q in quants]
        return np.sort(np.asarray(out, dtype=np.float64))
    share = recursive_share(eps, quants.size, which_sensitivity)
    out = np.empty(quants.size)
    if lattice is not None:
        _recursive_lattice(lattice.positions(x.ravel(order="K")), quants,
                           np.arange(quants.size), share, 0, lattice.size - 1, lattice, rng,
                           out, which_sensitivity)
        return out
    _recursive(x.ravel(order="K"), quants, np.arange(quants.size), share, lower, upper, rng,
               out, which_sensitivity)
    return out


# --------------------------------------------------------------------------------------------
# Recursive splitting (Kaplan, Schnapp and Stemmer 2022)
# --------------------------------------------------------------------------------------------


def _levels(m):
    """The depth of the recursion that splits m quantiles at the middle one: ceil(log2(m + 1))."""
    return max(1, math.ceil(math.log2(m + 1)))


def recursive_share(eps, m, which_sensitivity):
    """The budget of each quantileDP release of 'recursive' (see :func:`quantilesDP`):
    eps / L under 'unbounded', eps / (2 L - 1) under 'bounded', L = :func:`_levels` (m)."""
    levels = _levels(m)
    return eps / levels if which_sensitivity == "unbounded" else eps / (2 * levels - 1)


def _recursive(x, quants, slots, eps, lower, upper, rng, out, which_sensitivity="bounded"):
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
        _recursive(below, left, slots[:middle], eps, lower, value, rng, out, which_sensitivity)
    if middle + 1 < quants.size:
        _recursive(above, right, slots[middle + 1:], eps, value, upper, rng, out,
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


def _recursive_lattice(positions, quants, slots, eps, first, last, lattice, rng, out,
                       which_sensitivity="bounded"):
    """:func:`_recursive` on a resolution: the part of the data with ``positions``
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
        _recursive_lattice(positions[positions <= 2 * index + 1], left, slots[:middle], eps,
                           first, index, lattice, rng, out, which_sensitivity)
    if middle + 1 < quants.size:
        _recursive_lattice(positions[positions > 2 * index + 1], right, slots[middle + 1:],
                           eps, index, last, lattice, rng, out, which_sensitivity)


def _split(quants):
    """How :func:`_recursive` splits its quantiles: (middle, q, left, right), ``middle`` the
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
    root first, as :func:`_recursive` visits them (:func:`recursion_weights`)."""
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


# --------------------------------------------------------------------------------------------
# JointExp (Gillenwater, Joseph and Kulesza 2021): see the module docstring
# --------------------------------------------------------------------------------------------


def joint_grid(lower, upper):
    """JointExp's grid g = 2^j and the bounds on it: (j, X_0, X_{n+1}).

    :func:`dppack.quantileDP`'s grid, the finest with max(abs(lower), abs(upper)) < 2^59 g
    (``_random.grid_exponent`` with 58 bits; at least 2^-1074, the doubles' own spacing,
    for bounds below 2^-1015), from the bounds alone; X_0 = ceil(lower / g) and
    X_{n+1} = floor(upper / g) (Python integers, at most 2^60 apart). Also the grid of the
    joint method's accuracy report (``dppack.accuracy``).

    Examples
    --------
    >>> joint_grid(-1.0, 1.0) == (-58, -2 ** 58, 2 ** 58)
    True
    """
    j = _random.grid_exponent(max(abs(lower), abs(upper)), 58)
    return j, math.ceil(math.ldexp(lower, -j)), math.floor(math.ldexp(upper, -j))


def _on_grid(values, j, first, last):
    """clip(round(x / g), X_0, X_{n+1}) for each value (int64): the data rounded to the grid
    record by record. x / g only shifts the exponent; rounding and clipping are monotone, so
    they commute with the order statistics."""
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
    """:class:`_Order` on a public resolution: each record's integer coordinate on the
    refined candidates (i, v) -> i G + v of the lattice points t_i (``stats.Lattice``),
    G = :data:`SUBPOINTS` each (:func:`_lattice_coordinates`); ``values`` holds them
    (int64, reordered in place), X_0 = 0 and X_{n+1} = (N + 1) G."""

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
    """Each record's coordinate X on the refined candidates of ``lattice`` (int64): a
    candidate c counts the records with X <= c. A record strictly between t_{L-1} and t_L
    (``stats.Lattice.positions`` p = 2 L) has X = L G (counted from t_L on); one on t_L
    (p = 2 L + 1) has X = L G + V, V uniform on {1, ..., 2^6} (``_random.uniform_bits``,
    exact, one per record whatever the others are): counted by the refined candidates
    (L, V), ..., (L, G - 1) of t_L and all above, not by (L, 0). So t_L's G candidates
    count from lt(t_L) (the records below it) to le(t_L) (those at or below it), its ties
    spread over them at random: each count between gets positive mass."""
    positions = lattice.positions(values)
    coordinates = (positions // 2) * SUBPOINTS
    on = np.flatnonzero(positions % 2 == 1)
    coordinates[on] += 1 + _random.uniform_bits(SUBPOINT_BITS, on.size, rng)
    return coordinates


# Blocks of the prefix log-sum-exps: a chain of at most (_BLOCK + 1) ceil(log_64 R) roundings
# per prefix value (``_prefix_chain``), where a running ``np.logaddexp.accumulate`` has R.
_BLOCK = 64


def _prefix_logsumexp(values):
    """Inclusive prefix log-sum-exps along the last axis: out[..., t] = log sum
    exp(values[..., :t + 1]). Blocks of ``_BLOCK``: a running log-sum-exp within each block,
    the blocks' totals prefixed the same way (recursively), then one logaddexp with the
    blocks before. Each value is a chain of at most :func:`_prefix_chain` (R) logaddexps
    (the floating-point bound of :func:`joint_float_slack`); -inf entries add nothing
    (logaddexp(x, -inf) = x exactly)."""
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


def _prefix_chain(size):
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
    """log sum exp(values[max(t - length, 0):t]) for every t (-inf for t = 0 or length 0), in
    O(n): blocks of ``length`` values, a prefix and a suffix log-sum-exp within each block
    (van Herk's sliding-window trick); each window is one block's suffix and the next one's
    prefix. Sums only, never a difference of sums."""
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
    """The dynamic program of JointExp (module docstring) over candidate intervals ``ranks``
    (sorted), with widths ``widths`` (grid points, as floats) and ``allowed[j]`` the
    candidates output j + 1 may take.

    With ``inside`` (bool, shape of ``allowed``: the windows), two programs run side by
    side: 'in', the sequences with every output inside its window, and 'out', those with
    some output outside it (the source of a run is 'in' or 'out'; a run that puts an output
    outside its window moves an 'in' prefix to 'out'). Both are sums of positive terms, so
    the weight of the sequences outside the windows is computed directly, never as a
    difference (the mixture of :func:`_joint_windowed`)."""

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
# moved by at most h / 2 = 2^-41 (``_CHOICE_ROUNDING``).
_UNIT_SENSITIVITY = 2.0 ** -20
_UNIT_EPS = 2.0 ** -19 + 2.0 ** -39
_CHOICE_ROUNDING = 2.0 ** -41


def _choose(log_weights, rng):
    """An index drawn with probability proportional to exp(L~_i), L~_i = ``log_weights``
    (shifted by their maximum) rounded to a multiple of 2^-40: exactly, by the exact
    exponential mechanism (``_random.exponential_mechanism``, integer decisions only).
    The rounding moves each log weight by at most 2^-41; the shift by the maximum is one
    floating-point subtraction (both in :func:`joint_float_slack`)."""
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
    """The sensitivity Delta of JointExp's utility (module docstring): 2 under 'bounded';
    under 'unbounded' 2 (1 - min_i delta_i), delta_i = q_i - q_{i-1} (i = 1, ..., m + 1,
    q_0 = 0, q_{m+1} = 1) the targets' shares.

    Adding a record in gap i raises that gap's count by 1 and every target delta_j n by
    delta_j: term i moves by at most abs(1 - delta_i) = 1 - delta_i, term j != i by at most
    delta_j, so u by at most (1 - delta_i) + sum_{j != i} delta_j = 2 (1 - delta_i) <=
    2 (1 - min delta) (removing: the same); reached when the record lands in the narrowest
    gap with the other gaps' counts at or below their targets (Gillenwater, Joseph and
    Kulesza 2021, Section 3, bound 2, which holds under both relations). For m = 1 it is
    twice ``stats._quantile.quantile_sensitivity``. Computed exactly from the doubles
    delta_i as the code forms them (1 + sum delta - 2 min delta, in rationals), rounded up.

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
_ROUNDOFF = 2.0 ** -53
_LIBM_ULPS = 4.0
#: Under 'unbounded' n is private: the float slack is charged for this many records (the
#: largest n the guarantee covers; an in-memory float64 column of that size needs 1 GiB).
UNBOUNDED_RECORDS = 2 ** 27


def joint_float_slack(n, m, eps, sensitivity=2.0, points=2 ** 61, which_sensitivity="bounded"):
    """The privacy cost of JointExp's floating-point arithmetic: the release is
    (eps + slack)-DP, slack from public values alone (the module docstring, "Floating
    point", gives the argument).

    Parameters
    ----------
    n : int
        The number of records (public under 'bounded'; under 'unbounded', where n is
        private, :data:`UNBOUNDED_RECORDS` is used whatever n is).
    m : int
        The number of quantiles.
    eps, sensitivity : float
        The release's budget and :func:`joint_sensitivity` (beta = eps / (2 Delta)).
    points : int
        The number of candidate grid points (at most 2^61).
    which_sensitivity : {'bounded', 'unbounded'}

    Returns
    -------
    float
        slack >= 2 X (+ 4 beta u (n + 1) under 'unbounded', the targets' rounding), X the
        largest log-ratio between a computed and an exact output probability: X = 4 m tau +
        2 tau_f + 6 e (+ 2^-40 for the two exact coins' rounding), tau = tau_f + 2 e +
        2^-41 the error of a log weight as drawn, tau_f = e (m (9 m + 6) + (m - 1)(L + 10)
        + L' + 11) that of the dynamic program's log weights, e = u (M + 2 kappa + 2) the
        error of one rounded operation on values of size at most M = 4 beta (n + 1) +
        m ln(points + m) + 1, L and L' the longest chains of logaddexps of the range and
        prefix log-sum-exps on n + 1 values, u = 2^-53, kappa = 4 (ulps of exp, log, log1p).

    Examples
    --------
    >>> s = joint_float_slack(532, 3, 1.0)
    >>> 0 < s < 1e-9
    True
    >>> joint_float_slack(10 ** 7, 9, 1.0) < 1e-3
    True
    """
    if which_sensitivity == "unbounded":
        n = UNBOUNDED_RECORDS
    beta = eps / (2.0 * sensitivity)
    e, tau_f, tau = _joint_error_bounds(n, m, beta, points)
    x = 4.0 * m * tau + 2.0 * tau_f + 6.0 * e + 2.0 * _CHOICE_ROUNDING + 2.0 ** -60
    slack = 2.0 * x
    if which_sensitivity == "unbounded":
        slack += 4.04 * beta * _ROUNDOFF * (n + 1)
    return slack * (1.0 + 2.0 ** -30)  # the bound's own rounding, upwards


def _joint_error_bounds(n, m, beta, points):
    """(e, tau_f, tau) of :func:`joint_float_slack`: the error of one rounded operation, of
    a log weight of the dynamic program, and of a log weight as drawn (:func:`_choose`)."""
    u, kappa = _ROUNDOFF, _LIBM_ULPS
    size = n + 1
    magnitude = 4.0 * beta * size + m * math.log(points + m) + 1.0
    e = u * (magnitude + 2.0 * kappa + 2.0)
    prefix = _prefix_chain(size)
    chain = max(prefix + 1, 3 * math.ceil(math.log2(size)) + 2)  # sliding or segment tree
    # per level: E_j from C: run volumes (a log of at most 4 e and an addition, per run
    # length), the inner targets (2 m + 4), two additions, 2 m logaddexps: 9 m + 6; C_j
    # from E_j: the range or prefix chain and 6 more
    tau_f = e * (m * (9 * m + 6) + (m - 1) * (chain + 10) + prefix + 11)
    return e, tau_f, tau_f + 2.0 * e + _CHOICE_ROUNDING


def joint_loss_eps(eps, n, m, sensitivity=2.0, points=2 ** 61, which_sensitivity="bounded"):
    """The eps JointExp charges: eps + :func:`joint_float_slack`, rounded up to a double.

    Examples
    --------
    >>> 1.0 < joint_loss_eps(1.0, 532, 3) < 1.0 + 1e-9
    True
    """
    total = eps + joint_float_slack(n, m, eps, sensitivity, points, which_sensitivity)
    return math.nextafter(total, math.inf)


def joint_mechanism_eps(eps, n, m, sensitivity=2.0, points=2 ** 61,
                        which_sensitivity="bounded"):
    """The eps JointExp runs at so that the release costs at most ``eps``, its
    floating-point slack included: a double eps' < eps with ``joint_loss_eps(eps') <= eps``
    (the slack grows with eps, so eps' = eps - slack(eps) leaves room up to rounding; checked).

    Raises
    ------
    ValueError
        If eps is too small to hold the slack (below about 1e-12).

    Examples
    --------
    >>> inner = joint_mechanism_eps(1.0, 532, 3)
    >>> 1.0 - 1e-8 < inner < 1.0 and joint_loss_eps(inner, 532, 3) <= 1.0
    True
    """
    inner = eps - joint_float_slack(n, m, eps, sensitivity, points, which_sensitivity)
    inner = math.nextafter(inner, -math.inf)
    while inner > 0.0 and joint_loss_eps(inner, n, m, sensitivity, points,
                                         which_sensitivity) > eps:
        inner = math.nextafter(inner - (eps - inner), -math.inf)
    if not inner > 0.0:
        raise _messages.value_error(
            "eps is too small for method 'joint': its floating-point slack exceeds it.")
    return inner


def _joint_exp(values, quants, eps, lower, upper, rng, half=None, sensitivity=2.0,
               lattice=None):
    """The JointExp release (module docstring) on the clipped data ``values`` (a copy, which
    is reordered), with weight exp(eps u / (2 Delta)), Delta = ``sensitivity``
    (:func:`joint_sensitivity`); on the refined candidates of ``lattice``
    (``stats.Lattice``, :func:`_lattice_coordinates`) when given. ``half`` (tests only)
    fixes the windows' half-width whatever the weights."""
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
    """A draw of JointExp from the windowed DP, exact by the mixture of the module docstring:
    with probability p >= 4 U / Z_W (U >= Z_out, the weight outside the windows), the
    whole DP is run, in two parts ('in' and 'out', :class:`_JointDP` with ``inside``), and
    an 'out' sequence is drawn with probability pi / p (pi = Z_out / Z, at most 1 / 4 of p:
    a ratio of sums, no cancellation); otherwise, and in the rest of that branch, a draw of
    the windowed DP. The law: pi Q_out + (1 - pi) Q_W = G / Z."""
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
    """The outputs of the interval sequence ``k`` (non-decreasing): for each run of r outputs
    in interval [X_k, X_{k+1}) (w = X_{k+1} - X_k grid points), an exact uniform
    non-decreasing r-tuple of its grid points (:func:`_uniform_multiset`); as floats
    g X (the nearest double where the grid is finer than the doubles), in increasing order."""
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
    """An exact uniform non-decreasing r-tuple of {0, ..., w - 1} (w >= 1): a uniform
    r-subset s_0 < ... < s_{r-1} of {0, ..., w + r - 2} by Floyd's algorithm (each step one
    exact uniform integer, ``_random.uniform_integer``), mapped to s_i - i (stars and bars:
    a bijection onto the C(w + r - 1, r) non-decreasing tuples)."""
    if w < 1:
        raise ValueError("an interval of no grid point holds no output")
    size = w + r - 1
    chosen = set()
    for top in range(size - r, size):
        v = _random.uniform_integer(top + 1, rng)
        chosen.add(top if v in chosen else v)
    return [s - i for i, s in enumerate(sorted(chosen))]


# --------------------------------------------------------------------------------------------
# boundsDP
# --------------------------------------------------------------------------------------------


Bounds = collections.namedtuple("Bounds", ["lower", "upper"])
Bounds.__doc__ = "The private range of :func:`boundsDP`: ``lower``, ``upper`` (floats)."


def default_grid(smallest=1e-6, largest=1e10, per_decade=4):
    """The public grid of :func:`boundsDP`: 0 and +-10^(t / per_decade) from ``smallest`` to
    ``largest`` (both signs), sorted.

    Parameters
    ----------
    smallest, largest : float
        Powers of ten, 0 < smallest < largest.
    per_decade : int
        Points per factor of 10 (4: each point 1.78 times the one before).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> g = default_grid(1, 100, 1)
    >>> [float(v) for v in g]
    [-100.0, -10.0, -1.0, 0.0, 1.0, 10.0, 100.0]
    """
    low = round(math.log10(smallest) * per_decade)
    high = round(math.log10(largest) * per_decade)
    positive = 10.0 ** (np.arange(low, high + 1) / per_decade)
    return np.concatenate([-positive[::-1], [0.0], positive])


def boundsDP(x, eps, quants=(0.01, 0.99), grid=None, random_state=None, accountant=None):
    """A differentially private clipping range [lower, upper] for the data.

    Two releases of the exponential mechanism over a public grid of candidates (by default
    0 and +-10^(t/4) from 10^-6 to 10^10, ``default_grid``), eps / 2 each (basic
    composition): ``lower`` the candidate g that makes #{x < g} closest to quants[0] n,
    ``upper`` the one that makes #{x <= g} closest to quants[1] n. Each utility
    -abs(#{...} - q n) has sensitivity 1 (a record changed, added or removed moves a count by
    at most 1 and q n by at most q < 1 in the other direction; as for
    :func:`dppack.quantileDP`). Drawn exactly
    (``_random.exponential_mechanism``). If ``upper <= lower`` (all data between two grid
    points, say), ``upper`` is the next grid point above ``lower`` (post-processing).

    Parameters
    ----------
    x : array_like
        Numeric, finite data; may be empty (n is private under add/remove neighbours, so an
        empty dataset gets a release like its neighbours: with no data every candidate has
        utility 0 and each bound is uniform on the grid).
    eps : float
        The whole budget, > 0 and finite.
    quants : pair of float, default (0.01, 0.99)
        The share of the data meant to lie below ``lower`` and at or below ``upper``,
        0 <= quants[0] <= quants[1] <= 1.
    grid : array_like, optional
        The public candidates (at least two, finite, distinct; sorted here). It must not
        depend on the data.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps) once, label "boundsDP".

    Returns
    -------
    Bounds
        A named tuple ``(lower, upper)`` of floats, lower < upper, both grid points.

    Raises
    ------
    ValueError
        For data, eps, quants or a grid that are not as above, and for an overspend: all
        before any random number is drawn.

    Warns
    -----
    UserWarning
        When a released bound is the grid's smallest (``lower``) or largest (``upper``)
        candidate: the bound sits at the edge of the grid, either because eps * n is too
        small for the mechanism to find the quantile (every candidate beyond the data has
        the same utility) or because the data reach beyond the grid. The warning looks at
        the release only (post-processing: no privacy cost).

    Notes
    -----
    What it guarantees. With G candidates, each release has, with probability at least
    1 - beta, a rank error at most the grid's own error plus (4 / eps) log(G / beta)
    (McSherry and Talwar 2007, Theorem 6, at eps / 2 with Delta = 1): the fraction of data
    below ``lower`` is within (g + (4 / eps) log(G / beta)) / n of quants[0], g the largest
    number of data between two neighbouring grid points near that quantile; likewise above
    ``upper``. With the default grid (G = 131), eps = 1, beta = 0.05 that is 4 log(2620)
    = 31.5 records, plus the grid's error. The fix-up of ``upper <= lower`` only widens the
    range (``lower`` never rises, ``upper`` never falls), so the records left below
    ``lower`` and above ``upper`` stay within these bounds after it.
    ``noiseIntervalDP("boundsDP", eps, quants=..., grid=...)`` reports the bound
    (``dppack.accuracy``).

    So the bounds are reliable when (4 / eps) log(G / beta) is well below
    min(quants[0], 1 - quants[1]) n, the number of records each is meant to leave out:
    eps n >= 3200 or so with the defaults. Below that, a bound can land anywhere among the
    candidates beyond the data, which all have the same utility (and there are many: the grid
    spans 16 decades), e.g. -10^4 for data in [50, 150] with eps n = 2500.

    What it does not guarantee. The range is not the data's minimum and maximum: by design
    about quants[0] of the data lie below it and 1 - quants[1] above it (2 % with the
    defaults, more on small n), and they are clipped by the statistics that use it. The
    grid's factor 1.78 between neighbours means the bound may be up to that factor away from
    the data's quantile. Data beyond the grid's range (abs(x) > 10^10) or finer than its
    smallest step (abs(x) < 10^-6) need a grid of their own.

    References
    ----------
    McSherry and Talwar (2007), FOCS; Smith (2011), STOC.

    Examples
    --------
    The bounds, then the mean and quartiles of 20,000 incomes, through one accountant
    (2 in all):

    >>> from dppack import boundsDP, quantilesDP
    >>> import numpy as np
    >>> from dppack import BudgetAccountant, meanDP
    >>> from scipy.stats import norm
    >>> income = np.exp(10.0 + 0.8 * norm.ppf((np.arange(20_000) + 0.5) / 20_000))
    >>> acc = BudgetAccountant(2.0)
    >>> lo, hi = boundsDP(income, 0.5, random_state=1, accountant=acc)
    >>> round(lo), round(hi)
    (3162, 177828)
    >>> mean = meanDP(income, 1.0, lo, hi, random_state=1, accountant=acc)
    >>> q = quantilesDP(income, [0.25, 0.5, 0.75], 0.5, lo, hi, random_state=1,
    ...                 accountant=acc)
    >>> float(acc.spent.eps)
    2.0
    """
    bill = accounting.charge(accountant, lambda: _quantiles_loss(eps), "boundsDP")
    # add/remove privacy: an empty dataset is released, like its neighbour of one record
    x, _, _ = _checks.as_finite_data(x, "x", 0)
    pair = check_bounds_quants(quants)
    candidates = check_grid(grid)
    eps = _checks.check_finite_budget(eps, "eps")
    rng = _random.as_generator(random_state)
    bill.spend()
    values = x.ravel(order="K")
    n = values.size
    # #{x < g_i} and #{x <= g_i} for every candidate, by counting (no sort of the data):
    # x < g_i exactly when fewer than i + 1 candidates are <= x, and x <= g_i when fewer
    # than i + 1 are < x.
    size = candidates.size
    less = np.cumsum(np.bincount(np.searchsorted(candidates, values, side="right"),
                                 minlength=size + 1))[:size]
    at_most = np.cumsum(np.bincount(np.searchsorted(candidates, values, side="left"),
                                    minlength=size + 1))[:size]
    u_low = -np.abs(less - pair[0] * n)
    u_high = -np.abs(at_most - pair[1] * n)
    i = _random.exponential_mechanism(u_low, bounds_share(eps), 1.0, rng)
    j = _random.exponential_mechanism(u_high, bounds_share(eps), 1.0, rng)
    if j <= i:
        j = min(i + 1, candidates.size - 1)
        i = j - 1
    _warn_at_edge(i, j, candidates)
    return Bounds(float(candidates[i]), float(candidates[j]))


def _warn_at_edge(i, j, candidates):
    """boundsDP's warning when ``lower`` is the grid's smallest candidate or ``upper`` its
    largest (a function of the release only)."""
    edges = []
    if i == 0:
        edges.append(f"lower = {float(candidates[0]):.6g} is the grid's smallest candidate")
    if j == candidates.size - 1:
        edges.append(f"upper = {float(candidates[-1]):.6g} is the grid's largest candidate")
    if edges:
        warnings.warn(
            "boundsDP: " + " and ".join(edges) + ": the bound is at the edge of the grid, "
            "not near the data's quantile. Either eps * n is too small for the mechanism to "
            "locate the quantile (every candidate beyond the data has the same utility, so "
            "the bound lands anywhere among them), or the data reach beyond the grid. Use a "
            "larger eps, more data, or a grid that suits the data.",
            UserWarning, stacklevel=3)


def bounds_share(eps):
    """The budget of each of boundsDP's two selections: eps / 2 (basic composition)."""
    return eps / 2.0


def check_bounds_quants(quants):
    """boundsDP's quants: two numbers in [0, 1] in increasing order (a float array)."""
    pair = check_quants(quants)
    if pair.size != 2:
        raise _messages.value_error("quants must be two numbers in [0, 1] in increasing order.")
    return pair


def check_grid(grid):
    """boundsDP's candidates: the default grid, or ``grid`` sorted, at least two distinct
    finite values."""
    if grid is None:
        return default_grid()
    values = _checks.as_numeric_array(grid, "grid must be numeric.").ravel()
    values = np.unique(values)
    if values.size < 2 or not np.isfinite(values).all():
        raise _messages.value_error("grid must hold at least two distinct finite values.")
    return values
