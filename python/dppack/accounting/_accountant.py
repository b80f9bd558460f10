"""The budget accountant, the session's default one, the overspend error and a release's charge."""

import contextvars
import threading

from .. import _checks, _messages
from ._arithmetic import difference_down
from ._loss import PrivacyLoss, as_loss


class BudgetExceededError(ValueError):
    """A spend refused because it would take the accountant's total over its budget.

    A ``ValueError`` (catch ``BudgetExceededError`` to tell an overspend from bad arguments);
    nothing was recorded. In R its class is ``"DPpackPy_budget_exceeded"``.

    Parameters
    ----------
    message : str
        The refusal: the spend, its label, the total, the budget and the remainder.

    Attributes
    ----------
    r_message : str
        The same text in R's spelling.

    References
    ----------
    Dwork C, Roth A (2014), Theorem 3.16 (the sequential composition the total follows).

    Examples
    --------
    >>> from dppack import BudgetAccountant, BudgetExceededError, PrivacyLoss
    >>> acc = BudgetAccountant(1.0)
    >>> try:
    ...     acc.spend(PrivacyLoss.pure(2.0))
    ... except BudgetExceededError as error:
    ...     print(type(error).__name__, isinstance(error, ValueError))
    BudgetExceededError True
    """

    def __init__(self, message):
        super().__init__(message)

# --------------------------------------------------------------------------------------------
# BudgetAccountant
# --------------------------------------------------------------------------------------------


def _compose_within(losses, delta_budget):
    """The smallest (eps, delta <= delta_budget) total of ``losses`` and its route: 'basic', 'zCDP'
    or 'zCDP + basic' (:doc:`/guide/accounting`, "Composition routes"); ValueError when zCDP
    spends leave no delta to convert at.
    """
    if not losses:
        return PrivacyLoss.pure(0.0), "none"
    pure = [loss for loss in losses if loss.kind == "pure"]
    approx = [loss for loss in losses if loss.kind == "approx"]
    zcdp = [loss for loss in losses if loss.kind == "zcdp"]
    candidates = []
    if not zcdp:
        candidates.append((PrivacyLoss.compose(*losses), "basic"))
    deltas = [loss.delta for loss in approx]
    # rounded down: the approximate deltas plus the slack are at most the budget, exactly
    slack = max(0.0, difference_down(delta_budget, deltas))
    if (zcdp or pure) and slack > 0.0:
        in_zcdp = [loss.to_zcdp() for loss in pure + zcdp]  # each pure eps as eps^2 / 2
        converted = PrivacyLoss.compose(*in_zcdp).to_approx(slack)
        candidates.append((PrivacyLoss.compose(converted, *approx), "zCDP"))
        if zcdp and pure:
            converted = PrivacyLoss.compose(*zcdp).to_approx(slack)
            candidates.append((PrivacyLoss.compose(converted, *pure, *approx), "zCDP + basic"))
    if not candidates:
        if delta_budget == 0.0:
            raise _messages.value_error(
                "A rho-zCDP spend needs an accountant with delta > 0, to state "
                "it as (eps, delta)-DP; this accountant's delta is 0.")
        raise _messages.value_error(
            "The (eps, delta) spends use up the accountant's delta and leave none "
            "to convert the rho-zCDP spends at.")
    # smallest eps; on a tie the earlier (basic) route, whose delta is smaller
    return min(candidates, key=lambda candidate: candidate[0].eps)


_CURRENT = contextvars.ContextVar("dppack_accountant", default=None)


