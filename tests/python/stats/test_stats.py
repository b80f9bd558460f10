"""Tests of dppack's private statistics against DPpack's R/StatFunctions.R and its
StatFunctions_test.R.

What is checked:

* every validation error, with its exact text and in DPpack's order of checks (bound lengths,
  then our checks, then which_sensitivity, then mechanism, then the mechanism's eps/delta
  checks), plus our deliberate deviations (NaN/Inf/empty/non-numeric data, bounds that are not
  finite or not ordered, unequal lengths, bounds that floating point cannot scale); and that a
  failing call draws no random number (the generator's state is unchanged);
* the 'both' behaviour of every function (warning text, single value or dict, bounded noise
  drawn before unbounded noise; the docstrings say that 'both' spends eps twice);
* the law of the released values: sanitized minus true value follows the Laplace or Gaussian
  law with the scale of DPpack's sensitivities (Kolmogorov-Smirnov), the clamped law that
  replaces DPpack's
  positivity redraws (varDP, sdDP, pooledVarDP; binomial tests of the point masses at the
  ends, KS inside; issue 11), rounded noise on histogram and table cells
  (chi-square), and the exponential mechanism's interval probabilities of quantileDP
  (chi-square) with a uniform position inside the interval;
* the histogram's bin extension (DPpack's histogramDP reference), its post-processing, and the
  tables'
  labels and noise-to-cell order (R's column-major order);
* unbounded DP without the private n (issue 11): the scaled sufficient statistics handed to
  one mechanism call, its eps, delta and sensitivity, identical for neighbours of n and
  n +- 1, the law of the noise on them (KS), accuracy on large data, the clamps;
* the caller's data are never modified;
* the accountant (issue 12): an overspend refused before the data are read (data that raise
  when read; the generator's state unchanged), one ledger entry per call with the loss the
  docs state ('both' included), the mechanisms inside uncharged, histograms' ``privacy_``;
* the exact noise (issue 12): laws against the discrete calibration actually drawn, the
  thresholded table's threshold against the exact tail of the discrete noise (computed, not
  sampled), quantileDP's law on its grid, including the rejection step of its window.

Statistical tests: each runs at significance level ALPHA = 0.001 with a fixed seed, so the
suite is deterministic. Under a fresh seed each such test would reject a correct
implementation with probability 0.001 (about 2 % for the ~20 statistical tests together). The
"power" tests show that the same checks reject a slightly wrong law.
"""

import importlib
import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from generator_checks import advanced_generator, raises_starting, untouched_generator
from quantile_checks import _interval_index, _quantile_grid_law
from scipy import stats

import dppack
from dppack import (
    covDP,
    histogramDataAccess,
    histogramDP,
    meanDP,
    medianDP,
    pooledCovDP,
    pooledVarDP,
    quantileDP,
    rcompat,
    sdDP,
    tableDP,
    varDP,
)
from dppack.mechanisms import discrete_gaussian_parameters, gaussian_sigma
from dppack import _exact_sums
from dppack.mechanisms._additive import release_exact

ALPHA = 0.001  # false-rejection probability of each statistical test under a fresh seed
N_CALLS = 3000  # calls (one draw each) per law
SEED = 20240602

# --------------------------------------------------------------------------------------------
# Messages (DPpack's R/StatFunctions.R; "ours" marks deviations from DPpack, which has no check
# there)
# --------------------------------------------------------------------------------------------

UB = "Length of upper_bound must be 1."
LB = "Length of lower_bound must be 1."
WHICH = "which_sensitivity must be one of {'bounded', 'unbounded', 'both'}."
MECHANISM = "Mechanism must be one of {'Laplace', 'Gaussian', 'analytic'}."
MECHANISM_EXP = "Mechanism must be one of {'exponential'}."
BOTH = (
    "Sensitivity based on bounded and unbounded differential privacy is identical for this "
    "statistic. Only one value will be returned."
)
EQUIDISTANT = "Only equidistant histogram bins are supported."
QUANT = "quant must be between 0 and 1."
X_VECTOR = "x must be a numeric vector."
DELTA = "delta must be a scalar > 0"
EPS = "eps must be a scalar > 0"
# GaussianMechanism's text names its argument analytic; the statistics name mechanism = 'analytic'
EPS_ADP = "eps must be < 1 for aDP unless mechanism is 'analytic'."
TYPE_DP = "type_DP must be one of {'pDP', 'aDP'}."
# ours
LB_ORDER = "lower_bound must be < upper_bound."
LB_FINITE = "lower_bound must be a finite number."
UB_FINITE = "upper_bound must be a finite number."
X_NUMERIC = "x must be numeric."
X_EMPTY = "x must contain at least one value."
X_TWO = "x must contain at least two values."
X_FINITE = "x must be finite (no NA, NaN or Inf)."
LENGTHS = "x1 and x2 must have the same length."
UNDECLARED = (
    "The levels of data that are not a factor come from the data, so a record with a new "
    "category would add a cell. Declare the levels (an R factor; in Python a pandas."
    "Categorical) or give delta > 0 for the thresholded release of the observed cells."
)

X = np.array([0.1, 0.4, 0.35, 0.8, 0.95, 0.05, 0.6, 0.5, 0.2, 0.7])
SAMPLES = ([1.0, 4.0, -2.0, 8.0, -6.0], [1.0, 2.0], [-5.0, -7.0])
PAIRS = ([1.0, 4.0], [1.0, 2.0], [-5.0, -7.0])
COV_SAMPLES = (
    np.array([[1.0, 8.0], [4.0, -6.0], [-2.0, -3.0]]),
    np.array([[1.0, -5.0], [2.0, 7.0]]),
)


def _with_defaults(function, keywords, positional=()):
    """``function`` with default arguments: ``keywords`` (the test's keywords replace them)
    and ``positional`` (used when the test passes no positional argument)."""
    def call(*args, **kw):
        return function(*(args or positional), **{**keywords, **kw})

    return call


def _cat(values, categories=None):
    """A factor with declared levels: the given categories, else the sorted values."""
    return pd.Categorical(values, categories=categories or sorted(set(values)))


_ONE_SAMPLE = dict(x=X, eps=1, lower_bound=0, upper_bound=1)
_mean = _with_defaults(meanDP, _ONE_SAMPLE)
_var = _with_defaults(varDP, _ONE_SAMPLE)
_sd = _with_defaults(sdDP, _ONE_SAMPLE)
_hist = _with_defaults(histogramDP, _ONE_SAMPLE)
_median = _with_defaults(medianDP, _ONE_SAMPLE)
_quantile = _with_defaults(quantileDP, dict(_ONE_SAMPLE, quant=0.25))
_cov = _with_defaults(covDP, dict(x1=X, x2=X[::-1], eps=1, lower_bound1=0, upper_bound1=1,
                                  lower_bound2=0, upper_bound2=1))
_table = _with_defaults(tableDP, {}, (_cat(["a", "b", "a"], ["a", "b", "c"]),))
_pvar = _with_defaults(pooledVarDP, dict(lower_bound=-10, upper_bound=10), SAMPLES)
_pcov = _with_defaults(pooledCovDP, dict(lower_bound1=-10, upper_bound1=10, lower_bound2=-10,
                                         upper_bound2=10), COV_SAMPLES)


# --------------------------------------------------------------------------------------------
# Validation and order of checks
# --------------------------------------------------------------------------------------------

# Checks shared by the five "x, eps, lower_bound, upper_bound" functions.
_SHARED = [
    (dict(lower_bound=[0, 1]), LB),
    (dict(upper_bound=[0, 1]), UB),
    (dict(lower_bound=[0, 1], upper_bound=[0, 1]), UB),  # DPpack checks upper first
    (dict(upper_bound=None), UB),  # R's NULL has length 0
    (dict(upper_bound=[0, 1], x=[np.nan]), UB),  # bound lengths before our data checks
    (dict(lower_bound=np.nan), LB_FINITE),
    (dict(upper_bound="a"), UB_FINITE),
    (dict(lower_bound=1, upper_bound=1), LB_ORDER),
    (dict(lower_bound=2, upper_bound=1), LB_ORDER),
    (dict(x=["a", "b"]), X_NUMERIC),
    (dict(x=[True, False]), X_NUMERIC),
    (dict(x=[]), X_EMPTY),
    (dict(x=[0.5, np.nan]), X_FINITE),
    (dict(x=[0.5, np.inf]), X_FINITE),
    (dict(x=[0.5, -np.inf], which_sensitivity="abc"), X_FINITE),  # data before which
    (dict(which_sensitivity="abc"), WHICH),
    (dict(which_sensitivity="Bounded"), WHICH),  # case-sensitive
    (dict(which_sensitivity=["bounded"]), WHICH),
    (dict(which_sensitivity="abc", mechanism="abc"), WHICH),  # which before mechanism
]

_ADDITIVE = [
    (dict(mechanism="abc"), MECHANISM),
    (dict(mechanism="laplace"), MECHANISM),
    (dict(mechanism="Gaussian"), DELTA),  # default delta = 0
    (dict(mechanism="analytic"), DELTA),
    (dict(mechanism="Gaussian", delta=0.01, eps=1.5), EPS_ADP),
    (dict(mechanism="Gaussian", delta=0.01, eps=0.5, type_DP="pdp"), TYPE_DP),
    (dict(eps=0), EPS),
    (dict(eps=-1), EPS),
    (dict(eps="a"), EPS),
]


def _cases(name, function, extra=(), empty=X_EMPTY):
    cases = []
    for kwargs, message in list(_SHARED) + list(extra):
        message = empty if message == X_EMPTY else message
        # (no memory address in the id: pytest-xdist's workers must collect the same ids)
        case_id = re.sub(r" at 0x[0-9a-f]+", "", f"{name}-{kwargs}")
        cases.append(pytest.param(function, kwargs, message, id=case_id))
    return cases


VALIDATION = (
    _cases("mean", _mean, _ADDITIVE)
    + _cases("var", _var, _ADDITIVE + [
        (dict(x=np.ones((3, 2))), X_VECTOR),
        (dict(x=np.ones((3, 2)), upper_bound=[1, 2]), X_VECTOR),  # DPpack's first check
        (dict(x=pd.DataFrame({"a": [0.1, 0.2]})), X_VECTOR),
        (dict(x=[0.5]), X_TWO),
        (dict(x=0.5), X_TWO),
    ], empty=X_TWO)
    + _cases("sd", _sd, _ADDITIVE + [(dict(x=np.ones((3, 2))), X_VECTOR)], empty=X_TWO)
    + _cases("hist", _hist, _ADDITIVE + [
        (dict(breaks=[0, 0.1, 0.5, 1]), EQUIDISTANT),
        (dict(breaks=[0, 0.1, 0.5, 1], x=[0.05] * 3), EQUIDISTANT),  # whatever the data
        (dict(breaks="abc"), "breaks, when a string, must be one of 'Sturges', 'Scott'"),
        (dict(breaks=0), "invalid number of 'breaks'"),
        (dict(breaks=lambda b: []), "Invalid breakpoints produced by 'breaks(x)'"),
        # Unbounded with a rule splits eps: the whole budget is checked before the first draw,
        # with the mechanism's messages.
        (dict(which_sensitivity="unbounded", eps="a"), EPS),
        (dict(which_sensitivity="unbounded", eps=np.inf), "eps must be finite"),
        (dict(which_sensitivity="both", mechanism="Gaussian", delta=0.01, eps=1.02), EPS_ADP),
        (dict(which_sensitivity="unbounded", mechanism="analytic", delta=1.02),
         "delta must be < 1."),
        (dict(which_sensitivity="unbounded", mechanism="Gaussian", delta=0.01, eps=0.5,
              type_DP="pdp"), TYPE_DP),
        (dict(normalize="yes"), "normalize must be True or False."),
        (dict(allow_negative=None), "allow_negative must be True or False."),
    ])
    + _cases("quantile", _quantile, [
        (dict(quant=-1), QUANT),
        (dict(quant=1.5), QUANT),
        (dict(quant=np.nan), QUANT),
        (dict(quant="a"), QUANT),
        (dict(quant=[0.1, 0.2]), "Length of quant must be 1."),
        (dict(quant=-1, which_sensitivity="abc"), QUANT),  # quant before which
        (dict(mechanism="Laplace"), MECHANISM_EXP),
        (dict(eps=0), EPS),
        (dict(eps=np.inf), "eps must be finite"),
    ])
    + _cases("median", _median, [(dict(mechanism="abc"), MECHANISM_EXP), (dict(eps=-1), EPS)])
    + [
        pytest.param(_cov, kw, msg, id=f"cov-{kw}")
        for kw, msg in [
            (dict(x1=np.ones((2, 2))), "x1 must be a numeric vector."),
            (dict(x2=np.ones((2, 2)), upper_bound1=[1, 2]), "x2 must be a numeric vector."),
            (dict(lower_bound1=[0, 1], upper_bound1=[0, 1]), "Length of upper_bound1 must be 1."),
            (dict(lower_bound1=[0, 1], upper_bound2=[0, 1]), "Length of lower_bound1 must be 1."),
            (dict(lower_bound2=[0, 1], upper_bound2=[0, 1]), "Length of upper_bound2 must be 1."),
            (dict(lower_bound2=[0, 1]), "Length of lower_bound2 must be 1."),
            (dict(lower_bound2=3, upper_bound2=1), "lower_bound2 must be < upper_bound2."),
            (dict(x1=X[:5]), LENGTHS),
            (dict(x1=["a"] * 10), "x1 must be numeric."),
            (dict(x2=[0.5], x1=[0.5]), "x1 must contain at least two values."),
            (dict(x2=np.where(X > 0.5, np.nan, X)), "x2 must be finite (no NA, NaN or Inf)."),
            (dict(which_sensitivity="abc"), WHICH),
            (dict(mechanism="abc"), MECHANISM),
            (dict(mechanism="Gaussian"), DELTA),
            (dict(mechanism="analytic"), DELTA),
        ]
    ]
    + [
        pytest.param(_table, kw, msg, id=f"table-{kw}")
        for kw, msg in [
            (dict(which_sensitivity="abc"), WHICH),
            (dict(which_sensitivity="abc", mechanism="abc"), WHICH),
            (dict(mechanism="abc"), MECHANISM),
            (dict(mechanism="Gaussian"), DELTA),
            (dict(mechanism="analytic"), DELTA),
            (dict(eps=0), EPS),
            (dict(allow_negative="no"), "allow_negative must be True or False."),
        ]
    ]
    + [
        pytest.param(_pvar, kw, msg, id=f"pooledVar-{kw}")
        for kw, msg in [
            (dict(lower_bound=[0, 1], upper_bound=[0, 1]), LB),  # lower first here
            (dict(upper_bound=[0, 1]), UB),
            (dict(lower_bound=10, upper_bound=-10), LB_ORDER),
            (dict(which_sensitivity="abc"), WHICH),
            (dict(mechanism="abc"), MECHANISM),
            (dict(mechanism="Gaussian"), DELTA),
            (dict(mechanism="analytic"), DELTA),
            (dict(approx_n_max="no"), "approx_n_max must be True or False."),
        ]
    ]
    + [
        pytest.param(_pcov, kw, msg, id=f"pooledCov-{kw}")
        for kw, msg in [
            (dict(lower_bound1=[0, 1], lower_bound2=[0, 1], upper_bound1=[0, 1]),
             "Length of lower_bound1 must be 1."),
            (dict(lower_bound2=[0, 1], upper_bound1=[0, 1]), "Length of lower_bound2 must be 1."),
            (dict(upper_bound1=[0, 1], upper_bound2=[0, 1]), "Length of upper_bound1 must be 1."),
            (dict(upper_bound2=[0, 1]), "Length of upper_bound2 must be 1."),
            (dict(lower_bound1=20), "lower_bound1 must be < upper_bound1."),
            (dict(which_sensitivity="abc"), WHICH),
            (dict(mechanism="abc"), MECHANISM),
            (dict(mechanism="Gaussian"), DELTA),
            (dict(mechanism="analytic"), DELTA),
        ]
    ]
)


