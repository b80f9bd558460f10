"""tableDP: declared levels, or the thresholded release of the observed cells."""

import functools
import math
import numbers

import numpy as np

from .. import _checks, _messages, _random, data_access
from .._plans import Plan, register, released_versions, run
from ..data_access import check_mechanism, table_frame
from ..mechanisms._calibration import check_budget
from ..mechanisms._noise import count_noise
from ._histogram import count_noise_laws, count_report
from ._release import MECHANISM_SWITCH, check_which, noisy_counts, release_loss


UNDECLARED_MESSAGE = (
    "The levels of data that are not a factor come from the data, so a record with a new "
    "category would add a cell. Declare the levels (an R factor; in Python a pandas."
    "Categorical) or give delta > 0 for the thresholded release of the observed cells."
)


def check_table_budget(eps, delta, mechanism, type_DP, declared):
    """eps and delta of tableDP, checked before the data are tabulated (the mechanism's
    messages, and ours for the thresholded release); also the checks of its accuracy report
    (``dppack.accuracy``). Returns (eps, delta); delta is None for a pure release."""
    if mechanism != "Laplace":
        return check_budget(eps, delta, type_DP, analytic=mechanism == "analytic",
                            switch=MECHANISM_SWITCH)
    eps, _ = check_budget(eps)
    if declared:
        return eps, None  # delta unused, as in DPpack
    if isinstance(delta, numbers.Real) and not isinstance(delta, bool) and delta == 0:
        raise _messages.value_error(UNDECLARED_MESSAGE)
    return eps, _checks.check_probability(delta, "delta")


def table_threshold_law(mechanism, eps, delta, type_DP, bounded, sensitivity):
    """The noise and the threshold of the thresholded table release (unknown domain).

    Returns ``(noise, k, tail, threshold)``: ``noise(counts, rng)`` draws the noisy counts of
    the observed cells, exactly as released, c + Z with integer noise Z on the grid g = 2^k,
    k = 0 (discrete Laplace or discrete Gaussian, :func:`count_noise`; only a discrete
    Gaussian of sigma >= 2^14 takes a grid g >= 2, where the release is g (round(c / g) + Z),
    still integers), ``tail(m)`` = P[Z >= m] exactly (floating
    point), and an observed cell is released only if its noisy count exceeds the threshold
    tau. :func:`tableDP` (through :func:`thresholded_table_laws`) and the accuracy report
    (``dppack.accuracy``) call it, after the checks of (eps, delta).

    Derivation (Korolova, Kenthapadi, Mishra and Ntoulas 2009; Wilson et al. 2020,
    Section 3; Ghosh, Roughgarden and Sundararajan 2009; Canonne, Kamath and Steinke 2020):
    ``docs/python/guide/mechanisms-derivations.rst``, "tableDP's thresholded release".
    """
    # the derivation: docs/python/guide/mechanisms-derivations.rst
    if mechanism == "Laplace":
        delta_noise, p = None, (delta / 2 if bounded else delta)
    elif bounded:
        delta_noise, p = delta / 2, delta * math.exp(-eps) / 2
    else:
        delta_noise, p = delta, delta
    # C's counts: 2 cells change (bounded) or 1 (unbounded), whatever the observed cells
    law = count_noise(eps, sensitivity, mechanism, delta_noise, type_DP, 2 if bounded else 1)
    noise, k, tail = law.draw, law.law()["k"], law.law()["tail"]
    first = _random.smallest_tail_index(tail, p * (1.0 - 1e-9))
    # tau = g (V + m* - 1) with g V = round(1 / g) g: 1 for g <= 1, 0 for g >= 2 (1 / g <= 1/2
    # rounds to 0); the sum is exact (multiples of g below 2^53 g) for every practical eps.
    try:
        threshold = math.ldexp(float(first - 1), k) + (1.0 if k <= 0 else 0.0)
    except OverflowError:  # beyond the doubles (eps near 1e-300): no cell is released
        threshold = math.inf
    return noise, k, tail, threshold


def thresholded_table_laws(eps, mechanism, delta, type_DP, which_sensitivity):
    """The law and threshold of each version of tableDP's thresholded release (undeclared
    levels), bounded first: ``{label: (noise, k, tail, threshold)}`` of
    :func:`table_threshold_law` with the sensitivities of the releases (2 or sqrt(2) bounded,
    1 unbounded; ``data_access.histogram_sensitivities``). No data, no draw: :func:`tableDP`
    and its accuracy report (``dppack.accuracy``) call it, after :func:`check_table_budget`
    (``type_DP`` 'aDP' for 'analytic')."""
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)
    return {label: table_threshold_law(mechanism, eps, delta, type_DP, label == "Bounded", s)
            for label, s in released_versions(which_sensitivity, bounded, unbounded)}


