"""`manage.py lti_rotate_key`: a new key signs from then on (the test LMS checks our service
token with it), the JWKS lists the old and the new key until the old one is retired, and
retiring waits for the grace unless told otherwise."""
from __future__ import annotations

from io import StringIO

import jwt
import pytest
from django.core.management import call_command
from django.test import Client
from jwcrypto.jwk import JWK

from lti.keys import tool_key
from lti.models import Context, ToolKey
from lti.roster import RosterError, sync

from .platform import LEARNER, Member


def _published() -> dict[str, dict]:
    return {k["kid"]: k for k in Client().get("/lti/jwks/").json()["keys"]}


def _verifies(token: str, jwk: dict) -> bool:
    try:
        jwt.decode(token, JWK(**jwk).export_to_pem(), algorithms=["RS256"])
    except jwt.InvalidTokenError:
        return False
    return True


def _rotate(*args: str) -> str:
    out = StringIO()
    call_command("lti_rotate_key", *args, stdout=out)
    return out.getvalue()


def test_a_rotated_key_signs_from_then_on_and_both_are_published_until_the_old_is_retired(linked) -> None:
    old = tool_key()
    signed_before = jwt.encode({"iss": "splaylab"}, old.private_pem, algorithm="RS256", headers={"kid": old.kid})
    context = Context.objects.create(platform=linked.platform, context_id="ctx-1", course=linked.course,
                                     memberships_url=f"{linked.lms.url}/memberships")
    linked.lms.members["u-new"] = Member("u-new", LEARNER, "Noa New", "noa@lms.example")
    stale_jwks = linked.lms.registration.get_tool_key_set()  # what the LMS fetched before

    said = _rotate()
    new = tool_key()
    assert new.kid != old.kid and f"new key {new.kid} signs from now on" in said
    was = ToolKey.objects.get(kid=old.kid)
    assert was.active is False and was.signed_until is not None and new.signed_until is None
    published = _published()
    assert list(published) == [new.kid, old.kid]  # the signing key first
    assert _verifies(signed_before, published[old.kid])  # what the old key signed still checks

    # The service token is signed with the new key: an LMS holding our JWKS as it was refuses
    # it, and once it fetches the JWKS again it accepts it and the roster is read.
    with pytest.raises(RosterError, match="Unable to find public key"):
        sync(context_id=context.id)
    linked.lms.registration.set_tool_key_set({"keys": list(published.values())})
    assert sync(context_id=context.id) == 3
    assert [k["kid"] for k in stale_jwks["keys"]] == [old.kid]

    kept = _rotate("--retire")  # within the default grace (24 h): the old key stays
    assert f"kept {old.kid}" in kept and list(_published()) == [new.kid, old.kid]
    retired = _rotate("--retire", "--min-age-hours", "0")
    assert f"retired {old.kid}" in retired
    published = _published()
    assert list(published) == [new.kid]
    assert not _verifies(signed_before, published[new.kid])
    assert "signing since" in _rotate("--list") and tool_key().kid == new.kid


def test_rotations_in_a_row_keep_one_signing_key(db) -> None:
    first = tool_key()
    _rotate()
    _rotate()
    assert ToolKey.objects.filter(active=True).count() == 1
    assert ToolKey.objects.filter(kid=first.kid, active=False).exists()
    assert len(_published()) == 3
