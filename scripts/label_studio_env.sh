#!/usr/bin/env bash
# A virtualenv of its own for the real Label Studio the `label_studio`-marked tests run against
# (tests/label_studio/). Label Studio pins its own Django and friends, so it never shares the
# project's .venv. Re-running skips pip when this exact version is installed already.
#
#   ./scripts/label_studio_env.sh          # creates .venv-label-studio/ (LABEL_STUDIO_VENV to move it)
set -euo pipefail
cd "$(dirname "$0")/.."

LABEL_STUDIO_VERSION=1.23.2
LS_VENV=${LABEL_STUDIO_VENV:-.venv-label-studio}
PYTHON=${PYTHON:-python3}
stamp="$LS_VENV/.installed-label-studio"

if [ "$(cat "$stamp" 2>/dev/null)" = "$LABEL_STUDIO_VERSION" ] && [ -x "$LS_VENV/bin/label-studio" ]; then
    echo "label-studio $LABEL_STUDIO_VERSION already in $LS_VENV"
    exit 0
fi
if [ ! -x "$LS_VENV/bin/python" ]; then
    echo "creating $LS_VENV"
    "$PYTHON" -m venv "$LS_VENV"
fi
echo "installing label-studio==$LABEL_STUDIO_VERSION into $LS_VENV"
"$LS_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$LS_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "label-studio==$LABEL_STUDIO_VERSION"
echo "$LABEL_STUDIO_VERSION" > "$stamp"
