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
# What runs: the tests whose subject is the runtime itself, not the engine's logic (which is the
# same JavaScript on every major and runs once, in `npm test`): the client (fetch, AbortSignal,
# streams), webhook verification (WebCrypto, node:crypto), msw's interceptors, the sandbox's
# fetch and its closing (WeakRef, FinalizationRegistry, Symbol.dispose: native on 24, not 20),
# the testing kit's sandbox and matchers (`await using`, vitest's expect), the examples (spawned
# on that node), the idle-observer guard (V8's coverage API), and the server's Node-facing files:
# node:http and node:https, sockets, CORS, the edges, the data folder and libsql's native binding
# (data-store). Left out, run once by `npm test`: the engine's logic (state machines, settings,
# tenants, webhooks' scheduling, faults, the inspector, Pix), the CLI's commands, persistence
# across restarts, the fuzzing, the docs, the package and bundle checks, the browser, parity and
# the partner backend under faults (the same JavaScript whatever the Node). scripts/runtimes.ts also
# runs the end-to-end scenario on each major against dist/.
# The server tests and the examples need `dist/` (run `npm run build` first, as `npm test` does).
set -euo pipefail
cd "$(dirname "$0")/.."

versions="${MATRIX_NODE:-22 24}"
default_tests="test/client test/webhooks test/runtime test/examples test/performance \
  test/sandbox/wiring/msw.test.ts test/sandbox/wiring/msw-package.test.ts \
  test/sandbox/wiring/close.test.ts test/sandbox/http/fetch.test.ts test/testing/sandbox.test.ts test/testing/matchers.test.ts \
  test/server/http/https.test.ts test/server/http/serve.test.ts test/server/http/cors.test.ts test/server/http/edges.test.ts \
  test/server/egress/transport.test.ts test/server/egress/transport-sockets.test.ts test/server/data/data-store.test.ts test/server/data/data-folder.test.ts test/server/egress/webhooks.test.ts"
vitest_args="${MATRIX_VITEST_ARGS:-${default_tests}}"
status=0
start_all=$(date +%s)

for v in $versions; do
  start=$(date +%s)
  echo "=== Node ${v} ==="
  # shellcheck disable=SC2016 # expanded by the inner shell, where npx has put node@${v} first on PATH
  if npx -y -p "node@${v}" -c 'node --version && node node_modules/vitest/vitest.mjs run '"${vitest_args}"; then
    echo "=== Node ${v}: passed in $(($(date +%s) - start)) s ==="
  else
    echo "=== Node ${v}: FAILED after $(($(date +%s) - start)) s ==="
    status=1
  fi
done

echo "Matrix (${versions}) took $(($(date +%s) - start_all)) s"
exit "${status}"
