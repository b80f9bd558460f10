"""The privacy-loss value type: pure eps-DP, (eps, delta)-DP or rho-zCDP."""

from fractions import Fraction
import math
import numbers

import numpy as np

from .. import _checks, _messages
from ._arithmetic import half_square_up, round_down, round_up, sum_up
from ._formulas import (
    bun_steinke_eps, tight_zcdp_eps, advanced_composition, advanced_composition_inverse,
    amplify_by_subsampling,
)


# --------------------------------------------------------------------------------------------
# Argument checks: numbers through the vocabulary of ``_checks`` (strict: Python and numpy
# numbers only; R spells delta_prime as delta.prime); the losses' own checks here
# --------------------------------------------------------------------------------------------


def as_loss(value, context):
    if not isinstance(value, PrivacyLoss):
        raise _messages.type_error(
            f"{context} takes PrivacyLoss values (PrivacyLoss.pure, .approx or "
            ".zcdp); got {kind}.", kind=type(value).__name__)
    return value


def _total_delta(delta):
    if not delta < 1.0:
        raise _messages.value_error("The composed delta = {delta:.6g} is >= 1: the guarantee is "
                                    "vacuous.", delta=delta)
    return delta


def _common_kind(losses, verb):
    """'zcdp' if the losses combine in zCDP, else 'approx'; refuses approximate with zCDP."""
    kinds = {loss._kind for loss in losses}
    if "zcdp" not in kinds:
        return "approx"
    if "approx" in kinds:
        raise _messages.value_error(
            f"Cannot {verb} (eps, delta)-DP with delta > 0 and rho-zCDP "
            "directly: convert the zCDP losses with .to_approx(delta) first, or "
            "record both in a BudgetAccountant, which converts at its delta.")
    return "zcdp"


# --------------------------------------------------------------------------------------------
# PrivacyLoss
# --------------------------------------------------------------------------------------------


