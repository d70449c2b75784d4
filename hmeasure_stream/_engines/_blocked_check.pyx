"""The invariants of the order engine, checked in O(n) (``BlockedAUCEngine._check``).

Every check reads only: the layout (sizes, ranges and links every operation
relies on, with numpy, never through the raw pointers; run on every pickle
before it is bound), the blocks' aggregates and the segment tree against a
recomputation, 2U exactly in unit mode, DeLong's placements' sums, the
weights' scale.  ``pairs_above`` is a read for the tests of the placements.
"""

import numpy as np

from libc.math cimport fabs
from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._blocked cimport BLOCK, MAX_BLOCKS, BlockedAUCEngine, pairs_beyond


def check(BlockedAUCEngine engine):
    """Every invariant, in O(n): blocks, directory, free ids, aggregates, 2U, scale."""
    cdef Py_ssize_t position
    n_blocks = engine.n_blocks
    check_layout(engine)
    if engine.scratch_buffer.shape != (2 * engine.leaves,):
        raise AssertionError("the scratch buffer has the wrong size")
    order = engine.order_buffer[:n_blocks]
    sizes = engine.size_buffer[order]
    pairs = engine.weighted or engine.placements
    block_at_leaf = engine.block_at_leaf_buffer
    slots = engine.leaf_of_block_buffer[order]
    _, weight_neg, weight_pos, count_neg, count_pos = engine.items()
    if np.any(weight_neg[count_neg == 0] != 0) or np.any(weight_pos[count_pos == 0] != 0):
        raise AssertionError("weight stored for a class without points")
    if np.any(weight_neg < 0) or np.any(weight_pos < 0):
        raise AssertionError("negative weight")
    tree = engine.tree_buffer
    relative = 1e-12
    # Block aggregates, then leaves, then inner nodes.
    starts = np.cumsum(sizes) - sizes
    for position in range(n_blocks):
        block = order[position]
        part = slice(starts[position], starts[position] + sizes[position])
        neg, pos = weight_neg[part], weight_pos[part]
        below = np.cumsum(neg) - neg
        expected = (neg.sum(), pos.sum(),
                    float(np.sum(pos * (2.0 * below + neg))) if pairs else 0.0)
        if engine.placements and not engine.weighted:
            # Unit mode: the block's 2U is an exact integer, kept by increments.
            exact = _exact_pairs(count_neg[part].tolist(), count_pos[part].tolist())
            if engine.aggregate_buffer[block, 2] != exact:
                raise AssertionError(f"block {block} 2U {engine.aggregate_buffer[block, 2]!r}"
                                     f" != {exact}")
        for column in range(3):
            got = engine.aggregate_buffer[block, column]
            if abs(got - expected[column]) > relative * max(abs(expected[column]), 1.0):
                raise AssertionError(f"block {block} aggregate {column}: {got} != "
                                     f"{expected[column]}")
            if tree[engine.leaves + slots[position], column] != got:
                raise AssertionError(f"the leaf of block {block} differs from it")
    gaps = engine.leaves + np.flatnonzero(block_at_leaf < 0)
    if np.any(tree[gaps] != 0):
        raise AssertionError("a gap's leaf is not zero")
    # Every inner node is exactly what its children give (weighted nodes are recomputed,
    # never adjusted, so the same operations give the same bits; unit-mode increments
    # are integers, exact).
    left, right = tree[2:2 * engine.leaves:2], tree[3:2 * engine.leaves:2]
    expected = np.column_stack([
        left[:, 0] + right[:, 0], left[:, 1] + right[:, 1],
        left[:, 2] + right[:, 2] + 2.0 * right[:, 1] * left[:, 0] if pairs
        else np.zeros(engine.leaves - 1)])
    stale = np.flatnonzero(np.any(tree[1:engine.leaves] != expected, axis=1))
    if stale.size:
        raise AssertionError(f"segment node {stale[0] + 1} is stale")
    if engine.placements:
        _check_squares(engine, order, slots, starts, sizes, weight_neg, weight_pos,
                       count_neg, count_pos)
    if engine.weighted:
        below = np.cumsum(weight_neg) - weight_neg
        recomputed = float(np.sum(weight_pos * (2.0 * below + weight_neg)))
        maintained = tree[1, 2] if n_blocks else 0.0
        if fabs(maintained - recomputed) > 1e-12 * max(abs(recomputed), 1e-300):
            raise AssertionError(f"2U {maintained!r} != recomputed {recomputed!r}")
    else:
        below = 0
        recomputed = 0
        for negatives, positives in zip(count_neg.tolist(), count_pos.tolist(), strict=True):
            recomputed += positives * (2 * below + negatives)
            below += negatives
        maintained = engine.twice_u + engine.twice_u_compensation
        if maintained != recomputed:
            raise AssertionError(f"exact 2U {maintained!r} != recomputed {recomputed}")
    if engine.n_points == 0 and (engine.weighted or n_blocks):
        raise AssertionError("an empty structure must hold no block and be in unit mode")
    if engine.n_points == 0 and engine.inverse_scale != 0.0:
        raise AssertionError("an empty structure must have forgotten its weights' scale")
    if engine.inverse_scale != 0.0 and (
            np.frexp(engine.inverse_scale)[0] != 0.5 or not np.isfinite(engine.inverse_scale)):
        raise AssertionError(f"the weights' scale {engine.inverse_scale!r} is not a power of two")
    if engine.inverse_scale == 0.0 and (np.any(weight_neg != 0) or np.any(weight_pos != 0)):
        raise AssertionError("positive weight stored without a scale")
    return True


