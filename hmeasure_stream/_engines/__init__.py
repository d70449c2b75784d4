"""Compiled engines: private, used only by the public layer of the package.

Engines never import the public layer (``hmeasure_stream.metrics``,
``streaming``, ``cli``, ``plotting``, ``_validation``); see
``docs/implementation.rst`` for the layers.
"""
