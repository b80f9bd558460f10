"""R's ``hist()``: the breaks, the fuzz and the counts of the cells (R 4.2.2)."""

import dataclasses
import math
import sys
import warnings

import numpy as np

from .. import _checks, _frames, _messages
from ._pretty import fd_cells, finite_values, nclass_sturges, pretty, scott_cells


# hist() caps a number of cells at one million, with a warning.
_MAX_CELLS = 1e6

_RULES = ("sturges", "fd", "freedman-diaconis", "scott")
# R's match.arg() message, with its curly quotes: what an R caller reads (R's hist() says it);
# a Python caller reads which argument and which values (_PYTHON_RULE_MESSAGE).
_RULE_MESSAGE = "'arg' should be one of " + ", ".join(f"\u201c{rule}\u201d" for rule in _RULES)
_PYTHON_RULE_MESSAGE = ("breaks, when a string, must be one of 'Sturges', 'Scott', 'FD' or "
                        "'Freedman-Diaconis' (in any case, or a unique prefix); got {value!r}.")
_NOT_COUNTED = "some 'x' not counted; maybe 'breaks' do not span range of 'x'"
_INVALID_NUMBER = "invalid number of 'breaks'"

# --------------------------------------------------------------------------------------------
# hist()


def _match_rule(name):
    """R's ``match.arg(tolower(breaks), rules)``: an exact name, else a unique prefix."""
    original, name = name, name.lower()
    if name in _RULES:
        return name
    matches = [rule for rule in _RULES if name and rule.startswith(name)]
    if len(matches) != 1:
        raise _messages.exception_pair(ValueError, _PYTHON_RULE_MESSAGE.format(value=original),
                                       _RULE_MESSAGE)
    return matches[0]


def _is_string(value):
    return isinstance(value, (str, np.str_))


def _user_breaks(values, message):
    """A vector of break points as R uses it: numeric, then sorted."""
    if any(isinstance(v, (bool, np.bool_)) for v in np.ravel(np.asarray(values, dtype=object))):
        raise ValueError(message)
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise ValueError(message)
    return np.sort(array.astype(np.float64).ravel())


def check_cells(value, stacklevel=2):
    """A suggested number of cells as R's ``hist()`` checks it.

    Parameters
    ----------
    value : float
        A number of cells (from ``breaks``, a function given as ``breaks``, or a rule).
    stacklevel : int, default 2
        Of the warning, as in :func:`warnings.warn`.

    Returns
    -------
    int or float
        ``value``, capped at one million with R's warning.

    Raises
    ------
    ValueError
        R's "invalid number of 'breaks'" for anything but a finite number >= 1.

    References
    ----------
    R Core Team, ``hist.default``'s checks of ``breaks``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._hist import check_cells
    >>> check_cells(10)
    10
    >>> try:
    ...     check_cells(0)
    ... except ValueError as error:
    ...     print(error)
    invalid number of 'breaks'
    """
    _checks.check_number(value, "breaks", low=1, finite=True, strict=True,
                         message=_INVALID_NUMBER)
    if value > _MAX_CELLS:
        warnings.warn(f"'breaks = {value:g}' is too large and set to 1e6",
                      stacklevel=stacklevel)
        value = _MAX_CELLS
    return value


def _scalar(value):
    """The element of a length-1 value (scalar, 0-d array, [5], ["Scott"]) as a Python object."""
    if isinstance(value, (str, bytes)):
        return value
    item = np.ravel(np.asarray(value, dtype=object))[0]
    return item.item() if isinstance(item, np.generic) else item


def _length(value):
    if value is None:
        return 0
    if isinstance(value, (str, bytes)):
        return 1
    return int(np.size(np.asarray(value, dtype=object)))


