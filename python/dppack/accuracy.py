"""Accuracy reports: how far a release can be from its true value, at no privacy cost.

:func:`noiseIntervalDP` takes the public arguments of a release (the budget, the bounds, the
public sample size n, the mechanism; never the data) and returns the half-width h of the
(1 - alpha) interval of its noise: P(abs(release - true value) <= h) >= 1 - alpha, for each
released value. It reads no data and draws no noise, so it spends nothing; the releases
themselves are unchanged (DPpack's return values and types).

Exactness. The releases add exact discrete noise on a power-of-two grid g = 2^k (discrete
Laplace for the Laplace mechanism, discrete Gaussian for the Gaussian and analytic ones;
Canonne, Kamath and Steinke 2020), after rounding the true value to the grid. The interval
is computed from the law the release draws, with the grid and the integer scale from the
same calibration functions the release calls (``_random.laplace_grid``,
``mechanisms.gaussian_sigma`` and ``mechanisms.discrete_gaussian_parameters``,
``stats.count_noise_laws``): T is the smallest integer with P(abs(Z) <= T) >= 1 - alpha for
the integer noise Z (from its exact tail, ``_random.discrete_laplace_tail`` or
``_random.discrete_gaussian_tail``, computed in floating point with a relative error of
about 1e-12), and h = g (T + 1/2), the half grid step covering the rounding of the true
value. The counts of histogramDP and tableDP (and histogramDP's private n) get integer noise on
the integers, g = 1 (``stats.count_noise_laws``; the geometric mechanism of Ghosh, Roughgarden
and Sundararajan 2009, and the discrete Gaussian of Canonne, Kamath and Steinke 2020): no
rounding, so their report is the integer T itself, P(abs(c~ - c) <= T) >= 1 - alpha exactly
(in general floor(g T + 1/2), with g / 2 more when g > 1, which only a discrete Gaussian of
sigma >= 2^14 reaches).
These are the discrete forms of the textbook half-widths b ln(1 / alpha) (Laplace, scale b:
P(abs(N) > t) = exp(-t / b)) and sigma z_{1 - alpha/2} (Gaussian); they differ from them by
about a grid step (g is below 2^-12 of the scale).

Vectors. The half-width is per coordinate. With ``simultaneous = True`` it holds for all m
values at once: the noises are independent, so the per-coordinate level
1 - (1 - alpha)^(1/m) gives a joint coverage of exactly the product, at least 1 - alpha
(Sidak's product, exact for independent noise, not the union bound). The cells of
histogramDP and tableDP share one law: their report is one scalar for every cell, at the
level of ``cells`` cells with ``simultaneous`` (``details['cells']``), so a public bound
such as n (even 10^12) costs no memory.

Post-processing. A clamp to a range that holds the true value (varDP's [0, v_max],
pooledVarDP's) only moves the release towards it, so the interval still holds. sdDP releases
the square root of varDP's release: h is that of the variance, and :meth:`NoiseInterval.interval`
returns [sqrt(max(s^2 - h, 0)), sqrt(s^2 + h)] for a released s.

Quantiles (exponential mechanism). There is no additive noise: quantileDP and medianDP report
the rank error, by the utility theorem of the exponential mechanism (Dwork and Roth 2014,
Theorem 3.11; McSherry and Talwar 2007): with probability at least 1 - alpha the released
point's rank error abs(c(x) - quant n) exceeds the smallest rank error over the candidates by
at most (2 Delta' / eps)(ln ``|R|`` + ln(1 / alpha)) + h, where ``|R|`` is the number of grid
points between the bounds (``stats.quantile_candidates``), Delta' the release's sensitivity
(``stats.quantile_sensitivity``: 1 under 'bounded', max(quant, 1 - quant) under 'unbounded')
rounded up on the utilities' grid h (Delta' = 1 + 2^-20 for Delta = 1,
``_random.exponential_grid``), and the last term covers that rounding. The best rank error is
at most half the largest tie (0 or 1/2 for distinct data); the bound says nothing of the
distance in the data's units, which depends on the data. It is a worst-case guarantee from
public values only, and loose: ``|R|`` is the release's grid of about 2^59 points, so ln
``|R|`` is about 41 whatever the data, and the typical rank error is much smaller (for the 532
Pima glucose values in [50, 200] at eps = 1 the report is 87 ranks, while the 95th percentile
of the actual rank error of the median is 6 to 7, over 12 times less).

ExponentialMechanism (uniform measure) gets the same theorem in the utility's own units:
with ``size`` = ``|R|`` candidates and the utility's ``sensitivity``, with probability at least
1 - alpha the selected candidate's utility is at most (2 Delta' / eps)(ln ``|R|`` + ln(1 /
alpha)) + h below the best one, Delta' = (ceil(Delta / h) + 1) h and h = 2^k <= Delta /
2^20 the grid of ``_random.exponential_grid`` (for utilities below Delta 2^979 in absolute
value; larger ones coarsen the grid). With a base ``measure`` the same proof (McSherry and
Talwar 2007) holds with ln ``|R|`` replaced by ln(M / mu_min), M the measure's total and
mu_min its smallest positive weight, both after the release's rounding to integers
(``_random.integer_measure``): the best candidates the release can select weigh at least
mu_min whatever the data (``details``: ``measure_ratio`` = M / mu_min).

Thresholded tables. tableDP with undeclared levels (``declared = False``) releases an
observed cell only when its noisy count exceeds a threshold tau, with noise calibrated to
part of delta; the report takes the law and tau from the release's own
``stats.thresholded_table_laws``. ``half_width`` is that of a released cell's count (as for
declared levels, the integer floor(H + 1/2), H = g (T + rho)); ``details`` holds
``threshold`` (tau) and ``suppressed_max`` = floor(tau + H), the largest true count of a
suppressed cell. Per cell, with probability at least 1 - alpha over its noise, a released
cell is within ``half_width`` and a suppressed one has a count <= ``suppressed_max``
(whichever happens: the noise is within T in both cases; proof in ``_suppressed``). This is
not a guarantee conditional on the cell being released (a cell far below tau is released
only with a large noise); ``simultaneous`` needs ``cells`` >= the number of observed cells
(a public bound such as n), not the number of released ones. A 0 in the released table is a
suppressed or unobserved cell: :meth:`NoiseInterval.interval` gives it [0,
``suppressed_max``].

Pooled statistics, unbounded. The 'unbounded' pooledVarDP and pooledCovDP release noisy
sums, sums of squares (products) and counts of J samples whose sizes are private: ``sizes``
are public lower bounds, and the report holds for every dataset with at least that many
records per sample, at every value of the data's sums. All 3 J (4 J) noises are within their
half-widths at once with probability >= 1 - alpha (the release's one call of the mechanism,
``stats.unit_sensitivity``; Sidak over the independent noises; ``details``), and on that
event a worst case through the release's floors (n~ >= 2) and clamp bounds abs(release -
truth) (``ratio_of_sums_bound``, derived below under Variance and covariance, J >= 1:
the J = 1 case is varDP's and covDP's release). A worst case over the noises' box: about 5
to 7 times the 95% quantile of the error seen at the worst data (2 samples of 200 and 300,
eps = 1).

Proportions. histogramDP with ``normalize = TRUE`` releases x_i / sum_j x_j, x_i the noisy
counts (negatives set to 0 unless ``allow_negative``), unrounded. With every count within
its half-width a at once (Sidak over the ``cells`` K) and at least ``n`` records, every
proportion is within (K - 1) a / n of the truth (units 'proportion'; ``allow_negative``:
(K - 1) a / (n - K a)); n <= K a is refused (the noisy total can then be 0 and the release
NaN). Proof in ``_proportions``. A worst case over the box again: about 5 times the 95%
quantile of the error seen with all records in one cell (K = 10, n = 2000, eps = 1). As
for the ratios below, floating-point rounding of the release's arithmetic (relative 1e-16)
is not counted: at the corners of the box the release can exceed the bound by that much.

Unbounded moments (meanDP, varDP, sdDP, covDP with which.sensitivity = 'unbounded'). The
release is a ratio of noisy sums (``stats``: the sums of the values centred at the midpoint
m of the bounds, h = (U - L) / 2, and the count N, each divided by its add/remove
sensitivity, released by one call of the mechanism, then post-processed). N is private, so
the report takes ``n``, a PUBLIC LOWER BOUND on the number of records, and holds for every
dataset of N >= n records: a design minimum known before the data, or a count released
privately beforehand minus its own report's half-width (a separate release, with its own
budget; the two reports then hold together with probability >= 1 - alpha_count - alpha).
Step 1, the parts: the k scaled statistics get independent noises of one law (the
mechanism's, l1 sensitivity k or l2 sensitivity sqrt(k): ``stats.unit_sensitivity``), so the
mechanism's own report at Sidak's per-coordinate level 1 - (1 - alpha)^(1/k) gives a u with
P(every part within u) >= 1 - alpha, the rounding to the grid included; part i is then
within t_i = Delta_i u (``details``: n and the t_i; ``coverage`` is that joint
probability). Step 2, on that event, the worst case over the data and over N >= n by
interval arithmetic (floating-point rounding of the release's arithmetic, relative 1e-16,
is not counted). Write Z for a part's noise, n~ for the release's count after its floor
(1 for the mean, 2 otherwise): as N >= the floor, the floor moves n~ towards N, so
abs(n~ - N) <= t_N and n~ >= d := max(N - t_N, floor).

* Mean, c = S / N in [-h, h]: the release is clamp(m + (S + Z_S) / n~, L, U) and the error
  before the clamp is (Z_S - c (n~ - N)) / n~. For c >= 0 (the other sign is symmetric) an
  upward error is at most (t_S + c t_N) / d and, the clamp holding the truth m + c, at most
  h - c: the larger of these minima over c is at the crossing, (t_S + h t_N) / (d + t_N),
  when t_S <= h d (d + t_N = N when the floor is not reached: the clamp gives back the
  count's t_N); otherwise h. A downward error is at most max((t_S + c t_N) / (N + t_N),
  (t_S - c t_N) / d) <= (t_S + h t_N) / (d + t_N) when t_S <= h d, and at most min(t_S / d,
  2 h). Both are non-increasing in d, so in N: the report takes d = max(n - t_N, 1).
* Variance and covariance, J >= 1 samples: varDP, sdDP and covDP are J = 1 (m_1 = n);
  pooledVarDP and pooledCovDP have J samples of public lower sizes m_j (above), M = sum
  m_j. One bound, ``ratio_of_sums_bound``. Per sample j the release has the centred
  sums S_1, S_2 (S_1 = S_2 = S for a variance), the sum P of their products (Q for a
  variance) and the count n, with noises e_1, e_2, e_P, e_N within a_1, a_2, a_P, a_N (the
  t_i); n~ = max(n + e_N, 2), W~ = P~ - S~_1 S~_2 / n~; it releases raw = sum_j W~_j / (N~
  - J), N~ = sum_j n~_j, clamped to [0, top~] (variance) or [-top~, top~] (covariance),
  top~ = sum_j maxsq(n~_j) / (N~ - J) (``stats.max_squares``, between H (x - 1/x) and H x
  for maxsq(x), H = h_1 h_2). The truth is V = sum_j W_j / (N - J), W = P - S_1 S_2 / n,
  and abs(V) <= H N / (N - J) <= Vmax := H M / (M - J) (abs(W_j) <= n_j H by Bhatia and
  Davis 2000 and Cauchy-Schwarz). With S_i = n mu_i, abs(mu_i) <= h_i, D = n~ - n (abs(D)
  <= a_N: the floor only moves n~ towards n >= 2) and rho = n / n~: W~ - W = e_P + D rho
  mu_1 mu_2 - rho (mu_1 e_2 + mu_2 e_1) - e_1 e_2 / n~ and N~ - N = sum_j D_j, so raw - V =
  sum_j t_j / (N~ - J) with t_j = e_P + D (rho mu_1 mu_2 - V) - rho (mu_1 e_2 + mu_2 e_1) -
  e_1 e_2 / n~. The count's factor
  abs(rho mu_1 mu_2 - V) is at most C_j:

  - variance, any J: rho mu^2 and V are both >= 0, so C_j = max(rho H, Vmax);
  - covariance, J = 1: V is the same sample's covariance and, each population variance
    being at most (h_i - mu_i)(h_i + mu_i) (Bhatia and Davis), Cauchy-Schwarz twice gives
    abs(V) (n - 1) / n <= sqrt((h_1^2 - mu_1^2)(h_2^2 - mu_2^2)) <= H - p, p = abs(mu_1
    mu_2); so abs(rho mu_1 mu_2 - V) <= rho p + (H - p) n / (n - 1), linear in p in [0,
    H]: C_1 = max(rho H, Vmax), as for a variance;
  - covariance, J > 1: V pools the other samples, whose covariances can have either sign
    whatever sample j's means (sample j at a corner, mu_1 mu_2 = H, the others on the
    anti-diagonal: V near -H), so only C_j = rho H + Vmax.

  Over n_j >= m_j: n~_j >= f_j := max(m_j - a_N, 2), and rho <= n / max(n - a_N, 2), which
  over n >= m_j is largest at n*_j = max(m_j, a_N + 2) (rho*_j); each term at its own
  worst n_j, abs(raw - V) <= B = sum_j [a_P + a_N C_j + rho*_j (h_1 a_2 + h_2 a_1) + a_1
  a_2 / f_j] / (F - J), F = sum_j f_j, C_j with rho*_j. The clamp is a projection on an
  interval: when the interval holds V it only moves the release towards V; otherwise (abs(V) >
  top~) the error is at most max(abs(raw - V), abs(V) - top~). top~ >= H (1 + (J - R~) /
  (N~ - J)), R~ = sum_j 1 / n~_j, and (J - R~) / (N~ - J) is the average of the 1 / n~_j
  with weights n~_j - 1: for J = 1 it is 1 / n~ >= 1 / (N + a_N), for any J at least (J -
  R) / (N + J a_N - J), R = sum_j 1 / f_j >= R~; so abs(V) - top~ <= H [1 / (N - 1) - 1 /
  (N + a_N)] (J = 1) or H [J / (N - J) - (J - R) / (N + J a_N - J)] (J > 1), both falling
  with N: E is their value at N = M. Both the release and V lie within H F / (F - J) of 0
  (top~ <= H N~ / (N~ - J), N~ >= F, F <= M): the error is also at most the cap H F / (F -
  J) for a variance (both >= 0) and H (F / (F - J) + M / (M - J)) for a covariance. The
  report is min(max(B, E), cap); sdDP's is the variance's, transform 'sqrt'.

Against the simulated worst case (all values at one bound, N = n, alpha = 0.1) the report
is 2.5 to 3.6 times the 0.9-quantile of the actual error: the box of the parts and the
triangle inequality cost that factor; noises put at the corners of the box reach 60 to 100
percent of it (``tests/python/test_accuracy_moments.py``).

What is not covered. quantilesDP's 'joint' method without ``resolution`` (below: refused,
saying what to pass); every other release has a report.

Size and range. A report describes a number of values (:attr:`NoiseInterval.size`): a
mechanism's ``size`` (its noise is calibrated for all its coordinates, so a one-value
report does not hold for a vector: a GaussianMechanism release of 10 values with a scalar
sensitivity is covered 92 percent of the time by the one-value 95 percent half-width), 1 for
a scalar statistic, ``cells`` for histogramDP's proportions and for simultaneous counts,
any number for per-cell counts; :meth:`NoiseInterval.interval` refuses another number.
Where the arguments give a range that holds the truth (counts >= 0, proportions in [0, 1],
a mean in its bounds, a variance or covariance within the largest the bounded data allow),
the interval is intersected with it: the truth lies in both, so the coverage is kept.

Several quantiles (quantilesDP) and bounds (boundsDP). Each report is a bound on rank
errors, from public values only, over the best the data allow (like quantileDP's).

* 'independent' (quantileDP at eps / m each, then sorted) gets the quantile bound at eps / m
  for all m quantiles at once (the draws are independent: per-quantile level
  1 - (1 - alpha)^(1/m); sorting the outputs does not raise the largest rank error for
  sorted targets).
* 'joint' (JointExp, ``dppack.quantiles``): the exponential mechanism over the ordered
  outputs o_1 <= ... <= o_m in [a, b]^m with Lebesgue measure, density exp(beta u),
  beta = eps / (2 Delta) (Delta = 2, or under 'unbounded' 2 (1 - min_j d_j / n),
  ``quantiles.joint_sensitivity``), u = -T, T the total gap deviation sum_{j=1}^{m+1} abs(c_j -
  c_{j-1} - d_j) (c_j the number of data at or below o_j, d_j = (q_j - q_{j-1}) n). For any set
  S of outputs with u >= OPT on S, P(u <= OPT - t) <= vol(all) exp(-beta t) / vol(S): the
  outputs with u <= OPT - t weigh at most vol(all) exp(beta (OPT - t)), the normaliser at least
  vol(S) exp(beta OPT) (the argument of Dwork and Roth 2014, Theorem 3.11, with the base
  measure of McSherry and Talwar 2007), so
  P(T > T* + t) <= alpha for t = (ln(vol(all) / vol(S)) + ln(1 / alpha)) / beta, T* the
  smallest total over a family of interval sequences. vol(all) = (b - a)^m / m!; vol(S)
  depends on the gaps between the data, so no data-free bound exists for arbitrary reals.
  With a public resolution r (the data and the bounds on the grid a + r Z, b - a = N r; the
  caller's promise, like the bounds) T* is the smallest total over the sequences of
  intervals at least r / 2 wide: in exact arithmetic every interval of positive width is
  at least r wide, and with the data and bounds in floating point (0.3 against 0.1 * 3 =
  0.30000000000000004) an interval between two spellings of one grid point is far
  narrower than r / 2 (a rounding artefact, of width 0 in exact arithmetic) while one
  between neighbouring grid points stays within rounding of r, so T* is the best over the
  intervals the data really have. Counting the artefacts would break the argument: the
  top interval [0.3, 0.30000000000000004) with 9 data at 0.3, quants 1, is a total of 0 on
  a volume of 5.6e-17 that the release almost never draws. S = {o : o_j in [x_{k_j},
  x_{k_j} + r / 2)} for a sequence k achieving T* has volume prod_runs (r / 2)^l / l! >=
  (r / 2)^m / m! (l outputs in one interval): the ratio is at most (2 N)^m, and
  t = (2 Delta / eps)(m ln(2 N) + ln(1 / alpha)). The report requires (b - a) / r within 1e-6
  of a whole number (absolute, in steps: a relative tolerance would let a bound miss the
  grid by a narrow top interval [x_n, b) when N is large). Each quantile's rank error
  e_j = c_j - q_j n = sum_{i <= j} (g_i - d_i) = -sum_{i > j} (g_i - d_i) (g_i the gap
  counts) is at most the smaller of the two partial sums of abs values, so at most T / 2:
  with probability >= 1 - alpha every abs(e_j) <= T* / 2 + t / 2 (the report's half-width,
  ``details['total']`` = t). For distinct data strictly inside (a, b), T* is at most m
  (k_j = round(q_j n): each gap deviation at most the two roundings beside it), and 0 when
  every q_j n is a whole number; ties raise it. For
  m = 1 this is quantileDP's theorem with ``|R|`` = 2 N. The grid: the release draws
  non-decreasing m-tuples of points of quantileDP's grid g = 2^j (W points in [a, b), the
  data rounded to it; ``dppack.quantiles``), with counting measure, so vol(all) =
  C(W + m - 1, m) <= (W + m - 1)^m / m!, and an interval at least r / 2 wide holds at least
  l = r / (2 g) - 2 grid points (each end rounded by less than one), so vol(S) >= l^m / m!
  (C(w + l' - 1, l') >= w^l' / l'! for each run): the report uses the larger of ln(2 N) and
  ln((W + m - 1) / l) (equal to about 2^-50 when max(abs(a), abs(b)) / r is moderate).
  Floating point: the sampler's weights are right within a factor of about 1 +- 1e-9
  (``dppack.quantiles``), and an output's count can differ from its interval's in two
  ways of small probability: the grid point, rounded to the nearest double, lands on the
  interval's upper end (at most 33 of its >= l points, as ulp(x) <= 64 g), or the output is
  the interval's first point and the datum there was rounded up to it (1 of >= l points);
  both together at most 68 g / (r / 2 - 2 g) <= 2^-50 (1 + max(abs(a), abs(b)) / r) per
  output. The report uses alpha' = alpha / (1 + 2^-20) - m 2^-50 (1 + max(abs(a), abs(b)) / r)
  for alpha and that log ratio + 2^-20, N = (b - a) / r as computed, and refuses a
  resolution so fine that alpha' <= 0. An output in a narrow artefact interval can round onto its upper
  end; at the top ([x_n, b)) its count stays n, but elsewhere the rounding can move it to
  the count of the next datum and is not counted. Such intervals need two spellings of one
  grid point among the data, or a lower.bound spelled just below the data at it (0.3
  against 0.1 * 3): the promise includes equal data being equal doubles and lower.bound
  spelled as the data at it (the release clips a datum below the bound to it).
  The release with this ``resolution`` (JointExp on the N + 1 lattice points, G = 65
  refined candidates each, ``quantiles._lattice_coordinates``) is covered too: its
  vol(all) = C((N + 1) G + m - 1, m) and a sequence achieving T* (counts le at data points,
  or an open run) keeps at least one refined candidate per output, so vol(S) >= 1 and the
  report takes ln((N + 1) G + m - 1) where that is larger (where quantilesDP accepts the
  resolution); a tied value's rank error is then the distance from q n to [lt, le] (the
  records below it, at or below it), at most its refined count's.
* 'recursive' (Kaplan, Schnapp and Stemmer 2022, as ``quantiles._recursive``): a node
  releases its middle quantile q by quantileDP at the level's share
  (``quantiles.recursive_share``) on its part of the data (n_v records) and range, with a
  local rank error e_v. A quantile of its lower part, rescaled to q' = q_j / q, is then
  asked for q' (q n_v + e_v) records: its target among all the data moves by q' e_v; one of
  the upper part, q' = (q_j - q) / (1 - q), is asked for q' ((1 - q) n_v - e_v) records
  above the release: its target moves by (1 - q') e_v. So quantile j's rank error is
  sum_v w_{j,v} e_v over the nodes v on its path, w = 1 at its own node and q' or 1 - q'
  (in [0, 1], from the quantiles alone: ``quantiles.recursion_weights``) at the others.
  Given the releases before it, each node's abs(e_v) exceeds its best by at most
  quantileDP's bound (``_utility_bound`` with the node's sensitivity,
  ``quantiles.recursion_sensitivities``: 1 bounded, max(q, 1 - q) unbounded for the
  node's rescaled q) except with probability
  alpha'; the candidates are those of [lower, upper] at the root, and at most
  ``stats.quantile_candidates_within`` (2^59, or 2^60 for bounds of both signs) on the
  ranges set by earlier releases (a sub-range may have a finer grid, so more candidates
  than the whole range). Chaining the conditional probabilities, all m nodes are within
  their bounds with probability >= (1 - alpha')^m = 1 - alpha for
  alpha' = 1 - (1 - alpha)^(1/m) (``simultaneous``), and the d nodes of one quantile's path
  with alpha' = 1 - (1 - alpha)^(1/d) (per quantile). The report is, per quantile, sum_v
  w_{j,v} times the node's bound, over the weighted sum of the nodes' best rank errors
  (each at most 1/2 for distinct data; ties, data at a node's ends and a part squeezed to a
  point, where every output is that point, raise it). The rescaled quantiles are rounded
  doubles: the targets move by at most about L n 2^-52 ranks more.
* boundsDP: each of its two selections is the exponential mechanism over the G distinct
  grid points (uniform measure, sensitivity 1, at ``quantiles.bounds_share`` (eps) =
  eps / 2), so with probability >= 1 - alpha its rank error (abs(#{x < lower} - quants[0]
  n), abs(#{x <= upper} - quants[1] n)) exceeds the best grid point's by at most
  ``_utility_bound`` (eps / 2, 1, G); both at once with ``simultaneous`` (independent
  draws: 1 - (1 - alpha)^(1/2) each). The best grid point's own rank error depends on the
  data and the grid's spacing (up to the number of data between two neighbouring grid
  points). The fix-up of upper <= lower (upper to the grid point above lower, or lower to
  the one below the top) only widens the range: lower never rises and upper never falls.
  So the one-sided bounds that matter for clipping always hold: at most
  quants[0] n + best + h data lie below lower and at most (1 - quants[1]) n + best + h
  above upper; the two-sided ones hold when the fix-up did not act, which is so whenever
  lower and upper are not neighbouring grid points.
"""

