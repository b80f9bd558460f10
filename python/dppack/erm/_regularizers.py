"""How a model reads its regularizer: DPpack's ``"l2"`` or a function with its gradient."""

from .. import _checks
from .blocks import regularizer_gr_l2, regularizer_l2

REGULARIZER_MESSAGE = "regularizer must be one of {'l2'}, or a function."


def resolve_regularizer(regularizer, regularizer_gr):
    """(regularizer, gradient) from DPpack's argument: ``'l2'`` or a function."""
    if isinstance(regularizer, str):
        _checks.check_choice(regularizer, "regularizer", ("l2",), REGULARIZER_MESSAGE)
        return regularizer_l2, regularizer_gr_l2
    _checks.check_callable(regularizer, "regularizer", message=REGULARIZER_MESSAGE)
    _checks.check_callable(regularizer_gr, "regularizer.gr", optional=True)
    return regularizer, regularizer_gr
