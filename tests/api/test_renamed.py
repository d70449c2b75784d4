"""One name per idea: ``n_bins`` (scikit-learn's) for the number of bins,
``weight_neg`` / ``weight_pos`` for the class weights of a structure; the old
names work for one release with a DeprecationWarning.
"""

import numpy as np
import pytest
from registry import STRUCTURES

import hmeasure_stream as hs

RNG = np.random.default_rng(44)
Y = RNG.integers(0, 2, 200)
S = np.clip(RNG.normal(0.4 + 0.2 * Y, 0.2), 0.0, 1.0)
W = RNG.uniform(0.5, 2.0, 200)


def brute_counts(y, s, m, w=None):
    """Class counts of m equal bins over [0, 1] (the last bin holds 1.0)."""
    w = np.ones(len(y)) if w is None else w
    index = np.minimum((s * m).astype(int), m - 1)
    return (np.bincount(index[y == 0], w[y == 0], m), np.bincount(index[y == 1], w[y == 1], m))


def test_binned_auc_takes_n_bins():
    result = hs.binned_auc(Y, S, n_bins=8)
    assert result.n_bins == 8
    neg, pos = brute_counts(Y, S, 8)
    np.testing.assert_array_equal(result.counts_neg, neg)
    np.testing.assert_array_equal(result.counts_pos, pos)


def test_binned_auc_bins_is_deprecated_with_the_same_result():
    with pytest.warns(DeprecationWarning, match=r"binned_auc: bins= is deprecated .* use n_bins="):
        old = hs.binned_auc(Y, S, bins=8)
    new = hs.binned_auc(Y, S, n_bins=8)
    np.testing.assert_array_equal(old.counts_neg, new.counts_neg)
    assert old.auc == new.auc
    with pytest.warns(DeprecationWarning, match=r"BinnedAUCResult: \.bins is deprecated"):
        assert new.bins == 8
    with pytest.raises(ValueError, match="give n_bins= only"):
        hs.binned_auc(Y, S, bins=8, n_bins=8)


def test_binned_auc_messages_name_n_bins():
    with pytest.raises(ValueError, match="n_bins must be"):
        hs.binned_auc(Y, S, n_bins=0)


def test_binned_structure_takes_n_bins():
    tracker = hs.BinnedAUC(n_bins=8)
    tracker.add_many(Y, S)
    assert tracker.auc == hs.binned_auc(Y, S, n_bins=8).auc
    with pytest.warns(DeprecationWarning, match="bins= is deprecated"):
        old = hs.BinnedAUC(bins=8)
    old.add_many(Y, S)
    assert old.auc == tracker.auc
    np.testing.assert_array_equal(tracker.result().counts_pos, brute_counts(Y, S, 8)[1])


def test_dask_binned_auc_takes_n_bins():
    hsd = pytest.importorskip("hmeasure_stream.dask")
    da = pytest.importorskip("dask.array")
    got = hsd.binned_auc(da.from_array(Y, chunks=50), da.from_array(S, chunks=50), n_bins=8)
    np.testing.assert_array_equal(got.counts_neg, brute_counts(Y, S, 8)[0])
    with pytest.warns(DeprecationWarning, match="bins= is deprecated"):
        hsd.binned_auc(da.from_array(Y, chunks=50), da.from_array(S, chunks=50), bins=8)


#: BinnedAUC keeps class counts per bin (``result()``), no class weights.
WITHOUT_CLASS_WEIGHTS = frozenset({"BinnedAUC"})

# The structures of the registry (tests/registry.py) that hold every point: their class
# weights are those of all the points added (unit weights where they take no others).
HOLDING = sorted(name for name, structure in STRUCTURES.items()
                 if structure.keeps_points and name not in WITHOUT_CLASS_WEIGHTS)