import math
import numbers

import numpy as np
from scipy import special

from . import _checks, _messages, _random, data_access, mechanisms, quantiles, rcompat, stats

__all__ = ["NoiseInterval", "noiseIntervalDP"]

_ALPHA_MESSAGE = "alpha must be a number in (0, 1)."
_UNBOUNDED_MESSAGE = (
    "An accuracy report of {name} is available for which.sensitivity = 'bounded' only: its "
    "unbounded release is a ratio of noisy sums, not a value plus noise."
)
_STATISTICS = ("LaplaceMechanism", "GaussianMechanism", "meanDP", "varDP", "sdDP", "covDP",
               "pooledVarDP", "pooledCovDP", "histogramDP", "tableDP", "quantileDP",
               "medianDP", "quantilesDP", "ExponentialMechanism", "boundsDP")


class NoiseInterval:
    """The accuracy report of one release: the half-width of the (1 - alpha) interval of its
    noise, per released value (see :mod:`dppack.accuracy`). Built by
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
        ``stats.count_noise_laws`` and ``stats.thresholded_table_laws``, are given by
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


# --------------------------------------------------------------------------------------------
# The half-width of one integer noise law
# --------------------------------------------------------------------------------------------


def _check_alpha(alpha):
    return _checks.check_number(alpha, "alpha", 0.0, 1.0, closed="neither",
                                message=_ALPHA_MESSAGE)


def _per_value_alpha(alpha, m, simultaneous):
    """The per-value level of a joint 1 - alpha over m independent noises (Sidak's product,
    exact for independent noise)."""
    if not simultaneous or m <= 1:
        return alpha
    return -math.expm1(math.log1p(-alpha) / m)


def integer_half_width(tail, alpha, guess=1):
    """T, the smallest integer with P(abs(Z) <= T) >= 1 - alpha, and that probability, for
    an integer noise Z symmetric about 0 with P(Z >= m) = ``tail(m)``.

    P(abs(Z) > T) = 2 P(Z >= T + 1), so T + 1 is the smallest m >= 1 with
    tail(m) <= alpha / 2.

    Parameters
    ----------
    tail : callable
        m -> P(Z >= m) for integers m >= 1, non-increasing.
    alpha : float
        In (0, 1).
    guess : int, default 1
        A starting point near T + 1 (the continuous law's quantile): the search costs a
        few evaluations of ``tail`` when it is close.

    Returns
    -------
    (int, float)
        T >= 0 and P(abs(Z) <= T) = 1 - 2 tail(T + 1).

    Examples
    --------
    The discrete Laplace with P(z) proportional to exp(-abs(z)):

    >>> t, coverage = integer_half_width(lambda m: _random.discrete_laplace_tail(m, 1, 1), 0.1)
    >>> t, round(coverage, 4)  # 1 - 2 e^-3 / (1 + e^-1)
    (2, 0.9272)
    """
    first = _random.smallest_tail_index(tail, alpha / 2.0, guess)
    return first - 1, 1.0 - 2.0 * tail(first)


def _laplace_law(sensitivity, eps, coordinates):
    """The law of the noise ``_random.discrete_laplace_noise`` adds for (sensitivity, eps,
    coordinates), from the release's own ``_random.laplace_grid``: a dict of the grid
    exponent k, the tail P(Z >= m), the scale t / s in grid units and a guess of the
    quantile (the continuous law's)."""
    k, _, t, s = _random.laplace_grid(float(sensitivity), float(eps), int(coordinates))
    scale = t / s
    return dict(k=k, scale=scale, law="discrete Laplace",
                tail=lambda m: _random.discrete_laplace_tail(m, t, s),
                # P(Z >= m) ~ exp(-m / scale) / 2
                guess=lambda p: math.ceil(scale * math.log(0.5 / p)))


def _gaussian_law(sigma, sensitivity, eps, delta, type_DP, coordinates):
    """The law of the noise ``mechanisms.discrete_gaussian_release`` adds, from the release's
    own ``mechanisms.discrete_gaussian_parameters`` (as :func:`_laplace_law`)."""
    k, sigma2 = mechanisms.discrete_gaussian_parameters(
        sigma, sensitivity, eps=eps, delta=delta, type_DP=type_DP, coordinates=coordinates)
    scale = math.sqrt(sigma2)
    return dict(k=k, scale=scale, law="discrete Gaussian",
                tail=lambda m: _random.discrete_gaussian_tail(m, sigma2),
                guess=lambda p: math.ceil(scale * float(special.ndtri(1.0 - p))))


def _from_laws(statistic, laws, which, alpha, simultaneous, rounding=0.5, units="value",
               transform=None, values=1):
    """A :class:`NoiseInterval` from the laws of the values of a release: ``laws`` a list of
    the dicts of :func:`_laplace_law` / :func:`_gaussian_law` (or ``stats.count_noise_laws``:
    no scale, no guess), ``which`` the index of each value's law (None: one scalar), and the
    rounding of the true value to the grid, in grid steps (1/2, or 0 for counts on it).
    ``values``: with ``which`` None, how many values share the one law (the cells of a
    table): the report stays a scalar, at the level of ``values`` values with
    ``simultaneous``, so its size does not grow with them."""
    m = values if which is None else int(np.size(which))
    level = _per_value_alpha(alpha, m, simultaneous)
    rows = []
    for law in laws:
        guess = law["guess"](level / 2.0) if law.get("guess") else 1
        t, coverage = integer_half_width(law["tail"], level, guess)
        k = law["k"]
        scale = math.ldexp(law["scale"], k) if law.get("scale") else math.nan
        rows.append((math.ldexp(t + rounding, k), coverage, scale, math.ldexp(1.0, k)))
    columns = [np.array(column) for column in zip(*rows)]
    if which is None:
        values = [float(column[0]) for column in columns]
    else:
        values = [column[np.asarray(which)] for column in columns]
    return NoiseInterval(statistic, *values[:1], alpha, bool(simultaneous), *values[1:],
                         laws[0]["law"], units, transform)


# --------------------------------------------------------------------------------------------
# The releases
# --------------------------------------------------------------------------------------------


def _laplace_mechanism(statistic, eps, sensitivities, size=None, alloc_proportions=None, *,
                       alpha, simultaneous):
    """LaplaceMechanism's laws (its checks and its release's arguments): without allocation
    one release of the whole vector, L1 sensitivity sum(Delta), all ``size`` values
    (``_random.discrete_laplace_noise`` with coordinates = size); with it, value i at
    (Delta_i, a_i eps) alone."""
    eps = _checks.check_finite_budget(eps, "eps")
    sens = _checks.as_numeric_array(sensitivities, "Global sensitivities must be numeric.")
    size = sens.size if size is None else _checks.check_whole(size, "size", 1)
    sens = _checks.check_sensitivities(sensitivities, size)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, size)
    if alloc is None:
        law = _laplace_law(float(np.sum(sens)), eps, size)
        return _from_laws(statistic, [law], None if size == 1 else np.zeros(size, int), alpha,
                          simultaneous)
    pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
    laws = [_laplace_law(float(s), float(a * eps), 1) for s, a in pairs.T]
    return _from_laws(statistic, laws, which.ravel(), alpha, simultaneous)


def _gaussian_mechanism(statistic, eps, delta, sensitivities, type_DP="aDP",
                        alloc_proportions=None, analytic=False, tol=1e-12, size=None, *,
                        alpha, simultaneous):
    """GaussianMechanism's laws: without allocation one sigma for the L2 norm of the
    sensitivities and the whole vector (``mechanisms.discrete_gaussian_release`` with
    coordinates = size); with it, value i a scalar release at (a_i eps, a_i delta), sigma
    linear in Delta_i."""
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_probability(delta, "delta")
    sens = _checks.as_numeric_array(sensitivities, "Global sensitivities must be numeric.")
    size = sens.size if size is None else _checks.check_whole(size, "size", 1)
    sens = _checks.check_sensitivities(sensitivities, size)
    analytic = _checks.check_flag(analytic, "analytic")
    mechanisms.check_budget(eps, delta, type_DP, analytic)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, size)
    tol = _checks.check_positive_scalar(tol, "tol")
    if alloc is None:
        norm = float(np.linalg.norm(sens))
        sigma = mechanisms.gaussian_sigma(eps, delta, norm, type_DP, analytic, tol)
        law = _gaussian_law(sigma, norm, eps, delta, type_DP, size)
        return _from_laws(statistic, [law], None if size == 1 else np.zeros(size, int), alpha,
                          simultaneous)
    pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
    laws = []
    for s, a in pairs.T:
        unit = mechanisms.gaussian_sigma(a * eps, a * delta, 1.0, type_DP, analytic, tol)
        laws.append(_gaussian_law(float(unit * s), float(s), a * eps, a * delta, type_DP, 1))
    return _from_laws(statistic, laws, which.ravel(), alpha, simultaneous)


