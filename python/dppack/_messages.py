"""Messages in the caller's language: one text, rendered for R or for Python.

Every message of the core is written once, in R's spelling, because DPpack 0.2.2's texts are
R's (``"lower.bound must be < upper.bound."``, ``"... unless analytic is TRUE."``) and an R
user of DPpackPy must read them unchanged. A Python caller reads the same text in Python's
spelling: the argument and function names of the public API with underscores
(``lower_bound``, ``EmpiricalRiskMinimizationDP_CMS``), and Python's literals (``True``,
``False``, ``None``).

Only the template is translated, never a value put into it. A message that shows a value the
caller chose, or one computed at run time (an accountant's label, a type's name, a number),
writes it as a ``str.format`` field and passes it by name:
``value_error("Spending on {label!r} is over budget.", label=label)``. The template is
translated first and the values are inserted afterwards, the same values into both texts, so
a label ``"lower.bound run TRUE"`` reaches a Python caller as it was written. A template given
without values is used as it is (its braces are text). Where R's text is not a respelling of
Python's (R's own ``match.arg()`` message, which names ``'arg'``), :func:`exception_pair`
carries two texts.

The exceptions and warnings made here carry both texts. Their ordinary text (``str()``, what
a traceback and ``pytest.raises(match=...)`` show) is Python's; the R text rides along as the
attribute ``r_message``, which the R bridge (:mod:`dppack._rbridge`) reads with
:func:`r_text`. No state, no flag: an exception raised in a worker thread, or pickled between
processes, keeps both texts.

The translation is exact, token by token, from a table, never a pattern that would also
rewrite ``e.g.``, a file name or a number:

* the dotted names: R's spelling of every argument of the public API (derived from the
  signatures of ``dppack.__all__``: the Python name with its underscores turned into dots) and
  of the public names themselves (``loss.cross.entropy`` -> ``loss_cross_entropy``);
* ``TRUE``, ``FALSE`` and ``NULL`` as whole words;
* the arguments whose name is a Python keyword, which Python spells with a trailing
  underscore (:data:`_KEYWORDS`: ``lambda`` -> ``lambda_``), as whole words, except where the
  word is a symbol of a formula (:data:`_FORMULAS`);
* the few R functions and pieces of advice that Python says differently
  (:data:`_R_FUNCTIONS`: ``privacy_loss_pure()`` is ``PrivacyLoss.pure()``, a
  ``dppack_dataset`` is Dask data).

A dotted word that is not an argument or public name (``True.Values``, the names of DPpack's
result lists, which Python keeps) is left as it is.

The other way, a set of choices written in Python's notation in a template (``{'bounded',
'unbounded', 'both'}``, or a tuple or list after "one of") reaches an R caller in R's
notation, ``c("bounded", "unbounded", "both")`` (:func:`r_spelling`): what an R user would
type.
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
    """The names of the parameters of a function, or of a class's constructor and public
    methods."""
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
    """The table of R's dotted spellings of the public API and their Python spellings.

    Returns
    -------
    dict
        ``{"lower.bound": "lower_bound", "loss.cross.entropy": "loss_cross_entropy", ...}``:
        every public name of ``dppack`` and every parameter of a public function, class
        constructor or public method whose Python name has an underscore, keyed by the name
        with its underscores turned into dots (R's spelling, as DPpack's names and arguments
        are spelled).

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
    """Record ``package`` (``dppack``, at the end of its ``__init__``) as the public API whose
    names :func:`dotted_names` spells: this module, the lowest layer, imports no other."""
    _PUBLIC_API["dppack"] = package