@pytest.mark.parametrize("function, kwargs, message", VALIDATION)
def test_validation(function, kwargs, message):
    with untouched_generator(SEED) as rng, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with raises_starting(message):
            function(**kwargs, random_state=rng)


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda rng: tableDP(eps=1, random_state=rng), "nothing to tabulate",
                     id="table-no-input"),
        pytest.param(lambda rng: tableDP(["a", None], eps=1, delta=0.1, random_state=rng),
                     "Factors must not contain missing values", id="table-NA"),
        pytest.param(lambda rng: tableDP(pd.Categorical(["a", None]), eps=1, random_state=rng),
                     "Factors must not contain missing values", id="table-NA-declared"),
        pytest.param(lambda rng: tableDP(["a", "b"], ["c"], eps=1, delta=0.1, random_state=rng),
                     "all arguments must have the same length", id="table-lengths"),
        # ours (issue 11): undeclared levels need delta > 0 (the thresholded release)
        pytest.param(lambda rng: tableDP(["a", "b", "a"], eps=1, random_state=rng),
                     UNDECLARED, id="table-undeclared-delta-0"),
        pytest.param(lambda rng: tableDP(_cat(["a", "b"]), ["u", "v"], eps=1, random_state=rng),
                     UNDECLARED, id="table-one-undeclared-delta-0"),
        pytest.param(lambda rng: tableDP(pd.Series(["a", "b"]), eps=1, random_state=rng),
                     UNDECLARED, id="table-object-series-delta-0"),
        pytest.param(lambda rng: tableDP(["a", None], eps=1, random_state=rng),
                     UNDECLARED, id="table-undeclared-before-tabulating"),
        pytest.param(lambda rng: tableDP(["a"], eps=1, delta=-0.1, random_state=rng),
                     DELTA, id="table-undeclared-negative-delta"),
        pytest.param(lambda rng: tableDP(["a"], eps=1, delta=1, random_state=rng),
                     "delta must be < 1.", id="table-undeclared-delta-1"),
        pytest.param(lambda rng: tableDP(["a"], eps=1, delta=np.nan, random_state=rng),
                     DELTA, id="table-undeclared-delta-NaN"),
        pytest.param(lambda rng: tableDP(["a", None], eps=-1, delta=0.1, random_state=rng),
                     EPS, id="table-budget-before-tabulating"),
        pytest.param(lambda rng: tableDP(["a"], eps=0.5, mechanism="Gaussian", random_state=rng),
                     DELTA, id="table-undeclared-Gaussian-delta-0"),
        pytest.param(lambda rng: tableDP(["a"], eps=2, delta=0.1, mechanism="Gaussian",
                                         random_state=rng),
                     EPS_ADP, id="table-undeclared-Gaussian-aDP-eps"),
        pytest.param(lambda rng: pooledVarDP(lower_bound=0, upper_bound=1, random_state=rng),
                     "At least one sample is required.", id="pooledVar-no-sample"),
        pytest.param(lambda rng: pooledVarDP([1.0, 2.0], [3.0], lower_bound=0, upper_bound=5,
                                             random_state=rng),
                     "Every sample must contain at least two values.", id="pooledVar-short"),
        pytest.param(lambda rng: pooledVarDP(np.ones((2, 2)), lower_bound=0, upper_bound=5,
                                             random_state=rng),
                     "Every sample must be a numeric vector.", id="pooledVar-matrix"),
        pytest.param(lambda rng: pooledVarDP([1.0, np.nan], lower_bound=0, upper_bound=5,
                                             random_state=rng),
                     "Samples must be finite (no NA, NaN or Inf).", id="pooledVar-nan"),
        pytest.param(lambda rng: pooledCovDP([1.0, 2.0], lower_bound1=0, upper_bound1=5,
                                             lower_bound2=0, upper_bound2=5, random_state=rng),
                     "Every sample must be a numeric matrix with two columns.",
                     id="pooledCov-vector"),
        pytest.param(lambda rng: meanDP(X, 1, 0, 1, random_state=-1),
                     "random_state must be", id="bad-random-state"),
    ],
)
def test_validation_other(call, message):
    with untouched_generator(SEED) as rng, raises_starting(message, (ValueError, TypeError)):
        call(rng)


def test_missing_bounds_raise_type_error():
    """R's missing-argument error: the bounds have no default (keyword-only for pooled)."""
    with pytest.raises(TypeError):
        meanDP(X, 1)
    with pytest.raises(TypeError):
        pooledVarDP(*SAMPLES, eps=1)
    with pytest.raises(TypeError):
        pooledCovDP(*COV_SAMPLES, lower_bound1=0, upper_bound1=1)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda rng: _mean(random_state=rng), id="mean"),
        pytest.param(lambda rng: _var(random_state=rng), id="var"),
        pytest.param(lambda rng: _cov(random_state=rng), id="cov"),
        pytest.param(lambda rng: _hist(random_state=rng), id="hist"),
        pytest.param(lambda rng: _table(random_state=rng), id="table"),
        pytest.param(lambda rng: _pvar(random_state=rng), id="pooledVar"),
        pytest.param(lambda rng: _pcov(random_state=rng), id="pooledCov"),
        pytest.param(lambda rng: _quantile(random_state=rng), id="quantile"),
    ],
)
def test_valid_call_advances_the_generator(call):
    """Control for the 'no draw on error' checks: a valid call does change the state."""
    with advanced_generator(SEED) as rng:
        call(rng)


# --------------------------------------------------------------------------------------------
# 'both'
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("function", [_quantile, _median], ids=["quantile", "median"])
def test_both_warns_and_returns_the_bounded_value(function):
    with pytest.warns(UserWarning, match="^" + re.escape(BOTH) + "$"):
        both = function(which_sensitivity="both", random_state=SEED)
    assert isinstance(both, float)
    assert both == function(which_sensitivity="bounded", random_state=SEED)
    # 'unbounded' uses the add/remove sensitivity max(q, 1 - q) (issue 28): another law
    # ('both' keeps 1, eps-DP under both relations)
    assert both != function(which_sensitivity="unbounded", random_state=SEED)


def test_both_warning_points_at_the_caller():
    with pytest.warns(UserWarning) as record:
        _quantile(which_sensitivity="both", random_state=SEED)
        _median(which_sensitivity="both", random_state=SEED)
    assert [w.filename for w in record] == [__file__] * 2


def test_both_warns_before_the_mechanism_check():
    """DPpack warns for 'both' first, then stops on the mechanism (DPpack's order)."""
    with pytest.warns(UserWarning, match=re.escape(BOTH)):
        with pytest.raises(ValueError, match=re.escape(MECHANISM_EXP)):
            _quantile(which_sensitivity="both", mechanism="abc", random_state=SEED)


