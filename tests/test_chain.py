"""The pool of hull chains: split/join by position against Python lists."""

import numpy as np
import pytest
from hmeasure_stream._chain import ChainPool


@pytest.mark.parametrize("seed", range(6))
def test_random_splits_and_joins_match_lists(seed):
    rng = np.random.default_rng(seed)
    pool = ChainPool(1, seed)
    chains = []  # (root, list of (d_neg, d_pos))
    for _ in range(300):
        action = rng.integers(3)
        if action == 0 or not chains:
            n = int(rng.integers(0, 8))
            items = [(float(rng.integers(0, 5)), float(rng.integers(0, 5))) for _ in range(n)]
            root = pool.chain_from([a for a, _ in items], [b for _, b in items])
            chains.append((root, items))
        elif action == 1:
            k = int(rng.integers(len(chains)))
            root, items = chains.pop(k)
            cut = int(rng.integers(0, len(items) + 1))
            left, right = pool.split_chain(root, cut)
            chains += [(left, items[:cut]), (right, items[cut:])]
        elif len(chains) >= 2:
            a = chains.pop(int(rng.integers(len(chains))))
            b = chains.pop(int(rng.integers(len(chains))))
            chains.append((pool.join_chains(a[0], b[0]), a[1] + b[1]))
        for root, items in chains:
            pool._check_chain(root)
            d_neg, d_pos = pool.vertices(root) if root >= 0 else (np.empty(0), np.empty(0))
            assert list(zip(d_neg, d_pos, strict=True)) == items
            if items:
                assert pool.cd_neg_buffer[root] == sum(a for a, _ in items)
                assert pool.cd_pos_buffer[root] == sum(b for _, b in items)
                assert pool.size_buffer[root] == len(items)
                assert (pool.first_neg_buffer[root], pool.first_pos_buffer[root]) == items[0]
    # Every slot is either in a chain or free.
    in_chains = sum(len(items) for _, items in chains)
    assert pool.n_vertices == in_chains
    for root, _ in chains:
        if root >= 0:
            pool.free_chain(root)
    assert pool.n_vertices == 0