def _scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP, alpha,
                      transform=None):
    """The law of one value released as the statistics release it (``stats._noisy``: the
    Laplace mechanism, the Gaussian one with type_DP, or the analytic one)."""
    if mechanism == "Laplace":
        out = _laplace_mechanism(statistic, eps, sensitivity, alpha=alpha, simultaneous=False)
    else:
        analytic = mechanism == "analytic"
        out = _gaussian_mechanism(statistic, eps, delta, sensitivity,
                                  "aDP" if analytic else type_DP, analytic=analytic,
                                  alpha=alpha, simultaneous=False)
    out.transform = transform
    return out


def _statistic_checks(name, which_sensitivity, mechanism, eps, delta, type_DP,
                      unbounded=False):
    """The statistics' own checks of these arguments, with their messages, and the refusal
    of the unbounded releases (ratios of noisy sums) for a statistic whose handler has no
    report of them (``unbounded`` False)."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if mechanism == "Laplace":
        mechanisms.check_budget(eps)
    else:
        analytic = mechanism == "analytic"
        mechanisms.check_budget(eps, delta, "aDP" if analytic else type_DP, analytic=analytic,
                                switch=stats.MECHANISM_SWITCH)
    if which_sensitivity != "bounded" and not unbounded:
        raise _messages.value_error(_UNBOUNDED_MESSAGE.format(name=name))
    _refuse_vacuous_both(which_sensitivity, eps, delta, mechanism)


def _refuse_vacuous_both(which_sensitivity, eps, delta, mechanism, approximate=False):
    """'both' whose total delta is 1 or more is refused by the release (its loss,
    ``stats.release_loss``): the report refuses it with the same message."""
    if which_sensitivity == "both":
        stats.release_loss(eps, delta, mechanism, "both", approximate)


def _bounds(*pairs):
    """The bounds, checked as the statistics check them (finite, lower < upper)."""
    return _checks.check_bounds(*pairs)


def _one_sample(statistic, eps, n=None, lower_bound=None, upper_bound=None,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP", *,
                alpha, simultaneous):
    """meanDP, varDP, sdDP. Bounded: the sensitivity of data_access's formulas for the public
    n (``mean_from_sums``, ``var_from_squares``: their sums do not enter it). Unbounded: n
    a public lower bound on the number of records, and the ratio bound of
    :func:`_unbounded_moments` ('both': the two reports)."""
    bounds = _bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    _statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP,
                      unbounded=True)
    mean = statistic == "meanDP"
    n = _check_n(n, 1 if mean else 2)

    def bounded():
        if mean:
            sensitivity = data_access.mean_from_sums(0.0, n, lower, upper)["Sensitivity"]
        else:
            sensitivity = data_access.var_from_squares(0.0, n, lower, upper)["Sensitivity"]
        return _scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP,
                                 alpha, "sqrt" if statistic == "sdDP" else None)

    def unbounded():
        # the release's statistics and sensitivities: [h, 1] or [h, h^2, 1]
        access = data_access.centred_from_sums(lower, upper, 0.0, n, None if mean else 0.0)
        return _unbounded_moments(statistic, eps, access["Sensitivities"], n, mechanism,
                                  delta, type_DP, alpha)

    return _by_sensitivity(which_sensitivity, bounded, unbounded)


def _covariance(statistic, eps, n=None, lower_bound1=None, upper_bound1=None,
                lower_bound2=None, upper_bound2=None, which_sensitivity="bounded",
                mechanism="Laplace", delta=0, type_DP="aDP", *, alpha, simultaneous):
    """covDP. Bounded: ``data_access.cov_from_products``'s sensitivity for the public n.
    Unbounded: n a public lower bound on the number of records, and the ratio bound of
    :func:`_unbounded_moments` ('both': the two reports)."""
    b = _bounds(("upper.bound1", upper_bound1), ("lower.bound1", lower_bound1),
                ("upper.bound2", upper_bound2), ("lower.bound2", lower_bound2))
    bounds = (b["lower.bound1"], b["upper.bound1"], b["lower.bound2"], b["upper.bound2"])
    _statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP,
                      unbounded=True)
    n = _check_n(n, 2)

    def bounded():
        sensitivity = data_access.cov_from_products(0.0, n, *bounds)["Sensitivity"]
        return _scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP,
                                 alpha)

    def unbounded():
        # the release's statistics and sensitivities: [h1, h2, h1 h2, 1]
        access = data_access.centred_cross_from_sums(bounds, 0.0, 0.0, 0.0, n)
        return _unbounded_moments(statistic, eps, access["Sensitivities"], n, mechanism,
                                  delta, type_DP, alpha)

    return _by_sensitivity(which_sensitivity, bounded, unbounded)


_N_MESSAGE = ("n is required: the public sample size (which.sensitivity = 'bounded'), or a "
              "public lower bound on the number of records ('unbounded', 'both').")


def _check_n(n, minimum):
    """n, required, a whole number >= ``minimum`` (1 for the mean, 2 for the others)."""
    if n is None:
        raise _messages.value_error(_N_MESSAGE)
    return _checks.check_whole(n, "n", minimum)


def _by_sensitivity(which_sensitivity, bounded, unbounded):
    """The report of ``which_sensitivity``: one, or for 'both' ``{"Bounded": ...,
    "Unbounded": ...}`` (the release draws the two independently)."""
    if which_sensitivity == "bounded":
        return bounded()
    if which_sensitivity == "unbounded":
        return unbounded()
    return {"Bounded": bounded(), "Unbounded": unbounded()}


def _unbounded_parts(statistic, eps, sensitivities, mechanism, delta, type_DP, alpha,
                     rows=1):
    """The half-widths t_i of the k noisy sufficient statistics of an unbounded release,
    all within them at once with probability >= 1 - alpha, and the joint report on the
    unit scale.

    The release (``stats._noisy_statistics``) divides statistic i by its add/remove
    sensitivity Delta_i and adds noise to the k scaled values in one call of the mechanism
    with the sensitivity ``stats.unit_sensitivity`` (l1 norm k for Laplace, l2 norm
    sqrt(k) for the Gaussian ones): the same law for each coordinate, independent. The
    mechanism's report of that call (:func:`_laplace_mechanism` /
    :func:`_gaussian_mechanism`, ``simultaneous``: per-coordinate level
    1 - (1 - alpha)^(1/k), Sidak's product) gives u, and t_i = Delta_i u. The bounds are
    refused as the release refuses them (``stats.check_unit_sensitivities``). A pooled
    release of ``rows`` samples (``stats._pooled_unbounded``) noises k rows values in the
    one call: size k rows, per-coordinate level 1 - (1 - alpha)^(1/(k rows))."""
    sensitivities = stats.check_unit_sensitivities(np.asarray(sensitivities, np.float64))
    k = sensitivities.size
    unit = stats.unit_sensitivity(k, mechanism)
    if mechanism == "Laplace":
        joint = _laplace_mechanism(statistic, eps, unit, size=k * rows, alpha=alpha,
                                   simultaneous=True)
    else:
        analytic = mechanism == "analytic"
        joint = _gaussian_mechanism(statistic, eps, delta, unit,
                                    "aDP" if analytic else type_DP, analytic=analytic,
                                    size=k * rows, alpha=alpha, simultaneous=True)
    return float(np.max(joint.half_width)) * sensitivities, joint


def _mean_ratio_bound(n, h, t_sum, t_count):
    """The unbounded mean's error bound for every N >= n (see :func:`_unbounded_moments`):
    with d = max(n - t_N, 1), (t_S + h t_N) / (d + t_N) when t_S <= h d, else
    min(t_S / d, 2 h)."""
    least = max(n - t_count, 1.0)
    if t_sum <= h * least:
        return (t_sum + h * t_count) / (least + t_count)
    return min(t_sum / least, 2.0 * h)


def _unbounded_moments(statistic, eps, sensitivities, n, mechanism, delta, type_DP, alpha):
    """The unbounded meanDP, varDP, sdDP, covDP: a bound on abs(release - truth) that holds
    with probability >= 1 - alpha for every dataset of N >= n records (n a public lower
    bound: n itself is private under add/remove neighbours).

    With probability >= 1 - alpha every part's noise is within its half-width
    (:func:`_unbounded_parts`): abs(Z_S) <= t_S, abs(Z_Q) <= t_Q (or t_1, t_2, t_P for
    covDP), abs(Z_N) <= t_N, the rounding to the grid included. On that event, for every
    N >= n and every dataset (h = (U - L) / 2, the values centred at the midpoint; the
    proof is in :mod:`dppack.accuracy`):

    * mean: abs(error) <= (t_S + h t_N) / max(n - t_N, 1), and <= U - L
      (:func:`_mean_ratio_bound`);
    * variance (sdDP: its transform), covariance: :func:`ratio_of_sums_bound` for one
      sample of at least n records (the pooled release's J = 1).

    ``details``: n and the parts' half-widths."""
    parts, joint = _unbounded_parts(statistic, eps, sensitivities, mechanism, delta, type_DP,
                                    alpha)
    if statistic == "meanDP":
        width = _mean_ratio_bound(float(n), float(sensitivities[0]), float(parts[0]),
                                  float(parts[-1]))
    else:
        width = _ratio_of_sums_width(sensitivities, parts, [n])
    return _ratio_report(statistic, width, alpha, joint, parts, {"n": n},
                         "sqrt" if statistic == "sdDP" else None)


def _ratio_of_sums_width(sensitivities, parts, sizes):
    """:func:`ratio_of_sums_bound` from the parts of a variance (sum, squares, count: the
    sensitivities h, h^2, 1) or a covariance (sum1, sum2, products, count: h_1, h_2,
    h_1 h_2, 1) and their half-widths ``parts``."""
    same = len(parts) == 3
    h1, h2 = float(sensitivities[0]), float(sensitivities[0 if same else 1])
    a1, a2 = float(parts[0]), float(parts[0 if same else 1])
    return ratio_of_sums_bound(sizes, h1, h2, a1, a2, float(parts[-2]), float(parts[-1]),
                               same)


def _ratio_report(statistic, width, alpha, joint, parts, details, transform=None):
    """The report of an unbounded ratio of noisy sums: ``details`` and the parts'
    half-widths (named as the release's statistics), ``coverage`` the probability that
    every part is within its half-width (a lower bound on the report's)."""
    names = {2: ("sum", "count"), 3: ("sum", "squares", "count"),
             4: ("sum1", "sum2", "products", "count")}[len(parts)]
    details = dict(details)
    details.update((f"half_width_{name}", float(t)) for name, t in zip(names, parts))
    return NoiseInterval(statistic, width, alpha, False, float(np.prod(joint.coverage)),
                         math.nan, float(np.max(joint.grid)),
                         f"{joint.law} (ratio of noisy sums)", "value", transform, details)


_SIZES_MESSAGE = (
    "sizes is required: the size of each sample (under which.sensitivity = 'unbounded', where "
    "the sizes are private, a public lower bound on each)."
)


def _check_sizes(sizes):
    if sizes is None:
        raise _messages.value_error(_SIZES_MESSAGE)
    sizes = np.atleast_1d(np.asarray(sizes, dtype=object)).ravel()
    if sizes.size < 1:
        raise _messages.value_error("sizes must give the size of each sample.")
    return [_checks.check_whole(v, "sizes", 2, message="sizes must be whole numbers >= 2.")
            for v in sizes]


def _pooled(statistic, eps, sizes, which_sensitivity="bounded", mechanism="Laplace", delta=0,
            type_DP="aDP", approx_n_max=False, *, bounds, alpha):
    """pooledVarDP, pooledCovDP: 'bounded' from the bounded sensitivity for the public sizes
    (``data_access.pooled_var_from_squares`` / ``pooled_cov_from_products``), 'unbounded'
    from :func:`_pooled_unbounded` with ``sizes`` as public lower bounds, 'both' the two
    (as the release: each at the whole budget)."""
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    _statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP,
                      unbounded=True)
    sizes = _check_sizes(sizes)
    reports = {}
    if which_sensitivity != "unbounded":
        if statistic == "pooledVarDP":
            access = data_access.pooled_var_from_squares(sizes, 0.0, *bounds, approx_n_max)
        else:
            access = data_access.pooled_cov_from_products(sizes, 0.0, *bounds, approx_n_max)
        reports["Bounded"] = _scalar_statistic(statistic, eps, access["Bounded.Sensitivities"],
                                               mechanism, delta, type_DP, alpha)
    if which_sensitivity != "bounded":
        reports["Unbounded"] = _pooled_unbounded(statistic, eps, sizes, mechanism, delta,
                                                 type_DP, bounds, alpha)
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports


