"""The budget checks and noise scales of DPpack 0.2.2's Laplace and Gaussian mechanisms."""

import math

import numpy as np
from scipy import special

from .. import _checks, _messages
from ._analytic import calibrateAnalyticGaussianMechanism


TYPE_DP_MESSAGE = "type.DP must be one of {'pDP', 'aDP'}."


def check_type(eps, type_DP, analytic, switch="analytic is TRUE"):
    if analytic and type_DP != "aDP":
        raise _messages.value_error(f"Only approximate DP can be used when {switch}.")
    _checks.check_choice(type_DP, "type.DP", ("pDP", "aDP"), TYPE_DP_MESSAGE)
    if not analytic and type_DP == "aDP" and eps >= 1:
        raise _messages.value_error(f"eps must be < 1 for aDP unless {switch}.")


def check_budget(eps, delta=None, type_DP="aDP", analytic=False, switch="analytic is TRUE"):
    """Check a privacy budget as :func:`LaplaceMechanism` (``delta`` None) or
    :func:`GaussianMechanism` checks its own, with the same messages.

    For a release that spends shares of one budget in several mechanism calls: the whole
    budget is checked before the first draw, as one call would check it.

    Parameters
    ----------
    eps : float
    delta : float, optional
        None for the Laplace mechanism.
    type_DP : {'aDP', 'pDP'}, default 'aDP'
    analytic : bool, default False
    switch : str, default "analytic is TRUE"
        How the messages name the choice of the analytic Gaussian mechanism: DPpack's
        ``GaussianMechanism`` text by default; the statistics, which choose it with
        ``mechanism = 'analytic'``, pass ``"mechanism is 'analytic'"``.

    Returns
    -------
    (float, float or None)
        eps and delta as floats.

    Raises
    ------
    ValueError
        DPpack's messages.

    References
    ----------
    DPpack 0.2.2's argument checks.

    Examples
    --------
    A Gaussian release at eps = 0.5 split into two: the whole budget is checked first.

    >>> from dppack.mechanisms._calibration import check_budget
    >>> check_budget(0.5, 1e-5)
    (0.5, 1e-05)
    >>> try:
    ...     check_budget(2.0, 1e-5)
    ... except ValueError as error:
    ...     print(error)
    eps must be < 1 for aDP unless analytic is True.
    """
    eps = _checks.check_finite_budget(eps, "eps")
    if delta is None:
        return eps, None
    delta = _checks.check_probability(delta, "delta")
    check_type(eps, type_DP, analytic, switch)
    return eps, delta


def laplace_scale(eps, sensitivities, alloc_proportions=None):
    """Laplace scale b per coordinate.

    Without allocation every coordinate gets b = (sum of sensitivities) / eps, the l1 norm of
    the sensitivity vector; with allocation a, coordinate i gets b_i = Delta_i / (a_i eps).

    Parameters
    ----------
    eps : float
        The budget, > 0 (not checked).
    sensitivities : array_like of float
        The l1 sensitivity of each value.
    alloc_proportions : array_like of float, optional
        The share a_i of ``eps`` spent on value i.

    Returns
    -------
    float or numpy.ndarray
        One scale for all the values, or one per value with an allocation.

    References
    ----------
    Dwork, McSherry, Nissim and Smith (2006), Calibrating noise to sensitivity in private data
    analysis.

    Examples
    --------
    >>> from dppack.mechanisms import laplace_scale
    >>> float(laplace_scale(0.5, [1.0, 1.0]))
    4.0
    >>> laplace_scale(0.5, [1.0, 1.0], [0.75, 0.25]).tolist()
    [2.6666666666666665, 8.0]
    """
    sensitivities = np.asarray(sensitivities, dtype=np.float64)
    if alloc_proportions is None:
        return np.sum(sensitivities) / eps
    return sensitivities / (np.asarray(alloc_proportions) * eps)


def gaussian_sigma(eps, delta, sensitivity, type_DP="aDP", analytic=False, tol=1e-12):
    """Gaussian standard deviation for one coordinate.

    Parameters
    ----------
    eps, delta : float
        Privacy parameters of this coordinate.
    sensitivity : float
        Its l2 sensitivity s.
    type_DP : {'aDP', 'pDP'}
        'pDP' is probabilistic DP (Liu 2019): sigma = s (sqrt(z^2 + 2 eps) - z) / (2 eps) with
        z = Phi^-1(delta / 2). 'aDP' is approximate DP: sigma = s sqrt(2 ln(1.25 / delta)) / eps,
        or the analytic calibration when ``analytic`` is true.
    analytic : bool
    tol : float
        Tolerance of the analytic calibration.

    Returns
    -------
    float

    References
    ----------
    Dwork and Roth (2014), Theorem A.1; Liu (2019), Generalized Gaussian mechanism for
    undirected graphs; Balle and Wang (2018).

    Examples
    --------
    >>> from dppack.mechanisms import gaussian_sigma
    >>> round(gaussian_sigma(0.5, 1e-5, 1.0), 6)  # sqrt(2 ln(1.25e5)) / 0.5
    9.689611
    >>> round(float(gaussian_sigma(0.5, 1e-5, 1.0, type_DP="pDP")), 6)
    8.946127
    """
    if type_DP == "pDP":
        z = special.ndtri(delta / 2)
        return sensitivity * (math.sqrt(z * z + 2 * eps) - z) / (2 * eps)
    if analytic:
        return calibrateAnalyticGaussianMechanism(eps, delta, sensitivity, tol)
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
