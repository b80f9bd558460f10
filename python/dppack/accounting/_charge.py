"""A release's charge: the budget checked before the data are read, the spend recorded at
the release point."""

from .. import _messages
from ._accountant import resolve_accountant
from ._loss import _as_loss


class Charge:
    """One release's charge: the budget checked when the charge is made, the spend recorded
    by :meth:`spend` at the release point. Made by :func:`charge`."""

    __slots__ = ("accountant", "label", "_loss_of", "_loss")

    def __init__(self, accountant, loss_of, label):
        self.accountant = resolve_accountant(accountant)
        self.label = label
        self._loss_of = loss_of
        self._loss = None
        if self.accountant is not None:
            try:
                self._loss = loss_of()
            except (TypeError, ValueError):
                # The release's own checks will refuse these arguments with their own
                # message, in their own order, before any data is touched.
                return
            self.accountant.check(self._loss)

    @property
    def loss(self):
        """The release's PrivacyLoss (computed from its arguments)."""
        if self._loss is None:
            self._loss = self._loss_of()
        return self._loss

    def spend(self):
        """Record the loss with the accountant, if any (checked again, atomically), and return
        it. Call it once the arguments are valid and before the first noise draw: a release
        that fails after this point is charged, since its failure may depend on the data."""
        loss = self.loss
        if self.accountant is not None:
            self.accountant.spend(loss, self.label)
        return loss

    def record(self):
        """:meth:`spend` for a release that does not report its loss: with no accountant,
        nothing is computed. Only for a release whose ``loss_of`` cannot fail once its
        arguments are valid (its checks are then the whole validation)."""
        if self.accountant is not None:
            self.accountant.spend(self.loss, self.label)


class RunningCharge:
    """One ledger entry that a release restates as its cost grows: the cost of everything it
    has released so far, never a sum of increments.

    For releases whose later outputs make the earlier ones free: online noise reduction
    (:class:`dppack.accuracy_first.noise_reduction.LaplaceNoiseReductionOnline`), whose
    releases up to level eps_t together cost pure eps_t (Ligett et al. 2017, Theorem 2.7).
    Recording them as separate spends composes them as if independent: increments under-count
    in the accountant's zCDP route (sum of their squares / 2 is below eps_t^2 / 2), whole
    levels over-count (sum of eps_i). The accountant keeps the running entries apart and
    composes each BASICALLY (eps's and delta's add) with the total of its other spends,
    whatever route that total takes (:meth:`BudgetAccountant.spent`); a running entry never
    enters the zCDP route.

    Why basic composition is sound (and zCDP is not): the guide page
    ``docs/python/guide/accounting.rst``, "Running charges".

    The entry only grows: :meth:`restate` refuses a loss below the current one and, given
    ``expected``, an entry that no longer holds ``expected`` (another copy of the release, or
    another thread, restated it first).

    Parameters
    ----------
    accountant : BudgetAccountant
    loss : PrivacyLoss
        The first cost, pure or approximate, recorded now under ``label`` (refused, nothing
        recorded, on an overspend).
    label : str

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30, Theorem 2.7.
    Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.16.

    Examples
    --------
    >>> from dppack.accounting import BudgetAccountant, PrivacyLoss, RunningCharge
    >>> acc = BudgetAccountant(3.0, 1e-6)
    >>> running = RunningCharge(acc, PrivacyLoss.pure(0.5), "online")
    >>> running.restate(PrivacyLoss.pure(2.0))
    >>> acc.ledger
    [('online', PrivacyLoss.pure(eps=2.0))]
    """

    __slots__ = ("accountant", "_index")

    def __init__(self, accountant, loss, label):
        loss = _as_loss(loss, "RunningCharge")
        if loss._kind == "zcdp":
            raise _messages.value_error("A running charge must be pure or (eps, delta).")
        self.accountant = accountant
        with accountant._lock:
            accountant._check(loss, label, running=True)
            accountant._ledger.append((label, loss))
            self._index = len(accountant._ledger) - 1
            accountant._running.add(self._index)

    @property
    def loss(self):
        """The entry's current loss."""
        with self.accountant._lock:
            return self.accountant._ledger[self._index][1]

    def check(self, loss):
        """Refuse restating the entry as ``loss`` if the total would exceed the budget."""
        loss = _as_loss(loss, "RunningCharge.check")
        with self.accountant._lock:
            self._check_restate(loss, None)

    def _check_restate(self, loss, expected):
        accountant = self.accountant
        label, current = accountant._ledger[self._index]
        if expected is not None and current != expected:
            raise _messages.value_error(
                "The entry {label!r} is at {current}, not {expected}: another copy of the "
                "release restated it. Nothing was recorded.", label=label, current=current,
                expected=expected)
        if loss._kind == "zcdp" or loss._eps < current._eps or loss._delta < current._delta:
            raise _messages.value_error(
                "A running charge can only grow: {loss} is below the entry {label!r}, at "
                "{current}. Nothing was recorded.", loss=loss, label=label, current=current)
        accountant._check(loss, label, self._index, running=True)
        return label

    def restate(self, loss, expected=None):
        """Replace the entry's loss by ``loss`` if the total fits the budget (checked with the
        entry's old loss left out), atomically; on a refusal nothing changes.

        Parameters
        ----------
        loss : PrivacyLoss
            Pure or approximate, at least the entry's current loss (eps and delta).
        expected : PrivacyLoss, optional
            Refuse unless the entry still holds ``expected`` (compare and set).

        Raises
        ------
        BudgetExceededError
            On an overspend.
        ValueError
            For a loss below the current one, or an entry that moved.
        """
        loss = _as_loss(loss, "RunningCharge.restate")
        accountant = self.accountant
        with accountant._lock:
            label = self._check_restate(loss, expected)
            accountant._ledger[self._index] = (label, loss)


