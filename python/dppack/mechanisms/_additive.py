"""DPpack 0.2.2's Laplace and Gaussian mechanisms, with exact noise on a power-of-two grid."""

import functools
import math

import numpy as np

from .. import _backends, _checks, _plans, accounting
from ._calibration import check_type, gaussian_sigma
from ._noise import GaussianNoise, LaplaceNoise


_TRUE_VALUES_MESSAGE = "true.values must be numeric atomic vectors or scalars."
_TRUE_VALUES_SIZE_MESSAGE = "true.values must have at least one element."


def LaplaceMechanism(true_values, eps, sensitivities, alloc_proportions=None, random_state=None,
                     accountant=None):
    """Add exact discrete Laplace noise on a fine power-of-two grid to ``true_values`` for
    eps-differential privacy (the noise scale of DPpack's Laplace mechanism).

    Parameters
    ----------
    true_values : float, array_like, pandas, polars or pyarrow series or data frame
        The non-private values.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivities : float or array_like
        l1 global sensitivity of each value, or one for all of them.
    alloc_proportions : array_like, optional
        Share of ``eps`` spent on each value (normalised to sum 1). Without it every value
        gets noise of scale sum(sensitivities) / eps.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps), label "LaplaceMechanism"; by default the session's
        accountant (``with BudgetAccountant(...)``), if any. An overspend is refused before
        any noise is drawn.

    Returns
    -------
    float, ndarray or pandas object
        The sanitized values, shaped like ``true_values``; every value is a multiple of the
        grid g (a power of two, below 2^-20 of the noise scale).

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before any noise is drawn;
        an overspend of ``accountant``.

    Examples
    --------
    A mean of values in [0, 10] over n = 100 rows has sensitivity 10 / 100:

    >>> from dppack import LaplaceMechanism
    >>> x = LaplaceMechanism(5.0, eps=1.0, sensitivities=0.1, random_state=1)
    >>> round(float(x), 2)
    4.85
    >>> x == LaplaceMechanism(5.0, eps=1.0, sensitivities=0.1, random_state=1)  # reproducible
    True
    >>> LaplaceMechanism([1.0, 2.0, 3.0], 1.0, [1.0, 1.0, 1.0], random_state=2).shape
    (3,)

    Notes
    -----
    The derivation is in the guide: :ref:`derivation-LaplaceMechanism`
    (``docs/python/guide/mechanisms-derivations.rst``).

    References
    ----------
    Dwork, McSherry, Nissim and Smith (2006), Calibrating noise to sensitivity in private data
    analysis. Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential
    privacy (NeurIPS). Giddens and Liu (2023), DPpack reference manual,
    ``LaplaceMechanism``.
    """
    _backends.refuse_dask("LaplaceMechanism", true_values)
    return _plans.run(LAPLACE, true_values, {"eps": eps, "sensitivities": sensitivities,
                      "alloc_proportions": alloc_proportions}, random_state, accountant)


def GaussianMechanism(
    true_values,
    eps,
    delta,
    sensitivities,
    type_DP="aDP",
    alloc_proportions=None,
    analytic=False,
    tol=1e-12,
    random_state=None,
    accountant=None,
):
    """Add exact discrete Gaussian noise on a fine power-of-two grid to ``true_values`` for
    (eps, delta)-differential privacy (the noise scale of DPpack's Gaussian mechanism, raised
    where the discrete law needs it).

    Parameters
    ----------
    true_values : float, array_like, pandas, polars or pyarrow series or data frame
    eps : float
        > 0; below 1 for the classical approximate-DP calibration.
    delta : float
        In (0, 1).
    sensitivities : float or array_like
        l2 global sensitivity of each value, or one for all of them.
    type_DP : {'aDP', 'pDP'}, default 'aDP'
        Approximate or probabilistic differential privacy.
    alloc_proportions : array_like, optional
        Share of ``eps`` and ``delta`` spent on each value. Without it every value gets the
        noise of the whole vector's l2 sensitivity.
    analytic : bool, default False
        Calibrate with the analytic Gaussian mechanism (Balle and Wang 2018); aDP only.
    tol : float, default 1e-12
        Tolerance of the analytic calibration.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.approx(eps, delta) (pDP implies (eps, delta)-DP), label
        "GaussianMechanism"; by default the session's accountant, if any. An overspend is
        refused before any noise is drawn.

    Returns
    -------
    float, ndarray or pandas object
        The sanitized values, shaped like ``true_values``; every value is a multiple of the
        grid g (a power of two, g <= sigma / 2^13).

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before any noise is drawn;
        an overspend of ``accountant``.

    Notes
    -----
    The derivation is in the guide: :ref:`derivation-GaussianMechanism`
    (``docs/python/guide/mechanisms-derivations.rst``).

    References
    ----------
    Dwork and Roth (2014); Liu (2019), Generalized Gaussian mechanism for undirected graphs;
    Balle and Wang (2018), Improving the Gaussian mechanism for differential privacy;
    Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential privacy.
    Giddens and Liu (2023), DPpack reference manual, ``GaussianMechanism``.

    Examples
    --------
    >>> from dppack import GaussianMechanism
    >>> x = GaussianMechanism(5.0, eps=0.5, delta=1e-5, sensitivities=0.1, random_state=1)
    >>> round(float(x), 2)
    5.47
    >>> x = GaussianMechanism([1.0, 2.0], eps=2.0, delta=1e-5, sensitivities=[0.1, 0.1],
    ...                       analytic=True, random_state=1)  # eps >= 1 needs analytic
    >>> [round(float(v), 2) for v in x]
    [1.12, 2.04]
    """
    _backends.refuse_dask("GaussianMechanism", true_values)
    arguments = {"eps": eps, "delta": delta, "sensitivities": sensitivities, "type_DP": type_DP,
                 "alloc_proportions": alloc_proportions, "analytic": analytic, "tol": tol}
    return _plans.run(GAUSSIAN, true_values, arguments, random_state, accountant)


