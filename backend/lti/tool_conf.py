"""pylti1p3's tool configuration read from our tables: a registration is a Platform row (one
issuer may have many client ids: one per course that registered it), signed with our ToolKey."""
from __future__ import annotations

from typing import Any

from pylti1p3.deployment import Deployment as LibDeployment
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract

from .keys import tool_key
from .models import Deployment, Platform


class KeyedRegistration(Registration):
    """pylti1p3 names the key it signs with by a kid derived from the public key; ours is the
    ToolKey row's, the one /lti/jwks/ publishes."""
    kid: str | None = None

    def get_kid(self) -> str | None:
        return self.kid


def registration_for(platform: Platform) -> Registration:
    key = tool_key()
    reg = KeyedRegistration()
    reg.kid = key.kid
    reg.set_issuer(platform.issuer).set_client_id(platform.client_id).set_auth_login_url(platform.auth_login_url) \
        .set_auth_token_url(platform.auth_token_url).set_key_set_url(platform.key_set_url) \
        .set_tool_private_key(key.private_pem).set_tool_public_key(key.public_pem)
    return reg


class DbToolConf(ToolConfAbstract):
    """Lookups by (issuer, client id): every issuer counts as one with many clients."""

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def platform(self, iss: str, client_id: str | None) -> Platform | None:
        qs = Platform.objects.filter(issuer=iss)
        if client_id:
            return qs.filter(client_id=client_id).first()
        # A login without client_id (allowed by the spec): only an issuer with one registration.
        found = list(qs[:2])
        return found[0] if len(found) == 1 else None

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration | None:
        platform = self.platform(iss, None)
        return registration_for(platform) if platform else None

    def find_registration_by_params(self, iss: str, client_id: str, *args: Any, **kwargs: Any) -> Registration | None:
        platform = self.platform(iss, client_id)
        return registration_for(platform) if platform else None

    def find_deployment(self, iss: str, deployment_id: str) -> LibDeployment | None:
        return None  # never called: every issuer has many clients

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str,
                                  *args: Any, **kwargs: Any) -> LibDeployment | None:
        if not Deployment.objects.filter(platform__issuer=iss, platform__client_id=client_id,
                                         deployment_id=deployment_id).exists():
            return None
        return LibDeployment().set_deployment_id(deployment_id)
