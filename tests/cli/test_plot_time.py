"""--plot: the metrics against the rows' times with --time-col (a date axis), against row
numbers without; the window said in its own units; the band's confidence level."""

import datetime
import warnings

import matplotlib
import numpy as np
import pytest
from cli_helpers import read_table, run_cli

import hmeasure_stream.plotting

matplotlib.use("Agg")

N = 240
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@pytest.fixture
def drawn(monkeypatch):
    """The axes each --plot drew on (the figure is closed, its artists kept)."""
    axes = []
    plot_metrics = hmeasure_stream.plotting.plot_metrics

    def keep(*args, **kwargs):
        axes.append(plot_metrics(*args, **kwargs))
        return axes[-1]

    monkeypatch.setattr(hmeasure_stream.plotting, "plot_metrics", keep)
    return axes


def _stream(tmp_path):
    """A CSV of labels, scores and ISO times at irregular steps, in three UTC offsets."""
    rng = np.random.default_rng(2033)
    y = rng.integers(0, 2, N)
    s = np.round(rng.normal(y, 1.0), 3)
    seconds = np.cumsum(rng.integers(1, 240, N))
    start = datetime.datetime(2026, 3, 28, 22, 0, tzinfo=datetime.timezone.utc)
    zones = [datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=1)),
             datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))]
    moments = [start + datetime.timedelta(seconds=int(t)) for t in seconds]
    texts = [moment.astimezone(zones[i % 3]).isoformat() for i, moment in enumerate(moments)]
    path = tmp_path / "stream.csv"
    path.write_text("label,score,ts\n" + "".join(
        f"{a},{b!r},{t}\n" for a, b, t in zip(y.tolist(), s.tolist(), texts, strict=True)))
    # Matplotlib's date numbers: days since 1970-01-01 UTC.
    days = np.array([(moment - _EPOCH) / datetime.timedelta(days=1) for moment in moments])
    return path, days


def _plotted(tmp_path, drawn, capsys, *args):
    path, days = _stream(tmp_path)
    out, plot = tmp_path / "out.csv", tmp_path / "plot.png"
    code, _, err = run_cli([path, *args, "--out", out, "--plot", plot], capsys)
    assert code == 0, err
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (ax,) = drawn
    rows, table = _without_times(out) if "--time-col" in args else read_table(out.read_text())
    return ax, rows, table, days


def _without_times(out):
    """The output's rows and metrics, its copied ts column left out."""
    lines = out.read_text().splitlines()
    names = lines[0].split(",")
    at = names.index("ts")
    kept = [",".join(field for k, field in enumerate(line.split(",")) if k != at)
            for line in lines]
    return read_table("\n".join(kept))


def test_time_col_plots_the_rows_times_and_the_window_as_a_duration(tmp_path, drawn, capsys):
    ax, rows, table, days = _plotted(tmp_path, drawn, capsys, "--time-col", "ts",
                                     "--window", "2h", "--every", "4")
    assert rows.tolist() == list(range(3, N, 4))
    (line,) = ax.lines
    np.testing.assert_allclose(line.get_xdata(orig=False), days[rows], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(line.get_ydata(), table["auc"])
    assert isinstance(ax.xaxis.get_major_formatter(), matplotlib.dates.ConciseDateFormatter)
    assert ax.get_title() == "sliding window of 2 h"
    assert "rows" not in ax.get_title()
    assert ax.get_xlabel() == "ts (UTC)"
    low, high = ax.get_xlim()
    assert low <= days[3] and days[rows[-1]] <= high


@pytest.mark.parametrize(("args", "title"), [
    (["--time-col", "ts", "--window", "90min", "--half-life", "30min"],
     "sliding window of 90 min, half-life 30 min"),
    (["--time-col", "ts", "--window", "1h30min"], "sliding window of 1 h 30 min"),
    (["--time-col", "ts", "--window", "all", "--half-life", "1h"],
     "exponential decay, half-life 1 h"),
    (["--time-col", "ts", "--window", "50"], "sliding window of 50 rows"),
])
def test_time_col_titles_say_each_window_in_its_units(tmp_path, drawn, capsys, args, title):
    ax, rows, _, days = _plotted(tmp_path, drawn, capsys, *args)
    assert ax.get_title() == title
    np.testing.assert_allclose(ax.lines[0].get_xdata(orig=False), days[rows], rtol=0,
                               atol=1e-9)


@pytest.mark.parametrize(("args", "title"), [
    (["--window", "100"], "sliding window of 100 rows"),
    (["--window", "all"], "every prefix"),
    (["--window", "all", "--half-life", "50"], "exponential decay, half-life 50 rows"),
    (["--window", "100", "--half-life", "12.5"], "sliding window of 100 rows, half-life 12.5 rows"),
])
def test_without_time_col_the_rows_are_the_x_axis(tmp_path, drawn, capsys, args, title):
    ax, rows, table, _ = _plotted(tmp_path, drawn, capsys, *args, "--every", "3")
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_xdata(), rows)
    assert rows.tolist() == list(range(2, N, 3))
    np.testing.assert_array_equal(line.get_ydata(), table["auc"])
    assert (ax.get_title(), ax.get_xlabel()) == (title, "row")


def test_the_delong_band_says_its_level(tmp_path, drawn, capsys):
    ax, rows, table, days = _plotted(tmp_path, drawn, capsys, "--time-col", "ts", "--window",
                                     "3h", "--metrics", "auc,auc_lo,auc_hi")
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "AUC", "AUC 95% CI (DeLong)"]
    (band,) = ax.collections
    vertices = band.get_paths()[0].vertices
    assert np.nanmin(vertices[:, 1]) == pytest.approx(np.nanmin(table["auc_lo"]), abs=1e-12)
    assert np.nanmax(vertices[:, 1]) == pytest.approx(np.nanmax(table["auc_hi"]), abs=1e-12)
    # From the first row whose interval is defined, at that row's time.
    first = np.flatnonzero(np.isfinite(table["auc_lo"]))[0]
    assert vertices[:, 0].min() == pytest.approx(days[rows[first]], abs=1e-9)


def test_a_plot_of_the_last_row_alone_is_one_point_and_titled(tmp_path, drawn, capsys):
    ax, rows, table, _ = _plotted(tmp_path, drawn, capsys, "--time-col", "ts",
                                  "--window", "2h", "--every", str(N + 1))
    assert rows.tolist() == [N - 1]
    assert ax.lines[0].get_ydata().tolist() == table["auc"].tolist()
    assert ax.get_title() == "sliding window of 2 h"


def test_a_delayed_window_is_said_in_predictions(tmp_path, drawn, capsys):
    path = tmp_path / "delayed.csv"
    path.write_text("id,label,score\n" + "".join(
        f"p{i},,{i / 20!r}\np{i},{i % 2},\n" for i in range(20)))
    code, _, err = run_cli([path, "--delayed", "--id-col", "id", "--window", "8",
                            "--plot", tmp_path / "plot.png", "--out", tmp_path / "o.csv"],
                           capsys)
    assert code == 0, err
    assert drawn[0].get_title() == "sliding window of 8 predictions"


def test_plotting_a_time_window_issues_no_warning(tmp_path, drawn, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _plotted(tmp_path, drawn, capsys, "--time-col", "ts", "--window", "2h",
                 "--metrics", "auc,h,auc_lo,auc_hi", "--min-periods", "10")
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
