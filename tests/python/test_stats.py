"""Tests of dppack's private statistics against the reference, specs/dppack_api.md §3 and §9.2.

What is checked:

* every validation error, with its exact text and in DPpack's order of checks (bound lengths,
  then our checks, then which.sensitivity, then mechanism, then the mechanism's eps/delta
  checks), plus our deliberate deviations (NaN/Inf/empty/non-numeric data, bounds that are not
  finite or not ordered, unequal lengths, degenerate pooled sensitivities); and that a failing
  call draws no random number (the generator's state is unchanged);
* the 'both' behaviour of every function (warning text, single value or dict, bounded noise
  drawn before unbounded noise);
* the law of the released values: sanitized minus true value follows the Laplace or Gaussian
  law with the scale of §3.11 (Kolmogorov-Smirnov), the truncated law of the positivity
  redraws (varDP, sdDP, pooledVarDP), rounded noise on histogram and table cells
  (chi-square), and the exponential mechanism's interval probabilities of quantileDP
  (chi-square) with a uniform position inside the interval;
* the histogram's bin extension (§3.5 reference), its post-processing, and the tables'
  labels and noise-to-cell order (R's column-major order);
* the caller's data are never modified.

Statistical tests: each runs at significance level ALPHA = 0.001 with a fixed seed, so the
suite is deterministic. Under a fresh seed each such test would reject a correct
implementation with probability 0.001 (about 2 % for the ~20 statistical tests together). The
"power" tests show that the same checks reject a slightly wrong law.
"""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import dppack
from dppack import (
    ExponentialMechanism,
    covDP,
    histogramDataAccess,
    histogramDP,
    meanDP,
    medianDP,
    pooledCovDP,
    pooledVarDP,
    quantileDataAccess,
    quantileDP,
    rcompat,
    sdDP,
    tableDP,
    varDP,
)
from dppack.mechanisms import gaussian_sigma

ALPHA = 0.001  # false-rejection probability of each statistical test under a fresh seed
N_CALLS = 3000  # calls (one draw each) per law
SEED = 20240602

# --------------------------------------------------------------------------------------------
# Messages (spec §3; "ours" marks deviations from DPpack, which has no check there)
# --------------------------------------------------------------------------------------------

UB = "Length of upper.bound must be 1."
LB = "Length of lower.bound must be 1."
WHICH = "which.sensitivity must be one of {'bounded', 'unbounded', 'both'}."
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
EPS_ADP = "eps must be < 1 for aDP unless analytic is TRUE."
TYPE_DP = "type.DP must be one of {'pDP', 'aDP'}."
# ours
LB_ORDER = "lower.bound must be < upper.bound."
LB_FINITE = "lower.bound must be a finite number."
UB_FINITE = "upper.bound must be a finite number."
X_NUMERIC = "x must be numeric."
X_EMPTY = "x must contain at least one value."
X_TWO = "x must contain at least two values."
X_FINITE = "x must be finite (no NA, NaN or Inf)."
LENGTHS = "x1 and x2 must have the same length."

X = np.array([0.1, 0.4, 0.35, 0.8, 0.95, 0.05, 0.6, 0.5, 0.2, 0.7])
SAMPLES = ([1.0, 4.0, -2.0, 8.0, -6.0], [1.0, 2.0], [-5.0, -7.0])
PAIRS = ([1.0, 4.0], [1.0, 2.0], [-5.0, -7.0])
COV_SAMPLES = (
    np.array([[1.0, 8.0], [4.0, -6.0], [-2.0, -3.0]]),
    np.array([[1.0, -5.0], [2.0, 7.0]]),
)


def _mean(**kw):
    args = dict(x=X, eps=1, lower_bound=0, upper_bound=1)
    args.update(kw)
    return meanDP(**args)


def _var(**kw):
    args = dict(x=X, eps=1, lower_bound=0, upper_bound=1)
    args.update(kw)
    return varDP(**args)


def _sd(**kw):
    args = dict(x=X, eps=1, lower_bound=0, upper_bound=1)
    args.update(kw)
    return sdDP(**args)


def _cov(**kw):
    args = dict(x1=X, x2=X[::-1], eps=1, lower_bound1=0, upper_bound1=1, lower_bound2=0,
                upper_bound2=1)
    args.update(kw)
    return covDP(**args)


def _hist(**kw):
    args = dict(x=X, eps=1, lower_bound=0, upper_bound=1)
    args.update(kw)
    return histogramDP(**args)


def _table(*factors, **kw):
    return tableDP(*(factors or (["a", "b", "a"],)), **kw)