class _Additive(_plans.Plan):
    """The two additive mechanisms: the checks of the true values, then the plan's laws."""

    spends = False

    def prepare(self, true_values, a):
        values = _checks.as_finite_data(true_values, "true.values", message=_TRUE_VALUES_MESSAGE,
                                        size_message=_TRUE_VALUES_SIZE_MESSAGE)[0]
        laws, which = self.laws(a["eps"], a, values.size)
        if which is None:
            return [(None, functools.partial(laws[0].release, values, true_values))]
        return [(None, lambda rng, loss: _draw(laws, which, values, true_values, rng))]

    def report(self, statistic, eps, arguments, alpha, simultaneous):
        eps = _checks.check_finite_budget(eps, "eps")
        if "delta" in arguments:
            _checks.check_probability(arguments["delta"], "delta")
        sens = _checks.as_numeric_array(arguments["sensitivities"],
                                        "Global sensitivities must be numeric.")
        size = arguments["size"]
        size = sens.size if size is None else _checks.check_whole(size, "size", 1)
        laws, which = self.laws(eps, arguments, size)
        if which is None:
            which = None if size == 1 else np.zeros(size, int)
        return _plans.from_laws(statistic, [law.law() for law in laws], which, alpha,
                                simultaneous)


class _Laplace(_Additive):
    """LaplaceMechanism: without an allocation one release of the whole vector, L1
    sensitivity sum(Delta), all its values (coordinates = size); with one, value i at
    (Delta_i, a_i eps) alone, equal (Delta_i, a_i) sharing one draw."""

    name = "LaplaceMechanism"
    report_arguments = dict(sensitivities=None, size=None, alloc_proportions=None)
    required = ("sensitivities",)

    def loss(self, arguments):
        return accounting.PrivacyLoss.pure(_checks.check_finite_budget(arguments["eps"], "eps"))

    def laws(self, eps, a, size):
        """The checks of (eps, sensitivities, alloc_proportions) for ``size`` values, then the
        noise of each group of values and the group of each value (None: one group)."""
        eps = _checks.check_finite_budget(eps, "eps")
        sens = _checks.check_sensitivities(a["sensitivities"], size)
        alloc = a["alloc_proportions"]
        if alloc is not None:
            alloc = _checks.check_allocation(alloc, sens.size, size)
        if alloc is None:
            # DPpack's LaplaceMechanism: one release of the whole vector, scale sum / eps
            total = float(sens[0]) if sens.size == 1 else float(np.sum(sens))
            return [LaplaceNoise(total, eps, size)], None
        # value i at (Delta_i, a_i eps); equal (Delta_i, a_i) share one vectorised draw
        pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
        return ([LaplaceNoise(float(s), float(a * eps), 1) for s, a in pairs.T],
                which.ravel())


