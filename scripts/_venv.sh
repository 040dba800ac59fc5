# Shared by scripts/demo and scripts/test (sourced, not run): a project-local virtualenv.
# Needs only python3 (3.11+), with pip and venv; on Debian, as root, a missing venv module is
# installed with apt. Re-running reuses .venv and skips pip when the requirements are unchanged.

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

is_root_with_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

ensure_venv() {
    local requirements=$1
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found: install Python 3.11 or newer"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "Python 3.11 or newer is needed ($("$PYTHON" --version 2>&1) found; set PYTHON=python3.11)"
    if [ ! -x "$VENV/bin/python" ]; then
        say "Creating $VENV"
        if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
            rm -rf "$VENV"
            if is_root_with_apt; then
                local pkg
                pkg="python$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv"
                say "Installing $pkg with apt (the venv module is missing)"
                apt-get update -qq && { apt-get install -y -qq "$pkg" || apt-get install -y -qq python3-venv; }
            fi
            "$PYTHON" -m venv "$VENV" || die "could not create $VENV: install the venv module (apt-get install python3-venv)"
        fi
    fi
    # Skip pip when these exact requirement files were installed already.
    local stamp="$VENV/.installed-$(basename "$requirements")" digest
    digest=$(cat "$requirements" requirements.txt | sha256sum | cut -d' ' -f1)
    # requirements-dev.txt includes requirements.txt: a venv set up for the tests serves the demo.
    local dev_stamp="$VENV/.installed-requirements-dev.txt" dev_digest=
    if [ "$requirements" = requirements.txt ] && [ -f requirements-dev.txt ]; then
        dev_digest=$(cat requirements-dev.txt requirements.txt | sha256sum | cut -d' ' -f1)
        [ "$(cat "$dev_stamp" 2>/dev/null)" = "$dev_digest" ] && return 0
    fi
    if [ "$(cat "$stamp" 2>/dev/null)" != "$digest" ]; then
        say "Installing $requirements into $VENV"
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
        echo "$digest" > "$stamp"
    fi
}