def check_layout(BlockedAUCEngine engine):
    """The sizes, ranges and links every operation relies on, in O(n) with numpy only
    (never through the raw pointers): buffers, block ids, slots, sizes, keys, counts.
    Run on every pickle before it is bound (``_rebuild_blocked``) and by ``_check``."""
    capacity, leaves, n_blocks, n_free = (engine.block_capacity, engine.leaves, engine.n_blocks,
                                          engine.n_free)
    if not 1 <= capacity <= MAX_BLOCKS or not 2 <= engine.block_limit <= BLOCK:
        raise AssertionError(f"a capacity of {capacity} blocks of at most "
                             f"{engine.block_limit} keys is out of range")
    if leaves < 2 * capacity or leaves & (leaves - 1):
        raise AssertionError(
            "the segment tree's leaves are not a power of two >= twice the capacity")
    # The weight buffer exists in weighted mode only, one row per key slot.
    if engine.weighted != (engine.weight_buffer is not None):
        raise AssertionError("a weight buffer must exist exactly in weighted mode")
    squares = engine.placements and engine.weighted
    if (squares != (engine.square_aggregate_buffer is not None)
            or squares != (engine.square_tree_buffer is not None)):
        raise AssertionError(
            "the M sums' buffers must exist, sized, with the placements in weighted mode")
    keys = capacity * BLOCK
    for name, shape, dtype in (
            ("key", (keys,), np.float64), ("count_neg", (keys,), np.int32),
            ("count_pos", (keys,), np.int32), ("weight", (keys, 4), np.float64),
            ("size", (capacity,), np.int32), ("aggregate", (capacity, 3), np.float64),
            ("order", (capacity,), np.int32), ("first", (capacity,), np.float64),
            ("free", (capacity,), np.int32), ("tree", (2 * leaves, 3), np.float64),
            ("leaf_of_block", (capacity,), np.int32),
            ("block_at_leaf", (leaves,), np.int32),
            ("square_aggregate", (capacity, 2), np.float64),
            ("square_tree", (2 * leaves, 2), np.float64)):
        buffer = getattr(engine, name + "_buffer")
        if buffer is None and name in ("weight", "square_aggregate", "square_tree"):
            continue
        if not (isinstance(buffer, np.ndarray) and buffer.dtype == dtype
                and buffer.shape == shape and buffer.flags.c_contiguous):
            what = (f"{buffer.dtype} {buffer.shape}" if isinstance(buffer, np.ndarray)
                    else type(buffer).__name__)
            raise AssertionError(f"the {name} buffer has the wrong size or type: "
                                 f"{what}, not {np.dtype(dtype)} {shape}")
    if not (0 <= n_blocks <= capacity and n_blocks + n_free == capacity):
        raise AssertionError("blocks in use and free do not add up to the capacity")
    order = engine.order_buffer[:n_blocks]
    free = engine.free_buffer[:n_free]
    ids = np.concatenate([order, free])
    if not np.array_equal(np.sort(ids), np.arange(capacity)):
        raise AssertionError("a block id is lost or both used and free")
    sizes = engine.size_buffer[order]
    if np.any(sizes < 1) or np.any(sizes > engine.block_limit):
        raise AssertionError(f"block sizes out of 1..{engine.block_limit}: {sizes}")
    # Gapped leaves: the blocks in directory order, each in exactly one slot.
    leaf_of_block = engine.leaf_of_block_buffer
    block_at_leaf = engine.block_at_leaf_buffer
    slots = leaf_of_block[order]
    if n_blocks and (np.any(np.diff(slots) <= 0) or slots[0] < 0
                     or slots[n_blocks - 1] >= leaves):
        raise AssertionError("the blocks' slots are not increasing in directory order")
    if np.any(leaf_of_block[free] != -1):
        raise AssertionError("a free block id has a slot")
    occupied = np.flatnonzero(block_at_leaf >= 0)
    if not (np.array_equal(occupied, slots) and np.array_equal(block_at_leaf[slots], order)):
        raise AssertionError("the slots and the blocks at the leaves disagree")
    if np.any(block_at_leaf[block_at_leaf < 0] != -1):
        raise AssertionError("a gap is not marked -1")
    keys, _, _, count_neg, count_pos = engine.items()
    if keys.size and not (np.all(keys[1:] > keys[:-1]) and np.all(np.isfinite(keys))):
        raise AssertionError("keys are not finite and strictly increasing")
    if not np.array_equal(engine.first_buffer[:n_blocks],
                          engine.key_buffer[order.astype(np.int64) * BLOCK]):
        raise AssertionError("the directory's first keys are stale")
    if np.any(count_neg < 0) or np.any(count_pos < 0) or np.any(count_neg + count_pos == 0):
        raise AssertionError("a key with a negative count or no point")
    if int(count_neg.sum()) + int(count_pos.sum()) != engine.n_points:
        raise AssertionError("n_points differs from the counts")
    return True


