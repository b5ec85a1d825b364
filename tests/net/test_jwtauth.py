"""Signed tokens in hello (net/jwtauth.py): keys made here with ``cryptography`` (RSA, EC P-256,
Ed25519) and HMAC secrets are written to key files as an operator would (PEM public keys, JWKS
documents, secrets), tokens are signed with PyJWT, and every way a token can be wrong is
refused with its stable code: expired, for another audience or issuer, forged, tampered with,
unsigned, signed by "HMAC with the public key", naming an unknown key, lacking a claim, or too
long. No refusal repeats the token or the key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, HMACAlgorithm, OKPAlgorithm, RSAAlgorithm

from echoridge.net import jwtauth
from echoridge.net.jwtauth import Claims, JwtRefused, JwtVerifier, load

NOW = 1_700_000_000
AUD = "echo-ridge.example"
ISS = "https://login.example"
SECRET = b"s3cret-s3cret-s3cret-s3cret-0123"  # 32 bytes: the shortest allowed
assert len(SECRET) == 32


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def other_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture(scope="module")
def ed_key() -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.generate()


def pem(private: Any) -> bytes:
    """The PEM of the public half of ``private``."""
    data: bytes = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return data


def write(tmp_path: Path, data: bytes | str, name: str = "key") -> str:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def claims(**changes: Any) -> dict[str, Any]:
    """A good payload, with ``changes`` (a change to None leaves the claim out)."""
    payload: dict[str, Any] = {
        "sub": "player-7",
        "aud": AUD,
        "exp": NOW + 300,
        "iat": NOW - 5,
        "name": "Ada",
    }
    payload.update(changes)
    return {k: v for k, v in payload.items() if v is not None}


def sign(payload: dict[str, Any], key: Any, alg: str, **headers: Any) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (short HMAC keys, on purpose in some tests)
        return jwt.encode(payload, key, algorithm=alg, headers=headers or None)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hand_made(header: dict[str, Any], payload: dict[str, Any], secret: bytes) -> str:
    """A token signed with HMAC-SHA256 by hand, where PyJWT would refuse the key."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(mac)}"


def unsigned_token() -> str:
    """A token with ``"alg": "none"`` and no signature (RFC 7519 §6)."""
    header = b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{b64(json.dumps(claims()).encode())}."


def refused(verifier: JwtVerifier, token: Any, now: float | None = NOW) -> JwtRefused:
    with pytest.raises(JwtRefused) as info:
        verifier.verify(token, now=now)
    return info.value


