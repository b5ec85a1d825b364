"""Signed tokens (JWT) in ``hello``: sign-in for operators who run their own login system.

An operator whose players already sign in elsewhere (a website, a launcher, a company's single
sign-on) need not make them create an Echo Ridge identity too: that system signs a short-lived
token naming the player, the client sends it as ``hello.jwt``, and the server checks it here and
signs the session in as the player the token names (tables/players.py). The operator configures

    echo-ridge serve --auth-jwt-key FILE --auth-jwt-audience AUD [--auth-jwt-issuer ISS]

where FILE holds the key that checks the signatures:

* a PEM public key (RSA of 2048 bits or more, EC on P-256/P-384/P-521/secp256k1, Ed25519 or
  Ed448): tokens signed with the matching private key (RS*/PS*, ES*, EdDSA) are accepted;
* a JWKS document (``{"keys": [...]}``, as identity providers publish at their ``jwks_uri``):
  the token's ``kid`` header picks the key (a token without ``kid`` is accepted only when the
  set holds exactly one key); keys with ``"use": "enc"`` are left out;
* anything else is a secret shared with the login system (HS256, and HS384/HS512 when it is
  long enough for them), at least 32 bytes; one trailing newline is not part of it. (A file
  that starts with ``{`` is read as JWKS, and one holding a PEM, DER or OpenSSH key is never
  taken for a secret.)

AUD is the name the login system gives this server in the ``aud`` claim, which every token must
carry: a token made for another service is no key to this one. ISS, when given, must equal the
token's ``iss``. A token must also carry ``exp`` (checked with ``leeway`` seconds of clock skew)
and ``sub`` (the player's stable id in the operator's system: at most 128 printable characters);
``nbf`` and ``iat`` are checked when present; ``name`` or ``preferred_username`` is passed on as
the player's suggested name.

The algorithms come from the key, never from the token: ``none`` is never accepted, and a public
key never checks an HMAC (HS*) signature, so nobody can forge a token by "signing" it with the
public key as a secret (the algorithm-confusion attack, RFC 8725 §2.1). A refusal is a
:class:`JwtRefused` with one of three stable codes (``auth/jwt_expired``, ``auth/jwt_audience``,
``auth/jwt_invalid``) and an English message that never repeats the token or the key.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

import jwt
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_der_public_key, load_pem_public_key
from jwt.algorithms import ECAlgorithm, HMACAlgorithm, OKPAlgorithm, RSAAlgorithm
from jwt.exceptions import InvalidSubjectError
from jwt.types import Options

EXPIRED: Final = "auth/jwt_expired"
AUDIENCE: Final = "auth/jwt_audience"
INVALID: Final = "auth/jwt_invalid"

MAX_TOKEN_CHARS: Final = 4096  # a longer token is refused before it is parsed
MAX_SUBJECT_CHARS: Final = 128
MIN_SECRET_BYTES: Final = 32  # an HMAC secret (RFC 7518 §3.2: at least the hash's size)
MIN_RSA_BITS: Final = 2048
MAX_KEY_FILE_BYTES: Final = 1 << 20

RSA_ALGORITHMS: Final = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
EC_ALGORITHMS: Final = {  # the one algorithm of each curve (RFC 7518 §3.4, RFC 8812 §3.2)
    "secp256r1": "ES256",
    "secp384r1": "ES384",
    "secp521r1": "ES512",
    "secp256k1": "ES256K",
}
HMAC_ALGORITHMS: Final = {"HS256": 32, "HS384": 48, "HS512": 64}  # name: least secret bytes

PublicKey: TypeAlias = (
    rsa.RSAPublicKey | ec.EllipticCurvePublicKey | ed25519.Ed25519PublicKey | ed448.Ed448PublicKey
)
Key: TypeAlias = PublicKey | bytes  # bytes: an HMAC secret

_PRIVATE_KEYS = (
    rsa.RSAPrivateKey,
    ec.EllipticCurvePrivateKey,
    ed25519.Ed25519PrivateKey,
    ed448.Ed448PrivateKey,
)


class JwtRefused(Exception):
    """A token this server does not accept: ``code`` is stable (for clients and metrics),
    ``message`` is for a person and never holds the token, the key or Python internals."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Claims:
    """What a verified token says about the player."""

    subject: str  # ``sub``: the player's id in the operator's login system
    name: str | None  # ``name``, else ``preferred_username``, when a non-empty string
    expires: int  # ``exp``, in seconds since the epoch


@dataclass(frozen=True)
class _Signer:
    """One key that may have signed a token, and the algorithms it may have used."""

    key: Key
    algorithms: tuple[str, ...]