@pytest.mark.parametrize(
    "function, samples",
    [
        pytest.param(_mean, (), id="mean"),
        pytest.param(_var, (), id="var"),
        pytest.param(_sd, (), id="sd"),
        pytest.param(_cov, (), id="cov"),
        pytest.param(_pvar, (), id="pooledVar"),  # DPpack warns here: equal sensitivities
        pytest.param(_pvar, PAIRS, id="pooledVar-pairs"),
        pytest.param(_pcov, (), id="pooledCov"),
    ],
)
@pytest.mark.parametrize("mechanism", ["Laplace", "analytic"])
def test_both_gives_both_releases_bounded_first_without_warning(function, samples, mechanism):
    """Issue 11: the unbounded release no longer equals the bounded one for these statistics,
    so 'both' returns both (DPpack warns that they are identical and returns one), drawn
    from one generator, bounded first (DPpack's order)."""
    kwargs = dict(mechanism=mechanism, delta=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = function(*samples, which_sensitivity="both", random_state=SEED, **kwargs)
    assert list(both) == ["Bounded", "Unbounded"]
    rng = np.random.default_rng(SEED)
    assert both["Bounded"] == function(*samples, random_state=rng, **kwargs)
    assert both["Unbounded"] == function(*samples, which_sensitivity="unbounded",
                                         random_state=rng, **kwargs)


@pytest.mark.parametrize("function", [meanDP, varDP, sdDP, covDP, pooledVarDP, pooledCovDP,
                                      histogramDP, tableDP])
def test_both_docs_state_its_cost(function):
    """'both' is meaningful under bounded DP, where it spends up to 3 eps (the unbounded
    release costs up to 2 eps for a replacement); under unbounded DP the bounded release is
    not private. The docstring says so, and never that the pair spends 2 eps."""
    doc = " ".join(function.__doc__.split())
    assert re.search(r"'both'[^.]*up to 3 eps", doc), function.__name__
    assert "not private" in doc, function.__name__
    assert not re.search(r"2 eps together|twice that", doc), function.__name__


def test_histogram_both_bounded_noise_first():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = _hist(which_sensitivity="both", random_state=SEED)
    assert list(both) == ["Bounded", "Unbounded"]
    rng = np.random.default_rng(SEED)
    bounded = _hist(random_state=rng)
    unbounded = _hist(which_sensitivity="unbounded", random_state=rng)
    np.testing.assert_array_equal(both["Bounded"].counts, bounded.counts)
    np.testing.assert_array_equal(both["Unbounded"].counts, unbounded.counts)
    # With a rule the unbounded breaks come from a private n (issue 11), so each version's
    # breaks are those it has alone.
    np.testing.assert_array_equal(both["Bounded"].breaks, bounded.breaks)
    np.testing.assert_array_equal(both["Unbounded"].breaks, unbounded.breaks)


def test_table_both_bounded_noise_first():
    factors = (_cat(["a", "b", "a", "c"]), _cat(["u", "u", "v", "v"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = tableDP(*factors, eps=0.5, which_sensitivity="both", random_state=SEED)
    rng = np.random.default_rng(SEED)
    pd.testing.assert_frame_equal(both["Bounded"], tableDP(*factors, eps=0.5, random_state=rng))
    pd.testing.assert_frame_equal(
        both["Unbounded"],
        tableDP(*factors, eps=0.5, which_sensitivity="unbounded", random_state=rng),
    )


# --------------------------------------------------------------------------------------------
# Laws of the released values
# --------------------------------------------------------------------------------------------


def _draws(call, n=N_CALLS, seed=SEED):
    rng = np.random.default_rng(seed)
    return np.array([call(rng) for _ in range(n)])


def _ks(sample, cdf):
    return stats.kstest(sample, cdf).pvalue


MEAN_DATA = np.linspace(-0.5, 1.2, 40)  # clipped to [0, 1] below
MEAN_TRUE = float(np.mean(np.clip(MEAN_DATA, 0, 1)))
MEAN_SENS = 1 / 40  # (U - L)/n, DPpack's meanDP


def _gaussian_cases(sens):
    return [
        pytest.param(dict(mechanism="Gaussian", delta=0.01, type_DP="pDP", eps=1),
                     stats.norm(scale=gaussian_sigma(1, 0.01, sens, "pDP")), id="Gaussian-pDP"),
        pytest.param(dict(mechanism="Gaussian", delta=0.01, eps=0.9),
                     stats.norm(scale=gaussian_sigma(0.9, 0.01, sens, "aDP")), id="Gaussian-aDP"),
        # type_DP is ignored by 'analytic' (as DPpack does): the analytic aDP calibration is used.
        pytest.param(dict(mechanism="analytic", delta=0.01, eps=0.9, type_DP="pDP"),
                     stats.norm(scale=gaussian_sigma(0.9, 0.01, sens, "aDP", analytic=True)),
                     id="analytic"),
    ]


def _law_cases(sens, other_eps):
    """DPpack's laws of the noise for sensitivity ``sens``: Laplace at eps = 1 and at
    ``other_eps``, then :func:`_gaussian_cases`."""
    return [
        pytest.param(dict(eps=1), stats.laplace(scale=sens), id="Laplace"),
        pytest.param(dict(eps=other_eps), stats.laplace(scale=sens / other_eps),
                     id="Laplace-eps"),
    ] + _gaussian_cases(sens)


@pytest.mark.parametrize("kwargs, law", _law_cases(MEAN_SENS, 0.5))
def test_mean_law(kwargs, law):
    """Bounded DP: DPpack's law (the unbounded release is tested below, issue 11)."""
    out = _draws(lambda rng: meanDP(MEAN_DATA, lower_bound=0, upper_bound=1, random_state=rng,
                                    **kwargs))
    assert _ks(out - MEAN_TRUE, law.cdf) > ALPHA


def test_mean_law_checks_have_power():
    """The same KS check rejects a scale 20 % off, and the unclipped mean as centre."""
    out = _draws(lambda rng: meanDP(MEAN_DATA, 1, 0, 1, random_state=rng))
    assert _ks(out - MEAN_TRUE, stats.laplace(scale=1.2 * MEAN_SENS).cdf) < ALPHA
    assert _ks(out - np.mean(MEAN_DATA), stats.laplace(scale=MEAN_SENS).cdf) < ALPHA


def test_mean_matrix_averages_every_entry():
    """meanDP accepts a matrix (no is.vector check) and uses n = number of entries (DPpack's
    meanDP)."""
    matrix = np.array([[0.2, 0.9, 0.4], [0.1, 0.3, 0.8]])
    out = _draws(lambda rng: meanDP(matrix, 1, 0, 1, random_state=rng))
    assert _ks(out - matrix.mean(), stats.laplace(scale=1 / 6).cdf) > ALPHA
    assert meanDP(matrix, 1, 0, 1, random_state=7) == meanDP(matrix.T, 1, 0, 1, random_state=7)


COV_X1 = np.linspace(-1, 3, 30)
COV_X2 = np.sin(np.arange(30.0)) * 3
COV_TRUE = float(np.cov(np.clip(COV_X1, 0, 2), np.clip(COV_X2, -1, 2))[0, 1])
COV_SENS = 2 * 3 / 30  # (U1 - L1)(U2 - L2)/n, DPpack's covDP


@pytest.mark.parametrize("kwargs, law", _law_cases(COV_SENS, 2))
def test_cov_law(kwargs, law):
    out = _draws(lambda rng: covDP(COV_X1, COV_X2, lower_bound1=0, upper_bound1=2,
                                   lower_bound2=-1, upper_bound2=2, random_state=rng, **kwargs))
    assert _ks(out - COV_TRUE, law.cdf) > ALPHA


def _clamped_pvalues(out, law, true_value, low, high):
    """p-values of draws of clamp(true_value + noise, low, high), noise ~ ``law`` (issue 11:
    post-processing of one draw, where DPpack redraws until > 0).

    The clamped law has point masses law.cdf(low - true) at ``low`` and law.sf(high - true) at
    ``high``: an exact binomial test of the number of draws equal to each, and a KS test of
    the draws strictly inside against the law conditioned on landing inside. DPpack's
    redraws put no mass at ``low``, so the first test rejects them. The ends are compared to
    a relative 1e-12, for ends computed in another order than the code's.
    """
    at_low, at_high = np.isclose(out, low, rtol=1e-12), np.isclose(out, high, rtol=1e-12)
    assert np.all(((out >= low) | at_low) & ((out <= high) | at_high))
    p_low, p_high = law.cdf(low - true_value), law.sf(high - true_value)

    def inside_cdf(t):
        t = np.asarray(t, dtype=float)
        return np.clip((law.cdf(t - true_value) - p_low) / (1 - p_low - p_high), 0, 1)

    return (
        stats.binomtest(int(np.sum(at_low)), out.size, p_low).pvalue,
        stats.binomtest(int(np.sum(at_high)), out.size, p_high).pvalue,
        _ks(out[~at_low & ~at_high], inside_cdf),
    )


def _max_variance(n, width):
    """The largest sample variance of n values in an interval of this width (issue 11)."""
    return width ** 2 * (n / (4 * (n - 1)) if n % 2 == 0 else (n + 1) / (4 * n))


VAR_DATA = np.array([0.2, 0.5, 0.4, 0.45, 0.3, 0.35, 0.6, 0.55, 0.25, 0.5])
VAR_TRUE = float(np.var(VAR_DATA, ddof=1))  # ~0.017, about the noise scale below
VAR_SENS = 1 / 10  # (U - L)^2/n, DPpack's varDP
VAR_TOP = _max_variance(10, 1)  # 10/36


def test_max_variance_is_attained():
    """The clamp's upper end is the largest variance, attained by half the values at each
    bound (odd n: one more at one of them)."""
    for n in (2, 3, 10, 11):
        extreme = np.r_[np.zeros(n // 2), np.ones(n - n // 2)]
        assert np.var(extreme, ddof=1) == pytest.approx(_max_variance(n, 1))
        assert np.var(np.r_[extreme[:-1], 0.5], ddof=1) < _max_variance(n, 1)


@pytest.mark.parametrize(
    "kwargs, law",
    [
        pytest.param(dict(eps=5), stats.laplace(scale=VAR_SENS / 5), id="Laplace"),
        pytest.param(dict(eps=0.9, mechanism="Gaussian", delta=0.1, type_DP="pDP"),
                     stats.norm(scale=gaussian_sigma(0.9, 0.1, VAR_SENS, "pDP")), id="pDP"),
    ],
)
def test_var_law_is_the_clamped_law(kwargs, law):
    """Bounded DP: DPpack's noise, clamped to [0, max variance] (issue 11, item 4)."""
    out = _draws(lambda rng: varDP(VAR_DATA, lower_bound=0, upper_bound=1, random_state=rng,
                                   **kwargs))
    assert min(_clamped_pvalues(out, law, VAR_TRUE, 0.0, VAR_TOP)) > ALPHA


def test_sd_is_the_square_root_of_the_clamped_variance():
    out = _draws(lambda rng: sdDP(VAR_DATA, 5, 0, 1, random_state=rng))
    law = stats.laplace(scale=VAR_SENS / 5)
    assert min(_clamped_pvalues(out ** 2, law, VAR_TRUE, 0.0, VAR_TOP)) > ALPHA
    assert sdDP(VAR_DATA, 5, 0, 1, random_state=3) == math.sqrt(
        varDP(VAR_DATA, 5, 0, 1, random_state=3))


@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian"])
def test_var_of_constant_data_is_zero_half_the_time(mechanism):
    """True variance 0, the worst case of DPpack's redraws: a single draw, clamped, so the law
    below 0 is a point mass: half the releases are exactly 0 (binomial test); the others
    follow |noise| below the top (a few are clamped to it)."""
    kwargs = dict(mechanism=mechanism, delta=0.01, eps=0.5)
    out = _draws(lambda rng: varDP(np.full(20, 0.3), lower_bound=0, upper_bound=1,
                                   random_state=rng, **kwargs))
    scale = 1 / 20 / 0.5 if mechanism == "Laplace" else gaussian_sigma(0.5, 0.01, 1 / 20)
    law = stats.laplace(scale=scale) if mechanism == "Laplace" else stats.norm(scale=scale)
    assert stats.binomtest(int(np.sum(out == 0)), out.size, 0.5).pvalue > ALPHA
    assert min(_clamped_pvalues(out, law, 0.0, 0.0, _max_variance(20, 1))) > ALPHA
    sd = _draws(lambda rng: sdDP(np.full(20, 0.3), lower_bound=0, upper_bound=1,
                                 random_state=rng, **kwargs))
    np.testing.assert_array_equal(sd, np.sqrt(out))  # same seed, same draws


def test_pooled_var_law():
    true = 19.75  # DPpack's pooledVarDP reference
    sens = 53.3333333333333333  # bounded, exact n_max
    top = 400 * (6 / 5 + 1 / 2 + 1 / 2) / 6  # sum_j floor(n_j/2) ceil(n_j/2)/n_j (U-L)^2/(N-J)
    assert 0.003 < stats.laplace(scale=sens / 2).sf(top - true) < 0.005  # some draws reach it
    out = _draws(lambda rng: pooledVarDP(*SAMPLES, eps=2, lower_bound=-10, upper_bound=10,
                                         random_state=rng))
    assert min(_clamped_pvalues(out, stats.laplace(scale=sens / 2), true, 0.0, top)) > ALPHA


@pytest.mark.parametrize(
    "kwargs, scale",
    [
        pytest.param(dict(eps=1), 800 / 9, id="bounded"),
        pytest.param(dict(eps=1, approx_n_max=True), 400 / 3, id="bounded-approx"),
    ],
)
def test_pooled_cov_law(kwargs, scale):
    out = _draws(lambda rng: pooledCovDP(*COV_SAMPLES, lower_bound1=-10, upper_bound1=10,
                                         lower_bound2=-10, upper_bound2=10, random_state=rng,
                                         **kwargs))
    assert _ks(out + 1.0, stats.laplace(scale=scale).cdf) > ALPHA  # true value -1 (pooledCovDP)


def test_pooled_cov_clips_each_column_to_its_bounds():
    samples = (np.array([[5.0, -5.0], [0.0, 0.5], [1.0, 0.2]]), np.array([[0.5, 9.0], [0.2, 0.1]]))
    clipped = [np.clip(s, [0, -1], [1, 1]) for s in samples]
    true = sum((len(s) - 1) * np.cov(s.T)[0, 1] for s in clipped) / 3
    sens = 2 * (1 - 1 / 3) / 3  # R (1 - 1/n_max)/(N - J), R = 1 * 2
    out = _draws(lambda rng: pooledCovDP(*samples, eps=1, lower_bound1=0, upper_bound1=1,
                                         lower_bound2=-1, upper_bound2=1, random_state=rng))
    assert _ks(out - true, stats.laplace(scale=sens).cdf) > ALPHA


def _discrete_normal(eps, delta, sensitivity, coordinates, type_DP="aDP", analytic=False):
    """The law of the Gaussian mechanism's noise as drawn (issue 12): g Z with Z the discrete
    Gaussian N_Z(0, s^2) of ``mechanisms.discrete_gaussian_parameters`` for DPpack's sigma; a
    normal law of standard deviation g s (the grid g is below s / 2^12, far beyond what a
    test of a few thousand draws resolves)."""
    sigma = gaussian_sigma(eps, delta, sensitivity, type_DP, analytic)
    k, sigma2 = discrete_gaussian_parameters(sigma, sensitivity, eps=eps, delta=delta,
                                             type_DP=type_DP, coordinates=coordinates)
    return stats.norm(scale=math.ldexp(math.sqrt(sigma2), k))


def _integer_law_pvalue(noise, law):
    """Chi-square p-value of integer noise against the law of an integer Z symmetric about 0
    (``law.pmf`` on the integers, e.g. scipy's dlaplace or :func:`_discrete_gaussian`)."""
    noise = np.asarray(noise).ravel()
    assert np.array_equal(noise, np.round(noise))
    ks = np.arange(-60, 61)
    probs = np.asarray(law.pmf(ks), dtype=np.float64)
    beyond = max(1.0 - probs.sum(), 0.0) / 2  # symmetric: half the rest on each side
    probs[0] += beyond
    probs[-1] += beyond
    observed = np.array([(np.clip(noise, -60, 60) == k).sum() for k in ks])
    expected = probs * noise.size
    # Merge the tails into cells of expected count >= 5.
    keep = expected >= 5
    low, high = ks < 0, ks > 0
    obs = np.concatenate([[observed[~keep & low].sum()], observed[keep],
                          [observed[~keep & high].sum()]])
    exp = np.concatenate([[expected[~keep & low].sum()], expected[keep],
                          [expected[~keep & high].sum()]])
    cells = exp > 0
    return stats.chisquare(obs[cells], exp[cells]).pvalue


class _discrete_gaussian:
    """N_Z(0, sigma2): P(Z = z) proportional to exp(-z^2 / (2 sigma2)) on the integers."""

    def __init__(self, sigma2):
        self.sigma2 = float(sigma2)
        support = np.arange(-int(60 + 40 * math.sqrt(self.sigma2)),
                            int(60 + 40 * math.sqrt(self.sigma2)) + 1)
        self.total = np.exp(-support.astype(np.float64) ** 2 / (2 * self.sigma2)).sum()

    def pmf(self, ks):
        ks = np.asarray(ks, dtype=np.float64)
        return np.exp(-ks ** 2 / (2 * self.sigma2)) / self.total


def _count_gaussian(eps, delta, sensitivity, coordinates, type_DP="aDP", analytic=False):
    """The law of a noisy count's Gaussian noise as drawn (issue 28): the discrete Gaussian
    on the integers, N_Z(0, s^2), s^2 from ``discrete_gaussian_parameters`` with
    ``integers=True`` for DPpack's sigma; s^2 is sigma^2 raised by at most a few percent."""
    sigma = gaussian_sigma(eps, delta, sensitivity, type_DP, analytic)
    k, sigma2 = discrete_gaussian_parameters(sigma, sensitivity, eps=eps, delta=delta,
                                             type_DP=type_DP, coordinates=coordinates,
                                             integers=True)
    assert k == 0 and sigma ** 2 <= sigma2 <= 1.2 * sigma ** 2 + 1
    return _discrete_gaussian(sigma2)


HIST_BREAKS = np.linspace(0, 1, 11)


@pytest.mark.parametrize(
    "kwargs, law",
    [
        pytest.param(dict(eps=0.5), stats.dlaplace(0.5 / 2), id="Laplace-bounded"),
        pytest.param(dict(eps=0.5, which_sensitivity="unbounded"), stats.dlaplace(0.5),
                     id="Laplace-unbounded"),
        pytest.param(dict(eps=1.0), stats.dlaplace(1.0 / 2), id="Laplace-bounded-eps1"),
        pytest.param(dict(eps=5.0), stats.dlaplace(5.0 / 2), id="Laplace-bounded-eps5"),
        pytest.param(dict(eps=5.0, which_sensitivity="unbounded"), stats.dlaplace(5.0),
                     id="Laplace-unbounded-eps5"),
        pytest.param(dict(eps=0.9, mechanism="Gaussian", delta=0.01),
                     _count_gaussian(0.9, 0.01, math.sqrt(2), 2), id="Gaussian-bounded"),
        pytest.param(dict(eps=0.9, mechanism="analytic", delta=0.01,
                          which_sensitivity="unbounded"),
                     _count_gaussian(0.9, 0.01, 1, 1, analytic=True),
                     id="analytic-unbounded"),
    ],
)
def test_histogram_law(kwargs, law):
    """Fixed breaks spanning the bounds (no extension): noisy minus true counts is the integer
    noise Z, discrete Laplace with parameter eps / Delta (scipy's dlaplace) or the discrete
    Gaussian (issue 28). Chi-square at ALPHA per case (false failure rate ALPHA each)."""
    true = histogramDataAccess(X, HIST_BREAKS, "Laplace")["True.Values"].counts
    out = _draws(lambda rng: histogramDP(X, lower_bound=0, upper_bound=1, breaks=HIST_BREAKS,
                                         allow_negative=True, random_state=rng,
                                         **kwargs).counts, n=400)
    assert _integer_law_pvalue(out - true, law) > ALPHA


def test_histogram_law_check_has_power():
    true = histogramDataAccess(X, HIST_BREAKS, "Laplace")["True.Values"].counts
    out = _draws(lambda rng: histogramDP(X, 0.5, 0, 1, breaks=HIST_BREAKS, allow_negative=True,
                                         random_state=rng).counts, n=400)
    assert _integer_law_pvalue(out - true, stats.dlaplace(0.5 / 2 / 1.15)) < ALPHA
    # and the law of today's noise rounded (continuous Laplace, then rounded) is rejected
    # at eps 5, where the two differ most
    out = _draws(lambda rng: histogramDP(X, 5.0, 0, 1, breaks=HIST_BREAKS, allow_negative=True,
                                         random_state=rng).counts, n=400)
    rounded = stats.rv_discrete(values=(np.arange(-60, 61), np.diff(
        stats.laplace(scale=2 / 5.0).cdf(np.arange(-60.5, 61.0)))))
    assert _integer_law_pvalue(out - true, rounded) < ALPHA


def test_table_law():
    factors = (_cat(["a", "b", "a", "c", "c", "c"]), _cat(["u", "u", "v", "v", "w", "u"]))
    true = dppack.tableDataAccess(*factors)["True.Values"].to_numpy()
    out = _draws(lambda rng: tableDP(*factors, eps=0.5, allow_negative=True,
                                     random_state=rng).to_numpy(), n=500)
    assert _integer_law_pvalue(out - true, stats.dlaplace(0.5 / 2)) > ALPHA
    gauss = _draws(lambda rng: tableDP(*factors, eps=0.5, mechanism="Gaussian", delta=0.05,
                                       type_DP="pDP", which_sensitivity="unbounded",
                                       allow_negative=True, random_state=rng).to_numpy(), n=500)
    law = _count_gaussian(0.5, 0.05, 1, 1, "pDP")
    assert _integer_law_pvalue(gauss - true, law) > ALPHA


# --------------------------------------------------------------------------------------------
# Quantiles
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, quant, eps, lower, upper",
    [
        pytest.param([1, 1, -2, 8, -6], 0.25, 1, -10, 10, id="reference-with-ties"),
        pytest.param([-2.5, 0.3, 1.1, 1.2, 2.9, 0.0, -1.0], 0.9, 0.5, -3, 2, id="clipped"),
        pytest.param(np.linspace(-1, 1, 9), 0.5, 2, -2, 2, id="median"),
    ],
)
def test_quantile_interval_frequencies(x, quant, eps, lower, upper):
    """Chi-square of the released interval against the exact probabilities; zero-width
    intervals (ties, clipped data) never chosen; the position uniform within the interval
    (KS); every output within the bounds."""
    j, edges, probs = _quantile_grid_law(x, quant, eps, lower, upper)
    out = _draws(lambda rng: quantileDP(x, quant, eps, lower, upper, random_state=rng))
    assert np.all((out >= lower) & (out <= upper))
    index = _interval_index(out, j, edges)
    observed = np.bincount(index, minlength=probs.size)
    assert observed.size == probs.size and observed[probs == 0].sum() == 0
    cells = probs > 0
    assert stats.chisquare(observed[cells], probs[cells] * out.size).pvalue > ALPHA
    # Uniform position within the chosen interval.
    left = np.array([float(edges[i]) for i in index])
    right = np.array([float(edges[i + 1]) for i in index])
    assert _ks((np.ldexp(out, -j) - left) / (right - left), stats.uniform.cdf) > ALPHA


def test_quantile_frequency_check_has_power():
    """The chi-square check rejects the probabilities with eps off by 30 %."""
    x = [1, 1, -2, 8, -6]
    j, edges, probs = _quantile_grid_law(x, 0.25, 1.3, -10, 10)
    out = _draws(lambda rng: quantileDP(x, 0.25, 1, -10, 10, random_state=rng))
    observed = np.bincount(_interval_index(out, j, edges), minlength=probs.size)
    cells = probs > 0
    assert stats.chisquare(observed[cells], probs[cells] * out.size).pvalue < ALPHA


def test_median_is_the_half_quantile():
    for seed in range(5):
        assert _median(random_state=seed) == _quantile(quant=0.5, random_state=seed)


def test_quantile_outputs_on_the_grid():
    """Every release is a point of the grid 2^j (j = -55 for the bounds +-10): outputs near
    0 are exact doubles with no bit below 2^-55, which a float uniform within the interval
    (DPpack's draw) would have almost surely."""
    x = np.random.default_rng(3).normal(0, 0.01, 50)
    out = _draws(lambda rng: quantileDP(x, 0.5, 2.0, -10, 10, random_state=rng), n=300)
    scaled = np.ldexp(out, 55)
    assert np.all(scaled == np.round(scaled))
    assert np.all(np.abs(out) < 1)  # small values: the check above has teeth


def test_quantile_window_with_unions_has_the_exact_law():
    """The rejection step of the unions of intervals beyond the window: with a window of
    five candidates (forced), most draws fall in a union and are thinned; the released
    intervals still follow the exact law of the mechanism on every interval (chi-square
    at ALPHA), and the unions were drawn (and kept) often."""
    x = np.random.default_rng(5).uniform(-1, 1, 30)
    quant, eps = 0.3, 0.5
    j, edges, probs = _quantile_grid_law(x, quant, eps, -1, 1)
    rng = np.random.default_rng(SEED)
    values = np.asarray(x, dtype=np.float64)
    out = np.array([_QUANTILE.exact_quantile(values, quant, eps, -1.0, 1.0, rng, half=2.0)
                    for _ in range(N_CALLS)])
    index = _interval_index(out, j, edges)
    observed = np.bincount(index, minlength=probs.size)
    far = np.abs(np.arange(probs.size) - quant * x.size) > 3  # only reachable via a union
    assert probs[far].sum() > 0.2 and observed[far].sum() > 0.15 * N_CALLS
    assert stats.chisquare(observed, probs * out.size).pvalue > ALPHA


@pytest.mark.parametrize("eps", [1e-4, 0.05, 1, 40])
@pytest.mark.parametrize("data", ["continuous", "ties", "constant"])
def test_quantile_window_makes_unions_negligible(data, eps):
    """Speed without approximation: the candidates passed to the mechanism are a window
    around quant n and at most two unions, each of weight at most e^-50 of the window's
    largest (or every interval when no window suffices: ties, small eps n)."""
    rng = np.random.default_rng(11)
    x = {
        "continuous": rng.normal(size=20_000),
        "ties": np.round(rng.normal(size=20_000), 1),
        "constant": np.zeros(20_000),
    }[data]
    for quant in (0.0, 0.3, 0.5, 1.0):
        j, first, last = _QUANTILE._quantile_grid(-2.0, 2.0)
        utilities, widths, starts, unions = _QUANTILE._quantile_candidates(x, quant, eps, j,
                                                                           first, last)
        assert widths.sum() == last - first  # the candidates cover every grid point once
        np.testing.assert_array_equal(starts[1:], starts[:-1] + widths[:-1])
        log_weight = 0.5 * eps * utilities + np.log(np.maximum(widths, 1e-300))
        inside = np.delete(log_weight, unions)
        assert all(log_weight[i] < inside.max() - 50 or widths[i] == 0 for i in unions)
        if data == "continuous" and eps >= 1:  # a window, not every interval (at quant 0
            # and 1 it grows past the data clipped to a bound: 2.3 % of them, tied)
            assert utilities.size < (1000 if 0 < quant < 1 else x.size / 4)


# --------------------------------------------------------------------------------------------
# Histogram: bins, extension, post-processing
# --------------------------------------------------------------------------------------------


def test_histogram_extension_reference():
    """DPpack's histogramDP reference: x ~ N(3, 2), n = 100, L = -3, U = 9: DPpack's breaks -2..8
    (R's
    hist() of the data), given as a vector, become -3..9."""
    x = np.random.default_rng(0).normal(3, 2, 100)
    true = histogramDataAccess(np.clip(x, -3, 9), "Sturges", "Laplace")["True.Values"]
    np.testing.assert_array_equal(true.breaks, np.arange(-2.0, 9.0))  # precondition
    out = histogramDP(x, 1, -3, 9, breaks=true.breaks, random_state=SEED)
    np.testing.assert_array_equal(out.breaks, np.arange(-3.0, 10.0))
    np.testing.assert_array_equal(out.mids, np.arange(-2.5, 9.0))
    assert isinstance(out, rcompat.Histogram)
    assert out.counts.size == 12 and out.equidist and out.xname == "x"


def test_histogram_default_breaks_are_pretty_bounds():
    """The same call with the default "Sturges": k = ceiling(log2(100) + 1) = 8 cells asked
    of pretty(c(-3, 9)), which gives -4..10 by 2 whatever the data."""
    x = np.random.default_rng(0).normal(3, 2, 100)
    out = histogramDP(x, 1, -3, 9, random_state=SEED)
    np.testing.assert_array_equal(out.breaks, rcompat.pretty(-3, 9, n=8, min_n=1))
    np.testing.assert_array_equal(out.breaks, np.arange(-4.0, 11.0, 2.0))
    np.testing.assert_array_equal(out.mids, np.arange(-3.0, 10.0, 2.0))


def _dppack_extension(breaks, mids, counts, lower, upper):
    """DPpack's histogramDP loops, one bin at a time."""
    breaks, mids, counts = list(breaks), list(mids), list(counts)
    width = breaks[1] - breaks[0]
    while all(lower < b for b in breaks):
        first = breaks[0]
        breaks.insert(0, first - width)
        mids.insert(0, first - width / 2)
        counts.insert(0, 0)
    while all(b < upper for b in breaks):
        last = breaks[-1]
        breaks.append(last + width)
        mids.append(last + width / 2)
        counts.append(0)
    return np.array(breaks), np.array(mids), np.array(counts)


@pytest.mark.parametrize(
    "x, lower, upper",
    [
        pytest.param([0.31, 0.42, 0.55, 0.38, 0.6], -1.0, 2.05, id="tenths"),
        pytest.param([3.3, 3.7, 4.1, 3.9], 0.1, 13.3, id="bounds-off-grid"),
        pytest.param(np.linspace(0.2, 15, 30), 0.2, 15, id="bounds-0.2-15"),
        pytest.param([5.0, 5.5, 6.0, 5.2], 5.0, 6.0, id="no-extension"),
    ],
)
def test_histogram_extension_matches_dppack_loops_exactly(x, lower, upper):
    """R's breaks of the data (DPpack's), given as a vector, are extended as DPpack does."""
    true = histogramDataAccess(np.clip(x, lower, upper), "Sturges", "Laplace")["True.Values"]
    breaks, mids, counts = _dppack_extension(true.breaks, true.mids, true.counts, lower, upper)
    out = histogramDP(x, 1, lower, upper, breaks=true.breaks, allow_negative=True,
                      random_state=SEED)
    np.testing.assert_array_equal(out.breaks, breaks)  # bit for bit
    np.testing.assert_array_equal(out.mids, mids)
    assert out.breaks[0] <= lower and out.breaks[-1] >= upper
    assert out.counts.size == counts.size


def test_histogram_extension_has_a_limit():
    """Ours: tiny cells with wide bounds would need ~10^12 empty cells."""
    with untouched_generator(SEED) as rng, raises_starting(
            "Extending the histogram to the bounds would add more than 10000000 empty bins"):
        histogramDP([0.5, 0.6], 1, -1000, 1000, breaks=[0, 1e-9, 2e-9], random_state=rng)


def test_histogram_counts_of_clipped_data():
    """hist() runs on the clipped data: values beyond the bounds land in the edge bins."""
    x = np.array([-5.0, 0.05, 0.15, 0.15, 0.95, 7.0])
    # eps = 50: Laplace scale 0.04, so the rounded noise is 0 (P(|noise| > 0.5) ~ 4e-6 a bin).
    out = histogramDP(x, 50, 0, 1, breaks=HIST_BREAKS, random_state=SEED)
    np.testing.assert_array_equal(out.counts, [2, 2, 0, 0, 0, 0, 0, 0, 0, 2])


def test_histogram_rounding_and_no_negatives():
    out = _draws(lambda rng: histogramDP(X, 0.2, 0, 1, breaks=HIST_BREAKS,
                                         random_state=rng).counts, n=200)
    assert out.min() == 0  # negatives set to 0 (and some were negative)
    np.testing.assert_array_equal(out, np.round(out))
    assert not np.signbit(out).any()  # no -0.0
    negative = _draws(lambda rng: histogramDP(X, 0.2, 0, 1, breaks=HIST_BREAKS,
                                              allow_negative=True, random_state=rng).counts,
                      n=200)
    assert negative.min() < 0


@pytest.mark.parametrize("allow_negative", [False, True])
def test_histogram_normalize_gives_proportions(allow_negative):
    for seed in range(20):
        out = histogramDP(X, 1, 0, 1, normalize=True, allow_negative=allow_negative,
                          random_state=seed)
        assert out.counts.sum() == pytest.approx(1.0, abs=1e-12)
        if not allow_negative:
            assert out.counts.min() >= 0


def test_histogram_normalize_is_negatives_then_proportions():
    """DPpack's histogramDP order: negatives to 0 first, then divide by the sum of what is left."""
    plain = histogramDP(X, 0.3, 0, 1, breaks=HIST_BREAKS, normalize=True, random_state=5)
    raw = histogramDP(X, 0.3, 0, 1, breaks=HIST_BREAKS, normalize=True, allow_negative=True,
                      random_state=5)
    # Same seed, same noise z: with negatives zeroed first, the positive cells are
    # z / sum(z[z > 0]); normalising first would give z / sum(z) and not sum to 1.
    positive = raw.counts > 0
    np.testing.assert_allclose(plain.counts[positive],
                               raw.counts[positive] / raw.counts[positive].sum(), rtol=1e-12)
    assert np.all(plain.counts[~positive] == 0)


# --------------------------------------------------------------------------------------------
# Histogram: breaks that do not depend on the data (issue 11, items 1-3)
# --------------------------------------------------------------------------------------------

_STATS = importlib.import_module("dppack.stats")  # `stats` is scipy's here
_STATS_MODULES = [importlib.import_module(f"dppack.stats.{name}") for name in
                  ("_release", "_moments", "_histogram", "_table", "_pooled", "_quantile")]
_RELEASE, _, _HISTOGRAM, _TABLE, _, _QUANTILE = _STATS_MODULES


def _patch_stats(monkeypatch, name, value):
    """``name`` replaced by ``value`` in every module of dppack.stats that binds it (each
    imports the shared helpers of ``dppack.stats._release`` by name)."""
    for module in _STATS_MODULES:
        if hasattr(module, name):
            monkeypatch.setattr(module, name, value)


class _Recorder:
    """Stands in for the mechanisms inside dppack.stats (and for its exact noise of counts,
    ``_noisy_counts``): records every call and returns the true values unchanged (no noise),
    so that counts and breaks can be compared exactly. The mechanisms must be called with
    ``accountant=UNCHARGED`` (the statistic charges the whole release once)."""

    def __init__(self):
        self.calls = []

    def laplace(self, true_values, eps, sensitivities, random_state=None, accountant=None):
        assert accountant is dppack.accounting.UNCHARGED
        self.calls.append(dict(values=np.copy(true_values), eps=eps, delta=None,
                               sensitivity=sensitivities))
        return np.copy(true_values)

    def gaussian(self, true_values, eps, delta, sensitivities, type_DP="aDP", analytic=False,
                 random_state=None, accountant=None):
        assert accountant is dppack.accounting.UNCHARGED
        self.calls.append(dict(values=np.copy(true_values), eps=eps, delta=delta,
                               sensitivity=sensitivities, type_DP=type_DP, analytic=analytic))
        return np.copy(true_values)

    def exact(self, values, eps, sensitivity, mechanism, delta, type_DP, rng):
        """The mechanisms' exact entry point (``mechanisms._additive.release_exact``, exact
        rationals in): recorded as the calls above, the values as floats."""
        floats = [float(_exact_sums.to_fraction(v)) for v in values]
        self.calls.append(dict(values=np.array(floats),
                               eps=eps, delta=None if mechanism == "Laplace" else delta,
                               sensitivity=sensitivity, type_DP=type_DP,
                               analytic=mechanism == "analytic"))
        return floats

    def counts(self, counts, eps, sensitivity, mechanism, delta, type_DP, rng, changed):
        self.calls.append(dict(values=np.copy(counts), eps=eps,
                               delta=None if mechanism == "Laplace" else delta,
                               sensitivity=sensitivity, type_DP=type_DP,
                               analytic=mechanism == "analytic", changed=changed))
        return np.array(counts, dtype=np.float64)


@pytest.fixture
def no_noise(monkeypatch):
    recorder = _Recorder()
    _patch_stats(monkeypatch, "LaplaceMechanism", recorder.laplace)
    _patch_stats(monkeypatch, "GaussianMechanism", recorder.gaussian)
    _patch_stats(monkeypatch, "noisy_counts", recorder.counts)
    _patch_stats(monkeypatch, "release_exact", recorder.exact)
    return recorder


# Neighbouring datasets in [0, 1] whose R hist() breaks differ: one record changed (bounded
# DP) or one added (unbounded DP) widens the range of the data from [0.3, 0.7] to [0.3, 0.95].
NEIGHBOUR = np.linspace(0.3, 0.7, 20)
CHANGED = np.concatenate([NEIGHBOUR[:-1], [0.95]])
ADDED = np.concatenate([NEIGHBOUR, [0.95]])

_BREAKS_KINDS = [
    pytest.param("Sturges", id="Sturges"),
    pytest.param("Scott", id="Scott"),
    pytest.param("FD", id="FD"),
    pytest.param(7, id="number"),
    # R's hist() calls a function with the data: these breaks follow the data's range there.
    pytest.param(lambda v: np.linspace(np.min(v), np.max(v), 6), id="function-vector"),
    pytest.param(lambda v: 3 if np.ptp(v) < 0.5 else 9, id="function-number"),
]


@pytest.mark.parametrize("breaks", _BREAKS_KINDS)
@pytest.mark.parametrize("which, neighbour", [("bounded", CHANGED), ("unbounded", ADDED)])
def test_histogram_breaks_of_neighbours_are_identical(no_noise, breaks, which, neighbour):
    """Deterministic leak check: R's breaks of the two datasets differ (DPpack's releases
    differ in the number and width of their cells, eps = infinity); ours are identical, and
    the counts differ by no more than the sensitivity. Unbounded rules use the released n
    (here without noise: 20 and 21 give the same number of cells)."""
    assert not np.array_equal(rcompat._hist.hist_breaks(NEIGHBOUR, breaks),
                              rcompat._hist.hist_breaks(neighbour, breaks))  # DPpack's leak
    one = histogramDP(NEIGHBOUR, 1, 0, 1, breaks=breaks, which_sensitivity=which)
    two = histogramDP(neighbour, 1, 0, 1, breaks=breaks, which_sensitivity=which)
    np.testing.assert_array_equal(one.breaks, two.breaks)
    np.testing.assert_array_equal(one.mids, two.mids)
    assert one.breaks[0] <= 0 and one.breaks[-1] >= 1
    assert np.abs(one.counts - two.counts).sum() <= (2 if which == "bounded" else 1)


def test_histogram_breaks_function_sees_only_the_bounds():
    seen = []

    def breaks(argument):
        seen.append(np.copy(argument))
        return 4

    both = histogramDP(X, 1, 0, 1, breaks=breaks, which_sensitivity="both",
                       random_state=SEED)
    assert len(seen) == 1  # once, before any noise
    np.testing.assert_array_equal(seen[0], [0.0, 1.0])
    np.testing.assert_array_equal(both["Bounded"].breaks, rcompat.pretty(0, 1, n=4, min_n=1))
    np.testing.assert_array_equal(both["Unbounded"].breaks, both["Bounded"].breaks)


@pytest.mark.parametrize(
    "rule, n, cells",
    [
        ("sturges", 1, 1), ("sturges", 100, 8), ("sturges", 128, 8), ("sturges", 129, 9),
        ("scott", 1, 1), ("scott", 1000, 10), ("scott", 8, 2),  # sqrt(12) n^(1/3) / 3.5
        ("fd", 1, 1), ("fd", 27, 3), ("fd", 28, 4), ("freedman-diaconis", 1000, 10),
        ("fd", 10**15, 10**5), ("fd", 10**15 + 1, 10**5 + 1),  # float cbrt: 100000.0
        ("fd", 2**62, 1664511), ("scott", 2**62, 1647439),  # beyond R's cap of 1e6
    ],
)
def test_histogram_rule_cells_from_n_only(rule, n, cells):
    """R's rules for n values spread uniformly over the bounds (sd (U - L)/sqrt(12), IQR
    (U - L)/2): Sturges ceiling(log2 n + 1), Scott ceiling(sqrt(12) n^(1/3)/3.5), FD the
    smallest k with k^3 >= n."""
    assert _HISTOGRAM._rule_cells(rule, n) == cells


@pytest.mark.parametrize("rule", ["Sturges", "Scott", "fd"])
def test_histogram_rule_breaks_are_pretty_bounds(rule):
    x = np.random.default_rng(3).uniform(2, 3, 1000)  # n = 1000: 11 (Sturges), 10 cells
    cells = 11 if rule == "Sturges" else 10
    out = histogramDP(x, 1, -1, 5, breaks=rule, random_state=SEED)
    np.testing.assert_array_equal(out.breaks, rcompat.pretty(-1, 5, n=cells, min_n=1))


@pytest.mark.parametrize(
    "x",
    [X, np.zeros(5), np.ones(5), np.array([-5.0, 7.0]), np.array([0.3, 0.45])],
    ids=["X", "at-lower", "at-upper", "outside", "inside-breaks"],
)
def test_histogram_user_breaks_not_spanning_work_whatever_the_data(no_noise, x):
    """Break points inside the bounds are extended to them before counting (DPpack's
    extension, which uses the breaks and bounds only): R's "some 'x' not counted" is gone."""
    out = histogramDP(x, 1, 0, 1, breaks=[0.2, 0.4, 0.6])
    given = np.array([0.2, 0.4, 0.6])
    breaks, mids, _ = _dppack_extension(given, (given[1:] + given[:-1]) / 2, [0, 0], 0, 1)
    np.testing.assert_array_equal(out.breaks, breaks)
    np.testing.assert_array_equal(out.mids, mids)
    clipped = np.clip(x, 0, 1)
    np.testing.assert_array_equal(out.counts, rcompat.hist(clipped, breaks).counts)


def test_histogram_user_breaks_beyond_the_bounds_are_kept(no_noise):
    out = histogramDP(X, 1, 0.25, 0.75, breaks=np.linspace(0, 1, 5))
    np.testing.assert_array_equal(out.breaks, np.linspace(0, 1, 5))
    # X clipped to [0.25, 0.75]: 0.25 three times (first cell, closed), 0.75 twice
    np.testing.assert_array_equal(out.counts, [3, 3, 4, 0])


def test_histogram_fuzz_uses_public_values(no_noise):
    """Item 3: with 3 breaks R's fuzz is 1e-7 times the data's range, so changing one record
    (0 -> 1.1) shrinks the fuzz and moves another record (1 + 5e-8) across the break at 1:
    the counts move by 4 (l1), twice the sensitivity. The fuzz 1e-7 times the span of the
    breaks moves nothing but the changed record."""
    breaks = [0.0, 1.0, 2.0]
    one = np.array([0.0, 1 + 5e-8, 1.2, 1.3])
    two = np.array([1.1, 1 + 5e-8, 1.2, 1.3])
    np.testing.assert_array_equal(rcompat.hist(one, breaks).counts, [2, 2])  # R
    np.testing.assert_array_equal(rcompat.hist(two, breaks).counts, [0, 4])  # R: l1 4
    np.testing.assert_array_equal(histogramDP(one, 1, 0, 2, breaks=breaks).counts, [2, 2])
    np.testing.assert_array_equal(histogramDP(two, 1, 0, 2, breaks=breaks).counts, [1, 3])


def test_histogram_counting_after_extension_is_right_closed(no_noise):
    """Counting after the extension: a value on a given first break above the lower bound
    falls in the added cell below it (right-closed)."""
    out = histogramDP([1.0, 1.0, 2.0], 1, 0, 5, breaks=[1.0, 3.0, 5.0])
    np.testing.assert_array_equal(out.breaks, [-1.0, 1.0, 3.0, 5.0])
    np.testing.assert_array_equal(out.counts, [2, 1, 0])  # DPpack: [0, 3, 0]
    out = histogramDP([0.0, 1.0, 1.0, 2.0], 1, -1, 5, breaks=[1.0, 3.0, 5.0])
    np.testing.assert_array_equal(out.counts, [3, 1, 0])  # -1 <= 0 <= 1: first cell, closed


@pytest.mark.parametrize(
    "kwargs, split",
    [
        pytest.param(dict(eps=0.7), True, id="Laplace-rule"),
        pytest.param(dict(eps=0.9, mechanism="Gaussian", delta=0.01, type_DP="pDP"), True,
                     id="Gaussian-rule"),
        pytest.param(dict(eps=0.9, mechanism="analytic", delta=0.01, type_DP="pDP"), True,
                     id="analytic-rule"),  # type.DP is ignored by 'analytic', as in DPpack
        pytest.param(dict(eps=0.7, breaks=5), False, id="number"),
        pytest.param(dict(eps=0.7, breaks=HIST_BREAKS), False, id="vector"),
        pytest.param(dict(eps=0.7, breaks=lambda b: 5), False, id="function"),
    ],
)
def test_histogram_unbounded_budget_split(no_noise, kwargs, split):
    """Unbounded DP: a rule spends 1/20 of eps (and delta) on n (sensitivity 1) and the rest
    on the counts (sensitivity 1); the parts add up to no more than the whole. Breaks that
    need no n leave the whole budget to the counts."""
    eps, delta = kwargs["eps"], kwargs.get("delta")
    histogramDP(X, lower_bound=0, upper_bound=1, which_sensitivity="unbounded", **kwargs)
    calls = no_noise.calls
    assert all(call["sensitivity"] == 1 for call in calls)
    if not split:
        assert len(calls) == 1 and calls[0]["eps"] == eps and calls[0]["delta"] == delta
        return
    n_call, counts_call = calls
    assert n_call["values"] == X.size
    assert n_call["eps"] == pytest.approx(eps / 20, rel=1e-15)
    assert counts_call["eps"] == pytest.approx(eps * 19 / 20, rel=1e-15)
    assert Fraction(n_call["eps"]) + Fraction(counts_call["eps"]) <= Fraction(eps)
    if delta is not None:
        assert n_call["delta"] == pytest.approx(delta / 20, rel=1e-15)
        assert counts_call["delta"] == pytest.approx(delta * 19 / 20, rel=1e-15)
        assert Fraction(n_call["delta"]) + Fraction(counts_call["delta"]) <= Fraction(delta)
        assert n_call["analytic"] == counts_call["analytic"] == (
            kwargs["mechanism"] == "analytic")


def test_histogram_both_draws_bounded_counts_then_n_then_unbounded_counts(no_noise):
    histogramDP(X, 0.5, 0, 1, which_sensitivity="both")
    got = [(call["values"].size, call["eps"], call["sensitivity"]) for call in no_noise.calls]
    cells = rcompat.pretty(0, 1, n=5, min_n=1).size - 1
    assert got == [(cells, 0.5, 2.0), (1, 0.5 / 20, 1.0), (cells, 0.5 - 0.5 / 20, 1.0)]


def test_histogram_bounded_rule_uses_the_public_n(no_noise):
    histogramDP(X, 0.5, 0, 1)
    assert len(no_noise.calls) == 1 and no_noise.calls[0]["eps"] == 0.5


def _noisy_n(monkeypatch, draw):
    """histogramDP's unbounded rule draws its private n first, then the counts, each through
    ``stats._noisy_counts`` (issue 28: integer noise); the n drawn is ``draw``, the counts
    get no noise."""
    calls = []

    def counts(values, eps, sensitivity, mechanism, delta, type_DP, rng, changed):
        calls.append(values.size)
        if len(calls) % 2 == 1:  # the n of each release, then its counts
            assert values.size == 1 and sensitivity == 1.0 and changed == 1
            return np.array([draw])
        return np.array(values, dtype=np.float64)

    _patch_stats(monkeypatch, "noisy_counts", counts)


def test_histogram_unbounded_breaks_follow_the_noisy_n(monkeypatch):
    """The breaks are post-processing of the released n: a noisy n of 1000 gives Sturges'
    11 cells whatever the data (here 10 values)."""
    _noisy_n(monkeypatch, 1000.0)
    out = histogramDP(X, 1, 0, 1, which_sensitivity="unbounded")
    np.testing.assert_array_equal(out.breaks, rcompat.pretty(0, 1, n=11, min_n=1))
    out = histogramDP(X, 1, 0, 1, breaks="FD", which_sensitivity="unbounded")
    np.testing.assert_array_equal(out.breaks, rcompat.pretty(0, 1, n=10, min_n=1))


@pytest.mark.parametrize("draw, cells", [(-np.inf, 1), (-3.0, 1), (np.inf, 63), (np.nan, 63)])
def test_histogram_extreme_noisy_n(monkeypatch, draw, cells):
    """A noisy n below 1 counts as 1; an infinite or NaN one (eps near the smallest double) as
    2^62: the release never fails after a draw."""
    _noisy_n(monkeypatch, draw)
    out = histogramDP(X, 1, 0, 1, which_sensitivity="unbounded")  # Sturges
    np.testing.assert_array_equal(out.breaks, rcompat.pretty(0, 1, n=cells, min_n=1))


def test_histogram_too_many_cells_warn_at_the_callers_line(monkeypatch):
    """R caps a number of cells at 1e6 with a warning; from a number, and from a rule whose
    noisy n is huge (here 1e20: FD would ask for 4.6e6 cells)."""
    with pytest.warns(UserWarning, match="is too large and set to 1e6") as record:
        histogramDP(X, 1, 0, 1, breaks=2e6)
        _noisy_n(monkeypatch, 1e20)
        out = histogramDP(X, 1, 0, 1, breaks="FD", which_sensitivity="unbounded")
    assert [w.filename for w in record] == [__file__] * 2
    assert out.counts.size == 10**6


LARGE = np.random.default_rng(11).uniform(0, 1, 3000)  # Sturges: 13 cells for n near 3000


def test_histogram_unbounded_rule_counts_law():
    """With n = 3000 the noisy n (scale 20/eps) leaves Sturges' 13 cells unchanged, so the
    breaks are fixed and the counts' noise is the discrete Laplace of parameter 19/20 eps."""
    eps = 1.0
    true = rcompat.hist(LARGE, rcompat.pretty(0, 1, n=13, min_n=1)).counts
    out = _draws(lambda rng: histogramDP(LARGE, eps, 0, 1, which_sensitivity="unbounded",
                                         allow_negative=True, random_state=rng).counts, n=2000)
    assert _integer_law_pvalue(out - true, stats.dlaplace(eps * 19 / 20)) > ALPHA


def test_histogram_unbounded_rule_counts_law_check_has_power():
    """The same draws reject the whole eps spent on the counts (scale 1/eps)."""
    true = rcompat.hist(LARGE, rcompat.pretty(0, 1, n=13, min_n=1)).counts
    out = _draws(lambda rng: histogramDP(LARGE, 1.0, 0, 1, which_sensitivity="unbounded",
                                         allow_negative=True, random_state=rng).counts, n=2000)
    assert _integer_law_pvalue(out - true, stats.dlaplace(1.0)) < ALPHA


# --------------------------------------------------------------------------------------------
# Tables: labels and cell order
# --------------------------------------------------------------------------------------------


def test_table_one_factor_labels():
    factor = pd.Series(_cat(["b", "a", "b", "c"]), name="type")
    out = tableDP(factor, eps=1, random_state=SEED)
    assert isinstance(out, pd.Series)
    assert out.index.tolist() == ["a", "b", "c"] and out.index.name == "type"
    assert out.dtype == np.float64


def test_table_two_factors_labels():
    rows = pd.Series(_cat(["x", "y", "x"]), name="Type")
    cols = pd.Categorical(["USA", "non-USA", "USA"], categories=["USA", "non-USA"])
    out = tableDP(rows, cols, eps=1, random_state=SEED)
    assert isinstance(out, pd.DataFrame)
    assert out.index.tolist() == ["x", "y"] and out.index.name == "Type"
    assert out.columns.tolist() == ["USA", "non-USA"] and out.columns.name is None


def test_table_three_factors_labels():
    a = pd.Series(_cat(["p", "q", "p", "q"]), name="A")
    b = pd.Series(_cat([1, 2, 2, 1]), name="B")
    c = pd.Categorical(["s", "s", "t", "t"], categories=["s", "t", "u"])
    out = tableDP(a, b, c, eps=1, random_state=SEED)
    assert isinstance(out.index, pd.MultiIndex)
    assert list(out.index.names) == ["A", "B", None]
    assert out.index.levshape == (2, 2, 3)
    assert out.index[0] == ("p", 1, "s") and out.index[1] == ("p", 1, "t")  # first slowest


def test_table_noise_in_r_column_major_order():
    """Noise draw i lands on cell i of R's column-major order (first factor fastest)."""
    a = _cat(["p", "q", "r", "p", "q", "p"])
    b = _cat(["u", "v", "u", "v", "v", "u"])
    eps = 0.7
    true = dppack.tableDataAccess(a, b)["True.Values"].to_numpy()
    out = tableDP(a, b, eps=eps, allow_negative=True, random_state=SEED)
    # The exact integer noise vector of the same seed (scale 2/eps; issue 28: on the
    # integers): the i-th draw is the i-th entry whatever the values.
    noise = dppack._random.discrete_laplace_noise(np.zeros(true.size), 2.0, eps,
                                                  np.random.default_rng(SEED), coordinates=0,
                                                  grid=0)
    expected = (true.ravel(order="F") + noise).reshape(true.shape, order="F")
    np.testing.assert_array_equal(out.to_numpy(), expected)
    row_major = (true.ravel() + noise).reshape(true.shape)
    assert not np.array_equal(out.to_numpy(), row_major)  # the order is visible


def test_table_round_then_negatives_to_zero():
    out = _draws(lambda rng: tableDP(_cat(["a", "b"]), _cat(["c", "d"]), eps=0.2,
                                     random_state=rng).to_numpy(), n=100)
    assert out.min() == 0
    np.testing.assert_array_equal(out, np.round(out))
    assert not np.signbit(out).any()


# --------------------------------------------------------------------------------------------
# Tables whose cells do not come from the data (issue 11)
# --------------------------------------------------------------------------------------------


def _gaussian_tail_by_summation(sigma2):
    """m -> P[Z >= m] for the discrete Gaussian N_Z(0, sigma2), summed from its pmf over
    |z| <= 40 s (the rest is below 1e-300 of the mass)."""
    half = int(40 * math.sqrt(sigma2)) + 2
    z = np.arange(-half, half + 1, dtype=np.float64)
    weight = np.exp(-z * z / (2.0 * sigma2))
    tail = np.cumsum(weight[::-1])[::-1] / weight.sum()  # tail[i] = P[Z >= z[i]]
    return lambda m: float(tail[int(m) + half]) if -half <= m <= half else float(m < 0)


def _threshold_reference(mechanism, eps, delta, bounded, type_DP="aDP"):
    """(k, tail, p) of the thresholded table release, written out here from the derivation
    in ``dppack.stats.table_threshold_law`` (not computed by it): the grid g = 2^k and the tail
    m -> P[Z >= m] of the integer noise Z (issue 28: integer noise on the integer counts,
    k = 0; noisy count of 1: 1 + Z), and the largest release probability p allowed for a
    count of 1. Laplace: sensitivity 2 (bounded) or 1 (unbounded), the discrete Laplace of
    parameter eps / Delta (no rounding step), p = delta/2 or delta; Gaussian: DPpack's sigma
    for delta/2 (bounded, p = delta e^-eps / 2) or delta (unbounded, p = delta), made exact
    by the discrete calibration on the integers for 2 or 1 changed cells."""
    changed = 2 if bounded else 1
    if mechanism == "Laplace":
        k, _, t, s = dppack._random.laplace_grid(float(changed), eps, 0, grid=0)
        assert abs(s / t - eps / changed) <= 2.0 ** -19 * eps / changed
        rate = s / t  # P(z) proportional to exp(-|z| rate): a geometric series each side

        def tail(m):
            if m >= 1:
                return math.exp(-rate * m) / (1.0 + math.exp(-rate))
            return 1.0 - math.exp(-rate * (1 - m)) / (1.0 + math.exp(-rate))

        return k, tail, delta / 2 if bounded else delta
    analytic = mechanism == "analytic"
    sensitivity = math.sqrt(2) if bounded else 1.0
    delta_noise = delta / 2 if bounded else delta
    sigma = gaussian_sigma(eps, delta_noise, sensitivity, type_DP, analytic)
    k, sigma2 = discrete_gaussian_parameters(sigma, sensitivity, eps=eps, delta=delta_noise,
                                             type_DP=type_DP, coordinates=changed,
                                             integers=True)
    return k, _gaussian_tail_by_summation(sigma2), (delta * math.exp(-eps) / 2 if bounded
                                                    else delta)


# Counts 1..16 over two factors: some cells fall on each side of every threshold below.
_ROWS = [f"r{k:02d}" for k in range(1, 17) for _ in range(k)]
_COLS = ["u" if i % 3 else "v" for i in range(len(_ROWS))]

THRESHOLD_CASES = [
    ("Laplace", "bounded", "aDP", 1.0),
    ("Laplace", "unbounded", "aDP", 0.5),
    ("Gaussian", "bounded", "pDP", 1.0),
    ("Gaussian", "unbounded", "aDP", 0.5),
    ("analytic", "bounded", "aDP", 2.0),
    ("analytic", "unbounded", "pDP", 2.0),  # type.DP ignored for 'analytic', as in DPpack
]


@pytest.mark.parametrize("mechanism, which, type_DP, eps", THRESHOLD_CASES)
@pytest.mark.parametrize("delta", [0.05, 1e-6])
def test_thresholded_table_threshold_from_the_exact_tail(mechanism, which, type_DP, eps,
                                                         delta):
    """Computed, not sampled: a count of 1 is released (its noisy count g (V + Z) exceeds
    tau) with probability P[Z >= m] <= p <= delta, and tau is the smallest grid point with
    that property (P[Z >= m - 1] > p)."""
    bounded = which == "bounded"
    type_DP = "aDP" if mechanism == "analytic" else type_DP
    sensitivity = (2.0 if bounded else 1.0) if mechanism == "Laplace" else (
        math.sqrt(2) if bounded else 1.0)
    *_, tau = _TABLE.table_threshold_law(mechanism, eps, delta, type_DP, bounded, sensitivity)
    k, tail, p = _threshold_reference(mechanism, eps, delta, bounded, type_DP)
    one = round(math.ldexp(1.0, -k))  # V = round(1 / g): 2^-k for the fine grids here
    assert k <= 0 and one * math.ldexp(1.0, k) == 1.0
    m = round(math.ldexp(tau - 1.0, -k)) + 1  # tau = g (V + m - 1)
    assert math.ldexp(float(one + m - 1), k) == tau
    assert p <= delta
    assert tail(m) <= p < tail(m - 1)


@pytest.mark.parametrize("mechanism, which, type_DP, eps", THRESHOLD_CASES)
def test_thresholded_table_noise_and_threshold(mechanism, which, type_DP, eps):
    """Undeclared levels: the exact noise on the observed cells only (in R's column-major
    order), a cell released iff its unrounded noisy count exceeds the threshold, the table's
    levels those of the released cells."""
    delta = 0.05
    out = tableDP(_ROWS, _COLS, eps=eps, delta=delta, mechanism=mechanism, type_DP=type_DP,
                  which_sensitivity=which, random_state=SEED)
    observed = pd.crosstab(pd.Series(_ROWS), pd.Series(_COLS)).stack()
    observed = observed[observed > 0].sort_index(level=[1, 0])  # first factor fastest
    bounded = which == "bounded"
    type_DP = "aDP" if mechanism == "analytic" else type_DP
    sensitivity = (2.0 if bounded else 1.0) if mechanism == "Laplace" else (
        math.sqrt(2) if bounded else 1.0)
    noise_of, _, _, threshold = _TABLE.table_threshold_law(mechanism, eps, delta, type_DP,
                                                           bounded, sensitivity)
    # The same seed's noise vector (integer counts are on the grid: noisy = count + noise).
    noise = noise_of(np.zeros(observed.size), np.random.default_rng(SEED))
    k, _, _ = _threshold_reference(mechanism, eps, delta, bounded, type_DP)
    np.testing.assert_array_equal(noise, np.ldexp(np.rint(np.ldexp(noise, -k)), k))  # grid
    noisy = observed.to_numpy() + noise
    keep = noisy > threshold
    assert 0 < keep.sum() < keep.size  # the data exercise both sides of the threshold
    released = dict(zip(observed.index[keep], np.round(noisy[keep])))
    assert out.index.tolist() == sorted({row for row, _ in released})
    assert out.columns.tolist() == sorted({col for _, col in released})
    shown = out.stack()
    assert {cell: value for cell, value in shown.items() if value != 0} == released
    assert (shown != 0).sum() == len(released)


def test_thresholded_table_cells_below_threshold_never_appear():
    eps, delta = 1.0, 0.05
    *_, threshold = _TABLE.table_threshold_law("Laplace", eps, delta, "aDP", True, 2.0)  # 6
    observed = set(zip(_ROWS, _COLS))
    smallest = []
    for seed in range(200):
        out = tableDP(_ROWS, _COLS, eps=eps, delta=delta, random_state=seed).stack()
        released = out[out != 0]
        assert set(released.index) <= observed  # no unobserved combination is released
        if released.size:
            smallest.append(released.min())
    assert threshold == round(threshold)  # an integer: the counts are integers
    assert min(smallest) == threshold + 1  # reached, never passed


@pytest.mark.parametrize(
    "kwargs, p",
    [
        (dict(), 0.1 / 2),
        (dict(which_sensitivity="unbounded"), 0.1),
        (dict(mechanism="Gaussian", eps=0.5), 0.1 * math.exp(-0.5) / 2),
        (dict(mechanism="analytic", which_sensitivity="unbounded"), 0.1),
    ],
    ids=["Laplace-bounded", "Laplace-unbounded", "Gaussian-bounded", "analytic-unbounded"],
)
def test_single_record_category_released_with_probability_at_most_delta(kwargs, p):
    """20000 categories of one record each, in one call (independent noise per cell): the
    share released is P[Z >= tau] for the integer noise (the reference tail, tau an integer:
    1 + Z > tau), at most the derived p <= delta = 0.1 (two-sided binomial test at ALPHA: a
    correct implementation fails it with probability 0.001 under a fresh seed)."""
    delta, n = 0.1, 20_000
    args = dict(eps=1.0, delta=delta, random_state=SEED)
    args.update(kwargs)
    out = tableDP([f"c{i}" for i in range(n)], **args)
    released = int((out > 0).sum())
    assert released == out.size  # only released categories are shown
    mechanism = args.get("mechanism", "Laplace")
    bounded = args.get("which_sensitivity", "bounded") == "bounded"
    k, tail, reference_p = _threshold_reference(mechanism, args["eps"], delta, bounded)
    assert reference_p == pytest.approx(p, rel=1e-12) and p <= delta
    sensitivity = (2.0 if bounded else 1.0) if mechanism == "Laplace" else (
        math.sqrt(2) if bounded else 1.0)
    *_, tau = _TABLE.table_threshold_law(mechanism, args["eps"], delta, "aDP", bounded,
                                         sensitivity)
    assert k == 0 and tau == round(tau)
    released_p = tail(round(tau))
    assert released_p <= p
    assert stats.binomtest(released, n, released_p).pvalue > ALPHA


def test_thresholded_table_check_has_power():
    """The same binomial test rejects the unbounded threshold used for bounded neighbours
    (release probability delta instead of delta/2)."""
    out = tableDP([f"c{i}" for i in range(20_000)], eps=1.0, delta=0.1,
                  which_sensitivity="unbounded", random_state=SEED)
    assert stats.binomtest(int((out > 0).sum()), 20_000, 0.1 / 2).pvalue < ALPHA


@pytest.mark.parametrize("which", ["bounded", "unbounded"])
def test_declared_levels_new_category_changes_no_cell(which):
    """With declared levels a record with a new category changes a count, not the cells."""
    levels = ["a", "b", "c"]
    data = pd.Categorical(["a", "b", "a", "b"], categories=levels)
    neighbour = pd.Categorical(["a", "b", "a", "c"], categories=levels)  # one record changed
    other = pd.Categorical(["x", "y", "x", "y"], categories=["x", "y", "z"])
    for factors, changed in [((data,), (neighbour,)), ((data, other), (neighbour, other))]:
        out = tableDP(*factors, eps=1, which_sensitivity=which, random_state=SEED)
        out2 = tableDP(*changed, eps=1, which_sensitivity=which, random_state=SEED)
        assert out.index.tolist() == out2.index.tolist() == levels
        assert out.shape == out2.shape
        if out.ndim == 2:
            assert out.columns.tolist() == out2.columns.tolist() == ["x", "y", "z"]


def test_thresholded_table_keeps_declared_levels():
    """A declared factor beside an undeclared one keeps all its (public) levels; the
    undeclared one shows the released levels only; the inputs are not modified."""
    declared = pd.Series(pd.Categorical(["u"] * 60 + ["v"], categories=["u", "v", "w"]),
                         name="d")
    plain = ["p"] * 60 + ["q"]
    copies = (declared.copy(), list(plain))
    out = tableDP(plain, declared, eps=1, delta=1e-6, random_state=SEED)
    assert out.index.tolist() == ["p"] and out.columns.tolist() == ["u", "v", "w"]
    assert out.columns.name == "d"
    assert out.loc["p", "v"] == 0 and out.loc["p", "w"] == 0 and out.loc["p", "u"] > 40
    pd.testing.assert_series_equal(declared, copies[0])
    assert plain == copies[1]


def test_thresholded_table_no_data_draws_nothing():
    with untouched_generator(SEED) as rng:
        out = tableDP([], eps=1, delta=0.1, random_state=rng)
    assert out.size == 0


def test_thresholded_table_both_bounded_noise_first():
    args = dict(eps=1, delta=0.05)
    both = tableDP(_ROWS, _COLS, which_sensitivity="both", random_state=SEED, **args)
    rng = np.random.default_rng(SEED)
    pd.testing.assert_frame_equal(both["Bounded"], tableDP(_ROWS, _COLS, random_state=rng,
                                                           **args))
    pd.testing.assert_frame_equal(
        both["Unbounded"],
        tableDP(_ROWS, _COLS, which_sensitivity="unbounded", random_state=rng, **args),
    )


# --------------------------------------------------------------------------------------------
# Unbounded DP without the private n: noisy centred sufficient statistics (issue 11, item 5)
# --------------------------------------------------------------------------------------------

# Bounds [-1, 3] (midpoint 1, half-width 2) and [0, 2] (midpoint 1, half-width 1); some values
# outside, so clipping matters.
UNB_X = np.array([-1.5, 0.2, 2.9, 3.4, 1.1, 0.0, 2.2, -0.3, 1.7, 0.9])
UNB_Y = np.array([0.5, 1.9, -0.2, 1.2, 2.5, 0.8, 1.1, 0.3, 1.6, 0.0])
UNB_BOUNDS = dict(lower_bound=-1, upper_bound=3)
UNB_BOUNDS2 = dict(lower_bound1=-1, upper_bound1=3, lower_bound2=0, upper_bound2=2)


def _unb_mean(data, **kw):
    return meanDP(data, lower_bound=-1, upper_bound=3, **kw)


def _unb_var(data, **kw):
    return varDP(data, lower_bound=-1, upper_bound=3, **kw)


def _unb_sd(data, **kw):
    return sdDP(data, lower_bound=-1, upper_bound=3, **kw)


def _unb_cov(data, **kw):
    return covDP(data[:, 0], data[:, 1], lower_bound1=-1, upper_bound1=3, lower_bound2=0,
                 upper_bound2=2, **kw)


def _unb_pvar(data, **kw):
    return pooledVarDP(*data, lower_bound=-1, upper_bound=3, **kw)


def _unb_pcov(data, **kw):
    return pooledCovDP(*data, **UNB_BOUNDS2, **kw)


def _on_grid(values, lower, upper):
    """The records as the moments see them: clipped and rounded to the grid g = 2^k of the
    bounds, origin + g q (``dppack._exact_sums``)."""
    k, _ = _exact_sums.data_grid(float(lower), float(upper))
    origin = float(_exact_sums.to_fraction(_exact_sums.grid_origin(float(lower),
                                                                   float(upper))))
    return origin + math.ldexp(1.0, k) * _exact_sums.to_grid(np.asarray(values, float),
                                                             float(lower), float(upper))


def _unit_rows(function, data):
    """The scaled sufficient statistics the unbounded release must hand the mechanism, computed
    here from the definitions: centred sums over the half-widths, the count."""
    def rows_of(vector):
        c = _on_grid(vector, -1, 3) - 1
        if function is _unb_mean:
            return [c.sum() / 2, c.size]
        return [c.sum() / 2, (c * c).sum() / 4, c.size]

    def cross_rows_of(pairs):
        c1, c2 = _on_grid(pairs[:, 0], -1, 3) - 1, _on_grid(pairs[:, 1], 0, 2) - 1
        return [c1.sum() / 2, c2.sum(), (c1 * c2).sum() / 2, c1.size]

    if function in (_unb_mean, _unb_var, _unb_sd):
        return np.array([rows_of(data)])
    if function is _unb_cov:
        return np.array([cross_rows_of(data)])
    if function is _unb_pvar:
        return np.array([rows_of(sample) for sample in data])
    return np.array([cross_rows_of(sample) for sample in data])


def _exact(function, data):
    """The statistic of the clipped data (what a noise-free release must give)."""
    clip = (lambda v: _on_grid(v, -1, 3))  # the records rounded to the grid of the bounds
    pairs = (lambda s: (_on_grid(s[:, 0], -1, 3), _on_grid(s[:, 1], 0, 2)))
    if function is _unb_mean:
        return clip(data).mean()
    if function is _unb_var:
        return np.var(clip(data), ddof=1)
    if function is _unb_sd:
        return np.std(clip(data), ddof=1)
    if function is _unb_cov:
        return np.cov(*pairs(data))[0, 1]
    dof = sum(len(s) for s in data) - len(data)
    if function is _unb_pvar:
        return sum((len(s) - 1) * np.var(clip(s), ddof=1) for s in data) / dof
    return sum((len(s) - 1) * np.cov(*pairs(s))[0, 1] for s in data) / dof


UNB_CASES = [
    pytest.param(_unb_mean, UNB_X, 2, id="mean"),
    pytest.param(_unb_var, UNB_X, 3, id="var"),
    pytest.param(_unb_sd, UNB_X, 3, id="sd"),
    pytest.param(_unb_cov, np.column_stack([UNB_X, UNB_Y]), 4, id="cov"),
    pytest.param(_unb_pvar, (UNB_X[:4], UNB_X[4:7], UNB_X[7:]), 3, id="pooledVar"),
    pytest.param(_unb_pcov, (np.column_stack([UNB_X, UNB_Y])[:6],
                             np.column_stack([UNB_X, UNB_Y])[6:]), 4, id="pooledCov"),
]

UNB_MECHANISMS = [
    pytest.param(dict(eps=0.7), id="Laplace"),
    pytest.param(dict(eps=0.7, mechanism="Gaussian", delta=0.01, type_DP="pDP"), id="pDP"),
    pytest.param(dict(eps=0.7, mechanism="Gaussian", delta=0.01), id="aDP"),
    pytest.param(dict(eps=3, mechanism="analytic", delta=1e-5, type_DP="pDP"), id="analytic"),
]


@pytest.mark.parametrize("kwargs", UNB_MECHANISMS)
@pytest.mark.parametrize("function, data, k", UNB_CASES)
def test_unbounded_releases_the_scaled_statistics_once(no_noise, function, data, k, kwargs):
    """One mechanism call with the whole eps (and delta) on the sufficient statistics, each
    divided by its add/remove sensitivity: l1 sensitivity k for Laplace (eps/k per statistic),
    l2 sensitivity sqrt(k) for the Gaussian mechanisms. Without noise the post-processing
    gives back the statistic of the clipped data."""
    value = function(data, which_sensitivity="unbounded", random_state=SEED, **kwargs)
    [call] = no_noise.calls
    np.testing.assert_allclose(np.reshape(call["values"], (-1, k)), _unit_rows(function, data),
                               rtol=1e-13, atol=1e-13)
    assert call["eps"] == kwargs["eps"]
    if "mechanism" in kwargs:
        assert call["delta"] == kwargs["delta"]
        assert call["sensitivity"] == math.sqrt(k)
        assert call["analytic"] == (kwargs["mechanism"] == "analytic")
        if not call["analytic"]:
            assert call["type_DP"] == kwargs.get("type_DP", "aDP")
    else:
        assert call["delta"] is None and call["sensitivity"] == k
    assert value == pytest.approx(_exact(function, data), rel=1e-12, abs=1e-12)


def _neighbours(function, data):
    """Neighbours under unbounded DP: one record added (at a bound, or beyond it, where its
    centred terms are the largest) or removed; for the pooled statistics, in one sample."""
    if function in (_unb_mean, _unb_var, _unb_sd):
        return [np.r_[data, 3.0], np.r_[data, -7.0], data[1:]]
    if function is _unb_cov:
        return [np.r_[data, [[3.0, 0.0]]], np.r_[data, [[-5.0, 9.0]]], data[1:]]
    first, rest = data[0], tuple(data[1:])
    record = 3.0 if function is _unb_pvar else [[3.0, 0.0]]
    return [(np.r_[first, record],) + rest, (first[1:],) + rest]


@pytest.mark.parametrize("kwargs", UNB_MECHANISMS[:2])
@pytest.mark.parametrize("function, data, k", UNB_CASES)
def test_unbounded_noise_does_not_depend_on_n(no_noise, function, data, k, kwargs):
    """For a dataset and its neighbours (n +- 1) the mechanism gets the same eps, delta and
    sensitivity, and the scaled statistics differ in one row, by at most 1 in each of its k
    coordinates (the sensitivity the noise is calibrated to), and by exactly 1 in the count.
    A record at a bound attains the bound in its sum coordinates."""
    function(data, which_sensitivity="unbounded", random_state=SEED, **kwargs)
    for neighbour in _neighbours(function, data):
        function(neighbour, which_sensitivity="unbounded", random_state=SEED, **kwargs)
    first, *others = no_noise.calls
    for call in others:
        assert (call["eps"], call["delta"], call["sensitivity"]) == (
            first["eps"], first["delta"], first["sensitivity"])
        step = np.reshape(call["values"], (-1, k)) - np.reshape(first["values"], (-1, k))
        assert np.all(np.abs(step) <= 1 + 1e-12)
        moved = np.flatnonzero(np.any(step != 0, axis=1))
        assert moved.tolist() == [0]  # one row: the first sample's (the only one unpooled)
        assert abs(step[0, -1]) == 1
    added_at_bound = np.reshape(others[0]["values"], (-1, k)) - np.reshape(first["values"], (-1, k))
    np.testing.assert_allclose(np.abs(added_at_bound[0, :-1]), 1, rtol=1e-12)


@pytest.fixture
def real_noise(monkeypatch):
    """Records the mechanism calls inside dppack.stats around the real mechanisms: the true
    values handed over and the noisy values returned."""
    calls = []

    def recording(real):
        def mechanism(true_values, *args, **kwargs):
            noisy = real(true_values, *args, **kwargs)
            calls.append((np.copy(true_values), np.copy(noisy)))
            return noisy
        return mechanism

    for name in ("LaplaceMechanism", "GaussianMechanism"):
        _patch_stats(monkeypatch, name, recording(getattr(_RELEASE, name)))

    def exact(values, *args):  # the moments' exact entry point (exact rationals in)
        noisy = release_exact(values, *args)
        calls.append((np.array([float(_exact_sums.to_fraction(v)) for v in values]),
                      np.array(noisy)))
        return noisy

    _patch_stats(monkeypatch, "release_exact", exact)
    return calls


@pytest.mark.parametrize(
    "function, data, k, kwargs, law",
    [
        pytest.param(_unb_var, UNB_X, 3, dict(eps=1.5), stats.laplace(scale=3 / 1.5),
                     id="var-Laplace"),
        pytest.param(_unb_mean, UNB_X, 2, dict(eps=1.5), stats.laplace(scale=2 / 1.5),
                     id="mean-Laplace"),
        pytest.param(_unb_cov, np.column_stack([UNB_X, UNB_Y]), 4, dict(eps=1),
                     stats.laplace(scale=4), id="cov-Laplace"),
        pytest.param(_unb_pvar, (UNB_X[:4], UNB_X[4:]), 3,
                     dict(eps=0.5, mechanism="Gaussian", delta=0.01),
                     _discrete_normal(0.5, 0.01, math.sqrt(3), 6), id="pooledVar-aDP"),
        pytest.param(_unb_var, UNB_X, 3, dict(eps=2, mechanism="analytic", delta=1e-5),
                     _discrete_normal(2, 1e-5, math.sqrt(3), 3, analytic=True),
                     id="var-analytic"),
    ],
)
def test_unbounded_noise_law(real_noise, function, data, k, kwargs, law):
    """The noise on every scaled statistic follows the law of the stated scale (KS over all
    coordinates of 1000 calls: independent draws). Power: the same check rejects the scale
    of a statistic given eps/(k - 1) or the noise of DPpack's (U - L)/n-type calibration."""
    rng = np.random.default_rng(SEED)
    for _ in range(1000):
        function(data, which_sensitivity="unbounded", random_state=rng, **kwargs)
    noise = np.concatenate([np.ravel(noisy - true) for true, noisy in real_noise])
    assert noise.size == 1000 * np.size(_unit_rows(function, data))
    assert _ks(noise, law.cdf) > ALPHA
    wrong = (stats.laplace(scale=law.std() / math.sqrt(2) * (k - 1) / k)
             if law.dist.name == "laplace" else stats.norm(scale=law.std() * 0.8))
    assert _ks(noise, wrong.cdf) < ALPHA


def test_unbounded_releases_are_accurate_on_large_data():
    """n = 200 000: the noise on the sums (scales <= 4/eps of values up to 4 n) and on the
    count moves each release by about 1e-5; the tolerance 1e-3 is a Laplace tail beyond 50
    scales (false-failure probability below 1e-20)."""
    rng = np.random.default_rng(11)
    x = rng.normal(1.0, 0.8, 200_000)  # bounds [-1, 3]: a little is clipped
    y = 0.5 * x + rng.normal(0.0, 0.3, x.size)
    cx, cy = np.clip(x, -1, 3), np.clip(y, 0, 2)
    kw = dict(which_sensitivity="unbounded", random_state=5)
    assert meanDP(x, 1, -1, 3, **kw) == pytest.approx(cx.mean(), abs=1e-3)
    assert varDP(x, 1, -1, 3, **kw) == pytest.approx(cx.var(ddof=1), abs=1e-3)
    assert sdDP(x, 1, -1, 3, **kw) == pytest.approx(cx.std(ddof=1), abs=1e-3)
    assert covDP(x, y, 1, -1, 3, 0, 2, **kw) == pytest.approx(np.cov(cx, cy)[0, 1], abs=1e-3)
    halves = (x[:80_000], x[80_000:])
    pooled = sum((h.size - 1) * np.clip(h, -1, 3).var(ddof=1) for h in halves) / (x.size - 2)
    assert pooledVarDP(*halves, eps=1, lower_bound=-1, upper_bound=3, **kw) == pytest.approx(
        pooled, abs=1e-3)
    pairs = np.column_stack([x, y])
    pooled_cov = sum((s.shape[0] - 1) * np.cov(np.clip(s[:, 0], -1, 3),
                                               np.clip(s[:, 1], 0, 2))[0, 1]
                     for s in (pairs[:80_000], pairs[80_000:])) / (x.size - 2)
    assert pooledCovDP(pairs[:80_000], pairs[80_000:], eps=1, **UNB_BOUNDS2,
                       **kw) == pytest.approx(pooled_cov, abs=1e-3)


def test_unbounded_releases_stay_in_range_when_noise_dominates():
    """Two values and eps = 0.01: the noisy count is often below 2 or negative; every release
    is finite and clamped to the range of its statistic for any size >= 2 (mean: the bounds;
    variance: [0, (U - L)^2/2]; covariance: +-(U1 - L1)(U2 - L2)/2), with mass at the ends."""
    kw = dict(eps=0.01, which_sensitivity="unbounded")
    pair = np.array([0.5, 1.5])
    means = _draws(lambda rng: meanDP(pair, lower_bound=-1, upper_bound=3, random_state=rng,
                                      **kw), n=400)
    variances = _draws(lambda rng: varDP(pair, lower_bound=-1, upper_bound=3, random_state=rng,
                                         **kw), n=400)
    covariances = _draws(lambda rng: covDP(pair, pair[::-1], lower_bound1=-1, upper_bound1=3,
                                           lower_bound2=0, upper_bound2=2, random_state=rng,
                                           **kw), n=400)
    pooled = _draws(lambda rng: pooledVarDP(pair, pair, lower_bound=-1, upper_bound=3,
                                            random_state=rng, **kw), n=400)
    for values, low, high in [(means, -1, 3), (variances, 0, 8), (covariances, -4, 4),
                              (pooled, 0, 8)]:
        assert np.all(np.isfinite(values))
        assert values.min() >= low and values.max() <= high
        assert np.any(values == low) or np.any(values == high)
    assert np.mean(variances == 0) > 0.2


def test_unbounded_needs_no_sensitivity_from_the_sizes():
    """DPpack's unbounded sensitivities of a single pooled sample of two values (Inf) or with
    N - J - 1 = 0 (NaN) were refused; the unbounded releases no longer use them."""
    assert 0 <= pooledVarDP([1.0, 3.0], lower_bound=0, upper_bound=5,
                            which_sensitivity="unbounded", random_state=SEED) <= 12.5
    assert abs(pooledCovDP(np.ones((2, 2)), lower_bound1=0, upper_bound1=5, lower_bound2=0,
                           upper_bound2=5, which_sensitivity="unbounded",
                           random_state=SEED)) <= 12.5


# Under unbounded DP n is private: a dataset of 0 or 1 record is released like its neighbour
# of 2 (refusing it would be a data-dependent output); under bounded DP (n public) and for
# 'both' (whose bounded release uses n) the sizes are still checked.
_SMALL_PAIRS = {0: np.empty((0, 2)), 1: np.array([[0.3, 0.6]])}
_PAIR2 = np.array([[0.1, 0.2], [0.5, 0.9]])


def _small(name, size):
    """(call(which, rng, **kw), (low, high), message of the bounded refusal) on data of
    ``size`` records in [0, 1]."""
    x = np.full(size, 0.3)
    pairs = _SMALL_PAIRS[size]
    calls = {
        "mean": (lambda w, rng, **kw: _mean(x=x, which_sensitivity=w, random_state=rng, **kw),
                 (0, 1), X_EMPTY),
        "var": (lambda w, rng, **kw: _var(x=x, which_sensitivity=w, random_state=rng, **kw),
                (0, 0.5), X_TWO),
        "sd": (lambda w, rng, **kw: _sd(x=x, which_sensitivity=w, random_state=rng, **kw),
               (0, math.sqrt(0.5)), X_TWO),
        "cov": (lambda w, rng, **kw: _cov(x1=x, x2=x, which_sensitivity=w, random_state=rng,
                                          **kw), (-0.5, 0.5), "x1 must contain at least two"),
        "hist-rule": (lambda w, rng, **kw: _hist(x=x, which_sensitivity=w, random_state=rng,
                                                 **kw), (0, np.inf), X_EMPTY),
        "hist-breaks": (lambda w, rng, **kw: _hist(x=x, breaks=[0, 0.5, 1],
                                                   which_sensitivity=w, random_state=rng,
                                                   **kw), (0, np.inf), X_EMPTY),
        "quantile": (lambda w, rng, **kw: _quantile(x=x, which_sensitivity=w,
                                                    random_state=rng, **kw), (0, 1), X_EMPTY),
        "median": (lambda w, rng, **kw: _median(x=x, which_sensitivity=w, random_state=rng,
                                                **kw), (0, 1), X_EMPTY),
        "pooledVar": (lambda w, rng, **kw: pooledVarDP(x, [0.1, 0.7], lower_bound=0,
                                                       upper_bound=1, which_sensitivity=w,
                                                       random_state=rng, **{"eps": 1, **kw}),
                      (0, 0.5), "Every sample must contain at least two values."),
        "pooledVar-alone": (lambda w, rng, **kw: pooledVarDP(x, lower_bound=0, upper_bound=1,
                                                             which_sensitivity=w,
                                                             random_state=rng,
                                                             **{"eps": 1, **kw}),
                            (0, 0.5), "Every sample must contain at least two values."),
        "pooledCov": (lambda w, rng, **kw: pooledCovDP(pairs, _PAIR2, lower_bound1=0,
                                                       upper_bound1=1, lower_bound2=0,
                                                       upper_bound2=1, which_sensitivity=w,
                                                       random_state=rng, **{"eps": 1, **kw}),
                      (-0.5, 0.5), "Every sample must contain at least two rows."),
    }
    return calls[name]


_SMALL_CASES = [
    pytest.param(name, size, id=f"{name}-n{size}")
    for name in ["mean", "var", "sd", "cov", "hist-rule", "hist-breaks", "quantile", "median",
                 "pooledVar", "pooledVar-alone", "pooledCov"]
    for size in (0, 1)
    # n = 1 is allowed under bounded DP where the statistic needs one value only
    if size == 0 or name in ("var", "sd", "cov", "pooledVar", "pooledVar-alone", "pooledCov")
]


@pytest.mark.parametrize("mechanism", [dict(), dict(mechanism="analytic", delta=1e-5)],
                         ids=["Laplace", "analytic"])
@pytest.mark.parametrize("name, size", _SMALL_CASES)
def test_unbounded_releases_samples_of_zero_and_one_record(name, size, mechanism):
    """Unbounded DP: n = 0 and n = 1 are released (finite, in the statistic's range, noise
    drawn), as their neighbours of 1 and 2 records are."""
    if name in ("quantile", "median"):
        if mechanism:
            pytest.skip("the exponential mechanism only")
        mechanism = {}
    call, (low, high), _ = _small(name, size)
    with advanced_generator(SEED) as rng:
        for _ in range(20):
            value = call("unbounded", rng, **mechanism)
            values = np.asarray(value.counts if hasattr(value, "counts") else value)
            assert np.all(np.isfinite(values)), value
            assert np.all((values >= low) & (values <= high)), value


@pytest.mark.parametrize("which", ["bounded", "both"])
@pytest.mark.parametrize("name, size", _SMALL_CASES)
def test_bounded_still_refuses_samples_too_small(name, size, which):
    """Bounded DP (n public) and 'both' keep the size checks, before any draw."""
    call, _, message = _small(name, size)
    with untouched_generator(SEED) as rng, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'both' of the quantiles warns
        with raises_starting(message):
            call(which, rng)


@pytest.mark.parametrize("bad, message", [(dict(eps=-1), EPS), (dict(mechanism="abc"), None)],
                         ids=["eps", "mechanism"])
@pytest.mark.parametrize("name, size", _SMALL_CASES)
def test_unbounded_small_samples_still_check_the_arguments(name, size, bad, message):
    """Accepting n = 0 or 1 skips none of the other checks: a bad argument fails, before any
    draw."""
    call, _, _ = _small(name, size)
    if message is None:
        message = MECHANISM_EXP if name in ("quantile", "median") else MECHANISM
    with untouched_generator(SEED) as rng, raises_starting(message):
        call("unbounded", rng, **bad)


def test_unbounded_empty_data_without_noise(no_noise):
    """Noise-free post-processing of empty data: the centred sums are 0, the count is floored
    (at 1 for the mean, 2 otherwise), so the mean is the midpoint of the bounds and the
    variance 0."""
    assert meanDP([], 1, -1, 3, "unbounded", random_state=SEED) == 1.0
    assert varDP([], 1, -1, 3, "unbounded", random_state=SEED) == 0.0
    [mean_call, var_call] = no_noise.calls
    np.testing.assert_array_equal(mean_call["values"], [0.0, 0.0])
    np.testing.assert_array_equal(var_call["values"], [0.0, 0.0, 0.0])


def test_unbounded_empty_quantile_is_uniform_on_the_bounds():
    """x empty: the padded bounds form one interval [L, U]; the release is uniform on it
    (KS test, false-failure rate ALPHA)."""
    out = _draws(lambda rng: quantileDP([], 0.3, 1, -1, 3, "unbounded", random_state=rng),
                 n=1000)
    assert stats.kstest(out, stats.uniform(loc=-1, scale=4).cdf).pvalue > ALPHA


SCALE_MESSAGE = ("The bounds are too close together or too far apart for the sufficient "
                 "statistics of unbounded DP in floating point.")


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda rng: varDP(X, 1, 0, 1e-170, "unbounded", random_state=rng),
                     SCALE_MESSAGE, id="var-h2-underflows"),
        pytest.param(lambda rng: varDP(X, 1, -1e200, 1e200, "both", random_state=rng),
                     SCALE_MESSAGE, id="var-both-h2-overflows-before-bounded-noise"),
        pytest.param(lambda rng: covDP(X, X, 1, 0, 1e-170, 0, 1e-170, "unbounded",
                                       random_state=rng),
                     SCALE_MESSAGE, id="cov-product-underflows"),
        pytest.param(lambda rng: _mean(which_sensitivity="both", eps=0, random_state=rng), EPS,
                     id="mean-both-eps"),
        pytest.param(lambda rng: _var(which_sensitivity="unbounded", mechanism="Gaussian",
                                      delta=0.01, eps=1, random_state=rng), EPS_ADP,
                     id="var-unbounded-aDP-eps"),
        pytest.param(lambda rng: _cov(which_sensitivity="both", mechanism="analytic",
                                      random_state=rng), DELTA, id="cov-both-delta"),
        pytest.param(lambda rng: _pvar(which_sensitivity="both", mechanism="Gaussian",
                                       delta=0.01, eps=0.5, type_DP="x", random_state=rng),
                     TYPE_DP, id="pooledVar-both-type"),
        pytest.param(lambda rng: _pcov(which_sensitivity="unbounded", eps=-1, random_state=rng),
                     EPS, id="pooledCov-unbounded-eps"),
    ],
)
def test_unbounded_and_both_fail_before_any_draw(call, message):
    with untouched_generator(SEED) as rng, raises_starting(message):
        call(rng)


@pytest.mark.parametrize(
    "call, core",
    [
        pytest.param(lambda: _mean(which_sensitivity="both", eps=0), "mean_exact", id="mean"),
        pytest.param(lambda: _var(which_sensitivity="unbounded", eps=0), "centred_exact",
                     id="var"),
        pytest.param(lambda: _cov(which_sensitivity="unbounded", eps=0),
                     "centred_cross_exact", id="cov"),
        pytest.param(lambda: _pvar(which_sensitivity="both", eps=0), "pooled_grid_exact",
                     id="pooledVar"),
        pytest.param(lambda: _pcov(which_sensitivity="unbounded", eps=0),
                     "pooled_centred_rows", id="pooledCov"),
    ],
)
def test_budget_checked_before_the_statistics_are_computed(monkeypatch, call, core):
    """The whole budget is checked once, with the mechanism's messages, before the statistics
    of the data are computed (and so before any draw, for every version of 'both'); the
    exact statistics (``_access_cores``) come after it."""
    def computed(*args, **kwargs):
        raise AssertionError("the data were read before the budget was checked")

    monkeypatch.setattr(dppack._access_cores, core, computed)
    with pytest.raises(ValueError, match="^" + re.escape(EPS)):
        call()


def test_analytic_ignores_type_dp_in_the_budget_check():
    """DPpack ignores type_DP for 'analytic'; checking the whole budget first
    must not refuse 'pDP' there."""
    value = _var(which_sensitivity="both", mechanism="analytic", delta=0.01, type_DP="pDP",
                 random_state=SEED)
    assert list(value) == ["Bounded", "Unbounded"]


# --------------------------------------------------------------------------------------------
# Data are never modified; reproducibility
# --------------------------------------------------------------------------------------------


def test_inputs_are_not_modified():
    x = np.array([-3.0, 0.5, 4.0, 0.2, np.float64(0.9)])
    y = np.array([2.0, -1.0, 0.3, 0.4, 9.0])
    copies = (x.copy(), y.copy())
    frame = pd.Series(x.copy())
    meanDP(x, 1, 0, 1, random_state=1)
    varDP(x, 1, 0, 1, random_state=1)
    sdDP(frame, 1, 0, 1, random_state=1)
    covDP(x, y, 1, 0, 1, 0, 1, random_state=1)
    histogramDP(x, 1, 0, 1, random_state=1)
    quantileDP(x, 0.5, 1, 0, 1, random_state=1)
    pooledVarDP(x, y, lower_bound=0, upper_bound=1, random_state=1)
    pooledCovDP(np.column_stack([x, y]), lower_bound1=0, upper_bound1=1, lower_bound2=0,
                upper_bound2=1, random_state=1)
    np.testing.assert_array_equal(x, copies[0])
    np.testing.assert_array_equal(y, copies[1])
    np.testing.assert_array_equal(frame.to_numpy(), copies[0])


@pytest.mark.parametrize("bound", [1.0, 10.0], ids=["clipped", "inside"])
def test_large_data_block_wise(bound):
    """Beyond one block (64 Ki values), meanDP and varDP take their exact grid sums from the
    range scan, block by block (no clipped copy): the true values are those of the records
    clipped and rounded to the grid of the bounds (here Q g = U - L: the sensitivities are
    DPpack's), and the noise is the draw of the same seed."""
    x = np.random.default_rng(4).normal(size=150_000)
    rounded = _on_grid(x, -bound, bound)
    width = 2 * bound
    # The mechanism's draw of the same seed on numpy's value of the rounded records; the
    # two true values can differ in their last bits, and so round to neighbouring points of
    # the grid (<= scale 2^-20).
    for function, true, scale in ((meanDP, rounded.mean(), width / x.size),
                                  (varDP, rounded.var(ddof=1), width ** 2 / x.size)):
        expected = dppack.LaplaceMechanism(true, 1, scale, random_state=9)
        assert function(x, 1, -bound, bound, random_state=9) == pytest.approx(
            expected, rel=0, abs=scale * 2.0 ** -19)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda rs: _mean(random_state=rs), id="mean"),
        pytest.param(lambda rs: _hist(random_state=rs).counts.tolist(), id="hist"),
        pytest.param(lambda rs: _table(random_state=rs).tolist(), id="table"),
        pytest.param(lambda rs: _quantile(random_state=rs), id="quantile"),
        pytest.param(lambda rs: _pvar(random_state=rs), id="pooledVar"),
    ],
)
def test_same_seed_same_output(call):
    assert call(123) == call(123)
    assert call(123) == call(np.random.default_rng(123))


