"""Data sets bundled with dppack (sources and licences: ``dppack/data/README.md``)."""

from importlib import resources

__all__ = ["load_pima"]


def load_pima():
    """The Pima Indians diabetes data of R's MASS package (Pima.tr and Pima.te, 532 rows).

    Returns
    -------
    pandas.DataFrame
        Columns npreg, glu, bp, skin, bmi, ped, age and type ("Yes"/"No"), in the row order of
        ``rbind(MASS::Pima.tr, MASS::Pima.te)``.

    References
    ----------
    Venables, W. N. and Ripley, B. D. (2002). Modern Applied Statistics with S, 4th ed.

    Examples
    --------
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> pima.shape
    (532, 8)
    >>> list(pima.columns)
    ['npreg', 'glu', 'bp', 'skin', 'bmi', 'ped', 'age', 'type']
    >>> int((pima["type"] == "Yes").sum())  # diabetic women
    177
    """
    import pandas as pd

    with resources.files("dppack").joinpath("data/pima.csv").open("r", encoding="utf-8") as f:
        return pd.read_csv(f)
