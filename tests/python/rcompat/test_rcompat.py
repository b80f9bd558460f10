"""Tests of dppack.rcompat: R's round(), pretty(), nclass.*, hist() and table() in Python.

The unit tests check each function on values taken from R 4.2.2 (quoted in the comments) and on
properties R documents. The tests marked ``r`` send the same inputs to R through one rpy2
session for the whole module and require identical results: break points and pretty values bit
for bit, counts and table cells exactly. Test vectors are generated here with fixed seeds and
written into the R code as hexadecimal float literals, so both sides see the same doubles.

``require_r()`` is called by the fixture that runs R rather than at module level, so that the
unit tests still run where rpy2 is absent (the NumPy 2 environment, ``-m "not r"``).
"""

import dataclasses
import math
import sys
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from r_session import floats, r_number, r_vector, require_r, run_in_r

import dppack
from dppack import _messages, rcompat

# --------------------------------------------------------------------------------------------
# round_half_even


def test_round_half_even_rounds_halves_to_even():
    # R: round(c(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994)) is 0 2 2 0 -2 -2 0.
    values = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994]
    result = rcompat._pretty.round_half_even(values)
    np.testing.assert_array_equal(result, [0, 2, 2, 0, -2, -2, 0])
    assert math.copysign(1, result[3]) == -1  # R's round(-0.5) is -0 too
    np.testing.assert_array_equal(result, np.round(values))  # numpy rounds the same way


def test_round_half_even_keeps_scalars_and_shapes():
    assert rcompat._pretty.round_half_even(2.5) == 2.0
    assert isinstance(rcompat._pretty.round_half_even(2.5), float)
    matrix = rcompat._pretty.round_half_even([[0.5, 1.5], [2.6, -3.5]])
    assert matrix.shape == (2, 2)
    np.testing.assert_array_equal(matrix, [[0, 2], [3, -4]])
    big = 2.0**53 + 2
    assert rcompat._pretty.round_half_even(big) == big
    assert math.isnan(rcompat._pretty.round_half_even(math.nan))


# --------------------------------------------------------------------------------------------
# pretty


def test_pretty_reproduces_the_examples_of_its_help_page():
    assert rcompat.pretty(1, 15).tolist() == [0, 2, 4, 6, 8, 10, 12, 14, 16]
    assert rcompat.pretty(1, 15, n=4).tolist() == [0, 5, 10, 15]
    assert rcompat.pretty(2, 30).tolist() == [0, 5, 10, 15, 20, 25, 30]
    assert rcompat.pretty(1, 20, n=2).tolist() == [0, 10, 20]
    assert rcompat.pretty(1, 20, n=10).tolist() == list(range(0, 21, 2))


def test_pretty_degenerate_ranges():
    # R: pretty(0) is -1 0; pretty(0, min.n = 0) is 0; pretty(c(5, 5), 1, 1) is 0 5.
    assert rcompat.pretty(0, 0).tolist() == [-1, 0]
    assert rcompat.pretty(0, 0, min_n=0).tolist() == [0]
    assert rcompat.pretty(5, 5, n=1, min_n=1).tolist() == [0, 5]
    assert rcompat.pretty(5, 5, n=30, min_n=30)[[0, -1]].tolist() == [3.5, 6.5]


def test_pretty_grows_one_sided_from_zero():
    # R: pretty(c(0, 10), n = 31, min.n = 31) runs 0 .. 15.5, pretty(c(-10, 0), ...) -15.5 .. 0,
    # while pretty(c(0.04, 10), ...) runs -3 .. 12.5.
    assert rcompat.pretty(0, 10, 31, 31)[[0, -1]].tolist() == [0, 15.5]
    assert rcompat.pretty(-10, 0, 31, 31)[[0, -1]].tolist() == [-15.5, 0]
    assert rcompat.pretty(0.04, 10, 31, 31)[[0, -1]].tolist() == [-3, 12.5]
    assert rcompat.pretty(-10, 1e-12, 31, 31)[[0, -1]].tolist() == [-12.5, 3]


def test_pretty_snaps_rounding_noise_to_zero():
    # R: pretty(c(-3, 0.3), n = 20) is -3.0, -2.8, ..., 0.4 with an exact 0, although
    # seq.int(-3, 0.4, length.out = 18)[16] is -4.440892e-16.
    values = rcompat.pretty(-3, 0.3, n=20)
    assert values[[0, -1]].tolist() == [-3.0, 0.4] and values.size == 18
    step = (values[-1] - values[0]) / 17
    assert values[0] + 15 * step == -4.440892098500626e-16  # what the sequence gives
    assert values[15] == 0.0
    assert float.hex(values[16]) == "0x1.9999999999990p-3"  # R's value, not 0.2


def test_pretty_uses_r_rounding_tolerance():
    # R 4.2: pretty(c(1 - 5e-9, 2)) starts at 0.8 (a tolerance of 1e-7 would start at 1 - 5e-9).
    assert rcompat.pretty(1 - 5e-9, 2)[0] == 0.8


def test_pretty_argument_handling():
    assert rcompat.pretty(10, 1).tolist() == rcompat.pretty(1, 10).tolist()
    assert rcompat.pretty(1, 10, n=2.7).tolist() == [0, 5, 10]  # as.integer(2.7) == 2
    assert rcompat.pretty(1, math.inf).tolist() == rcompat.pretty(1, 1).tolist()
    assert rcompat.pretty(math.nan, math.nan).size == 0
    assert rcompat.pretty(1, 10, n=0).tolist() == [0, 10]
    for n in (-1, math.nan, math.inf, "5", True, 2**31):
        with pytest.raises(ValueError, match="^invalid 'n' argument$"):
            rcompat.pretty(1, 10, n=n)
    for min_n in (-1, 3, math.nan):
        with pytest.raises(ValueError, match="^invalid 'min.n' argument$"):
            rcompat.pretty(1, 10, n=2, min_n=min_n)


