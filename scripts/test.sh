#!/usr/bin/env bash
# Run every test: installs what is missing, builds the site, then runs the six tiers
#   bash scripts/test.sh           every tier (the README's test command, and CI's)
#   bash scripts/test.sh --quick   the inner loop: lint and the CPython unit tier only (no site
#                                  build, no browsers), on every core
#   1. lint     scripts/lint.sh: ruff (configured in pyproject.toml) over the tree, mypy over
#               the core and the UI; any finding fails the run (also a pre-commit hook)
#   2. unit     tests/unit on CPython (the core and the UI logic), on both cores
#   3. pyodide  tests/unit's every_runtime modules inside real Pyodide on Node, against the built wheels,
#               then the golden model hashes on older Pyodide releases too (CPython 3.12, 3.13)
#   4. e2e      the built site in headless Chromium via Playwright (tests/e2e, with the
#               engine journeys of tests/e2e/engines in Chromium), on both cores
#   5. e2e-firefox    the every_engine journeys in Debian's firefox-esr (Playwright over BiDi)
#   6. e2e-webkitgtk  the every_engine journeys in WebKitGTK's MiniBrowser (Selenium +
#                     WebKitWebDriver); 5 and 6 run side by side, a browser on each core, and
#                     3 follows 5 on its core (2 and 4 have both cores to themselves)
# Every tier runs even if an earlier one fails; the exit code is non-zero if any failed, and a
# tier that collects no test fails. The summary gives each tier's wall time and the total.
# Property tests run Hypothesis' `ci` profile; SUBWORDLAB_HYPOTHESIS=thorough runs each test's
# full weight (tests/unit/hypothesis_budget.py).
set -euo pipefail
QUICK=""
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
if [ -n "$QUICK" ]; then SUBWORDLAB_NO_SITE=1; fi
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$ROOT"
STARTED=$SECONDS

LOGS="$ROOT/dist/test-logs"
mkdir -p "$LOGS"
declare -a SUMMARY=()
TOTAL_PASSED=0 TOTAL_FAILED=0 STATUS=0

# count LOG WORD: the number before WORD on pytest's closing line ("3 failed, 41 passed in 2.1s").
count() {
  grep -E '[0-9]+ (passed|failed|errors?)\b.* in [0-9.]+s' "$1" | tail -n 1 \
    | grep -Eo "[0-9]+ $2" | head -n 1 | cut -d' ' -f1 || true
}

# record NAME RC SECONDS: count a finished tier (its log is $LOGS/NAME.log) into the summary
record() {
  local name="$1" rc="$2" took="$3" log="$LOGS/$1.log" passed failed errors reruns
  passed=$(count "$log" passed); failed=$(count "$log" failed); errors=$(count "$log" 'errors?')
  reruns=$(count "$log" 'reruns?'); reruns=${reruns:-0}
  passed=${passed:-0}; failed=$(( ${failed:-0} + ${errors:-0} ))
  if [ "$rc" -eq 5 ]; then echo "tier $name collected no tests" >&2; fi
  if [ "$name" != lint ] && [ "$passed" -eq 0 ] && [ "$rc" -eq 0 ]; then rc=5; echo "tier $name ran no test" >&2; fi
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # a crash (or no test) counts as a failure
  TOTAL_PASSED=$((TOTAL_PASSED + passed)); TOTAL_FAILED=$((TOTAL_FAILED + failed))
  if [ "$rc" -ne 0 ]; then STATUS=1; SUMMARY+=("$(printf 'FAIL  %-14s %5d s  %s passed, %s failed (exit %s)' "$name:" "$took" "$passed" "$failed" "$rc")")
  else SUMMARY+=("$(printf 'ok    %-14s %5d s  %s passed%s' "$name:" "$took" "$passed" \
                          "$([ "$reruns" -eq 0 ] || echo ", $reruns run again after a renderer crash")")"); fi
}

# tier NAME CMD...: run a tier in the foreground, its output on the screen and in its log
tier() {
  local name="$1"; shift
  printf '\n\033[1m==== tier: %s ====\033[0m\n' "$name"
  local rc=0 t0=$SECONDS
  "$@" 2>&1 | tee "$LOGS/$name.log" || rc=${PIPESTATUS[0]}
  record "$name" "$rc" $((SECONDS - t0))
}

# run_into NAME CMD...: run a tier quietly, into its log; "rc seconds" into NAME.status
run_into() {
  local name="$1" t0=$SECONDS rc=0; shift
  "$@" > "$LOGS/$name.log" 2>&1 || rc=$?
  echo "$rc $((SECONDS - t0))" > "$LOGS/$name.status"
}

# shown NAME: print a tier's log (run with run_into) and count it into the summary
shown() {
  local name="$1" rc took
  printf '\n\033[1m==== tier: %s (side by side) ====\033[0m\n' "$name"
  cat "$LOGS/$name.log"
  read -r rc took < "$LOGS/$name.status" || { rc=1; took=0; }
  record "$name" "$rc" "$took"
}

# lint: scripts/lint.sh (ruff and mypy; both run, either one's finding fails the tier)
lint() {
  PY="$PY" bash scripts/lint.sh
}

# pyodide: the unit tests inside the page's Pyodide, then the golden model hashes on every
# Pyodide the build fetched (CPython 3.12, 3.13 and the page's 3.14); either failure fails it
pyodide() {
  local rc=0
  node tests/pyodide/run.mjs || rc=$?
  node tests/pyodide/golden_versions.mjs || { [ "$rc" -ne 0 ] || rc=1; }
  return "$rc"
}

# both cores: pytest-xdist, each worker taking tests as it frees up
CORES=(-n auto --dist worksteal)
# A browser tier runs a test once more if, and only if, the browser's renderer crashed under it
# ("Target crashed": 2 tests in 1 of 6 full Chromium runs on 2026-12-05, both at the start of
# the run, and not reproduced since; a page that crashes the renderer every time still fails).
# The summary counts the reruns.
CRASHED=(--reruns 1 --only-rerun "Target crashed" -rR)  # (-rR: the log names the tests run again)

tier lint    lint
if [ -n "$QUICK" ]; then
  tier unit    "$PY" -m pytest -q "${CORES[@]}" tests/unit
else
  tier unit    "$PY" -m pytest -q "${CORES[@]}" tests/unit
  tier e2e     "$PY" -m pytest -q "${CORES[@]}" "${CRASHED[@]}" tests/e2e
  # then a core each: Firefox's journeys and after them the Pyodide tier (one Node process) on
  # one, WebKitGTK's (the slowest engine: ~280 s against Firefox's ~150) on the other
  { run_into e2e-firefox "$PY" -m pytest -q "${CRASHED[@]}" tests/e2e/engines --engine firefox
    run_into pyodide pyodide; } &
  lane1=$!
  run_into e2e-webkitgtk "$PY" -m pytest -q "${CRASHED[@]}" tests/e2e/engines --engine webkitgtk &
  lane2=$!
  wait "$lane1" "$lane2" || true
  for name in e2e-firefox pyodide e2e-webkitgtk; do shown "$name"; done
fi

printf '\n\033[1m==== summary ====\033[0m\n'
printf '%s\n' "${SUMMARY[@]}"
echo "wall time: $((SECONDS - STARTED)) s for the tiers, $SECONDS s with setup"
echo "tests: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
exit "$STATUS"