def ratio_of_sums_bound(sizes, h1, h2, a1, a2, ap, an, same):
    """The one bound on abs(release - truth) of an unbounded variance or covariance (a ratio
    of noisy sums) whose parts are within their half-widths, for every dataset with
    n_j >= ``sizes[j]`` records in sample j: J = len(sizes) samples, J = 1 for varDP, sdDP
    and covDP, J >= 1 for pooledVarDP and pooledCovDP. Derived in :mod:`dppack.accuracy`
    (Variance and covariance, J >= 1).

    Parameters
    ----------
    sizes : sequence of int
        The public lower bounds m_j >= 2 on the sample sizes.
    h1, h2 : float
        The half-ranges of the two variables (h1 = h2 for a variance).
    a1, a2, ap, an : float
        The half-widths of the noises of the centred sums S1, S2 (a1 = a2 for a variance),
        of the sum of products P (of squares Q) and of the count.
    same : bool
        True for a variance (S1 = S2), False for a covariance.

    Returns
    -------
    float
        min(max(B, E), cap): B the bound before the clamp, E the clamp's own error, cap the
        largest distance between the release and the truth.

    Examples
    --------
    One sample of at least 1000 values in [0, 1] (h = 1/2), sums within 0.1 and the count
    within 5: about (0.1 + 5 / 4 + 2 (0.1 / 2)) / (1000 - 5 - 1).

    >>> round(ratio_of_sums_bound([1000], 0.5, 0.5, 0.1, 0.1, 0.1, 5.0, True), 5)
    0.00147
    """
    m = np.asarray(sizes, dtype=np.float64)
    groups = m.size
    total = float(m.sum())  # M
    floors = np.maximum(m - an, 2.0)  # f_j
    worst = np.maximum(m, an + 2.0)  # n*_j
    rho = worst / np.maximum(worst - an, 2.0)  # rho*_j
    spread = h1 * h2  # H
    vmax = spread * total / (total - groups)
    # C_j: the count's term; the max form for a variance, and for a covariance when J = 1
    # (the truth is then the same sample's covariance); the sum when J > 1
    if same or groups == 1:
        mixed = np.maximum(rho * spread, vmax)
    else:
        mixed = rho * spread + vmax
    terms = ap + an * mixed + rho * (h1 * a2 + h2 * a1) + a1 * a2 / floors
    low = float(floors.sum())  # F
    raw = float(terms.sum()) / (low - groups)  # B
    if groups == 1:
        clamp = spread * (1.0 / (total - 1.0) - 1.0 / (total + an))  # E, J = 1
    else:
        recip = float(np.sum(1.0 / floors))  # R
        clamp = spread * (groups / (total - groups)
                          - (groups - recip) / (total + groups * an - groups))
    cap = spread * low / (low - groups)
    if not same:
        cap += vmax
    return min(max(raw, clamp), cap)