class JwtVerifier:
    """Checks tokens against the keys of one key file (see :func:`load`)."""

    def __init__(
        self,
        signers: Mapping[str | None, _Signer],
        *,
        keyset: bool,
        audience: str,
        issuer: str | None,
        leeway: int,
    ) -> None:
        # by kid (None: a key without one); without a key set, the one key, whatever the kid
        self._signers = dict(signers)
        self._keyset = keyset
        self.audience = audience
        self.issuer = issuer
        self.leeway = leeway
        names = {a for s in self._signers.values() for a in s.algorithms}
        self.algorithms: tuple[str, ...] = tuple(sorted(names))

    def verify(self, token: str, now: float | None = None) -> Claims:
        """The claims of ``token`` if it is genuine, current and meant for this server; else
        :class:`JwtRefused`. ``now`` (seconds since the epoch) stands in for the clock."""
        if not isinstance(token, str) or not token:
            raise JwtRefused(INVALID, "The signed token is missing or not a string.")
        if len(token) > MAX_TOKEN_CHARS:
            raise JwtRefused(
                INVALID, f"The signed token is longer than {MAX_TOKEN_CHARS} characters."
            )
        signer = self._signer(token)
        options: Options = {
            "require": ["exp", "aud", "sub"],
            # the time claims are checked below, against ``now``: PyJWT reads its own clock
            "verify_exp": False,
            "verify_nbf": False,
            "verify_iat": False,
            "verify_aud": True,
            "verify_iss": self.issuer is not None,
            "strict_aud": False,  # a list of audiences that holds ours is fine (RFC 7519)
            "enforce_minimum_key_length": True,
        }
        try:
            payload = jwt.decode(
                token,
                key=signer.key,
                algorithms=list(signer.algorithms),
                options=options,
                audience=self.audience,
                issuer=self.issuer,
            )
        except jwt.InvalidAudienceError:
            raise _refused_audience() from None
        except jwt.InvalidIssuerError:
            raise _refused_issuer() from None
        except jwt.MissingRequiredClaimError as exc:
            if exc.claim == "aud":
                raise _refused_audience() from None
            if exc.claim == "iss":
                raise _refused_issuer() from None
            raise JwtRefused(
                INVALID, f"The signed token lacks the required {exc.claim!r} claim."
            ) from None
        except InvalidSubjectError:
            raise _refused_subject() from None
        except jwt.InvalidAlgorithmError:
            raise JwtRefused(
                INVALID, "The signed token uses a signing algorithm this server does not accept."
            ) from None
        except jwt.InvalidSignatureError:
            raise JwtRefused(INVALID, "The signed token's signature does not verify.") from None
        except (jwt.PyJWTError, ValueError, TypeError):
            raise JwtRefused(INVALID, "The signed token is malformed.") from None
        return self._claims(payload, time.time() if now is None else now)

    def _signer(self, token: str) -> _Signer:
        """The key that checks ``token``: with a key set, the one its ``kid`` names."""
        if not self._keyset:
            return next(iter(self._signers.values()))
        try:
            header = jwt.get_unverified_header(token)
        except (jwt.PyJWTError, ValueError, TypeError):
            raise JwtRefused(INVALID, "The signed token is malformed.") from None
        kid = header.get("kid")
        if kid is None and len(self._signers) == 1:
            return next(iter(self._signers.values()))
        if kid is None:
            raise JwtRefused(
                INVALID, "The signed token names no key ('kid'), and this server has several."
            )
        signer = self._signers.get(kid) if isinstance(kid, str) else None
        if signer is None:
            raise JwtRefused(INVALID, "The signed token names a key this server does not know.")
        return signer

    def _claims(self, payload: dict[str, Any], now: float) -> Claims:
        exp = _numeric_date(payload, "exp")
        if exp is None:  # (PyJWT required it: never so)
            raise JwtRefused(INVALID, "The signed token lacks the required 'exp' claim.")
        if exp <= now - self.leeway:
            raise JwtRefused(EXPIRED, "The signed token has expired; sign in again.")
        for claim in ("nbf", "iat"):
            when = _numeric_date(payload, claim)
            if when is not None and when > now + self.leeway:
                raise JwtRefused(
                    INVALID, f"The signed token is not valid yet (its {claim!r} is in the future)."
                )
        subject = payload.get("sub")
        if (
            not isinstance(subject, str)
            or not subject
            or len(subject) > MAX_SUBJECT_CHARS
            or not subject.isprintable()
        ):
            raise _refused_subject()
        name: str | None = None
        for claim in ("name", "preferred_username"):
            value = payload.get(claim)
            if isinstance(value, str) and value:
                name = value
                break
        return Claims(subject=subject, name=name, expires=math.floor(exp))


