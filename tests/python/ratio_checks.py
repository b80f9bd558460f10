"""Planted bugs in ``dppack.accuracy.ratio_of_sums_bound``, the one bound of the unbounded
variance and covariance (varDP, sdDP, covDP: J = 1; pooledVarDP, pooledCovDP: J >= 1),
shared by test_accuracy_moments.py and test_accuracy_pooled_hist.py.

A planted bug is the real function's source with one line changed (so it follows the
function as it is edited); :func:`planted` refuses a change whose text is not in the source,
so a planted bug cannot silently become the real function.
"""

import inspect
import textwrap

from dppack.stats import _ratio as _moments

_SOURCE = textwrap.dedent(inspect.getsource(_moments.ratio_of_sums_bound))

# name: (the text in ratio_of_sums_bound, its weakened replacement)
BUGS = {
    # the count's term a_N C_j dropped
    "count_term": ("terms = ap + an * mixed +", "terms = ap +"),
    # m_j in place of the floors f_j = max(m_j - a_N, 2) (N for N - t_N)
    "floors": ("floors = np.maximum(m - an, 2.0)", "floors = np.maximum(m, 2.0)"),
    # the J = 1 covariance factor max(rho H, Vmax) used for every J
    "covariance_step": ("if same or groups == 1:", "if True:"),
}


def planted(bug):
    """``ratio_of_sums_bound`` with the planted ``bug`` (a key of :data:`BUGS`)."""
    old, new = BUGS[bug]
    assert _SOURCE.count(old) == 1, bug
    namespace = dict(vars(_moments))
    exec(_SOURCE.replace(old, new), namespace)  # noqa: S102 - the test's own mutant
    return namespace["ratio_of_sums_bound"]
