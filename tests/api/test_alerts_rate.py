"""Alerts with a stated false-alarm rate: the boundary, the monitor's alarms, refusals.

The boundary is checked against a quadrature of the bivariate normal and
against a Monte Carlo of the Gaussian process it models (a moving sum of
independent normals, whose correlation at lag L is exactly 1 - L / w); the
monitor's alarms against a from-scratch recomputation at every look (the
AUC, DeLong's variance and the boundary by root finding).
"""

import math
import pickle
import warnings

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

from hmeasure_stream import (
    AlertEvent,
    AlertMonitor,
    AlertRule,
    InvertedScoresWarning,
    alert_boundary,
    auc,
    auc_variance,
)


def entry_probability(c, rho):
    """P(X >= -c, Y < -c) of a standard bivariate normal of correlation rho, by quadrature
    over X of P(Y < -c | X = x)."""
    if rho == 0:
        return stats.norm.cdf(c) * stats.norm.cdf(-c)
    sd = math.sqrt(1 - rho * rho)
    value, _ = integrate.quad(lambda x: stats.norm.pdf(x) * stats.norm.cdf((-c - rho * x) / sd),
                              -c, np.inf, epsabs=1e-15, epsrel=1e-12)
    return value


def owen_entry_probability(c, rho):
    """entry_probability in closed form, 2 T(c, sqrt((1 - rho) / (1 + rho))) with Owen's T
    (checked against the quadrature below)."""
    return 2 * special.owens_t(c, math.sqrt((1 - rho) / (1 + rho)))


def boundary_by_root(budget, rho, probability=entry_probability):
    """The c >= 0 at which ``probability`` is ``budget`` (0 if c = 0 enters less), by
    Brent's method."""
    if probability(0.0, rho) <= budget:
        return 0.0
    return optimize.brentq(lambda c: probability(c, rho) - budget, 0.0, 40.0,
                           xtol=1e-13, rtol=1e-13)


@pytest.mark.parametrize(("rate", "window", "every"), [
    (1e-5, 1000, 10), (1e-4, 500, 1), (1e-6, 10_000, 100), (1e-3, 50, 5), (1e-5, 200, 200),
    (1e-5, 200, 5000), (1e-10, 100, 3),
])
def test_the_boundary_gives_the_rate_by_quadrature(rate, window, every):
    c = alert_boundary(rate, window, every)
    rho = max(0.0, 1 - every / window)
    assert c > 0
    assert entry_probability(c, rho) / every == pytest.approx(rate, rel=1e-7)
    assert c == pytest.approx(boundary_by_root(rate * every, rho), abs=1e-8)
    assert owen_entry_probability(c, rho) == pytest.approx(entry_probability(c, rho), rel=1e-9)


def test_the_boundary_solves_its_equation_over_rates_windows_and_looks():
    """Every (rate, window, every) of a grid from looks a row apart on a window of 10^6 rows
    to independent looks: the entry probability at c is the budget (Owen's closed form,
    checked against the quadrature above), or c = 0 enters less often."""
    for rate in (1e-12, 1e-9, 1e-6, 1e-4, 1e-2):
        for window in (2, 10, 1000, 10**6):
            for every in (1, 7, 1000, 10**7):
                c = alert_boundary(rate, window, every)
                rho = max(0.0, 1 - every / window)
                budget = rate * every
                if c == 0:
                    assert owen_entry_probability(0.0, rho) <= budget
                else:
                    assert owen_entry_probability(c, rho) == pytest.approx(budget, rel=1e-9)


def test_the_boundary_is_zero_where_the_point_alert_enters_less_often():
    # At c = 0 the looks of a window 100 rows long enter z < 0 with probability
    # 1/4 - arcsin(0.99) / (2 pi) = 0.0225 per look: less than a budget of 0.05.
    assert entry_probability(0.0, 0.99) == pytest.approx(0.25 - math.asin(0.99) / (2 * math.pi))
    assert alert_boundary(0.05, 100, 1) == 0.0
    assert alert_boundary(0.02, 100, 1) > 0.0