def test_public_names():
    for name in ("meanDP", "varDP", "sdDP", "covDP", "histogramDP", "tableDP", "pooledVarDP",
                 "pooledCovDP", "quantileDP", "medianDP", "meanDataAccess", "varDataAccess",
                 "covDataAccess", "histogramDataAccess", "tableDataAccess",
                 "pooledVarDataAccess", "pooledCovDataAccess", "quantileDataAccess"):
        assert name in dppack.__all__ and callable(getattr(dppack, name))


# --------------------------------------------------------------------------------------------
# The accountant (issue 12): one charge per call, before the data are read
# --------------------------------------------------------------------------------------------

PrivacyLoss = dppack.PrivacyLoss
BudgetAccountant = dppack.BudgetAccountant
OVERSPEND = "Privacy budget exceeded"


class _Untouchable:
    """Data that must not be read: any conversion to an array, any iteration fails."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data were read")

    def __iter__(self):
        raise AssertionError("the data were read")

    def __len__(self):
        raise AssertionError("the data were read")


_U = _Untouchable()

# name -> call(data, **kwargs) with the data in every data position
_STAT_CALLS = {
    "meanDP": lambda d, **kw: meanDP(d, kw.pop("eps", 1), 0, 1, **kw),
    "varDP": lambda d, **kw: varDP(d, kw.pop("eps", 1), 0, 1, **kw),
    "sdDP": lambda d, **kw: sdDP(d, kw.pop("eps", 1), 0, 1, **kw),
    "covDP": lambda d, **kw: covDP(d, d, kw.pop("eps", 1), 0, 1, 0, 1, **kw),
    "histogramDP": lambda d, **kw: histogramDP(d, kw.pop("eps", 1), 0, 1, **kw),
    "tableDP": lambda d, **kw: tableDP(d, **{"eps": 1, **kw}),
    "pooledVarDP": lambda d, **kw: pooledVarDP(d, d, lower_bound=0, upper_bound=1, **kw),
    "pooledCovDP": lambda d, **kw: pooledCovDP(d, d, lower_bound1=0, upper_bound1=1,
                                               lower_bound2=0, upper_bound2=1, **kw),
    "quantileDP": lambda d, **kw: quantileDP(d, 0.3, kw.pop("eps", 1), 0, 1, **kw),
    "medianDP": lambda d, **kw: medianDP(d, kw.pop("eps", 1), 0, 1, **kw),
}
_DATA = {"covDP": X, "tableDP": _cat(["a", "b", "a", "c"], ["a", "b", "c"]),
         "pooledCovDP": np.column_stack([X, X[::-1]])}


@pytest.mark.parametrize("name", list(_STAT_CALLS))
@pytest.mark.parametrize("session", [False, True], ids=["argument", "session"])
def test_overspend_refused_before_the_data_are_read(name, session):
    """An accountant with eps 0.5 left refuses a call at eps 1 before it converts its data
    (which would raise AssertionError) and before any draw (the generator's state is
    unchanged); the ledger is untouched."""
    accountant = BudgetAccountant(0.5)
    rng = np.random.default_rng(SEED)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=OVERSPEND):
        if session:
            with accountant:
                _STAT_CALLS[name](_U, random_state=rng)
        else:
            _STAT_CALLS[name](_U, random_state=rng, accountant=accountant)
    assert rng.bit_generator.state == state
    assert accountant.ledger == []


E_BOTH = math.exp(0.5)
# (name, keyword arguments, the loss the docs state), eps = 0.5 throughout
_CHARGES = [
    ("meanDP", {}, PrivacyLoss.pure(0.5)),
    ("meanDP", dict(which_sensitivity="unbounded"), PrivacyLoss.pure(0.5)),
    ("meanDP", dict(which_sensitivity="both"), PrivacyLoss.pure(1.5)),
    ("meanDP", dict(mechanism="Gaussian", delta=1e-5), PrivacyLoss.approx(0.5, 1e-5)),
    ("meanDP", dict(mechanism="Gaussian", delta=1e-5, type_DP="pDP",
                    which_sensitivity="both"),
     PrivacyLoss.approx(1.5, (2 + E_BOTH) * 1e-5)),
    ("varDP", dict(mechanism="analytic", delta=1e-4, which_sensitivity="both"),
     PrivacyLoss.approx(1.5, (2 + E_BOTH) * 1e-4)),
    ("varDP", dict(which_sensitivity="unbounded"), PrivacyLoss.pure(0.5)),
    ("sdDP", dict(mechanism="analytic", delta=1e-4), PrivacyLoss.approx(0.5, 1e-4)),
    ("sdDP", dict(which_sensitivity="both"), PrivacyLoss.pure(1.5)),
    ("covDP", dict(which_sensitivity="both"), PrivacyLoss.pure(1.5)),
    ("covDP", dict(mechanism="Gaussian", delta=1e-5, which_sensitivity="unbounded"),
     PrivacyLoss.approx(0.5, 1e-5)),
    # the rule's private n (1/20 of the budget) is part of the release
    ("histogramDP", dict(which_sensitivity="unbounded"), PrivacyLoss.pure(0.5)),
    ("histogramDP", dict(which_sensitivity="unbounded", mechanism="analytic", delta=1e-4),
     PrivacyLoss.approx(0.5, 1e-4)),
    ("histogramDP", dict(which_sensitivity="both"), PrivacyLoss.pure(1.5)),
    ("histogramDP", dict(breaks=4, mechanism="Gaussian", delta=1e-5),
     PrivacyLoss.approx(0.5, 1e-5)),
    ("tableDP", {}, PrivacyLoss.pure(0.5)),
    ("tableDP", dict(which_sensitivity="both", mechanism="analytic", delta=1e-4),
     PrivacyLoss.approx(1.5, (2 + E_BOTH) * 1e-4)),
    # undeclared levels: the thresholded release is (eps, delta), Laplace included
    ("tableDP-undeclared", dict(delta=1e-3), PrivacyLoss.approx(0.5, 1e-3)),
    ("tableDP-undeclared", dict(delta=1e-3, which_sensitivity="both"),
     PrivacyLoss.approx(1.5, (2 + E_BOTH) * 1e-3)),
    ("pooledVarDP", dict(which_sensitivity="both"), PrivacyLoss.pure(1.5)),
    ("pooledVarDP", dict(mechanism="Gaussian", delta=1e-5, which_sensitivity="unbounded"),
     PrivacyLoss.approx(0.5, 1e-5)),
    ("pooledCovDP", {}, PrivacyLoss.pure(0.5)),
    ("pooledCovDP", dict(which_sensitivity="both", mechanism="analytic", delta=1e-4),
     PrivacyLoss.approx(1.5, (2 + E_BOTH) * 1e-4)),
    # one value whatever which_sensitivity (the sensitivity is 1 either way)
    ("quantileDP", {}, PrivacyLoss.pure(0.5)),
    ("quantileDP", dict(which_sensitivity="both"), PrivacyLoss.pure(0.5)),
    ("medianDP", dict(which_sensitivity="unbounded"), PrivacyLoss.pure(0.5)),
]


def _call_stat(name, **kwargs):
    if name == "tableDP-undeclared":
        return tableDP(["a", "b", "a", "c"], eps=0.5, **kwargs)
    if name in ("pooledVarDP", "pooledCovDP", "tableDP"):
        kwargs["eps"] = 0.5
        return _STAT_CALLS[name](_DATA.get(name, X), **kwargs)
    return _STAT_CALLS[name](_DATA.get(name, X), eps=0.5, **kwargs)


@pytest.mark.parametrize(
    "name, kwargs, loss",
    [pytest.param(*case, id=f"{case[0]}-{i}") for i, case in enumerate(_CHARGES)],
)
def test_one_ledger_entry_per_call_with_its_loss(name, kwargs, loss):
    """Inside ``with BudgetAccountant(...)``, a call records exactly one entry, labelled with
    the function's name, with the loss its docs state ('both': eps for the bounded release
    and 2 eps, (1 + e^eps) delta by group privacy for the unbounded one); the mechanisms it
    calls charge nothing. Passing the accountant records the same entry."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # quantile 'both'
        session = BudgetAccountant(100, 0.5)
        with session:
            out = _call_stat(name, random_state=SEED, **kwargs)
        explicit = BudgetAccountant(100, 0.5)
        _call_stat(name, random_state=SEED, accountant=explicit, **kwargs)
    label = name.split("-")[0]
    for accountant in (session, explicit):
        assert len(accountant.ledger) == 1
        [(recorded_label, recorded)] = accountant.ledger
        assert recorded_label == label
        assert recorded.kind == loss.kind
        assert recorded.eps == pytest.approx(loss.eps, rel=1e-12)
        assert recorded.delta == pytest.approx(loss.delta, rel=1e-12)
    # numbers stay numbers; a histogram reports its loss
    if label == "histogramDP":
        for histogram in (out.values() if isinstance(out, dict) else [out]):
            assert histogram.privacy_ == session.ledger[0][1]
    elif label not in ("tableDP",):
        for value in (out.values() if isinstance(out, dict) else [out]):
            assert type(value) is float


