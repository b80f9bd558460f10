"""The one place that draws random numbers (``_random.name(...)`` everywhere else).

Exact samplers on a power-of-two grid (Canonne, Kamath and Steinke 2020) and the continuous
draws for data-free randomness, by topic in the modules below. No other module of dppack draws:
callers import the package (``from . import _random``), never a name or a module of it, and a
patch of ``_random.<name>`` (the privacy auditor's, ``tests/privacy``) reaches every call,
internal ones included: the package forwards it to each of its modules that binds the name.
"""

import importlib
import sys

from ._seeding import (
    _SeedWords, _integer_seed_words, _generator, _fresh_generator, _seeded_generator,
    _RANDOM_STATE_MESSAGE, as_generator, generator_from_words,
)
from ._continuous import (
    laplace, normal, uniform, uniform_between, log_categorical, gamma, l2_laplace,
)
from ._coins import (
    _exact_samplers, _fraction, uniform_integer, uniform_bits, bernoulli, bernoulli_exp,
    exp_series_bounds, bernoulli_real, bernoulli_exp_wide, _WORD_THRESHOLDS, _word_thresholds,
    _threshold_arrays, bernoulli_real_rows, LIBM_ERROR, FORCE_EXACT_PATH, word, word_thresholds,
    _exp_neg_bounds, _below, _exp_coin_bounds, _EXP_COIN_SLACK, exp_coins_dyadic, bernoulli_word,
    bernoulli_exp_one, cumulative_index, cumulative_index_one, word_index_plan, word_index,
    word_index_one,
)
from ._grid import (
    GRID_BITS, GAUSSIAN_GRID_BITS, GAUSSIAN_FINE_BITS, LAPLACE_GRID_BITS, LAPLACE_MAX_BITS,
    UTILITY_GRID_BITS, grid_exponent, grid_units, _times_power_of_two, _release, _FEW_VALUES,
    _release_few, _WIDE, release_on_grid, release_path_on_grid, grid_values, release_with_grid,
    _CUMSUM_COLUMNS, accumulate_rows, _scales_finitely,
)
from ._laplace import (
    discrete_laplace, geometric_rates, discrete_laplace_rates, laplace_grid, _laplace_grid,
    discrete_laplace_noise, discrete_laplace_tail, smallest_tail_index, _FAST_MIN_WORD,
    _FAST_LARGEST, _SPLIT_RATE_BITS, _geometric_exact, _geometric_one_word, _split, geometric_one,
    discrete_laplace_one, linf_noise, _WORDS_MARGIN, _WORDS_MIN, _SHIFTS, _WORDS_CHUNK,
    _WORDS_FEW, _SIXTEEN_LN2_64, _x_exact, _x_trials, _x_draws, _words_exponent,
    geometric_words, _wide_quotient, discrete_laplace_words, geometric_words_one,
    geometric_unit_words, _MARGINS, _WORDS_TOP,
)
from ._gaussian import (
    discrete_gaussian, discrete_gaussian_grid, _discrete_gaussian_grid, gaussian_variance,
    discrete_gaussian_noise, _gaussian_on_grid, discrete_gaussian_noise_on_grid, _log_tail_sum,
    _log_normaliser, discrete_gaussian_tail, discrete_gaussian_delta, discrete_gaussian_one,
)
from ._blocks import (
    _BLOCK_BITS, _BLOCK_CHUNK, _rounded_up_powers, _gaussian_blocks, _GUIDE_BITS, _block_guide,
    _block_multiple, _block_index, _block_thresholds, _block_accept_bounds, _gaussian_tail_draw,
    discrete_gaussian_blocks, _ROWS_CHUNK, _block_tables, discrete_gaussian_blocks_rows,
    discrete_gaussian_block_one, _gaussian_blocks_list, _block_thresholds_lists,
)
from ._ladder import (
    _LADDER_GUIDE, _LADDER_CHUNK, LADDER_MIN_P, _LADDER_SIGMAS, _MAX63, _ladder_envelope,
    _LADDER_SLACK, _ladder_tables, _ladder_accept_bounds, _ladder_exact, discrete_gaussian_ladder,
    ladder_columns, _ladder_fill,
)
from ._selection import (
    integer_measure, exponential_grid, _exponential_rate, exponential_coin, exponential_mechanism,
    exponential_interval, _PLANNED_MAX, _PLANS_KEPT, _PLANS, _SEEN, planned_interval,
    _selection_plan,
)

__all__ = [
    "as_generator",
    "bernoulli",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_gaussian_delta",
    "discrete_gaussian_grid",
    "discrete_gaussian_noise",
    "discrete_gaussian_noise_on_grid",
    "discrete_gaussian_tail",
    "discrete_laplace",
    "discrete_laplace_noise",
    "discrete_laplace_tail",
    "exponential_coin",
    "exponential_grid",
    "exponential_interval",
    "exponential_mechanism",
    "gamma",
    "gaussian_variance",
    "generator_from_words",
    "grid_exponent",
    "grid_units",
    "integer_measure",
    "l2_laplace",
    "laplace",
    "laplace_grid",
    "linf_noise",
    "log_categorical",
    "normal",
    "uniform",
    "uniform_between",
    "uniform_integer",
]


class _Package(type(sys)):
    """The package's module type: an assignment to it reaches each module binding the name."""

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        for module in _BINDERS.get(name, ()):
            setattr(module, name, value)

    def __delattr__(self, name):
        super().__delattr__(name)
        for module in _BINDERS.get(name, ()):
            delattr(module, name)

    def __reduce__(self):
        # By name, as pickle and cloudpickle treat plain modules: a Dask task that refers to
        # the package reaches a distributed worker as an import, not as a copy.
        return importlib.import_module, (self.__name__,)


_MODULES = (
    _seeding, _continuous, _coins, _grid, _laplace, _gaussian, _blocks, _ladder, _selection,
)
# name -> the modules that bind it (define or import it), fixed here: a patch restored after a
# deletion goes back to the same modules
_BINDERS = {name: tuple(m for m in _MODULES if name in vars(m))
            for name in list(globals()) if not name.startswith("__")}
sys.modules[__name__].__class__ = _Package