class BudgetAccountant:
    """A privacy budget (eps, delta) and a ledger of what has been spent from it.

    The total of the spends is their basic composition, or their composition in zCDP converted
    at the accountant's delta when smaller (zCDP spends need ``delta > 0``). A spend that would
    take the total over the budget is refused with a :class:`BudgetExceededError` and nothing is
    recorded; the comparison is exact. ``with BudgetAccountant(...) as acc:`` makes ``acc`` the
    session's default accountant inside the block (blocks nest). Details: :doc:`/guide/accounting`.

    Parameters
    ----------
    eps : float
        The budget's eps, finite and > 0.
    delta : float, default 0
        The budget's delta, in [0, 1).

    Attributes
    ----------
    budget : PrivacyLoss
        The budget (pure when delta is 0).
    ledger : list of (str, PrivacyLoss)
        The spends in order (a copy).
    spent : PrivacyLoss
        The total of the spends (``PrivacyLoss.pure(0)`` before any).
    composition : str
        How ``spent`` was composed: 'none', 'basic', 'zCDP' or 'zCDP + basic'.

    Raises
    ------
    ValueError
        If ``eps`` or ``delta`` is out of range.

    References
    ----------
    Dwork C, Roth A (2014), Theorem 3.16; Bun M, Steinke T (2016); Canonne C L, Kamath G,
    Steinke T (2020), Corollary 13.

    Examples
    --------
    >>> from dppack import BudgetAccountant, PrivacyLoss
    >>> from dppack.accounting import current_accountant
    >>> acc = BudgetAccountant(1.0, 1e-6)
    >>> acc.spend(PrivacyLoss.pure(0.5), "mean")
    >>> acc.spend(PrivacyLoss.approx(0.25, 1e-7), "variance")
    >>> acc.spent
    PrivacyLoss.approx(eps=0.75, delta=1e-07)
    >>> acc.remaining()
    PrivacyLoss.approx(eps=0.25, delta=9e-07)
    >>> try:
    ...     acc.spend(PrivacyLoss.pure(0.5), "median")
    ... except ValueError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    Privacy budget exceeded: spending eps = 0.5 (pure DP) on 'median' would bring the total
    to (eps, delta) = (1.25, 1e-07), over the budget (eps, delta) = (1, 1e-06); remaining:
    (eps, delta) = (0.25, 9e-07). Nothing was recorded.
    >>> print(acc)
    BudgetAccountant: budget (eps, delta) = (1, 1e-06)
        #  label     spend
        1  mean      eps = 0.5 (pure DP)
        2  variance  (eps, delta) = (0.25, 1e-07)
    spent (basic composition): (eps, delta) = (0.75, 1e-07)
    remaining: (eps, delta) = (0.25, 9e-07)
    >>> len(acc.ledger)
    2
    >>> with BudgetAccountant(2.0) as session:
    ...     current_accountant() is session
    True
    >>> current_accountant() is None
    True
    """

    def __init__(self, eps, delta=0.0):
        eps = _checks.check_number(eps, "eps", low=0, closed="neither", finite=True, strict=True)
        self._budget = PrivacyLoss.approx(eps, delta)
        self._ledger = []
        self._running = set()  # indices of the RunningCharge entries (composed basically)
        self._lock = threading.Lock()
        self._tokens = []

    # ---- state -----------------------------------------------------------------------------

    @property
    def budget(self):
        """The budget as a PrivacyLoss."""
        return self._budget

    @property
    def eps(self):
        """The budget's eps."""
        return self._budget.eps

    @property
    def delta(self):
        """The budget's delta."""
        return self._budget.delta

    @property
    def ledger(self):
        """The spends in order, as a new list of (label, PrivacyLoss)."""
        with self._lock:
            return list(self._ledger)

    def _total(self, extra=None, replacing=None, running=False):
        """The total and its route, with ``extra`` added (a running entry when ``running``) and the
        entry ``replacing`` left out; running entries are composed basically, never in zCDP.
        """
        rest, held = [], []
        for i, (_, loss) in enumerate(self._ledger):
            if i != replacing:
                (held if i in self._running else rest).append(loss)
        if extra is not None:
            (held if running else rest).append(extra)
        # the zCDP route converts at the delta the running entries leave
        room = max(0.0, difference_down(self._budget.delta, [loss.delta for loss in held]))
        total, route = _compose_within(rest, room)
        if not held:
            return total, route
        # basic composition with each running entry's pointwise-bounded loss
        total = PrivacyLoss.compose(total, *held)
        return total, {"none": "basic", "zCDP": "zCDP + basic"}.get(route, route)

    @property
    def spent(self):
        """The total of the spends, a pure or approximate PrivacyLoss."""
        with self._lock:
            return self._total()[0]

    @property
    def composition(self):
        """How ``spent`` is composed: 'none', 'basic', 'zCDP' or 'zCDP + basic'."""
        with self._lock:
            return self._total()[1]

    def _remaining(self, spent):
        # rounded down: a spend that fits the remainder fits the budget
        return PrivacyLoss.approx(
            max(0.0, difference_down(self._budget.eps, [spent.eps])),
            max(0.0, difference_down(self._budget.delta, [spent.delta])))

    def remaining(self):
        """The budget minus what is spent, (eps, delta) each at least 0.

        Under zCDP composition a further spend may fit even when it looks larger than this.

        Returns
        -------
        PrivacyLoss
        """
        with self._lock:
            return self._remaining(self._total()[0])

    # ---- spending --------------------------------------------------------------------------

    def _check(self, loss, label, replacing=None, running=False):
        total, _ = self._total(loss, replacing, running)
        budget = self._budget
        if total.eps > budget.eps or total.delta > budget.delta:
            # the label is the caller's text: a value of the message, never translated
            on = " on {label!r}" if label is not None else ""
            what = "restating the entry as" if replacing is not None else "spending"
            # a total that prints as the budget is above it by rounding: show its float
            exact = (f" (the exact sum of the spends' floats, eps = {total.eps!r} and "
                     f"delta = {total.delta!r}, is above it)" if str(total) == str(budget)
                     else "")
            raise _messages.exception(
                BudgetExceededError,
                "Privacy budget exceeded: " + what + " {loss}" + on + " would bring the total to "
                "{total}, over the budget {budget}{exact}; remaining: {remaining}. Nothing was "
                "recorded.", loss=loss, label=label, total=total, budget=budget, exact=exact,
                remaining=self._remaining(self._total()[0]))
        return total

    def check(self, loss):
        """Refuse ``loss`` if spending it would exceed the budget; record nothing.

        Parameters
        ----------
        loss : PrivacyLoss

        Returns
        -------
        PrivacyLoss
            The total the spend would bring.

        Raises
        ------
        BudgetExceededError
            On an overspend.
        ValueError
            For a zCDP spend that the accountant's delta cannot convert.
        TypeError
            If ``loss`` is not a PrivacyLoss.
        """
        loss = as_loss(loss, "BudgetAccountant.check")
        with self._lock:
            return self._check(loss, None)

    def spend(self, loss, label=None):
        """Record ``loss`` under ``label`` (default "spend <n>") if it fits the budget, atomically.

        Parameters
        ----------
        loss : PrivacyLoss
        label : str, optional

        Raises
        ------
        BudgetExceededError
            On an overspend (nothing is recorded).
        TypeError
            If ``loss`` is not a PrivacyLoss or ``label`` not a string.
        """
        loss = as_loss(loss, "BudgetAccountant.spend")
        if label is not None and not isinstance(label, str):
            raise _messages.type_error("label must be a string.")
        with self._lock:
            if label is None:
                label = f"spend {len(self._ledger) + 1}"
            self._check(loss, label)
            self._ledger.append((label, loss))

    # ---- display ---------------------------------------------------------------------------

    def __str__(self):
        with self._lock:
            ledger = list(self._ledger)
            spent, route = self._total()
        lines = [f"BudgetAccountant: budget {self._budget}"]
        if ledger:
            width = max(5, max(len(label) for label, _ in ledger))
            lines.append(f"  {'#':>3}  {'label':<{width}}  spend")
            for i, (label, loss) in enumerate(ledger, start=1):
                mark = " (running: composed basically)" if i - 1 in self._running else ""
                lines.append(f"  {i:>3}  {label:<{width}}  {loss}{mark}")
        else:
            lines.append("  (no spends)")
        how = f" ({route} composition)" if ledger else ""
        lines.append(f"spent{how}: {spent}")
        lines.append(f"remaining: {self._remaining(spent)}")
        return "\n".join(lines)

    def __repr__(self):
        with self._lock:
            n = len(self._ledger)
        return (f"<BudgetAccountant eps={self._budget.eps!r}, delta={self._budget.delta!r}: "
                f"{n} spend{'' if n == 1 else 's'}>")

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))

    # ---- session default -------------------------------------------------------------------

    def __enter__(self):
        self._tokens.append(_CURRENT.set(self))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _CURRENT.reset(self._tokens.pop())
        return False


