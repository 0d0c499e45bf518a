#!/usr/bin/env bash
# Runtime matrix (issue 6): the unit tests and the examples on other Node majors, using npm's
# `node` packages (`npx -p node@22`), next to the machine's Node (20) that `npm test` covers.
# vitest's CLI runs under that node binary; its worker threads, and the examples and servers
# the tests spawn with `process.execPath`, use it too.
#
#   scripts/matrix.sh              # Node 22 and 24
#   MATRIX_NODE="22" scripts/matrix.sh
#   MATRIX_VITEST_ARGS="test/client" scripts/matrix.sh
#
# The fuzzing campaigns (test/fuzz/http-*.fuzz.test.ts) are left out: they test the engine's
# logic, not the runtime, and cost a minute each; the fixed fuzz corpus still runs. So is the
# packed-tarball consumer (test/package/consumer.test.ts): a minute of TypeScript compiling the
# same code whatever the Node; scripts/runtimes.ts imports the package on each major instead. And
# the docs check (test/docs/guides.test.ts): a TypeScript program over every ts block of the docs
# and an `npm install` of the quick start in a fresh project, about 30 s that `npm test` spends
# once; neither depends on the Node that runs vitest.
# The bundle test needs `dist/` (run `npm run build` first, as `npm test` does).
set -euo pipefail
cd "$(dirname "$0")/.."

versions="${MATRIX_NODE:-22 24}"
vitest_args="${MATRIX_VITEST_ARGS:-}"
status=0
start_all=$(date +%s)

for v in $versions; do
  start=$(date +%s)
  echo "=== Node ${v} ==="
  # shellcheck disable=SC2016 # expanded by the inner shell, where npx has put node@${v} first on PATH
  if npx -y -p "node@${v}" -c 'node --version && node node_modules/vitest/vitest.mjs run --exclude "test/fuzz/http-*.fuzz.test.ts" --exclude test/package/consumer.test.ts --exclude test/docs/guides.test.ts '"${vitest_args}"; then
    echo "=== Node ${v}: passed in $(($(date +%s) - start)) s ==="
  else
    echo "=== Node ${v}: FAILED after $(($(date +%s) - start)) s ==="
    status=1
  fi
done

echo "Matrix (${versions}) took $(($(date +%s) - start_all)) s"
exit "${status}"
