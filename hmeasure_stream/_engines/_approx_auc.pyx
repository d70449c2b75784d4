"""Approximate AUC from a (1 + epsilon)-compressed list: the engine of ApproxAUC.

Tatti, "Efficient estimation of AUC in a sliding window", Secs. 3-4.

Label convention.  The paper scores label 0 *higher* ("the larger s_i, the
more we believe l_i = 0") and builds its lists over the nodes holding
label-1 points, the class that scores lower; its Eq. 1,
auc = sum_s (hp(s) + p(s) / 2) n(s) / A with hp(s) the label-1 points below
s, is the probability that a label-0 point outscores a label-1 point.  In
this package class 1 scores higher.  The score order is kept as it is and
the labels are mirrored: the paper's label 1 ("p", the *listed* class) is
our class 0 and its label 0 ("n", the *other* class) our class 1.  Then hp(s)
is the class 0 count below s and Eq. 1 is exactly our AUC, the probability
that a class 1 point outscores a class 0 point, ties one half.  With
``flip`` (``relative_to="1-auc"``) the roles are swapped back: the lists are
over class 1, Eq. 1 is then 1 - auc, and the estimate returned is one minus
the paper's estimate (the remark after Prop. 1), within epsilon (1 - auc) / 2.

Structures (Sec. 3.1). The score tree T is the score treap of ``AUCEngine``
(one node per distinct score, class counts at the node and per subtree).
Instead of the paper's second tree TP of the listed nodes, MAXPOS (the
listed node with the largest score <= s) is a descent on T that follows the
subtree counts of the listed class, and gathers on the way HEADSTATS (Alg.
1) of the score and of the node found. The weighted linked lists P (every
node holding a listed point) and C (the compressed subset of P) live in flat
buffers indexed by *entry* = treap slot + 2, beside the treap's own buffers:
the list nodes are the treap's nodes, so no pool of their own is needed.
Entries 0 and 1 are the paper's sentinels of score -inf and +inf, always
first and last in both lists. P is doubly linked and keeps the gap counter
gn(v; P) of the other class; its gp(v; P) is p(v) by definition (the next
listed node ends the gap), so it is not stored. C is singly linked (every
removal from C knows the predecessor from its walk) and keeps both gap
counters.

Updates (Sec. 4.2) keep C (1 + epsilon)-compressed, Eqs. 3-4: a point of
the other class changes one gap counter of P (found by MAXPOS) and one of C
(found by walking C); a listed point may make one pair of C violate Eq. 3
(insertion) or several (deletion), each repaired by ADDNEXT (Alg. 5, Lemma
1), and COMPRESS (Alg. 6) then removes every middle entry that Eq. 4 allows.
The pseudo-code of Algs. 7-8 is followed with the order of the steps
arranged so that every gap counter is exact at each step: the tree and P
change first when a point arrives, C first when a listed point leaves (its
node may leave T).  ``_check`` recomputes every counter and both equations.

The estimate (APPROXAUC, Alg. 4) walks C once, O(|C|), in exact integer
arithmetic.  Unit weights only: Lemma 1 relies on counts changing by one.
The exact AUC of ``AUCEngine`` (Props 1-2 of the companion paper) is kept
as well, at no extra cost: it is the ``auc`` column, the estimate the
``auc_approx`` column.
"""

import numpy as np

from libc.math cimport INFINITY, NAN
from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._approx_auc cimport (
    FIRST_SLOT_ENTRY,
    HEAD,
    NOT_LISTED,
    TAIL,
    entry_count,
    within,
)
from hmeasure_stream._engines._auc cimport AUCEngine
from hmeasure_stream._engines._pool cimport Slot
from hmeasure_stream._engines._protocol cimport DONE, NOT_PRESENT, WEIGHT_EXCEEDS
from hmeasure_stream._engines._treap cimport (
    NodeSums,
    slot_count,
    subtree_weight,
)

from hmeasure_stream._engines._pool import grown_buffer


