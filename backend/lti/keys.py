"""The tool's RSA key pair: made on first use, kept in the database (every web process and
worker signs with the same key), its public half published as a JWKS; rotated by an operator
(`manage.py lti_rotate_key`: a new key signs, the old one stays published until retired)."""
from __future__ import annotations

import json
import secrets
from datetime import timedelta
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.db import IntegrityError, transaction
from django.utils import timezone
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


def key_rotate() -> ToolKey:
    """A new key signs from now on; the keys it replaces stay published (inactive) so that an
    LMS can still check what they signed, and one that cached our JWKS finds the new kid when
    it fetches again, until they are retired (`key_retire`)."""
    private, public = _new_pair()
    with transaction.atomic():
        ToolKey.objects.filter(active=True).update(active=False, signed_until=timezone.now())
        return ToolKey.objects.create(kid=secrets.token_hex(16), private_pem=private, public_pem=public)


def key_retire(*, min_age: timedelta) -> tuple[list[str], list[str]]:
    """Unpublish (delete) the inactive keys out of signing for at least `min_age`: what they
    signed (service-token requests, deep-linking answers: minutes-long JWTs) has expired, and
    an LMS's cached JWKS has been fetched again. (retired kids, kids kept as too recent)"""
    retired, kept = [], []
    now = timezone.now()
    for key in ToolKey.objects.filter(active=False).order_by("id"):
        if key.signed_until is None or now - key.signed_until >= min_age:
            key.delete()
            retired.append(key.kid)
        else:
            kept.append(key.kid)
    return retired, kept


def public_jwk(key: ToolKey) -> dict[str, Any]:
    jwk = json.loads(JWK.from_pem(key.public_pem.encode()).export_public())
    return {**jwk, "kid": key.kid, "alg": "RS256", "use": "sig"}


def jwks() -> dict[str, Any]:
    """Every key still published (the active one first)."""
    tool_key()
    return {"keys": [public_jwk(k) for k in ToolKey.objects.order_by("-active", "id")]}
