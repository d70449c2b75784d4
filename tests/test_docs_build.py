"""The docs build: nitpicky, warnings as errors, offline, and what the pages hold.

In a file of its own, so that with ``--dist loadfile`` it runs on one worker while
the type checks of tests/test_project.py run on the other.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# Runs Sphinx with every connection off this machine refused: the docs build
# (math included) must need no network.
OFFLINE_SPHINX = """
import socket, sys

LOCAL = ("127.0.0.1", "::1", "localhost")
real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo


def connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOCAL:
        raise OSError(f"the docs build tried to reach {address!r}")
    return real_connect(self, address)


def getaddrinfo(host, *args, **kwargs):
    if host not in LOCAL and host is not None:
        raise OSError(f"the docs build tried to look up {host!r}")
    return real_getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.getaddrinfo = connect, getaddrinfo
from sphinx.cmd.build import main

sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_docs_build_nitpicky_offline(tmp_path):
    html = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE_SPHINX, "-W", "-n", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), "docs", str(html)],
        cwd=ROOT, capture_output=True, text=True,
        timeout=2400,  # generous: the machine may be shared
    )
    assert result.returncode == 0, result.stdout + result.stderr
    pages = {path.relative_to(html).as_posix(): path.read_text() for path in html.rglob("*.html")}

    # Nothing is loaded from the network: scripts, styles and images are local files.
    for name, text in pages.items():
        for kind, url in re.findall(r'<(script|link|img)\b[^>]*?(?:src|href)="([^"]+)"', text):
            assert not re.match(r"(https?:)?//", url), (name, kind, url)
    # The math is typeset by the local MathJax, on the pages with formulas.
    assert (html / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert '<script defer="defer" src="_static/mathjax/tex-mml-chtml.js' in pages[
        "implementation.html"]
    assert r"\[2U = \sum_{v \in S_0}" in pages["implementation.html"]

    # A class page documents its methods and properties, and its tables link to them.
    page = pages["generated/hmeasure_stream.DynamicAUC.html"]
    for member in ("add", "remove", "add_many", "remove_many", "roc_points", "hull", "auc",
                   "weight_neg", "weight_pos", "nbytes"):
        assert f'id="hmeasure_stream.DynamicAUC.{member}"' in page, member
        assert f'href="#hmeasure_stream.DynamicAUC.{member}"' in page, member
    assert "KeyError" in page
    assert "__init__" not in page
    assert 'id="hmeasure_stream.ApproxH.subset_info"' in pages[
        "generated/hmeasure_stream.ApproxH.html"]

    # The plot functions' pages show the figures their examples draw.
    for function in ("plot_roc", "plot_metrics"):
        page = pages[f"generated/hmeasure_stream.plotting.{function}.html"]
        images = re.findall(r'<img[^>]*src="([^"]+\.png)"', page)
        assert images, function
        for image in images:
            assert (html / "generated" / image).is_file(), image

    # The command-line page lists every option of the program's own parser.
    import argparse

    from hmeasure_stream.cli import build_parser

    page = pages["command_line.html"]
    for action in build_parser()._actions:
        if action.dest == "help" or action.help == argparse.SUPPRESS:  # not listed
            continue
        for option in action.option_strings:
            assert f"<kbd>{option}</kbd>" in page, option
    assert (html / "generated" / "hmeasure_stream.datasets.load_default_stream.html").exists()
