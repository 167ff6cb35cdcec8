#!/usr/bin/env bash
# Rebuild the vendored client-side files of gdrcheck/web/static/vendor/ from npm
# (docs/web.md): @viz-js/viz's standalone build, and CodeMirror 6 bundled by esbuild
# into one script that defines the global CM (scripts/codemirror-entry.js).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
cd "$work"
npm init -y >/dev/null
npm install @viz-js/viz@3.31.0 @codemirror/view@6.43.15 @codemirror/state@6.7.6 \
  @codemirror/language@6.13.1 @codemirror/commands@6.11.1 @codemirror/lint@6.9.8 \
  @lezer/highlight@1.2.5 esbuild
cp "$here/scripts/codemirror-entry.js" entry.js
./node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=CM \
  --outfile="$here/gdrcheck/web/static/vendor/codemirror.min.js"
cp node_modules/@viz-js/viz/dist/viz-global.js "$here/gdrcheck/web/static/vendor/"
