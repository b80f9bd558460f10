"""Empty data under add/remove (unbounded) DP (issue 25): [] and [x] are neighbours.

A release that claims unbounded privacy and refuses [] but releases on [x] (or the reverse, or
changes its output's shape) tells the two apart with certainty: no eps covers it. Every
release of ``dppack.__all__`` that takes which_sensitivity='unbounded' is run here on [] and
on one record (at a bound, the worst case for the sums) with every mechanism, and
``auditor.assert_same_structure`` requires the same outcome on both: a release of the same
shape, 20 draws each. The structure check is deterministic (no false failures).

'bounded' and 'both' may refuse empty data (DPpack's "at least one value" / "at least two
values"): under replace-one neighbours n is public, the same on both sides, so a refusal that
depends on n alone leaks nothing. The last tests check that rule on its own terms: the
refusal is the same for every dataset of one size.

quantilesDP and boundsDP (python/dppack/quantiles/) are audited in their own files.
"""

import numpy as np
import pandas as pd
import pytest

import dppack
from auditor import assert_private, assert_same_structure

# (mechanism, eps, delta, type_DP): every noise the unbounded releases take
MECHANISMS = [
    ("Laplace", 1.0, 0.0, "aDP"),
    ("Gaussian", 0.5, 1e-5, "aDP"),
    ("Gaussian", 1.0, 1e-5, "pDP"),
    ("analytic", 1.0, 1e-5, "aDP"),
]
MECHANISM_IDS = [f"{m}-{t}" for m, _, _, t in MECHANISMS]

EMPTY = np.empty(0)
ONE = np.array([1.0])  # at the upper bound: the centred sum moves by (U - L) / 2


def _noise(mechanism, eps, delta, type_DP):
    return dict(eps=eps, mechanism=mechanism, delta=delta, type_DP=type_DP,
                which_sensitivity="unbounded")


def _shape(output):
    """The output's kind and shape (and, for pandas, its labels)."""
    if isinstance(output, pd.Series):
        return ("Series", tuple(output.index))
    if isinstance(output, pd.DataFrame):
        return ("DataFrame", tuple(output.index), tuple(output.columns))
    if hasattr(output, "breaks"):  # a histogram: breaks and mids are public
        return ("Histogram", np.asarray(output.breaks), np.asarray(output.mids),
                np.shape(output.counts))
    array = np.asarray(output)
    return (type(output).__name__, array.shape, array.dtype.kind)


def _unbounded_releases(mechanism, eps, delta, type_DP):
    noise = _noise(mechanism, eps, delta, type_DP)
    two = np.array([[0.2, 0.3], [0.4, 0.1]])
    levels = ["a", "b"]

    def factor(x):
        return pd.Categorical(np.where(x > 0.5, "a", "b"), categories=levels)

    return {
        "meanDP": lambda x, rng: dppack.meanDP(x, lower_bound=0, upper_bound=1, **noise,
                                               random_state=rng),
        "varDP": lambda x, rng: dppack.varDP(x, lower_bound=0, upper_bound=1, **noise,
                                             random_state=rng),
        "sdDP": lambda x, rng: dppack.sdDP(x, lower_bound=0, upper_bound=1, **noise,
                                           random_state=rng),
        "covDP": lambda x, rng: dppack.covDP(x, 1.0 - x, lower_bound1=0, upper_bound1=1,
                                             lower_bound2=0, upper_bound2=1, **noise,
                                             random_state=rng),
        # the empty sample alone, and next to a sample of two
        "pooledVarDP": lambda x, rng: dppack.pooledVarDP(x, lower_bound=0, upper_bound=1,
                                                         **noise, random_state=rng),
        "pooledVarDP-2": lambda x, rng: dppack.pooledVarDP(
            x, np.array([0.2, 0.4]), lower_bound=0, upper_bound=1, **noise, random_state=rng),
        "pooledCovDP": lambda x, rng: dppack.pooledCovDP(
            np.c_[x, 1.0 - x], two, lower_bound1=0, upper_bound1=1, lower_bound2=0,
            upper_bound2=1, **noise, random_state=rng),
        "histogramDP-breaks": lambda x, rng: dppack.histogramDP(
            x, lower_bound=0, upper_bound=1, breaks=[0.0, 0.5, 1.0], **noise,
            random_state=rng),
        "histogramDP-number": lambda x, rng: dppack.histogramDP(
            x, lower_bound=0, upper_bound=1, breaks=4, **noise, random_state=rng),
        "histogramDP-normalize": lambda x, rng: dppack.histogramDP(
            x, lower_bound=0, upper_bound=1, breaks=[0.0, 0.5, 1.0], normalize=True,
            **noise, random_state=rng),
        "tableDP": lambda x, rng: dppack.tableDP(factor(x), **noise, random_state=rng),
        "tableDP-2": lambda x, rng: dppack.tableDP(factor(x), factor(1.0 - x), **noise,
                                                   random_state=rng),
    }