def test_the_boundary_holds_the_rate_on_the_gaussian_process_it_models():
    """A moving sum of w independent normals, scaled to unit variance, is a stationary
    Gaussian process of correlation max(0, 1 - L / w) at lag L: its entries below -c at
    looks every k rows number about rate * rows."""
    rng = np.random.default_rng(45)
    window, every, rate, n = 50, 5, 1e-3, 2_000_000
    c = alert_boundary(rate, window, every)
    sums = np.cumsum(rng.standard_normal(n + window))
    z = (sums[window:] - sums[:-window]) / math.sqrt(window)
    looks = z[every - 1::every] < -c
    entries = int(np.count_nonzero(looks[1:] & ~looks[:-1]))
    expected = rate * n  # 2000
    # Entries are rare, nearly independent events: a count of about Poisson(2000), whose
    # standard deviation is 45; the bound is six of them.
    assert abs(entries - expected) < 6 * math.sqrt(expected)
    # A boundary computed as if the looks were independent (rho = 0) enters far less
    # often on this process: the bound tells the correlation's effect.
    independent = boundary_by_root(rate * every, 0.0)
    assert np.count_nonzero(looks[1:] & ~looks[:-1]) == entries
    fewer = z[every - 1::every] < -independent
    assert np.count_nonzero(fewer[1:] & ~fewer[:-1]) < expected - 6 * math.sqrt(expected)