def parse_breaks(breaks, argument, stacklevel=2):
    """What R's ``hist()`` makes of its ``breaks`` argument, before any rule sees the data.

    Parameters
    ----------
    breaks : str, float, array_like or callable
        As in :func:`hist_breaks`.
    argument : ndarray
        What a callable ``breaks`` is called with (the finite data; the bounds in
        :func:`dppack.histogramDP`).
    stacklevel : int, default 2
        Of :func:`check_cells`' warning.

    Returns
    -------
    (str, object)
        ``("points", sorted ndarray)``, ``("cells", number)`` or ``("rule", name)`` with name
        ``"sturges"``, ``"scott"``, ``"fd"`` or ``"freedman-diaconis"``.

    Raises
    ------
    ValueError
        As :func:`hist_breaks`.

    References
    ----------
    R Core Team, ``help(hist)``, argument ``breaks``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._hist import parse_breaks
    >>> import numpy as np
    >>> parse_breaks("st", np.array([0.0, 10.0]))  # a unique prefix of "Sturges"
    ('rule', 'sturges')
    >>> parse_breaks(4, np.array([0.0, 10.0]))
    ('cells', 4)
    >>> kind, points = parse_breaks([10, 0, 5], np.array([0.0, 10.0]))
    >>> kind, points.tolist()
    ('points', [0.0, 5.0, 10.0])
    """
    if _length(breaks) > 1:
        user = _user_breaks(breaks, "'breaks' must be numeric")
        if np.any(np.isnan(user)):
            # R drops NA while sorting but keeps the old length for the fuzz: garbage follows.
            raise ValueError("'breaks' must not contain NA or NaN.")
        return "points", user
    if callable(breaks):
        result = breaks(argument)
        length = _length(result)
        if length > 1:
            user = _user_breaks(result, _invalid_breakpoints(result))
            user = user[~np.isnan(user)]  # R's sort() drops NA here
            if user.size <= 1:
                raise ValueError(_invalid_breakpoints(result))
            return "points", user
        if length == 0:
            raise ValueError(_invalid_breakpoints(result))
        return "cells", check_cells(_scalar(result), stacklevel + 1)
    if _length(breaks) == 0:
        raise ValueError(_invalid_breakpoints(breaks))
    breaks = _scalar(breaks)
    if _is_string(breaks):
        return "rule", _match_rule(str(breaks))
    return "cells", check_cells(breaks, stacklevel + 1)


def _compute_breaks(values, breaks, xmin, xmax):
    """(break points, given_by_user) for finite data ``values`` with range [xmin, xmax]."""
    kind, value = parse_breaks(breaks, values, stacklevel=4)  # the warning names hist's caller
    if kind == "points":
        return value, True
    if values.size == 0:
        raise ValueError(_INVALID_NUMBER)
    if kind == "rule":
        if value == "sturges":
            cells = nclass_sturges(values)
        elif value == "scott":
            cells = scott_cells(values)
        else:
            cells = fd_cells(values)
        value = check_cells(cells, stacklevel=4)
    return pretty(xmin, xmax, n=int(value), min_n=1), False


def _invalid_breakpoints(result):
    shown = "NULL" if result is None else np.array2string(np.ravel(np.asarray(result)))
    return f"Invalid breakpoints produced by 'breaks(x)': {shown}"


def _range(values):
    if values.size == 0:
        return math.nan, math.nan
    return float(values.min()), float(values.max())


