"""A metric option's flag without a metric that uses it is refused, whichever flag it is.

Which metric uses which options comes from the metric table: each metric names the
class of its options, and each flag sets a field.  The flags are derived here from the
table and the parser (--field-name; a field name of several classes, as n_bins or
relative_error, is one flag that sets each of them); a few are also listed by hand, so
that a table or parser that loses them fails the test.
"""

import dataclasses

import numpy as np
import pytest
from cli_helpers import PRECIOUS, csv_text, leftovers, run_cli

from hmeasure_stream.cli import AVAILABLE_METRICS, build_parser
from hmeasure_stream.metric_table import METRICS, HCost

# A value each field accepts, for the fields without a usable default.
VALUES = {"severity_ratio": "0.5", "priors": "0.4,0.6", "relative_error": "0.1",
          "compression": "0.1", "fpr_range": "0,0.3", "tpr_range": "0.5,1",
          "correction": "mcclish", "transform": "loglog", "loglog_alpha": "0.5",
          "relative_to": "1-auc"}
# The flags a field needs beside it, to be accepted (McClish over one range, ...).
COMPANIONS = {"correction": ["--fpr-range", "0,0.3"],
              # Fixed priors: the hull's metrics are then approximate.
              "priors": ["--relative-error", "0.1"],
              "loglog_alpha": ["--transform", "loglog"]}


def _users(options):
    return [name for name in AVAILABLE_METRICS if METRICS[name].options is options]


def _flag_value(field):
    if field.name in VALUES:
        return VALUES[field.name]
    if isinstance(field.default, tuple):
        return ",".join(map(str, field.default))
    return str(field.default)


PARSER_FLAGS = {option for action in build_parser()._actions
                for option in action.option_strings}


def flag_of(name):
    """The flag of the fields named ``name``: --field-name, in the parser."""
    flag = "--" + name.replace("_", "-")
    assert flag in PARSER_FLAGS, name
    return flag


def table_flags():
    """(flag, field, the options classes with that field, the metrics that use it), from
    the table and parser: one entry a flag."""
    owners = {}
    for options in dict.fromkeys(METRICS[name].options for name in AVAILABLE_METRICS):
        if options is None:
            continue
        for field in dataclasses.fields(options):
            if field.init and (not field.metadata or "help" in field.metadata):
                owners.setdefault(field.name, []).append((field, options))
    return [(flag_of(name), found[0][0], tuple(options for _, options in found),
             [user for _, options in found for user in _users(options)])
            for name, found in owners.items()]


FLAGS = table_flags()
FLAG_IDS = [flag for flag, *_ in FLAGS]


def _required(options):
    return [f for f in dataclasses.fields(options) if f.default is dataclasses.MISSING]


def test_the_derived_flags_hold_those_listed_by_hand():
    users = {flag: metrics for flag, _, _, metrics in FLAGS}
    h_family = ["h", "auch", "ks", "mer", "mwl"]
    by_hand = {"--alpha": h_family, "--beta": h_family, "--severity-ratio": h_family,
               "--priors": h_family, "--relative-error": [*h_family, "ap_approx"],
               "--threshold": ["er", "sens", "spec", "precision", "f", "youden", "gmean",
                               "kappa", "kappa_m"],
               "--n-bins": ["auc_binned", "ece", "mce"],
               "--level": ["auc_var", "auc_lo", "auc_hi"], "--fpr-range": ["pauc"],
               "--compression": ["auc_approx"],
               "--specificity": ["sens_at_spec", "spec_at_sens"]}
    for flag, metrics in by_hand.items():
        assert users.get(flag) == metrics, flag
    assert len(FLAG_IDS) == len(set(FLAG_IDS))


@pytest.fixture
def stream(tmp_path):
    rng = np.random.default_rng(17)
    p = np.round(rng.random(120), 3)
    y = (rng.random(120) < p).astype(int)
    path = tmp_path / "probabilities.csv"
    path.write_text(csv_text(y, p))
    return path