def current_accountant():
    """The session's default accountant: the innermost ``with BudgetAccountant(...)`` block's, or
    None outside every block.

    Returns
    -------
    BudgetAccountant or None

    Examples
    --------
    >>> from dppack import BudgetAccountant
    >>> from dppack.accounting import current_accountant
    >>> current_accountant() is None
    True
    >>> with BudgetAccountant(1.0) as outer:
    ...     with BudgetAccountant(0.5) as inner:
    ...         current_accountant() is inner
    ...     current_accountant() is outer
    True
    True
    """
    return _CURRENT.get()


class _Uncharged:
    """The type of :data:`UNCHARGED`."""

    __slots__ = ()

    def __repr__(self):
        return "accounting.UNCHARGED"

    def __reduce__(self):
        return "UNCHARGED"


UNCHARGED = _Uncharged()
"""Passed as ``accountant`` by a release to the releases it is built from: they charge no
accountant, not even the session's, because the outer release charges the whole once."""


def resolve_accountant(accountant):
    """The accountant a release charges: ``accountant``, else the session's default; None for
    :data:`UNCHARGED` (an inner step of a release that charges the whole).

    Parameters
    ----------
    accountant : BudgetAccountant, None or UNCHARGED

    Returns
    -------
    BudgetAccountant or None

    Raises
    ------
    TypeError
        If ``accountant`` is neither None nor a BudgetAccountant.

    Examples
    --------
    >>> from dppack import BudgetAccountant
    >>> from dppack.accounting import UNCHARGED, resolve_accountant
    >>> acc = BudgetAccountant(1.0)
    >>> resolve_accountant(acc) is acc
    True
    >>> with BudgetAccountant(2.0) as session:
    ...     resolve_accountant(None) is session, resolve_accountant(UNCHARGED) is None
    (True, True)
    """
    if accountant is None:
        return current_accountant()
    if accountant is UNCHARGED:
        return None
    if not isinstance(accountant, BudgetAccountant):
        raise _messages.type_error("accountant must be a BudgetAccountant or None.")
    return accountant