def test_inner_releases_are_uncharged(monkeypatch):
    """The mechanisms a statistic calls get ``accountant=UNCHARGED`` (an accountant that is
    not the session's would otherwise be charged again): recorded for every mechanism call."""
    seen = []
    real = _RELEASE.LaplaceMechanism

    def laplace(*args, accountant=None, **kwargs):
        seen.append(accountant)
        return real(*args, accountant=accountant, **kwargs)

    exact = []

    def exact_entry(*args):  # the moments' exact entry point: no accountant to charge
        exact.append(args)
        return release_exact(*args)

    _patch_stats(monkeypatch, "LaplaceMechanism", laplace)
    _patch_stats(monkeypatch, "release_exact", exact_entry)
    with BudgetAccountant(10) as accountant:
        meanDP(X, 1, 0, 1, which_sensitivity="both", random_state=SEED)
        # its n is a count with the counts' integer noise (issue 28): no mechanism call
        histogramDP(X, 1, 0, 1, which_sensitivity="unbounded", random_state=SEED)
        pooledVarDP(X[:3], X[3:], eps=1, lower_bound=0, upper_bound=1, random_state=SEED)
    assert len(exact) == 3 and all(a is dppack.accounting.UNCHARGED for a in seen)
    assert accountant.spent.eps == pytest.approx(3 + 1 + 1)