def test_pretty_extreme_ranges_warn_like_r():
    with pytest.warns(UserWarning, match=r"very small range 'cell'=2\.00097e-321, corrected"):
        values = rcompat.pretty(1e-320, 2e-320)
    assert values.tolist() == [0.0, float.fromhex("0x0.00000f148440ap-1022")]
    # R: pretty(c(-1e308, 1e308)) is -1e308 -5e307 0 5e307 1e308, without overflow.
    assert rcompat.pretty(-1e308, 1e308).tolist() == [-1e308, -5e307, 0, 5e307, 1e308]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert rcompat.pretty(-1.7e308, 1.7e308, n=1).tolist() == [-1.7e308, 0, 1.7e308]
    assert [str(w.message) for w in caught] == [
        "R_pretty(): infinite range; *ndiv=1, should have ndiv >= 2",
        "R_pretty(): very large range 'cell'=inf, corrected to 1.43815e+308",
    ]


# --------------------------------------------------------------------------------------------
# nclass_*


def test_nclass_sturges():
    assert [rcompat._pretty.nclass_sturges(np.zeros(n)) for n in (1, 2, 7, 8, 9, 1000)] == [
        1, 2, 4, 4, 5, 11,
    ]
    assert isinstance(rcompat._pretty.nclass_sturges([1.0, 2.0]), int)
    with pytest.raises(ValueError, match="at least one value"):
        rcompat._pretty.nclass_sturges([])


def test_nclass_scott():
    # R: nclass.scott(c(1, 2, 3, 4, 10)) is 2; of a constant vector 1.
    assert rcompat._pretty.nclass_scott([1, 2, 3, 4, 10]) == 2
    assert rcompat._pretty.nclass_scott([3.0] * 7) == 1
    with pytest.raises(ValueError, match="at least two"):
        rcompat._pretty.nclass_scott([1.0])
    with pytest.raises(ValueError, match="finite"):
        rcompat._pretty.nclass_scott([1.0, math.nan])
    with pytest.raises(ValueError, match="^'x' must be numeric$"):
        rcompat._pretty.nclass_scott(["a", "b"])


def test_nclass_fd():
    # R: the IQR is of signif(x, 5), the range of x itself.
    assert rcompat._pretty.nclass_fd([1.000001, 1.000002, 1.000003, 1.000004, 2]) == 3
    assert rcompat._pretty.nclass_fd([0, 0, 0, 1, 1, 1, 1, 4.00001]) == 5
    # Zero IQR: wider quantiles (R gives 21), then Scott's rule (R gives 91 for both).
    assert rcompat._pretty.nclass_fd([0.0] * 100 + [1.0]) == 21
    spike = [0.0] * 1000 + [1.0]
    assert rcompat._pretty.nclass_fd(spike) == 91 == rcompat._pretty.nclass_scott(spike)
    assert rcompat._pretty.nclass_fd(np.arange(1.0, 101)) == 5
    assert rcompat._pretty.nclass_fd([5.0, 5.0]) == 1
    with pytest.raises(ValueError, match="at least two"):
        rcompat._pretty.nclass_fd([1.0])


def test_quantiles_and_signif_inside_fd_follow_r_to_the_bit():
    # R: quantile(c(v, v), 0.3) is v itself, although interpolating with R's weight
    # h = (1 + 0.3) - 1 would not give v.
    v = float.fromhex("0x1.fda5c4b8bccbbp+2")
    h = (1 + 0.3) - 1
    assert (1 - h) * v + h * v != v
    assert rcompat._pretty._quantile7(lambda k: v, 2, 0.3) == v
    # R: sprintf("%a", quantile(c(1, 2, 4), c(0.25, 0.6))) is 0x1.8p+0 0x1.3333333333334p+1.
    ordered = [1.0, 2.0, 4.0]
    assert [rcompat._pretty._quantile7(ordered.__getitem__, 3, p) for p in (0.25, 0.6)] == [
        1.5, float.fromhex("0x1.3333333333334p+1"),
    ]
    # R: sprintf("%a", signif(c(3.5096498781709607e-29, -4.669154477579991e-19,
    # 3.0665095551094408e+29), 5)); correctly rounded powers of ten would differ in the last bit.
    values = [3.5096498781709607e-29, -4.669154477579991e-19, 3.0665095551094408e29]
    expected = ["0x1.63ea6cdeba875p-95", "-0x1.139ef49925214p-61", "0x1.ef6b77a8d126ep+97"]
    assert [rcompat._pretty._signif(x, 5) for x in values] == [float.fromhex(e) for e in expected]
    assert rcompat._pretty._signif(123456.0, 5) == 123460.0
    assert rcompat._pretty._signif(0.0, 5) == 0.0


# --------------------------------------------------------------------------------------------
# hist_breaks and hist


def test_rule_names_match_like_r_match_arg():
    x = np.random.default_rng(1).normal(size=2000)
    sturges = rcompat._hist.hist_breaks(x).tolist()
    for name in ("Sturges", "STURGES", "st", ["sturges"], np.array("Sturges")):
        assert rcompat._hist.hist_breaks(x, name).tolist() == sturges
    fd = rcompat.pretty(x.min(), x.max(), rcompat._pretty.nclass_fd(x), 1).tolist()
    for name in ("FD", "fd", "Freedman-Diaconis", "fr"):
        assert rcompat._hist.hist_breaks(x, name).tolist() == fd
    scott = rcompat.pretty(x.min(), x.max(), rcompat._pretty.nclass_scott(x), 1).tolist()
    assert rcompat._hist.hist_breaks(x, "sc").tolist() == scott
    assert fd != sturges and scott != sturges
    for name in ("s", "f", "", "xx", "sturgess"):
        with pytest.raises(ValueError) as error:
            rcompat._hist.hist_breaks(x, name)
        # Python names the argument and its values; R reads R's match.arg() text, as hist()
        assert str(error.value) == (
            "breaks, when a string, must be one of 'Sturges', 'Scott', 'FD' or "
            f"'Freedman-Diaconis' (in any case, or a unique prefix); got {name!r}.")
        assert _messages.r_text(error.value) == (
            "'arg' should be one of \u201csturges\u201d, \u201cfd\u201d, "
            "\u201cfreedman-diaconis\u201d, \u201cscott\u201d"
        )