def tableDP(*factors, eps=1, which_sensitivity="bounded", mechanism="Laplace", delta=0,
            type_DP="aDP", allow_negative=False, random_state=None, accountant=None):
    """Differentially private contingency table.

    The cells of the table must not come from the data (DPpack takes them from the
    observed levels, so a record with a new category adds a cell, a deterministic leak).

    * Declared levels (every factor a pandas Categorical or categorical Series; R factors
      reach the core as such): the cells are all combinations of the declared levels, used
      or not, and every cell gets noise as in DPpack: sensitivity 2 (Laplace) or sqrt(2)
      (Gaussian, analytic) for bounded DP, 1 for unbounded DP, integer noise (discrete
      Laplace or discrete Gaussian), so the noisy cells are integers (DPpack rounds its
      continuous noise half to even); negative cells become 0 unless ``allow_negative``.
      This is eps-DP (Laplace) or (eps, delta)-DP.
    * Undeclared levels (any factor a list, array or non-categorical Series): the domain is
      unknown, so only the observed cells get noise, and a cell is released only if its noisy
      count exceeds a threshold tau chosen so that the whole release is (eps, delta)-DP
      (derivation in the Notes). This needs ``delta > 0``; with the Laplace mechanism's
      default ``delta = 0`` the call is refused. The released table's levels are those of the
      released cells (a declared factor keeps all its levels); unreleased cells show 0.

    Parameters
    ----------
    *factors : array_like, pandas.Series / Categorical, polars or pyarrow series, Dask Series
        One or more factors of the same length, without missing values (on Dask: Series
        partitioned alike, or one Dask DataFrame whose columns are the factors; a categorical
        column with known categories declares its levels; one pass). A pandas Categorical
        (or categorical Series), a polars Enum or a pyarrow dictionary array declares its
        categories as levels (empty ones give 0 cells); a polars Categorical does not
        (``dppack._frames``).
        Declared levels are treated as public: they must not be derived from the data
        (``pd.Categorical(x)`` without ``categories=`` takes them from ``x``). Other data
        have only their observed values, sorted.
    eps : float, default 1
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta : float, default 0
        For the Gaussian mechanisms, as in :func:`meanDP`. With undeclared levels, the delta
        of the whole thresholded release, in (0, 1) (the Gaussian mechanisms spend part of it
        on the noise, see Notes).
    type_DP, random_state
        As :func:`meanDP`.
    allow_negative : bool, default False
        Declared levels only (a released cell of the thresholded release is > tau >= 1).
    accountant : BudgetAccountant, optional
        Charged, label "tableDP": with declared levels as :func:`meanDP`
        (PrivacyLoss.pure(eps) for Laplace, PrivacyLoss.approx(eps, delta) for the Gaussian
        mechanisms); the thresholded release PrivacyLoss.approx(eps, delta) whatever the
        mechanism; for 'both' the pair's (3 eps, (2 + e^eps) delta) (3 eps for declared
        levels with Laplace). By default the session's accountant, if any; an overspend is
        refused before the data are read or any noise is drawn.

    Returns
    -------
    pandas.Series, pandas.DataFrame or dict
        One factor: a Series indexed by its levels. Two: a DataFrame, rows the levels of the
        first factor, columns those of the second. Three or more: a Series over a MultiIndex
        of every combination of levels, the first factor varying slowest. Index and column
        names are the factors' names (a pandas Series' ``.name``), else None. The cells are
        floats, as in DPpack. For 'both', ``{"Bounded": table, "Unbounded": table}``:
        meaningful under bounded DP only, where the pair spends up to 3 eps (see
        :func:`meanDP`); under unbounded DP the bounded table is not private.

    Raises
    ------
    ValueError
        DPpack's messages (which.sensitivity, mechanism, the mechanism's eps and delta), R's
        ``table()`` messages, ours for missing values, and, with undeclared levels and the
        Laplace mechanism, one that says what to do when ``delta`` is 0. All before the data
        are tabulated (missing values: while they are) and before any noise is drawn.
        Two of these refusals depend on values outside the data's domain, which the caller is
        responsible for excluding: with undeclared levels, values of mixed types ("Cannot
        order the values of a factor of mixed types"); with a declared Categorical, a value
        outside its categories, which pandas turns into a missing value, refused as such.

    Notes
    -----
    The noise is drawn as one vector over the cells in R's column-major order (the first
    factor varying fastest: numpy ``order='F'`` on the (L1, ..., Lk) array of counts), as
    DPpack flattens its table, so that the i-th noise draw lands on the same cell as in R;
    with undeclared levels, over the observed cells in that order.

    Thresholded release (undeclared levels): the noise is exact integer noise (discrete
    Laplace, or the discrete Gaussian for DPpack's sigma at (eps, delta_noise)),
    calibrated for the cells that can change between neighbours (two bounded, one
    unbounded), and a count of 1 must be released with probability at most p:

    =========  ==========  ===========  =====================
    mechanism  neighbours  delta_noise  p
    =========  ==========  ===========  =====================
    Laplace    bounded     (pure)       delta / 2
    Laplace    unbounded   (pure)       delta
    Gaussian   bounded     delta / 2    delta e^(-eps) / 2
    Gaussian   unbounded   delta        delta
    =========  ==========  ===========  =====================

    The threshold tau is the smallest integer above which a noisy count of 1 lies with
    probability at most p, computed from the exact tail of the integer noise (about
    1 + b ln(1 / (2p)) for the Laplace scale b, 1 + sigma Phi^-1(1 - p) for the Gaussian).
    With bounded neighbours one record changes cell: at most two cells change by one each,
    and a cell observed in one dataset only has count 1 there; tau makes the probability
    that such a cell is released small enough that, with the noise's guarantee on the other
    cells, the release is (eps, delta)-DP (Korolova et al. 2009; Wilson et al. 2020; the
    derivation: ``docs/python/guide/mechanisms-derivations.rst``).

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``tableDP``. Korolova, Kenthapadi, Mishra and
    Ntoulas (2009), Releasing search queries and clicks privately; Wilson et al. (2020),
    Differentially private SQL with bounded user contribution.

    Examples
    --------
    Declared levels (a Categorical): every cell is released, with noise (true counts 355
    and 177):

    >>> from dppack import tableDP
    >>> import pandas as pd
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> diabetic = pd.Categorical(pima["type"], categories=["No", "Yes"])
    >>> tableDP(diabetic, eps=1.0, random_state=1).to_dict()
    {'No': 352.0, 'Yes': 171.0}

    Undeclared levels need ``delta > 0``: only cells whose noisy count passes a threshold
    are released.

    >>> t = tableDP(pima["type"], pima["npreg"] > 2, eps=1.0, delta=1e-5, random_state=1)
    >>> t.shape
    (2, 2)
    """
    factors, declared, names, tabulate = data_access.table_factors(factors)
    arguments = {"eps": eps, "which_sensitivity": which_sensitivity, "mechanism": mechanism,
                 "delta": delta, "type_DP": type_DP, "allow_negative": allow_negative,
                 "declared": all(declared)}
    return run(TABLE, (declared, names, tabulate), arguments, random_state, accountant)


