"""Sphinx configuration of the hmeasure_stream documentation."""

import hmeasure_stream

project = "hmeasure_stream"
author = "hmeasure_stream developers"
copyright = "2026, hmeasure_stream developers"
release = hmeasure_stream.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_nb",
]

# The example notebooks are executed while the docs build, so the pages show
# what the current code produces; an error in a cell fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300

autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = {"all", "GL01", "GL02", "SA01", "ES01", "EX01", "RT02", "PR02"}
numpydoc_validation_checks -= {"all"}
# Members of a class are covered by the class's own Examples and See Also.
numpydoc_validation_exclude = {r"\.[A-Z]\w*\.\w+$"}
intersphinx_mapping = {}

html_theme = "pydata_sphinx_theme"
html_title = "hmeasure_stream"
html_theme_options = {"navigation_with_keys": False}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
nitpicky = False