@pytest.fixture
def rsa_verifier(tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> JwtVerifier:
    return load(write(tmp_path, pem(rsa_key)), audience=AUD)


@pytest.fixture
def secret_verifier(tmp_path: Path) -> JwtVerifier:
    return load(write(tmp_path, SECRET + b"\n"), audience=AUD)


# --- accepted ---------------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["RS256", "RS512", "PS256"])
def test_an_rsa_signed_token_is_accepted(
    rsa_verifier: JwtVerifier, rsa_key: rsa.RSAPrivateKey, alg: str
) -> None:
    got = rsa_verifier.verify(sign(claims(), rsa_key, alg), now=NOW)
    assert got == Claims(subject="player-7", name="Ada", expires=NOW + 300)


def test_an_ec_signed_token_is_accepted(tmp_path: Path, ec_key: ec.EllipticCurvePrivateKey) -> None:
    verifier = load(write(tmp_path, pem(ec_key)), audience=AUD)
    assert verifier.algorithms == ("ES256",)
    got = verifier.verify(sign(claims(sub="ec-1"), ec_key, "ES256"), now=NOW)
    assert (got.subject, got.name) == ("ec-1", "Ada")


def test_an_ed25519_signed_token_is_accepted(
    tmp_path: Path, ed_key: ed25519.Ed25519PrivateKey
) -> None:
    verifier = load(write(tmp_path, pem(ed_key)), audience=AUD)
    assert verifier.algorithms == ("EdDSA",)
    got = verifier.verify(sign(claims(sub="ed-1"), ed_key, "EdDSA"), now=NOW)
    assert got.subject == "ed-1"


def test_a_secret_signed_token_is_accepted_and_the_trailing_newline_is_not_the_secret(
    secret_verifier: JwtVerifier,
) -> None:
    assert secret_verifier.algorithms == ("HS256",)  # (HS384 needs 48 bytes, HS512 64)
    got = secret_verifier.verify(sign(claims(), SECRET, "HS256"), now=NOW)
    assert got.subject == "player-7"
    refused_with_newline = refused(secret_verifier, sign(claims(), SECRET + b"\n", "HS256"))
    assert refused_with_newline.code == "auth/jwt_invalid"


def test_a_long_secret_allows_the_longer_hmacs_and_a_short_one_does_not(tmp_path: Path) -> None:
    long_secret = bytes(range(64))
    verifier = load(write(tmp_path, long_secret), audience=AUD)
    assert verifier.algorithms == ("HS256", "HS384", "HS512")
    assert verifier.verify(sign(claims(), long_secret, "HS512"), now=NOW).subject == "player-7"
    short = load(write(tmp_path, SECRET, "short"), audience=AUD)
    assert refused(short, sign(claims(), SECRET, "HS384")).code == "auth/jwt_invalid"


def test_the_name_is_name_else_preferred_username_else_none(
    secret_verifier: JwtVerifier,
) -> None:
    def name_of(**changes: Any) -> str | None:
        return secret_verifier.verify(sign(claims(**changes), SECRET, "HS256"), now=NOW).name

    assert name_of() == "Ada"
    assert name_of(name=None, preferred_username="ada_l") == "ada_l"
    assert name_of(name="", preferred_username="ada_l") == "ada_l"
    assert name_of(name=None) is None
    assert name_of(name=42) is None


def test_an_audience_list_that_holds_ours_is_accepted(secret_verifier: JwtVerifier) -> None:
    token = sign(claims(aud=["other", AUD]), SECRET, "HS256")
    assert secret_verifier.verify(token, now=NOW).subject == "player-7"


def test_without_now_the_clock_is_used(secret_verifier: JwtVerifier) -> None:
    import time

    fresh = sign(claims(iat=None, exp=int(time.time()) + 300), SECRET, "HS256")
    assert secret_verifier.verify(fresh).subject == "player-7"
    stale = sign(claims(iat=None, exp=int(time.time()) - 300), SECRET, "HS256")
    assert refused(secret_verifier, stale, now=None).code == "auth/jwt_expired"


def test_the_verifier_tells_its_settings(tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    verifier = load(write(tmp_path, pem(rsa_key)), audience=AUD, issuer=ISS, leeway=5)
    assert (verifier.audience, verifier.issuer, verifier.leeway) == (AUD, ISS, 5)
    assert verifier.algorithms == ("PS256", "PS384", "PS512", "RS256", "RS384", "RS512")


# --- time -------------------------------------------------------------------------------------


def test_an_expired_token_is_refused(secret_verifier: JwtVerifier) -> None:
    token = sign(claims(exp=NOW - 31, iat=None), SECRET, "HS256")
    refusal = refused(secret_verifier, token)
    assert refusal.code == "auth/jwt_expired"
    assert secret_verifier.verify(token, now=NOW - 100).expires == NOW - 31


def test_the_leeway_allows_some_clock_skew(tmp_path: Path) -> None:
    token = sign(claims(exp=NOW - 10), SECRET, "HS256")
    assert load(write(tmp_path, SECRET), audience=AUD).verify(token, now=NOW).subject
    strict = load(write(tmp_path, SECRET), audience=AUD, leeway=0)
    assert refused(strict, token).code == "auth/jwt_expired"
    assert refused(strict, sign(claims(exp=NOW), SECRET, "HS256")).code == "auth/jwt_expired"
    assert strict.verify(sign(claims(exp=NOW + 1), SECRET, "HS256"), now=NOW).subject


@pytest.mark.parametrize("claim", ["nbf", "iat"])
def test_a_token_not_valid_yet_is_refused_as_invalid(
    secret_verifier: JwtVerifier, claim: str
) -> None:
    early = sign(claims(**{claim: NOW + 31}), SECRET, "HS256")
    assert refused(secret_verifier, early).code == "auth/jwt_invalid"
    within_leeway = sign(claims(**{claim: NOW + 29}), SECRET, "HS256")
    assert secret_verifier.verify(within_leeway, now=NOW).subject == "player-7"


@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
def test_a_time_that_is_not_a_number_is_refused(secret_verifier: JwtVerifier, claim: str) -> None:
    for bad in ("1700000300", True, [NOW]):
        token = sign(claims(**{claim: bad}), SECRET, "HS256")
        assert refused(secret_verifier, token).code == "auth/jwt_invalid"


# --- audience and issuer ----------------------------------------------------------------------


def test_a_token_for_another_audience_is_refused(secret_verifier: JwtVerifier) -> None:
    for aud in ("another-game", ["x", "y"], AUD.upper()):
        token = sign(claims(aud=aud), SECRET, "HS256")
        assert refused(secret_verifier, token).code == "auth/jwt_audience"


def test_a_token_without_an_audience_is_refused(secret_verifier: JwtVerifier) -> None:
    absent: tuple[Any, ...] = (None, "", [])
    for aud in absent:
        token = sign(claims(aud=aud), SECRET, "HS256")
        assert refused(secret_verifier, token).code == "auth/jwt_audience"


def test_the_issuer_must_match_when_it_is_set(tmp_path: Path) -> None:
    verifier = load(write(tmp_path, SECRET), audience=AUD, issuer=ISS)
    assert verifier.verify(sign(claims(iss=ISS), SECRET, "HS256"), now=NOW).subject
    for iss in ("https://evil.example", None):
        token = sign(claims(iss=iss), SECRET, "HS256")
        assert refused(verifier, token).code == "auth/jwt_audience"
    anyone = load(write(tmp_path, SECRET, "k2"), audience=AUD)
    assert anyone.verify(sign(claims(iss="whoever"), SECRET, "HS256"), now=NOW).subject


# --- forged, tampered, unsigned -----------------------------------------------------------------


def test_a_token_signed_with_another_key_is_refused(
    rsa_verifier: JwtVerifier, other_rsa_key: rsa.RSAPrivateKey, secret_verifier: JwtVerifier
) -> None:
    assert refused(rsa_verifier, sign(claims(), other_rsa_key, "RS256")).code == "auth/jwt_invalid"
    forged = sign(claims(), b"another-secret-another-secret-xx", "HS256")
    assert refused(secret_verifier, forged).code == "auth/jwt_invalid"


def test_a_tampered_payload_is_refused(
    rsa_verifier: JwtVerifier, rsa_key: rsa.RSAPrivateKey
) -> None:
    header, _, signature = sign(claims(), rsa_key, "RS256").split(".")
    payload = b64(json.dumps(claims(sub="admin")).encode())
    tampered = f"{header}.{payload}.{signature}"
    assert refused(rsa_verifier, tampered).code == "auth/jwt_invalid"


def test_an_unsigned_token_is_refused(
    rsa_verifier: JwtVerifier, secret_verifier: JwtVerifier
) -> None:
    unsigned = unsigned_token()
    assert unsigned.endswith(".")
    for verifier in (rsa_verifier, secret_verifier):
        assert refused(verifier, unsigned).code == "auth/jwt_invalid"
    for alg in ("None", "NONE"):
        header = b64(json.dumps({"alg": alg, "typ": "JWT"}).encode())
        token = f"{header}.{b64(json.dumps(claims()).encode())}."
        assert refused(rsa_verifier, token).code == "auth/jwt_invalid"


@pytest.mark.parametrize("which", ["rsa", "ec", "ed"])
def test_hmac_signed_with_the_public_key_is_refused(
    tmp_path: Path,
    rsa_key: rsa.RSAPrivateKey,
    ec_key: ec.EllipticCurvePrivateKey,
    ed_key: ed25519.Ed25519PrivateKey,
    which: str,
) -> None:
    """The algorithm-confusion attack: the public key is public, so a verifier that let the
    token's ``alg`` pick HS256 would check an HMAC keyed with the very bytes it was given."""
    public_pem = pem({"rsa": rsa_key, "ec": ec_key, "ed": ed_key}[which])
    verifier = load(write(tmp_path, public_pem), audience=AUD)
    for secret in (public_pem, public_pem.strip()):
        token = hand_made({"alg": "HS256", "typ": "JWT"}, claims(), secret)
        assert refused(verifier, token).code == "auth/jwt_invalid"
    assert not any(a.startswith("HS") for a in verifier.algorithms)
    with pytest.raises(ValueError, match="HS256"):
        load(write(tmp_path, public_pem), audience=AUD, algorithms=("HS256",))


def test_the_algorithms_can_be_narrowed(tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    verifier = load(write(tmp_path, pem(rsa_key)), audience=AUD, algorithms=("RS256",))
    assert verifier.verify(sign(claims(), rsa_key, "RS256"), now=NOW).subject
    assert refused(verifier, sign(claims(), rsa_key, "RS512")).code == "auth/jwt_invalid"
    assert refused(verifier, sign(claims(), rsa_key, "PS256")).code == "auth/jwt_invalid"


def test_none_is_never_an_algorithm_to_ask_for(tmp_path: Path) -> None:
    path = write(tmp_path, SECRET)
    for algorithms in (("none",), ("HS256", "None"), (), ("HS999",)):
        with pytest.raises(ValueError):
            load(path, audience=AUD, algorithms=algorithms)


# --- claims -----------------------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["sub", "exp"])
def test_a_token_without_sub_or_exp_is_refused(secret_verifier: JwtVerifier, missing: str) -> None:
    token = sign(claims(**{missing: None}), SECRET, "HS256")
    assert refused(secret_verifier, token).code == "auth/jwt_invalid"


def test_the_subject_is_a_short_printable_string(secret_verifier: JwtVerifier) -> None:
    ok = "p" * 128
    assert secret_verifier.verify(sign(claims(sub=ok), SECRET, "HS256"), now=NOW).subject == ok
    for sub in ("", "p" * 129, "tab\there", "line\nbreak", "\x00", 12345, ["a"]):
        token = sign(claims(sub=sub), SECRET, "HS256")
        assert refused(secret_verifier, token).code == "auth/jwt_invalid", sub


# --- form ---------------------------------------------------------------------------------------


def test_an_oversize_token_is_refused_without_parsing(
    secret_verifier: JwtVerifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = len(sign(claims(pad=""), SECRET, "HS256"))
    tokens = [sign(claims(pad="x" * extra), SECRET, "HS256") for extra in range(4096 - base + 8)]
    longest_allowed = max((t for t in tokens if len(t) <= 4096), key=len)
    shortest_refused = min((t for t in tokens if len(t) > 4096), key=len)
    assert len(longest_allowed) >= 4094 and len(shortest_refused) <= 4099
    assert secret_verifier.verify(longest_allowed, now=NOW).subject == "player-7"
    assert refused(secret_verifier, shortest_refused).code == "auth/jwt_invalid"

    def parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(jwt, "decode", parsing)
    monkeypatch.setattr(jwt, "get_unverified_header", parsing)
    refusal = refused(secret_verifier, "a" * 4097)
    assert refusal.code == "auth/jwt_invalid"
    assert "4096" in refusal.message


def test_malformed_tokens_are_refused(secret_verifier: JwtVerifier) -> None:
    for token in ("", "abc", "a.b.c", "..", "é.é.é", b"a.b.c", None, 7):
        assert refused(secret_verifier, token).code == "auth/jwt_invalid", token
    assert secret_verifier.verify(hand_made({"alg": "HS256"}, claims(), SECRET), now=NOW).subject
    critical = hand_made({"alg": "HS256", "crit": ["x-new"], "x-new": 1}, claims(), SECRET)
    assert refused(secret_verifier, critical).code == "auth/jwt_invalid"  # (RFC 7515 §4.1.11)


# --- key sets ---------------------------------------------------------------------------------


def jwks(*keys: dict[str, Any]) -> str:
    return json.dumps({"keys": list(keys)})


def rsa_jwk(key: rsa.RSAPrivateKey, **extra: Any) -> dict[str, Any]:
    return {**RSAAlgorithm.to_jwk(key.public_key(), as_dict=True), **extra}


def ec_jwk(key: ec.EllipticCurvePrivateKey, **extra: Any) -> dict[str, Any]:
    return {**ECAlgorithm.to_jwk(key.public_key(), as_dict=True), **extra}


def test_a_key_set_picks_the_key_by_kid(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey, ec_key: ec.EllipticCurvePrivateKey
) -> None:
    path = write(tmp_path, jwks(rsa_jwk(rsa_key, kid="r1"), ec_jwk(ec_key, kid="e1")))
    verifier = load(path, audience=AUD)
    assert verifier.verify(sign(claims(sub="r"), rsa_key, "RS256", kid="r1"), now=NOW).subject
    assert verifier.verify(sign(claims(sub="e"), ec_key, "ES256", kid="e1"), now=NOW).subject
    wrong_key = sign(claims(), rsa_key, "RS256", kid="e1")
    assert refused(verifier, wrong_key).code == "auth/jwt_invalid"
    unknown = sign(claims(), rsa_key, "RS256", kid="r2")
    assert refused(verifier, unknown).code == "auth/jwt_invalid"
    no_kid = sign(claims(), rsa_key, "RS256")
    assert refused(verifier, no_kid).code == "auth/jwt_invalid"


def test_a_set_of_one_key_takes_a_token_without_kid(
    tmp_path: Path, ed_key: ed25519.Ed25519PrivateKey
) -> None:
    jwk = {**OKPAlgorithm.to_jwk(ed_key.public_key(), as_dict=True), "kid": "ed"}
    verifier = load(write(tmp_path, jwks(jwk)), audience=AUD)
    assert verifier.verify(sign(claims(), ed_key, "EdDSA"), now=NOW).subject == "player-7"
    assert verifier.verify(sign(claims(), ed_key, "EdDSA", kid="ed"), now=NOW).subject
    assert refused(verifier, sign(claims(), ed_key, "EdDSA", kid="zz")).code == "auth/jwt_invalid"


def test_a_key_set_keeps_hmac_to_its_secret_keys(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    oct_jwk = {**HMACAlgorithm.to_jwk(SECRET, as_dict=True), "kid": "s"}
    rsa_public = rsa_jwk(rsa_key, kid="r")
    verifier = load(write(tmp_path, jwks(oct_jwk, rsa_public)), audience=AUD)
    assert verifier.verify(sign(claims(), SECRET, "HS256", kid="s"), now=NOW).subject
    assert verifier.verify(sign(claims(), rsa_key, "RS256", kid="r"), now=NOW).subject
    confused = hand_made({"alg": "HS256", "kid": "r"}, claims(), pem(rsa_key))
    assert refused(verifier, confused).code == "auth/jwt_invalid"
    assert refused(verifier, sign(claims(), rsa_key, "RS256", kid="s")).code == "auth/jwt_invalid"


def test_a_key_that_names_its_algorithm_checks_only_that_one(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    verifier = load(write(tmp_path, jwks(rsa_jwk(rsa_key, kid="r", alg="PS256"))), audience=AUD)
    assert verifier.algorithms == ("PS256",)
    assert verifier.verify(sign(claims(), rsa_key, "PS256", kid="r"), now=NOW).subject
    assert refused(verifier, sign(claims(), rsa_key, "RS256", kid="r")).code == "auth/jwt_invalid"


def test_encryption_keys_of_a_set_are_left_out(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey, other_rsa_key: rsa.RSAPrivateKey
) -> None:
    path = write(
        tmp_path, jwks(rsa_jwk(rsa_key, kid="sig", use="sig"), rsa_jwk(other_rsa_key, use="enc"))
    )
    verifier = load(path, audience=AUD)
    assert verifier.verify(sign(claims(), rsa_key, "RS256"), now=NOW).subject  # (the one key)
    token = sign(claims(), other_rsa_key, "RS256", kid="sig")
    assert refused(verifier, token).code == "auth/jwt_invalid"


@pytest.mark.parametrize(
    "document",
    [
        "{}",
        '{"keys": []}',
        '{"keys": "no"}',
        "{not json",
        '{"keys": [{"kty": "XYZ", "kid": "a"}]}',
        '{"keys": [{"kty": "RSA", "kid": "a", "n": "!!", "e": "AQAB"}]}',
        '{"keys": [7]}',
    ],
)
def test_a_bad_key_set_is_a_value_error(tmp_path: Path, document: str) -> None:
    with pytest.raises(ValueError):
        load(write(tmp_path, document), audience=AUD)


def test_a_key_set_must_name_its_keys_apart(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey, ec_key: ec.EllipticCurvePrivateKey
) -> None:
    with pytest.raises(ValueError, match="kid"):
        load(write(tmp_path, jwks(rsa_jwk(rsa_key), ec_jwk(ec_key, kid="e"))), audience=AUD)
    with pytest.raises(ValueError, match="same"):
        load(
            write(tmp_path, jwks(rsa_jwk(rsa_key, kid="k"), ec_jwk(ec_key, kid="k"))), audience=AUD
        )
    with pytest.raises(ValueError, match="fit"):
        load(write(tmp_path, jwks(ec_jwk(ec_key, kid="e", alg="HS256"))), audience=AUD)


def test_a_key_set_with_a_private_key_is_a_value_error(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    private = {**RSAAlgorithm.to_jwk(rsa_key, as_dict=True), "kid": "r"}
    with pytest.raises(ValueError, match="private"):
        load(write(tmp_path, jwks(private)), audience=AUD)


# --- key files ----------------------------------------------------------------------------------


def test_an_empty_or_missing_file_is_a_value_error(tmp_path: Path) -> None:
    for content in (b"", b"\n", b"  \n\t"):
        with pytest.raises(ValueError, match="empty"):
            load(write(tmp_path, content), audience=AUD)
    with pytest.raises(ValueError, match="cannot read"):
        load(str(tmp_path / "nowhere"), audience=AUD)
    with pytest.raises(ValueError, match="cannot read"):
        load(str(tmp_path), audience=AUD)  # (a directory)


def test_a_short_secret_is_a_value_error(tmp_path: Path) -> None:
    short = b"only-31-bytes-of-secret-0123456"
    assert len(short) == 31
    with pytest.raises(ValueError, match="32 bytes") as info:
        load(write(tmp_path, short + b"\n"), audience=AUD)
    assert short.decode() not in str(info.value)
    assert load(write(tmp_path, short + b"x\n"), audience=AUD).algorithms == ("HS256",)


def test_a_pem_that_is_no_usable_public_key_is_a_value_error(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    private_pem = rsa_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with pytest.raises(ValueError, match="private key"):
        load(write(tmp_path, private_pem), audience=AUD)
    dsa_key = dsa.generate_private_key(key_size=2048)
    with pytest.raises(ValueError, match="unknown or unsupported key type"):
        load(write(tmp_path, pem(dsa_key)), audience=AUD)
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    with pytest.raises(ValueError, match="1024 bits"):
        load(write(tmp_path, pem(small)), audience=AUD)
    with pytest.raises(ValueError, match="PEM"):
        load(
            write(tmp_path, b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"),
            audience=AUD,
        )


def test_other_public_key_forms_are_never_taken_for_a_secret(
    tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    der = rsa_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    openssh = rsa_key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    for data, word in ((der, "DER"), (openssh, "OpenSSH")):
        with pytest.raises(ValueError, match=word):
            load(write(tmp_path, data), audience=AUD)


def test_the_settings_are_checked(tmp_path: Path) -> None:
    path = write(tmp_path, SECRET)
    with pytest.raises(ValueError, match="audience"):
        load(path, audience="")
    with pytest.raises(ValueError, match="issuer"):
        load(path, audience=AUD, issuer="")
    with pytest.raises(ValueError, match="leeway"):
        load(path, audience=AUD, leeway=-1)


# --- what a refusal says ----------------------------------------------------------------------


def every_refusal(
    verifier: JwtVerifier, make: Callable[..., str], kid: str
) -> Iterator[tuple[str, JwtRefused]]:
    for token in (
        make(claims(exp=NOW - 100)),
        make(claims(aud="elsewhere")),
        make(claims(aud=None)),
        make(claims(sub=None)),
        make(claims(sub="x" * 200)),
        make(claims(nbf=NOW + 100)),
        make(claims(), key=b"wrong-secret-wrong-secret-wrong-s"),
        make(claims(), alg="HS384"),
        make(claims(), kid=kid),
        make(claims(pad="p" * 5000)),
        unsigned_token(),
        make(claims())[:-3],
    ):
        with pytest.raises(JwtRefused) as info:
            verifier.verify(token, now=NOW)
        yield token, info.value


def test_no_refusal_repeats_the_token_or_the_secret(tmp_path: Path) -> None:
    kid = "kid-SENTINEL-7f3a"
    oct_jwk = {**HMACAlgorithm.to_jwk(SECRET, as_dict=True), "kid": "mine"}
    verifier = load(write(tmp_path, jwks(oct_jwk)), audience=AUD)

    def make(
        payload: dict[str, Any], key: bytes = SECRET, alg: str = "HS256", kid: str = "mine"
    ) -> str:
        return sign(payload, key, alg, kid=kid)

    codes = set()
    for token, refusal in every_refusal(verifier, make, kid):
        codes.add(refusal.code)
        said = f"{refusal.message} {refusal} {refusal!r}"
        assert refusal.message and refusal.message[0].isupper() and refusal.message.endswith(".")
        for secret_part in (token, *token.split("."), SECRET.decode(), oct_jwk["k"], kid):
            if len(secret_part) >= 8:
                assert secret_part not in said, (refusal.code, refusal.message)
        assert "Traceback" not in said and "Error" not in refusal.message
    assert codes == {"auth/jwt_expired", "auth/jwt_audience", "auth/jwt_invalid"}


def test_the_codes_are_the_stable_strings() -> None:
    assert (jwtauth.EXPIRED, jwtauth.AUDIENCE, jwtauth.INVALID) == (
        "auth/jwt_expired",
        "auth/jwt_audience",
        "auth/jwt_invalid",
    )
