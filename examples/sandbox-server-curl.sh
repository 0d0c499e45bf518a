#!/usr/bin/env bash
# The sandbox as an HTTP server, used from curl: any language can test against it.
# Run: bash examples/sandbox-server-curl.sh   (after npm run build; partners: npx pix-usdt-sandbox serve)
set -euo pipefail
cd "$(dirname "$0")/.."

# Start on a free port; the one JSON line on stdout says where and with which key.
exec 3< <(node dist/cli.js serve --port 0 --seed 7 2>/dev/null)
server_pid=$!
# Scratch files in a folder of our own (under $TMPDIR), removed on exit with the server.
work=$(mktemp -d)
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
read -r ready <&3
url=$(node -e 'console.log(JSON.parse(process.argv[1]).url)' "$ready")
key=$(node -e 'console.log(JSON.parse(process.argv[1]).api_key)' "$ready")
echo "sandbox listening at $url"

# Every mutation carries an Idempotency-Key; sending the same one again replays the answer.
create_user() {
  curl -sS -X POST "$url/v1/users" \
    -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -H 'Idempotency-Key: curl-example-1' \
    -d '{"external_id":"curl-1","name":"Curl User","document_type":"cpf","document_number":"52998224725"}' \
    -D - -o "$work/user.json" | tr -d '\r' | grep -iE '^(HTTP|idempotent-replayed)' || true
}
create_user
create_user
node -e 'const u=require(process.argv[1]); console.log(`user ${u.id} kyc=${u.kyc_status} document=${u.document_masked}`)' "$work/user.json"

# Errors come in the reference's envelope, with a request id.
curl -sS "$url/v1/users/not-a-uuid" -H "Authorization: Bearer $key"
echo
curl -sS "$url/v1/users" -H 'Authorization: Bearer sk_test_wrong'
echo