_DECLARED_MESSAGE = (
    "declared is required for tableDP with delta > 0 or a Gaussian mechanism: TRUE when every "
    "factor declares its levels (an R factor, a pandas.Categorical), FALSE otherwise."
)


class _Table(Plan):
    """tableDP: with declared levels every cell with exact integer noise
    (``mechanisms._noise.count_noise``); with undeclared ones the observed cells only, each
    released above the threshold of :func:`table_threshold_law`."""

    name = "tableDP"
    report_arguments = dict(which_sensitivity="bounded", mechanism="Laplace", delta=0,
                            type_DP="aDP", cells=None, declared=None, allow_negative=False)

    def loss(self, a):
        return release_loss(a["eps"], a["delta"], a["mechanism"], a["which_sensitivity"],
                            approximate=not a["declared"])

    def check(self, a):
        """DPpack's order: which.sensitivity, mechanism, allow.negative, then the budget (for
        the thresholded release, ours). Returns (eps, delta, type_DP, allow_negative)."""
        check_which(a["which_sensitivity"])
        check_mechanism(a["mechanism"])
        allow_negative = _checks.check_flag(a["allow_negative"], "allow.negative")
        # 'analytic' ignores type_DP, as in DPpack (DPpack's statistics and manual)
        type_DP = "aDP" if a["mechanism"] == "analytic" else a["type_DP"]
        eps, delta = check_table_budget(a["eps"], a["delta"], a["mechanism"], type_DP,
                                        a["declared"])
        return eps, delta, type_DP, allow_negative

    def laws(self, eps, delta, type_DP, which_sensitivity, mechanism, declared):
        """``{label: (k, tail, threshold)}`` of the versions, bounded first: the laws of
        :func:`count_noise_laws` with declared levels (threshold None), else those of
        :func:`thresholded_table_laws`. No data, no draw."""
        if declared:
            return {label: (k, tail, None) for label, (k, tail) in
                    count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity).items()}
        return {label: (k, tail, threshold) for label, (_, k, tail, threshold) in
                thresholded_table_laws(eps, mechanism, delta, type_DP,
                                       which_sensitivity).items()}

    def prepare(self, data, a):
        declared, names, tabulate = data
        eps, delta, type_DP, allow_negative = self.check(a)
        mechanism, which_sensitivity = a["mechanism"], a["which_sensitivity"]
        if not a["declared"]:
            # the noise and thresholds of the versions (from the arguments only)
            laws = thresholded_table_laws(eps, mechanism, delta, type_DP, which_sensitivity)
            return _thresholded_table(tabulate, declared, names, laws)
        # DPpack's tableDP: as DPpack's histogramDP
        versions = released_versions(which_sensitivity,
                                     *data_access.histogram_sensitivities(mechanism))
        counts, levels = tabulate(observed=False)  # DPpack's tableDP: R's table(...)
        cells = np.asarray(counts, dtype=np.float64).ravel(order="F")  # R's column-major cells

        def release(sensitivity, changed, rng, loss):
            # DPpack's tableDP: scalar Delta on every cell, then negatives to 0; one record
            # changes 2 cells (bounded) or 1 (unbounded). The noisy counts are integers.
            noisy = noisy_counts(cells, eps, sensitivity, mechanism, delta, type_DP, rng,
                                 changed)
            noisy = noisy + 0.0  # + 0.0 turns -0.0 into 0.0
            if not allow_negative:
                noisy = np.maximum(noisy, 0.0)
            return table_frame(noisy.reshape(counts.shape, order="F"), levels, names)

        return [(label, functools.partial(release, s, 2 if label == "Bounded" else 1))
                for label, s in versions]

    def report(self, statistic, eps, a, alpha, simultaneous):
        """``declared`` True when every factor declares its levels (a pandas Categorical, an R
        factor), False for the thresholded release (its threshold, and the bound of a
        suppressed cell); required unless the mechanism is Laplace with delta = 0, where the
        release needs declared levels. ``allow_negative`` does not change the report."""
        declared, delta = a["declared"], a["delta"]
        if declared is None:
            pure = (a["mechanism"] == "Laplace" and isinstance(delta, numbers.Real)
                    and not isinstance(delta, bool) and delta == 0)
            if not pure:
                raise _messages.value_error(_DECLARED_MESSAGE)
            declared = True
        a = dict(a, eps=eps, declared=_checks.check_flag(declared, "declared"))
        eps, delta, type_DP, _ = self.check(a)
        if a["which_sensitivity"] == "both":  # a vacuous pair is refused as the release does
            self.loss(dict(a, eps=eps, delta=delta))
        laws = self.laws(eps, delta, type_DP, a["which_sensitivity"], a["mechanism"],
                         a["declared"])
        return count_report(statistic, laws, a["mechanism"], a["cells"], alpha, simultaneous)