def _check_squares(BlockedAUCEngine engine, order, slots, starts, sizes, weight_neg,
                   weight_pos, count_neg, count_pos):
    """The placements' sums against a recomputation: unit mode the exact Q1, Q0 (Python
    integers) and zero Q buffers; weighted mode each block's M1, M0 to 1e-12 of the
    uncentred sums, every leaf and node bit for bit from its block or children, the
    root to 1e-11 of them."""
    squares, tree = engine.square_tree_buffer, engine.tree_buffer
    if not engine.weighted:
        expected = _exact_squares(count_neg.tolist(), count_pos.tolist())
        if engine.placement_squares() != expected:
            raise AssertionError(
                f"squared placements {engine.placement_squares()} != recomputed {expected}")
        return
    if engine.placement_squares() != (0, 0):
        raise AssertionError("exact Q sums left in weighted mode")
    for position in range(engine.n_blocks):
        block = order[position]
        part = slice(starts[position], starts[position] + sizes[position])
        expected, scale = _float_squares(weight_neg[part], weight_pos[part])
        for column in range(2):
            got = engine.square_aggregate_buffer[block, column]
            if abs(got - expected[column]) > 1e-12 * max(scale[column], 1e-300):
                raise AssertionError(f"block {block} M sum {column}: {got!r} != "
                                     f"{expected[column]!r}")
            if squares[engine.leaves + slots[position], column] != got:
                raise AssertionError(f"the M sums of block {block}'s leaf differ from it")
    gaps = engine.leaves + np.flatnonzero(engine.block_at_leaf_buffer < 0)
    if np.any(squares[gaps] != 0):
        raise AssertionError("a gap's M sums are not zero")
    left, right = slice(2, 2 * engine.leaves, 2), slice(3, 2 * engine.leaves, 2)
    pooled = []
    for column, (inner, outer) in enumerate(((left, right), (right, left))):
        # _square_node's arithmetic, operation for operation: class 1 (column 0) is
        # shifted by the left child's class 0 weight, class 0 by the right's class 1.
        weight_left, weight_right = tree[left, 1 - column], tree[right, 1 - column]
        both = (weight_left > 0) & (weight_right > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = (tree[outer, 2] / tree[outer, 1 - column]
                   + (2.0 * tree[inner, column] - tree[inner, 2] / tree[inner, 1 - column]))
            cross = gap * gap * (weight_left * weight_right / (weight_left + weight_right))
        plain = squares[left, column] + squares[right, column]
        pooled.append(np.where(both, plain + cross, plain))
    stale = np.flatnonzero((squares[1:engine.leaves, 0] != pooled[0])
                           | (squares[1:engine.leaves, 1] != pooled[1]))
    if stale.size:
        raise AssertionError(f"the M sums of segment node {stale[0] + 1} are stale")
    expected, scale = _float_squares(weight_neg, weight_pos)
    for column in range(2):
        bound = 1e-11 * max(scale[column], 1e-300)
        if fabs(squares[1, column] - expected[column]) > bound:
            raise AssertionError(f"M sum {column} {squares[1, column]!r} != recomputed "
                                 f"{expected[column]!r}")


def pairs_above(BlockedAUCEngine engine, double score):
    """With the placements, unit mode: 2U of the points strictly above ``score``
    (O(log n + BLOCK)); for tests."""
    cdef int32_t block, index
    if not engine.placements or engine.weighted:
        raise ValueError("pairs_above needs the placements in unit mode")
    if engine.n_blocks == 0:
        return 0.0
    block = engine.order[engine._locate(score)]
    index = engine._lower(block, score)
    if index < engine.size[block] and engine.key[block * BLOCK + index] == score:
        index += 1
    return _pairs_above(engine, block, index)


cdef double _pairs_above(BlockedAUCEngine engine, int32_t block, int32_t start) noexcept nogil:
    """Unit mode with the placements: 2U of the keys of ``block`` from index ``start``
    on (summed from its top down: each class 0 count pairs with the class 1 counts
    above it) and of every later block (``_pairs_beyond``)."""
    cdef int32_t index
    cdef int64_t pos = 0, neg = 0, pairs = 0
    cdef const int32_t* count_neg = engine.count_neg + block * BLOCK
    cdef const int32_t* count_pos = engine.count_pos + block * BLOCK
    for index in range(engine.size[block] - 1, start - 1, -1):
        pairs += count_neg[index] * (2 * pos + count_pos[index])
        pos += count_pos[index]
        neg += count_neg[index]
    return pairs_beyond(engine, block, <double>neg, <double>pairs)


def _exact_pairs(count_neg, count_pos):
    """2U of keys in increasing order with these class counts (Python integers)."""
    below = pairs = 0
    for negatives, positives in zip(count_neg, count_pos, strict=True):
        pairs += positives * (2 * below + negatives)
        below += negatives
    return pairs


def _exact_squares(count_neg, count_pos):
    """Q1 and Q0 of keys in increasing order with these class counts (Python integers)."""
    square_pos = square_neg = below = above = 0
    for negatives, positives in zip(count_neg, count_pos, strict=True):
        square_pos += positives * (2 * below + negatives) ** 2
        below += negatives
    for negatives, positives in zip(reversed(count_neg), reversed(count_pos), strict=True):
        square_neg += negatives * (2 * above + positives) ** 2
        above += positives
    return square_pos, square_neg


def _float_squares(weight_neg, weight_pos):
    """M1 and M0 of keys in increasing order with these class weights (the class's
    placement numerators centred on their weighted mean: exclusive prefix and suffix sums,
    two passes), and the uncentred Q1 and Q0, the scale of their rounding."""
    if weight_neg.size == 0:
        return (0.0, 0.0), (0.0, 0.0)
    below = np.concatenate(([0.0], np.cumsum(weight_neg)[:-1]))
    above = np.concatenate((np.cumsum(weight_pos[::-1])[::-1][1:], [0.0]))
    centred, uncentred = [], []
    for weight, own in ((weight_pos, 2.0 * below + weight_neg),
                        (weight_neg, 2.0 * above + weight_pos)):
        total = float(np.sum(weight))
        mean = float(np.sum(weight * own)) / total if total > 0 else 0.0
        centred.append(float(np.sum(weight * (own - mean) ** 2)))
        uncentred.append(float(np.sum(weight * own ** 2)))
    return tuple(centred), tuple(uncentred)