def charge(accountant, loss_of, label):
    """Start charging a release: the one way every release uses an accountant.

    The accountant is ``accountant`` or, when it is None, the session's
    (:func:`resolve_accountant`). ``loss_of()`` computes the release's :class:`PrivacyLoss`
    from its arguments alone; when they are invalid (it raises ``ValueError`` or
    ``TypeError``) the check is left to the release, whose own message and order then apply.
    Otherwise an overspend is refused here, before any data is touched or noise drawn, and the
    generator is untouched. The release then calls ``Charge.spend`` after validating its
    arguments and before drawing noise; its result reports ``Charge.loss``.

    Parameters
    ----------
    accountant : BudgetAccountant or None
    loss_of : callable
        No arguments; returns a PrivacyLoss.
    label : str
        The ledger's label (the release's name).

    Returns
    -------
    Charge

    Raises
    ------
    BudgetExceededError
        On an overspend (a ``ValueError``).
    TypeError
        If ``accountant`` is neither None nor a BudgetAccountant.

    References
    ----------
    ``docs/design-notes.md``, "One privacy-loss type, one accountant, one charging path" (an
    overspend is refused before any data is touched or noise drawn).

    Examples
    --------
    >>> from dppack import BudgetAccountant, PrivacyLoss
    >>> from dppack.accounting import charge
    >>> acc = BudgetAccountant(1.0)
    >>> c = charge(acc, lambda: PrivacyLoss.pure(0.75), "mean")
    >>> c.spend()
    PrivacyLoss.pure(eps=0.75)
    >>> try:
    ...     charge(acc, lambda: PrivacyLoss.pure(0.5), "median")
    ... except ValueError as error:
    ...     print(str(error)[:33])
    Privacy budget exceeded: spending
    >>> acc.ledger
    [('mean', PrivacyLoss.pure(eps=0.75))]
    """
    return Charge(accountant, loss_of, label)
