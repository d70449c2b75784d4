# Sourced by scripts/demo.sh and scripts/test.sh: creates .venv (if missing)
# and installs the package in editable mode with the extras named in $1.
# Needs only python3 (with venv) and a C compiler; everything else comes from
# the package registries.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
extras="${1:-}"
python_bin="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python_bin" -m venv .venv
fi
export PATH="$PWD/.venv/bin:$PATH"
pip_quiet() { python -m pip --disable-pip-version-check -q "$@"; }
pip_quiet install "pip>=23"
# An editable meson-python install builds in this environment, so the build
# requirements (read from pyproject.toml) are installed first.
build_requires=$(python - <<'PY'
try:
    import tomllib
except ImportError:  # Python 3.10
    import subprocess, sys
    subprocess.run([sys.executable, "-m", "pip", "-q", "install", "tomli"], check=True)
    import tomli as tomllib
with open("pyproject.toml", "rb") as handle:
    print("\n".join(tomllib.load(handle)["build-system"]["requires"]))
PY
)
mapfile -t build_requires_list <<< "$build_requires"
pip_quiet install "${build_requires_list[@]}"
target="."
if [ -n "$extras" ]; then
    target=".[$extras]"
fi
pip_quiet install --no-build-isolation -e "$target"