def test_numbers_of_cells():
    x = np.arange(1.0, 11)
    assert rcompat._hist.hist_breaks(x, 3).tolist() == [0, 5, 10]  # R: hist(1:10, breaks = 3)
    assert rcompat._hist.hist_breaks(x, 2.7).tolist() == [0, 5, 10]
    assert rcompat._hist.hist_breaks(x, [1]).tolist() == [0, 10]
    assert rcompat._hist.hist_breaks(x, np.int64(10)).tolist() == rcompat.pretty(1, 10, 10, 1).tolist()
    assert rcompat._hist.hist_breaks(x, np.array(3.0)).tolist() == [0, 5, 10]
    for bad in (0, 0.5, -1, math.nan, math.inf, True, None, []):
        with pytest.raises(ValueError, match="invalid number of 'breaks'|Invalid breakpoints"):
            rcompat._hist.hist_breaks(x, bad)
    with pytest.raises(ValueError, match="^invalid number of 'breaks'$"):
        rcompat._hist.hist_breaks(x, 0)
    with pytest.warns(UserWarning, match=r"^'breaks = 2e\+06' is too large and set to 1e6$"):
        assert rcompat._hist.hist_breaks([0.0, 1.0], 2e6).size == 1_000_001


def test_user_break_vectors_and_callables():
    x = np.arange(1.0, 11)
    assert rcompat._hist.hist_breaks(x, [0, 11, 5]).tolist() == [0, 5, 11]  # sorted, as R
    assert rcompat._hist.hist_breaks(x, lambda v: 4).tolist() == rcompat._hist.hist_breaks(x, 4).tolist()
    assert rcompat._hist.hist_breaks(x, lambda v: [10, 0, 5]).tolist() == [0, 5, 10]
    assert rcompat._hist.hist_breaks(x, lambda v: [0, math.nan, 10]).tolist() == [0, 10]
    seen = []
    rcompat._hist.hist_breaks([1.0, math.nan, 3.0, math.inf], lambda v: seen.append(v) or 2)
    assert seen[0].tolist() == [1.0, 3.0]  # the callable sees the finite data only
    with pytest.raises(ValueError, match="^invalid number of 'breaks'$"):
        rcompat._hist.hist_breaks(x, lambda v: "a")
    with pytest.raises(ValueError, match="^Invalid breakpoints produced by 'breaks\\(x\\)'"):
        rcompat._hist.hist_breaks(x, lambda v: [])
    with pytest.raises(ValueError, match="^Invalid breakpoints produced by 'breaks\\(x\\)'"):
        rcompat._hist.hist_breaks(x, lambda v: ["a", "b"])
    with pytest.raises(ValueError, match="must be numeric"):
        rcompat._hist.hist_breaks(x, ["a", "b"])
    with pytest.raises(ValueError, match="must not contain NA"):
        rcompat._hist.hist_breaks(x, [0, math.nan, 20])


def test_hist_counts_right_closed_cells_with_the_first_closed():
    # R: hist(c(1, 2, 2, 3, 3, 3), breaks = 3, plot = FALSE)
    h = rcompat.hist([1, 2, 2, 3, 3, 3], breaks=3)
    assert h.breaks.tolist() == [1, 1.5, 2, 2.5, 3]
    assert h.counts.tolist() == [1, 2, 0, 3]
    assert h.counts.dtype == np.int64
    assert h.mids.tolist() == [1.25, 1.75, 2.25, 2.75]
    assert h.equidist is True and h.xname == "x"
    # R: hist(c(1, 2, 3, Inf, NA), plot = FALSE)$counts is 1 1 0 1: non-finite values dropped.
    assert rcompat.hist([1, 2, 3, math.inf, math.nan]).counts.tolist() == [1, 1, 0, 1]


def test_hist_fuzz():
    # R: breaks c(-1, 0, 1, 2) (4 breaks) are fuzzed by 1e-7 * min(h) = 1e-7, so 1e-9 counts in
    # (-1, 0] and 1e-6 in (0, 1]: counts 3 1 1.
    assert rcompat.hist([-1, 0, 1e-9, 1e-6, 2], [-1, 0, 1, 2]).counts.tolist() == [3, 1, 1]
    # ... and not by 1e-7 * diff(range(x)) = 3e-7: R counts 2e-7 in (0, 1].
    assert rcompat.hist([-1, 0, 2e-7, 2], [-1, 0, 1, 2]).counts.tolist() == [2, 1, 1]
    # > 5 breaks: fuzz 1e-7 * median(h). R: counts 3 1 0 ... 0 1.
    x = [0, 1 - 1e-9, 1 + 1e-9, 1 + 1e-6, 10]
    assert rcompat.hist(x, np.arange(11.0)).counts.tolist() == [3, 1] + [0] * 7 + [1]
    # <= 3 breaks: fuzz 1e-7 * diff(range(x)); here 1e-7 * 5.
    assert rcompat.hist([5, 10 + 4e-7], [0, 10]).counts.tolist() == [2]
    with pytest.raises(ValueError):
        rcompat.hist([5, 10 + 6e-7], [0, 10])


