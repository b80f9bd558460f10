"""Messages in the caller's language: one text, written in R's spelling, rendered for R or Python.

Every message is written once in R's spelling (DPpack's texts are R's); a Python caller reads
it with the public API's underscored names and ``True``/``False``/``None``, token by token
from a table (:func:`dotted_names`, :data:`_KEYWORDS`, :data:`_R_FUNCTIONS`), never a pattern.
Only the template is translated; values are ``str.format`` fields inserted afterwards,
unchanged in both texts. Exceptions and warnings carry Python's text as ``str()`` and R's as
the attribute ``r_message`` (read by :mod:`dppack._rbridge` through :func:`r_text`); sets of
choices reach R as ``c("a", "b")`` (:func:`r_spelling`). Design notes:
:doc:`/guide/internals`.
"""

import inspect
import re
import warnings

__all__ = ["exception", "exception_pair", "python_spelling", "r_spelling", "r_text", "render",
           "type_error", "value_error", "warn"]

# What an R user does differently from a Python user: R's functions and advice, and how Python
# says them. Keys are matched as whole phrases, before the dotted names.
_R_FUNCTIONS = {
    "privacy_loss_pure()": "PrivacyLoss.pure()",
    "privacy_loss_approx()": "PrivacyLoss.approx()",
    "privacy_loss_zcdp()": "PrivacyLoss.zcdp()",
    "with_random_state()": "random_state",
    # data beyond memory: a dppack_dataset in R, Dask data in Python
    "Dask data (a dppack_dataset's columns)": "Dask data",
    "read them into memory if they fit": "compute it into memory (x.compute()) if it fits",
    "(see ?dppack_dataset)": "(see dppack.dask)",
}

_LITERALS = {"TRUE": "True", "FALSE": "False", "NULL": "None"}

# The arguments whose R name is a Python keyword: Python's parameter has a trailing underscore
# (test_messages checks this table against the signatures of the public API).
_KEYWORDS = {"lambda": "lambda_"}

# Formulas whose symbols share a name with an argument of _KEYWORDS: kept as they are.
_FORMULAS = ("(beta + lambda)",)

# A dotted word: letters, digits and underscores, with at least one inner dot followed by a
# letter. "1.5" does not start with a letter; the period that ends a sentence is not followed
# by one.
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z]\w*(?:\.[A-Za-z]\w*)+(?!\w)")
_LITERAL = re.compile(r"\b(?:TRUE|FALSE|NULL)\b")
_FUNCTION = re.compile(
    r"(?<![\w.])(?:" + "|".join(re.escape(name) for name in (*_FORMULAS, *_R_FUNCTIONS)) + r")"
    r"|(?<![\w.])(?:" + "|".join(_KEYWORDS) + r")(?!\w|\.\w)")
_PHRASES = {**{formula: formula for formula in _FORMULAS}, **_R_FUNCTIONS, **_KEYWORDS}


def _parameters(obj):
    """The parameter names of a function, or of a class's constructor and public methods."""
    functions = [obj]
    if inspect.isclass(obj):
        functions = [obj.__init__] + [
            member for name, member in inspect.getmembers(obj)
            if not name.startswith("_") and callable(member)
        ]
    names = set()
    for function in functions:
        try:
            names.update(inspect.signature(function).parameters)
        except (TypeError, ValueError):  # a builtin without a signature
            continue
    return names


def dotted_names():
    """``{"lower.bound": "lower_bound", ...}``: R's dotted spelling of every public name and
    parameter of ``dppack`` that has an underscore, mapped to Python's.

    Examples
    --------
    >>> table = dotted_names()
    >>> table["which.sensitivity"], table["EmpiricalRiskMinimizationDP.CMS"]
    ('which_sensitivity', 'EmpiricalRiskMinimizationDP_CMS')
    >>> "e.g" in table
    False
    """
    global _TABLE
    if _TABLE is None:
        dppack = _PUBLIC_API.get("dppack")  # the public API, complete once it is registered
        if dppack is None:  # a message raised while dppack is imported
            return {}
        names = set()
        for public in dppack.__all__:
            names.add(public)
            names.update(_parameters(getattr(dppack, public)))
        _TABLE = {name.replace("_", "."): name for name in names
                  if "_" in name.strip("_") and not name.startswith("_")}
    return _TABLE


_TABLE = None  # dotted_names(), built on first use
_PUBLIC_API = {}  # "dppack": the package, registered by it once its names are all imported


def register_public_api(package):
    """Record ``dppack`` (end of its ``__init__``) as the API :func:`dotted_names` spells."""
    _PUBLIC_API["dppack"] = package


def python_spelling(text):
    """``text``, in R's spelling, in Python's: public dotted names, ``TRUE``/``FALSE``/``NULL`` and
    R-only functions translated, every other character unchanged.

    Examples
    --------
    >>> python_spelling("lower.bound must be < upper.bound.")
    'lower_bound must be < upper_bound.'
    >>> python_spelling("add.bias must be TRUE or FALSE (e.g. 1.5 is refused).")
    'add_bias must be True or False (e.g. 1.5 is refused).'
    >>> python_spelling("True.Values is a field of DPpack's result, not an argument.")
    "True.Values is a field of DPpack's result, not an argument."
    >>> python_spelling("lambda must be > 0; lambda.min is a bound of 1/(beta + lambda).")
    'lambda_ must be > 0; lambda_min is a bound of 1/(beta + lambda).'
    """
    table = dotted_names()
    text = _FUNCTION.sub(lambda match: _PHRASES[match.group(0)], text)
    text = _DOTTED.sub(lambda match: table.get(match.group(0), match.group(0)), text)
    return _LITERAL.sub(lambda match: _LITERALS[match.group(0)], text)