def _pooled_unbounded(statistic, eps, sizes, mechanism, delta, type_DP, bounds, alpha):
    """The 'unbounded' pooledVarDP / pooledCovDP (the sizes private, ``sizes`` public lower
    bounds on them): the sums' half-widths (:func:`_unbounded_parts`, with the
    sensitivities of ``data_access.centred_from_sums`` / ``centred_cross_from_sums``, as the
    release) through :func:`ratio_of_sums_bound`."""
    if len(bounds) == 2:
        sens = data_access.centred_from_sums(*bounds, 0.0, 0, 0.0)["Sensitivities"]
    else:
        sens = data_access.centred_cross_from_sums(bounds, 0.0, 0.0, 0.0, 0)["Sensitivities"]
    widths, joint = _unbounded_parts(statistic, eps, sens, mechanism, delta, type_DP, alpha,
                                     rows=len(sizes))
    return _ratio_report(statistic, _ratio_of_sums_width(sens, widths, sizes), alpha, joint,
                         widths, {"sizes": [int(v) for v in sizes]})


def _pooled_var(statistic, eps, sizes=None, lower_bound=None, upper_bound=None,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
                approx_n_max=False, *, alpha, simultaneous):
    """pooledVarDP: see :func:`_pooled` (``sizes`` the public sample sizes; under
    'unbounded' public lower bounds on them)."""
    b = _bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    return _pooled(statistic, eps, sizes, which_sensitivity, mechanism, delta, type_DP,
                   approx_n_max, bounds=(b["lower.bound"], b["upper.bound"]), alpha=alpha)


def _pooled_cov(statistic, eps, sizes=None, lower_bound1=None, upper_bound1=None,
                lower_bound2=None, upper_bound2=None, which_sensitivity="bounded",
                mechanism="Laplace", delta=0, type_DP="aDP", approx_n_max=False, *, alpha,
                simultaneous):
    """pooledCovDP: see :func:`_pooled` (``sizes`` the public sample sizes; under
    'unbounded' public lower bounds on them)."""
    b = _bounds(("lower.bound1", lower_bound1), ("upper.bound1", upper_bound1),
                ("lower.bound2", lower_bound2), ("upper.bound2", upper_bound2))
    return _pooled(statistic, eps, sizes, which_sensitivity, mechanism, delta, type_DP,
                   approx_n_max, alpha=alpha, bounds=(b["lower.bound1"], b["upper.bound1"],
                                                      b["lower.bound2"], b["upper.bound2"]))


_DECLARED_MESSAGE = (
    "declared is required for tableDP with delta > 0 or a Gaussian mechanism: TRUE when every "
    "factor declares its levels (an R factor, a pandas.Categorical), FALSE otherwise."
)


