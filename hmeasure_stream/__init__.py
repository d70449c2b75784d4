"""hmeasure_stream: exact AUC and Hand's H-measure over streams and sliding windows.

The from-scratch reference functions work on whole arrays:

- :func:`auc` -- area under the ROC curve (Mann-Whitney, ties count one half);
- :func:`h_measure` -- Hand's H-measure on the ROC convex hull;
- :func:`roc_hull` -- the vertices of the ROC convex hull;
- :func:`hmeasure_report` -- R hmeasure's summary of one classifier.
"""

from hmeasure_stream.metrics import auc, h_measure, hmeasure_report, roc_hull

__version__ = "0.1.0.dev0"

__all__ = ["__version__", "auc", "h_measure", "hmeasure_report", "roc_hull"]