class PrivacyLoss:
    """What a release spends: pure eps-DP, approximate (eps, delta)-DP or rho-zCDP.

    An immutable, hashable value built with :meth:`pure`, :meth:`approx` or :meth:`zcdp`.
    Losses compose with ``+`` (:meth:`compose`), :meth:`parallel`, ``k * loss`` or
    :meth:`advanced_composition`, and convert with :meth:`to_zcdp` and :meth:`to_approx`.

    Attributes
    ----------
    kind : {'pure', 'approx', 'zcdp'}
    eps, delta : float
        For pure (``delta`` 0) and approximate losses; a zCDP loss raises ``AttributeError``.
    rho : float
        For zCDP losses.

    Parameters
    ----------
    *args, **kwargs
        None accepted: build a loss with :meth:`pure`, :meth:`approx` or :meth:`zcdp`.

    Raises
    ------
    TypeError
        When called directly, ``PrivacyLoss(...)``.

    Examples
    --------
    >>> from dppack import PrivacyLoss
    >>> PrivacyLoss.pure(0.5) + PrivacyLoss.approx(0.25, 1e-6)
    PrivacyLoss.approx(eps=0.75, delta=1e-06)
    >>> PrivacyLoss.pure(0.5) + PrivacyLoss.zcdp(0.03125)
    PrivacyLoss.zcdp(rho=0.15625)
    >>> print(PrivacyLoss.zcdp(0.5))
    rho = 0.5 (zCDP)
    >>> round(PrivacyLoss.zcdp(0.5).to_approx(1e-6).eps, 4)
    5.2215
    >>> PrivacyLoss.approx(1.0, 0.0) == PrivacyLoss.pure(1.0)
    True
    """

    __slots__ = ("_kind", "_eps", "_delta", "_rho")

    def __init__(self, *args, **kwargs):
        raise _messages.type_error("Build a PrivacyLoss with PrivacyLoss.pure(eps), "
                                   "PrivacyLoss.approx(eps, delta) or PrivacyLoss.zcdp(rho).")

    @classmethod
    def _make(cls, kind, eps=None, delta=None, rho=None):
        loss = object.__new__(cls)
        object.__setattr__(loss, "_kind", kind)
        object.__setattr__(loss, "_eps", eps)
        object.__setattr__(loss, "_delta", delta)
        object.__setattr__(loss, "_rho", rho)
        return loss

    def __setattr__(self, name, value):
        raise AttributeError("PrivacyLoss is immutable: build a new one.")

    def __delattr__(self, name):
        raise AttributeError("PrivacyLoss is immutable: build a new one.")

    def __reduce__(self):
        return (PrivacyLoss._make, (self._kind, self._eps, self._delta, self._rho))

    # ---- constructors ----------------------------------------------------------------------

    @classmethod
    def pure(cls, eps):
        """A pure eps-DP loss (``eps`` finite, >= 0).

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            If ``eps`` is not one finite number >= 0.

        Examples
        --------
        >>> PrivacyLoss.pure(1)
        PrivacyLoss.pure(eps=1.0)
        """
        # + 0.0: a loss never holds -0.0 (it would print as such)
        eps = _checks.check_number(eps, "eps", low=0, finite=True, strict=True) + 0.0
        return cls._make("pure", eps=eps, delta=0.0)

    @classmethod
    def approx(cls, eps, delta):
        """An (eps, delta)-DP loss (``eps`` finite >= 0, ``delta`` in [0, 1)); pure if delta is 0.

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            If ``eps`` or ``delta`` is out of range.

        Examples
        --------
        >>> PrivacyLoss.approx(1, 1e-5)
        PrivacyLoss.approx(eps=1.0, delta=1e-05)
        >>> PrivacyLoss.approx(1, 0).kind
        'pure'
        """
        eps = _checks.check_number(eps, "eps", low=0, finite=True, strict=True) + 0.0
        delta = _checks.check_number(delta, "delta", 0, 1, closed="left", strict=True) + 0.0
        if delta == 0.0:
            return cls._make("pure", eps=eps, delta=0.0)
        return cls._make("approx", eps=eps, delta=delta)

    @classmethod
    def zcdp(cls, rho):
        """A rho-zCDP loss (Bun and Steinke 2016), ``rho`` finite, >= 0.

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            If ``rho`` is not one finite number >= 0.

        Examples
        --------
        >>> PrivacyLoss.zcdp(0.125)
        PrivacyLoss.zcdp(rho=0.125)
        """
        rho = _checks.check_number(rho, "rho", low=0, finite=True, strict=True) + 0.0
        return cls._make("zcdp", rho=rho)

    # ---- fields ----------------------------------------------------------------------------

    @property
    def kind(self):
        """'pure', 'approx' or 'zcdp'."""
        return self._kind

    def _approx_field(self, name):
        if self._kind == "zcdp":
            raise AttributeError(f"A rho-zCDP loss has no single {name}: use .to_approx(delta) "
                                 "for its (eps, delta)-DP guarantee.")
        return getattr(self, "_" + name)

    @property
    def eps(self):
        """The eps of a pure or approximate loss."""
        return self._approx_field("eps")

    @property
    def delta(self):
        """The delta of a pure (0) or approximate loss."""
        return self._approx_field("delta")

    @property
    def rho(self):
        """The rho of a zCDP loss."""
        if self._kind != "zcdp":
            raise AttributeError(f"A {self._describe_kind()} loss has no rho: use .to_zcdp() "
                                 "(pure losses only).")
        return self._rho

    def _describe_kind(self):
        return {"pure": "pure DP", "approx": "(eps, delta)-DP", "zcdp": "zCDP"}[self._kind]

    # ---- value semantics -------------------------------------------------------------------

    def _key(self):
        return (self._kind, self._eps, self._delta, self._rho)

    def __eq__(self, other):
        if not isinstance(other, PrivacyLoss):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        if self._kind == "pure":
            return f"PrivacyLoss.pure(eps={self._eps!r})"
        if self._kind == "approx":
            return f"PrivacyLoss.approx(eps={self._eps!r}, delta={self._delta!r})"
        return f"PrivacyLoss.zcdp(rho={self._rho!r})"

    def __str__(self):
        if self._kind == "pure":
            return f"eps = {self._eps:.6g} (pure DP)"
        if self._kind == "approx":
            return f"(eps, delta) = ({self._eps:.6g}, {self._delta:.6g})"
        return f"rho = {self._rho:.6g} (zCDP)"

    # ---- composition -----------------------------------------------------------------------

    @staticmethod
    def compose(*losses):
        """Sequential composition: the loss of running all the releases on the same data.

        eps's and delta's add, rho's add; pure losses with zCDP ones are converted to zCDP first;
        an approximate loss with a zCDP one is refused (use :meth:`to_approx` or a
        :class:`BudgetAccountant`). ``a + b`` is ``compose(a, b)``; no losses give ``pure(0)``.

        Parameters
        ----------
        *losses : PrivacyLoss

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            On an approximate loss mixed with a zCDP one, or a total delta >= 1.
        TypeError
            If an argument is not a PrivacyLoss.

        References
        ----------
        Dwork C, Roth A (2014), Theorem 3.16; Bun M, Steinke T (2016), composition of zCDP
        and Proposition 1.4.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> PrivacyLoss.compose(PrivacyLoss.pure(0.5), PrivacyLoss.pure(0.25),
        ...                     PrivacyLoss.approx(0.25, 1e-6))
        PrivacyLoss.approx(eps=1.0, delta=1e-06)
        >>> PrivacyLoss.compose(PrivacyLoss.zcdp(0.1), PrivacyLoss.zcdp(0.2)).rho
        0.30000000000000004
        """
        losses = [as_loss(loss, "compose") for loss in losses]
        if _common_kind(losses, "compose") == "zcdp":
            return PrivacyLoss.zcdp(sum_up(loss.to_zcdp()._rho for loss in losses))
        delta = _total_delta(sum_up(loss._delta for loss in losses))
        return PrivacyLoss.approx(sum_up(loss._eps for loss in losses), delta)

    @staticmethod
    def parallel(*losses):
        """Parallel composition: releases on disjoint parts of the data spend the largest loss.

        Valid when each record can change at most one part (McSherry 2009, Theorem 4); mixing
        kinds follows :meth:`compose`.

        Parameters
        ----------
        *losses : PrivacyLoss

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            On an approximate loss mixed with a zCDP one.
        TypeError
            If an argument is not a PrivacyLoss.

        References
        ----------
        McSherry F (2009), Privacy integrated queries, Theorem 4.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> PrivacyLoss.parallel(PrivacyLoss.pure(0.5), PrivacyLoss.approx(0.25, 1e-6))
        PrivacyLoss.approx(eps=0.5, delta=1e-06)
        """
        losses = [as_loss(loss, "parallel") for loss in losses]
        if not losses:
            return PrivacyLoss.pure(0.0)
        if _common_kind(losses, "combine") == "zcdp":
            return PrivacyLoss.zcdp(max(loss.to_zcdp()._rho for loss in losses))
        return PrivacyLoss.approx(max(loss._eps for loss in losses),
                                  max(loss._delta for loss in losses))

    def __add__(self, other):
        if not isinstance(other, PrivacyLoss):
            return NotImplemented
        return PrivacyLoss.compose(self, other)

    def __radd__(self, other):
        # sum(losses) starts from the integer 0
        if isinstance(other, numbers.Integral) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def __mul__(self, k):
        """``k * loss``: k sequential runs (basic composition, as :meth:`compose` of k copies)."""
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            return NotImplemented
        k = _checks.check_whole(k, "k", 0, strict=True)
        if self._kind == "zcdp":
            return PrivacyLoss.zcdp(round_up(k * Fraction(self._rho)))
        return PrivacyLoss.approx(round_up(k * Fraction(self._eps)),
                                  _total_delta(round_up(k * Fraction(self._delta))))

    __rmul__ = __mul__

    def advanced_composition(self, k, delta_prime):
        """Advanced composition of ``k`` adaptive runs of this (eps, delta)-DP release:
        (eps sqrt(2 k ln(1/delta')) + k eps (e^eps - 1), k delta + delta').

        Returned even where basic composition (``k * loss``) is smaller. zCDP losses: ``k * loss``.

        Parameters
        ----------
        k : int
            Number of runs, >= 1.
        delta_prime : float
            The extra delta' in (0, 1).

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            For a zCDP loss, an argument out of range, a total delta >= 1 or an overflow.

        References
        ----------
        Dwork, Rothblum and Vadhan (2010), Theorem III.3; Dwork and Roth (2014), Theorem 3.20.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> loss = PrivacyLoss.pure(0.01).advanced_composition(1000, 1e-6)
        >>> round(loss.eps, 4), loss.delta
        (1.7628, 1e-06)
        >>> (1000 * PrivacyLoss.pure(0.01)).eps  # the double 0.01 is above 1/100: rounded up
        10.000000000000002
        """
        if self._kind == "zcdp":
            raise _messages.value_error("rho-zCDP composes exactly by adding rho: use k * loss or "
                                        "PrivacyLoss.compose.")
        k = _checks.check_whole(k, "k", 1, strict=True)
        delta_prime = _checks.check_number(delta_prime, "delta.prime", 0, 1, closed="neither",
                                           strict=True)
        eps, delta = advanced_composition(self._eps, self._delta, k, delta_prime)
        if not math.isfinite(eps):
            raise _messages.value_error(
                "The advanced composition of {k} steps at eps = {eps:.6g} "
                "overflows: use basic composition (k * loss).", k=k, eps=self._eps)
        return PrivacyLoss.approx(eps, _total_delta(delta))

    def advanced_composition_inverse(self, k, delta_prime):
        """The largest per-step loss whose advanced composition over ``k`` steps (at
        ``delta_prime``, at most this loss's delta) fits this total.

        Parameters
        ----------
        k : int
            Number of steps, >= 1.
        delta_prime : float
            In (0, 1), <= this loss's delta.

        Returns
        -------
        PrivacyLoss
            The per-step loss (pure when delta' equals the total delta).

        Raises
        ------
        ValueError
            For a zCDP loss, an argument out of range, or a delta' above the total delta.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> total = PrivacyLoss.approx(1.0, 1e-5)
        >>> step = total.advanced_composition_inverse(100, 1e-5)
        >>> round(step.eps, 6), step.delta
        (0.019998, 0.0)
        >>> step.advanced_composition(100, 1e-5).eps <= 1.0
        True
        """
        if self._kind == "zcdp":
            raise _messages.value_error("rho-zCDP composes exactly by adding rho: divide rho by k.")
        k = _checks.check_whole(k, "k", 1, strict=True)
        delta_prime = _checks.check_number(delta_prime, "delta.prime", 0, 1, closed="neither",
                                           strict=True)
        if delta_prime > self._delta:
            raise _messages.value_error(
                "delta.prime = {delta_prime:.6g} exceeds the total delta = "
                "{delta:.6g}.", delta_prime=delta_prime, delta=self._delta)
        # rounded down, so that delta' + k delta_step <= delta exactly
        delta_step = round_down((Fraction(self._delta) - Fraction(delta_prime)) / k)
        return PrivacyLoss.approx(advanced_composition_inverse(self._eps, k, delta_prime),
                                  delta_step)

    def amplify_by_subsampling(self, q):
        """Loss on a random subsample at rate ``q`` in (0, 1]: (ln(1 + q (e^eps - 1)), q delta).

        Valid for Poisson sampling with add/remove neighbours, or a fixed-size subset drawn without
        replacement with replace-one neighbours (Balle, Barthe and Gaboardi 2018); not for zCDP.

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            For a zCDP loss or q outside (0, 1].

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> loss = PrivacyLoss.approx(1.0, 1e-5).amplify_by_subsampling(0.01)
        >>> round(loss.eps, 6), round(loss.delta, 15)
        (0.017037, 1e-07)
        """
        if self._kind == "zcdp":
            raise _messages.value_error("Amplification by subsampling has no closed form for zCDP: "
                                        "convert with .to_approx(delta) first.")
        q = _checks.check_number(q, "q", 0, 1, closed="right", strict=True)
        return PrivacyLoss.approx(*amplify_by_subsampling(self._eps, self._delta, q))

    # ---- conversions -----------------------------------------------------------------------

    def to_zcdp(self):
        """The zCDP loss this loss implies: eps-DP is (eps^2 / 2)-zCDP (Bun and Steinke 2016,
        Proposition 1.4); a zCDP loss is returned as it is.

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            For an approximate loss with delta > 0.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> PrivacyLoss.pure(0.5).to_zcdp()
        PrivacyLoss.zcdp(rho=0.125)
        """
        if self._kind == "zcdp":
            return self
        if self._kind == "approx":
            raise _messages.value_error(
                "An (eps, delta)-DP loss with delta > 0 implies no rho-zCDP "
                "guarantee.")
        return PrivacyLoss.zcdp(half_square_up(self._eps))

    def to_approx(self, delta, method="tight"):
        """The (eps, delta)-DP guarantee this loss gives at ``delta``.

        zCDP: ``method='tight'`` (Canonne, Kamath and Steinke 2020, Corollary 13, minimised
        numerically) or ``'bun_steinke'``, rho + 2 sqrt(rho log(1/delta)) (Bun and Steinke 2016,
        Proposition 1.3). Pure: itself, unless the route through zCDP is smaller. Approximate:
        itself if its delta <= ``delta``.

        Parameters
        ----------
        delta : float
            In (0, 1).
        method : {'tight', 'bun_steinke'}
            The zCDP conversion.

        Returns
        -------
        PrivacyLoss
            A pure or approximate loss with delta at most ``delta``.

        Raises
        ------
        ValueError
            If ``delta`` or ``method`` is out of range, or an approximate loss has a larger delta.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> loss = PrivacyLoss.zcdp(1 / 32)
        >>> round(loss.to_approx(1e-3).eps, 10)
        0.6880024555
        >>> round(loss.to_approx(1e-3, method="bun_steinke").eps, 10)
        0.9604805472
        """
        delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
        _checks.check_choice(method, "method", ("tight", "bun_steinke"))
        if self._kind == "approx":
            if self._delta > delta:
                raise _messages.value_error(
                    "An (eps, delta)-DP loss with delta = {own:.6g} "
                    "cannot be stated at the smaller delta = {delta:.6g}.", own=self._delta,
                    delta=delta)
            return self
        rho = self.to_zcdp()._rho
        convert = tight_zcdp_eps if method == "tight" else bun_steinke_eps
        eps = convert(rho, delta)
        if self._kind == "pure" and not eps < self._eps:
            return self
        return PrivacyLoss.approx(eps, delta)


compose = PrivacyLoss.compose
parallel = PrivacyLoss.parallel