def _count_budget(which_sensitivity, mechanism, eps, delta, type_DP):
    """histogramDP's and tableDP's checks of these arguments, with their messages. Returns
    (eps, delta, type_DP)."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    analytic = mechanism == "analytic"
    if analytic:
        type_DP = "aDP"  # ignored by 'analytic', as in the releases
    if mechanism == "Laplace":
        eps, _ = mechanisms.check_budget(eps)
    else:
        eps, delta = mechanisms.check_budget(eps, delta, type_DP, analytic=analytic,
                                             switch=stats.MECHANISM_SWITCH)
    return eps, delta, type_DP


def _histogram(statistic, eps, which_sensitivity="bounded", mechanism="Laplace", delta=0,
               type_DP="aDP", breaks="Sturges", cells=None, lower_bound=None,
               upper_bound=None, normalize=False, n=None, allow_negative=False, *, alpha,
               simultaneous):
    """histogramDP: the counts (normalize = FALSE), or the proportions (normalize = TRUE,
    :func:`_proportions`: ``cells`` and ``n`` required). ``breaks`` parsed by the release's
    own ``rcompat.parse_breaks`` (a function is called with the bounds, which it then needs)
    and refused as the release refuses it (non-equidistant points); a rule (k from the
    private n) makes the unbounded release spend part of eps on n."""
    normalize = _checks.check_flag(normalize, "normalize")
    allow_negative = _checks.check_flag(allow_negative, "allow.negative")
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if lower_bound is None and upper_bound is None:
        if callable(breaks):
            raise _messages.value_error(
                "lower.bound and upper.bound are required when breaks is a function "
                "(histogramDP calls it with the bounds).")
        argument = np.array([0.0, 1.0])  # not used: only a function reads it
    else:
        b = _bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
        argument = np.array([b["lower.bound"], b["upper.bound"]])
    kind, value = rcompat.parse_breaks(breaks, argument, stacklevel=4)
    if kind == "points" and not rcompat.is_equidistant(value):
        raise _messages.value_error(stats.EQUIDISTANT_MESSAGE)
    if normalize or simultaneous or cells is not None:
        cells = _histogram_cells(kind, value, lower_bound, upper_bound, argument, cells, n,
                                 which_sensitivity)
    if normalize:
        return _proportions(statistic, eps, which_sensitivity, mechanism, delta, type_DP,
                            kind == "rule", cells, n, allow_negative, alpha=alpha)
    if n is not None:
        raise _messages.value_error("n is for the proportions only (normalize = TRUE).")
    return _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP,
                   kind == "rule", cells, alpha=alpha, simultaneous=simultaneous)


def _histogram_cells(kind, value, lower_bound, upper_bound, bounds, cells, n,
                     which_sensitivity):
    """The number of cells K of the histogram the report is for, wherever public values fix
    it: given breaks (points or a number of cells) with the bounds, or a rule with the public
    n ('bounded'), by the release's own ``stats.histogram_breaks``; a ``cells`` that differs is
    refused (a report for fewer cells than released would not hold). Only a rule under
    'unbounded' or 'both' (k from the private n) takes ``cells`` as given: that of the
    released histogram."""
    if kind == "rule" and (which_sensitivity != "bounded" or n is None):
        return cells
    if lower_bound is None or upper_bound is None:
        raise _messages.value_error(
            "lower.bound and upper.bound are required for the number of cells of these "
            "breaks (histogramDP extends them to the bounds).")
    breaks = stats.histogram_breaks(kind, value, bounds[0], bounds[1],
                                    None if n is None else int(n), stacklevel=5)[0]
    count = breaks.size - 1
    if cells is not None and (isinstance(cells, bool) or not isinstance(cells, numbers.Real)
                              or cells != count):
        raise _messages.value_error(
            "cells must be {count}: the histogram of these breaks and bounds has {count} "
            "cells.", count=count)
    return count


_PROPORTION_CELLS_MESSAGE = (
    "cells is required for the proportions (normalize = TRUE): the number of cells of the "
    "histogram (with a rule for the breaks, that of the released histogram)."
)
_PROPORTION_N_MESSAGE = (
    "n is required for the proportions (normalize = TRUE): the number of records "
    "(which.sensitivity = 'bounded'), or a public lower bound on it ('unbounded', 'both')."
)


def _proportions(statistic, eps, which_sensitivity, mechanism, delta, type_DP, rule, cells, n,
                 allow_negative, *, alpha):
    """histogramDP with normalize = TRUE: a bound on abs(p~_i - p_i) for every cell at once,
    for every dataset of at least ``n`` records, from the counts' joint half-width.

    The release (``stats._post_histogram``): x_i = max(c_i + e_i, 0) (x_i = c_i + e_i with
    ``allow_negative``), p~_i = x_i / sum_j x_j, unrounded; the truth p_i = c_i / N, sum_j
    c_j = N (every clipped record falls in one cell). With probability >= 1 - alpha,
    abs(e_j) <= a for all K cells at once (each count's law from ``stats.count_noise_laws``,
    Sidak over the K independent noises, half a grid step for the rounding to the grid when
    g > 1). On that event, for every N >= n:

    * negatives set to 0 (the default): the total is > 0 when N > K a (some c_j > a), and
      abs(p~_i - p_i) <= (K - 1) a / N <= (K - 1) a / n. Proof: p~_i = x_i / (x_i + X),
      X = sum_{j != i} x_j, rises with x_i and falls with X. Write r = N - c_i. Upwards,
      x_i <= c_i + a and X >= max(r - (K - 1) a, 0): if r <= (K - 1) a, p~_i - p_i <= 1 -
      c_i / N = r / N; else p~_i - p_i <= (c_i + a) / (N - (K - 2) a) - c_i / N =
      a (N + (K - 2) c_i) / (N (N - (K - 2) a)), rising in c_i, and c_i < N - (K - 1) a
      gives < (K - 1) a / N. Downwards, x_i >= max(c_i - a, 0) and X <= r + (K - 1) a: if
      c_i <= a, p_i - p~_i <= c_i / N <= a / N; else p_i - p~_i <= c_i / N - (c_i - a) /
      (N + (K - 2) a) = a (N + (K - 2) c_i) / (N (N + (K - 2) a)) <= (K - 1) a / N (at
      c_i = N). Capped at 1 (both are in [0, 1]).
    * ``allow_negative``: p~_i - p_i = ((N - c_i) e_i - c_i E) / (N (N + e_i + E)), E the sum
      of the other K - 1 noises; a linear-fractional function of (e_i, E, c_i) on a box
      where the denominator is > 0 (N > K a), so its extremes are at the corners: c_i = 0
      gives at most a / (N - K a), c_i = N at most (K - 1) a / (N - K a). The bound is
      (K - 1) a / (n - K a) for K >= 2.

    One cell (K = 1) releases 1 exactly whenever its total is not 0: the bound is 0. n <= K a
    is refused: the noisy total can then be 0 (the release NaN) or, with
    ``allow_negative``, of either sign. With a rule for the breaks, K is that of the released
    histogram: under 'unbounded' it comes from a private n drawn independently of the counts'
    noise, so the bound holds given K. ``details``: n, cells and the counts' half-width a."""
    eps, delta, type_DP = _count_budget(which_sensitivity, mechanism, eps, delta, type_DP)
    _refuse_vacuous_both(which_sensitivity, eps, delta, mechanism)
    if cells is None:
        raise _messages.value_error(_PROPORTION_CELLS_MESSAGE)
    cells = _checks.check_whole(cells, "cells", 1)
    if n is None:
        raise _messages.value_error(_PROPORTION_N_MESSAGE)
    n = _checks.check_whole(n, "n", 1)
    laws = stats.count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity, rule)
    reports = {}
    for label, (k, tail) in laws.items():
        law = dict(k=k, tail=tail, law="discrete Laplace" if mechanism == "Laplace"
                   else "discrete Gaussian")
        # the counts are not rounded here: a = g (T + 1/2 if g > 1), jointly over the cells
        counts = _from_laws(statistic, [law], None, _per_value_alpha(alpha, cells, True),
                            False, rounding=0.0 if k <= 0 else 0.5, units="count")
        a = counts.half_width
        if n <= cells * a:
            raise _messages.value_error(
                "n must exceed cells times the counts' half-width ({need:.6g}) for a report "
                "of the proportions: below, the noisy total can be 0 (the release is then "
                "NaN) or, with allow.negative, of either sign.", need=cells * a)
        if cells == 1:
            width = 0.0
        elif allow_negative:
            width = (cells - 1) * a / (n - cells * a)
        else:
            width = min((cells - 1) * a / n, 1.0)
        reports[label] = NoiseInterval(
            statistic, width, alpha, True,
            # the joint probability that every count is within a (independent noises), as
            # the ratio reports' coverage
            float(counts.coverage) ** cells, counts.scale, counts.grid,
            f"{counts.law} (proportions of noisy counts)", "proportion",
            details={"n": n, "cells": cells, "half_width_count": a})
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports


def _table(statistic, eps, which_sensitivity="bounded", mechanism="Laplace", delta=0,
           type_DP="aDP", cells=None, declared=None, allow_negative=False, *, alpha,
           simultaneous):
    """tableDP: ``declared`` True when every factor declares its levels (a pandas Categorical
    / an R factor, as the release decides it, ``data_access.table_factors``): the counts of
    :func:`_counts`; False for the thresholded release of undeclared levels (its own checks,
    law and threshold, and the bound of a suppressed cell: :func:`_suppressed`). With the
    Laplace mechanism and delta = 0 the levels must be declared (the release refuses
    undeclared ones), so ``declared`` may be left out; otherwise it is required.
    ``allow_negative`` (checked, as the release checks it) does not change the report: the
    count range [0, Inf) clips the interval whatever the release does with negatives."""
    _checks.check_flag(allow_negative, "allow.negative")
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if declared is None:
        pure = (mechanism == "Laplace" and isinstance(delta, numbers.Real)
                and not isinstance(delta, bool) and delta == 0)
        if not pure:
            raise _messages.value_error(_DECLARED_MESSAGE)
        declared = True
    declared = _checks.check_flag(declared, "declared")
    return _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP, False, cells,
                   alpha=alpha, simultaneous=simultaneous, thresholded=not declared)


def _suppressed(half_width, threshold):
    """The details of the thresholded table's report (tableDP, undeclared levels): the
    threshold tau and the largest true count of a suppressed cell, floor(tau + H), for H the
    half-width g (T + rounding) of the noisy count before the integer rounding.

    Proof (per observed cell, true count c >= 1, an integer). The release draws
    N = g (V + Z), V = round(c / g), g = 2^k, Z the integer noise of
    ``stats.thresholded_table_laws`` (independent between cells); it releases
    r = round(N) (N itself on the grid g = 1 of the integer noise; a multiple of g >= 2
    otherwise) when N > tau, and suppresses the cell otherwise. With T
    the smallest integer with P(abs(Z) <= T) >= 1 - alpha' (the per-cell level) and
    H = g (T + rho), rho = 0 when g <= 1 (c / g is then an integer, V = c / g) and 1/2
    otherwise (abs(g V - c) <= g / 2), the event E = {abs(Z) <= T} gives abs(N - c) <= H.
    On E: a released cell has abs(r - c) <= H + 1/2, so abs(r - c) <= floor(H + 1/2), the
    integer ``half_width``; a suppressed cell has c <= N + H <= tau + H, so
    c <= floor(tau + H). Whichever the release does with the cell, the statement made about
    it fails only off E, with probability at most alpha'. The probability is over the
    cell's noise, not conditional on the cell being released: a cell whose count is well
    below tau is released only when its noise is large, so conditionally on its release it
    is over-estimated, and no bound from public values holds conditionally. A cell never
    observed (count 0) is never released, and c <= floor(tau + H) holds for it. A released
    count is > tau >= 1 (or >= g > tau when g >= 2), so a 0 in the released table is a
    suppressed or unobserved cell (:meth:`NoiseInterval.interval` gives it [0, floor(tau +
    H)]).

    Simultaneous: the noises of the K observed cells are independent, so E holds for all of
    them with probability (1 - alpha')^K >= 1 - alpha for alpha' of ``cells`` >= K (Sidak's
    product). K (the number of cells with a nonzero count) is private: ``cells`` must be a
    public upper bound on it (n, or the number of possible combinations of levels). The
    number of released cells is not enough, as the released set is chosen by the noise: for
    100 cells of count 23 (Laplace, eps = 0.9, delta = 1e-5, tau = 26.6: each released with
    probability 0.1), ``cells`` = 10 would give h = 12, which a released cell exceeds with
    probability 0.165 > 0.05."""
    h = float(np.max(half_width))
    return {"threshold": float(threshold), "suppressed_max": float(math.floor(threshold + h))
            if math.isfinite(threshold) else math.inf}


def _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP, rule, cells, *,
            alpha, simultaneous, thresholded=False):
    """histogramDP (counts, normalize = FALSE) and tableDP (declared levels): each cell's
    law (``stats.count_noise_laws``: integer noise on the integer counts). With
    ``thresholded`` (tableDP, undeclared levels): the release's own checks
    (``stats.check_table_budget``), laws and thresholds (``stats.thresholded_table_laws``),
    and the bound of a suppressed cell (:func:`_suppressed`)."""
    if thresholded:
        type_DP = "aDP" if mechanism == "analytic" else type_DP  # as the release
        eps, delta = stats.check_table_budget(eps, delta, mechanism, type_DP, False)
    else:
        eps, delta, type_DP = _count_budget(which_sensitivity, mechanism, eps, delta, type_DP)
    _refuse_vacuous_both(which_sensitivity, eps, delta, mechanism, thresholded)
    if simultaneous and cells is None:
        raise _messages.value_error("cells (the number of cells) is required when "
                                    "simultaneous is TRUE.")
    given = cells is not None
    cells = 1 if cells is None else _checks.check_whole(cells, "cells", 1)
    if thresholded:
        laws = {label: (k, tail, tau) for label, (_, k, tail, tau) in
                stats.thresholded_table_laws(eps, mechanism, delta, type_DP,
                                             which_sensitivity).items()}
    else:
        laws = {label: (k, tail, None) for label, (k, tail) in
                stats.count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity,
                                       rule).items()}
    reports = {}
    for label, (k, tail, threshold) in laws.items():
        # the counts lie on the grid when g <= 1; else rounding them costs half a step
        law = dict(k=k, tail=tail, law="discrete Laplace" if mechanism == "Laplace"
                   else "discrete Gaussian")
        # one law for every cell: a scalar half-width, however many cells (10^12 is fine)
        report = _from_laws(statistic, [law], None, alpha, simultaneous,
                            rounding=0.0 if k <= 0 else 0.5, units="count", values=cells)
        if threshold is not None:
            report.details = _suppressed(report.half_width, threshold)
        if given:
            report.details["cells"] = cells
        # the released counts are integers: within floor(h + 1/2) (h = T itself on g = 1)
        report.half_width = float(math.floor(report.half_width + 0.5))
        reports[label] = report
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports


