#!/usr/bin/env bash
# The venv of the interface libraries the contract tests' ops charms use:
# `setup.sh DIR` makes DIR/venv with requirements.txt installed; kept while
# it holds exactly those pins.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:?usage: setup.sh DIR}"
mkdir -p "$dir"
want="$(grep -v '^#' "$here/requirements.txt" | tr '\n' ' ')"
if [[ -f "$dir/.installed" && "$(cat "$dir/.installed")" == "$want" ]]; then
  exit 0
fi
rm -rf "$dir/venv"
python3 -m venv "$dir/venv"
# shellcheck disable=SC2086
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check $want >&2
echo "$want" > "$dir/.installed"
