"""The tool's RSA key pair: made on first use, kept in the database (every web process and
worker signs with the same key), its public half published as a JWKS."""
from __future__ import annotations

import json
import secrets
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.db import IntegrityError, transaction
from jwcrypto.jwk import JWK

from .models import ToolKey


def _new_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


def tool_key() -> ToolKey:
    """The active key, made if there is none. Two processes making one at once: the unique kid
    keeps both, the first made wins from then on (ordering by id)."""
    key = ToolKey.objects.filter(active=True).order_by("id").first()
    if key is not None:
        return key
    private, public = _new_pair()
    try:
        with transaction.atomic():
            ToolKey.objects.create(kid=secrets.token_hex(16), private_pem=private, public_pem=public)
    except IntegrityError:  # pragma: no cover - a 128-bit kid collision
        pass
    return ToolKey.objects.filter(active=True).order_by("id").first()


def public_jwk(key: ToolKey) -> dict[str, Any]:
    jwk = json.loads(JWK.from_pem(key.public_pem.encode()).export_public())
    return {**jwk, "kid": key.kid, "alg": "RS256", "use": "sig"}


def jwks() -> dict[str, Any]:
    """Every key still published (the active one first)."""
    tool_key()
    return {"keys": [public_jwk(k) for k in ToolKey.objects.order_by("-active", "id")]}