def drifting_stream(n, seed, share=0.4):
    """Labels and scores whose AUC swings between about 0.6 and 0.9 and back."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < share).astype(int)
    separation = 1.2 + 0.9 * np.sin(np.arange(n) / n * 4 * np.pi)
    return y, rng.normal(size=n) + y * separation


def brute_force_events(y, s, rule, window, every, reference_rows=0, reference=None,
                       seconds=None):
    """The (kind, row, estimate, bound, limit, z, boundary) of every change of the alarm,
    from scratch at every look; with ``seconds`` (the rows' times), ``window`` is a window
    of that many seconds: the rows whose time is in (t - window, t], and 1 - rho of the
    looks is averaged over them (an exponential average of weight 1/64 a look)."""
    rate = rule.false_alarm_rate
    if reference is None and reference_rows:
        reference = (auc(y[:reference_rows], s[:reference_rows]),
                     auc_variance(y[:reference_rows], s[:reference_rows]))
    events, on, previous, decorrelation = [], False, None, None
    for row in range(reference_rows, len(y)):
        if (row + 1) % every:
            continue
        through = row - reference_rows + 1  # the rows fed to the window
        if seconds is None:
            held = min(window, through)
        else:
            held = int(np.count_nonzero(seconds[reference_rows:row + 1] > seconds[row] - window))
        yw, sw = y[row + 1 - held:row + 1], s[row + 1 - held:row + 1]
        if min(np.count_nonzero(yw == 1), np.count_nonzero(yw == 0)) < 2:
            continue
        with warnings.catch_warnings():  # a small window of the swing may rank below 0.5
            warnings.simplefilter("ignore", InvertedScoresWarning)
            estimate, var = auc(yw, sw), auc_variance(yw, sw)
        if previous is None:
            rho, budget = 0.0, rate * every
        else:
            before, before_held, before_var = previous
            shared = max(0, before - max(through - held, before - before_held))
            rho = shared / math.sqrt(held * before_held)
            budget = rate * (through - before)
        if seconds is not None:
            decorrelation = (1 - rho if decorrelation is None
                             else decorrelation + (1 - rho - decorrelation) / 64)
            rho = 1 - decorrelation
        if reference is None:
            limit, se = rule.below, math.sqrt(var)
        else:
            limit, se = reference[0] - rule.drop, math.sqrt(var + reference[1])
            if previous is not None:
                rho = ((rho * math.sqrt(before_var * var) + reference[1])
                       / math.sqrt((before_var + reference[1]) * (var + reference[1])))
        previous = (through, held, var)
        c = boundary_by_root(budget, min(rho, 1 - 1e-15), owen_entry_probability)
        # (a window of two separated points per class has a variance of 0)
        z = (estimate - limit) / se if se else math.copysign(math.inf, estimate - limit) * (
            estimate != limit)
        if (z < -c) != on:
            on = z < -c
            events.append(("fired" if on else "cleared", row, estimate, estimate + c * se,
                           limit, z, c))
    return events


def fed_in_chunks(monitor, y, s, seed, times=None):
    """Every event of the stream fed in chunks of random sizes (some empty)."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, len(y), 12))
    events = []
    for start, stop in zip([0, *cuts], [*cuts, len(y)], strict=True):
        more = {} if times is None else {"times": times[start:stop]}
        events += monitor.update(y[start:stop], s[start:stop], **more)
    return events


@pytest.mark.parametrize(("seconds", "every", "reference_rows"), [(60, 1, 0), (45, 7, 0),
                                                                   (80, 3, 120)])
def test_a_window_of_time_fires_and_clears_as_a_brute_force_recomputation(seconds, every,
                                                                        reference_rows):
    """Rows at irregular times (gaps of 0 to 3 s: ties and bursts), so each window holds
    its own number of rows: rho from the rows the looks share, as for a window of rows."""
    y, s = drifting_stream(700, 8)
    clock = np.cumsum(np.random.default_rng(8).integers(0, 4, 700)).astype(float)
    times = np.datetime64("2026-12-01T00:00:00", "ns") + (clock * 1e9).astype("timedelta64[ns]")
    rule = (AlertRule(below=0.75, false_alarm_rate=1e-2) if not reference_rows else
            AlertRule(drop=0.02, false_alarm_rate=1e-2, reference_rows=reference_rows))
    expected = brute_force_events(y, s, rule, seconds, every, reference_rows, seconds=clock)
    assert sum(kind == "fired" for kind, *_ in expected) >= 2
    monitor = AlertMonitor(rule, f"{seconds}s", every)
    assert_same_events(fed_in_chunks(monitor, y, s, 3, times), expected)
    assert monitor.window == np.timedelta64(seconds * 10**9, "ns") and math.isnan(monitor.boundary)
    assert pickle.loads(pickle.dumps(monitor)).update(y[:5], s[:5], times=times[-1:].repeat(5)) \
        == monitor.update(y[:5], s[:5], times=times[-1:].repeat(5))


def test_a_window_of_time_of_one_row_a_second_is_the_window_of_rows():
    """Once its average of 1 - rho has forgotten the window's filling, the looks' boundary
    is that of the window of rows, and so are the alarms."""
    for every, n in ((1, 4000), (10, 40000)):
        y, s = drifting_stream(n, 9)
        times = np.arange(n) * np.timedelta64(1, "s") + np.datetime64("2026-12-01", "s")
        rule = AlertRule(below=0.75, false_alarm_rate=1e-3)
        by_time = AlertMonitor(rule, "50s", every).update(y, s, times=times)
        by_rows = AlertMonitor(rule, 50, every).update(y, s)
        late = 3 * n // 4  # (after 3000 looks: the filling's weight is (63/64)**3000)
        settled = [(event.kind, event.row) for event in by_time if event.row >= late]
        assert settled == [(event.kind, event.row) for event in by_rows if event.row >= late]
        assert len(settled) >= 2
        for event, other in zip([e for e in by_time if e.row >= late],
                                [e for e in by_rows if e.row >= late], strict=True):
            assert event.boundary == pytest.approx(other.boundary, rel=1e-9)


def test_a_window_of_time_needs_the_times_and_a_refusal_changes_nothing():
    y, s = drifting_stream(100, 10)
    times = np.arange(100) * np.timedelta64(1, "s") + np.datetime64("2026-12-01", "s")
    monitor = AlertMonitor(AlertRule(below=0.75), "30s", 5)
    monitor.update(y[:50], s[:50], times=times[:50])
    before = pickle.dumps(monitor)
    for kwargs in ({}, {"times": times[60:65]}, {"times": times[:10]}):
        with pytest.raises(ValueError):
            monitor.update(y[50:60], s[50:60], **kwargs)
        assert pickle.dumps(monitor) == before
    with pytest.raises(ValueError, match="is not a duration"):
        AlertMonitor(AlertRule(below=0.75), "30 parsecs")


def assert_same_events(found, expected):
    assert [(event.kind, event.row) for event in found] == [(e[0], e[1]) for e in expected]
    for event, brute in zip(found, expected, strict=True):
        assert isinstance(event, AlertEvent)
        assert tuple(event)[2:] == pytest.approx(brute[2:], rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(("window", "every", "rate", "seed"), [
    (60, 7, 1e-3, 1), (40, 1, 1e-2, 2), (25, 30, 1e-2, 3)])
def test_the_monitor_fires_and_clears_as_a_brute_force_recomputation(window, every, rate, seed):
    y, s = drifting_stream(700, seed)
    rule = AlertRule(below=0.75, false_alarm_rate=rate)
    expected = brute_force_events(y, s, rule, window, every)
    assert sum(kind == "fired" for kind, *_ in expected) >= 2  # the stream swings enough
    assert any(kind == "cleared" for kind, *_ in expected)
    monitor = AlertMonitor(rule, window, every)
    found = fed_in_chunks(monitor, y, s, seed)
    assert_same_events(found, expected)
    assert monitor.n_fired == sum(kind == "fired" for kind, *_ in expected)
    assert monitor.in_alarm == (expected[-1][0] == "fired")
    assert monitor.n_rows == len(y)


@pytest.mark.parametrize(("window", "every", "rate"), [(50, 5, 1e-3), (30, 1, 1e-2)])
def test_a_drop_from_the_reference_fires_as_a_brute_force_recomputation(window, every, rate):
    y, s = drifting_stream(800, 7)
    rule = AlertRule(drop=0.05, false_alarm_rate=rate, reference_rows=120)
    expected = brute_force_events(y, s, rule, window, every, reference_rows=120)
    assert sum(kind == "fired" for kind, *_ in expected) >= 2
    monitor = AlertMonitor(rule, window, every)
    assert monitor.reference is None
    assert_same_events(fed_in_chunks(monitor, y, s, 11), expected)
    assert monitor.reference == pytest.approx((auc(y[:120], s[:120]),
                                               auc_variance(y[:120], s[:120])))
    # The same reference given as arrays, the monitored rows fed alone: the same alarms,
    # their rows counted from the first monitored row.
    given = AlertMonitor(AlertRule(drop=0.05, false_alarm_rate=rate), window, every,
                         reference=(y[:120], s[:120]))
    moved = [(kind, row - 120, *rest) for kind, row, *rest in expected]
    assert 120 % every == 0  # the looks fall on the same rows
    assert_same_events(given.update(y[120:], s[120:]), moved)


def test_the_event_states_its_evidence():
    y, s = drifting_stream(700, 1)
    rule = AlertRule(below=0.75, false_alarm_rate=1e-3)
    for event in AlertMonitor(rule, 60, 7).update(y, s):
        se = (event.estimate - event.limit) / event.z
        assert event.bound == pytest.approx(event.estimate + event.boundary * se)
        assert (event.bound < event.limit) == (event.kind == "fired")
        assert event.limit == 0.75


@pytest.mark.parametrize(("options", "message"), [
    ({}, "give exactly one of below="),
    ({"below": 0.8, "drop": 0.1}, "give exactly one of below="),
    ({"below": 1.5}, r"below must be a number in \(0, 1\], got 1.5"),
    ({"below": True}, r"below must be a number in \(0, 1\], got True"),
    ({"below": "0.8"}, r"below must be a number in \(0, 1\], got '0.8'"),
    ({"drop": -0.1}, r"drop must be a number in \[0, 1\), got -0.1"),
    ({"below": 0.8, "false_alarm_rate": 0}, r"false_alarm_rate must be a number in \[1e-12, 1\)"),
    ({"below": 0.8, "false_alarm_rate": 1.0}, r"false_alarm_rate must be a number in \[1e-12"),
    ({"below": 0.8, "false_alarm_rate": math.nan}, "false_alarm_rate must be a number"),
    ({"below": 0.8, "reference_rows": 100}, "reference_rows goes with drop="),
    ({"drop": 0.1, "reference_rows": 3}, "reference_rows must be an int >= 4, got 3"),
    ({"drop": 0.1, "reference_rows": 10.0}, "reference_rows must be an int >= 4, got 10.0"),
])
def test_a_bad_rule_is_refused_naming_its_option(options, message):
    with pytest.raises(ValueError, match=message):
        AlertRule(**options)


def test_a_rule_keeps_its_numbers_as_floats_and_ints():
    rule = AlertRule(drop=np.float32(0.25), reference_rows=np.int64(50))
    assert (type(rule.drop), rule.drop, type(rule.reference_rows)) == (float, 0.25, int)
    assert AlertRule(below=1).below == 1.0 and type(AlertRule(below=1).below) is float


@pytest.mark.parametrize(("arguments", "message"), [
    ((AlertRule(below=0.8), 1), "window must be an int >= 2"),
    ((AlertRule(below=0.8), 100.0), "window must be an int >= 2 .* got 100.0"),
    ((AlertRule(below=0.8), 100, 0), "every must be an int >= 1"),
    (("auc<0.8", 100), "rule must be an AlertRule"),
    ((AlertRule(drop=0.1), 100), "a rule with drop= needs one reference"),
])
def test_a_bad_monitor_is_refused_naming_its_option(arguments, message):
    with pytest.raises(ValueError, match=message):
        AlertMonitor(*arguments)


def test_a_reference_goes_with_drop_alone_and_once():
    y, s = drifting_stream(100, 4)
    with pytest.raises(ValueError, match="reference goes with a rule's drop="):
        AlertMonitor(AlertRule(below=0.8), 50, reference=(y, s))
    with pytest.raises(ValueError, match="needs one reference"):
        AlertMonitor(AlertRule(drop=0.1, reference_rows=50), 50, reference=(y, s))
    with pytest.raises(ValueError, match="reference must be a tuple"):
        AlertMonitor(AlertRule(drop=0.1), 50, reference=[y, s])
    with pytest.raises(ValueError, match="only one class is present"):
        AlertMonitor(AlertRule(drop=0.1), 50, reference=(np.ones(5), np.arange(5.0)))
    with pytest.raises(ValueError, match="every must be an int >= 1"):
        alert_boundary(1e-5, 100, 0)
    with pytest.raises(ValueError, match="false_alarm_rate must be"):
        alert_boundary(2.0, 100, 1)


@pytest.mark.parametrize("rule", [AlertRule(below=0.75, false_alarm_rate=1e-3),
                                  AlertRule(drop=0.05, false_alarm_rate=1e-3, reference_rows=90)])
@pytest.mark.parametrize("fed", [60, 130])
def test_a_refused_chunk_leaves_the_monitor_unchanged(rule, fed):
    y, s = drifting_stream(400, 5)
    monitor = AlertMonitor(rule, 40, 3)
    monitor.update(y[:fed], s[:fed])
    before = pickle.dumps(monitor)
    bad_score = s[fed:fed + 50].copy()
    bad_score[45] = np.nan  # past the reference's end for fed=60: the tail is refused
    bad_label = y[fed:fed + 50].copy()
    bad_label[40] = 2
    for chunk in [(y[fed:fed + 50], bad_score), (bad_label, s[fed:fed + 50]),
                  (y[fed:fed + 50], s[fed:fed + 49]), (y[fed:fed + 50], s[fed:fed + 50], -s[:50])]:
        with pytest.raises(ValueError):
            monitor.update(*chunk)
        assert pickle.dumps(monitor) == before
    assert monitor.n_rows == fed


def test_a_reference_without_both_classes_is_refused_and_leaves_the_monitor_unchanged():
    monitor = AlertMonitor(AlertRule(drop=0.05, reference_rows=10), 20)
    before = pickle.dumps(monitor)
    with pytest.raises(ValueError, match=r"reference_rows=10.*two points of each class"):
        monitor.update(np.ones(15, dtype=int), np.arange(15.0))
    assert pickle.dumps(monitor) == before


@pytest.mark.parametrize("rule", [AlertRule(below=0.75, false_alarm_rate=1e-2),
                                  AlertRule(drop=0.05, false_alarm_rate=1e-3, reference_rows=90)])
def test_a_pickled_monitor_goes_on_as_the_original(rule):
    y, s = drifting_stream(700, 6)
    original = AlertMonitor(rule, 50, 4)
    original.update(y[:60], s[:60])
    copied = pickle.loads(pickle.dumps(original))
    assert repr(copied) == repr(original)
    assert copied.update(y[60:], s[60:]) == original.update(y[60:], s[60:])
    assert (copied.n_fired, copied.in_alarm, copied.n_rows) == (
        original.n_fired, original.in_alarm, 700)
    assert copied.n_fired >= 1
    assert pickle.dumps(copied) == pickle.dumps(original)
