"""Metrics of a changing set of points, exact, updated in polylogarithmic time.

``DynamicAUC`` keeps the distinct scores in sorted blocks under a segment
tree of class weights, and maintains the Mann-Whitney statistic as Tatti,
"Maintaining AUC and H-measure over time", Sec. 4 does on a treap; the same
blocks serve the partial AUC and DeLong's variance: O(log n) per update.
``DynamicH`` also maintains the convex hull of the ROC curve (Sec. 5) and with
it the H-measure with priors from the data and the AUCH: O(log n) hull
merges per update.
``ApproxH`` keeps the same hull and computes H for priors not taken from the
data within a relative error (Sec. 6).  ``ApproxAUC`` estimates the AUC
within a relative error compression / 2 from a compressed list of score groups
(Tatti, "Efficient estimation of AUC in a sliding window").  ``SlidingWindow``
follows them over a window of a stream that arrives in chunks;
``sliding_window`` over a whole array.  ``DelayedAUC`` follows predictions
whose labels arrive late: the realized AUC of the labelled ones and the
expected AUC of all of them.
"""

from hmeasure_stream.streaming.approx_auc import ApproxAUC
from hmeasure_stream.streaming.auc import DynamicAUC
from hmeasure_stream.streaming.binned import BinnedAUC
from hmeasure_stream.streaming.delayed import DelayedAUC
from hmeasure_stream.streaming.hmeasure import ApproxH, DynamicH
from hmeasure_stream.streaming.multiclass import DynamicMulticlassAUC
from hmeasure_stream.streaming.window import WINDOW_METRICS, SlidingWindow, sliding_window

__all__ = ["WINDOW_METRICS", "ApproxAUC", "ApproxH", "BinnedAUC", "DelayedAUC", "DynamicAUC",
           "DynamicH", "DynamicMulticlassAUC", "SlidingWindow", "sliding_window"]