def _pvar(*samples, **kw):
    args = dict(lower_bound=-10, upper_bound=10)
    args.update(kw)
    return pooledVarDP(*(samples or SAMPLES), **args)


def _pcov(*samples, **kw):
    args = dict(lower_bound1=-10, upper_bound1=10, lower_bound2=-10, upper_bound2=10)
    args.update(kw)
    return pooledCovDP(*(samples or COV_SAMPLES), **args)


def _quantile(**kw):
    args = dict(x=X, quant=0.25, eps=1, lower_bound=0, upper_bound=1)
    args.update(kw)
    return quantileDP(**args)


def _median(**kw):
    args = dict(x=X, eps=1, lower_bound=0, upper_bound=1)
    args.update(kw)
    return medianDP(**args)


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
        cases.append(pytest.param(function, kwargs, message, id=f"{name}-{kwargs}"))
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
        (dict(breaks=[0.2, 0.4, 0.6]), "some 'x' not counted; maybe 'breaks' do not span "
                                       "range of 'x'"),
        (dict(breaks="abc"), "'arg' should be one of"),
        (dict(normalize="yes"), "normalize must be TRUE or FALSE."),
        (dict(allow_negative=None), "allow.negative must be TRUE or FALSE."),
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
            (dict(lower_bound1=[0, 1], upper_bound1=[0, 1]), "Length of upper.bound1 must be 1."),
            (dict(lower_bound1=[0, 1], upper_bound2=[0, 1]), "Length of lower.bound1 must be 1."),
            (dict(lower_bound2=[0, 1], upper_bound2=[0, 1]), "Length of upper.bound2 must be 1."),
            (dict(lower_bound2=[0, 1]), "Length of lower.bound2 must be 1."),
            (dict(lower_bound2=3, upper_bound2=1), "lower.bound2 must be < upper.bound2."),
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
            (dict(allow_negative="no"), "allow.negative must be TRUE or FALSE."),
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
            (dict(approx_n_max="no"), "approx.n.max must be TRUE or FALSE."),
        ]
    ]
    + [
        pytest.param(_pcov, kw, msg, id=f"pooledCov-{kw}")
        for kw, msg in [
            (dict(lower_bound1=[0, 1], lower_bound2=[0, 1], upper_bound1=[0, 1]),
             "Length of lower.bound1 must be 1."),
            (dict(lower_bound2=[0, 1], upper_bound1=[0, 1]), "Length of lower.bound2 must be 1."),
            (dict(upper_bound1=[0, 1], upper_bound2=[0, 1]), "Length of upper.bound1 must be 1."),
            (dict(upper_bound2=[0, 1]), "Length of upper.bound2 must be 1."),
            (dict(lower_bound1=20), "lower.bound1 must be < upper.bound1."),
            (dict(which_sensitivity="abc"), WHICH),
            (dict(mechanism="abc"), MECHANISM),
            (dict(mechanism="Gaussian"), DELTA),
            (dict(mechanism="analytic"), DELTA),
        ]
    ]
)


@pytest.mark.parametrize("function, kwargs, message", VALIDATION)
def test_validation(function, kwargs, message):
    rng = np.random.default_rng(SEED)
    before = rng.bit_generator.state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="^" + re.escape(message)):
            function(**kwargs, random_state=rng)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize(
    "call, message",
    [
        pytest.param(lambda rng: tableDP(eps=1, random_state=rng), "nothing to tabulate",
                     id="table-no-input"),
        pytest.param(lambda rng: tableDP(["a", None], eps=1, random_state=rng),
                     "Factors must not contain missing values", id="table-NA"),
        pytest.param(lambda rng: tableDP(["a", "b"], ["c"], eps=1, random_state=rng),
                     "all arguments must have the same length", id="table-lengths"),
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
        pytest.param(lambda rng: pooledVarDP([1.0, 3.0], lower_bound=0, upper_bound=5,
                                             which_sensitivity="unbounded", random_state=rng),
                     "The unbounded sensitivity of the pooled variance is not finite for N = 2 "
                     "observations in J = 1 samples; it needs more observations.",
                     id="pooledVar-infinite-sensitivity"),
        pytest.param(lambda rng: pooledVarDP([1.0, 3.0], lower_bound=0, upper_bound=5,
                                             which_sensitivity="both", random_state=rng),
                     "The unbounded sensitivity of the pooled variance is not finite",
                     id="pooledVar-both-infinite-before-bounded-noise"),
        pytest.param(lambda rng: pooledCovDP(np.ones((2, 2)), lower_bound1=0, upper_bound1=5,
                                             lower_bound2=0, upper_bound2=5,
                                             which_sensitivity="unbounded", random_state=rng),
                     "The unbounded sensitivity of the pooled covariance is not finite",
                     id="pooledCov-nan-sensitivity"),
        pytest.param(lambda rng: pooledCovDP([1.0, 2.0], lower_bound1=0, upper_bound1=5,
                                             lower_bound2=0, upper_bound2=5, random_state=rng),
                     "Every sample must be a numeric matrix with two columns.",
                     id="pooledCov-vector"),
        pytest.param(lambda rng: meanDP(X, 1, 0, 1, random_state=-1),
                     "random_state must be", id="bad-random-state"),
    ],
)
def test_validation_other(call, message):
    rng = np.random.default_rng(SEED)
    before = rng.bit_generator.state
    with pytest.raises((ValueError, TypeError), match="^" + re.escape(message)):
        call(rng)
    assert rng.bit_generator.state == before


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
    rng = np.random.default_rng(SEED)
    before = rng.bit_generator.state
    call(rng)
    assert rng.bit_generator.state != before


