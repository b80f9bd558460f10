"""Audits of the exact quantile releases (issue 25): quantilesDP ('joint', 'recursive') and
boundsDP on neighbours that expose floating-point leaks (tests/privacy/README.md).

The leaks were in the doubles, not in the mechanism's weights: the outputs of the old JointExp
were uniform doubles ``low + (high - low) U`` (NumPy's uniform, U a multiple of 2^-53) in an
interval between two data, and an empty part of the recursive split was such a uniform on its
range. Near the low end of a wide interval the doubles are finer than the spacing
(high - low) 2^-53 of that lattice, so only some doubles can come out, and which ones depends
on the interval's ends, that is on the data. The projection that shows it moves above the
range (``value + 100``) each output that lies in an interval of d1 but off that interval's
lattice (:func:`off_lattice`, an exact inversion of NumPy's uniform): on d1 no output of the
old code moved (each is on its interval's lattice), on d0 many (drawn on other lattices),
and the auditor's events {y > t}, t above the range, are outputs impossible on d1.

Power: run on the code before the fix (uniform doubles between the data, an empty recursive
part uniform on its bounds, boundsDP refusing empty data), each audit below fails (eps lower
bounds well above 1; see the report of the change); on the grid releases (every output a
point of quantileDP's data-independent grid, drawn exactly) the projection is a
post-processing of an eps-DP release and passes. Each audit's false-failure rate is 1e-3
(the auditor's alpha); the seeds are fixed. The quantilesDP audits cost 2 to 4 ms a call
(5 000 to 7 000 calls each) and are marked ``slow``; the boundsDP ones take a few seconds.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private, assert_same_structure

QUARTILES = [0.25, 0.5, 0.75]
slow = pytest.mark.slow


def on_lattice(out, low, high):
    """Whether each value of ``out`` is a possible output of NumPy's uniform(low, high):
    low + (high - low) (k 2^-53) in double arithmetic, for some whole k in [0, 2^53). The k
    near (out - low) / (high - low) 2^53 are tried (the rounding moves it by less than 3)."""
    out = np.asarray(out, dtype=np.float64)
    width = np.float64(high) - np.float64(low)
    k0 = np.floor((out - low) / width * 2.0 ** 53)
    hit = np.zeros(out.shape, dtype=bool)
    for dk in range(-3, 4):
        k = k0 + dk
        inside = (k >= 0) & (k < 2.0 ** 53)
        hit |= inside & (np.float64(low) + width * (k * 2.0 ** -53) == out)
    return hit


def off_lattice(values, low, high):
    """Each value in [low, high) that NumPy's uniform(low, high) cannot output moved above
    the range (value + 100, the ranges here being within [-4, 4]); the others kept."""
    values = np.asarray(values, dtype=np.float64)
    off = (values >= low) & (values < high) & ~on_lattice(values, low, high)
    return np.where(off, values + 100.0, values)


def test_on_lattice_inverts_numpys_uniform():
    rng = np.random.default_rng(3)
    draws = rng.uniform(0.1, 0.5, 10_000)
    assert on_lattice(draws, 0.1, 0.5).all()
    # another interval's uniform rarely lies on it near 0.1 (finer doubles than the lattice)
    other = rng.uniform(-0.6, 0.3, 100_000)
    near = other[(other >= 0.1) & (other < 0.125)]
    assert on_lattice(near, 0.1, 0.5).mean() < 0.5


# --------------------------------------------------------------------------------------------
# JointExp: m = 3, four values in [-1, 1], one record 0.1 -> 0.3
# --------------------------------------------------------------------------------------------

JOINT_D0 = np.array([-0.6, 0.1, 0.5, 0.9])
JOINT_D1 = np.array([-0.6, 0.3, 0.5, 0.9])  # the record at 0.1 moved to 0.3


def _joint(data, rng):
    return dppack.quantilesDP(data, QUARTILES, 1.0, -1.0, 1.0, method="joint",
                              random_state=rng)


def _joint_projection(out):
    # d1's interval [-0.6, 0.3) (d0 has [-0.6, 0.1) and [0.1, 0.5) there)
    return off_lattice(out, -0.6, 0.3)


@slow
def test_joint_binade_edge_record_moved():
    assert_private(_joint, JOINT_D0, JOINT_D1, 1.0, n_samples=3_000, n_pilot=600,
                   project=_joint_projection)


@slow
def test_joint_record_at_one_vs_next_double():
    # 1 vs 1 + 2^-52: the interval [x, 4) above it starts one ulp higher, and its lattice
    # x + 3 k 2^-53 is shifted by one ulp in [1, 2), where it is sparser than the doubles
    d0 = np.array([-2.0, 1.0])
    d1 = np.array([-2.0, 1.0 + 2.0 ** -52])

    def release(data, rng):
        return dppack.quantilesDP(data, [0.5, 0.9], 1.0, -4.0, 4.0, method="joint",
                                  random_state=rng)

    assert_private(release, d0, d1, 1.0, n_samples=2_000, n_pilot=400,
                   project=lambda out: off_lattice(out, 1.0 + 2.0 ** -52, 4.0))


# --------------------------------------------------------------------------------------------
# Recursive: an empty part, bounded and unbounded
# --------------------------------------------------------------------------------------------


def _recursive(which):
    def release(data, rng):
        return dppack.quantilesDP(data, QUARTILES, 1.0, 0.0, 1.0, method="recursive",
                                  which_sensitivity=which, random_state=rng)
    return release


def _below_median_projection(out):
    # the first quartile, moved when it is off the lattice of uniform(0, median): what an
    # empty lower part released before the fix
    return off_lattice(out[:1], 0.0, out[1])


@slow
def test_recursive_bounded_empty_lower_part():
    # [0] vs [1] in [0, 1]: on [1] the part below the median is empty
    assert_private(_recursive("bounded"), np.array([0.0]), np.array([1.0]), 1.0,
                   n_samples=2_000, n_pilot=500, project=_below_median_projection)


@slow
def test_recursive_unbounded_no_data():
    # [0.4] vs []: the root itself has no data; the median moved when it is not a multiple
    # of 2^-53, the lattice of uniform(0, 1)
    def project(out):
        return off_lattice(out[1:2], 0.0, 1.0)

    assert_private(_recursive("unbounded"), np.array([0.4]), np.empty(0), 1.0,
                   n_samples=2_000, n_pilot=500, project=project)


@slow
def test_recursive_unbounded_near_zero():
    # a record near 0 (a tiny positive double) added: the lower part is empty without it
    assert_private(_recursive("unbounded"), np.array([2.0 ** -1000]), np.empty(0), 1.0,
                   n_samples=2_000, n_pilot=500, project=_below_median_projection)


# --------------------------------------------------------------------------------------------
# boundsDP: empty data and one record
# --------------------------------------------------------------------------------------------

GRID = np.array([-1.0, 0.0, 0.1, 0.3, 1.0, 2.0])


def _bounds(data, rng):
    return np.array(dppack.boundsDP(data, 1.0, quants=(0.25, 0.75), grid=GRID,
                                    random_state=rng))


@pytest.mark.filterwarnings("ignore:boundsDP. .* the grid")
@pytest.mark.parametrize("record", [0.1, 0.3, 2.0], ids=["0.1", "0.3", "edge"])
def test_bounds_no_data_vs_one_record(record):
    assert_same_structure(_bounds, np.empty(0), np.array([record]),
                          lambda out: (out.shape, out.dtype))
    assert_private(_bounds, np.empty(0), np.array([record]), 1.0, n_samples=3_000)


@pytest.mark.filterwarnings("ignore:boundsDP. .* the grid")
def test_quantiles_unbounded_structure_no_data_vs_one_record():
    for method in ("recursive", "joint", "independent"):
        def release(data, rng, method=method):
            return dppack.quantilesDP(data, QUARTILES, 1.0, 0.0, 1.0, method=method,
                                      which_sensitivity="unbounded", random_state=rng)

        assert_same_structure(release, np.empty(0), np.array([0.4]),
                              lambda out: (out.shape, out.dtype))