def test_hist_errors():
    with pytest.raises(ValueError) as error:
        rcompat.hist(np.arange(1.0, 11), [1, 2])
    assert str(error.value) == "some 'x' not counted; maybe 'breaks' do not span range of 'x'"
    with pytest.raises(ValueError, match="^some 'x' not counted"):
        rcompat.hist(np.arange(1.0, 11), [0, 5, 5])  # R: same error
    with pytest.raises(ValueError, match="^'x' must be numeric$"):
        rcompat.hist(["a"])
    with pytest.raises(ValueError, match="^'x' must be numeric$"):
        rcompat.hist([True, False])
    with pytest.raises(ValueError, match="^invalid number of 'breaks'$"):
        rcompat.hist([math.nan])
    with pytest.raises(ValueError, match="at least two"):
        rcompat.hist([5.0], "Scott")


def test_hist_unusual_user_breaks_as_r():
    # R: hist(1:10, breaks = c(0, 1, 1, 11)): counts 1 0 9, mids 0.5 1 6, equidist FALSE.
    h = rcompat.hist(np.arange(1.0, 11), [0, 1, 1, 11])
    assert (h.counts.tolist(), h.mids.tolist(), h.equidist) == ([1, 0, 9], [0.5, 1, 6], False)
    # R: all widths zero with 4 breaks: fuzz Inf, everything in the first cell.
    assert rcompat.hist([5, 5], [5, 5, 5, 5]).counts.tolist() == [2, 0, 0]
    # R: median width zero (7 breaks): no fuzz. Counts 2 0 0 0 0 1.
    h = rcompat.hist([0.5, 1, 1.5], [0, 1, 1, 1, 1, 1, 2])
    assert h.counts.tolist() == [2, 0, 0, 0, 0, 1]
    # R: hist(1:10, breaks = c(0, 5, Inf)): counts 5 5, mids 2.5 Inf.
    h = rcompat.hist(np.arange(1.0, 11), [0, 5, math.inf])
    assert (h.counts.tolist(), h.mids.tolist(), h.equidist) == ([5, 5], [2.5, math.inf], False)
    # Empty data with user breaks: zero counts (R too, with a warning).
    assert rcompat.hist([], [0, 1, 2]).counts.tolist() == [0, 0]


def test_hist_equidist():
    x = np.arange(1.0, 10)
    assert rcompat.hist(x, [0, 5, 10]).equidist is True
    assert rcompat.hist(x, [0, 5, 10 + 1e-7]).equidist is True  # widths differ by < 1e-7 mean
    assert rcompat.hist(x, [0, 5, 10 + 1e-5]).equidist is False
    assert rcompat.hist(x, [0, 2, 10]).equidist is False
    assert rcompat.hist(x, "Scott").equidist is True


def _reference_counts(x, breaks):
    """R's counting rule written out cell by cell (slow, obviously right)."""
    widths = np.diff(breaks)
    if breaks.size > 5:
        diddle = 1e-7 * np.median(widths)
    elif breaks.size <= 3:
        diddle = 1e-7 * (x.max() - x.min())
    else:
        diddle = 1e-7 * widths[widths > 0].min()
    fuzzy = breaks + diddle
    fuzzy[0] = breaks[0] - diddle
    counts = [np.sum((x > fuzzy[i]) & (x <= fuzzy[i + 1])) for i in range(breaks.size - 1)]
    counts[0] += np.sum(x == fuzzy[0])
    return counts, fuzzy


@pytest.mark.parametrize(
    "data",
    [
        np.random.default_rng(2).normal(size=3000),
        1 + 1e-13 * np.arange(-40.0, 41),  # range near pretty()'s "small" threshold
        np.random.default_rng(3).normal(size=500) * 1e15 + 3e16,
        np.round(np.random.default_rng(4).normal(size=2000), 2),
    ],
)
@pytest.mark.parametrize("equal", [True, False])
def test_hist_counts_are_exact_on_and_around_every_fuzzy_break(data, equal):
    breaks = rcompat._hist.hist_breaks(data, 40)
    if not equal:
        breaks = np.sort(np.concatenate([breaks, [breaks[1] + 0.3 * (breaks[2] - breaks[1])]]))
    _, fuzzy = _reference_counts(data, breaks)
    probes = np.concatenate(
        [
            data,
            breaks,
            fuzzy,
            np.nextafter(fuzzy, -np.inf),
            np.nextafter(fuzzy, np.inf),
            0.5 * (breaks[1:] + breaks[:-1]),
        ]
    )
    probes = probes[(probes >= fuzzy[0]) & (probes <= fuzzy[-1])]
    expected, _ = _reference_counts(probes, breaks)
    h = rcompat.hist(probes, breaks)
    assert h.counts.tolist() == [int(c) for c in expected]
    assert h.counts.sum() == probes.size
    # Both counting paths are exercised: arithmetic for equal widths, binary search otherwise.
    model = rcompat._hist._affine_model(breaks, fuzzy, probes.min(), probes.max())
    assert (model is not None) == equal


def test_histogram_object():
    h = rcompat.hist([1, 2, 2, 3, 3, 3], breaks=3, xname="age")
    assert [f.name for f in dataclasses.fields(h)] == [
        "breaks", "counts", "mids", "xname", "equidist",
    ]
    assert not hasattr(h, "density")
    text = repr(h)
    assert "xname='age'" in text and "4 cells" in text
    assert "counts: [1 2 0 3]" in text and "breaks: [1.  1.5 2.  2.5 3. ]" in text


def _fake_matplotlib(monkeypatch):
    calls = {}

    class Axes:
        def bar(self, left, height, **options):
            calls["bar"] = (np.asarray(left), np.asarray(height), options)

        def set_title(self, text):
            calls["title"] = text

        def set_xlabel(self, text):
            calls["xlabel"] = text

        def set_ylabel(self, text):
            calls["ylabel"] = text

    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.subplots = lambda: (None, Axes())
    package = types.ModuleType("matplotlib")
    package.pyplot = pyplot
    monkeypatch.setitem(sys.modules, "matplotlib", package)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    return calls, Axes