# One quoted string of Python's repr: 'a' (no quote inside).
_QUOTED = r"'[^'\n]*'"
_ITEMS = _QUOTED + r"(?:\s*,\s*" + _QUOTED + r")*"
# A set of quoted strings {'a', 'b'} (in a template with values, its braces are doubled), or a
# tuple or list of them after "one of ": Python's notation for a set of choices.
_SETS = {
    False: re.compile(r"\{(" + _ITEMS + r")\}|(?<=one of )[(\[](" + _ITEMS + r"),?[)\]]"),
    True: re.compile(r"\{\{(" + _ITEMS + r")\}\}|(?<=one of )[(\[](" + _ITEMS + r"),?[)\]]"),
}


def r_spelling(text, escaped=False):
    """``text`` with ``{'a', 'b'}`` (or a tuple or list of quoted strings after "one of") as R's
    ``c("a", "b")``; ``escaped`` for a ``str.format`` template (doubled braces).

    Examples
    --------
    >>> r_spelling("which.sensitivity must be one of {'bounded', 'unbounded', 'both'}.")
    'which.sensitivity must be one of c("bounded", "unbounded", "both").'
    >>> r_spelling("labels must be one of ('real', 'binary').")
    'labels must be one of c("real", "binary").'
    >>> r_spelling("Spending on {label!r} (e.g. 'x').")
    "Spending on {label!r} (e.g. 'x')."
    """
    def c(match):
        items = re.findall(_QUOTED, match.group(1) or match.group(2))
        return "c(" + ", ".join('"' + item[1:-1] + '"' for item in items) + ")"

    return _SETS[escaped].sub(c, text)


def render(template, /, **values):
    """``(python_text, r_text)`` of ``template`` (R's spelling): translated first, then ``values``
    inserted untranslated into each; a template without values is used as it is.

    Examples
    --------
    >>> python, r = render("Spending on {label!r}; add.bias is TRUE.", label="lower.bound NULL")
    >>> python
    "Spending on 'lower.bound NULL'; add_bias is True."
    >>> r
    "Spending on 'lower.bound NULL'; add.bias is TRUE."
    >>> render("{x} is a set: use lower.bound.")
    ('{x} is a set: use lower_bound.', '{x} is a set: use lower.bound.')
    """
    python = python_spelling(template)
    if not values:
        return python, r_spelling(template)
    return python.format_map(values), r_spelling(template, escaped=True).format_map(values)


def exception(exception_class, template, /, **values):
    """An ``exception_class`` instance with ``template`` rendered for both callers.

    Examples
    --------
    >>> error = exception(RuntimeError, "A larger lambda helps (gradient {g:.2g}).", g=0.5)
    >>> str(error), r_text(error)
    ('A larger lambda_ helps (gradient 0.5).', 'A larger lambda helps (gradient 0.5).')
    """
    return exception_pair(exception_class, *render(template, **values))


def exception_pair(exception_class, python_text, r_text):
    """An exception with two final texts, where R's message is not a respelling of Python's.

    Examples
    --------
    >>> error = exception_pair(ValueError, "breaks must be 'Sturges'.", "'arg' should be ...")
    >>> str(error), r_text(error)
    ("breaks must be 'Sturges'.", "'arg' should be ...")
    """
    error = exception_class(python_text)
    error.r_message = r_text
    return error


def value_error(template, /, **values):
    """A ``ValueError`` with ``template`` (R's spelling) rendered for both callers.

    Examples
    --------
    >>> error = value_error("lower.bound must be < upper.bound.")
    >>> str(error)
    'lower_bound must be < upper_bound.'
    >>> r_text(error)
    'lower.bound must be < upper.bound.'
    >>> error = value_error("No column {column!r}: see eps.max.", column="eps.max")
    >>> str(error), r_text(error)
    ("No column 'eps.max': see eps_max.", "No column 'eps.max': see eps.max.")
    """
    return exception(ValueError, template, **values)


def type_error(template, /, **values):
    """A ``TypeError`` with ``template`` for both callers (as :func:`value_error`).

    Examples
    --------
    >>> str(type_error("alloc.proportions must be numeric or NULL."))
    'alloc_proportions must be numeric or None.'
    >>> str(type_error("alloc.proportions must be numeric; got {kind}.", kind="TRUE"))
    'alloc_proportions must be numeric; got TRUE.'
    """
    return exception(TypeError, template, **values)


def warn(template, /, category=UserWarning, stacklevel=1, **values):
    """Issue the warning ``template`` (``category``) for both callers; ``stacklevel`` counts from
    the caller.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("Raise eps.max or n.levels.")
    >>> str(caught[0].message), r_text(caught[0].message)
    ('Raise eps_max or n_levels.', 'Raise eps.max or n.levels.')
    """
    python, r = render(template, **values)
    message = category(python)
    message.r_message = r
    warnings.warn(message, stacklevel=stacklevel + 1)


def r_text(message):
    """The text an R user reads for an exception or warning: its ``r_message``, else ``str()``.

    Examples
    --------
    >>> r_text(ValueError("x must be numeric."))
    'x must be numeric.'
    """
    return getattr(message, "r_message", None) or str(message)
