"""Privacy accounting: one value type for privacy losses, their composition and conversion,
and a budget accountant.

Small functions over numbers, no noise and no data. :class:`PrivacyLoss` states what a release
spent: pure eps-DP, approximate (eps, delta)-DP or rho-zCDP. Every composition and conversion
rule of the package lives here, once:

* sequential composition: eps's and delta's add (Dwork and Roth 2014, Theorem 3.16), rho's add
  (Bun and Steinke 2016, composition of zCDP) (P4); parallel composition on disjoint data: the
  maximum (McSherry 2009, Theorem 4);
* advanced composition of k (eps, delta)-DP steps (Dwork, Rothblum and Vadhan 2010,
  Theorem III.3; Dwork and Roth 2014, Theorem 3.20) and its inverse;
* eps-DP implies (eps^2 / 2)-zCDP (Bun and Steinke 2016, Proposition 1.4) (P1);
* rho-zCDP implies (eps, delta)-DP with the tight conversion of Canonne, Kamath and Steinke
  (2020, Corollary 13), never worse than Bun and Steinke's rho + 2 sqrt(rho log(1/delta)) (P2);
* amplification by subsampling: ln(1 + q (e^eps - 1)), q delta (Balle, Barthe and Gaboardi
  2018);
* adding N(0, sigma^2 I) to a function of L2 sensitivity Delta is rho-zCDP for
  sigma = Delta / sqrt(2 rho) (P3).

:class:`BudgetAccountant` records spends against a budget (eps, delta), composes them (basic,
or through zCDP when that is smaller) and refuses an overspend before anything is recorded.
Used as a context manager it is the session's default accountant (:func:`current_accountant`).

The older helpers (:func:`compose_dp`, :func:`dp_to_zcdp`, :func:`zcdp_to_approx_dp`, ...) keep
their signatures and results and call the same implementation. P1-P4 name the facts above, which
Wang, Kifer and Lee (2019) use for their intervals.

The implementation is split by topic into private modules (the losses' exact arithmetic, the
formulas, :class:`PrivacyLoss`, the conversions, the accountant and a release's charge); every
name is imported from here.

References
----------
Balle B, Barthe G, Gaboardi M (2018). Privacy amplification by subsampling: tight analyses via
couplings and divergences. Advances in Neural Information Processing Systems 31.

Bun M, Steinke T (2016). Concentrated differential privacy: simplifications, extensions, and
lower bounds. Theory of Cryptography Conference, 635-658. arXiv:1605.02065.

Canonne C L, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
Advances in Neural Information Processing Systems 33. arXiv:2004.00010.

Dwork C, Roth A (2014). The algorithmic foundations of differential privacy. Foundations and
Trends in Theoretical Computer Science 9(3-4).

Dwork C, Rothblum G N, Vadhan S (2010). Boosting and differential privacy. IEEE Symposium on
Foundations of Computer Science, 51-60.

McSherry F (2009). Privacy integrated queries. ACM SIGMOD International Conference on
Management of Data, 19-30.
"""

from ._accountant import (
    UNCHARGED,
    BudgetAccountant,
    BudgetExceededError,
    Charge,
    RunningCharge,
    charge,
    current_accountant,
    resolve_accountant,
)
from ._conversions import (
    compose_dp,
    compose_zcdp,
    dp_to_zcdp,
    group_loss,
    zcdp_from_approx_dp,
    zcdp_gaussian_sd,
    zcdp_to_approx_dp,
)
from ._formulas import advanced_composition, advanced_composition_inverse, amplify_by_subsampling
from ._loss import PrivacyLoss, compose, parallel

__all__ = [
    "BudgetAccountant",
    "BudgetExceededError",
    "PrivacyLoss",
    "advanced_composition",
    "advanced_composition_inverse",
    "amplify_by_subsampling",
    "charge",
    "compose",
    "compose_dp",
    "compose_zcdp",
    "group_loss",
    "current_accountant",
    "dp_to_zcdp",
    "parallel",
    "resolve_accountant",
    "UNCHARGED",
    "zcdp_from_approx_dp",
    "zcdp_gaussian_sd",
    "zcdp_to_approx_dp",
]


# the classes keep the public path in their names (R's class vectors, reprs, pickles)
for _cls in (BudgetAccountant, BudgetExceededError, PrivacyLoss):
    _cls.__module__ = __name__
del _cls
