#!/usr/bin/env bash
# `npm test`: sets up what the tests need on a fresh machine, then runs every tier:
# type-check, lint, unit, integration (real sshd on loopback), end to end (real VS Code in
# headless Chromium). Prints one closing line with the totals.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh || exit 1
[ -d node_modules ] || npm ci || exit 1
mkdir -p test-output && rm -f test-output/*.log
failed=0
summary=()
step() { # name, command...
  local name=$1; shift
  echo; echo "=== $name ==="
  "$@" 2>&1 | tee "test-output/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { failed=1; summary+=("$name: exit $rc"); }
}
step build npm run -s build
step typecheck npm run -s typecheck
step lint npm run -s lint
step unit npm run -s test:unit
step integration npm run -s test:integration
[ -f scripts/e2e.sh ] && step e2e npm run -s test:e2e
passed=0; fails=0; skipped=0
for f in test-output/unit.log test-output/integration.log test-output/e2e.log; do
  [ -f "$f" ] || continue
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$f" | tail -1)
  [ -n "$line" ] || { failed=1; summary+=("$(basename "$f" .log): no result line"); continue; }
  read -r p _ fl _ s _ <<<"${line//,/}"
  passed=$((passed + p)); fails=$((fails + fl)); skipped=$((skipped + ${s:-0}))
done
echo
for s in "${summary[@]}"; do echo "FAILED $s"; done
[ "$fails" -eq 0 ] || failed=1
echo "$passed passed, $fails failed, $skipped skipped"
exit $failed