# --------------------------------------------------------------------------------------------
# 'both'
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "function", [_mean, _var, _sd, _cov, _quantile, _median],
    ids=["mean", "var", "sd", "cov", "quantile", "median"],
)
def test_both_warns_and_returns_the_bounded_value(function):
    with pytest.warns(UserWarning, match="^" + re.escape(BOTH) + "$"):
        both = function(which_sensitivity="both", random_state=SEED)
    assert isinstance(both, float)
    assert both == function(which_sensitivity="bounded", random_state=SEED)
    assert both == function(which_sensitivity="unbounded", random_state=SEED)


def test_both_warning_points_at_the_caller():
    with pytest.warns(UserWarning) as record:
        _sd(which_sensitivity="both", random_state=SEED)
        _median(which_sensitivity="both", random_state=SEED)
        _pvar(which_sensitivity="both", random_state=SEED)
    assert [w.filename for w in record] == [__file__] * 3


def test_both_warns_before_the_mechanism_check():
    """DPpack warns for 'both' first, then stops on the mechanism (spec §3.0 order)."""
    with pytest.warns(UserWarning, match=re.escape(BOTH)):
        with pytest.raises(ValueError, match=re.escape(MECHANISM)):
            _mean(which_sensitivity="both", mechanism="abc", random_state=SEED)


def test_pooled_var_both_equal_sensitivities_warn():
    with pytest.warns(UserWarning, match="^" + re.escape(BOTH) + "$"):
        both = _pvar(which_sensitivity="both", random_state=SEED)
    assert isinstance(both, float)
    assert both == _pvar(random_state=SEED)


def test_pooled_var_both_different_sensitivities_give_both():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = _pvar(*PAIRS, which_sensitivity="both", random_state=SEED)
    assert set(both) == {"Bounded", "Unbounded"}
    rng = np.random.default_rng(SEED)
    assert both["Bounded"] == _pvar(*PAIRS, random_state=rng)
    assert both["Unbounded"] == _pvar(*PAIRS, which_sensitivity="unbounded", random_state=rng)


def test_pooled_cov_both_always_gives_both_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = _pcov(which_sensitivity="both", random_state=SEED)
    assert list(both) == ["Bounded", "Unbounded"]
    rng = np.random.default_rng(SEED)
    assert both["Bounded"] == _pcov(random_state=rng)
    assert both["Unbounded"] == _pcov(which_sensitivity="unbounded", random_state=rng)


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
    np.testing.assert_array_equal(both["Bounded"].breaks, both["Unbounded"].breaks)


def test_table_both_bounded_noise_first():
    factors = (["a", "b", "a", "c"], ["u", "u", "v", "v"])
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
MEAN_SENS = 1 / 40  # (U - L)/n, §3.1


def _gaussian_cases(sens):
    return [
        pytest.param(dict(mechanism="Gaussian", delta=0.01, type_DP="pDP", eps=1),
                     stats.norm(scale=gaussian_sigma(1, 0.01, sens, "pDP")), id="Gaussian-pDP"),
        pytest.param(dict(mechanism="Gaussian", delta=0.01, eps=0.9),
                     stats.norm(scale=gaussian_sigma(0.9, 0.01, sens, "aDP")), id="Gaussian-aDP"),
        # type_DP is ignored by 'analytic' (§3.0): the analytic aDP calibration is used.
        pytest.param(dict(mechanism="analytic", delta=0.01, eps=0.9, type_DP="pDP"),
                     stats.norm(scale=gaussian_sigma(0.9, 0.01, sens, "aDP", analytic=True)),
                     id="analytic"),
    ]