class _Gaussian(_Additive):
    """GaussianMechanism: without an allocation one sigma for the L2 norm of the
    sensitivities and the whole vector; with one, value i at (a_i eps, a_i delta), sigma
    linear in Delta_i (each share calibrated once, with Delta = 1)."""

    name = "GaussianMechanism"
    report_arguments = dict(delta=None, sensitivities=None, type_DP="aDP",
                            alloc_proportions=None, analytic=False, tol=1e-12, size=None)
    required = ("delta", "sensitivities")

    def loss(self, arguments):
        return accounting.PrivacyLoss.approx(
            _checks.check_finite_budget(arguments["eps"], "eps"),
            _checks.check_probability(arguments["delta"], "delta"))

    def laws(self, eps, a, size):
        """As :meth:`_Laplace.laws`: the checks (eps, delta, sensitivities, analytic, type_DP,
        alloc_proportions, tol), then the noises."""
        eps = _checks.check_finite_budget(eps, "eps")
        delta = _checks.check_probability(a["delta"], "delta")
        sens = _checks.check_sensitivities(a["sensitivities"], size)
        analytic = _checks.check_flag(a["analytic"], "analytic")
        type_DP = a["type_DP"]
        check_type(eps, type_DP, analytic)
        alloc = a["alloc_proportions"]
        if alloc is not None:
            alloc = _checks.check_allocation(alloc, sens.size, size)
        tol = _checks.check_positive_scalar(a["tol"], "tol")
        if alloc is None:
            # one sigma from the l2 norm of the sensitivity vector: for one value sqrt(s * s),
            # the operations of numpy's norm
            one = float(sens[0])
            norm = math.sqrt(one * one) if sens.size == 1 else float(np.linalg.norm(sens))
            sigma = gaussian_sigma(eps, delta, norm, type_DP, analytic, tol)
            return [GaussianNoise(sigma, norm, eps, delta, type_DP, size)], None
        # coordinate i spends a_i eps and a_i delta on s_i; sigma is linear in s, so each
        # distinct share is calibrated once, with s = 1
        shares, which = np.unique(alloc, return_inverse=True)
        unit = np.array([gaussian_sigma(share * eps, share * delta, 1.0, type_DP, analytic, tol)
                         for share in shares])
        pairs, group = np.unique(np.stack([sens, which]), axis=1, return_inverse=True)
        laws = []
        for sens_j, share_j in pairs.T:
            share = float(shares[int(share_j)])
            laws.append(GaussianNoise(float(unit[int(share_j)] * sens_j), float(sens_j),
                                      share * eps, share * delta, type_DP, 1))
        return laws, group.ravel()


def _draw(laws, which, values, like, rng):
    """The noisy values of groups of values, one draw per group, in order."""
    flat = values.ravel()
    out = np.empty(flat.size)
    for j, law in enumerate(laws):
        index = np.flatnonzero(which == j)
        out[index] = law.draw(flat[index], rng)
    return _checks.restore_like(out.reshape(values.shape), like)


LAPLACE = _plans.register(_Laplace())
GAUSSIAN = _plans.register(_Gaussian())


def release_exact(values, eps, sensitivity, mechanism, delta, type_DP, rng):
    """The exact entry point of the two mechanisms for the statistics: exact rationals
    ``values`` (a list of (num, den, e) = num 2^e / den, ``dppack._exact_sums``) with one
    call's noise, as ``LaplaceMechanism`` (``mechanism`` 'Laplace', L1 ``sensitivity``) or
    ``GaussianMechanism`` ('Gaussian' with ``type_DP``, or 'analytic'; L2 ``sensitivity``)
    would add it to the same values, without an accountant: the same checks, laws and
    draws, each value rounded to the noise grid 2^k exactly in integers (round half to
    even), never through a float (Canonne, Kamath and Steinke 2020). Returns a list of
    floats, each the float of an integer multiple of 2^k.

    Examples
    --------
    >>> from dppack._random import as_generator
    >>> out = release_exact([(1, 3, 0)], 1.0, 0.1, "Laplace", 0, "aDP", as_generator(1))
    >>> len(out), float(out[0]).is_integer()
    (1, False)
    """
    size = len(values)
    if mechanism == "Laplace":
        arguments = {"sensitivities": sensitivity, "alloc_proportions": None}
        laws, _ = LAPLACE.laws(eps, arguments, size)
    else:
        analytic = mechanism == "analytic"
        arguments = dict(GAUSSIAN.report_arguments, delta=delta, sensitivities=sensitivity,
                         type_DP="aDP" if analytic else type_DP, analytic=analytic)
        laws, _ = GAUSSIAN.laws(eps, arguments, size)
    return laws[0].draw_exact(values, rng)


def mechanism_report(statistic, mechanism, eps, delta, type_DP, sensitivities, alpha,
                     simultaneous=False, size=None):
    """The report of one call of ``mechanism`` as the statistics make it
    (``stats._release.add_noise``: the Laplace mechanism, the Gaussian one with ``type_DP``,
    or the analytic one), from the mechanism's own plan."""
    if mechanism == "Laplace":
        arguments = dict(LAPLACE.report_arguments, sensitivities=sensitivities, size=size)
        return LAPLACE.report(statistic, eps, arguments, alpha, simultaneous)
    analytic = mechanism == "analytic"
    arguments = dict(GAUSSIAN.report_arguments, delta=delta, sensitivities=sensitivities,
                     type_DP="aDP" if analytic else type_DP, analytic=analytic, size=size)
    return GAUSSIAN.report(statistic, eps, arguments, alpha, simultaneous)