def _refused_audience() -> JwtRefused:
    return JwtRefused(AUDIENCE, "The signed token was not issued for this server ('aud').")


def _refused_subject() -> JwtRefused:
    return JwtRefused(
        INVALID,
        f"The signed token's subject ('sub') must be 1 to {MAX_SUBJECT_CHARS} printable "
        "characters.",
    )


def _refused_issuer() -> JwtRefused:
    return JwtRefused(AUDIENCE, "The signed token comes from an issuer this server does not trust.")


def _numeric_date(payload: Mapping[str, Any], claim: str) -> float | None:
    """``payload[claim]`` as a NumericDate (RFC 7519 §2: a JSON number), None when absent."""
    if claim not in payload:
        return None
    value = payload[claim]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise JwtRefused(INVALID, f"The signed token's {claim!r} claim is not a number.")
    return float(value)


def load(
    path: str,
    *,
    audience: str,
    issuer: str | None = None,
    algorithms: tuple[str, ...] | None = None,
    leeway: int = 30,
) -> JwtVerifier:
    """A verifier for the tokens the key in ``path`` checks (a PEM public key, a JWKS document
    or an HMAC secret: see the module's docstring), meant for ``audience`` and, when it is
    given, from ``issuer``. ``algorithms`` narrows the algorithms the key allows (by default
    all that fit it); ``leeway`` is the clock skew allowed, in seconds.

    ValueError, with a message for the operator, when the file cannot be read or holds no key
    this server can use, or when the settings do not fit it."""
    if not isinstance(audience, str) or not audience:
        raise ValueError("the audience (--auth-jwt-audience) must be a non-empty string")
    if issuer is not None and (not isinstance(issuer, str) or not issuer):
        raise ValueError("the issuer (--auth-jwt-issuer), when given, must be a non-empty string")
    if isinstance(leeway, bool) or not isinstance(leeway, int) or leeway < 0:
        raise ValueError("the leeway must be a whole number of seconds, 0 or more")
    wanted = _wanted(algorithms)
    data = _read(path)
    signers: dict[str | None, _Signer]
    keyset = data.lstrip().startswith(b"{")
    if keyset:
        signers = _jwks(path, data, wanted)
    else:
        key = _single_key(path, data)
        fits = _fitting(key)
        chosen = fits if wanted is None else tuple(a for a in wanted if a in fits)
        if not chosen or (wanted is not None and len(chosen) < len(wanted)):
            misfits = ", ".join(a for a in wanted or () if a not in fits)
            raise ValueError(
                f"the key in {path} cannot check {misfits} signatures (it fits {', '.join(fits)})"
            )
        signers = {None: _Signer(key, chosen)}
    return JwtVerifier(signers, keyset=keyset, audience=audience, issuer=issuer, leeway=leeway)