@pytest.mark.parametrize(
    "kwargs, law",
    [
        pytest.param(dict(eps=1), stats.laplace(scale=MEAN_SENS), id="Laplace-bounded"),
        pytest.param(dict(eps=0.5, which_sensitivity="unbounded"),
                     stats.laplace(scale=MEAN_SENS / 0.5), id="Laplace-unbounded"),
    ] + _gaussian_cases(MEAN_SENS),
)
def test_mean_law(kwargs, law):
    out = _draws(lambda rng: meanDP(MEAN_DATA, lower_bound=0, upper_bound=1, random_state=rng,
                                    **kwargs))
    assert _ks(out - MEAN_TRUE, law.cdf) > ALPHA


def test_mean_law_checks_have_power():
    """The same KS check rejects a scale 20 % off, and the unclipped mean as centre."""
    out = _draws(lambda rng: meanDP(MEAN_DATA, 1, 0, 1, random_state=rng))
    assert _ks(out - MEAN_TRUE, stats.laplace(scale=1.2 * MEAN_SENS).cdf) < ALPHA
    assert _ks(out - np.mean(MEAN_DATA), stats.laplace(scale=MEAN_SENS).cdf) < ALPHA


def test_mean_matrix_averages_every_entry():
    """meanDP accepts a matrix (no is.vector check) and uses n = number of entries (§3.1)."""
    matrix = np.array([[0.2, 0.9, 0.4], [0.1, 0.3, 0.8]])
    out = _draws(lambda rng: meanDP(matrix, 1, 0, 1, random_state=rng))
    assert _ks(out - matrix.mean(), stats.laplace(scale=1 / 6).cdf) > ALPHA
    assert meanDP(matrix, 1, 0, 1, random_state=7) == meanDP(matrix.T, 1, 0, 1, random_state=7)


COV_X1 = np.linspace(-1, 3, 30)
COV_X2 = np.sin(np.arange(30.0)) * 3
COV_TRUE = float(np.cov(np.clip(COV_X1, 0, 2), np.clip(COV_X2, -1, 2))[0, 1])
COV_SENS = 2 * 3 / 30  # (U1 - L1)(U2 - L2)/n, §3.4


@pytest.mark.parametrize(
    "kwargs, law",
    [
        pytest.param(dict(eps=1), stats.laplace(scale=COV_SENS), id="Laplace-bounded"),
        pytest.param(dict(eps=2, which_sensitivity="unbounded"),
                     stats.laplace(scale=COV_SENS / 2), id="Laplace-unbounded"),
    ] + _gaussian_cases(COV_SENS),
)
def test_cov_law(kwargs, law):
    out = _draws(lambda rng: covDP(COV_X1, COV_X2, lower_bound1=0, upper_bound1=2,
                                   lower_bound2=-1, upper_bound2=2, random_state=rng, **kwargs))
    assert _ks(out - COV_TRUE, law.cdf) > ALPHA


def _truncated_cdf(law, true_value):
    """CDF of true_value + noise conditioned on being > 0 (the positivity redraws)."""
    mass = law.sf(-true_value)

    def cdf(t):
        t = np.asarray(t, dtype=float)
        return np.clip((law.cdf(t - true_value) - law.cdf(-true_value)) / mass, 0, 1)

    return cdf


VAR_DATA = np.array([0.2, 0.5, 0.4, 0.45, 0.3, 0.35, 0.6, 0.55, 0.25, 0.5])
VAR_TRUE = float(np.var(VAR_DATA, ddof=1))  # ~0.017, about the noise scale below
VAR_SENS = 1 / 10  # (U - L)^2/n, §3.2


@pytest.mark.parametrize(
    "kwargs, law",
    [
        pytest.param(dict(eps=5), stats.laplace(scale=VAR_SENS / 5), id="Laplace"),
        pytest.param(dict(eps=0.9, mechanism="Gaussian", delta=0.1, type_DP="pDP"),
                     stats.norm(scale=gaussian_sigma(0.9, 0.1, VAR_SENS, "pDP")), id="pDP"),
    ],
)
def test_var_law_is_the_truncated_law(kwargs, law):
    out = _draws(lambda rng: varDP(VAR_DATA, lower_bound=0, upper_bound=1, random_state=rng,
                                   **kwargs))
    assert out.min() > 0
    assert _ks(out, _truncated_cdf(law, VAR_TRUE)) > ALPHA
    # Power: the untruncated law is rejected (a third of its mass or more lies below 0).
    assert _ks(out - VAR_TRUE, law.cdf) < ALPHA


