"""Privacy accounting: a value type for privacy losses, their composition and conversion, and a
budget accountant.

:class:`PrivacyLoss` states what a release spent (pure eps-DP, (eps, delta)-DP or rho-zCDP);
every composition and conversion rule of the package lives here, once (P1-P4 name the facts
Wang, Kifer and Lee 2019 use):

* sequential composition: eps's and delta's add, rho's add (P4); parallel: the maximum;
* advanced composition and its inverse; amplification by subsampling;
* eps-DP implies (eps^2 / 2)-zCDP (P1); rho-zCDP implies (eps, delta)-DP, tightly (P2);
* N(0, sigma^2 I) on L2 sensitivity Delta is rho-zCDP for sigma = Delta / sqrt(2 rho) (P3).

:class:`BudgetAccountant` records spends against a budget and refuses an overspend; as a
context manager it is the session's default (:func:`current_accountant`). Guide:
:doc:`/guide/accounting`.

References
----------
Balle B, Barthe G, Gaboardi M (2018). Privacy amplification by subsampling. NeurIPS 31.

Bun M, Steinke T (2016). Concentrated differential privacy. TCC, 635-658.
Propositions 1.3, 1.4, 1.6.

Canonne C L, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
NeurIPS 33, Corollary 13.

Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorems 3.16,
3.20.

Dwork C, Rothblum G N, Vadhan S (2010). Boosting and differential privacy. FOCS, Theorem III.3.

McSherry F (2009). Privacy integrated queries. SIGMOD, Theorem 4.
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
