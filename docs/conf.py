"""Sphinx configuration of the hmeasure_stream documentation.

The docs build offline: the math is typeset by a copy of MathJax installed
from PyPI (no CDN), and no inventory is fetched from other projects' sites
(``intersphinx_mapping`` is empty; references to numpy, pandas and matplotlib
are plain text).  The test suite builds them with ``-W -n`` and no network.
"""

from pathlib import Path

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
    "matplotlib.sphinxext.plot_directive",
    "sphinxarg.ext",
]

# The example notebooks are executed while the docs build, so the pages show
# what the current code produces; an error in a cell fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300

# -- API pages ----------------------------------------------------------------
# One page per function and class (templates in _templates/autosummary): a
# class page documents its methods and properties, listed in tables at the top.
autosummary_generate = True
autodoc_member_order = "groupwise"
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = {"all", "GL01", "GL02", "SA01", "ES01", "EX01", "RT02", "PR02"}
numpydoc_validation_checks -= {"all"}
# Members of a class are covered by the class's own Examples and See Also.
numpydoc_validation_exclude = {r"\.[A-Z]\w*\.\w+$"}
# Examples that import matplotlib become plot directives: the page shows the
# code and the figure it draws.
numpydoc_use_plots = True
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 144)]
plot_rcparams = {"savefig.bbox": "tight"}

# -- Cross-references ----------------------------------------------------------
# Every reference must resolve (sphinx -n).  Types of other projects are named
# in docstrings for the reader; without network there is no inventory to link
# them to, so they are listed here instead of being reported.
nitpicky = True
intersphinx_mapping = {}
nitpick_ignore_regex = [(r"py:.*", r"(numpy|pandas|matplotlib|scipy|sklearn)(\..*)?")]


def _resolve_public_names(app, env, node, contnode):
    """Resolve ``binned_auc`` written in a submodule's docstring as the public
    ``hmeasure_stream.binned_auc`` (the name under which it is documented)."""
    if node.get("refdomain") != "py" or node["reftarget"].startswith("hmeasure_stream."):
        return None
    target = node["reftarget"].lstrip("~.")
    domain = env.get_domain("py")
    for prefix in ("hmeasure_stream.", "hmeasure_stream.plotting."):
        resolved = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                       prefix + target, node, contnode)
        if resolved is not None:
            return resolved
    return None


# -- Math without network ------------------------------------------------------
# MathJax 3 is copied from the static files of the django-static-mathjax
# package (plain files, it needs no Django) into _static/mathjax.
import mathjax  # noqa: E402

_MATHJAX = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
mathjax_path = "mathjax/tex-mml-chtml.js"


def _copy_mathjax(app, exception):
    """Copy the one combined MathJax component used, and what it loads lazily."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util.fileutil import copy_asset

    target = Path(app.outdir) / "_static" / "mathjax"
    copy_asset(_MATHJAX / "tex-mml-chtml.js", target)
    for part in ("a11y", "adaptors", "input", "output", "sre", "ui"):
        copy_asset(_MATHJAX / part, target / part)


def setup(app):
    app.connect("missing-reference", _resolve_public_names)
    app.connect("build-finished", _copy_mathjax)


# -- HTML ----------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "hmeasure_stream"
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]
# One sidebar, on the left: the whole table of contents (see the template),
# then the sections of the page.  Without a second sidebar on the right, the
# article is wide enough for code of 90 columns at 1280 px.
html_theme_options = {
    "navigation_with_keys": False,
    "navbar_center": [],
    "secondary_sidebar_items": [],
    "show_toc_level": 2,
}
html_sidebars = {"**": ["sidebar-site-nav.html", "page-toc.html"]}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
# Curly quotes and ellipses, but "--priors" stays two hyphens (no en dash):
# the command-line page quotes options inside the parser's help texts.
smartquotes_action = "qe"