def test_both_with_a_total_delta_of_one_is_refused():
    """(2 + e^eps) delta >= 1: 'both' states no guarantee, so the call is refused before any
    draw; each version alone is allowed."""
    rng = np.random.default_rng(SEED)
    state = rng.bit_generator.state
    args = dict(mechanism="analytic", delta=0.2, random_state=rng)
    with pytest.raises(ValueError, match="which_sensitivity = 'both' spends"):
        meanDP(X, 2.0, 0, 1, which_sensitivity="both", **args)
    assert rng.bit_generator.state == state
    meanDP(X, 2.0, 0, 1, which_sensitivity="unbounded", **args)


def test_accountant_must_be_an_accountant():
    with pytest.raises(TypeError, match="accountant must be a BudgetAccountant"):
        meanDP(X, 1, 0, 1, accountant="budget")


def test_refused_arguments_are_not_charged():
    """Invalid arguments keep DPpack's message (not the accountant's) and spend nothing."""
    accountant = BudgetAccountant(1)
    with pytest.raises(ValueError, match=re.escape(WHICH)):
        meanDP(X, 1, 0, 1, which_sensitivity="abc", accountant=accountant)
    with pytest.raises(ValueError, match=EPS):
        quantileDP(X, 0.5, -1, 0, 1, accountant=accountant)
    with pytest.raises(ValueError, match=re.escape(UNDECLARED)):
        tableDP(["a", "b"], eps=1, accountant=accountant)
    assert accountant.ledger == []
