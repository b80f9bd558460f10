""":func:`noiseIntervalDP`: the accuracy report of a release from its public arguments."""

from .. import _checks, _messages, mechanisms, quantiles, stats  # noqa: F401 (plans register)
from .._plans import REGISTRY, check_alpha


def noiseIntervalDP(statistic, eps, alpha=0.05, simultaneous=False, **arguments):
    """The (1 - alpha) interval of a release's noise, from its public arguments: an accuracy
    report at no privacy cost (no data are read, no noise is drawn).

    The half-width comes from the exact discrete law the release draws (its own grid and
    scale), plus half a grid step for rounding the true value; quantiles get a rank-error
    bound (Dwork and Roth 2014, Theorem 3.11). Derivations: :doc:`/guide/accuracy`.

    Parameters
    ----------
    statistic : str
        The release: 'LaplaceMechanism', 'GaussianMechanism', 'meanDP', 'varDP', 'sdDP',
        'covDP', 'pooledVarDP', 'pooledCovDP', 'histogramDP', 'tableDP', 'quantileDP',
        'medianDP', 'quantilesDP', 'ExponentialMechanism' or 'boundsDP'.
    eps : float
        The release's budget.
    alpha : float, default 0.05
        In (0, 1): the interval holds with probability at least 1 - alpha.
    simultaneous : bool, default False
        For a vector release: one half-width that holds for all values at once (the
        per-value level 1 - (1 - alpha)^(1/m), exact for independent noises), instead of
        per value.
    **arguments
        The release's other public arguments, named as it names them (``delta``,
        ``type_DP``, ``mechanism``, ``which_sensitivity``, ``lower_bound`` ...), with the
        data replaced by their public size:

        * LaplaceMechanism: ``sensitivities``, ``alloc_proportions``, ``size`` (the number
          of true values; by default the number of sensitivities: give it for a vector
          released with one scalar sensitivity, as the release calibrates its noise for all
          its values; in R, ``released`` sets it by default).
        * GaussianMechanism: ``delta``, ``sensitivities``, ``type_DP``,
          ``alloc_proportions``, ``analytic``, ``tol``, ``size``.
        * meanDP, varDP, sdDP: ``n`` (required: the public sample size; with
          ``which_sensitivity = 'unbounded'`` or 'both', a public lower bound on the number
          of records, the unbounded report holding for every N >= n), ``lower_bound``,
          ``upper_bound``, ``which_sensitivity``, ``mechanism``, ``delta``, ``type_DP``.
          The unbounded report's ``details``: n and the half-widths of the noisy parts.
        * covDP: ``n``, the four bounds, and the same.
        * pooledVarDP, pooledCovDP: ``sizes`` (the public size of each sample; under
          'unbounded' and 'both' a public lower bound on each for the unbounded report), the
          bounds, ``approx_n_max``, and the same.
        * histogramDP: ``which_sensitivity``, ``mechanism``, ``delta``, ``type_DP``,
          ``breaks`` (a rule name or the breaks: with a rule, the unbounded release spends
          part of eps on n), ``cells`` (needed with ``simultaneous``: a bound such as n
          will do, as the report is one scalar for every cell), ``normalize``,
          ``allow_negative``; with ``normalize = True`` (the proportions, for all cells at
          once) ``n`` (the number of records; under 'unbounded' a public lower bound) is
          required. Where public values fix the number of cells (given breaks with the
          bounds, or a rule with the public n under 'bounded') it is the release's
          (``stats._histogram.histogram_breaks``) and a ``cells`` that differs is refused; only a
          rule
          under 'unbounded' needs ``cells`` (the released histogram's).
        * histogramDP's ``breaks`` go through the release's own parsing
          (``rcompat._hist.parse_breaks``; non-equidistant points refused with its message); a
          function needs ``lower_bound`` and ``upper_bound`` (it is called with them).
        * tableDP: ``which_sensitivity``, ``mechanism``, ``delta``, ``type_DP``,
          ``allow_negative`` (accepted, checked, no effect on the report), ``cells``,
          ``declared`` (True when every factor declares its levels, a pandas Categorical or
          an R factor; False for the thresholded release of undeclared levels, which needs
          delta > 0; required unless mechanism = 'Laplace' with delta = 0, where the
          release needs declared levels). Undeclared: ``details`` gives the threshold and
          ``suppressed_max``, the largest count of a suppressed cell; with
          ``simultaneous``, ``cells`` must bound the number of observed cells (n, or the
          number of possible combinations of levels), not count the released ones.
        * ExponentialMechanism: ``sensitivity`` and ``size`` (the number of candidates), or
          its ``candidates`` (their number is the size), or its ``measure`` (the base
          measure, one weight per candidate); the report bounds the utility shortfall (units
          'utility').
        * quantileDP: ``quant`` (required, as by the release), ``lower_bound``,
          ``upper_bound``, ``which_sensitivity``, ``mechanism`` ('exponential', checked as
          the release checks it), ``n`` (optional and without effect on the bound: it only
          fixes the utilities' grid, the same for any n below 2^979), ``resolution`` (the
          release's: its N + 1 candidates replace the fine grid's 2^59 in the bound);
          medianDP the same without ``quant``.
        * quantilesDP: ``quants``, the bounds, ``method``, ``which_sensitivity``, ``n``
          (optional, as for quantileDP), and ``resolution``: for 'recursive' and
          'independent' the release's (optional, as for quantileDP); for
          ``method = 'joint'`` required, the public spacing r of the data, which with the
          bounds lie on the grid lower_bound + r k, e.g. 1 for whole numbers. Rank errors over the best the data
          allow: 'independent' and 'joint' for all the quantiles at once; 'recursive' per
          quantile (a vector; all at once with ``simultaneous``).
        * boundsDP: ``quants``, ``grid`` (the release's defaults), ``n`` (optional, as for
          quantileDP): the
          rank error of each bound over the best grid point's (both at once with
          ``simultaneous``).

        A required argument left out is refused first: "<arg> is required for
        <statistic>." (the handler's arguments without a default, the bounds of the
        moments, quantileDP's ``quant``; ``n``, ``sizes`` and ``cells`` say what they are).

    Returns
    -------
    NoiseInterval or dict
        The report (``half_width``, per value for a vector; ``size``, the number of values
        it describes; ``range``, the public range of the truth; ``interval(released)``,
        clipped to the range); for
        which_sensitivity = 'both' (histogramDP, tableDP, meanDP, varDP, sdDP, covDP,
        pooledVarDP, pooledCovDP), ``{"Bounded": ...,
        "Unbounded": ...}``.

    Raises
    ------
    ValueError
        For an unknown statistic or argument, arguments the release would refuse (its
        messages), and the releases that are not a value plus noise (see
        :doc:`/guide/accuracy`).

    References
    ----------
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Theorem
    3.11 and Section 3.3; Canonne C L, Kamath G, Steinke T (2020), The discrete Gaussian for
    differential privacy; Sidak Z (1967), Rectangular confidence regions for the means of
    multivariate normal distributions.

    Examples
    --------
    The mean plasma glucose of the 532 Pima women, bounded in [50, 200], at eps = 1: the
    Laplace scale is b = 150 / 532 / 1, and b ln(1 / 0.05) = 0.845.

    >>> from dppack import noiseIntervalDP
    >>> from dppack.datasets import load_pima
    >>> from dppack import meanDP
    >>> r = noiseIntervalDP("meanDP", eps=1.0, n=532, lower_bound=50, upper_bound=200)
    >>> round(r.half_width, 3)
    0.845
    >>> m = meanDP(load_pima()["glu"], eps=1.0, lower_bound=50, upper_bound=200,
    ...            random_state=1)
    >>> [round(v, 2) for v in r.interval(m)]
    [119.76, 121.45]

    Unbounded (the count is private): ``n`` is a public lower bound on it, here 500.

    >>> u = noiseIntervalDP("meanDP", eps=1.0, n=500, lower_bound=50, upper_bound=200,
    ...                     which_sensitivity="unbounded")
    >>> round(u.half_width, 2), round(u.details["half_width_count"], 2)
    (2.21, 7.35)

    A histogram's counts (one record changes two cells, sensitivity 2): each count is
    within 6 of the truth with probability 0.95.

    >>> noiseIntervalDP("histogramDP", eps=1.0).half_width
    6.0

    The rank error of a median of 532 values in [50, 200] (a worst case from public values
    only: the actual 95th percentile is 6 to 7 ranks):

    >>> round(noiseIntervalDP("medianDP", eps=1.0, lower_bound=50, upper_bound=200).half_width)
    87
    """
    # The registry of plans is the one list of releases with a report.
    if not isinstance(statistic, str) or statistic not in REGISTRY:
        raise _messages.value_error(
            "statistic must be one of {" + ", ".join(f"'{s}'" for s in REGISTRY) + "}.")
    alpha = check_alpha(alpha)
    simultaneous = _checks.check_flag(simultaneous, "simultaneous")
    plan = REGISTRY[statistic]
    accepted = tuple(plan.report_arguments)
    unknown = [name for name in arguments if name not in accepted]
    if unknown:
        # The names in each caller's spelling: R's noiseIntervalDP turns the dots of its
        # arguments' names into underscores, so R's spelling of a name is the reverse.
        python_text, r_text = (
            "noiseIntervalDP for {statistic} takes {accepted}; not {unknown}.".format(
                statistic=statistic, accepted=", ".join(map(spell, accepted)),
                unknown=", ".join(map(spell, unknown)))
            for spell in (str, lambda name: name.replace("_", ".")))
        raise _messages.exception_pair(ValueError, python_text, r_text)
    # '<arg> is required for <statistic>.' (in each caller's spelling) for the first required
    # argument left out, before anything else is checked
    for name in plan.required:
        if arguments.get(name) is None:
            raise _messages.exception_pair(
                ValueError, f"{name} is required for {statistic}.",
                f"{name.replace('_', '.')} is required for {statistic}.")
    arguments = {**plan.report_arguments, **arguments}
    report = plan.report(statistic, eps, arguments, alpha, simultaneous)
    reports = report.items() if isinstance(report, dict) else [
        (arguments.get("which_sensitivity", "bounded").title(), report)]
    for label, one in reports:
        one.range = plan.truth_range(one.units, label, arguments)
    return report