def test_plot_draws_one_bar_per_cell(monkeypatch):
    calls, axes_type = _fake_matplotlib(monkeypatch)
    h = rcompat.hist([1, 2, 2, 3, 3, 3], breaks=[1, 1.5, 3], xname="age")
    ax = h.plot(color="red")
    assert isinstance(ax, axes_type)
    left, height, options = calls["bar"]
    assert left.tolist() == [1, 1.5] and height.tolist() == [1, 5]
    assert np.asarray(options["width"]).tolist() == [0.5, 1.5]
    assert options["align"] == "edge" and options["color"] == "red"
    assert options["edgecolor"] == "black"
    assert (calls["title"], calls["xlabel"], calls["ylabel"]) == (
        "Histogram of age", "age", "Frequency",
    )
    assert h.plot(ax=ax) is ax


def test_plot_without_matplotlib_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install dppack\[plot\]"):
        rcompat.hist([1.0, 2.0]).plot()


def test_plot_with_real_matplotlib():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h = rcompat.hist(np.random.default_rng(5).normal(size=100))
    ax = h.plot()
    try:
        assert len(ax.patches) == h.counts.size
        assert [p.get_height() for p in ax.patches] == h.counts.tolist()
    finally:
        plt.close(ax.figure)


def test_a_private_histogram_is_titled_with_what_it_spent():
    # issue 15 item 5: the plot of a release says that it is private and what it spent
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.random.default_rng(7).normal(size=50)
    releases = [
        (dppack.histogramDP(x, 1, -3, 3, random_state=1),
         "Private histogram of x, eps = 1 (pure DP)"),
        (dppack.histogramDP(x, 0.5, -3, 3, mechanism="Gaussian", delta=1e-5, random_state=1),
         "Private histogram of x, (eps, delta) = (0.5, 1e-05)"),
        # 'both': each of the pair states the pair's total (3 eps under bounded DP)
        (dppack.histogramDP(x, 1, -3, 3, which_sensitivity="both", random_state=1)["Bounded"],
         "Private histogram of x, eps = 3 (pure DP)"),
    ]
    for release, title in releases:
        ax = release.plot()
        try:
            assert ax.get_title() == title
        finally:
            plt.close(ax.figure)


def test_hist_agrees_with_numpy_away_from_breaks_and_leaves_the_data_alone():
    x = np.random.default_rng(6).normal(size=200_000)
    copy = x.copy()
    h = rcompat.hist(x)
    np.testing.assert_array_equal(x, copy)
    # numpy's cells are left-closed and not fuzzed: the two agree when no value lies within
    # the fuzz (1e-7 of a cell) of a break.
    fuzz = 1e-7 * np.median(np.diff(h.breaks))
    assert np.min(np.abs(x[:, None] - h.breaks[None, :])) > fuzz
    expected, _ = np.histogram(x, bins=h.breaks)
    assert h.counts.tolist() == expected.tolist()


# --------------------------------------------------------------------------------------------
# factorize and table


def test_factorize_sorts_numbers_numerically_and_strings_by_code_point():
    codes, levels = rcompat._factor.factorize([10, 9, 100, 9])
    assert levels == [9, 10, 100] and codes.tolist() == [1, 0, 2, 0]
    assert codes.dtype == np.int64
    codes, levels = rcompat._factor.factorize(["b", "a", "B", "a"])
    assert levels == ["B", "a", "b"] and codes.tolist() == [2, 1, 0, 1]
    assert rcompat._factor.factorize([True, False])[1] == [False, True]
    assert rcompat._factor.factorize(pd.Series([2.5, -1.0]))[1] == [-1.0, 2.5]
    assert rcompat._factor.factorize(np.array(["x", "y"], dtype=object))[1] == ["x", "y"]


def test_factorize_merges_floats_r_prints_alike():
    # R: table(c(0.3, 0.1 + 0.2, 1/3, 0.333333333333333, 0.3)) has two cells, "0.3" (3) and
    # "0.333333333333333" (2): factor levels are as.character(x), 15 significant digits.
    codes, levels = rcompat._factor.factorize([0.3, 0.1 + 0.2, 1 / 3, 0.333333333333333, 0.3])
    assert levels == [0.3, 0.333333333333333] and codes.tolist() == [0, 0, 1, 1, 0]
    counts, _ = rcompat.table([0.1 + 0.2, 0.3, 0.30000000000001])
    assert counts.tolist() == [2, 1]
    assert rcompat._factor.factorize([1e-20, 1.0000000000000002e-20, 2.0])[1] == [1e-20, 2.0]


def test_factorize_keeps_categorical_levels_in_order():
    categorical = pd.Categorical(["lo", "hi", "lo"], categories=["lo", "mid", "hi"])
    codes, levels = rcompat._factor.factorize(categorical)
    assert levels == ["lo", "mid", "hi"] and codes.tolist() == [0, 2, 0]
    codes, levels = rcompat._factor.factorize(pd.Series(categorical))
    assert levels == ["lo", "mid", "hi"] and codes.tolist() == [0, 2, 0]


@pytest.mark.parametrize(
    "values",
    [
        [1.0, math.nan],
        ["a", None],
        pd.Series([1, None], dtype="Int64"),
        pd.Series(["a", pd.NA], dtype="string"),
        pd.Categorical(["a", None, "b"]),
        pd.Series(["a", None], dtype="category"),
        np.array(["2024-01-01", "NaT"], dtype="datetime64[D]"),
    ],
)
def test_factorize_refuses_missing_values(values):
    with pytest.raises(ValueError, match="must not contain missing values"):
        rcompat._factor.factorize(values)


def test_factorize_refuses_mixed_types_and_matrices():
    with pytest.raises(TypeError, match="mixed types"):
        rcompat._factor.factorize(np.array([1, "a"], dtype=object))
    with pytest.raises(ValueError, match="one-dimensional"):
        rcompat._factor.factorize(np.zeros((2, 2)))


