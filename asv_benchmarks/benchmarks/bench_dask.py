"""asv benchmarks of the per-partition and per-range kernels of hmeasure_stream.dask.

The cluster itself is timed by ``ratios.py --part dask`` (interleaved, with the
workers' memory); here each step of the range partition runs in one process
on numpy arrays: a partition's groups (validate, split by class, sort, group),
its cut at the range boundaries, the merge of one range's pieces from 16
partitions, and a range's summary (2U, the upper and lower hull).
"""

import numpy as np

from hmeasure_stream.dask import _bounds, _cut, _groups_of, _merge, _sample, _summarise

N_PARTS = 16


def _data(n, ties, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int8)
    s = rng.normal(size=n) + 0.7 * y
    if ties:
        s = np.round(s, 2)
    return y, s, rng.exponential(size=n)


class PartitionKernels:
    params = ([10**5, 10**6], [False, True])
    param_names = ["rows_per_partition", "ties"]

    def setup(self, n, ties):
        self.y, self.s, self.w = _data(n, ties)
        parts = [_data(n // N_PARTS, ties, seed) for seed in range(N_PARTS)]
        self.groups = [_groups_of(y, s, None) for y, s, _ in parts]
        self.bounds = _bounds(N_PARTS, *[_sample(g, N_PARTS) for g in self.groups])
        cuts = [_cut(g, self.bounds, N_PARTS) for g in self.groups]
        # The range in the middle, from every partition: about n / 16 groups.
        self.pieces = [pieces[N_PARTS // 2] for pieces in cuts]
        self.whole = _groups_of(self.y, self.s, None)

    def time_groups(self, n, ties):
        _groups_of(self.y, self.s, None)

    def time_groups_weighted(self, n, ties):
        _groups_of(self.y, self.s, self.w)

    def time_cut(self, n, ties):
        _cut(self.whole, self.bounds, N_PARTS)

    def time_merge_range(self, n, ties):
        _merge(*self.pieces)

    def time_summarise(self, n, ties):
        _summarise(self.whole, True)
