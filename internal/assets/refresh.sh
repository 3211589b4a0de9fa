#!/usr/bin/env bash
# refresh.sh re-vendors the browser assets from npm, as package.json and
# package-lock.json pin them: `npm ci` in a temporary folder (no install
# scripts run), then the files the binary embeds are copied here. To move to
# a new version: edit the version in package.json, run
# `npm install --package-lock-only --ignore-scripts` here, run this script,
# set EChartsVersion in assets.go and run the browser tests
# (go test ./internal/report ./internal/web -run Browser).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
e="$work/node_modules/echarts"
cp "$e/dist/echarts.min.js" "$here/echarts.min.js"
cp "$e/LICENSE" "$here/LICENSE"
cp "$e/NOTICE" "$here/NOTICE"
cp "$e/licenses/LICENSE-d3" "$here/LICENSE-d3"
echo "vendored echarts $(node -p "require('$e/package.json').version") into $here"
