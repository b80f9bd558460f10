"""Readable ``repr`` of the models and result objects: class name, key parameters, fitted state
and a summary of what was released; never the data, the noise or hidden state.
"""

import numpy as np

__all__ = ["model_repr", "short_value"]

_SHOWN = 6  # entries of a vector shown before "..."


def short_value(value):
    """A short text for one parameter or released value (numbers to 6 digits, vectors truncated).

    Examples
    --------
    >>> from dppack._repr import short_value
    >>> short_value(0.123456789), short_value("l2"), short_value(None)
    ('0.123457', "'l2'", 'None')
    >>> short_value(list(range(10)))
    '[0, 1, 2, 3, 4, 5, ...] (10 values)'
    """
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(bool(value)) if value is not None else "None"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if isinstance(value, (list, tuple, np.ndarray)):
        array = np.asarray(value, dtype=object).ravel()
        shown = ", ".join(short_value(v) for v in array[:_SHOWN])
        if array.size > _SHOWN:
            return f"[{shown}, ...] ({array.size} values)"
        return f"[{shown}]"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def model_repr(obj, params, released="coeff", extra=None):
    """``ClassName(p=v, ...; fitted, coeff = [...])``: the attributes ``params``, the fitted state
    from ``released`` (None: none shown) and the texts ``extra``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dppack._repr import model_repr
    >>> model_repr(SimpleNamespace(eps=1.0, coeff=None), ["eps"])
    'SimpleNamespace(eps=1; not fitted)'
    >>> model_repr(SimpleNamespace(eps=1.0, coeff=[0.5, -2.0]), ["eps"])
    'SimpleNamespace(eps=1; fitted, coeff = [0.5, -2])'
    """
    name = type(obj).__name__
    parts = [f"{key}={short_value(getattr(obj, key))}" for key in params
             if hasattr(obj, key)]
    state = []
    if released is not None:
        value = getattr(obj, released, None)
        if value is None:
            state.append("not fitted")
        else:
            state.append(f"fitted, {released} = {short_value(value)}")
            if getattr(obj, "add_bias_", None) is not None:
                state.append(f"add_bias={obj.add_bias_!r}")
    state.extend(extra or ())
    text = ", ".join(parts)
    if state:
        text += ("; " if text else "") + "; ".join(state)
    return f"{name}({text})"