def _utility_bound(eps, sensitivity, candidates, largest, alpha):
    """The utility shortfall OPT - u(output) of the exact exponential mechanism
    (``_random.exponential_mechanism``, uniform measure) that is exceeded with probability
    at most alpha: (2 Delta' / eps)(ln |R| + ln(1 / alpha)) + h (Dwork and Roth 2014, Theorem
    3.11, for the rounded utilities u~ and Delta' = D h; rounding each utility to the grid
    h moves it by at most h / 2, so OPT and u(output) each by h / 2). ``largest`` bounds
    abs(u) (it fixes the grid, ``_random.exponential_grid``). Returns (bound, h)."""
    k, rate = _random.exponential_grid(float(largest), eps, float(sensitivity))
    step = math.ldexp(1.0, k)  # h: the grid of the utilities
    # rate = eps / (2 D) per step h, D h = Delta': (2 Delta' / eps) = h / rate
    return (math.log(candidates) + math.log(1.0 / alpha)) * step / float(rate) + step, step


def _rank_bound(eps, lower, upper, n, alpha, lattice=None, sensitivity=1.0):
    """The rank-error excess of quantileDP's exponential mechanism that fails with
    probability at most alpha (:func:`_utility_bound` for the release's ``sensitivity``,
    ``stats.quantile_sensitivity``: 1, Delta' = 1 + 2^-20, under 'bounded'; max(quant,
    1 - quant) under 'unbounded') for the release's candidates
    (``stats.quantile_candidates``, |R| about 2^59: the bound is a worst case from public
    values only, typically an order of magnitude above the rank errors seen; with a
    ``resolution``, its N + 1 candidates, ``stats.Lattice``, and the rank error is the
    distance from quant n to the release's ranks [lt, le])."""
    candidates = stats.quantile_candidates(lower, upper) if lattice is None else lattice.size
    return _utility_bound(eps, sensitivity, candidates, n, alpha)


def _exponential(statistic, eps, sensitivity, size=None, measure=None, candidates=None, *,
                 alpha, simultaneous):
    """ExponentialMechanism: the bound on OPT - u(output) of :func:`_utility_bound` in the
    utility's units, with ln |R| replaced by ln(M / mu_min) for a base ``measure`` (M its
    total, mu_min its smallest positive weight, both after the release's rounding to integers,
    ``_random.integer_measure``; |R| = ``size`` for the uniform measure, where M / mu_min = |R|).

    Proof (McSherry and Talwar 2007; Dwork and Roth 2014, Theorem 3.11 with a base measure):
    with S the best candidates the release can select (positive weight, finite utility) and
    OPT their utility, P(u(output) <= c) <= M exp(eps' c) / (mu(S) exp(eps' OPT)),
    eps' = eps / (2 Delta'), and mu(S) >= mu_min whatever the data. So the shortfall exceeds
    (2 Delta' / eps)(ln(M / mu_min) + ln(1 / alpha)) with probability at most alpha; OPT is
    over the candidates of positive weight. The grid assumes abs(u) <= sensitivity 2^979
    (beyond, the release coarsens it)."""
    eps = _checks.check_finite_budget(eps, "eps")
    sensitivity = mechanisms.check_exponential_sensitivity(sensitivity)
    if candidates is not None:  # the release's checks: one per utility, so size = their number
        if not hasattr(candidates, "__len__"):
            raise _messages.value_error(
                "candidates must be a sequence with one entry per utility.")
        if size is not None and _checks.check_whole(size, "size", 1) != len(candidates):
            raise _messages.value_error("Length of candidates must match length of utility")
        size = len(candidates)
    if measure is None:
        if size is None:
            raise _messages.value_error(
                "size (the number of candidates) or measure is required for "
                "ExponentialMechanism.")
        size = _checks.check_whole(size, "size", 1)
        ratio = float(size)
    else:
        raw = np.ravel(np.asarray(measure, dtype=object))
        if size is not None:
            size = _checks.check_whole(size, "size", 1)
        weights = _random.integer_measure(
            mechanisms.check_measure(measure, raw.size if size is None else size))
        positive = weights[weights > 0]
        if not positive.size:
            raise _messages.value_error(
                "At least one candidate must have positive measure and utility > -Inf.")
        ratio = float(weights.sum(dtype=np.float64)) / float(positive.min())
    width, step = _utility_bound(eps, sensitivity, ratio, 0.0, alpha)
    details = {} if measure is None else {"measure_ratio": ratio}
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (utility shortfall)", "utility",
                         details=details)


def _quantile(statistic, eps, lower_bound, upper_bound, quant=0.5, n=None,
              which_sensitivity="bounded", mechanism="exponential", resolution=None, *, alpha,
              simultaneous):
    """quantileDP / medianDP: the rank-error bound of :func:`_rank_bound` (``quant``
    required for quantileDP, by :func:`noiseIntervalDP`; ``n`` does not change the bound,
    it only fixes the utilities' grid, whose step 2^-20 is added)."""
    b = _bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lattice = stats.check_resolution(resolution, b["lower.bound"], b["upper.bound"])
    data_access.check_quant(quant)
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    _checks.check_choice(mechanism, "mechanism", ("exponential",), stats.EXPONENTIAL_MESSAGE)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = _rank_bound(eps, b["lower.bound"], b["upper.bound"], n, alpha, lattice,
                              stats.quantile_sensitivity(quant, which_sensitivity))
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


