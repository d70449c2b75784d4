"""The monitor keeps one window for the whole run, fed each row once, and reads the
metrics at the rows it writes: its output is the in-memory ``sliding_window`` of the
same rows, whatever the chunks, ``--every`` and ``--min-periods``."""

import numpy as np
import pytest
from cli_helpers import csv_text, read_table, run_cli, window_aucs, written_rows

import hmeasure_stream.cli._command as cli  # (the module whose Monitor makes the windows)
from hmeasure_stream import SlidingWindow, sliding_window

N_ROWS = 2000


@pytest.fixture
def stream(rng):
    y = rng.integers(0, 2, N_ROWS)
    s = np.round(rng.normal(size=N_ROWS) + 0.8 * y, 2)  # ties within and across classes
    return y, s


def _run(tmp_path, capsys, y, s, *options):
    path = tmp_path / "scores.csv"
    path.write_text(csv_text(y, s))
    code, out, err = run_cli([path, "--no-progress", *options], capsys)
    assert code == 0, err
    return read_table(out)


# Windows that fill inside a chunk of 3 and of 1000 rows (50 = 16 * 3 + 2, 1201 in the
# second chunk of 1000), one that never fills, and every prefix.
@pytest.mark.parametrize("window", ["50", "1201", "5000", "all"])
@pytest.mark.parametrize("chunk_size", ["1", "3", "1000"])
@pytest.mark.parametrize("every", ["1", "7", "1000"])
def test_auc_equals_sliding_window(tmp_path, capsys, stream, window, chunk_size, every):
    y, s = stream
    if chunk_size == "1" and window in ("1201", "5000"):
        y, s = y[:300], s[:300]  # (one chunk a row: shorter, the same filling for 50)
    rows, table = _run(tmp_path, capsys, y, s, "--window", window, "--every", every,
                       "--chunk-size", chunk_size)
    size = None if window == "all" else int(window)
    expected_rows = written_rows(y.shape[0], int(every))
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_array_equal(table["auc"], sliding_window(y, s, size)["auc"][rows])
    # and against the pairs counted, at some of the rows
    for row, value in list(zip(rows, table["auc"], strict=True))[::37]:
        part = slice(0 if size is None else max(0, row + 1 - size), row + 1)
        np.testing.assert_equal(value, _pairs_auc(y[part], s[part]))


@pytest.mark.parametrize("chunk_size", ["1", "3", "1000"])
@pytest.mark.parametrize(("window", "min_periods"), [("50", "20"), ("50", "50"),
                                                     ("1201", "1100"), ("all", "30")])
@pytest.mark.parametrize("every", ["1", "7"])
def test_several_metrics_with_min_periods(tmp_path, capsys, stream, chunk_size, window,
                                          min_periods, every):
    y, s = stream
    if chunk_size == "1":
        y, s = y[:1300], s[:1300]
    metrics = ("auc", "h", "er", "pauc")
    rows, table = _run(tmp_path, capsys, y, s, "--window", window, "--every", every,
                       "--chunk-size", chunk_size, "--metrics", ",".join(metrics),
                       "--min-periods", min_periods)
    size = None if window == "all" else int(window)
    expected = sliding_window(y, s, size, metrics, min_periods=int(min_periods))
    for name in ("auc", "er", "pauc"):
        np.testing.assert_array_equal(table[name], expected[name][rows], err_msg=name)
    # The hull's H rounds by the chunks it is fed in (an ulp or two).
    np.testing.assert_allclose(table["h"], expected["h"][rows], rtol=1e-14, atol=0)
    held = np.minimum(rows + 1, size or N_ROWS)
    assert np.all(np.isnan(table["auc"][held < int(min_periods)]))
    assert not np.any(np.isnan(table["auc"][held >= int(min_periods)]))


def _pairs_auc(y, s):
    """The AUC of one window from all its (class 1, class 0) pairs."""
    pos, neg = s[y == 1], s[y == 0]
    if not (pos.size and neg.size):
        return np.nan
    return ((2 * (pos[:, None] > neg).sum() + (pos[:, None] == neg).sum())
            / (2 * pos.size * neg.size))


class _Counted:
    """How many points the window machinery received: rows fed to a ``SlidingWindow``
    and rows handed to ``sliding_window``, and how many windows were made."""

    def __init__(self, monkeypatch):
        self.points = self.windows = 0
        counter = self

        class CountingWindow(SlidingWindow):
            def __init__(self, *args, **kwargs):
                counter.windows += 1
                super().__init__(*args, **kwargs)

            def update(self, y_true, *args, **kwargs):
                counter.points += len(y_true)
                return super().update(y_true, *args, **kwargs)

        def counting_sliding_window(y_true, *args, **kwargs):
            counter.points += len(y_true)
            return sliding_window(y_true, *args, **kwargs)

        monkeypatch.setattr(cli, "SlidingWindow", CountingWindow)
        monkeypatch.setattr(cli, "sliding_window", counting_sliding_window, raising=False)


@pytest.mark.parametrize("every", ["1", "7"])
@pytest.mark.parametrize("metrics", ["auc", "auc,h"])
def test_each_row_reaches_one_window_once(tmp_path, capsys, monkeypatch, stream, every,
                                          metrics):
    y, s = stream
    counted = _Counted(monkeypatch)
    rows, table = _run(tmp_path, capsys, y, s, "--window", "50", "--every", every,
                       "--chunk-size", "3", "--metrics", metrics)
    assert (counted.windows, counted.points) == (1, N_ROWS)
    np.testing.assert_array_equal(table["auc"], window_aucs(y, s, 50)[rows])