def test_sd_is_the_square_root_of_the_truncated_variance():
    out = _draws(lambda rng: sdDP(VAR_DATA, 5, 0, 1, random_state=rng))
    assert out.min() > 0
    assert _ks(out ** 2, _truncated_cdf(stats.laplace(scale=VAR_SENS / 5), VAR_TRUE)) > ALPHA
    assert sdDP(VAR_DATA, 5, 0, 1, random_state=3) == math.sqrt(
        varDP(VAR_DATA, 5, 0, 1, random_state=3))


@pytest.mark.parametrize("mechanism", ["Laplace", "Gaussian"])
def test_var_of_constant_data_is_positive_half_noise(mechanism):
    """True variance 0: every draw is redrawn until > 0, so the law is |noise| (§3.2)."""
    kwargs = dict(mechanism=mechanism, delta=0.01, eps=0.5)
    out = _draws(lambda rng: varDP(np.full(20, 0.3), lower_bound=0, upper_bound=1,
                                   random_state=rng, **kwargs))
    assert out.min() > 0
    scale = 1 / 20 / 0.5 if mechanism == "Laplace" else gaussian_sigma(0.5, 0.01, 1 / 20)
    law = stats.expon(scale=scale) if mechanism == "Laplace" else stats.halfnorm(scale=scale)
    assert _ks(out, law.cdf) > ALPHA


def test_pooled_var_law():
    true = 19.75  # §3.7 reference
    sens = 53.3333333333333333  # bounded, exact n_max
    out = _draws(lambda rng: pooledVarDP(*SAMPLES, eps=2, lower_bound=-10, upper_bound=10,
                                         random_state=rng))
    assert out.min() > 0
    assert _ks(out, _truncated_cdf(stats.laplace(scale=sens / 2), true)) > ALPHA


def test_pooled_var_unbounded_approx_law():
    true = 7 / 3  # §3.7 reference with pairs; unbounded 83.33, approx changes nothing there
    out = _draws(lambda rng: pooledVarDP(*PAIRS, eps=4, lower_bound=-10, upper_bound=10,
                                         which_sensitivity="unbounded", approx_n_max=True,
                                         random_state=rng))
    assert _ks(out, _truncated_cdf(stats.laplace(scale=250 / 3 / 4), true)) > ALPHA


@pytest.mark.parametrize(
    "kwargs, label, scale",
    [
        pytest.param(dict(eps=1), "Bounded", 800 / 9, id="bounded"),
        pytest.param(dict(eps=1, approx_n_max=True), "Bounded", 400 / 3, id="bounded-approx"),
        pytest.param(dict(eps=2), "Unbounded", 122.38576250846035 / 2, id="unbounded"),
    ],
)
def test_pooled_cov_law(kwargs, label, scale):
    rng = np.random.default_rng(SEED)
    out = np.array([
        pooledCovDP(*COV_SAMPLES, lower_bound1=-10, upper_bound1=10, lower_bound2=-10,
                    upper_bound2=10, which_sensitivity="both", random_state=rng, **kwargs)[label]
        for _ in range(N_CALLS)
    ])
    assert _ks(out + 1.0, stats.laplace(scale=scale).cdf) > ALPHA  # true value -1 (§3.8)


def test_pooled_cov_clips_each_column_to_its_bounds():
    samples = (np.array([[5.0, -5.0], [0.0, 0.5], [1.0, 0.2]]), np.array([[0.5, 9.0], [0.2, 0.1]]))
    clipped = [np.clip(s, [0, -1], [1, 1]) for s in samples]
    true = sum((len(s) - 1) * np.cov(s.T)[0, 1] for s in clipped) / 3
    sens = 2 * (1 - 1 / 3) / 3  # R (1 - 1/n_max)/(N - J), R = 1 * 2
    out = _draws(lambda rng: pooledCovDP(*samples, eps=1, lower_bound1=0, upper_bound1=1,
                                         lower_bound2=-1, upper_bound2=1, random_state=rng))
    assert _ks(out - true, stats.laplace(scale=sens).cdf) > ALPHA


def _rounded_law_pvalue(noise, law):
    """Chi-square p-value of integer noise round(Z) against Z ~ law (ties have probability 0)."""
    noise = np.asarray(noise).ravel()
    assert np.array_equal(noise, np.round(noise))
    ks = np.arange(-60, 61)
    probs = law.cdf(ks + 0.5) - law.cdf(ks - 0.5)
    probs[0] += law.cdf(-60.5)
    probs[-1] += law.sf(60.5)
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


