"""The browser client's protocol modules (the JavaScript SDK's, clients/js/src, served at
/sdk/), run in Chromium against the Python references: delta.js against
echoridge_protocol.delta (random and real views, malformed deltas), and fairness.js against
echoridge_protocol.fairness (SHA-256 with and without Web Crypto, HMAC, commitments, seeds,
salts, the generator's test vector, transcripts whole and tampered)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from echoridge.simulate import play_random, table_seeds
from echoridge.transcript import Recorder
from echoridge_protocol import fairness
from echoridge_protocol.delta import DeltaError, apply, diff
from echoridge_rules import SPECTATOR, Seat, view
from tests.conftest import RedisServer
from tests.e2e.conftest import start_server
from tests.protocol.test_delta import BAD_DELTAS, VIEW
from tests.web.conftest import SERVER_OPTIONS, base_url


@pytest.fixture(scope="module")
def module_page(
    browser: Any, redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """A page of the client, served by a real server, with its modules imported."""
    log = tmp_path_factory.mktemp("server") / "server.log"
    server = start_server(redis_server.url, log, *SERVER_OPTIONS)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(base_url(server) + "/")
        page.wait_for_selector("#create-form")
        page.evaluate(
            """async () => {
                window.mods = {
                    delta: await import('/sdk/delta.js'),
                    fairness: await import('/sdk/fairness.js'),
                    sha: await import('/sdk/sha256.js'),
                };
            }"""
        )
        yield page
        assert not errors, errors
    finally:
        context.close()
        server.stop()


# --- deltas ---------------------------------------------------------------------------------------


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randrange(-5, 2**53)
    if kind == 2:
        return rng.choice(["", "a", "b", "__proto__", "constructor", "ünï", "x" * 5])
    if kind == 3:
        return rng.randrange(4)
    if kind in (4, 5):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    keys = ["a", "b", "c", "__proto__", "toString", "0", ""]
    return {k: random_value(rng, depth + 1) for k in rng.sample(keys, rng.randrange(len(keys)))}


def mutate(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.8:
        out = dict(value)
        key = rng.choice(list(out))
        if rng.random() < 0.2:
            del out[key]
        else:
            out[key] = mutate(rng, out[key])
        if rng.random() < 0.2:
            out[rng.choice(["new", "__proto__", "z"])] = random_value(rng, 2)
        return out
    if isinstance(value, list) and value and rng.random() < 0.8:
        out = list(value)
        i = rng.randrange(len(out))
        out[i] = mutate(rng, out[i])
        if rng.random() < 0.3:
            out = out[: rng.randrange(len(out) + 1)]
        elif rng.random() < 0.3:
            out += [random_value(rng, 2)]
        return out
    return random_value(rng)


def test_delta_js_applies_what_delta_py_diffs(module_page: Any) -> None:
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        old = random_value(rng)
        new = mutate(rng, old)
        cases.append([old, diff(old, new), new])
    failures = module_page.evaluate(
        """(text) => {
            const cases = JSON.parse(text);  // as the page gets frames: own keys, even __proto__
            const bad = [];
            cases.forEach(([old, ops, want], i) => {
                const before = JSON.stringify(old);
                const got = window.mods.delta.apply(old, ops);
                if (JSON.stringify(old) !== before) bad.push([i, 'mutated its input']);
                if (!same(got, want)) bad.push([i, JSON.stringify(got), JSON.stringify(want)]);
            });
            function same(a, b) {
                if (Array.isArray(a) !== Array.isArray(b)) return false;
                if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return a === b;
                if (Array.isArray(a)) {
                    return a.length === b.length && a.every((x, i) => same(x, b[i]));
                }
                const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
                return JSON.stringify(ka) === JSON.stringify(kb)
                    && ka.every((k) => same(a[k], b[k]));
            }
            return bad;
        }""",
        json.dumps(cases),
    )
    assert failures == []


def real_views() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    seeds = table_seeds(11, 0, 3)
    out = []
    for n, (_cmd, _events, state) in enumerate(play_random(3, seeds.game_seed, seeds.table)):
        if n % 3 == 0:
            out.append((view(state, Seat(1)), view(state, SPECTATOR)))
    return out


def test_delta_js_follows_a_real_game(module_page: Any) -> None:
    views = real_views()
    for pick in (0, 1):
        first = views[0][pick]
        steps = [[diff(a[pick], b[pick]), b[pick]] for a, b in itertools.pairwise(views)]
        result = module_page.evaluate(
            """(text) => {
                const [first, steps] = JSON.parse(text);
                let v = first;
                for (const [i, [ops, want]] of steps.entries()) {
                    v = window.mods.delta.apply(v, ops);
                    if (JSON.stringify(sort(v)) !== JSON.stringify(sort(want))) return i;
                }
                return -1;
                function sort(x) {
                    if (Array.isArray(x)) return x.map(sort);
                    if (!x || typeof x !== 'object') return x;
                    return Object.keys(x).sort().map((k) => [k, sort(x[k])]);
                }
            }""",
            json.dumps([first, steps]),
        )
        assert result == -1, f"step {result} differs"


def json_cases() -> dict[str, Any]:
    out = {}
    for name, ops in BAD_DELTAS.items():
        wire = json.loads(json.dumps(ops))
        try:
            apply(copy.deepcopy(VIEW), wire)
        except DeltaError:
            out[name] = wire
    return out


def test_delta_js_refuses_what_delta_py_refuses(module_page: Any) -> None:
    cases = json_cases()
    assert len(cases) >= 20
    outcome = module_page.evaluate(
        """(text) => {
            const [view, cases] = JSON.parse(text);
            const out = {};
            for (const [name, ops] of Object.entries(cases)) {
                const before = JSON.stringify(view);
                try {
                    window.mods.delta.apply(view, ops);
                    out[name] = 'applied';
                } catch (err) {
                    out[name] = err.code === 'protocol/bad_delta' && JSON.stringify(view) === before
                        ? 'refused' : `wrong: ${err}`;
                }
            }
            return out;
        }""",
        json.dumps([VIEW, cases]),
    )
    assert outcome == dict.fromkeys(cases, "refused")


# --- fairness -------------------------------------------------------------------------------------


def test_sha256_and_hmac_with_and_without_web_crypto(module_page: Any) -> None:
    rng = random.Random(3)
    lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]
    datas = [bytes(rng.randrange(256) for _ in range(n)) for n in lengths]
    keys = [bytes(rng.randrange(256) for _ in range(n)) for n in (0, 16, 32, 64, 65, 100)]
    got = module_page.evaluate(
        """async ([datas, keys]) => {
            const f = window.mods.fairness;
            const sha = [], hm = [];
            for (const d of datas) {
                const b = f.fromHex(d);
                const web = await f.sha256(b, {webCrypto: true});
                sha.push([f.toHex(window.mods.sha.sha256Sync(b)), f.toHex(web)]);
                for (const k of keys) {
                    const kb = f.fromHex(k);
                    hm.push([f.toHex(window.mods.sha.hmacSha256Sync(kb, b)),
                             f.toHex(await f.hmacSha256(kb, b, {webCrypto: true}))]);
                }
            }
            return {sha, hm, webCrypto: f.usingWebCrypto};
        }""",
        [[d.hex() for d in datas], [k.hex() for k in keys]],
    )
    assert got["webCrypto"] is True  # http://127.0.0.1 is a secure context
    assert [a for a, _ in got["sha"]] == [hashlib.sha256(d).hexdigest() for d in datas]
    assert [b for _, b in got["sha"]] == [hashlib.sha256(d).hexdigest() for d in datas]
    want = [hmac.new(k, d, hashlib.sha256).hexdigest() for d in datas for k in keys]
    assert [a for a, _ in got["hm"]] == want and [b for _, b in got["hm"]] == want


def test_commitments_seeds_salts_and_draws_match_the_reference(module_page: Any) -> None:
    server_seed = bytes(range(32))
    client_seeds = [bytes([7] * 16), bytes(range(40))]
    seed = fairness.game_seed(server_seed, "t-001", client_seeds)
    labels = ["token/3,4", "murderer", "deck/0", "trait/gang", "look/2/1", "ünicode"]
    got = module_page.evaluate(
        """async ([serverSeed, clientSeeds, labels]) => {
            const f = window.mods.fairness;
            const seed = await f.gameSeed(serverSeed, 't-001', clientSeeds);
            const salts = [], commits = [], plain = [];
            for (const label of labels) {
                const s = await f.salt(seed, 't-001', label);
                salts.push(s);
                commits.push(await f.commit(label, 'S07', s));
                plain.push(await f.commit(label, 'S07', s, {webCrypto: false}));
            }
            const draws = [];
            const vectorSeed = new Uint8Array(32).map((_, i) => i);
            for (let n = 0; n < 8; n++) draws.push(await f.drawBelow(vectorSeed, 't-001', n, 6));
            const big = [];
            for (let n = 0; n < 5; n++) big.push(await f.drawBelow(seed, 't-001', n, 2 ** 53 - 1));
            return {seed: f.toHex(seed), salts, commits, plain, draws, big,
                    serverCommit: await f.serverSeedCommit(serverSeed)};
        }""",
        [server_seed.hex(), [c.hex() for c in client_seeds], labels],
    )
    assert got["seed"] == seed.hex()
    salts = [fairness.salt(seed, "t-001", label) for label in labels]
    assert got["salts"] == [s.hex() for s in salts]
    commits = [
        fairness.commit(label, "S07", s).hex() for label, s in zip(labels, salts, strict=True)
    ]
    assert got["commits"] == commits and got["plain"] == commits
    assert got["draws"] == [5, 2, 4, 2, 3, 4, 1, 0]  # SPEC.md §10's test vector
    assert got["big"] == [fairness.draw_below(seed, "t-001", n, 2**53 - 1) for n in range(5)]
    assert got["serverCommit"] == fairness.server_seed_commit(server_seed).hex()


def a_transcript() -> dict[str, Any]:
    seeds = table_seeds(5, 1, 2)
    recorder = Recorder(seeds.table, seeds.server_seed, seeds.client_seeds)
    state = None
    for cmd, events, after in play_random(2, seeds.game_seed, seeds.table):
        recorder.record(getattr(cmd, "seat", None), cmd, events, after)
        state = after
    assert state is not None
    return json.loads(json.dumps(recorder.transcript(state)))


def test_transcripts_verify_and_tampering_is_caught(module_page: Any) -> None:
    good = a_transcript()
    bad_salt = copy.deepcopy(good)
    proof = bad_salt["final"]["secrets"]["proofs"][0]
    proof["salt"] = ("0" if proof["salt"][0] != "0" else "1") + proof["salt"][1:]
    bad_murderer = copy.deepcopy(good)
    bad_murderer["final"]["result"]["murderer"] = next(
        s for s in ("S01", "S02") if s != good["final"]["result"]["murderer"]
    )
    bad_draw = copy.deepcopy(good)
    entry = next(e for e in bad_draw["entries"] if e["draws"])
    index, bound, value = entry["draws"][0]
    entry["draws"][0] = [index, bound, (value + 1) % bound]
    bad_seed = copy.deepcopy(good)
    bad_seed["server_seed"] = "00" * 32
    reports = module_page.evaluate(
        """async (text) => {
            const ts = JSON.parse(text);
            const out = [];
            for (const t of ts) out.push(await window.mods.fairness.verifyTranscript(t));
            return out;
        }""",
        json.dumps([good, bad_salt, bad_murderer, bad_draw, bad_seed]),
    )
    ok, salt, murderer, draw, seed = reports
    assert ok["ok"] and ok["problem"] is None and len(ok["checks"]) == 5, ok
    assert not salt["ok"] and "salt" in salt["problem"]
    assert not murderer["ok"] and "murderer" in murderer["problem"]
    assert not draw["ok"] and f"draw {index}" in draw["problem"]
    assert not seed["ok"] and "server seed" in seed["problem"]


def test_the_verifier_checks_reveals_on_the_spot(module_page: Any) -> None:
    s = bytes(range(16))
    digest = fairness.commit("deck/0", "S03", s).hex()
    proof = {"label": "deck/0", "value": "S03", "salt": s.hex()}
    view_ok = {"commitments": {"deck/0": digest}, "proofs": [], "you": {"proofs": [proof]}}
    view_bad = copy.deepcopy(view_ok)
    view_bad["you"]["proofs"][0]["value"] = "S04"
    view_uncommitted = {"commitments": {}, "proofs": [view_ok["you"]["proofs"][0]], "you": None}
    got = module_page.evaluate(
        """async (views) => {
            const out = [];
            for (const v of views) {
                const verifier = new window.mods.fairness.Verifier();
                try {
                    const fresh = await verifier.check(v);
                    out.push(['ok', fresh, verifier.suspect('S03')]);
                } catch (err) {
                    out.push(['failed', verifier.failed]);
                }
            }
            return out;
        }""",
        [view_ok, view_bad, view_uncommitted],
    )
    assert got[0] == ["ok", 1, True]
    assert got[1] == ["failed", "deck/0 = S04 does not open its commitment"]
    assert got[2] == ["failed", "deck/0 was revealed but never committed"]


def test_the_pages_modules_are_all_served(module_page: Any) -> None:
    clients = Path(__file__).resolve().parents[2] / "clients"
    names = sorted(f"/js/{p.name}" for p in (clients / "web" / "js").glob("*.js"))
    names += sorted(f"/sdk/{p.name}" for p in (clients / "js" / "src").glob("*.js"))
    loaded = module_page.evaluate(
        """async (names) => {
            const out = [];
            for (const n of names) {
                try {
                    await import(n);
                    out.push(n);
                } catch (err) {
                    out.push(n + ': ' + err);
                }
            }
            return out;
        }""",
        names,
    )
    assert loaded == names