def test_table_counts_every_combination():
    a = ["x", "y", "x", "x", "z"]
    b = [1, 2, 2, 1, 1]
    counts, levels = rcompat.table(a, b)
    assert levels == [["x", "y", "z"], [1, 2]]
    assert counts.dtype == np.int64
    assert counts.tolist() == [[2, 1], [0, 1], [1, 0]]
    counts, levels = rcompat.table(a)
    assert counts.tolist() == [3, 1, 1] and levels == [["x", "y", "z"]]


def test_table_keeps_unused_levels_as_zero_cells():
    colour = pd.Categorical(["red", "red"], categories=["blue", "red"])
    counts, levels = rcompat.table(colour, [True, False], ["u", "u"])
    assert counts.shape == (2, 2, 1)
    assert levels == [["blue", "red"], [False, True], ["u"]]
    assert counts[:, :, 0].tolist() == [[0, 0], [1, 1]]


def test_table_matches_a_brute_force_count():
    rng = np.random.default_rng(8)
    factors = [rng.integers(0, 4, 5000), rng.choice(["p", "q", "r"], 5000), rng.random(5000) < 0.3]
    counts, levels = rcompat.table(*factors)
    assert counts.shape == (4, 3, 2) and counts.sum() == 5000
    for i, u in enumerate(levels[0]):
        for j, v in enumerate(levels[1]):
            for k, w in enumerate(levels[2]):
                expected = np.sum((factors[0] == u) & (factors[1] == v) & (factors[2] == w))
                assert counts[i, j, k] == expected


def test_table_errors():
    with pytest.raises(ValueError) as error:
        rcompat.table([1, 2], [1, 2, 3])
    assert str(error.value) == "all arguments must have the same length"
    with pytest.raises(ValueError, match="^nothing to tabulate$"):
        rcompat.table()
    with pytest.raises(ValueError, match="missing values"):
        rcompat.table([1, 2], [1, math.nan])
    counts, levels = rcompat.table([], [])
    assert counts.shape == (0, 0) and levels == [[], []]


@pytest.mark.parametrize("k", [3, 13], ids=["one-int64-key", "too-many-combinations"])
def test_observed_cells_are_the_nonzero_cells_of_table_in_column_major_order(k):
    """observed_cells lists table()'s nonzero cells, first factor fastest; 40^13 > 2^62
    combinations take the row-sorting path."""
    rng = np.random.default_rng(3)
    factors = [rng.integers(0, 40, 300) for _ in range(k)]
    factors[0] = np.where(factors[0] < 20, "a", "b")  # and a text factor
    cells, counts, levels = rcompat._factor.observed_cells(*factors)
    assert [len(level) for level in levels] == [2] + [40] * (k - 1)
    rows = np.column_stack([rcompat._factor.factorize(f)[0] for f in factors])
    unique, expected = np.unique(rows[:, ::-1], axis=0, return_counts=True)
    np.testing.assert_array_equal(np.column_stack(cells), unique[:, ::-1])
    np.testing.assert_array_equal(counts, expected)
    if k == 3:
        table, _ = rcompat.table(*factors)
        flat = table.ravel(order="F")
        np.testing.assert_array_equal(counts, flat[flat > 0])
    cells, counts, levels = rcompat._factor.observed_cells([], [])
    assert counts.size == 0 and all(c.size == 0 for c in cells) and levels == [[], []]
    assert not rcompat._factor.has_declared_levels(["a"]) and not rcompat._factor.has_declared_levels(
        pd.Series(["a"]))
    assert rcompat._factor.has_declared_levels(pd.Categorical(["a"]))
    assert rcompat._factor.has_declared_levels(pd.Series(["a"], dtype="category"))


# --------------------------------------------------------------------------------------------
# Parity with R 4.2.2


def _vectors():
    """Named test vectors, each from its own fixed seed."""
    def rng(seed):
        return np.random.default_rng(1000 + seed)

    return {
        "normal_100": rng(1).normal(size=100),
        "normal_1000": rng(2).normal(3, 2, size=1000),
        "uniform_37": rng(3).uniform(-5, 5, 37),
        "integers_ties": rng(4).integers(-10, 11, 200).astype(float),
        "rounded_ties": np.round(rng(5).normal(size=500), 1),
        "tiny_range": 1 + 1e-12 * rng(6).normal(size=50),
        "huge_values": 1e15 * rng(7).normal(size=80),
        "tiny_values": 1e-8 * rng(8).normal(size=60),
        "constant": np.full(20, 3.7),
        "single": np.array([5.0]),
        "single_zero": np.array([0.0]),
        "zeros": np.zeros(10),
        "skewed": rng(9).exponential(size=300) ** 3,
        "tenths": np.arange(31) * 0.1,
        "thirds_of_tenths": rng(10).choice([0.0, 0.3, 0.6, 0.9, 1.2], 150),
        "negative": -rng(11).exponential(size=120),
        "zeros_and_outlier": np.concatenate([np.zeros(1000), [1.0]]),
        "two_values": np.array([1.0, 2.0]),
        "normal_5000": rng(12).normal(size=5000),
        "lognormal": rng(13).lognormal(0, 2, 400),
        "small_integers": rng(14).integers(0, 4, 1000).astype(float),
        "signed_zeros": np.array([-0.0, 0.0, 1.0, -1.0, 0.0]),
        "offset_noise": 1e6 + 1e-3 * rng(15).normal(size=90),
        "denormal_scale": 1e-300 * rng(16).normal(size=40),
        "thirds": np.arange(0, 31) / 3,
        "mixture": np.concatenate([rng(17).normal(-3, 1, 200), rng(18).normal(4, 0.5, 100)]),
        "uniform_10": rng(19).uniform(size=10),
        "cauchy": rng(20).standard_cauchy(size=200),
        "one_to_ten": np.arange(1.0, 11),
        "poisson": rng(21).poisson(3, 400).astype(float),
        "beta": rng(22).beta(0.5, 0.5, 250),
        "large_offset_steps": 1e10 + rng(23).integers(0, 50, 100),
        "square_roots": np.sqrt(np.arange(1.0, 60)),
        "on_breaks": np.linspace(-1, 1, 21),
        "with_nonfinite": np.concatenate(
            [rng(24).normal(size=30), [math.nan, math.inf, -math.inf]]
        ),
        "ulp_pair": np.array([1.0, 1.0 + 2**-52]),
    }