HIST_BREAKS = np.linspace(0, 1, 11)


@pytest.mark.parametrize(
    "kwargs, law",
    [
        pytest.param(dict(eps=0.5), stats.laplace(scale=2 / 0.5), id="Laplace-bounded"),
        pytest.param(dict(eps=0.5, which_sensitivity="unbounded"), stats.laplace(scale=2),
                     id="Laplace-unbounded"),
        pytest.param(dict(eps=0.9, mechanism="Gaussian", delta=0.01),
                     stats.norm(scale=gaussian_sigma(0.9, 0.01, math.sqrt(2))),
                     id="Gaussian-bounded"),
        pytest.param(dict(eps=0.9, mechanism="analytic", delta=0.01,
                          which_sensitivity="unbounded"),
                     stats.norm(scale=gaussian_sigma(0.9, 0.01, 1, analytic=True)),
                     id="analytic-unbounded"),
    ],
)
def test_histogram_law(kwargs, law):
    """Fixed breaks spanning the bounds (no extension): noisy minus true counts is round(Z)."""
    true = histogramDataAccess(X, HIST_BREAKS, "Laplace")["True.Values"].counts
    out = _draws(lambda rng: histogramDP(X, lower_bound=0, upper_bound=1, breaks=HIST_BREAKS,
                                         allow_negative=True, random_state=rng,
                                         **kwargs).counts, n=400)
    assert _rounded_law_pvalue(out - true, law) > ALPHA


def test_histogram_law_check_has_power():
    true = histogramDataAccess(X, HIST_BREAKS, "Laplace")["True.Values"].counts
    out = _draws(lambda rng: histogramDP(X, 0.5, 0, 1, breaks=HIST_BREAKS, allow_negative=True,
                                         random_state=rng).counts, n=400)
    assert _rounded_law_pvalue(out - true, stats.laplace(scale=2 / 0.5 * 1.15)) < ALPHA


def test_table_law():
    factors = (["a", "b", "a", "c", "c", "c"], ["u", "u", "v", "v", "w", "u"])
    true = dppack.tableDataAccess(*factors)["True.Values"].to_numpy()
    out = _draws(lambda rng: tableDP(*factors, eps=0.5, allow_negative=True,
                                     random_state=rng).to_numpy(), n=500)
    assert _rounded_law_pvalue(out - true, stats.laplace(scale=2 / 0.5)) > ALPHA
    gauss = _draws(lambda rng: tableDP(*factors, eps=0.5, mechanism="Gaussian", delta=0.05,
                                       type_DP="pDP", which_sensitivity="unbounded",
                                       allow_negative=True, random_state=rng).to_numpy(), n=500)
    law = stats.norm(scale=gaussian_sigma(0.5, 0.05, 1, "pDP"))
    assert _rounded_law_pvalue(gauss - true, law) > ALPHA


# --------------------------------------------------------------------------------------------
# Quantiles
# --------------------------------------------------------------------------------------------


def _interval_probabilities(x, quant, eps, lower, upper):
    access = quantileDataAccess(x, quant, lower, upper)
    widths = np.diff(access["Sorted"])
    weights = widths * np.exp(eps * access["Utility"] / 2)
    return access["Sorted"], weights / weights.sum()


@pytest.mark.parametrize(
    "x, quant, eps, lower, upper",
    [
        pytest.param([1, 1, -2, 8, -6], 0.25, 1, -10, 10, id="reference-with-ties"),
        pytest.param([-2.5, 0.3, 1.1, 1.2, 2.9, 0.0, -1.0], 0.9, 0.5, -3, 2, id="clipped"),
        pytest.param(np.linspace(-1, 1, 9), 0.5, 2, -2, 2, id="median"),
    ],
)
def test_quantile_interval_frequencies(x, quant, eps, lower, upper):
    ordered, probs = _interval_probabilities(x, quant, eps, lower, upper)
    out = _draws(lambda rng: quantileDP(x, quant, eps, lower, upper, random_state=rng))
    assert np.all((out >= lower) & (out <= upper))
    index = np.searchsorted(ordered, out, side="right") - 1
    index = np.minimum(index, probs.size - 1)
    observed = np.bincount(index, minlength=probs.size)
    assert observed[probs == 0].sum() == 0  # zero-width intervals are never chosen
    cells = probs > 0
    assert stats.chisquare(observed[cells], probs[cells] * out.size).pvalue > ALPHA
    # Uniform position within the chosen interval.
    left, right = ordered[index], ordered[index + 1]
    assert _ks((out - left) / (right - left), stats.uniform.cdf) > ALPHA


