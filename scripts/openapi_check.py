"""The OpenAPI conformance check (run by scripts/openapi-check, which prepares the virtualenv).

Starts the real release binary on a fresh data dir, validates GET /api/openapi.json with
openapi-spec-validator, prepares real credentials through the binary's own CLI and API, and runs
Schemathesis over every operation of the document once per credential:

    anonymous   no credentials (Schemathesis still generates random values for the security schemes)
    api-key     scheme apiKey (X-API-Key): a key from POST /api/generate-key (once the server has it)
    session     scheme session (cookie fanhub_session) of a registered, signed-in user, plus
                Sec-Fetch-Site: same-origin as the app's own pages send, so cookie writes reach their
                handlers instead of the CSRF 403
    admin       scheme adminKey (X-Admin-Key): a key from `fanhub admin-key --data-dir DIR`

These passes run against a server whose Roblox lookups go to the fake Roblox. One more pass,
`outage`, runs against a second server whose Roblox, Discord and language-model addresses all
point at a closed local port, with the api-key and admin credentials: there the operations of
NEEDS_UPSTREAM may answer their documented 502/503 (and only those 5xx); every other operation
must still answer without a 5xx.

Credentials are given to Schemathesis per security scheme ([auth.openapi.NAME] in a per-pass
schemathesis.toml), so it sends them exactly to the operations that declare that scheme and knows
them when it probes missing or wrong credentials (checks ignored_auth, negative_data_rejection).

Operations that would destroy the credential of the pass running them are left out of that pass
and run last, each in a pass of its own (see DESTRUCTIVE): once they have revoked the credential,
the rest of their examples see the documented 401s. Every operation is run in every pass
otherwise; the list of operations comes from the document, so new endpoints are covered as soon
as they are documented.

Fails (exit 1) on any Schemathesis failure or error, or an invalid document.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "negative_data_rejection",
    "positive_data_acceptance",
    "missing_required_header",
    "unsupported_method",
    "ignored_auth",
]

# The other built-in checks: stateful resource checks that need links between operations, which
# the document does not declare, and a check that needs OPTIONS answers, which the site does not give.
ALL_CHECKS = CHECKS + [
    "allow_header_conformance",
    "use_after_free",
    "ensure_resource_availability",
    "object_level_authorization",
]

# operationId -> the passes it must not run in before the end, and why.
DESTRUCTIVE = {
    "logout": ("session", "ends the session the session pass uses"),
    "revokeAdminKey": ("admin", "may revoke the admin key the admin pass uses (ids are small integers)"),
    "revokeApiKey": ("api-key", "may revoke the API key the api-key pass uses"),
}


# operationId -> why a schema-valid request may still be refused with 400: rules over the site's
# data or the request as a whole that JSON Schema cannot state. Only positive_data_acceptance is
# off for these; every other check still runs on them.
DATA_RULES = {
    "v1SearchWiki": "category must name an existing command or guide category",
    "v1ListCommands": "category must name an existing command category",
    "activateBanner": "text and background colours need a contrast of at least 4.5:1",
    "v1Leaderboard": "generation must name one of the site's generations ([classification.generations] in site.toml)",
    "v1ReportAbuse": "targetUsername must differ from reporterUsername",
    "saveAlerts": "the webhook must exist at Discord: the server sends a test message and saves only what Discord took (unreachable here: 502)",
}


# operationId -> the answers, besides 2xx and 401/403/404, that schema-valid data may get there,
# and why. Only the listed statuses are allowed: a 400 still fails positive_data_acceptance.
POSITIVE_ALSO = {
    "submitAdvertisement": (
        ["413", "415", "429"],
        "the image part must be a real PNG, JPEG, WebP or GIF picture (random bytes get 415); "
        "5 submissions an hour per IP (429); every text part is checked as documented first",
    ),
}


# operationId -> why a 503 is a documented, deliberate answer there, not a server error: the
# Roblox lookups keep under the site's own Roblox budget and say so with 503 and Retry-After once
# the fuzzing has spent it (the fake Roblox itself never refuses).
BUDGETED = {
    "newgenCheck": "the site's Roblox budget (site.toml [roblox.budgets]) is spent",
    "botAnalyze": "the site's Roblox budget (site.toml [roblox.budgets]) is spent",
    "botQuickCheck": "the site's Roblox budget (site.toml [roblox.budgets]) is spent",
}


# operationId -> the 5xx answers it documents when an upstream it needs (Roblox) is unreachable;
# allowed in the outage pass only.
NEEDS_UPSTREAM = {
    "newgenCheck": ["502", "503"],
    "botAnalyze": ["502", "503"],
    "botQuickCheck": ["502", "503"],
    "v1ScanGroup": ["502", "503"],
    "saveAlerts": ["502"],
}


# operationId -> the 5xx it answers in every pass because the service it must reach is not
# there in the conformance run (Discord: the webhook's test message), documented.
UNREACHABLE_HERE = {
    "saveAlerts": ["502"],
}


def log(msg: str) -> None:
    print(f"[openapi-check] {msg}", flush=True)


def request(base: str, method: str, path: str, body: dict | None = None, headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    req.add_header("Sec-Fetch-Site", "same-origin")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def cookie_from(headers, name: str) -> str:
    for value in headers.get_all("Set-Cookie") or []:
        m = re.match(rf"{name}=([^;]*)", value)
        if m and m.group(1):
            return m.group(1)
    raise SystemExit(f"no {name} cookie in the answer")


class Server:
    def __init__(self, binary: Path, data_dir: Path, env: dict):
        self.binary = binary
        self.data_dir = data_dir
        self.log_path = data_dir.parent / f"server-{data_dir.name}.log"
        self.log_file = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(binary), "serve", "--addr", "127.0.0.1:0", "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=self.log_file,
            env=env,
        )
        line = self.proc.stdout.readline().decode().strip()
        m = re.fullmatch(r"fanhub listening on (http://\S+:\d+)", line)
        if not m:
            self.stop()
            raise SystemExit(f"the server did not start (first line {line!r}); log: {self.log_path}")
        self.base = m.group(1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log_file.close()


def validate_document(doc: dict) -> None:
    from openapi_spec_validator import validate

    validate(doc)
    ids = [
        op.get("operationId")
        for item in doc["paths"].values()
        for method, op in item.items()
        if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace")
    ]
    missing = [i for i in ids if not i]
    repeated = sorted({i for i in ids if i and ids.count(i) > 1})
    if missing or repeated:
        raise SystemExit(f"operationIds: {len(missing)} missing, repeated: {repeated}")
    log(f"document valid (OpenAPI {doc['openapi']}, {len(doc['paths'])} paths, {len(ids)} operations)")


def operation_ids(doc: dict) -> set[str]:
    return {
        op["operationId"]
        for item in doc["paths"].values()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op
    }


def prepare_credentials(server: Server, doc: dict, env: dict) -> dict[str, tuple[dict, list[str]]]:
    """Pass name -> ({security scheme: credential}, extra CLI arguments)."""
    passes: dict[str, tuple[dict, list[str]]] = {"anonymous": ({}, [])}
    ops = operation_ids(doc)
    if "generateApiKey" in ops:
        status, headers, body = request(server.base, "POST", "/api/generate-key", {"name": "conformance check"})
        if status != 201:
            raise SystemExit(f"POST /api/generate-key answered {status}: {body[:300]!r}")
        passes["api-key"] = ({"apiKey": json.loads(body)["apiKey"]["key"]}, [])
    else:
        log("the server has no POST /api/generate-key yet: no api-key pass")
    user = {"username": "conformance_user", "password": "conformance-password"}
    status, _, body = request(server.base, "POST", "/api/auth/register", user)
    if status != 201:
        raise SystemExit(f"register answered {status}: {body[:300]!r}")
    status, headers, body = request(server.base, "POST", "/api/auth/login", user)
    if status != 200:
        raise SystemExit(f"login answered {status}: {body[:300]!r}")
    session = cookie_from(headers, "fanhub_session")
    passes["session"] = ({"session": session}, ["-H", "Sec-Fetch-Site: same-origin"])
    out = subprocess.run(
        [str(server.binary), "admin-key", "--data-dir", str(server.data_dir), "--name", "conformance check"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    m = re.search(r"\bfha_[0-9a-f]+\b", out)
    if not m:
        raise SystemExit(f"no admin key in the output of `fanhub admin-key`: {out!r}")
    passes["admin"] = ({"adminKey": m.group(0)}, [])
    return passes


def schemathesis(venv_bin: Path, url: str, name: str, credentials: dict, args: list[str], max_time: int, opts, server_errors=None) -> bool:
    """server_errors: operationId -> the 5xx statuses allowed there in this pass (else BUDGETED's)."""
    report = opts.report_dir / f"{name}.junit.xml"
    config = opts.report_dir / f"{name}.schemathesis.toml"
    # Checks are chosen here, not with --checks: checks named on the command line would override
    # the per-operation settings below.
    toml = "[checks]\n" + "".join(f"{c}.enabled = {'true' if c in CHECKS else 'false'}\n" for c in ALL_CHECKS)
    # Schemathesis's own list of rejections, and the server's bounds on a request's size: invalid
    # data sent as a long enough address (a query parameter repeated a hundred times) is refused
    # 414 before any handler reads it, a rejection like any other (documented on every operation).
    toml += 'negative_data_rejection.expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431", "5xx"]\n\n'

    # No stateful phase: the document declares no links, and the links Schemathesis infers feed
    # strings of answers (like the bot API's list of path templates) into parameters as if they
    # were schema-valid.
    toml += "[phases.stateful]\nenabled = false\n\n"
    toml += "".join(f'[auth.openapi.{scheme}]\napi_key = "{value}"\n\n' for scheme, value in credentials.items())
    for op in DATA_RULES:
        toml += f'[[operations]]\ninclude-operation-id = "{op}"\nchecks.positive_data_acceptance.enabled = false\n\n'
    for op, (statuses, _) in POSITIVE_ALSO.items():
        expected = ", ".join(f'"{s}"' for s in ["2xx", "401", "403", "404", *statuses])
        toml += f'[[operations]]\ninclude-operation-id = "{op}"\nchecks.positive_data_acceptance.expected-statuses = [{expected}]\n\n'
    allowed = server_errors if server_errors is not None else {**{op: ["503"] for op in BUDGETED}, **UNREACHABLE_HERE}
    for op, statuses in allowed.items():
        expected = ", ".join(f'"{s}"' for s in ["2xx", "3xx", "4xx", *statuses])
        toml += f'[[operations]]\ninclude-operation-id = "{op}"\nchecks.not_a_server_error.expected-statuses = [{expected}]\n\n'
    config.write_text(toml)
    cmd = [
        str(venv_bin / "schemathesis"),
        "--config-file",
        str(config),
        "run",
        url,
        "--max-examples",
        str(opts.max_examples),
        "--max-time",
        str(max_time),
        "--workers",
        str(opts.workers),
        "--seed",
        str(opts.seed),
        "--request-timeout",
        "30",
        "--no-color",
        "--suppress-health-check",
        "all",
        "--report",
        "junit",
        "--report-junit-path",
        str(report),
        "--generation-database",
        "none",
        *args,
    ]
    log(f"pass {name}: credentials {', '.join(credentials) or 'none'}; schemathesis run ... {' '.join(args)}")
    started = time.monotonic()
    rc = subprocess.run(cmd, env={**os.environ, "SCHEMATHESIS_TELEMETRY": "false"}).returncode
    log(f"pass {name}: exit {rc} in {time.monotonic() - started:.0f}s")
    return rc == 0


def outage_pass(opts, env: dict, tmp: Path) -> bool:
    """The outage pass: a fresh server whose Roblox, Discord and language-model addresses all point
    at a local port that refuses connections (bound, never listening, so nothing else takes it)."""
    closed = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    closed.bind(("127.0.0.1", 0))
    nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}"
    env = {
        **env,
        "FANHUB_ROBLOX_API": nowhere + "/{service}",
        "FANHUB_DISCORD_TOKEN": "conformance-outage",
        "FANHUB_DISCORD_API": nowhere + "/api/v10",
        "FANHUB_LLM_URL": nowhere + "/v1",
        "FANHUB_LLM_MODEL": "conformance-outage",
    }
    server = Server(opts.bin, tmp / "outage-data", env)
    ok = True
    try:
        log(f"outage pass: server at {server.base}; Roblox, Discord and the LLM at {nowhere} (closed)")
        _, _, body = request(server.base, "GET", "/api/openapi.json")
        doc = json.loads(body)
        ops = operation_ids(doc)
        passes = prepare_credentials(server, doc, env)
        credentials = {**passes.get("api-key", ({}, []))[0], **passes["admin"][0]}
        args = [a for op in DESTRUCTIVE if op in ops for a in ("--exclude-operation-id", op)]
        allowed = {op: statuses for op, statuses in NEEDS_UPSTREAM.items() if op in ops}
        url = f"{server.base}/api/openapi.json"
        ok = schemathesis(opts.venv_bin, url, "outage", credentials, args, opts.max_time_outage, opts, server_errors=allowed)
        if server.proc.poll() is not None:
            log(f"the outage server died during the check; log: {server.log_path}")
            ok = False
    finally:
        server.stop()
        closed.close()
    if not ok:
        log(f"outage pass FAILED; server log: {server.log_path}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", type=Path, required=True)
    parser.add_argument("--venv-bin", type=Path, required=True)
    parser.add_argument("--fake-roblox", type=Path, required=True, help="the fake Roblox program (examples/fake_roblox.rs)")
    parser.add_argument("--max-examples", type=int, default=8)
    parser.add_argument("--max-time", type=int, default=45, help="seconds per pass over all operations")
    parser.add_argument("--max-time-single", type=int, default=10, help="seconds per pass over one operation")
    parser.add_argument("--max-time-outage", type=int, default=30, help="seconds for the outage pass over all operations")
    # One worker: Python 3.11.7 (this machine's python3) raises "SystemError: AST constructor
    # recursion depth mismatch" now and then when two of Schemathesis's threads parse at once.
    # Each pass is capped by --max-time, so one worker runs fewer examples, not longer.
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", help="comma-separated passes to run (anonymous, api-key, session, admin, outage)")
    parser.add_argument("--report-dir", type=Path, default=None)
    opts = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="fanhub-openapi-"))
    opts.report_dir = opts.report_dir or tmp / "reports"
    opts.report_dir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FANHUB_")}
    # Nothing leaves the machine: Roblox lookups go to the fake Roblox, so they answer as documented
    # (a closed port would make every lookup a 502).
    fake = subprocess.Popen([str(opts.fake_roblox), "--no-cookie-needed"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    fake_line = fake.stdout.readline().strip()
    if not fake_line.startswith("fake-roblox listening on "):
        fake.kill()
        raise SystemExit(f"the fake Roblox did not start (first line {fake_line!r})")
    env["FANHUB_ROBLOX_API"] = fake_line.removeprefix("fake-roblox listening on ") + "/{service}"
    # With a phrase set, the secret-phrase endpoints do their real work instead of answering 503.
    env["FANHUB_ADMIN_PHRASE"] = "conformance check phrase"
    env["RUST_LOG"] = "warn"
    # The passes run side by side from one address, and the anonymous one sends a wrong X-API-Key on
    # every keyed call: at the default 20 a minute, the address's keyed calls would all answer 429 and
    # the api-key pass would check little else. (tests/testsuite/developer_api.rs checks the limit.)
    env["FANHUB_WRONG_API_KEYS_PER_MINUTE"] = "1000000"
    try:
        server = Server(opts.bin, tmp / "data", env)
    except BaseException:
        fake.kill()
        raise
    ok = True
    try:
        log(f"server at {server.base}, data in {tmp}")
        status, _, body = request(server.base, "GET", "/api/openapi.json")
        if status != 200:
            raise SystemExit(f"GET /api/openapi.json answered {status}")
        doc = json.loads(body)
        validate_document(doc)
        passes = prepare_credentials(server, doc, env)
        order = ["anonymous", "api-key", "session", "admin"]
        only = set(opts.only.split(",")) if opts.only else {*order, "outage"}
        url = f"{server.base}/api/openapi.json"
        ops = operation_ids(doc)
        started = time.monotonic()
        for name in order:
            if name not in passes or name not in only:
                continue
            excluded = [op for op, (pass_name, _) in DESTRUCTIVE.items() if pass_name == name and op in ops]
            credentials, args = passes[name]
            for op in excluded:
                args = [*args, "--exclude-operation-id", op]
            ok &= schemathesis(opts.venv_bin, url, name, credentials, args, opts.max_time, opts)
        for op, (name, why) in DESTRUCTIVE.items():
            if name in passes and name in only and op in ops:
                log(f"{op} last: it {why}")
                credentials, args = passes[name]
                args = [*args, "--include-operation-id", op]
                ok &= schemathesis(opts.venv_bin, url, f"{name}-{op}", credentials, args, opts.max_time_single, opts)
        if server.proc.poll() is not None:
            log(f"the server died during the check; log: {server.log_path}")
            ok = False
    finally:
        server.stop()
        fake.terminate()
        fake.wait()
    if not ok:
        log(f"FAILED; server log: {server.log_path}")
    if "outage" in only:
        ok &= outage_pass(opts, env, tmp)
    log(f"all passes took {time.monotonic() - started:.0f}s; JUnit reports in {opts.report_dir}")
    if ok and not os.environ.get("FANHUB_KEEP_CHECK_DIR"):
        shutil.rmtree(tmp / "data", ignore_errors=True)
        shutil.rmtree(tmp / "outage-data", ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