cdef class ApproxAUCEngine(AUCEngine):
    """AUC within epsilon auc / 2 (or epsilon (1 - auc) / 2); see the module docstring.

    Parameters
    ----------
    epsilon : float
        The compression: C is (1 + epsilon)-compressed.
    flip : bool
        Build the lists over class 1 and estimate 1 - auc (``relative_to="1-auc"``).
    capacity : int
        Initial number of node slots of the treap (grown by doubling).
    seed : int, optional
        Seed of the treap's priorities (the lists do not depend on it).
    """

    def __cinit__(self, *args, **kwargs):
        self.p_next = NULL
        self.entries = 0
        self.compressed_entries = 0

    def __init__(self, double epsilon, bint flip=False, Py_ssize_t capacity=16, seed=None):
        AUCEngine.__init__(self, capacity, seed)
        if not epsilon > 0.0:
            raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
        self.epsilon = epsilon
        self.alpha = 1.0 + epsilon
        self.flip = flip
        self._sync()
        # The sentinels: P = C = (-inf, +inf), empty gaps.
        self.p_next[HEAD] = TAIL
        self.p_prev[HEAD] = -1
        self.p_next[TAIL] = -1
        self.p_prev[TAIL] = HEAD
        self.c_next[HEAD] = TAIL
        self.c_next[TAIL] = -1

    def _sync(self):
        """Grow the list buffers to the treap's capacity + 2 (new entries: in no list)."""
        cdef Py_ssize_t new = self.tree.capacity + FIRST_SLOT_ENTRY
        if new == self.entries and self.p_next != NULL:
            return
        if new > self.entries:
            self.p_next_buffer = grown_buffer(self.p_next_buffer, new, np.int32, NOT_LISTED)
            self.p_prev_buffer = grown_buffer(self.p_prev_buffer, new, np.int32, NOT_LISTED)
            self.c_next_buffer = grown_buffer(self.c_next_buffer, new, np.int32, NOT_LISTED)
            self.gap_other_p_buffer = grown_buffer(self.gap_other_p_buffer, new, np.int64, 0)
            self.gap_listed_c_buffer = grown_buffer(self.gap_listed_c_buffer, new, np.int64, 0)
            self.gap_other_c_buffer = grown_buffer(self.gap_other_c_buffer, new, np.int64, 0)
            self.entries = <int32_t>new
        self._bind()

    def _bind(self):
        cdef int32_t[::1] p_next = self.p_next_buffer
        cdef int32_t[::1] p_prev = self.p_prev_buffer
        cdef int32_t[::1] c_next = self.c_next_buffer
        cdef int64_t[::1] gap_other_p = self.gap_other_p_buffer
        cdef int64_t[::1] gap_listed_c = self.gap_listed_c_buffer
        cdef int64_t[::1] gap_other_c = self.gap_other_c_buffer
        self.p_next = &p_next[0]
        self.p_prev = &p_prev[0]
        self.c_next = &c_next[0]
        self.gap_other_p = &gap_other_p[0]
        self.gap_listed_c = &gap_listed_c[0]
        self.gap_other_c = &gap_other_c[0]

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        # (AUCEngine refuses weights other than 1, as the compressed list needs.)
        AUCEngine._reserve(self, new_points, weighted)
        if self.entries != self.tree.capacity + FIRST_SLOT_ENTRY:
            self._sync()
        return 0

    # ------------------------------------------------------------------
    # Reading a node through the paper's labels.

    cdef double _key(self, int32_t entry) noexcept nogil:
        if entry == HEAD:
            return -INFINITY
        if entry == TAIL:
            return INFINITY
        return self.tree.sums[entry - FIRST_SLOT_ENTRY].key

    cdef int32_t _max_listed(self, double key, int64_t* other_below_key,
                             int64_t* other_below_found, int32_t* at_key) noexcept nogil:
        """MAXPOS(s): the entry of the listed node w with the largest score <= ``key``.

        HEAD when there is none.  One descent of the treap: every node with a
        score <= ``key`` on the path is, with its left subtree, a candidate
        (later candidates have larger scores); the best holds a listed point
        itself or in its left subtree, whose rightmost listed node is then
        found by following the subtree counts of the listed class.  On the
        way it accumulates HEADSTATS (Alg. 1) of the other class for ``key``
        and for w (0 for HEAD), and reports the node holding ``key`` (or -1),
        so an insertion needs no further descent.
        """
        cdef int32_t node = self.tree.root, best = -1, child
        cdef bint best_is_subtree = False
        cdef int64_t below = 0, best_below = 0
        # p(v), n(v) and their subtree sums: the listed class is class 1 when ``flip``.
        cdef const Slot* slots = self.tree.slots
        cdef const NodeSums* sums = self.tree.sums
        cdef bint listed = self.flip
        at_key[0] = -1
        while node >= 0:
            if sums[node].key > key:
                node = slots[node].left
                continue
            child = slots[node].left
            if slot_count(slots, listed, node) > 0:
                best = node
                best_is_subtree = False
                best_below = below
                if child >= 0:
                    best_below += <int64_t>subtree_weight(sums, not listed, child)
            elif child >= 0 and subtree_weight(sums, listed, child) > 0.0:
                best = child
                best_is_subtree = True
                best_below = below
            if child >= 0:
                below += <int64_t>subtree_weight(sums, not listed, child)
            if sums[node].key == key:
                at_key[0] = node
                break
            below += slot_count(slots, not listed, node)
            node = slots[node].right
        other_below_key[0] = below
        if best < 0:
            other_below_found[0] = 0
            return HEAD
        if best_is_subtree:
            node = best
            while True:
                child = slots[node].right
                if child >= 0 and subtree_weight(sums, listed, child) > 0.0:
                    if slots[node].left >= 0:
                        best_below += <int64_t>subtree_weight(sums, not listed, slots[node].left)
                    best_below += slot_count(slots, not listed, node)
                    node = child
                elif slot_count(slots, listed, node) > 0:
                    if slots[node].left >= 0:
                        best_below += <int64_t>subtree_weight(sums, not listed, slots[node].left)
                    break
                else:
                    node = slots[node].left
            best = node
        other_below_found[0] = best_below
        return best + FIRST_SLOT_ENTRY

    cdef int32_t _find_compressed(self, double key, int32_t* previous,
                                  int64_t* listed_before) noexcept nogil:
        """The entry u of C with the largest score <= ``key``, its predecessor and hp(u).

        A walk of C from the head: O(|C|).
        """
        cdef int32_t entry = HEAD, following
        cdef int64_t below = 0
        cdef const NodeSums* sums = self.tree.sums
        previous[0] = -1
        while True:
            following = self.c_next[entry]
            if following == TAIL or sums[following - FIRST_SLOT_ENTRY].key > key:
                break
            below += self.gap_listed_c[entry]
            previous[0] = entry
            entry = following
        listed_before[0] = below
        return entry

    cdef void _add_next(self, int32_t entry) noexcept nogil:
        """ADDNEXT (Alg. 5): put the entry's successor in P into C after it.

        The entry's gap in C splits at the successor: the part before it is
        the entry's gap in P, (p(v), gn(v; P)).
        """
        cdef int32_t following = self.p_next[entry]
        cdef int64_t listed = entry_count(self.tree.slots, self.flip, entry)
        if self.c_next[following] != NOT_LISTED:
            return  # already in C (the tail always is)
        self.gap_listed_c[following] = self.gap_listed_c[entry] - listed
        self.gap_other_c[following] = self.gap_other_c[entry] - self.gap_other_p[entry]
        self.gap_listed_c[entry] = listed
        self.gap_other_c[entry] = self.gap_other_p[entry]
        self.c_next[following] = self.c_next[entry]
        self.c_next[entry] = following
        self.compressed_entries += 1

    cdef void _compress(self) noexcept nogil:
        """COMPRESS (Alg. 6): drop every middle entry w of v, w, u with Eq. 4 violated.

        hp(u) = c + gp(v) + gp(w) <= alpha (hp(v) + p(v)) means v and u already
        satisfy Eq. 3, so w goes and its gap joins v's.  O(|C|).
        """
        cdef int32_t entry = HEAD, middle, last
        cdef int64_t below = 0
        while True:
            middle = self.c_next[entry]
            if middle == TAIL:
                return
            last = self.c_next[middle]
            if within(below + self.gap_listed_c[entry] + self.gap_listed_c[middle],
                      below + entry_count(self.tree.slots, self.flip, entry), self.alpha):
                self.gap_listed_c[entry] += self.gap_listed_c[middle]
                self.gap_other_c[entry] += self.gap_other_c[middle]
                self.c_next[entry] = last
                self.c_next[middle] = NOT_LISTED
                self.gap_listed_c[middle] = 0
                self.gap_other_c[middle] = 0
                self.compressed_entries -= 1
            else:
                below += self.gap_listed_c[entry]
                entry = middle

    cdef void _restore_eq3(self) noexcept nogil:
        """Lines 7-14 of REMOVEPOS (Alg. 8): ADDNEXT after every entry that violates Eq. 3.

        One ADDNEXT per violated pair suffices (Lemma 1); the pair it makes
        with the added entry holds, so the walk goes on from the old successor.
        """
        cdef int32_t entry = HEAD, following
        cdef int64_t below = 0, gap
        while True:
            following = self.c_next[entry]
            if following < 0:
                return
            gap = self.gap_listed_c[entry]
            if not within(below + gap, below + entry_count(self.tree.slots, self.flip, entry),
                          self.alpha):
                self._add_next(entry)
            below += gap
            entry = following

    # ------------------------------------------------------------------
    # Updates.

    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil:
        """One point in or out (a slot reserved, unit weight); returns its Status."""
        cdef int32_t node = -1
        if not adding:
            node = self.tree.find(score)
            if node < 0 or slot_count(self.tree.slots, is_pos, node) == 0:
                return NOT_PRESENT
            if weight != 1.0:
                return WEIGHT_EXCEEDS   # every point present weighs 1
        if is_pos == self.flip:
            if adding:
                return self._add_listed(is_pos, score)
            return self._remove_listed(is_pos, score, node)
        return self._update_other(is_pos, score, adding)

    cdef int _update_other(self, bint is_pos, double score, bint adding) except -1 nogil:
        """A point of the other class: ADDTREENEG / REMOVETREENEG and one gap of C."""
        cdef int32_t previous, at_key
        cdef int64_t change = 1 if adding else -1, below, other_below_key, other_below_found
        cdef int32_t holder = self._max_listed(score, &other_below_key, &other_below_found,
                                               &at_key)
        self._tree_update(is_pos, score, 1.0, adding)
        self.gap_other_p[holder] += change
        holder = self._find_compressed(score, &previous, &below)
        self.gap_other_c[holder] += change
        return DONE

    cdef int _add_listed(self, bint is_pos, double score) except -1 nogil:
        """ADDPOS (Alg. 7) with ADDTREEPOS (Alg. 3)."""
        cdef int32_t entry, following, previous, holder, at_key
        cdef int32_t new_slot = self.tree.free_head   # taken if the score is new
        cdef int64_t other_below_key, other_below_before, below
        cdef int32_t before = self._max_listed(score, &other_below_key, &other_below_before,
                                               &at_key)
        self._tree_update(is_pos, score, 1.0, True)
        if before < FIRST_SLOT_ENTRY or self._key(before) != score:
            # A new listed node v: split the gap of w = MAXPOS(s) in P at s; the
            # other class in [s(w), s) is HEADSTATS(s) - HEADSTATS(s(w)).
            entry = (at_key if at_key >= 0 else new_slot) + FIRST_SLOT_ENTRY
            following = self.p_next[before]
            self.p_next[before] = entry
            self.p_prev[entry] = before
            self.p_next[entry] = following
            self.p_prev[following] = entry
            self.gap_other_p[entry] = (self.gap_other_p[before]
                                       - (other_below_key - other_below_before))
            self.gap_other_p[before] = other_below_key - other_below_before
        # C: one more listed point in the gap of u; only the pair (u, next(u)) can
        # now violate Eq. 3 (Sec. 4.2), and ADDNEXT repairs it.
        holder = self._find_compressed(score, &previous, &below)
        self.gap_listed_c[holder] += 1
        if not within(below + self.gap_listed_c[holder],
                      below + entry_count(self.tree.slots, self.flip, holder), self.alpha):
            self._add_next(holder)
        self._compress()
        return DONE

    cdef int _remove_listed(self, bint is_pos, double score, int32_t node) except -1 nogil:
        """REMOVEPOS (Alg. 8) with REMOVETREEPOS (Alg. 2)."""
        cdef int32_t entry = node + FIRST_SLOT_ENTRY, previous, holder, following, before
        cdef int64_t below
        cdef bint leaves = entry_count(self.tree.slots, self.flip, entry) == 1
        holder = self._find_compressed(score, &previous, &below)
        self.gap_listed_c[holder] -= 1
        if leaves and holder == entry:
            # v leaves P, so it leaves C: its successor in P takes its place
            # (ADDNEXT, then REMOVE).  Before v's gap in C, [s(v), s(w)) now
            # holds no listed point and gn(v; P) of the other class; that part
            # joins the predecessor's gap, the rest is w's.
            following = self.p_next[entry]
            if self.c_next[following] == NOT_LISTED:
                self.gap_listed_c[following] = self.gap_listed_c[entry]
                self.gap_other_c[following] = (self.gap_other_c[entry]
                                               - self.gap_other_p[entry])
                self.c_next[following] = self.c_next[entry]
                self.gap_other_c[previous] += self.gap_other_p[entry]
                self.c_next[previous] = following
            else:
                self.gap_listed_c[previous] += self.gap_listed_c[entry]
                self.gap_other_c[previous] += self.gap_other_c[entry]
                self.c_next[previous] = self.c_next[entry]
                self.compressed_entries -= 1
            self.c_next[entry] = NOT_LISTED
            self.gap_listed_c[entry] = 0
            self.gap_other_c[entry] = 0
        if leaves:
            # REMOVE(P, v): its gap joins the predecessor's.
            before = self.p_prev[entry]
            following = self.p_next[entry]
            self.gap_other_p[before] += self.gap_other_p[entry]
            self.p_next[before] = following
            self.p_prev[following] = before
            self.p_next[entry] = NOT_LISTED
            self.p_prev[entry] = NOT_LISTED
            self.gap_other_p[entry] = 0
        # The treap last: the node may leave it (and its slot the tree).
        self._tree_update(is_pos, score, 1.0, False)
        self._restore_eq3()
        self._compress()
        return DONE

    # ------------------------------------------------------------------
    # Reading.

    cdef double _approx_auc(self) noexcept nogil:
        """APPROXAUC (Alg. 4) over C: each entry, then the group of its gap as one score.

        Twice the paper's sum a is an exact integer; one division at the end.
        """
        cdef int32_t root = self.tree.root, entry = HEAD
        cdef int64_t below = 0, twice_area = 0, listed, other, total_listed, total_other
        if root < 0:
            return NAN
        if self.flip:
            total_listed = <int64_t>self.tree.sums[root].subtree_pos
            total_other = <int64_t>self.tree.sums[root].subtree_neg
        else:
            total_listed = <int64_t>self.tree.sums[root].subtree_neg
            total_other = <int64_t>self.tree.sums[root].subtree_pos
        if total_listed == 0 or total_other == 0:
            return NAN
        while entry >= 0:
            listed = entry_count(self.tree.slots, self.flip, entry)
            other = entry_count(self.tree.slots, not self.flip, entry)
            twice_area += (2 * below + listed) * other
            below += listed
            listed = self.gap_listed_c[entry] - listed
            other = self.gap_other_c[entry] - other
            twice_area += (2 * below + listed) * other
            below += listed
            entry = self.c_next[entry]
        if self.flip:
            # The paper's estimate is of 1 - auc; return one minus it.
            twice_area = 2 * total_listed * total_other - twice_area
        return <double>twice_area / (2.0 * <double>total_listed * <double>total_other)

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """The estimate and the exact AUC into ``out[row]`` (``columns``)."""
        out[row, 0] = self._approx_auc()
        out[row, 1] = self._auc()

    cdef object _read(self):
        return self._approx_auc()

    @property
    def auc_approx(self):
        """The estimate; walks C, so it claims the structure like an update."""
        return self.read()

    @property
    def columns(self):
        return ("auc_approx", "auc")

    @property
    def nbytes(self):
        """Bytes of the treap and of the list buffers."""
        return self.tree.nbytes + sum(buffer.nbytes for buffer in self._list_buffers().values())

    def _list_buffers(self):
        return {name: getattr(self, name) for name in (
            "p_next_buffer", "p_prev_buffer", "gap_other_p_buffer", "c_next_buffer",
            "gap_listed_c_buffer", "gap_other_c_buffer")}

    def compressed_keys(self):
        """Scores of the entries of C, in order, without the sentinels."""
        keys = []
        self._check_idle()
        entry = self.c_next[HEAD]
        while entry != TAIL:
            keys.append(self.tree.sums[entry - FIRST_SLOT_ENTRY].key)
            entry = self.c_next[entry]
        return np.array(keys, dtype=np.float64)

    def _check(self):
        """Every invariant, read only, O(n): the treap and the exact 2U (``AUCEngine``);
        P is the listed nodes in order with exact gn(v; P); C a sub-list of P from head to
        tail with exact gap counters, (1 + epsilon)-compressed (Eqs. 3-4); no other
        entry in a list."""
        cdef int32_t entry, last
        AUCEngine._check(self)
        if self.entries != self.tree.capacity + FIRST_SLOT_ENTRY:
            raise AssertionError(f"{self.entries} list entries for a treap of "
                                 f"{self.tree.capacity} slots")
        _, _, _, count_neg, count_pos = self.tree.items()
        order = self.tree._in_order()
        listed = (count_pos if self.flip else count_neg).astype(np.int64)
        other = (count_neg if self.flip else count_pos).astype(np.int64)
        # hp and hn of every entry in P: sentinels 0 and the totals.
        listed_below = {HEAD: 0, TAIL: int(listed.sum())}
        other_below = {HEAD: 0, TAIL: int(other.sum())}
        for slot, hp, hn in zip(order.tolist(), (np.cumsum(listed) - listed).tolist(),
                                (np.cumsum(other) - other).tolist(), strict=True):
            listed_below[slot + FIRST_SLOT_ENTRY] = hp
            other_below[slot + FIRST_SLOT_ENTRY] = hn
        at = {HEAD: 0, TAIL: 0}
        for slot, count in zip(order.tolist(), listed.tolist(), strict=True):
            at[slot + FIRST_SLOT_ENTRY] = count
        expected = [HEAD] + [slot + FIRST_SLOT_ENTRY for slot, count
                             in zip(order.tolist(), listed.tolist(), strict=True)
                             if count > 0] + [TAIL]
        # P: the walk forwards and the back links.
        # (No negative indices: the engines are compiled without wrap-around.)
        walked = [HEAD]
        last = HEAD
        if self.p_prev[HEAD] != -1:
            raise AssertionError("the head of P has a predecessor")
        while last != TAIL:
            entry = self.p_next[last]
            if entry < 0 or entry >= self.entries or len(walked) > len(expected):
                raise AssertionError(f"P is broken after entry {last}")
            if self.p_prev[entry] != last:
                raise AssertionError(f"P's back link of entry {entry} is wrong")
            walked.append(entry)
            last = entry
        if self.p_next[TAIL] != -1:
            raise AssertionError("the tail of P has a successor")
        if walked != expected:
            raise AssertionError("P is not the listed nodes in score order")
        for current, following in zip(walked[:len(walked) - 1], walked[1:], strict=True):
            gap = other_below[following] - other_below[current]
            if self.gap_other_p[current] != gap:
                raise AssertionError(f"gn(v; P) of entry {current} is "
                                     f"{self.gap_other_p[current]}, recomputed {gap}")
        if self.gap_other_p[TAIL] != 0:
            raise AssertionError("the tail of P has a gap")
        # C: a sub-list of P from head to tail, exact gaps.
        position = {entry: index for index, entry in enumerate(walked)}
        compressed = [HEAD]
        last = HEAD
        while last != TAIL:
            entry = self.c_next[last]
            if entry not in position or position[entry] <= position[last]:
                raise AssertionError(f"C is not a sub-list of P after entry {last}")
            compressed.append(entry)
            last = entry
        if self.c_next[TAIL] != -1:
            raise AssertionError("the tail of C has a successor")
        if len(compressed) - 2 != self.compressed_entries:
            raise AssertionError(f"|C| is {len(compressed) - 2}, "
                                 f"the counter says {self.compressed_entries}")
        size = len(compressed)
        for current, following in zip(compressed[:size - 1], compressed[1:], strict=True):
            gaps = (listed_below[following] - listed_below[current],
                    other_below[following] - other_below[current])
            if (self.gap_listed_c[current], self.gap_other_c[current]) != gaps:
                raise AssertionError(f"gaps of entry {current} in C are "
                                     f"{(self.gap_listed_c[current], self.gap_other_c[current])}"
                                     f", recomputed {gaps}")
            # Eq. 3.
            if not within(listed_below[following], listed_below[current] + at[current],
                          self.alpha):
                raise AssertionError(f"Eq. 3 fails between entries {current} and {following}")
        if self.gap_listed_c[TAIL] != 0 or self.gap_other_c[TAIL] != 0:
            raise AssertionError("the tail of C has a gap")
        # Eq. 4.
        for first, third in zip(compressed[:size - 2], compressed[2:], strict=True):
            if within(listed_below[third], listed_below[first] + at[first], self.alpha):
                raise AssertionError(f"Eq. 4 fails after entry {first}: the middle could go")
        # Nothing else is listed.
        in_p = np.zeros(self.entries, dtype=bool)
        in_p[walked] = True
        in_c = np.zeros(self.entries, dtype=bool)
        in_c[compressed] = True
        if (np.any(self.p_next_buffer[~in_p] != NOT_LISTED)
                or np.any(self.p_prev_buffer[~in_p] != NOT_LISTED)
                or np.any(self.gap_other_p_buffer[~in_p] != 0)):
            raise AssertionError("an entry outside P has links or a gap")
        if (np.any(self.c_next_buffer[~in_c] != NOT_LISTED)
                or np.any(self.gap_listed_c_buffer[~in_c] != 0)
                or np.any(self.gap_other_c_buffer[~in_c] != 0)):
            raise AssertionError("an entry outside C has a link or gaps")
        return True

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_approx_auc_engine,
                (self.epsilon, self.flip, self.tree, self.twice_u, self.twice_u_compensation,
                 self.entries, self.compressed_entries, self._list_buffers(),
                 self.inverse_scale))