def test_quantile_frequency_check_has_power():
    """The chi-square check rejects the probabilities with eps off by 30 %."""
    x = [1, 1, -2, 8, -6]
    ordered, probs = _interval_probabilities(x, 0.25, 1.3, -10, 10)
    out = _draws(lambda rng: quantileDP(x, 0.25, 1, -10, 10, random_state=rng))
    index = np.searchsorted(ordered, out, side="right") - 1
    observed = np.bincount(index, minlength=probs.size)
    cells = probs > 0
    assert stats.chisquare(observed[cells], probs[cells] * out.size).pvalue < ALPHA


def test_median_is_the_half_quantile():
    for seed in range(5):
        assert _median(random_state=seed) == _quantile(quant=0.5, random_state=seed)


def _quantile_full(x, quant, eps, lower, upper, seed):
    """§3.9 with every candidate: what quantileDP computes without its candidate window."""
    access = quantileDataAccess(x, quant, lower, upper)
    ordered = access["Sorted"]
    rng = np.random.default_rng(seed)
    k = ExponentialMechanism(access["Utility"], eps, 1, measure=np.diff(ordered),
                             random_state=rng)
    return ordered[k] + rng.random() * (ordered[k + 1] - ordered[k])


@pytest.mark.parametrize("eps", [1e-4, 0.05, 1, 40])
@pytest.mark.parametrize("data", ["continuous", "ties", "constant"])
def test_quantile_window_is_exact(data, eps):
    """quantileDP passes the exponential mechanism only the candidates whose weight is not
    exactly 0; the result is bit for bit that of the mechanism on all n + 1 candidates, with
    the same draws (the mechanism's uniform, then the position's)."""
    rng = np.random.default_rng(11)
    x = {
        "continuous": rng.normal(size=20_000),
        "ties": np.round(rng.normal(size=20_000), 1),
        "constant": np.zeros(20_000),
    }[data]
    for seed, quant in zip(range(4), (0.0, 0.3, 0.5, 1.0)):
        assert quantileDP(x, quant, eps, -2, 2, random_state=seed) == _quantile_full(
            x, quant, eps, -2, 2, seed)


@pytest.mark.parametrize("eps", [1e-3, 0.05, 1, 40])
@pytest.mark.parametrize("quant", [0.0, 0.3, 1.0])
def test_quantile_window_excludes_only_zero_weights(quant, eps):
    """The invariant behind the window: every candidate outside it has weight exactly 0 in
    ExponentialMechanism's computation (§2.4: measure * exp(eps (u - max u) / (2 Delta)),
    formed in log space and shifted by its maximum), and the window is a strict subset when
    eps n is large."""
    from dppack.stats import _quantile_window

    x = np.random.default_rng(12).normal(size=50_000)
    access = quantileDataAccess(x, quant, -2, 2)
    with np.errstate(divide="ignore"):
        log_weight = (access["Utility"] - access["Utility"].max()) * (eps / 2)
        log_weight += np.log(np.diff(access["Sorted"]))
    weight = np.exp(log_weight - log_weight.max())
    start, stop = _quantile_window(access["Sorted"], x.size, quant, eps, 4.0)
    assert np.all(weight[:start] == 0) and np.all(weight[stop:] == 0)
    assert weight[start:stop].max() == 1.0
    if eps >= 1:
        assert stop - start < x.size / 4


# --------------------------------------------------------------------------------------------
# Histogram: bins, extension, post-processing
# --------------------------------------------------------------------------------------------


def test_histogram_extension_reference():
    """§3.5 reference: x ~ N(3, 2), n = 100, L = -3, U = 9: breaks -2..8 become -3..9."""
    x = np.random.default_rng(0).normal(3, 2, 100)
    true = histogramDataAccess(np.clip(x, -3, 9), "Sturges", "Laplace")["True.Values"]
    np.testing.assert_array_equal(true.breaks, np.arange(-2.0, 9.0))  # precondition
    out = histogramDP(x, 1, -3, 9, random_state=SEED)
    np.testing.assert_array_equal(out.breaks, np.arange(-3.0, 10.0))
    np.testing.assert_array_equal(out.mids, np.arange(-2.5, 9.0))
    assert isinstance(out, rcompat.Histogram)
    assert out.counts.size == 12 and out.equidist and out.xname == "x"


