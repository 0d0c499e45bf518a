#!/usr/bin/env python3
"""A partner's test in Python, against the sandbox server. Standard library only.

Starts `pix-usdt-sandbox serve`, waits for its JSON line, creates a user, takes a BRL -> USDT
conversion to `completed`, advances the sandbox clock, and stops the server.

Run:  python3 examples/python/partner.py
      (PIX_USDT_SANDBOX="node dist/cli.js" in this repository, after `npm run build`;
       the default is "npx pix-usdt-sandbox")
"""
import json
import os
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
import uuid


def start_server():
    """Starts `serve` on a free port and returns (process, url, api_key) once it listens."""
    command = shlex.split(os.environ.get("PIX_USDT_SANDBOX", "npx pix-usdt-sandbox"))
    server = subprocess.Popen(
        command + ["serve", "--port", "0", "--seed", "7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    # The server prints exactly one JSON line on stdout once it accepts connections: no sleep needed.
    line = server.stdout.readline()
    if not line:
        sys.exit(f"the server did not start (exit code {server.wait()})")
    ready = json.loads(line)
    return server, ready["url"], ready["api_key"]


class Api:
    def __init__(self, url, api_key):
        self.url = url
        self.api_key = api_key

    def call(self, method, path, body=None):
        headers = {"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"}
        if method == "POST":
            # Every mutation carries an Idempotency-Key; retrying with the same key is safe.
            headers["Idempotency-Key"] = str(uuid.uuid4())
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            # Errors come in the reference's envelope: code, message, request_id.
            envelope = json.load(error)
            raise SystemExit(f"{method} {path}: {error.code} {envelope['code']}: {envelope['message']} ({envelope['request_id']})")


def main():
    server, url, api_key = start_server()
    try:
        api = Api(url, api_key)
        print(f"sandbox at {url}")

        user = api.call("POST", "/v1/users", {
            "external_id": "python-partner-1",
            "name": "Maria Silva",
            "document_type": "cpf",
            "document_number": "529.982.247-25",
        })
        api.call("POST", f"/v1/test_helpers/users/{user['id']}/kyc", {"status": "approved"})
        print(f"user {user['id']}: KYC approved")

        quote = api.call("POST", "/v1/quotes", {
            "user_id": user["id"],
            "source_currency": "BRL",
            "target_currency": "USDT",
            "source_amount": "250.00",
            "destination_wallet_address": "0x52908400098527886E0F7030069857D2E4169EE7",
            "destination_wallet_network": "polygon",
        })
        print(f"quote {quote['id']}: {quote['source_amount']} BRL -> {quote['net_target_amount']} USDT")

        conversion = api.call("POST", f"/v1/quotes/{quote['id']}/accept", {})
        print(f"conversion {conversion['id']}: {conversion['status']}")

        # The test helper stands in for the user's bank paying the Pix charge; settle: true completes it.
        conversion = api.call("POST", f"/v1/test_helpers/conversions/{conversion['id']}/simulate-onramp-pix-paid", {"settle": True})
        print(f"conversion {conversion['id']}: {conversion['status']}")
        assert conversion["status"] == "completed", conversion

        # Time travel: one day later, by the sandbox clock.
        before = api.call("GET", "/v1/test_helpers/clock")["now"]
        after = api.call("POST", "/v1/test_helpers/clock/advance", {"seconds": 86400})["now"]
        print(f"clock: {before} -> {after}")

        wallet = api.call("GET", f"/v1/users/{user['id']}/wallet")
        print(f"wallet: {wallet['balance']} {wallet['asset']}")
    finally:
        # SIGTERM: the server finishes what is in flight and exits 0.
        server.terminate()
        server.wait(timeout=10)
    print("done")


if __name__ == "__main__":
    main()