@pytest.mark.parametrize("name", HOLDING)
def test_class_weights_are_weight_neg_and_weight_pos(name):
    structure = STRUCTURES[name]
    w = W if structure.weighted else np.ones(len(Y))
    tracker = structure.make()
    tracker.add_many(Y, S, w)
    assert tracker.weight_neg == pytest.approx(w[Y == 0].sum(), rel=1e-12)
    assert tracker.weight_pos == pytest.approx(w[Y == 1].sum(), rel=1e-12)
    with pytest.warns(DeprecationWarning, match=r"\.n_neg is deprecated .* use \.weight_neg"):
        assert tracker.n_neg == tracker.weight_neg
    with pytest.warns(DeprecationWarning, match=r"\.n_pos is deprecated .* use \.weight_pos"):
        assert tracker.n_pos == tracker.weight_pos


# The legend's name of the displays is ``name=`` (scikit-learn's), as a label is a
# class label here (pos_label, y_true); ``label=`` works for one release.
PLOT_Y = [0, 0, 1, 0, 1, 1, 0, 1]
PLOT_S = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]


def _legend(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def _plotting():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from hmeasure_stream import plotting

    return plotting


@pytest.mark.parametrize("where", ["plot_roc", "plot_reliability",
                                   "RocDisplay.from_predictions", "RocDisplay.from_structure",
                                   "RocDisplay.plot"])
def test_plotting_label_is_deprecated_for_name(where):
    import matplotlib.pyplot as plt

    plotting = _plotting()
    tracker = hs.DynamicH()
    tracker.add_many(PLOT_Y, PLOT_S)
    display = plotting.RocDisplay.from_predictions(PLOT_Y, PLOT_S)
    calls = {
        "plot_roc": lambda **name: plotting.plot_roc(PLOT_Y, PLOT_S, **name),
        "plot_reliability": lambda **name: plotting.plot_reliability(PLOT_Y, PLOT_S, **name),
        "RocDisplay.from_predictions": lambda **name: plotting.RocDisplay.from_predictions(
            PLOT_Y, PLOT_S, **name).ax_,
        "RocDisplay.from_structure": lambda **name: plotting.RocDisplay.from_structure(
            tracker, **name).ax_,
        "RocDisplay.plot": lambda **name: display.plot(**name).ax_,
    }
    new = _legend(calls[where](name="model"))
    with pytest.warns(DeprecationWarning, match=rf"^{where}: label= is deprecated and will be "
                      r"removed in the next release; use name=$") as caught:
        old = _legend(calls[where](label="model"))
    assert old == new and any(text.startswith("model (") for text in new)
    assert [warning.filename for warning in caught] == [__file__]  # the caller's line
    figures = plt.get_fignums()
    with pytest.raises(ValueError, match=rf"^{where}: give name= only \(label= is its "
                       r"deprecated name\), not both$"):
        calls[where](label="model", name="model")
    assert plt.get_fignums() == figures  # refused before drawing
    plt.close("all")


def test_roc_display_label_is_deprecated_for_name():
    import matplotlib.pyplot as plt

    plotting = _plotting()
    with pytest.warns(DeprecationWarning, match=r"^RocDisplay: label= is deprecated .* use "
                      r"name=$"):
        display = plotting.RocDisplay([0, 1], [0, 1], [0, 1], [0, 1], roc_auc=0.5, label="m")
    assert display.name == "m"
    with pytest.warns(DeprecationWarning, match=r"^RocDisplay: \.label is deprecated .* use "
                      r"\.name$"):
        assert display.label == "m"
    with pytest.warns(DeprecationWarning, match=r"^RocDisplay.legend_label: label= is "
                      r"deprecated"):
        assert display.legend_label(label="x") == display.legend_label("x") == "x (AUC = 0.500)"
    with pytest.raises(ValueError, match="RocDisplay: give name= only"):
        plotting.RocDisplay([0, 1], [0, 1], [0, 1], [0, 1], roc_auc=0.5, label="m", name="n")
    with pytest.raises(AttributeError, match="has no attribute 'labels'"):
        display.labels  # noqa: B018 (the attribute read is the test)
    plt.close("all")
