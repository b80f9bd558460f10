"""JointExp's floating-point slack: the bound on its log weights' error, and its charge."""

import math

from .. import _messages
from ._joint import CHOICE_ROUNDING, prefix_chain



_ROUNDOFF = 2.0 ** -53
_LIBM_ULPS = 4.0
#: Under 'unbounded' n is private: the float slack is charged for this many records (the
#: largest n the guarantee covers; an in-memory float64 column of that size needs 1 GiB).
UNBOUNDED_RECORDS = 2 ** 27


def joint_float_slack(n, m, eps, sensitivity=2.0, points=2 ** 61, which_sensitivity="bounded"):
    """The privacy cost of JointExp's floating-point arithmetic: the release is (eps + slack)-DP,
    slack >= 2 X from public values alone, X the largest log-ratio between a computed and an exact
    output probability (derivation: :doc:`/guide/quantiles-joint`, "Floating point").

    Parameters
    ----------
    n : int
        The number of records (:data:`UNBOUNDED_RECORDS` under 'unbounded', where n is private).
    m, points : int
        The numbers of quantiles and of candidate grid points (at most 2^61).
    eps, sensitivity : float
        The release's budget and :func:`joint_sensitivity`.
    which_sensitivity : {'bounded', 'unbounded'}

    Returns
    -------
    float

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
    x = 4.0 * m * tau + 2.0 * tau_f + 6.0 * e + 2.0 * CHOICE_ROUNDING + 2.0 ** -60
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
    prefix = prefix_chain(size)
    chain = max(prefix + 1, 3 * math.ceil(math.log2(size)) + 2)  # sliding or segment tree
    # per level: E_j from C: run volumes (a log of at most 4 e and an addition, per run
    # length), the inner targets (2 m + 4), two additions, 2 m logaddexps: 9 m + 6; C_j
    # from E_j: the range or prefix chain and 6 more
    tau_f = e * (m * (9 * m + 6) + (m - 1) * (chain + 10) + prefix + 11)
    return e, tau_f, tau_f + 2.0 * e + CHOICE_ROUNDING


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
    """The eps JointExp runs at so that the release costs at most ``eps``, its float slack
    included: a double eps' < eps with ``joint_loss_eps(eps') <= eps``; ValueError if eps is too
    small to hold the slack (below about 1e-12).

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
