"""A model's ``fit`` as a release plan (:class:`dppack._plans.Plan`): the hooks that every private
fit of the ERM models shares (its label, its loss, the eps = Inf rules), so that
:func:`dppack._plans.run` charges the accountant before the data are read and draws once.
How a release is a plan: ``docs/python/guide/adding-a-release.md``."""

import math

from .. import _messages
from .._plans import Plan
from ._perturbation import INFINITE_EPS_MESSAGE, fit_loss


class FitPlan(Plan):
    """The plan of one model family's ``fit``; ``arguments["model"]`` is the model.

    The ledger's label is ``"<class name>.fit"``; the loss is ``fit_loss(eps, delta)`` of the
    model's attributes (``delta`` only if :attr:`with_delta`). :meth:`admit` runs the model's
    checks that read no data (:meth:`check`, which stores the checked values in
    ``arguments``, ``"eps"`` at least), then refuses an eps = Inf fit that an accountant would
    charge; :meth:`spend` records the loss of a private fit, nothing for eps = Inf (the draws
    get None: the fit is not private).
    """

    with_delta = True

    def label(self, arguments):
        return f"{type(arguments['model']).__name__}.fit"

    def loss(self, arguments):
        model = arguments["model"]
        return fit_loss(model.eps, model.delta) if self.with_delta else fit_loss(model.eps)

    def check(self, arguments):
        """The model's checks before the eps = Inf refusal, in its order (no data read)."""
        raise NotImplementedError

    def admit(self, bill, arguments):
        self.check(arguments)
        if bill.accountant is not None and not math.isfinite(arguments["eps"]):
            raise _messages.value_error(INFINITE_EPS_MESSAGE)

    def spend(self, bill, arguments):
        return bill.spend() if math.isfinite(arguments["eps"]) else None