def _quantiles(statistic, eps, quants, lower_bound, upper_bound, method="recursive", n=None,
               which_sensitivity="bounded", resolution=None, *, alpha, simultaneous):
    """quantilesDP: the release's checks (bounds, quants, method, which.sensitivity, eps),
    then the method's report, in ranks; ``method`` defaults to the release's ('recursive').

    'independent' (quantileDP at eps / m for each quantile, then sorted):
    :func:`_rank_bound` at eps / m for every quantile at once, the m draws being
    independent (per-quantile level 1 - (1 - alpha)^(1/m)). Sorting keeps it: for sorted
    targets, sorting the outputs does not raise the largest rank error. 'joint':
    :func:`_joint_quantiles` (needs ``resolution``); 'recursive':
    :func:`_recursive_quantiles`."""
    b = _bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    quants = quantiles.check_quants(quants)  # the release's checks, in its order
    m = quants.size
    _checks.check_choice(method, "method", quantiles.METHODS)
    _checks.check_choice(which_sensitivity, "which.sensitivity", quantiles.WHICH)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    lower, upper = b["lower.bound"], b["upper.bound"]
    if method == "joint":
        return _joint_quantiles(statistic, eps, m, lower, upper, resolution, alpha,
                                quantiles.joint_sensitivity(quants, which_sensitivity))
    # 'recursive' and 'independent': the release's resolution (its candidates)
    lattice = stats.check_resolution(resolution, lower, upper)
    if method == "recursive":
        return _recursive_quantiles(statistic, eps, quants, lower, upper, n, which_sensitivity,
                                    alpha, simultaneous, lattice)
    # one width for all m draws: the largest of their sensitivities
    sensitivity = max(stats.quantile_sensitivity(q, which_sensitivity) for q in quants)
    width, step = _rank_bound(eps / m, lower, upper, n, _per_value_alpha(alpha, m, True),
                              lattice, sensitivity)
    return NoiseInterval(statistic, width, alpha, True, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


_RESOLUTION_MESSAGE = (
    "An accuracy report of quantilesDP with method = 'joint' needs resolution, the public "
    "spacing r of the data (the data and the bounds lie on the grid lower.bound + r * k, "
    "e.g. r = 1 for whole numbers): without it the rank error has no bound from public "
    "values, as it depends on the gaps between the data.")
# The floating-point sampler of JointExp gets each probability right within a factor of
# about 1 +- 1e-9 (dppack.quantiles), and data on the grid in floating point make widths of
# r within a relative 1e-15 or so: both covered by this slack, generously.
_JOINT_SLACK = 2.0 ** -20
# How far (b - a) / r may be from a whole number N, in steps: floating-point spellings of the
# bounds (0.1 * 3) only, far below the r / 2 the volume argument allows.
_JOINT_GRID_TOLERANCE = 1e-6


def _joint_quantiles(statistic, eps, m, lower, upper, resolution, alpha, sensitivity=2.0):
    """quantilesDP, 'joint' (JointExp): a bound on every quantile's rank error at once, for
    data on the public grid a + r Z (r = ``resolution``). See :mod:`dppack.accuracy`,
    "Joint quantiles", for the derivation: with N = (b - a) / r (within 1e-6 of a whole
    number, ``_JOINT_GRID_TOLERANCE``),

        t = (2 Delta / eps)(m (ln(2 N) + s) + ln(1 / alpha')),
        alpha' = alpha / (1 + s) - m 2^-50 (1 + max(|a|, |b|) / r),  s = 2^-20,

    (with ln(2 N) replaced by ln((W + m - 1) / l) where that is larger: W the release's grid
    points, l = r / (2 g) - 2 those of an interval at least r / 2 wide)
    bounds the total gap deviation's excess over T*, the best total over outputs in
    intervals at least r / 2 wide (for data on the grid, even with floating-point error,
    the best over the intervals that are not rounding artefacts), and t / 2 the excess of
    each quantile's rank error over T* / 2. Delta = ``sensitivity``
    (``quantiles.joint_sensitivity``: 2 bounded, 2 (1 - min_i (q_i - q_{i-1})) unbounded)."""
    if resolution is None:
        raise _messages.value_error(_RESOLUTION_MESSAGE)
    r = _checks.check_number(resolution, "resolution", 0.0, None, closed="neither",
                             finite=True, message="resolution must be a positive number.")
    steps = (upper - lower) / r
    count = round(steps) if math.isfinite(steps) else 0
    # absolute, in steps: a relative check lets the bounds miss the grid by many steps'
    # fractions when there are many grid points (a narrow top interval [x_n, b))
    if count < 1 or abs(steps - count) > _JOINT_GRID_TOLERANCE:
        raise _messages.value_error(
            "resolution must divide upper.bound - lower.bound: the data and the bounds lie "
            "on the grid lower.bound + resolution * k.")
    # an output rounded onto its interval's upper end (a uniform double in an interval at
    # least r / 2 wide): at most 2^-50 (1 + max(|a|, |b|) / r) for each of the m outputs
    rounding = m * 2.0 ** -50 * (1.0 + max(abs(lower), abs(upper)) / r)
    level = alpha / (1.0 + _JOINT_SLACK) - rounding
    # the release's grid g = 2^j: W candidates, at least r / (2 g) - 2 in an interval at
    # least r / 2 wide (a float: ldexp stays finite, r / g <= 2^1100 or so)
    j, first, last = quantiles.joint_grid(lower, upper)
    points = math.ldexp(r, -j - 1) - 2.0
    if level <= 0 or points < 1:
        raise _messages.value_error(
            "resolution is too fine for the bounds: the release's floating-point outputs "
            "cannot resolve it (alpha would be spent on rounding).")
    beta = eps / (2.0 * sensitivity)  # JointExp's density exp(eps u / (2 Delta))
    # vol(all) / vol(S) <= ((W + m - 1) / l)^m, about (2 N)^m, N = (b - a) / r; the release
    # with this resolution (JointExp on the lattice's N + 1 points, G refined candidates
    # each, quantiles._lattice_coordinates): ((N + 1) G + m - 1)^m, an output's best
    # refined candidates being at least one (its T* at most the one above); only where
    # that release exists (a resolution it accepts)
    try:
        lattice = stats.check_resolution(r, lower, upper)
    except ValueError:
        lattice = None
    lattice_cells = 1.0 if lattice is None else lattice.size * quantiles.SUBPOINTS + m - 1
    log_ratio = max(math.log(2.0 * steps), math.log((last - first + m - 1) / points),
                    math.log(lattice_cells))
    total = (m * (log_ratio + _JOINT_SLACK) + math.log(1.0 / level)) / beta
    return NoiseInterval(statistic, total / 2.0, alpha, True, math.nan, math.nan, math.nan,
                         "exponential mechanism (rank error)", "rank",
                         details={"total": total, "resolution": r, "grid_points": count})


def _recursive_quantiles(statistic, eps, quants, lower, upper, n, which_sensitivity, alpha,
                         simultaneous, lattice=None):
    """quantilesDP, 'recursive': per quantile, the sum over the nodes on its path of their
    weights (``quantiles.recursion_weights``) times each node's quantileDP bound
    (:func:`_utility_bound` at the release's share, ``quantiles.recursive_share``; the root
    with the candidates of [lower, upper], the other nodes with the most any sub-range has,
    ``stats.quantile_candidates_within``). Each node's bound holds with probability at
    least 1 - alpha' given the releases before it, so all m of them (``simultaneous``) with
    1 - alpha' = (1 - alpha)^(1/m), or the d on one quantile's path with
    (1 - alpha)^(1/d). See :mod:`dppack.accuracy`, "Recursive quantiles"."""
    m = quants.size
    share = quantiles.recursive_share(eps, m, which_sensitivity)
    weights = quantiles.recursion_weights(quants)
    sensitivities = quantiles.recursion_sensitivities(quants, which_sensitivity)
    root = stats.quantile_candidates(lower, upper)
    inner = stats.quantile_candidates_within(lower, upper)
    if lattice is not None:  # every node chooses among a subset of the N + 1 candidates
        root = inner = lattice.size
    widths = np.empty(m)
    for j, (w, delta) in enumerate(zip(weights, sensitivities)):
        level = _per_value_alpha(alpha, m if simultaneous else w.size, True)
        # each node's bound with its own sensitivity (quantiles.node_sensitivity)
        top, step = _utility_bound(share, float(delta[0]), root, n, level)
        if np.all(delta[1:] == delta[0]):  # one bound for the nodes below the root
            below, _ = _utility_bound(share, float(delta[0]), inner, n, level)
            widths[j] = w[0] * top + float(np.sum(w[1:])) * below
        else:
            widths[j] = w[0] * top + sum(
                float(wv) * _utility_bound(share, float(d), inner, n, level)[0]
                for wv, d in zip(w[1:], delta[1:]))
    return NoiseInterval(statistic, widths, alpha, simultaneous, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank",
                         details={"eps_each": share,
                                  "depth": np.array([w.size for w in weights]),
                                  "weight": np.array([float(np.sum(w)) for w in weights])})


def _bounds_dp(statistic, eps, quants=(0.01, 0.99), grid=None, n=None, *, alpha,
               simultaneous):
    """boundsDP: each of its two selections is the exponential mechanism (sensitivity 1,
    uniform measure on the G candidates, at ``quantiles.bounds_share`` (eps)), so
    :func:`_utility_bound` bounds its rank error's excess over the best candidate's; with
    ``simultaneous`` both at once (independent draws: per-bound level
    1 - (1 - alpha)^(1/2)). The fix-up of upper <= lower only widens the range: see
    :mod:`dppack.accuracy`, "boundsDP"."""
    quantiles.check_bounds_quants(quants)  # the release's checks, in its order
    size = quantiles.check_grid(grid).size
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = _utility_bound(quantiles.bounds_share(eps), 1.0, size, n,
                                 _per_value_alpha(alpha, 2, simultaneous))
    return NoiseInterval(statistic, width, alpha, simultaneous, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank",
                         details={"candidates": size})


_HANDLERS = {
    "LaplaceMechanism": _laplace_mechanism,
    "GaussianMechanism": _gaussian_mechanism,
    "meanDP": _one_sample,
    "varDP": _one_sample,
    "sdDP": _one_sample,
    "covDP": _covariance,
    "pooledVarDP": _pooled_var,
    "pooledCovDP": _pooled_cov,
    "histogramDP": _histogram,
    "tableDP": _table,
    "quantileDP": _quantile,
    "medianDP": _quantile,
    "quantilesDP": _quantiles,
    "ExponentialMechanism": _exponential,
    "boundsDP": _bounds_dp,
}


def noiseIntervalDP(statistic, eps, alpha=0.05, simultaneous=False, **arguments):
    """The (1 - alpha) interval of a release's noise, from its public arguments: an accuracy
    report at no privacy cost (no data are read, no noise is drawn).

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
          (``stats.histogram_breaks``) and a ``cells`` that differs is refused; only a rule
          under 'unbounded' needs ``cells`` (the released histogram's).
        * histogramDP's ``breaks`` go through the release's own parsing
          (``rcompat.parse_breaks``; non-equidistant points refused with its message); a
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
        :mod:`dppack.accuracy`).

    Notes
    -----
    See :mod:`dppack.accuracy` for the derivation: the half-width is computed exactly from
    the discrete law the release draws (grid and scale from the release's own calibration),
    plus half a grid step for rounding the true value; for quantiles, a rank-error bound
    (Dwork and Roth 2014, Theorem 3.11).

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
    if not isinstance(statistic, str) or statistic not in _HANDLERS:
        raise _messages.value_error(
            "statistic must be one of {" + ", ".join(f"'{s}'" for s in _STATISTICS) + "}.")
    alpha = _check_alpha(alpha)
    simultaneous = _checks.check_flag(simultaneous, "simultaneous")
    handler = _HANDLERS[statistic]
    accepted = handler.__code__.co_varnames[2:handler.__code__.co_argcount]
    if statistic == "medianDP":
        accepted = tuple(name for name in accepted if name != "quant")
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
    _check_required(statistic, handler, arguments)
    report = handler(statistic, eps, **arguments, alpha=alpha, simultaneous=simultaneous)
    if isinstance(report, dict):
        for label, one in report.items():
            one.range = _truth_range(statistic, one.units, label, arguments)
    else:
        report.range = _truth_range(statistic, report.units,
                                    arguments.get("which_sensitivity", "bounded").title(),
                                    arguments)
    return report


# The arguments without which a report has no meaning, beyond the handlers' positional ones
# (n and sizes have their own messages, saying what they are).
_REQUIRED = {
    "meanDP": ("lower_bound", "upper_bound"), "varDP": ("lower_bound", "upper_bound"),
    "sdDP": ("lower_bound", "upper_bound"),
    "covDP": ("lower_bound1", "upper_bound1", "lower_bound2", "upper_bound2"),
    "pooledVarDP": ("lower_bound", "upper_bound"),
    "pooledCovDP": ("lower_bound1", "upper_bound1", "lower_bound2", "upper_bound2"),
    "quantileDP": ("quant",),
}


def _check_required(statistic, handler, arguments):
    """'<arg> is required for <statistic>.' (in each caller's spelling) for the first
    required argument left out: the handler's arguments without a default, then
    :data:`_REQUIRED`, before anything else is checked."""
    code = handler.__code__
    positional = code.co_varnames[2:code.co_argcount]
    first_default = len(positional) - len(handler.__defaults__ or ())
    for name in positional[:first_default] + _REQUIRED.get(statistic, ()):
        if arguments.get(name) is None:
            raise _messages.exception_pair(
                ValueError, f"{name} is required for {statistic}.",
                f"{name.replace('_', '.')} is required for {statistic}.")


def _truth_range(statistic, units, which, arguments):
    """The public range (low, high) that holds the true value, or None: counts >= 0,
    proportions in [0, 1], a mean in [lower, upper], a (pooled) variance in [0, top] and a
    covariance in [-top, top] for top the largest value of the data's (``stats.max_squares``:
    Popoviciu's bound for a variance, Cauchy-Schwarz for a covariance), at the public sizes
    ('Bounded') or over every size >= them ('Unbounded': the largest, at the sizes, for one
    sample; for several, spread M / (4 (M - J)) with M their total, which bounds
    sum_j spread n_j / 4 / (N - J) for every N >= M). sdDP's is the square root of its
    variance's. Computed from the checked arguments after the handler ran."""
    if units == "count":
        return (0.0, math.inf)
    if units == "proportion":
        return (0.0, 1.0)
    get = arguments.get
    if statistic == "meanDP":
        return (float(get("lower_bound")), float(get("upper_bound")))
    if statistic in ("varDP", "sdDP", "covDP", "pooledVarDP", "pooledCovDP"):
        if statistic in ("covDP", "pooledCovDP"):
            spread = ((float(get("upper_bound1")) - float(get("lower_bound1")))
                      * (float(get("upper_bound2")) - float(get("lower_bound2"))))
        else:
            spread = (float(get("upper_bound")) - float(get("lower_bound"))) ** 2
        if statistic.startswith("pooled"):
            sizes = [int(v) for v in np.ravel(np.asarray(get("sizes"), dtype=object))]
            total, groups = sum(sizes), len(sizes)
            if which == "Unbounded" and groups > 1:
                top = spread * total / (4.0 * (total - groups))
            else:
                top = sum(stats.max_squares(m, spread) for m in sizes) / (total - groups)
        else:
            n = int(get("n"))
            top = stats.max_squares(n, spread) / (n - 1)
        if statistic == "sdDP":
            return (0.0, math.sqrt(top))
        return (-top, top) if statistic.endswith("CovDP") or statistic == "covDP" else (0.0, top)
    return None
