# Sourced by scripts/demo.sh and scripts/test.sh: creates .venv (if missing)
# and installs the package in editable mode with the extras named in $1.
# Needs only python3 (with venv) and a C compiler; everything else comes from
# the package registries.  Says what it does on stderr (stdout is the job's),
# one line before each step, with pip's own progress shown.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
extras="${1:-}"
python_bin="${PYTHON:-python3}"
say() { printf 'set-up: %s\n' "$*" >&2; }

# A set-up that completed leaves a stamp naming the extras and the hash of
# pyproject.toml: a later run with the same ones has nothing to install (the
# editable install recompiles a changed engine when the package is imported).
stamp=".venv/.setup-${extras:-base}"
wanted=$(cksum < pyproject.toml)
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
    export PATH="$PWD/.venv/bin:$PATH"
    say "using .venv, set up already (delete .venv to start again)"
    return 0
fi

if [ ! -x .venv/bin/python ]; then
    say "creating the virtual environment .venv (a few seconds)"
    "$python_bin" -m venv .venv
fi
export PATH="$PWD/.venv/bin:$PATH"
pip_install() { python -m pip --disable-pip-version-check install "$@" >&2; }

say "updating pip (a few seconds)"
pip_install -q "pip>=23"

# Python 3.10 has no tomllib: tomli reads pyproject.toml there.
python -c "import tomllib" 2>/dev/null || pip_install -q tomli
# The requirements in pyproject.toml: those of the build, then the package's
# own with the extras asked for (an extra may name others, as test does).
requirements() {
    python - "$1" "$extras" <<'PY'
import re
import sys

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

with open("pyproject.toml", "rb") as handle:
    pyproject = tomllib.load(handle)
if sys.argv[1] == "build":
    print("\n".join(pyproject["build-system"]["requires"]))
    sys.exit()
project = pyproject["project"]
wanted, seen, found = [e for e in sys.argv[2].split(",") if e], set(), list(project["dependencies"])
while wanted:
    extra = wanted.pop()
    if extra in seen:
        continue
    seen.add(extra)
    for requirement in project["optional-dependencies"][extra]:
        own = re.fullmatch(re.escape(project["name"]) + r"\[(.*)\]", requirement)
        if own:
            wanted.extend(name.strip() for name in own.group(1).split(","))
        elif requirement not in found:
            found.append(requirement)
print("\n".join(found))
PY
}

# An editable meson-python install builds in this environment, so the build
# requirements are installed first.
say "installing the build tools: meson-python, ninja, Cython, numpy, scipy (about 1 min)"
mapfile -t build_list < <(requirements build)
pip_install "${build_list[@]}"

if [ -n "$extras" ]; then
    say "installing the dependencies of [$extras]: pytest, scikit-learn, dask, sphinx, ... (a few minutes; pip lists them as it goes)"
else
    say "checking the package's dependencies"
fi
mapfile -t dependency_list < <(requirements package)
pip_install "${dependency_list[@]}"

# Meson's configure step and the compiler's lines ("[k/N] Compiling C object
# ...") are shown as they come; pip's whole verbose output goes to
# .venv/build.log.
say "compiling the Cython engines, about 3 min on 2 idle cores; ninja counts the steps [k/N] (log in .venv/build.log)"
shown='^ *(The Meson build system|Build targets in project|\[[0-9]+/[0-9]+\] )'
set +e
python -m pip --disable-pip-version-check install -v --no-build-isolation --no-deps -e . 2>&1 \
    | tee .venv/build.log | { grep --line-buffered -E "$shown" >&2; true; }
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    say "the build failed; the end of .venv/build.log:"
    tail -n 40 .venv/build.log >&2
    exit "$status"
fi
printf '%s\n' "$wanted" > "$stamp"
say "done: .venv is ready"
