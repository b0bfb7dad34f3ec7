#!/usr/bin/env bash
# Creates bench/.venv (Python peer bm25s) idempotently from py/requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=.venv/.requirements.stamp
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && cmp -s py/requirements.txt "$stamp"; then
  exit 0
fi
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r py/requirements.txt
cp py/requirements.txt "$stamp"