def _rebuild_approx_auc_engine(epsilon, flip, tree, twice_u, compensation, entries,
                               compressed_entries, buffers, inverse_scale):
    cdef ApproxAUCEngine engine = ApproxAUCEngine.__new__(ApproxAUCEngine)
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = inverse_scale
    engine.epsilon = epsilon
    engine.alpha = 1.0 + epsilon
    engine.flip = flip
    try:
        if set(buffers) != set(engine._list_buffers()):
            raise ValueError(f"list buffers {sorted(buffers)}")
        engine.entries = entries
        engine.compressed_entries = compressed_entries
        for name, buffer in buffers.items():
            buffer = np.array(buffer, copy=True)
            dtype = np.int32 if name.endswith("next_buffer") or name == "p_prev_buffer" \
                else np.int64
            if (buffer.dtype != dtype or buffer.shape != (entries,)
                    or entries != tree.capacity + FIRST_SLOT_ENTRY):
                raise ValueError(f"its {name} is {buffer.dtype} {buffer.shape}, not "
                                 f"{np.dtype(dtype)} ({tree.capacity + FIRST_SLOT_ENTRY},)")
            setattr(engine, name, buffer)
        engine._bind()
        _check_lists(engine)
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this compressed list: {error}") from None
    return engine


cdef int _check_lists(ApproxAUCEngine engine) except -1:
    """P and C run from the head to the tail within range, each entry once, C within P in
    order, P's back links right: O(n), for a pickle.  (The count of C is a statistic no
    walk relies on: ``_check`` compares it.)"""
    cdef int32_t entry, last, entries = engine.entries
    cdef Py_ssize_t length = 0
    position = np.full(entries, -1, dtype=np.int64)
    cdef int64_t[::1] position_view = position
    if engine.p_prev[HEAD] != -1:
        raise ValueError("the head of P has a predecessor")
    last = HEAD
    position_view[HEAD] = 0
    while last != TAIL:
        entry = engine.p_next[last]
        if not 0 <= entry < entries or position_view[entry] >= 0 or engine.p_prev[entry] != last:
            raise ValueError(f"P is broken after entry {last}")
        length += 1
        position_view[entry] = length
        last = entry
    if engine.p_next[TAIL] != -1:
        raise ValueError("the tail of P has a successor")
    last = HEAD
    while last != TAIL:
        entry = engine.c_next[last]
        if not 0 <= entry < entries or position_view[entry] <= position_view[last]:
            raise ValueError(f"C is not a sub-list of P after entry {last}")
        last = entry
    if engine.c_next[TAIL] != -1:
        raise ValueError("the tail of C has a successor")
    return 0