def _dppack_extension(breaks, mids, counts, lower, upper):
    """DPpack's loops of §3.5 step 4, one bin at a time."""
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
    true = histogramDataAccess(np.clip(x, lower, upper), "Sturges", "Laplace")["True.Values"]
    breaks, mids, counts = _dppack_extension(true.breaks, true.mids, true.counts, lower, upper)
    out = histogramDP(x, 1, lower, upper, allow_negative=True, random_state=SEED)
    np.testing.assert_array_equal(out.breaks, breaks)  # bit for bit
    np.testing.assert_array_equal(out.mids, mids)
    assert out.breaks[0] <= lower and out.breaks[-1] >= upper
    assert out.counts.size == counts.size


def test_histogram_extension_has_a_limit():
    """Ours: data in a tiny range with wide bounds would need ~10^12 empty bins."""
    rng = np.random.default_rng(SEED)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="^Extending the histogram to the bounds would add "
                                         "more than 10000000 empty bins"):
        histogramDP([0.5, 0.5 + 1e-9, 0.5 + 2e-9], 1, -1000, 1000, random_state=rng)
    assert rng.bit_generator.state == before


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
    """§3.5 step 6 order: negatives to 0 first, then divide by the sum of what is left."""
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
# Tables: labels and cell order
# --------------------------------------------------------------------------------------------


def test_table_one_factor_labels():
    factor = pd.Series(["b", "a", "b", "c"], name="type")
    out = tableDP(factor, eps=1, random_state=SEED)
    assert isinstance(out, pd.Series)
    assert out.index.tolist() == ["a", "b", "c"] and out.index.name == "type"
    assert out.dtype == np.float64


def test_table_two_factors_labels():
    rows = pd.Series(["x", "y", "x"], name="Type")
    cols = pd.Categorical(["USA", "non-USA", "USA"], categories=["USA", "non-USA"])
    out = tableDP(rows, cols, eps=1, random_state=SEED)
    assert isinstance(out, pd.DataFrame)
    assert out.index.tolist() == ["x", "y"] and out.index.name == "Type"
    assert out.columns.tolist() == ["USA", "non-USA"] and out.columns.name is None


def test_table_three_factors_labels():
    a = pd.Series(["p", "q", "p", "q"], name="A")
    b = pd.Series([1, 2, 2, 1], name="B")
    c = pd.Categorical(["s", "s", "t", "t"], categories=["s", "t", "u"])
    out = tableDP(a, b, c, eps=1, random_state=SEED)
    assert isinstance(out.index, pd.MultiIndex)
    assert list(out.index.names) == ["A", "B", None]
    assert out.index.levshape == (2, 2, 3)
    assert out.index[0] == ("p", 1, "s") and out.index[1] == ("p", 1, "t")  # first slowest


def test_table_noise_in_r_column_major_order():
    """Noise draw i lands on cell i of R's column-major order (first factor fastest)."""
    a = ["p", "q", "r", "p", "q", "p"]
    b = ["u", "v", "u", "v", "v", "u"]
    eps = 0.7
    true = dppack.tableDataAccess(a, b)["True.Values"].to_numpy()
    out = tableDP(a, b, eps=eps, allow_negative=True, random_state=SEED)
    noise = np.random.default_rng(SEED).laplace(0.0, 2 / eps, true.size)  # §3.6 scale 2/eps
    expected = np.round(true.ravel(order="F") + noise).reshape(true.shape, order="F")
    np.testing.assert_array_equal(out.to_numpy(), expected)


def test_table_round_then_negatives_to_zero():
    out = _draws(lambda rng: tableDP(["a", "b"], ["c", "d"], eps=0.2,
                                     random_state=rng).to_numpy(), n=100)
    assert out.min() == 0
    np.testing.assert_array_equal(out, np.round(out))
    assert not np.signbit(out).any()


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
    """Beyond one block (64 Ki values), meanDP and varDP take the sum from the range scan and
    clip block by block (no clipped copy): the true values are numpy's on the clipped data,
    and the noise is the draw of the same seed."""
    x = np.random.default_rng(4).normal(size=150_000)
    clipped = np.clip(x, -bound, bound)
    width = 2 * bound
    noise_mean = meanDP(x, 1, -bound, bound, random_state=9) - clipped.mean()
    expected = np.random.default_rng(9).laplace(0, width / x.size, 1)[0]
    assert noise_mean == pytest.approx(expected, abs=1e-12)
    noise_var = varDP(x, 1, -bound, bound, random_state=9) - clipped.var(ddof=1)
    expected = np.random.default_rng(9).laplace(0, width ** 2 / x.size, 1)[0]
    assert noise_var == pytest.approx(expected, abs=1e-12)


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
