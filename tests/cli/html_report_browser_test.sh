#!/usr/bin/env bash
# Renders `kiln profile --html` of mobilenet_v2 and tiny_bert in headless Chromium and checks
# the pages (tests/cli/html_report_check.js); screenshots go to OUT_DIR.
#
#   tests/cli/html_report_browser_test.sh KILN MODELS_DIR OUT_DIR
#
# Needs Debian's chromium (scripts/setup.sh installs it) and node; playwright-core is installed
# from npm into OUT_DIR/node_modules on first use (never into the source tree). Exit 77 (skip)
# with a loud message when chromium, node or npm is missing.
set -euo pipefail
kiln=$1
models=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
skip() {
  echo "SKIPPED: $*" >&2
  echo "SKIPPED: $*"
  exit 77
}
chromium=${KILN_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || skip "no Chromium at $chromium (scripts/setup.sh installs Debian's chromium)"
command -v node > /dev/null || skip "node is not installed"
mkdir -p "$out"
playwright_version=1.65.1
if [ ! -f "$out/node_modules/playwright-core/package.json" ]; then
  command -v npm > /dev/null || skip "npm is not installed (needed once for playwright-core)"
  npm install --prefix "$out" --no-audit --no-fund --no-save "playwright-core@$playwright_version" \
    > "$out/npm.log" 2>&1 || skip "npm could not install playwright-core (see $out/npm.log)"
fi
export NODE_PATH="$out/node_modules"
status=0
for m in mobilenet_v2 tiny_bert; do
  model="$models/$m/model.onnx"
  [ -f "$model" ] || skip "$model not found"
  "$kiln" profile "$model" --runs 3 --html "$out/$m.html" --json > "$out/$m.json"
  node "$here/html_report_check.js" "$out/$m.html" "$out/$m.json" "$out/$m.png" || status=1
done
exit $status
