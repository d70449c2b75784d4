"""The public layer's shared part: what several public modules and the tools on top compute alike.

Private.  Each module takes quantities every caller has (checked inputs,
class weights, ROC points and hulls, counts) and returns values or small
structures; the public modules (``metrics``, ``binned``, ``multiclass``,
``partial``, ``uncertainty``, ``streaming``) and ``dask`` import them, so a
rule is written once.  A core module may call the compiled engines; it never
imports a public module.

- :mod:`~hmeasure_stream._core.report` -- R hmeasure's report dict, its keys
  and its threshold metrics;
- :mod:`~hmeasure_stream._core.summaries` -- the mergeable per-partition
  summaries (groups of distinct scores, range pieces, hulls) of ``dask``;
- :mod:`~hmeasure_stream._core.binning` -- the binned AUC's options, alpha
  rule, histograms and result fields;
- :mod:`~hmeasure_stream._core.classes` -- multi-class labels, score matrices
  and averages;
- :mod:`~hmeasure_stream._core.partial` -- the exact partial area and its
  McClish correction;
- :mod:`~hmeasure_stream._core.delong` -- DeLong's interval and its class-size
  check;
- :mod:`~hmeasure_stream._core.text` -- values as the CSV lines the command
  line writes (shortest round-trip digits).
"""
