"""DPpack 0.2.2's Laplace and Gaussian mechanisms, with exact noise on a power-of-two grid."""

import math

import numpy as np

from .. import _backends, _checks, _random, accounting
from ._calibration import check_type, gaussian_sigma
from ._discrete_gaussian import discrete_gaussian_release


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
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.pure(_checks.check_finite_budget(eps, "eps")),
        "LaplaceMechanism")
    values = _checks.as_finite_data(true_values, "true.values", message=_TRUE_VALUES_MESSAGE,
                                    size_message=_TRUE_VALUES_SIZE_MESSAGE)[0]
    eps = _checks.check_finite_budget(eps, "eps")
    sens = _checks.check_sensitivities(sensitivities, values.size)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, values.size)
    rng = _random.as_generator(random_state)
    bill.record()

    if alloc is None:
        # DPpack's LaplaceMechanism: one release of the whole vector, L1 sensitivity sum(Delta),
        # scale sum / eps
        total = float(sens[0]) if sens.size == 1 else float(np.sum(sens))
        out = _random.discrete_laplace_noise(values, total, eps, rng, coordinates=values.size)
    else:
        # DPpack's LaplaceMechanism: value i at (Delta_i, a_i eps); equal (Delta_i, a_i) share one
        # vectorised draw
        flat = values.ravel()
        out = np.empty(flat.size)
        pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
        for j, (sens_j, share) in enumerate(pairs.T):
            index = np.flatnonzero(which.ravel() == j)
            out[index] = _random.discrete_laplace_noise(flat[index], float(sens_j),
                                                        float(share * eps), rng,
                                                        coordinates=1)
        out = out.reshape(values.shape)
    return _checks.restore_like(out, true_values)


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
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.approx(
            _checks.check_finite_budget(eps, "eps"), _checks.check_probability(delta, "delta")),
        "GaussianMechanism")
    values = _checks.as_finite_data(true_values, "true.values", message=_TRUE_VALUES_MESSAGE,
                                    size_message=_TRUE_VALUES_SIZE_MESSAGE)[0]
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_probability(delta, "delta")
    sens = _checks.check_sensitivities(sensitivities, values.size)
    analytic = _checks.check_flag(analytic, "analytic")
    check_type(eps, type_DP, analytic)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, values.size)
    tol = _checks.check_positive_scalar(tol, "tol")
    rng = _random.as_generator(random_state)

    if alloc is None:
        # DPpack's GaussianMechanism: one sigma from the l2 norm of the sensitivity vector, for the
        # whole vector. one value: sqrt(s * s), the operations of numpy's norm (sqrt of the dot
        # product)
        one = float(sens[0])
        norm = math.sqrt(one * one) if sens.size == 1 else float(np.linalg.norm(sens))
        sigma = gaussian_sigma(eps, delta, norm, type_DP, analytic, tol)
        bill.record()
        out = discrete_gaussian_release(values, sigma, norm, rng, eps=eps, delta=delta,
                                        type_DP=type_DP, coordinates=values.size)
        return _checks.restore_like(out, true_values)
    # DPpack's GaussianMechanism: coordinate i spends eps_i = a_i eps and delta_i = a_i delta on
    # sensitivity s_i. sigma is linear in s, so each distinct share is calibrated once, with s = 1;
    # equal (s_i, a_i) share one vectorised draw.
    shares, which = np.unique(alloc, return_inverse=True)
    unit = np.array(
        [gaussian_sigma(a * eps, a * delta, 1.0, type_DP, analytic, tol) for a in shares]
    )
    pairs, group = np.unique(np.stack([sens, which]), axis=1, return_inverse=True)
    parameters = []
    for sens_j, share_j in pairs.T:
        a = float(shares[int(share_j)])
        parameters.append(dict(sigma=float(unit[int(share_j)] * sens_j),
                               sensitivity=float(sens_j), eps=a * eps, delta=a * delta))
    bill.record()
    flat = values.ravel()
    out = np.empty(flat.size)
    group = group.ravel()
    for j, p in enumerate(parameters):
        index = np.flatnonzero(group == j)
        out[index] = discrete_gaussian_release(
            flat[index], p["sigma"], p["sensitivity"], rng, eps=p["eps"], delta=p["delta"],
            type_DP=type_DP, coordinates=1)
    return _checks.restore_like(out.reshape(values.shape), true_values)