def _refused(stream, capsys, tmp_path, args):
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    before = sorted(tmp_path.iterdir())
    code, written, err = run_cli([stream, "--out", out, "--no-progress", *args], capsys)
    assert code == 2, f"exit code {code}, stderr {err!r}"
    assert sorted(tmp_path.iterdir()) == before and out.read_text() == PRECIOUS
    assert leftovers(tmp_path) == []
    return code, written, err


@pytest.mark.parametrize(("flag", "field", "owners", "users"), FLAGS, ids=FLAG_IDS)
def test_a_flag_no_metric_asked_for_uses_is_refused(stream, capsys, tmp_path, flag, field,
                                                    owners, users):
    # auc and brier have no options: no flag goes with them.
    for metrics in ("auc", "auc,brier"):
        code, written, err = _refused(stream, capsys, tmp_path,
                                      ["--metrics", metrics, f"{flag}={_flag_value(field)}"])
        assert (code, written) == (2, "")
        assert err == f"hmeasure-stream: error: {flag} goes with --metrics {' or '.join(users)}\n"


@pytest.mark.parametrize(("flag", "field", "owners", "users"), FLAGS, ids=FLAG_IDS)
def test_a_flag_is_refused_beside_a_metric_of_another_class(stream, capsys, tmp_path, flag,
                                                            field, owners, users):
    other = next(name for name in AVAILABLE_METRICS
                 if METRICS[name].options not in (None, *owners)
                 and not _required(METRICS[name].options))
    code, _, err = _refused(stream, capsys, tmp_path,
                            ["--metrics", other, f"{flag}={_flag_value(field)}"])
    assert code == 2
    assert err == f"hmeasure-stream: error: {flag} goes with --metrics {' or '.join(users)}\n"


@pytest.mark.parametrize(("flag", "field", "owners", "users"), FLAGS, ids=FLAG_IDS)
def test_each_flag_is_accepted_with_every_metric_that_uses_it(stream, capsys, flag, field,
                                                              owners, users):
    for user in users:
        extra = list(COMPANIONS.get(field.name, []))
        for required in _required(METRICS[user].options):
            if required.name != field.name:
                extra += [flag_of(required.name), "0.1"]
        # R's KS, MER and MWL take the window's priors: not --priors nor --relative-error.
        if user in ("ks", "mer", "mwl") and field.name in ("priors", "relative_error"):
            continue
        code, written, err = run_cli([stream, "--metrics", user, "--window", 40,
                                      "--no-progress", f"{flag}={_flag_value(field)}", *extra],
                                     capsys)
        assert code == 0, (user, err)
        assert written.splitlines()[0] == f"row,{user}" and len(written.splitlines()) == 121


def test_an_h_flag_with_the_default_metrics_is_refused(stream, capsys, tmp_path):
    for args in (["--alpha", "3"], ["--threshold", "0.3"], ["--relative-error", "0.1"],
                 ["--severity-ratio", "prior"], ["--priors", "0.5,0.5"]):
        code, written, err = _refused(stream, capsys, tmp_path, args)
        assert (code, written) == (2, "")
        assert err.startswith(f"hmeasure-stream: error: {args[0]} goes with --metrics ")
        assert err.count("\n") == 1


def test_without_a_file_the_flag_is_refused_too(capsys):
    code, written, err = run_cli(["--alpha", "3"], capsys)
    assert (code, written) == (2, "")
    assert err == "hmeasure-stream: error: --alpha goes with --metrics h or auch or ks or mer or mwl\n"


def test_an_option_the_window_refuses_is_one_line(stream, capsys, tmp_path):
    # AUCH with fixed priors and no --relative-error: the window's engines refuse it.
    code, written, err = _refused(stream, capsys, tmp_path,
                                  ["--metrics", "auch", "--priors", "0.4,0.6"])
    assert (code, written) == (2, "")
    assert err.startswith("hmeasure-stream: error: ") and err.count("\n") == 1, err
    assert _users(HCost) == ["h", "auch", "ks", "mer", "mwl"]