VECTORS = _vectors()


def _fn_vector(x):
    low, high = math.floor(min(x)), math.ceil(max(x))
    return [low + 0.5, low - 1, high + 1]


def _user_equal(x):
    x = x[np.isfinite(x)]
    return np.linspace(x.min() - 1, x.max() + 1, 7)


def _user_unequal(x):
    x = x[np.isfinite(x)]
    inner = np.random.default_rng(99).uniform(x.min(), x.max(), 3)
    return np.concatenate([[x.max()], inner, [x.min()]])  # unsorted on purpose


# name: (R breaks expression or a function of x giving one, Python breaks or function of x)
BREAK_SPECS = {
    "sturges": (None, "Sturges"),
    "scott": ('"Scott"', "Scott"),
    "fd": ('"FD"', "FD"),
    "freedman": ('"Freedman-Diaconis"', "Freedman-Diaconis"),
    "prefix": ('"st"', "st"),
    "n1": ("1", 1),
    "n3": ("3", 3),
    "n10.5": ("10.5", 10.5),
    "fn_number": ("function(x) ceiling(sqrt(length(x)))", lambda x: math.ceil(math.sqrt(len(x)))),
    "fn_vector": (
        "function(x) c(floor(min(x)) + 0.5, floor(min(x)) - 1, ceiling(max(x)) + 1)",
        _fn_vector,
    ),
    "user_equal": (lambda x: r_vector(_user_equal(x)), _user_equal),
    "user_unequal": (lambda x: r_vector(_user_unequal(x)), _user_unequal),
}

HIST_CASES = [(v, b) for v in VECTORS for b in BREAK_SPECS]

# Explicit cases: (R data, R breaks, Python data, Python breaks).
EXTRA_HIST_CASES = {
    "not_counted": ("1:10", "c(1, 2)", np.arange(1.0, 11), [1, 2]),
    "bad_rule": ("1:10", '"s"', np.arange(1.0, 11), "s"),
    "zero_cells": ("1:10", "0", np.arange(1.0, 11), 0),
    "na_cells": ("1:10", "NA_real_", np.arange(1.0, 11), math.nan),
    "string_from_function": ("1:10", 'function(x) "a"', np.arange(1.0, 11), lambda x: "a"),
    "duplicate_breaks": ("1:10", "c(0, 1, 1, 11)", np.arange(1.0, 11), [0, 1, 1, 11]),
    "zero_widths": ("c(5, 5)", "c(5, 5, 5, 5)", [5.0, 5.0], [5, 5, 5, 5]),
    "zero_median_width": (
        "c(0.5, 1, 1.5)", "c(0, 1, 1, 1, 1, 1, 2)", [0.5, 1, 1.5], [0, 1, 1, 1, 1, 1, 2],
    ),
    "infinite_break": ("1:10", "c(0, 5, Inf)", np.arange(1.0, 11), [0, 5, math.inf]),
    "null_breaks": ("1:10", "NULL", np.arange(1.0, 11), None),
}


def _pretty_cases():
    rng = np.random.default_rng(2025)
    cases = [
        (0, 0, 5, None), (0, 0, 5, 0), (1, 10, 0, None), (5, 5, 1, 1), (-5, -5, 30, 30),
        (0, 10, 31, 31), (-10, 0, 31, 31), (0.04, 10, 31, 31), (-10, -0.04, 31, 31),
        (1, 10, 30, 30), (-0.3, 0.7, 10, None), (1 - 5e-9, 2, 5, None), (-1e308, 1e308, 5, None),
        (-1.7e308, 1.7e308, 5, None), (0, 1e308, 5, None), (1e15, 1e15 + 2, 10, 1),
        (123456789, 123456789.00001, 5, 1), (-3, 7, 1, 1), (0.1, 0.3, 2, 1),
        (1e-300, 1e-300, 5, 1),
    ]
    for _ in range(150):
        scale = 10 ** rng.uniform(-12, 15)
        low = float(rng.uniform(-1, 1) * scale)
        kind = rng.integers(0, 4)
        if kind == 0:
            high = low + float(rng.uniform(0, 1)) * scale
        elif kind == 1:
            high = low * (1 + float(rng.uniform(0, 1e-13)))
        elif kind == 2:
            low = float(rng.choice([0, -int(rng.integers(1, 30)), int(rng.integers(1, 30))]))
            high = low + float(rng.integers(0, 50))
        else:
            high = float(rng.uniform(-1, 1) * scale)
        n = int(rng.choice([1, 2, 3, 5, 7, 10, 13, 20, 31]))
        min_n = [None, 1, 0, n][int(rng.integers(0, 4))]
        cases.append((low, high, n, min_n))
    return cases


PRETTY_CASES = _pretty_cases()


def _factor_data():
    rng = np.random.default_rng(77)
    n = 300
    return {
        "a": rng.integers(1, 5, n),
        "b": rng.choice(["fig", "kiwi", "apple", "date"], n),
        "c": rng.random(n) < 0.4,
        "d": pd.Categorical(
            rng.choice(["zeta", "mu", "alpha"], n), categories=["zeta", "mu", "alpha", "unused"]
        ),
        "e": rng.choice([9.0, 10.0, -1.5], n),  # numeric order differs from string order
        # Doubles that as.character() prints alike are one level in R.
        "g": rng.choice(
            [0.3, 0.1 + 0.2, 1 / 3, 0.333333333333333, 2.0, 1e-20, 1.0000000000000002e-20], n
        ),
    }


FACTORS = _factor_data()
TABLE_CASES = ["a", "e", "d", "g", "a b", "d c", "g c", "a b d", "c e b"]


