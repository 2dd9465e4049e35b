#!/usr/bin/env bash
# `npm run test:e2e`: the built extension inside a real VS Code (code-server) in headless
# Chromium, against the real loopback sshd (in-host integration suites, then DOM checks).
# Ends with one line "N passed, N failed, N skipped"; exits non-zero on any failure.
# Env: E2E_ONLY=host|ui runs one tier (ui-en: both tiers, but the DOM checks in English only;
# by default they run again with the display language zh-cn); E2E_GREP=regex filters the in-host suites;
# E2E_KEEP_TMP=1 keeps the temp user-data dir; GPU_RENT_E2E_CACHE moves the code-server cache.
set -uo pipefail
cd "$(dirname "$0")/.."
fail() { echo "e2e: $*" >&2; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || fail "Chromium is missing (${CHROMIUM_PATH:-/usr/bin/chromium}): run scripts/ensure-system-deps.sh"
setup=$(bash scripts/setup-code-server.sh) || fail "code-server setup failed (scripts/setup-code-server.sh)"
E2E_NODE=$(sed -n 's/^NODE=//p' <<<"$setup")
E2E_CODE_SERVER=$(sed -n 's/^CODE_SERVER=//p' <<<"$setup")
export E2E_NODE E2E_CODE_SERVER

# `npm run package` builds, then makes dist/gpu-rent.vsix, which the DOM checks install.
npm run -s package </dev/null >/dev/null || fail "npm run package failed (it builds the extension and the .vsix)"
# The in-host runner and suites: CommonJS for the extension host; vscode and mocha come from
# the host and the repository's node_modules, ssh2's optional native parts stay out.
rm -rf out/test
ext=(--bundle --platform=node --format=cjs --target=node18 --sourcemap --log-level=warning
     --external:vscode --external:mocha --external:cpu-features '--external:*.node')
npx esbuild test/vscode/index.ts "${ext[@]}" --outfile=out/test/index.js || fail "bundling test/vscode/index.ts failed"
suites=(test/vscode/suite/*.test.ts)
if [ -e "${suites[0]}" ]; then
  npx esbuild "${suites[@]}" "${ext[@]}" --outdir=out/test/suite || fail "bundling the in-host suites failed"
else
  mkdir -p out/test/suite
fi

exec npx tsx test/e2e/run.ts
