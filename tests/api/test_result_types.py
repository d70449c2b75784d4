"""Every type a public function or method returns is public: exported in
``hmeasure_stream.__all__`` (or its module's ``__all__``), documented in
docs/api.rst, or a builtin, typing, numpy or third-party type.
"""

import builtins
import importlib
import inspect
import re
from pathlib import Path

import pytest
from test_signatures import CALLABLES, MODULES

import hmeasure_stream
import hmeasure_stream.typing

API_RST = (Path(__file__).parents[2] / "docs" / "api.rst").read_text()
TYPING = {"Any", "Literal", "Sequence", "Mapping", "Iterable", "Iterator", "Callable", "Hashable"}
NUMPY = {"np", "numpy", "NDArray"}
# Types of the optional dependencies a function returns (dask's lazy value, a
# pandas frame, a matplotlib axes).
THIRD_PARTY = {"Delayed", "pandas.DataFrame", "pd.DataFrame", "Axes"}
# Public properties typed with an engine's class (the lead's metric_table.py).
KNOWN = {"hmeasure_stream.metric_table.HCost.rule": "CostRule"}


def public_names():
    names = set(dir(builtins)) | TYPING | THIRD_PARTY | set(hmeasure_stream.typing.__all__)
    for module_name in MODULES:
        names |= set(importlib.import_module(module_name).__all__)
    return names


def properties():
    found = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            cls = getattr(module, name)
            if not inspect.isclass(cls):
                continue
            for klass in cls.__mro__:
                if not klass.__module__.startswith("hmeasure_stream"):
                    continue
                for attribute, value in vars(klass).items():
                    if isinstance(value, property) and not attribute.startswith("_"):
                        found.setdefault(f"{cls.__module__}.{cls.__qualname__}.{attribute}",
                                         value.fget)
    return sorted(found.items())


RETURNING = [*CALLABLES, *properties()]


def returned_names(function):
    try:
        annotation = inspect.signature(function).return_annotation
    except (ValueError, TypeError):
        return []
    if annotation is inspect.Signature.empty:
        return []
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    return [name for name in re.findall(r"[A-Za-z_][\w.]*", text)
            if name.split(".")[0] not in NUMPY]


@pytest.mark.parametrize(("name", "function"), RETURNING, ids=[name for name, _ in RETURNING])
def test_return_annotation_names_public_types(name, function):
    public = public_names()
    private = [found for found in returned_names(function)
               if found not in public and KNOWN.get(name) != found]
    assert not private, f"{name} returns {private}, not exported"


@pytest.mark.parametrize("name", ["AUCTestResult", "BinnedAUCResult", "CrispVUS",
                                  "CalibrationReport", "ConfidenceInterval", "ROCCurve",
                                  "PrecisionRecallCurve", "CostThreshold"])
def test_result_types_are_exported_and_documented(name):
    assert name in hmeasure_stream.__all__
    assert getattr(hmeasure_stream, name).__module__.startswith("hmeasure_stream")
    assert re.search(rf"^   {name}$", API_RST, re.MULTILINE), f"{name} not in docs/api.rst"


def test_every_exported_result_type_is_documented():
    returned = {found for _, function in RETURNING for found in returned_names(function)}
    documented = set(re.findall(r"^   (\w+)$", API_RST, re.MULTILINE))
    for name in sorted(returned & set(hmeasure_stream.__all__)):
        cls = getattr(hmeasure_stream, name)
        if inspect.isclass(cls):
            # (an other name of a documented class, as BootstrapInterval, is documented)
            names = {other for other in hmeasure_stream.__all__
                     if getattr(hmeasure_stream, other) is cls}
            assert names & documented, name
