#!/usr/bin/env bash
# Refreshes the vendored chessground (GPL-3.0-or-later, github.com/lichess-org/chessground):
# the built module and its three style sheets, with its licence and version.
#   crates/server/assets/vendor/refresh-chessground.sh [VERSION]
set -euo pipefail
version="${1:-10.4.1}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack "@lichess-org/chessground@${version}" >/dev/null
tar xzf lichess-org-chessground-*.tgz
out="$here/chessground"
mkdir -p "$out"
cp package/dist/chessground.min.js "$out/"
cp package/assets/chessground.base.css package/assets/chessground.brown.css \
   package/assets/chessground.cburnett.css "$out/"
cp package/LICENSE "$out/LICENSE"
echo "$version" > "$out/VERSION"
echo "chessground $version vendored in $out"
