"""The stability constants (Chaudhuri and Vinterbo 2013, Theorems 4 and 6) and the privacy
of the procedures (Theorems 1, 2 and 5)."""

import math

from ... import _checks, _messages, accounting


SELECTORS = ("exponential_noise", "gumbel", "laplace")
NOISE_MODES = ("shared", "independent")
SCORES = ("ramp", "hinge", "logistic")


def stability_constants_linear(lambda_min, n, m, d, k, eps, delta, score="ramp"):
    """(beta1, beta2) of the validation score of regularised linear classifiers (Thm 4).

    Parameters
    ----------
    lambda_min : float
        Smallest regularisation weight in the paper's scale (DPpack's gamma / n).
    n, m, d, k : int
        Training and validation set sizes, coefficients (bias included), candidates.
    eps : float
        Budget of the training noise (for objective perturbation, the eps' its noise uses).
    delta : float
        Overall delta of the selection.
    score : {'ramp', 'hinge', 'logistic'}
        The validation loss (the score is minus its mean on V).

    Returns
    -------
    (float, float)
        beta1 = 2 / lambda_min and beta2, the loss's range over the coefficients' norm bound
        (for hinge larger than the paper's; :doc:`/guide/stability-derivations`).

    Raises
    ------
    ValueError
        For an argument out of range or an unknown ``score``.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorem 4.

    Examples
    --------
    >>> from dppack import stability_constants_linear
    >>> stability_constants_linear(0.01, n=1000, m=200, d=3, k=4, eps=1.0, delta=0.01)
    (200.0, 1.0)
    """
    lambda_min = _checks.check_finite_budget(lambda_min, "lambda.min")
    n, m, d, k = (_checks.check_whole(v, name, 1, strict=True)
                  for v, name in ((n, "n"), (m, "m"), (d, "d"), (k, "k")))
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    _checks.check_choice(score, "score", SCORES)
    lipschitz = 1.0  # logistic, hinge and ramp are 1-Lipschitz in w for ||x|| <= 1
    beta1 = 2.0 * lipschitz / lambda_min
    norm_bound = (lipschitz / lambda_min) * (
        1.0 + 2.0 * d * math.log(d * k / delta) / (eps * n))  # Thm 4 (factor 2: the guide)
    # Thm 4, with beta2 = the range of g on |y w'x| <= B (g >= 0, one record replaced):
    # ramp in [1 - min(B, 1), 1] (g* = 1), logistic in [log(1 + e^-B), log(1 + e^B)], hinge in
    # [max(0, 1 - B), 1 + B]; the paper's B alone is too small for hinge (see the guide).
    if score == "ramp":
        return beta1, min(1.0, norm_bound)
    if score == "hinge":
        return beta1, norm_bound + min(norm_bound, 1.0)
    return beta1, norm_bound


def histogram_min_n(h_min, k, eps, delta):
    """Smallest training size for Thm 6: 1 + 2 ln(4k/delta) / (eps sqrt(h_min))."""
    return 1.0 + 2.0 * math.log(4.0 * k / delta) / (eps * math.sqrt(h_min))


def stability_constants_histogram(h_min, n, m, k, eps, delta):
    """(beta1, beta2) of the histogram score (Thm 6): beta1 = 6 / ((1 - nu) h_min),
    beta2 = 2 / h_min, nu = 2 ln(4k/delta) / (n eps sqrt(h_min)).

    Parameters
    ----------
    h_min : float
        The smallest candidate bin width, in (0, 1] (a fraction of the range).
    n, m, k : int
        Training and validation set sizes, and the number of candidates.
    eps : float
        The histograms' training budget.
    delta : float
        Overall delta of the selection, in (0, 1).

    Returns
    -------
    (float, float)
        (beta1, beta2).

    Raises
    ------
    ValueError
        When n < 1 + 2 ln(4k/delta) / (eps sqrt(h_min)), where Thm 6 gives no guarantee.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorem 6.

    Examples
    --------
    >>> from dppack import stability_constants_histogram
    >>> beta1, beta2 = stability_constants_histogram(0.1, n=400, m=100, k=3, eps=1.0,
    ...                                              delta=0.01)
    >>> round(beta1, 4), beta2
    (67.5755, 20.0)
    """
    h_min = _checks.check_finite_budget(h_min, "h.min")
    if h_min > 1:
        raise _messages.value_error("h.min must be <= 1.")
    n, m, k = (_checks.check_whole(v, name, 1, strict=True)
               for v, name in ((n, "n"), (m, "m"), (k, "k")))
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    n_min = histogram_min_n(h_min, k, eps, delta)
    if n < n_min:
        raise _messages.value_error(
            "Stability needs at least {n_min} training values for "
            "these bin widths, budget and delta (Thm 6); there are {n}.",
            n_min=math.ceil(n_min), n=n)
    nu = 2.0 * math.log(4.0 * k / delta) / (n * eps * math.sqrt(h_min))
    return 6.0 / ((1.0 - nu) * h_min), 2.0 / h_min


def selection_privacy(procedure, eps, eps_select=None, delta=0.0):
    """The (eps, delta) of a whole tuning procedure.

    Parameters
    ----------
    procedure : {'stability', 'alphaSplit', 'dataSplit', 'random'}
    eps : float
        The training budget (stability) or the overall budget alpha (the baselines).
    eps_select, delta : float, optional
        The selection budget (required) and delta of 'stability'.

    Returns
    -------
    dict
        ``{"eps": ..., "delta": ...}``: (eps + eps_select, delta) for 'stability', (eps, 0)
        for the baselines.

    Raises
    ------
    ValueError
        For an unknown procedure, a bad budget, or 'stability' without ``eps_select``.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 2 and 5.

    Examples
    --------
    >>> from dppack import selection_privacy
    >>> selection_privacy("stability", 1.0, eps_select=0.5, delta=0.01)
    {'eps': 1.5, 'delta': 0.01}
    >>> selection_privacy("alphaSplit", 1.0)
    {'eps': 1.0, 'delta': 0.0}
    """
    _checks.check_choice(procedure, "procedure",
                         ("stability", "alphaSplit", "dataSplit", "random"))
    eps = _checks.check_finite_budget(eps, "eps")
    if procedure != "stability":
        return {"eps": eps, "delta": 0.0}
    if eps_select is None:
        raise _messages.value_error("eps.select must be given for the 'stability' procedure.")
    return {"eps": eps + _checks.check_finite_budget(eps_select, "eps.select"),
            "delta": _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)}


def advanced_composition_eps(eps, k, delta):
    """The per-model budget e' with k (e^e' - 1) e' + sqrt(2 k ln(1/delta)) e' = eps (the
    advanced-composition alternative to alphaSplit's eps / k).

    Parameters
    ----------
    eps : float
        The total budget, > 0 and finite.
    k : int
        Number of models, >= 1.
    delta : float
        The delta' of advanced composition, in (0, 1).

    Returns
    -------
    float
        The largest e' with the left side <= eps.

    Raises
    ------
    ValueError
        For an argument out of range.

    References
    ----------
    Dwork, Rothblum and Vadhan (2010), FOCS, Theorem III.3.

    Examples
    --------
    Ten models within eps = 1 in total (alphaSplit would give each 0.1):

    >>> from dppack import advanced_composition_eps
    >>> round(advanced_composition_eps(1.0, 10, 1e-5), 6)
    0.063185
    """
    eps = _checks.check_finite_budget(eps, "eps")
    k = _checks.check_whole(k, "k", 1, strict=True)
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    return accounting.advanced_composition_inverse(eps, k, delta)