def _wanted(algorithms: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if algorithms is None:
        return None
    if isinstance(algorithms, str) or not algorithms:
        raise ValueError("algorithms must be a non-empty tuple of algorithm names, or None")
    known = set(RSA_ALGORITHMS) | set(EC_ALGORITHMS.values()) | set(HMAC_ALGORITHMS) | {"EdDSA"}
    for name in algorithms:
        if isinstance(name, str) and name.lower() == "none":
            raise ValueError("the 'none' algorithm (an unsigned token) is never accepted")
        if not isinstance(name, str) or name not in known:
            raise ValueError(f"unknown or unsupported JWT algorithm {name!r}")
    return tuple(dict.fromkeys(algorithms))


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read the key file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise ValueError(f"the key file {path} is larger than {MAX_KEY_FILE_BYTES} bytes")
    if not data.strip():
        raise ValueError(f"the key file {path} is empty")
    return data


def _single_key(path: str, data: bytes) -> Key:
    """The key of a file that is not a JWKS document: a PEM public key, or else a secret."""
    head = data.lstrip()
    if head.startswith(b"-----BEGIN"):
        try:
            public = load_pem_public_key(head)
        except (ValueError, TypeError, UnsupportedAlgorithm):
            pass
        else:
            return _public(public, path)
        if b"PRIVATE KEY-----" in head:
            raise ValueError(
                f"{path} holds a private key: give the server only the public key "
                "(openssl pkey -pubout)"
            )
        if b"CERTIFICATE-----" in head:
            raise ValueError(
                f"{path} holds a certificate: give the server its public key "
                "(openssl x509 -pubkey -noout)"
            )
        raise ValueError(f"{path} holds PEM data that is not a public key this server can read")
    if head.startswith((b"ssh-", b"ecdsa-sha2-")):
        raise ValueError(
            f"{path} holds an OpenSSH public key: convert it to PEM (ssh-keygen -e -m PKCS8 -f)"
        )
    try:
        load_der_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        pass
    else:  # (never an HMAC secret: that is the algorithm-confusion attack)
        raise ValueError(f"{path} holds a DER public key: convert it to PEM")
    secret = data.removesuffix(b"\n").removesuffix(b"\r") if data.endswith(b"\n") else data
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(
            f"the shared secret in {path} is shorter than {MIN_SECRET_BYTES} bytes "
            "(or the file is not a PEM public key or a JWKS document)"
        )
    return secret


def _public(key: object, where: str) -> PublicKey:
    """``key`` if it is a public key of a type and size the server uses, else ValueError."""
    if isinstance(key, _PRIVATE_KEYS):
        raise ValueError(f"{where} holds a private key: give the server only public keys")
    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < MIN_RSA_BITS:
            raise ValueError(
                f"the RSA key in {where} has {key.key_size} bits, fewer than {MIN_RSA_BITS}"
            )
        return key
    if isinstance(key, ec.EllipticCurvePublicKey):
        if key.curve.name not in EC_ALGORITHMS:
            raise ValueError(f"the EC key in {where} is on a curve JWT does not use")
        return key
    if isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
        return key
    raise ValueError(
        f"{where} holds an unknown or unsupported key type (use RSA, EC, Ed25519 or Ed448)"
    )


def _fitting(key: Key) -> tuple[str, ...]:
    """Every algorithm that ``key`` can check, by the key's type: never ``none``, and HMAC
    only for a secret."""
    if isinstance(key, bytes):
        return tuple(a for a, least in HMAC_ALGORITHMS.items() if len(key) >= least)
    if isinstance(key, rsa.RSAPublicKey):
        return RSA_ALGORITHMS
    if isinstance(key, ec.EllipticCurvePublicKey):
        return (EC_ALGORITHMS[key.curve.name],)
    return ("EdDSA",)


def _jwks(path: str, data: bytes, wanted: tuple[str, ...] | None) -> dict[str | None, _Signer]:
    """The keys of a JWKS document, by kid, each with the algorithms it may check."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        raise ValueError(f"{path} looks like JSON but is not valid JSON") from None
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list) or not keys:
        raise ValueError(f'{path} is not a JWKS document: it needs a non-empty "keys" list')
    signers: list[tuple[str | None, _Signer]] = []
    for index, jwk in enumerate(keys):
        where = f"key {index} of {path}"
        if not isinstance(jwk, dict):
            raise ValueError(f"{where} is not a JSON object")
        if jwk.get("use", "sig") != "sig":
            continue  # (an encryption key: no use here)
        kid = jwk.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise ValueError(f"{where} has a 'kid' that is not a string")
        if kid is not None:
            where = f"key {kid!r} of {path}"
        key = _jwk_key(jwk, where)
        fits = _fitting(key)
        named = jwk.get("alg")
        if named is not None:
            if named not in fits:
                raise ValueError(f"{where} names the algorithm {named!r}, which does not fit it")
            fits = (named,)
        chosen = fits if wanted is None else tuple(a for a in wanted if a in fits)
        if chosen:  # (a key the algorithms asked for leave out is left out)
            signers.append((kid, _Signer(key, chosen)))
    if not signers:
        raise ValueError(f"{path} holds no signing key for the algorithms asked for")
    kids = [kid for kid, _ in signers]
    if len(signers) > 1 and None in kids:
        raise ValueError(f"every key of {path} needs a 'kid', since it holds more than one")
    if len(set(kids)) < len(kids):
        raise ValueError(f"{path} holds two keys with the same 'kid'")
    return dict(signers)


def _jwk_key(jwk: Mapping[str, Any], where: str) -> Key:
    """The key of one member of a JWKS document: a public key, or a secret (``"kty": "oct"``)."""
    kty = jwk.get("kty")
    readers = {
        "RSA": RSAAlgorithm.from_jwk,
        "EC": ECAlgorithm.from_jwk,
        "OKP": OKPAlgorithm.from_jwk,
        "oct": HMACAlgorithm.from_jwk,
    }
    if not isinstance(kty, str) or kty not in readers:
        raise ValueError(f"{where} has an unknown or unsupported key type ('kty')")
    try:
        key: object = readers[kty](dict(jwk))
    except (jwt.PyJWTError, ValueError, TypeError, KeyError):
        raise ValueError(f"{where} is not a valid {kty} key") from None
    if isinstance(key, bytes):
        if len(key) < MIN_SECRET_BYTES:
            raise ValueError(f"the secret of {where} is shorter than {MIN_SECRET_BYTES} bytes")
        return key
    return _public(key, where)


__all__ = ["AUDIENCE", "EXPIRED", "INVALID", "Claims", "JwtRefused", "JwtVerifier", "load"]