def python_spelling(text):
    """``text``, written in R's spelling, in Python's spelling.

    Parameters
    ----------
    text : str
        A message as an R user reads it.

    Returns
    -------
    str
        The same message with the dotted names of the public API (:func:`dotted_names`),
        ``TRUE``/``FALSE``/``NULL`` and the R-only functions (:data:`_R_FUNCTIONS`) in
        Python's spelling; every other character unchanged.

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
    """``text`` with its sets of choices in R's notation: ``{'a', 'b'}`` (and a tuple or
    list of quoted strings after "one of") becomes ``c("a", "b")``; nothing else changes.

    Parameters
    ----------
    text : str
        A message in R's spelling (a template).
    escaped : bool, default False
        True for a ``str.format`` template, whose literal braces are doubled (``{{'a'}}``).

    Returns
    -------
    str

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
    """The Python text and the R text of a message: the template translated (R's text with its
    sets of choices in R's notation, :func:`r_spelling`), then the values inserted into each.

    Parameters
    ----------
    template : str
        The constant text, in R's spelling, with a ``str.format`` field (``{label!r}``,
        ``{eps:.6g}``) for each value; used as it is when no value is given.
    **values
        The values of the fields, inserted untranslated.

    Returns
    -------
    tuple of str
        ``(python_text, r_text)``.

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
    """An exception of ``exception_class`` with ``template`` for both callers (as
    :func:`value_error`), for the core's own exception classes.

    Parameters
    ----------
    exception_class : type
        An ``Exception`` subclass whose constructor takes the message.
    template : str
        The message, in R's spelling, with a ``str.format`` field for each of ``values``.
    **values
        Values shown in the message, untranslated.

    Returns
    -------
    BaseException

    Examples
    --------
    >>> error = exception(RuntimeError, "A larger lambda helps (gradient {g:.2g}).", g=0.5)
    >>> str(error), r_text(error)
    ('A larger lambda_ helps (gradient 0.5).', 'A larger lambda helps (gradient 0.5).')
    """
    return exception_pair(exception_class, *render(template, **values))


def exception_pair(exception_class, python_text, r_text):
    """An exception whose Python text and R text are two different texts, for a check whose
    R message is R's own and names what an R user has (R's ``match.arg()`` says ``'arg'``).

    Parameters
    ----------
    exception_class : type
        An ``Exception`` subclass whose constructor takes the message.
    python_text : str
        What a Python caller reads, final (not translated).
    r_text : str
        What an R caller reads, final.

    Returns
    -------
    BaseException

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
    """A ``ValueError`` with ``template`` for both callers.

    Parameters
    ----------
    template : str
        The message, in R's spelling (DPpack's text where DPpack has one), with a
        ``str.format`` field for each of ``values`` (:func:`render`).
    **values
        Values shown in the message (a label, a number): inserted after the translation,
        unchanged in both texts.

    Returns
    -------
    ValueError
        Its text in Python's spelling (:func:`python_spelling`); ``r_message``, R's.

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

    Parameters
    ----------
    template : str
        The message, in R's spelling.
    **values
        Values shown in the message, untranslated.

    Returns
    -------
    TypeError

    Examples
    --------
    >>> str(type_error("alloc.proportions must be numeric or NULL."))
    'alloc_proportions must be numeric or None.'
    >>> str(type_error("alloc.proportions must be numeric; got {kind}.", kind="TRUE"))
    'alloc_proportions must be numeric; got TRUE.'
    """
    return exception(TypeError, template, **values)


def warn(template, /, category=UserWarning, stacklevel=1, **values):
    """Issue the warning ``template`` for both callers.

    Parameters
    ----------
    template : str
        The warning, in R's spelling (DPpack's text where DPpack has one), with a
        ``str.format`` field for each of ``values``.
    category : type, default UserWarning
        A ``Warning`` subclass.
    stacklevel : int, default 1
        As ``warnings.warn``'s, counted from the caller of this function.
    **values
        Values shown in the warning, untranslated.

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
    """The text an R user reads for an exception or warning of the core.

    Parameters
    ----------
    message : BaseException or Warning
        An exception, or the ``message`` of a caught warning.

    Returns
    -------
    str
        Its R text if it was made here, else its text (a message with nothing to translate).

    Examples
    --------
    >>> r_text(ValueError("x must be numeric."))
    'x must be numeric.'
    """
    return getattr(message, "r_message", None) or str(message)
