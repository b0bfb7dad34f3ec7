#!/usr/bin/env bash
# Creates a Python venv idempotently from its requirements file:
#   scripts/setup-venv.sh         bench/.venv        (py/requirements.txt: the bm25s peer)
#   scripts/setup-venv.sh embed   bench/.venv-embed  (py/requirements-embed.txt: the
#                                 all-MiniLM-L6-v2 embeddings of bench/py/embed.py)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
requirements=py/requirements.txt
if [ "${1:-}" = embed ]; then
  venv=.venv-embed
  requirements=py/requirements-embed.txt
fi
stamp=$venv/.requirements.stamp
if [ -x $venv/bin/python ] && [ -f "$stamp" ] && cmp -s $requirements "$stamp"; then
  exit 0
fi
python3 -m venv $venv
$venv/bin/pip install --quiet --disable-pip-version-check -r $requirements
cp $requirements "$stamp"
