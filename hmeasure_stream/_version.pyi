# _version.py is written by the build (meson's configure_file): its type for mypy.
__version__: str
