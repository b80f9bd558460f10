"""Instance B: histogram density estimation (Chaudhuri and Vinterbo 2013, Theorem 6)."""

import numpy as np

from ... import _backends, _checks, _messages, _plans, _random, rcompat
from ...erm._design import split_rows
from ._constants import stability_constants_histogram
from ._procedure import StableTrainer, check_settings, tuning_loss, validate


def _bins(h):
    """1/h, which must be a whole number."""
    count = 1.0 / h
    bins = int(round(count))
    if bins < 1 or abs(count - bins) > 1e-9 * count:
        raise _messages.value_error(
            "Every bin width h must have 1/h a whole number (not h = {h}).", h=h)
    return bins


class HistogramTrainer(StableTrainer):
    """F of Chaudhuri and Vinterbo 2013 (Alg. 5): noisy counts max(0, n_i + 2 R_i / eps) over
    1/h equal bins of [0, 1] (R's hist() cells); theta is the bin width h."""

    def __init__(self):
        self._counts = {}

    def n_records(self, data):
        return data.size

    def counts(self, data, bins):
        key = (id(data), bins)
        if key not in self._counts:
            breaks = np.linspace(0.0, 1.0, bins + 1)
            self._counts[key] = (data, rcompat.hist(data, breaks=breaks).counts.astype(float))
        return self._counts[key][1]

    def draw_noise(self, T, thetas, rng):
        """R: standard Laplace values, data-free (they feed only the scores)."""
        return _random.laplace(1.0, max(_bins(h) for h in thetas), rng)

    def fit(self, T, theta, eps, noise):
        bins = _bins(theta)
        # Algorithm 5: Laplace scale 2/eps (a replacement moves one count down and one up)
        return np.maximum(0.0, self.counts(T, bins) + 2.0 * noise[:bins] / eps)

    def release(self, T, theta, eps, rng):
        """The released histogram: the counts with exact discrete Laplace noise (L1 sensitivity 2
        over 2 coordinates), clamped at 0."""
        counts = self.counts(T, _bins(theta))
        noisy = _random.discrete_laplace_noise(counts, 2.0, eps, rng, coordinates=2)
        return np.maximum(0.0, noisy)

    def score(self, model, V):
        bins = model.size
        h = 1.0 / bins
        total = model.sum()
        # no mass left gives the uniform density (our choice; the paper leaves it open)
        density = model / (h * total) if total > 0 else np.ones(bins)
        # Eq. 6: q = -int f^2 + (2/m) sum_j f(z_j)
        return float(-h * np.sum(density ** 2)
                     + 2.0 / V.size * np.dot(density, self.counts(V, bins)))

    def stability_constants(self, T, V, thetas, eps, delta):
        return stability_constants_histogram(min(thetas), T.size, V.size, len(thetas),
                                             eps, delta)


def _unit_data(x, name, lower, upper):
    values = _checks.as_finite_data(x, name)[0].ravel()
    return (np.clip(values, lower, upper) - lower) / (upper - lower)


