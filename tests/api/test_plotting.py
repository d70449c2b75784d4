import matplotlib
import numpy as np
import pytest
from sklearn.metrics import roc_curve

from hmeasure_stream import ApproxH, DynamicAUC, DynamicH, roc_hull, sliding_window
from hmeasure_stream.plotting import plot_metrics, plot_roc

matplotlib.use("Agg")


@pytest.fixture
def data(rng):
    y = rng.integers(0, 2, 400)
    s = np.round(rng.normal(size=400) + y, 1)
    return y, s


def test_plot_roc_draws_the_roc_curve_and_the_hull(data):
    y, s = data
    ax = plot_roc(y, s, label="model")
    _diagonal, curve, hull = ax.lines
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(curve.get_xdata(), fpr, atol=1e-15)
    np.testing.assert_allclose(curve.get_ydata(), tpr, atol=1e-15)
    hull_fpr, hull_tpr = roc_hull(y, s)
    np.testing.assert_allclose(hull.get_xdata(), hull_fpr, rtol=1e-15)
    np.testing.assert_allclose(hull.get_ydata(), hull_tpr, rtol=1e-15)
    assert [line.get_label() for line in ax.lines[1:]] == ["model", "model hull"]


@pytest.mark.parametrize("structure", [DynamicAUC, DynamicH, lambda: ApproxH(0.5)])
def test_plot_roc_of_a_structure_equals_its_arrays(data, structure):
    y, s = data
    tracker = structure()
    tracker.add_many(y, s)
    from_structure = plot_roc(tracker).lines
    from_arrays = plot_roc(y, s).lines
    for a, b in zip(from_structure, from_arrays, strict=True):
        np.testing.assert_allclose(a.get_xydata(), b.get_xydata(), rtol=1e-15)


def test_plot_roc_refuses_bad_calls(data):
    y, s = data
    tracker = DynamicAUC()
    with pytest.raises(ValueError, match="undefined while a class is absent"):
        plot_roc(tracker)
    tracker.add_many(y, s)
    with pytest.raises(ValueError, match="either a DynamicAUC or arrays"):
        plot_roc(tracker, s)
    with pytest.raises(ValueError, match="y_score is required"):
        plot_roc(y)
    with pytest.raises(ValueError, match="only one class"):
        plot_roc(np.ones(5), np.arange(5.0))


def test_plot_metrics_draws_each_metric(data):
    y, s = data
    result = sliding_window(y, s, 50)
    ax = plot_metrics(result, rows=np.arange(400) + 1000, title="t")
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_xdata(), np.arange(400) + 1000)
    np.testing.assert_array_equal(line.get_ydata(), result["auc"])
    assert ax.get_title() == "t"