def hist_breaks(x, breaks="Sturges"):
    """The break points R's ``hist(x, breaks)`` uses.

    Parameters
    ----------
    x : array_like of float
        The data; non-finite values are dropped first.
    breaks : str, float, array_like or callable, default "Sturges"
        A rule (``"Sturges"``, ``"Scott"``, ``"FD"``, ``"Freedman-Diaconis"``; any case, or a
        unique prefix), a suggested number of cells k (capped at 1e6 with a warning; gives
        ``pretty(min(x), max(x), n=k, min_n=1)``), two or more break points, or a callable of
        the finite data returning one of these.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        R's messages ("'x' must be numeric", "invalid number of 'breaks'", "'arg' should be one
        of ...", "Invalid breakpoints produced by 'breaks(x)': ..."); clearer ones where R's
        are obscure (non-numeric or NaN break points, Scott or FD with < 2 values).

    References
    ----------
    R Core Team, ``help(hist)``, R 4.2.2.

    Examples
    --------
    R's ``hist(c(1, 2, 2.5, 3, 7))$breaks``:

    >>> from dppack.rcompat._hist import hist_breaks
    >>> hist_breaks([1.0, 2.0, 2.5, 3.0, 7.0]).tolist()
    [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    values = finite_values(x)
    xmin, xmax = _range(values)
    return _compute_breaks(values, breaks, xmin, xmax)[0]


def xname_of(x, default="x"):
    """The name a histogram of ``x`` is titled with (R's ``xname``): a Series' name or a
    one-column frame's column name, else ``default``.

    Parameters
    ----------
    x : object
        The data of a histogram.
    default : str, default "x"

    Returns
    -------
    str

    References
    ----------
    R Core Team, ``help(hist)``, argument ``xname``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._hist import xname_of
    >>> import pandas as pd
    >>> xname_of(pd.Series([1.0], name="age")), xname_of([1.0])
    ('age', 'x')
    >>> xname_of(pd.DataFrame({"glu": [1.0]}))
    'glu'
    """
    name = None
    kind = type(x).__name__
    if _frames.is_named_frame(x):
        if kind in ("Series", "Index"):
            name = getattr(x, "name", None)
        elif kind == "DataFrame" and len(x.columns) == 1:
            name = list(x.columns)[0]
    elif _frames.is_pyarrow(x) and kind in ("Table", "RecordBatch") and x.num_columns == 1:
        name = x.column_names[0]
    if name is None or (isinstance(name, str) and not name):
        return default
    return str(name)


@dataclasses.dataclass(eq=False)
class Histogram:
    """The result of :func:`hist`: R's "histogram" object without ``density`` (as DPpack's).

    Attributes
    ----------
    breaks : ndarray of float
        The k + 1 break points; cell i is (breaks[i], breaks[i + 1]], the first one closed.
    counts : ndarray
        The k counts (int64 from :func:`hist`; floats in DPpack's sanitized histograms).
    mids : ndarray of float
        The cell midpoints.
    xname : str, default "x"
        The name of the data, used by :meth:`plot`.
    equidist : bool, default True
        Whether the cells have equal widths.

    Parameters
    ----------
    breaks, counts, mids, xname, equidist
        The attributes, in this order.

    References
    ----------
    R Core Team, ``help(hist)``, section Value, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import hist
    >>> h = hist([1.0, 2.0, 2.5, 3.0, 7.0])
    >>> h.counts.tolist(), h.mids.tolist()
    ([2, 2, 0, 1], [1.0, 3.0, 5.0, 7.0])
    """

    breaks: np.ndarray
    counts: np.ndarray
    mids: np.ndarray
    xname: str = "x"
    equidist: bool = True

    def __repr__(self):
        def show(array):
            return np.array2string(np.asarray(array), threshold=20, max_line_width=88)

        return (
            f"Histogram(xname={self.xname!r}, equidist={self.equidist}, "
            f"{len(self.counts)} cells)\n"
            f"  breaks: {show(self.breaks)}\n"
            f"  counts: {show(self.counts)}\n"
            f"  mids:   {show(self.mids)}"
        )

    def plot(self, ax=None, **kwargs):
        """Draw the histogram as bars over its cells, as R's ``plot(hist(x))``; a release of
        :func:`dppack.histogramDP` is titled with what it spent.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new figure's axes by default.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.bar`.

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        ImportError
            When matplotlib is not installed (``pip install dppack[plot]``).
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError(
                "Histogram.plot needs matplotlib: pip install dppack[plot]"
            ) from exc
        if ax is None:
            _, ax = plt.subplots()
        breaks = np.asarray(self.breaks, dtype=np.float64)
        options = {"color": "lightgray", "edgecolor": "black", **kwargs}
        ax.bar(breaks[:-1], self.counts, width=np.diff(breaks), align="edge", **options)
        # A release of dppack.histogramDP carries what it spent: the title says so.
        privacy = getattr(self, "privacy_", None)
        ax.set_title(f"Histogram of {self.xname}" if privacy is None
                     else f"Private histogram of {self.xname}, {privacy}")
        ax.set_xlabel(self.xname)
        ax.set_ylabel("Frequency")
        return ax


def fuzz(breaks, span):
    """R's fuzz of ``hist()``: how far the breaks move so that values on a break land in the
    intended cell; 1e-7 times the median width (> 5 breaks), ``span`` (<= 3 breaks) or the
    smallest positive width (4 or 5 breaks).

    Parameters
    ----------
    breaks : ndarray of float
        The break points, increasing.
    span : float
        For 3 breaks or fewer: the data's range in :func:`hist` (NaN: no fuzz); the breaks'
        span in :func:`dppack.histogramDP` (no dependence on the data).

    Returns
    -------
    float

    References
    ----------
    R Core Team, ``hist.default`` (its ``fuzz``), R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._hist import fuzz
    >>> import numpy as np
    >>> fuzz(np.array([0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]), span=1.0)  # 1e-7 * 10
    1e-06
    """
    widths = np.diff(breaks)
    if breaks.size > 5:
        return 1e-7 * float(np.median(widths))
    if breaks.size <= 3:
        return 0.0 if math.isnan(span) else 1e-7 * span
    positive = widths[widths > 0]
    # R's min() of nothing is Inf (with a warning): every value then falls in the first cell.
    return 1e-7 * float(positive.min()) if positive.size else math.inf


def is_equidistant(breaks):
    """R's ``equidist``: the cell widths differ by less than 1e-7 times their mean (False for
    infinite widths, where R has NA).

    Parameters
    ----------
    breaks : ndarray of float
        The break points, increasing.

    Returns
    -------
    bool

    References
    ----------
    R Core Team, ``hist.default`` (its ``equidist``), R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._hist import is_equidistant
    >>> import numpy as np
    >>> is_equidistant(np.array([0.0, 1.0, 2.0, 3.0])), is_equidistant(np.array([0.0, 1.0, 3.0]))
    (True, False)
    """
    widths = np.diff(breaks)
    return bool(
        np.all(np.isfinite(widths))
        and np.ptp(widths) < 1e-7 * (math.fsum(widths) / widths.size)
    )


_BLOCK = 1 << 14  # values per block: the per-block temporaries stay in the CPU cache


def _affine_model(points, fuzzy, xmin, xmax):
    """(origin, width) with the inner fuzzy breaks within a quarter cell of origin + k width, or
    None; the cell from floor((x - origin) / width) is then settled exactly by two comparisons.
    """
    cells = points.size - 1
    if cells < 3 or not np.all(np.isfinite(points)):
        return None
    width = (points[-1] - points[0]) / cells
    if not (math.isfinite(width) and width > 0):
        return None
    origin = fuzzy[1] - width
    model = origin + np.arange(1, cells) * width
    deviation = float(np.max(np.abs(fuzzy[1:-1] - model)))
    magnitude = max(abs(points[0]), abs(points[-1]), abs(xmin), abs(xmax))
    slack = (deviation + 16 * sys.float_info.epsilon * magnitude) / width
    return (origin, width) if slack < 0.25 else None


def _bin_counts(points, fuzzy, values, xmin, xmax):
    """Counts of the cells (fuzzy[i], fuzzy[i + 1]], the first one closed: the number of inner
    fuzzy breaks below each value, arithmetically for near-equal spacing (corrected exactly),
    else by binary search.
    """
    cells = fuzzy.size - 1
    counts = np.zeros(cells, dtype=np.int64)
    if cells == 1:
        counts[0] = values.size
        return counts
    model = _affine_model(points, fuzzy, xmin, xmax)
    if model is None:
        inner = fuzzy[1:-1]
        for start in range(0, values.size, _BLOCK):
            index = np.searchsorted(inner, values[start : start + _BLOCK], side="left")
            counts += np.bincount(index, minlength=cells)
        return counts
    origin, width = model
    scale = 1.0 / width
    # Cell j is (lower[j], upper[j]]: the outer bounds are open so the correction cannot leave
    # the first or last cell.
    lower = np.concatenate(([-np.inf], fuzzy[1:-1]))
    upper = np.concatenate((fuzzy[1:-1], [np.inf]))
    for start in range(0, values.size, _BLOCK):
        block = values[start : start + _BLOCK]
        index = ((block - origin) * scale).astype(np.intp)
        np.clip(index, 0, cells - 1, out=index)
        index -= block <= lower[index]
        index += block > upper[index]
        counts += np.bincount(index, minlength=cells)
    return counts


def hist(x, breaks="Sturges", xname="x"):
    """R's ``hist(x, breaks, plot = FALSE)``, without the density.

    Cells are right-closed, the first one closed, compared with R's fuzzy breaks (moved by
    1e-7 of the median cell width, as R does).
    Repeated user break points give empty zero-width cells, as in R.

    Parameters
    ----------
    x : array_like of float
        The data; non-finite values are dropped, as R does.
    breaks : str, float, array_like or callable, default "Sturges"
        R's ``breaks``: a rule (``"Sturges"``, ``"Scott"``, ``"FD"``; any case, or a unique
        prefix), a suggested number of cells (through :func:`pretty`), two or more break
        points, or a callable of the finite data returning one of these.
    xname : str, default "x"
        Stored in the result.

    Returns
    -------
    Histogram
        ``breaks``, ``counts`` (int64), ``mids`` and ``equidist``.

    Raises
    ------
    ValueError
        "some 'x' not counted; maybe 'breaks' do not span range of 'x'" when user breaks do not
        cover the data; R's messages for invalid ``breaks``.

    References
    ----------
    R Core Team, ``help(hist)``, R 4.2.2.

    Examples
    --------
    R's ``hist(c(1, 2, 2.5, 3, 7), plot = FALSE)``:

    >>> from dppack.rcompat import hist
    >>> h = hist([1.0, 2.0, 2.5, 3.0, 7.0])
    >>> h.breaks.tolist(), h.counts.tolist()
    ([0.0, 2.0, 4.0, 6.0, 8.0], [2, 2, 0, 1])
    >>> h = hist([1.0, 2.0, 2.5, 3.0, 7.0], breaks=[0, 5, 10])
    >>> h.counts.tolist(), h.equidist
    ([4, 1], True)
    """
    values = finite_values(x)
    xmin, xmax = _range(values)
    points, user = _compute_breaks(values, breaks, xmin, xmax)
    equidist = is_equidistant(points) if user else True
    counts = cell_counts(values, points, fuzz(points, xmax - xmin), xmin, xmax)
    mids = 0.5 * (points[1:] + points[:-1])
    return Histogram(points, counts, mids, xname, equidist)


def cell_counts(values, breaks, diddle, xmin, xmax):
    """Counts of ``values`` in the right-closed cells of ``breaks`` (the first one closed), as R's
    ``hist()`` counts them against the breaks moved by ``diddle``.

    Parameters
    ----------
    values : ndarray of float
        Finite values.
    breaks : ndarray of float
        The break points, increasing.
    diddle : float
        The fuzz (:func:`fuzz`).
    xmin, xmax : float
        The range of ``values`` (NaN when empty).

    Returns
    -------
    ndarray of int64

    Raises
    ------
    ValueError
        "some 'x' not counted; maybe 'breaks' do not span range of 'x'".

    References
    ----------
    R Core Team, ``help(hist)`` (``right = TRUE``, ``include.lowest = TRUE``), R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._hist import cell_counts, fuzz
    >>> import numpy as np
    >>> values = np.array([1.0, 2.0, 2.5, 3.0, 7.0])
    >>> breaks = np.array([0.0, 2.0, 4.0, 6.0, 8.0])
    >>> cell_counts(values, breaks, fuzz(breaks, 6.0), 1.0, 7.0).tolist()  # 2.0 in (0, 2]
    [2, 2, 0, 1]
    """
    fuzzy = breaks + diddle
    fuzzy[0] = breaks[0] - diddle
    if values.size and not (fuzzy[0] <= xmin and xmax <= fuzzy[-1]):
        raise ValueError(_NOT_COUNTED)
    return _bin_counts(breaks, fuzzy, values, xmin, xmax)


