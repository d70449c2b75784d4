"""The public signatures read as the package's type aliases, by name.

``help(hmeasure_stream.auc)`` prints ``inspect.signature``: with the aliases of
:mod:`hmeasure_stream.typing` (and the postponed annotations of the public
modules) it is one or two lines, not a page of numpy's typing internals.
"""

import importlib
import inspect

import pytest

import hmeasure_stream

# The public modules whose ``__all__`` is the API (docs/api.rst).
MODULES = ["hmeasure_stream", "hmeasure_stream.dask", "hmeasure_stream.plotting",
           "hmeasure_stream.river", "hmeasure_stream.datasets",
           "hmeasure_stream.metric_table", "hmeasure_stream.typing"]
LIMIT = 200
ANNOTATION_LIMIT = 80
# The signatures over LIMIT with every type named: too many parameters to fit
# 200 characters (``hmeasure_report`` has eleven), not a type spelled out.
LONG = {
    "hmeasure_stream.auc_ci",
    "hmeasure_stream.auc_test",
    "hmeasure_stream.binned.BinnedAUCResult",
    "hmeasure_stream.binned.BinnedAUCResult.__init__",
    "hmeasure_stream.binned_auc",
    "hmeasure_stream.bootstrap_ci",
    "hmeasure_stream.calibration.CalibrationReport",
    "hmeasure_stream.calibration.CalibrationReport.__init__",
    "hmeasure_stream.calibration_error",
    "hmeasure_stream.calibration_report",
    "hmeasure_stream.coords",
    "hmeasure_stream.dask.auc",
    "hmeasure_stream.dask.auc_ci",
    "hmeasure_stream.dask.binned_auc",
    "hmeasure_stream.dask.grouped",
    "hmeasure_stream.dask.h_measure",
    "hmeasure_stream.dask.hmeasure_report",
    "hmeasure_stream.dask.multiclass_auc",
    "hmeasure_stream.dask.partial_auc",
    "hmeasure_stream.dask.roc_hull",
    "hmeasure_stream.h_measure",
    "hmeasure_stream.hmeasure_report",
    "hmeasure_stream.metric_table.Metric",
    "hmeasure_stream.metric_table.Metric.__init__",
    "hmeasure_stream.min_cost_threshold",
    "hmeasure_stream.multiclass_auc",
    "hmeasure_stream.partial_auc",
    "hmeasure_stream.plotting.PrecisionRecallDisplay.from_estimator",
    "hmeasure_stream.plotting.PrecisionRecallDisplay.from_predictions",
    "hmeasure_stream.plotting.ReliabilityDisplay.from_estimator",
    "hmeasure_stream.plotting.ReliabilityDisplay.from_predictions",
    "hmeasure_stream.plotting.RocDisplay.from_estimator",
    "hmeasure_stream.plotting.RocDisplay.from_predictions",
    "hmeasure_stream.plotting.RocDisplay.from_structure",
    "hmeasure_stream.plotting.RocDisplay.plot",
    "hmeasure_stream.plotting.plot_metrics",
    "hmeasure_stream.plotting.plot_reliability",
    "hmeasure_stream.plotting.plot_roc",
    "hmeasure_stream.river.HMeasure.__init__",
    "hmeasure_stream.sliding_window",
    "hmeasure_stream.streaming.approx_auc.ApproxAUC",
    "hmeasure_stream.streaming.approx_auc.ApproxAUC.__init__",
    "hmeasure_stream.streaming.binned.BinnedAUC",
    "hmeasure_stream.streaming.binned.BinnedAUC.__init__",
    "hmeasure_stream.streaming.hmeasure.ApproxH",
    "hmeasure_stream.streaming.hmeasure.ApproxH.__init__",
    "hmeasure_stream.streaming.hmeasure.DynamicH",
    "hmeasure_stream.streaming.hmeasure.DynamicH.__init__",
    "hmeasure_stream.streaming.multiclass.DynamicMulticlassAUC",
    "hmeasure_stream.streaming.multiclass.DynamicMulticlassAUC.__init__",
    "hmeasure_stream.streaming.window.SlidingWindow.__init__",
    "hmeasure_stream.streaming.window.SlidingWindow.update",
}


def public_callables():
    """(qualified name, callable) of every public function, every public class
    (its constructor's signature) and every public method a class of the package
    defines (not those it inherits from builtins such as ``tuple``)."""
    seen = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                seen.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("hmeasure_stream"):
                        continue
                    for attribute, value in vars(klass).items():
                        if attribute.startswith("_") and attribute != "__init__":
                            continue
                        function = getattr(value, "__func__", value)
                        if inspect.isfunction(function) or inspect.isbuiltin(function):
                            seen.setdefault(f"{obj.__module__}.{obj.__qualname__}.{attribute}",
                                            function)
            elif inspect.isroutine(obj):
                seen.setdefault(f"{module_name}.{name}", obj)
    return sorted(seen.items())


CALLABLES = public_callables()


def test_the_public_api_is_enumerated():
    names = [name for name, _ in CALLABLES]
    assert "hmeasure_stream.metrics.auc" in names or "hmeasure_stream.auc" in names
    assert any(name.endswith("SlidingWindow.update") for name in names)
    assert len(names) > 100


def test_auc_signature_names_its_aliases():
    signature = str(inspect.signature(hmeasure_stream.auc))
    assert len(signature) <= LIMIT, signature
    assert "y_true: 'Labels'" in signature
    assert "_SupportsArray" not in signature


def signature_of(name, function):
    try:
        return inspect.signature(function)
    except (ValueError, TypeError):  # a builtin without a text signature
        pytest.skip(f"{name} has no signature")


@pytest.mark.parametrize(("name", "function"), CALLABLES, ids=[name for name, _ in CALLABLES])
def test_every_type_is_named(name, function):
    # A type reads as its alias or a short expression of names, never as what an
    # alias of numpy's (ArrayLike) expands to.
    signature = signature_of(name, function)
    annotations = [parameter.annotation for parameter in signature.parameters.values()]
    for annotation in [*annotations, signature.return_annotation]:
        if annotation is inspect.Parameter.empty:
            continue
        text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
        assert len(text) <= ANNOTATION_LIMIT and "_typing" not in text, f"{name}: {text}"


@pytest.mark.parametrize(("name", "function"), CALLABLES, ids=[name for name, _ in CALLABLES])
def test_signature_is_short(name, function):
    signature = str(signature_of(name, function))
    if name in LONG:
        # Over the bound by the number of its parameters alone, every type named.
        assert len(signature) > LIMIT, f"{name} is short now: remove it from LONG"
    else:
        assert len(signature) <= LIMIT, f"{name}{signature} ({len(signature)} characters)"
