"""The treap hull engine's checker: it only reads, and it catches a corrupted structure."""

import pickle

import numpy as np
import pytest
from hmeasure_stream._engines._hull import HullEngine


def fresh():
    rng = np.random.default_rng(21)
    engine = HullEngine(capacity=1, seed=2)
    y, s = rng.integers(0, 2, 300).astype(np.uint8), np.round(rng.normal(size=300), 1)
    engine.add_many(y, s)
    for label, score in zip(y[:50], s[:50], strict=True):
        engine.remove(bool(label), float(score))
    return engine


def test_check_only_reads_even_with_pending_loss_terms():
    engine = tracker = fresh()
    root_chain = engine.hull_buffer[engine.tree.root]
    assert np.isnan(engine.chains.ch_buffer[root_chain])  # terms are pending
    before = pickle.dumps(tracker)
    assert tracker._check()
    assert pickle.dumps(tracker) == before
    assert np.isnan(engine.chains.ch_buffer[root_chain])
    assert 0 <= tracker.h <= 1  # reading H settles them (a write, under the claim)
    assert not np.isnan(engine.chains.ch_buffer[root_chain])
    assert tracker._check()


@pytest.mark.parametrize("corruption", ["chain_sum", "own_vertex", "left_open", "hull_holder",
                                        "treap_sum", "loss_term"])
def test_check_detects_a_corrupted_hull_engine(corruption):
    engine = tracker = fresh()
    assert 0 <= tracker.h <= 1
    root = engine.tree.root
    root_chain = int(engine.hull_buffer[root])
    if corruption == "chain_sum":
        engine.chains.cd_buffer[root_chain, 0] += 1.0
        message = "stale aggregates"
    elif corruption == "own_vertex":
        child = engine.tree.left_buffer[root]
        engine.own_buffer[child] = engine.own_buffer[root]
        message = "own one chain vertex"
    elif corruption == "left_open":
        engine.opened_buffer[root] = 1
        message = "left open"
    elif corruption == "hull_holder":
        engine.hull_buffer[engine.tree.right_buffer[root]] = root_chain
        message = "only the root may hold its hull"
    elif corruption == "treap_sum":
        engine.tree.subtree_pos_buffer[root] += 1.0
        message = "stale class 1 subtree aggregate"
    else:
        vertex = int(engine.chains.in_order(root_chain)[1])
        engine.chains.h_buffer[vertex] *= 1.5
        message = "loss term of slot"
    with pytest.raises(AssertionError, match=message):
        tracker._check()
