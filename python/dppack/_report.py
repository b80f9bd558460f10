"""The accuracy report of one release, :class:`NoiseInterval`."""

import numbers

import numpy as np

from . import _messages, rcompat


class NoiseInterval:
    """The accuracy report of one release: the half-width of the (1 - alpha) interval of its
    noise, per released value (see :doc:`/guide/accuracy`). Built by
    :func:`noiseIntervalDP`.

    Parameters
    ----------
    statistic, half_width, alpha, simultaneous, coverage, scale, grid, law, units, details
        As the attributes.
    transform : {None, 'sqrt'}, optional
        'sqrt' for sdDP (the half-width is that of the variance).
    range : (float, float), optional
        As the attribute (:func:`noiseIntervalDP` sets it).

    Attributes
    ----------
    statistic : str
        The release it describes.
    half_width : float or numpy.ndarray
        h: abs(release - true value) <= h with probability >= 1 - alpha (per value, or for
        all values at once when ``simultaneous``); for quantiles, a rank error; for
        ExponentialMechanism, a utility shortfall. The counts of histogramDP and tableDP
        (and histogramDP's proportions) have one law for every cell: a scalar, whatever
        ``cells`` (given, it is in ``details``).
    alpha : float
    simultaneous : bool
    coverage : float or numpy.ndarray
        The exact probability P(abs(Z) <= T) of the integer noise (per value), at least the
        per-value level. For the reports resting on several noises at once (the unbounded
        ratios of noisy sums, histogramDP's proportions) the exact probability that all
        of them are within their half-widths (the product over the independent noises), at
        least 1 - alpha. NaN for the exponential mechanism (a bound, not a law).
    scale : float or numpy.ndarray
        The scale of the noise drawn, in the data's units: g t / s for the discrete Laplace
        (its b), g s for the discrete Gaussian (its sigma). NaN where the report is not
        read from a scale: the exponential mechanism (a bound, not a law), the counts and
        proportions of histogramDP and tableDP (their laws, from
        ``stats._histogram.count_noise_laws`` and ``stats._table.thresholded_table_laws``, are given
        by
        their tails and grids only) and the unbounded ratios of noisy sums.
    grid : float or numpy.ndarray
        The grid g = 2^k of the release (for the exponential mechanism, the grid of its
        utilities); NaN for quantilesDP's 'joint' method (its outputs' grid is not a
        utility grid). In R,
        the NaN of ``coverage``, ``scale`` and ``grid`` are NA.
    law : str
        'discrete Laplace', 'discrete Gaussian', 'discrete Laplace (ratio of noisy sums)' /
        'discrete Gaussian (ratio of noisy sums)' (the unbounded moments and pooled
        statistics), 'discrete Laplace (proportions of noisy counts)' / 'discrete Gaussian
        (proportions of noisy counts)' (histogramDP, normalize = TRUE), 'exponential
        mechanism (rank error)' or 'exponential mechanism (utility shortfall)'.
    units : str
        What ``half_width`` measures: 'value', 'count', 'proportion' (histogramDP's
        proportions), 'rank' or 'utility' (ExponentialMechanism: the shortfall of the
        selected candidate's utility).
    details : dict
        The other public quantities a report rests on, by name (for example the half-widths
        of the parts of a ratio, or a threshold); empty when there are none.
    size : int or None
        How many released values the report describes (see the property):
        :meth:`interval` refuses another number.
    range : (float, float) or None
        The public range that holds the true value, from the release's arguments: [0, Inf)
        for counts, [0, 1] for proportions, [lower, upper] for a mean, [0, top] for a
        (pooled) variance, its square root for sdDP, [-top, top] for a covariance (top the
        largest value the bounded data allow, at the public sizes or, unbounded, at their
        lower bounds); None elsewhere (the mechanisms, quantiles). :meth:`interval`
        intersects the interval with it: the truth lies in it, so the coverage is kept.

    References
    ----------
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Theorem
    3.11; Canonne C L, Kamath G, Steinke T (2020), The discrete Gaussian for differential
    privacy.

    Examples
    --------
    >>> from dppack import noiseIntervalDP
    >>> r = noiseIntervalDP("meanDP", eps=1.0, lower_bound=0, upper_bound=1, n=100)
    >>> round(float(r.half_width), 4)  # b ln(1/alpha), b = 1 / (100 eps)
    0.03
    >>> [round(v, 4) for v in r.interval(0.5)]
    [0.47, 0.53]
    """

    def __init__(self, statistic, half_width, alpha, simultaneous, coverage, scale, grid, law,
                 units="value", transform=None, details=None, range=None):
        self.statistic = statistic
        self.half_width = half_width
        self.alpha = alpha
        self.simultaneous = simultaneous
        self.coverage = coverage
        self.scale = scale
        self.grid = grid
        self.law = law
        self.units = units
        self.transform = transform
        self.details = {} if details is None else dict(details)
        self.range = range

    @property
    def size(self):
        """How many released values the report was computed for: the length of
        ``half_width`` for a vector report (a mechanism's ``size``, the ``cells`` of a
        histogram or table, the quantiles); 1 for a scalar statistic (a mean, a variance, a
        mechanism of one value); for the counts of histogramDP and tableDP, ``cells`` when
        the report is ``simultaneous`` (it holds for that many cells at once) and None
        otherwise (the same law and statement per cell, for any number of cells); for
        histogramDP's proportions, ``cells`` (the bound depends on it). :meth:`interval`
        refuses a ``released`` of another length."""
        h = np.asarray(self.half_width)
        if h.ndim:
            return int(h.size)
        if self.units in ("count", "proportion"):
            cells = self.details.get("cells")
            if cells is not None and (self.simultaneous or self.units == "proportion"):
                return int(cells)
            return None
        return 1

    def interval(self, released):
        """The interval around ``released`` that holds the true value with probability at
        least 1 - alpha: (released - h, released + h); for sdDP
        (sqrt(max(s^2 - h, 0)), sqrt(s^2 + h)); for tableDP with undeclared levels, a 0
        (a suppressed or unobserved cell: a released count is above the threshold) gives
        (0, ``details["suppressed_max"]``). The interval is intersected with
        ``range`` when there is one (the truth lies in it: post-processing, the
        coverage is kept).

        Parameters
        ----------
        released : float, array_like or rcompat.Histogram
            The released value(s) the report describes: numeric, finite, as many as
            :attr:`size` (a mechanism's report is for ``size`` values: pass ``size`` to
            :func:`noiseIntervalDP`); a histogram gives its counts. Refused otherwise,
            with a message saying what to pass.

        Returns
        -------
        (float, float) or (numpy.ndarray, numpy.ndarray)

        Examples
        --------
        >>> from dppack import noiseIntervalDP
        >>> r = noiseIntervalDP("sdDP", eps=1.0, lower_bound=0, upper_bound=1, n=100)
        >>> [round(v, 3) for v in r.interval(0.3)]  # sqrt(0.09 -+ h), h = 0.030
        [0.245, 0.346]
        """
        if self.units == "rank":
            raise _messages.value_error(
                "A quantile's report is a bound on its rank error, not an interval of values.")
        if self.units == "utility":
            raise _messages.value_error(
                "ExponentialMechanism's report is a bound on the utility shortfall of the "
                "selected candidate, not an interval of values.")
        value = self._released(released)
        h = np.asarray(self.half_width, dtype=np.float64)
        if h.ndim and h.size == value.size:
            h = h.reshape(value.shape)  # a table's cells, in the released table's shape
        if self.transform == "sqrt":
            low = np.sqrt(np.maximum(value * value - h, 0.0))
            high = np.sqrt(value * value + h)
        else:
            low, high = value - h, value + h
        if "suppressed_max" in self.details:  # tableDP, undeclared levels (_suppressed)
            suppressed = value == 0
            low = np.where(suppressed, 0.0, low)
            high = np.where(suppressed, self.details["suppressed_max"], high)
        if self.range is not None:  # the truth lies in it: intersecting is post-processing
            low = np.clip(low, *self.range)
            high = np.clip(high, *self.range)
        if low.ndim == 0:
            return float(low), float(high)
        return low, high

    def _released(self, released):
        """``released`` checked (numeric, finite, as many values as the report describes,
        :attr:`size`) as a float array; a histogram gives its counts."""
        if released is None:
            raise _messages.value_error(
                "released is required: the value(s) the release returned.")
        if isinstance(released, rcompat.Histogram):
            released = released.counts  # histogramDP's result: its (noisy) counts
        try:
            value = np.asarray(released)
        except (TypeError, ValueError):
            value = np.asarray(None, dtype=object)
        if value.dtype.kind not in "iuf":
            raise _messages.value_error(
                "released must be numeric: the value(s) the release returned (for "
                "histogramDP, its counts).")
        value = value.astype(np.float64)
        if not np.all(np.isfinite(value)):
            raise _messages.value_error("released must be finite (no NA, NaN or Inf).")
        size = self.size
        if size is not None and value.size != size:
            hint = {"LaplaceMechanism": "pass size = {got} to noiseIntervalDP (the mechanism "
                                        "calibrates its noise for all the values)",
                    "GaussianMechanism": "pass size = {got} to noiseIntervalDP (the "
                                         "mechanism calibrates its noise for all the values)",
                    "histogramDP": "pass cells = {got} to noiseIntervalDP",
                    "tableDP": "pass cells = {got} to noiseIntervalDP"}.get(
                        self.statistic, "a report of {statistic} describes {size}")
            raise _messages.value_error(
                "released has {got} value(s) but the report was computed for {size}: "
                + hint + ".", got=int(value.size), size=size, statistic=self.statistic)
        return value

    def to_dict(self):
        """The report as a dict (R's list): the attributes, with ``size`` and ``range``.
        Whole numbers beyond R's 32-bit integers (``cells`` = 10^12, a large ``n``) are
        given as floats: reticulate would wrap them."""
        def r_safe(value):
            if isinstance(value, numbers.Integral) and not isinstance(value, bool) \
                    and abs(int(value)) > 2 ** 31 - 1:
                return float(value)
            return value

        out = {key: r_safe(getattr(self, key)) for key in
               ("statistic", "half_width", "alpha", "simultaneous", "coverage", "scale",
                "grid", "law", "units", "details", "size", "range")}
        out["details"] = {key: r_safe(value) for key, value in self.details.items()}
        return out

    def __repr__(self):
        shown = _shown(self.half_width)
        level = f"{100 * (1 - self.alpha):g}%"
        joint = ", all values at once" if self.simultaneous else ""
        if self.units == "rank":
            head = f"{level} bound{joint}: rank error beyond the best point at most {shown}"
        elif self.units == "utility":
            head = f"{level} bound: utility shortfall at most {shown}"
        else:
            head = f"{level} noise interval{joint}, half-width {shown} ({self.units})"
        lines = [f"NoiseInterval({self.statistic}: {head}; {self.law}"]
        lines += [f"  {name}: {_shown(value)}" for name, value in self.details.items()]
        if self.range is not None:
            lines.append(f"  range: {_shown(list(self.range))}")
        return "\n".join(lines) + ")"


def _shown(value):
    """A value of a report for its display: a number to 6 significant digits, up to 10
    values in full, more as their count and range."""
    v = np.asarray(value)
    if v.dtype.kind not in "iufb":
        return str(value)
    if v.ndim == 0:
        return f"{float(v):.6g}"
    if v.size <= 10:
        return "[" + ", ".join(f"{float(x):.6g}" for x in v.ravel()) + "]"
    return f"{v.size} values in [{float(v.min()):.6g}, {float(v.max()):.6g}]"