# --------------------------------------------------------------------------------------------
# A release's charge
# --------------------------------------------------------------------------------------------


class Charge:
    """One release's charge (from :func:`charge`): checked when made, recorded by :meth:`spend`."""

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
        """Record the loss with the accountant, if any, and return it: once the arguments are
        valid, before the first draw (a later failure may depend on the data, so it stays charged).
        """
        loss = self.loss
        if self.accountant is not None:
            self.accountant.spend(loss, self.label)
        return loss

    def record(self):
        """:meth:`spend` without computing the loss when there is no accountant."""
        if self.accountant is not None:
            self.accountant.spend(self.loss, self.label)


class RunningCharge:
    """One ledger entry that a release restates as its cost grows (the cost of all it has released
    so far, never a sum of increments).

    For online noise reduction, whose releases up to level eps_t together cost pure eps_t
    (Ligett et al. 2017, Theorem 2.7). The accountant composes running entries basically with
    the total of its other spends, never in zCDP; why: :doc:`/guide/accounting`, "Running
    charges". The entry only grows; :meth:`restate` with ``expected`` is a compare-and-set.

    Parameters
    ----------
    accountant : BudgetAccountant
    loss : PrivacyLoss
        The first cost, pure or approximate, recorded now under ``label``.
    label : str

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first, NeurIPS 30, Theorem 2.7.
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
        loss = as_loss(loss, "RunningCharge")
        if loss.kind == "zcdp":
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
        loss = as_loss(loss, "RunningCharge.check")
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
        if loss.kind == "zcdp" or loss.eps < current.eps or loss.delta < current.delta:
            raise _messages.value_error(
                "A running charge can only grow: {loss} is below the entry {label!r}, at "
                "{current}. Nothing was recorded.", loss=loss, label=label, current=current)
        accountant._check(loss, label, self._index, running=True)
        return label

    def restate(self, loss, expected=None):
        """Replace the entry's loss by ``loss`` if the total fits the budget, atomically.

        Parameters
        ----------
        loss : PrivacyLoss
            Pure or approximate, at least the entry's current loss.
        expected : PrivacyLoss, optional
            Refuse unless the entry still holds ``expected``.

        Raises
        ------
        BudgetExceededError
            On an overspend.
        ValueError
            For a loss below the current one, or an entry that moved.
        """
        loss = as_loss(loss, "RunningCharge.restate")
        accountant = self.accountant
        with accountant._lock:
            label = self._check_restate(loss, expected)
            accountant._ledger[self._index] = (label, loss)


def charge(accountant, loss_of, label):
    """Start charging a release: the one way every release uses an accountant.

    ``loss_of()`` computes the release's loss from its arguments alone; an overspend is refused
    here, before any data is touched or noise drawn (invalid arguments are left to the
    release's own checks). The release calls ``Charge.spend`` before its first draw.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        None: the session's (:func:`resolve_accountant`).
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