CASES = [(name, m) for m in MECHANISMS for name in _unbounded_releases(*m)]


@pytest.mark.parametrize("name, mechanism", CASES,
                         ids=[f"{n}-{m[0]}-{m[3]}" for n, m in CASES])
def test_unbounded_release_on_empty_data_has_the_shape_of_one_record(name, mechanism):
    release = _unbounded_releases(*mechanism)[name]
    # [] and [x] must both release (a refusal on both would pass the structure check: the
    # releases must also succeed, since a refusal of [] alone is the leak looked for)
    shape = _shape(release(EMPTY, np.random.default_rng(1)))
    assert shape is not None
    assert_same_structure(release, EMPTY, ONE, _shape, n_draws=5)


@pytest.mark.parametrize("function", ["quantileDP", "medianDP"])
def test_unbounded_quantile_on_empty_data(function):
    # the exponential mechanism over the bounds: a number in [lower, upper] on [] and [x]
    def release(x, rng):
        kwargs = dict(quant=0.5) if function == "quantileDP" else {}
        return getattr(dppack, function)(x, eps=1.0, lower_bound=0, upper_bound=1,
                                         which_sensitivity="unbounded", random_state=rng,
                                         **kwargs)
    assert 0.0 <= release(EMPTY, np.random.default_rng(2)) <= 1.0
    assert_same_structure(release, EMPTY, ONE, _shape)


def test_unbounded_mean_on_empty_data_is_private():
    # the sums of [] (0 and 0) against one record at the upper bound: eps = 1 holds
    def release(x, rng):
        return dppack.meanDP(x, 1.0, 0.0, 1.0, which_sensitivity="unbounded",
                             random_state=rng)
    assert_private(release, EMPTY, ONE, 1.0, n_samples=2_000)


@pytest.mark.parametrize("function, message, bad_sizes", [
    ("meanDP", "x must contain at least one value.", (0,)),
    ("varDP", "x must contain at least two values.", (0, 1)),
    ("sdDP", "x must contain at least two values.", (0, 1)),
    ("histogramDP", "x must contain at least one value.", (0,)),
])
@pytest.mark.parametrize("which", ["bounded", "both"])
def test_bounded_refusal_depends_on_n_alone(function, message, bad_sizes, which):
    # replace-one neighbours of size n: the refusal is the same for every dataset of that
    # size (here all records at either bound), and a size that releases releases for all
    def release(x, rng):
        return getattr(dppack, function)(x, 1.0, 0.0, 1.0, which_sensitivity=which,
                                         random_state=rng)
    for n in range(3):
        d0, d1 = np.zeros(n), np.r_[np.zeros(max(n - 1, 0)), np.ones(min(n, 1))]
        if n in bad_sizes:
            with pytest.raises(ValueError, match=message.replace(".", r"\.")):
                release(d0, np.random.default_rng(0))
        assert_same_structure(release, d0, d1, lambda out: None, n_draws=2)