def _thresholded_table(tabulate, declared, names, laws):
    """tableDP's release for undeclared levels: noise on the observed cells only, and a cell
    released only above the threshold of :func:`table_threshold_law`."""
    cells, counts, levels = tabulate(observed=True)
    counts = counts.astype(np.float64)

    def release(noise, threshold, rng, loss):
        if counts.size:  # no observed cell (no data): nothing to noise, nothing released
            noisy = noise(counts, rng)
            keep = noisy > threshold  # the integer noisy count, as in the derivation
        else:
            noisy, keep = counts, np.zeros(0, dtype=bool)
        # The released table: a declared factor keeps all its (public) levels, an undeclared
        # one shows the levels of the released cells only; every other cell is 0.
        shown = [
            np.arange(len(level)) if public else np.unique(codes[keep])
            for codes, level, public in zip(cells, levels, declared)
        ]
        table = np.zeros(tuple(used.size for used in shown), dtype=np.float64)
        where = tuple(np.searchsorted(used, codes[keep]) for used, codes in zip(shown, cells))
        table[where] = noisy[keep] + 0.0  # integers already
        shown_levels = [[level[i] for i in used] for used, level in zip(shown, levels)]
        return table_frame(table, shown_levels, names)

    # bounded noise first (DPpack's statistics)
    return [(label, functools.partial(release, law[0], law[3])) for label, law in laws.items()]


TABLE = register(_Table())