def _r_factor(name):
    values = FACTORS[name]
    if name == "b":
        return "c(" + ", ".join(f'"{v}"' for v in values) + ")"
    if name == "c":
        return "c(" + ", ".join("TRUE" if v else "FALSE" for v in values) + ")"
    if name == "d":
        levels = ", ".join(f'"{v}"' for v in values.categories)
        return f"factor(c({', '.join(repr(str(v)) for v in values)}), levels = c({levels}))"
    return r_vector(values)


def _r_label(level):
    """A Python level as R prints it in dimnames."""
    if isinstance(level, (bool, np.bool_)):
        return "TRUE" if level else "FALSE"
    if isinstance(level, float):
        return f"{level:.15g}"  # as R's as.character() for these values
    return str(level)


def _r_breaks_expression(vector, spec):
    r_breaks = BREAK_SPECS[spec][0]
    if callable(r_breaks):
        r_breaks = r_breaks(VECTORS[vector])
    return "" if r_breaks is None else f", breaks = {r_breaks}"


def _r_code():
    code = {"vectors": "{" + "; ".join(
        f"`{name}` <- {r_vector(x)}" for name, x in VECTORS.items()
    ) + "; TRUE}"}
    for vector, spec in HIST_CASES:
        code[f"hist {vector} {spec}"] = (
            f"hist(`{vector}`{_r_breaks_expression(vector, spec)}, plot = FALSE)"
        )
    for name, (r_data, r_breaks, _, _) in EXTRA_HIST_CASES.items():
        code[f"extra {name}"] = f"hist({r_data}, breaks = {r_breaks}, plot = FALSE)"
    for i, (low, high, n, min_n) in enumerate(PRETTY_CASES):
        extra = "" if min_n is None else f", min.n = {min_n}"
        code[f"pretty {i}"] = (
            f"suppressWarnings(pretty(c({r_number(low)}, {r_number(high)}), n = {n}{extra}))"
        )
    code["factors"] = "{" + "; ".join(
        f"f_{name} <- {_r_factor(name)}" for name in FACTORS
    ) + "; TRUE}"
    for case in TABLE_CASES:
        args = ", ".join(f"f_{name}" for name in case.split())
        code[f"table {case}"] = (
            f"local({{t <- table({args}); "
            "list(counts = as.vector(t), dim = dim(t), dimnames = unname(dimnames(t)))})"
        )
    return code


@pytest.fixture(scope="module")
def r_results():
    require_r()
    results = run_in_r(_r_code())
    for setup in ("vectors", "factors"):
        assert "error" not in results[setup], results[setup]
    return results


def _python_hist(data, breaks):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rcompat.hist(data, breaks)


def _check_hist(r_value, data, breaks):
    if "error" in r_value:
        r_message = r_value["error"].strip().splitlines()[-1].strip()
        with pytest.raises(ValueError) as error:
            _python_hist(data, breaks)
        # Identical text where R's is meaningful; ours quotes R's where we word it better.
        # (The text an R caller reads: a Python caller may read a Python wording.)
        ours = _messages.r_text(error.value)
        assert r_message == ours or r_message in ours, (r_message, ours)
        return
    r_hist = r_value["list"]
    h = _python_hist(data, breaks)
    assert [v.hex() for v in h.breaks.tolist()] == [v.hex() for v in floats(r_hist["breaks"])]
    assert h.counts.tolist() == [int(v) for v in floats(r_hist["counts"])]
    assert [v.hex() for v in h.mids.tolist()] == [v.hex() for v in floats(r_hist["mids"])]
    assert h.equidist == bool(floats(r_hist["equidist"])[0])


@pytest.mark.r
@pytest.mark.parametrize("vector,spec", HIST_CASES, ids=[f"{v}-{b}" for v, b in HIST_CASES])
def test_hist_matches_r(r_results, vector, spec):
    python_breaks = BREAK_SPECS[spec][1]
    data = VECTORS[vector]
    if callable(python_breaks) and spec.startswith("user"):
        python_breaks = python_breaks(data)
    _check_hist(r_results[f"hist {vector} {spec}"], data, python_breaks)


@pytest.mark.r
@pytest.mark.parametrize("name", list(EXTRA_HIST_CASES))
def test_hist_edge_cases_match_r(r_results, name):
    _, _, data, breaks = EXTRA_HIST_CASES[name]
    _check_hist(r_results[f"extra {name}"], data, breaks)


@pytest.mark.r
def test_r_parity_covers_errors_and_successes(r_results):
    # The parity cases include both R errors (Scott/FD of one value, bad breaks) and results.
    outcomes = [("error" in r_results[f"hist {v} {b}"]) for v, b in HIST_CASES]
    assert 0 < sum(outcomes) < len(outcomes) / 10
    assert len(VECTORS) >= 30


@pytest.mark.r
def test_pretty_matches_r(r_results):
    mismatches = []
    for i, (low, high, n, min_n) in enumerate(PRETTY_CASES):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = [v.hex() for v in rcompat.pretty(low, high, n, min_n).tolist()]
        theirs = [v.hex() for v in floats(r_results[f"pretty {i}"])]
        if ours != theirs:
            mismatches.append(((low, high, n, min_n), ours, theirs))
    assert mismatches == []


@pytest.mark.r
@pytest.mark.parametrize("case", TABLE_CASES)
def test_table_matches_r(r_results, case):
    r_table = r_results[f"table {case}"]["list"]
    counts, levels = rcompat.table(*(FACTORS[name] for name in case.split()))
    assert list(counts.shape) == [int(d) for d in floats(r_table["dim"])]
    assert counts.ravel(order="F").tolist() == [int(v) for v in floats(r_table["counts"])]
    r_levels = [entry["strings"] for entry in r_table["dimnames"]["list"].values()]
    assert [[_r_label(level) for level in dim] for dim in levels] == r_levels
