"""DPpack 0.2.2's exponential mechanism, drawn exactly, and its argument checks."""

import numpy as np

from .. import _backends, _checks, _frames, _messages, _random, accounting


def check_exponential_sensitivity(sensitivity):
    """:func:`ExponentialMechanism`'s check of its sensitivity (DPpack's messages), also
    used by its accuracy report (``dppack.accuracy``). Returns it as a float."""
    sens = _checks.as_numeric_array(sensitivity, "sensitivity must be > 0.").ravel()
    if sens.size != 1:
        raise _messages.value_error("Length of sensitivity must be 1.")
    sens = float(sens[0])
    if not sens > 0:
        raise _messages.value_error("sensitivity must be > 0.")
    if not np.isfinite(sens):
        raise _messages.value_error("sensitivity must be finite.")
    return sens


def check_measure(measure, size):
    """ExponentialMechanism's checks of a base measure for ``size`` candidates, with DPpack's
    messages: a numeric vector of that length, no value negative, NaN or infinite. Returns it
    as a flat float array (as ``_checks.as_numeric_array`` gives it).

    Examples
    --------
    >>> check_measure([1, 2, 0], 3).tolist()
    [1.0, 2.0, 0.0]
    """
    m = _checks.as_numeric_array(measure, "Values in measure must be numeric.").ravel()
    if m.size != size:
        raise _messages.value_error("Length of measure must match length of utility.")
    if np.any(np.isnan(m)) or np.any(m < 0):
        raise _messages.value_error("Values in measure cannot be negative.")
    if not np.all(np.isfinite(m)):
        raise _messages.value_error("Values in measure must be finite.")
    return m


def ExponentialMechanism(
    utility, eps, sensitivity, measure=None, candidates=None, random_state=None,
    accountant=None,
):
    """Select one candidate with probability proportional to measure * exp(eps u / (2 Delta)),
    drawn exactly (see Notes).

    Parameters
    ----------
    utility : array_like
        Utility of each candidate (higher is better); NaN and +Inf are refused, -Inf gives a
        candidate probability 0.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivity : float
        Global sensitivity of the utility, > 0.
    measure : array_like, optional
        Base measure of each candidate (>= 0, not all 0); uniform by default.
    candidates : sequence, optional
        Returned instead of the index; must have one entry per utility.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps), label "ExponentialMechanism"; by default the session's
        accountant, if any. An overspend is refused before the draw.

    Returns
    -------
    int or object
        The 0-based index of the selected candidate (DPpack's R index minus 1), or
        ``candidates[index]``.

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before the draw.

    Notes
    -----
    The derivation is in the guide: :ref:`derivation-ExponentialMechanism`
    (``docs/python/guide/mechanisms-derivations.rst``).

    References
    ----------
    McSherry and Talwar (2007), Mechanism design via differential privacy. Canonne, Kamath
    and Steinke (2020), The discrete Gaussian for differential privacy (NeurIPS). Giddens and
    Liu (2023), DPpack reference manual, ``ExponentialMechanism``.

    Examples
    --------
    Choose among three candidates by a utility of sensitivity 1; the second is the most
    likely:

    >>> from dppack import ExponentialMechanism
    >>> ExponentialMechanism([1.0, 5.0, 2.0], eps=1.0, sensitivity=1.0, random_state=1)
    1
    >>> ExponentialMechanism([1.0, 5.0, 2.0], 1.0, 1.0, candidates=["a", "b", "c"],
    ...                      random_state=1)
    'b'
    """
    _backends.refuse_dask("ExponentialMechanism", utility, measure, candidates)
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.pure(_checks.check_finite_budget(eps, "eps")),
        "ExponentialMechanism")
    u = _checks.as_numeric_array(
        utility, "utility must be a numeric atomic vector or scalar."
    ).ravel()
    if u.size == 0:
        raise _messages.value_error("utility must have at least one element.")
    if not (u < np.inf).all():  # one pass catches NaN and +Inf
        raise _messages.value_error("utility must not contain NA, NaN or Inf.")
    if u.max() == -np.inf:
        raise _messages.value_error(
            "At least one candidate must have positive measure and utility > -Inf.")
    eps = _checks.check_finite_budget(eps, "eps")
    sens = check_exponential_sensitivity(sensitivity)
    if measure is not None:
        m = check_measure(measure, u.size)
    if candidates is not None and not hasattr(candidates, "__len__"):
        raise _messages.value_error("candidates must be a sequence with one entry per utility.")
    if candidates is not None and len(candidates) != u.size:
        raise _messages.value_error("Length of candidates must match length of utility")
    if measure is not None and not np.any((m > 0) & (u > -np.inf)):
        raise _messages.value_error(
            "At least one candidate must have positive measure and utility > -Inf.")
    rng = _random.as_generator(random_state)
    bill.spend()
    # DPpack's ExponentialMechanism steps 2-3, exactly: P(k) proportional to measure_k exp(eps u~_k
    # / (2 Delta')).
    index = _random.exponential_mechanism(u, eps, sens, rng,
                                          measure=None if measure is None else m)
    if candidates is None:
        return index
    return _frames.element(candidates, index)