def tune_histogram_bin_width_stable(x, bin_widths, eps_train, eps_select,
                                    lower_bound=0.0, upper_bound=1.0, delta=0.01,
                                    validation_fraction=0.2, x_validation=None,
                                    selector="exponential_noise", noise="shared",
                                    random_state=None, accountant=None):
    """A private histogram density estimate with a privately selected bin width.

    Parameters
    ----------
    x : array_like
        Numeric, finite data; clipped to [lower_bound, upper_bound].
    bin_widths : array_like
        Candidate widths h as fractions of the range (1/h whole numbers, e.g. 0.1, 0.05).
    eps_train, eps_select : float
        The histogram's budget alpha_1 and the selection's alpha_2.
    lower_bound, upper_bound : float
        The known range of the data.
    delta : float, default 0.01
    validation_fraction : float, default 0.2
        Share of ``x`` held out, unless ``x_validation`` is given.
    x_validation : array_like, optional
        A separate validation sample (disjoint from x).
    selector, noise, random_state
        As :func:`tune_classification_model_stable`.
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.approx(eps_train + eps_select, delta)`` once, before any data
        is touched; None: the session's accountant, if any.

    Returns
    -------
    rcompat.Histogram
        Breaks at lower_bound + j h (upper_bound - lower_bound), counts max(0, n_i + Z_i)
        with fresh exact discrete Laplace noise of scale at least 2 / eps_train. The call is
        (eps_train + eps_select, delta)-DP (Thm 2, Thm 6), held in ``privacy_``.

    Raises
    ------
    ValueError
        For bad arguments, and when the training set is too small for Thm 6.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 2, Theorems 2 and 6.

    Examples
    --------
    Plasma glucose in [50, 200] with 5, 10 or 20 bins:

    >>> from dppack import tune_histogram_bin_width_stable
    >>> from dppack.datasets import load_pima
    >>> h = tune_histogram_bin_width_stable(load_pima()["glu"], [0.2, 0.1, 0.05],
    ...                                     eps_train=1.0, eps_select=1.0, lower_bound=50,
    ...                                     upper_bound=200, random_state=1)
    >>> h.breaks.size - 1, h.breaks[:3].tolist(), h.privacy_  # 10 bins of width 15
    (10, [50.0, 65.0, 80.0], PrivacyLoss.approx(eps=2.0, delta=0.01))
    """
    _backends.refuse_dask("tune_histogram_bin_width_stable", x)
    arguments = dict(bin_widths=bin_widths, eps_train=eps_train, eps_select=eps_select,
                     lower_bound=lower_bound, upper_bound=upper_bound, delta=delta,
                     validation_fraction=validation_fraction, selector=selector, noise=noise)
    return _plans.run(TUNE_HISTOGRAM, (x, x_validation), arguments, random_state, accountant)


class _TuneHistogram(_plans.Plan):
    """tune_histogram_bin_width_stable: the checks, the unit data and their split, then one
    draw of Algorithm 2 (Validate, then the selected histogram with fresh noise)."""

    name = "tune_histogram_bin_width_stable"

    def loss(self, a):
        return tuning_loss(a["eps_train"], a["eps_select"], a["delta"])

    def prepare(self, data, a):
        x, x_validation = data
        bounds = _checks.check_bounds(("upper.bound", a["upper_bound"]),
                                      ("lower.bound", a["lower_bound"]))
        lower, upper = bounds["lower.bound"], bounds["upper.bound"]
        widths = _checks.as_numeric_array(a["bin_widths"], "bin_widths must be numeric.").ravel()
        if widths.size == 0:
            raise _messages.value_error("bin.widths must be finite numbers > 0.")
        _checks.check_positive_values(widths, "bin.widths must be finite numbers > 0.")
        if np.any(widths > 1):
            raise _messages.value_error("bin.widths must be <= 1 (fractions of the range).")
        thetas = [float(h) for h in widths]
        for h in thetas:
            _bins(h)
        settings = check_settings(thetas, a["eps_train"], a["eps_select"], a["delta"],
                                  a["selector"], a["noise"])
        thetas, eps_train, eps_select, delta, selector, noise = settings
        values = _unit_data(x, "x", lower, upper)
        if x_validation is None:
            fraction = _checks.check_number(a["validation_fraction"], "validation.fraction", 0,
                                            1, closed="neither", strict=True)
            training, validation = split_rows(values.size, fraction)
            T, V = values[training], values[validation]
        else:
            T, V = values, _unit_data(x_validation, "x_validation", lower, upper)
        trainer = HistogramTrainer()
        beta1, beta2 = trainer.stability_constants(T, V, thetas, eps_train, delta)

        def draw(rng, privacy):
            index = validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2,
                             selector, noise, rng)[0]
            counts = trainer.release(T, thetas[index], eps_train, rng)  # fresh noise
            breaks = lower + (upper - lower) * np.linspace(0.0, 1.0, counts.size + 1)
            histogram = rcompat.Histogram(breaks, counts, 0.5 * (breaks[1:] + breaks[:-1]))
            histogram.privacy_ = privacy
            return histogram
        return [(None, draw)]


TUNE_HISTOGRAM = _TuneHistogram()
