"""A real LTI 1.3 platform for the tests, built from lti1p3platform (the LMS side of the
protocol: OIDC login, signed id_tokens, deep linking, the OAuth2 token endpoint, AGS and NRPS
services) and served over HTTP by wsgiref in a thread, so that SplayLab's pylti1p3 talks to it
as to an LMS. What a library leaves to its host LMS is here: its users, its line items and
scores (dicts), its HTTP routing, and a switch that makes the next score posts fail."""
from __future__ import annotations

import html
import json
import re
import threading
import typing as t
import uuid
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.lineitem import TLineItem
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context as NrpsContext
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest
from lti1p3platform.score import TScore, UpdateScoreStatus
from lti1p3platform.service_connector import (AssignmentsGradesService, NamesRoleProvisioningService, TPage)
from lti1p3platform.exceptions import LineItemNotFoundException

LIS = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
INSTRUCTOR, LEARNER = [LIS + "Instructor"], [LIS + "Learner"]
TA = ["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"]


def rsa_pem() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


class WsgiRequest(Request):
    def build_metadata(self, environ: dict[str, t.Any]) -> TRequest:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        ctype = environ.get("CONTENT_TYPE", "")
        headers = {k[5:].replace("_", "-").title(): v for k, v in environ.items() if k.startswith("HTTP_")}
        return {"method": environ["REQUEST_METHOD"], "path": environ["PATH_INFO"], "content_type": ctype,
                "get_data": dict(parse_qsl(environ.get("QUERY_STRING", ""))),
                "form_data": dict(parse_qsl(body.decode())) if "form" in ctype else {},
                "json": json.loads(body) if body and "json" in ctype else None, "headers": headers}


class PlatformConf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: t.Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        return self._registration


@dataclass
class Member:
    user_id: str
    roles: list[str]
    name: str
    email: str
    status: str = "Active"


@dataclass
class LaunchSpec:
    user_id: str
    resource_link_id: str = "link-1"
    custom: dict[str, str] = field(default_factory=dict)
    deep_link: bool = False
    lineitem: str | None = None
    id_token_expiration: int = 300


class TestLms:
    """One LMS course ('ctx-1', "Distributed Systems 2026") with a registration for SplayLab."""
    __test__ = False  # not a pytest class

    def __init__(self, *, tool_base: str, tool_jwks: dict[str, t.Any], client_id: str = "splaylab-client",
                 deployment_id: str = "dep-1") -> None:
        self.private_pem, self.public_pem = rsa_pem()
        self.client_id, self.deployment_id = client_id, deployment_id
        self.members: dict[str, Member] = {}
        self.launches: dict[str, LaunchSpec] = {}
        self.lineitems: dict[str, dict[str, t.Any]] = {}
        self.scores: dict[str, list[dict[str, t.Any]]] = {}
        self.deep_link_items: list[dict[str, t.Any]] = []
        self.dynamic_registrations: list[dict[str, t.Any]] = []
        self.fail_scores = 0  # the next N score posts answer 500
        self.score_posts = 0
        self.server: WSGIServer = make_server("127.0.0.1", 0, self.app, handler_class=_Quiet)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.issuer = self.url
        self.registration = (Registration().set_iss(self.issuer).set_client_id(client_id)
                             .set_deployment_id(deployment_id).set_launch_url(f"{tool_base}/lti/launch/")
                             .set_deeplink_launch_url(f"{tool_base}/lti/launch/")
                             .set_oidc_login_url(f"{tool_base}/lti/login/")
                             .set_platform_public_key(self.public_pem).set_platform_private_key(self.private_pem)
                             .set_tool_key_set(tool_jwks))
        # A short poll: shutdown() waits for it at every test's end.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ---- what an instructor types into SplayLab ----
    def registration_fields(self) -> dict[str, t.Any]:
        return {"name": "Test LMS", "issuer": self.issuer, "client_id": self.client_id,
                "deployment_ids": [self.deployment_id], "auth_login_url": f"{self.url}/auth",
                "auth_token_url": f"{self.url}/token", "key_set_url": f"{self.url}/jwks"}

    def lineitem_add(self, item: dict[str, t.Any]) -> dict[str, t.Any]:
        item_id = uuid.uuid4().hex[:12]
        item["id"] = f"{self.url}/lineitems/{item_id}"
        self.lineitems[item_id] = item
        return item

    def sign(self, claims: dict[str, t.Any], private_pem: str | None = None) -> str:
        """An id_token signed under the LMS's kid, by its key or by `private_pem` (a forger's)."""
        import jwt

        kid = self.registration.get_kid()
        return jwt.encode(claims, private_pem or self.private_pem, algorithm="RS256", headers={"kid": kid})

    def conf(self) -> PlatformConf:
        return PlatformConf(registration=self.registration)

    # ---- the browser's side: the LMS starts a launch ----
    def login_url(self, spec: LaunchSpec) -> str:
        hint = uuid.uuid4().hex
        self.launches[hint] = spec
        login = _Login(None, self.conf())
        login.set_lti_message_hint(hint=hint)
        if spec.deep_link:
            login.set_deeplinking_launch_url()
        return login.prepare_preflight_url(spec.user_id)

    def auth(self, query: dict[str, str]) -> dict[str, str]:
        """/auth: the tool's authorization request → the launch form's fields (id_token, state)."""
        page = _http_get(f"{self.url}/auth", query)
        return dict(re.findall(r'name="(\w+)" value="([^"]*)"', page))

    # ---- HTTP ----
    def app(self, environ: dict[str, t.Any], start_response: t.Callable[..., t.Any]) -> list[bytes]:
        request = WsgiRequest(environ)
        try:
            code, ctype, body = self.route(request)
        except Exception as exc:  # noqa: BLE001 - an LMS answers 500, the tool must cope
            code, ctype, body = 500, "text/plain", f"{type(exc).__name__}: {exc}"
        data = body if isinstance(body, str) else json.dumps(body)
        start_response(f"{code} X", [("Content-Type", ctype)])
        return [data.encode()]

    def route(self, request: WsgiRequest) -> tuple[int, str, t.Any]:
        path, method = request.path, request.method
        conf = self.conf()
        conf.get_registration()
        if path == "/jwks":
            return 200, "application/json", conf.get_jwks()
        if path == "/token" and method == "POST":
            return 200, "application/json", conf.get_access_token(request.form_data)
        if path == "/auth":
            return 200, "text/html", self._launch(request, conf)
        if path == "/deep-link-return" and method == "POST":
            self.deep_link_items.extend(conf.validate_deeplinking_resp(request.form_data))
            return 200, "text/html", "<p>added</p>"
        # LTI Dynamic Registration: lti1p3platform has none, so these two are the test's own,
        # after IMS LTI-DR 1.0 (§3.4 configuration, §3.5 registration answered with our client id).
        if path == "/.well-known/openid-configuration":
            return 200, "application/json", {
                "issuer": self.issuer, "authorization_endpoint": f"{self.url}/auth",
                "token_endpoint": f"{self.url}/token", "jwks_uri": f"{self.url}/jwks",
                "registration_endpoint": f"{self.url}/register",
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                    "product_family_code": "test-lms", "version": "1.0"}}
        if path == "/register" and method == "POST":
            self.dynamic_registrations.append({"authorization": request.headers.get("Authorization"),
                                               "body": request.json})
            return 200, "application/json", {
                **request.json, "client_id": self.client_id,
                "https://purl.imsglobal.org/spec/lti-tool-configuration": {
                    **request.json["https://purl.imsglobal.org/spec/lti-tool-configuration"],
                    "deployment_id": self.deployment_id}}
        if path == "/memberships":
            return _answer(_Nrps(self, request, conf, f"{self.url}/memberships").handle_get_members())
        ags = _Ags(self, request, conf, f"{self.url}/lineitems")
        if path == "/lineitems":
            return _answer(ags.handle_get_lineitems() if method == "GET" else ags.handle_create_lineitem())
        match = re.fullmatch(r"/lineitems/([\w-]+)/scores", path)
        if match and method == "POST":
            self.score_posts += 1
            if self.fail_scores > 0:
                self.fail_scores -= 1
                return 500, "text/plain", "the LMS is down for maintenance"
            return _answer(ags.handle_update_score(match.group(1)))
        return 404, "text/plain", "not found"

    def _launch(self, request: WsgiRequest, conf: PlatformConf) -> str:
        spec = self.launches[request.get_data["lti_message_hint"]]
        member = self.members[spec.user_id]
        launch = _Launch(request, conf)
        launch.set_id_token_expiration(spec.id_token_expiration)
        launch.set_user_data(member.user_id, member.roles, full_name=member.name, email_address=member.email,
                             preferred_username=member.email.split("@")[0])
        launch.set_launch_context_claim("ctx-1", context_title="Distributed Systems 2026", context_label="DS")
        launch.set_resource_link_claim(spec.resource_link_id, title="SplayLab")
        if spec.custom:
            launch.set_custom_parameters_claim(spec.custom)
        launch.set_ags(f"{self.url}/lineitems", spec.lineitem)
        launch.set_nrps(f"{self.url}/memberships")
        if spec.deep_link:
            launch.set_dl(f"{self.url}/deep-link-return", title="Add SplayLab")
        return launch.lti_launch()


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: t.Any) -> None:
        pass


def _answer(resp: t.Any) -> tuple[int, str, t.Any]:
    if 200 <= resp.code < 300:
        result = resp.result["content"] if isinstance(resp.result, dict) and "content" in resp.result else resp.result
        return resp.code, resp.media_type, result if result is not None else {}
    return resp.code, "application/json", {"error": resp.message}


def _http_get(url: str, query: dict[str, str]) -> str:
    import requests

    return requests.get(url, params=query, timeout=10).text


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: t.Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        return url


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> str:
        inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(str(v))}">'
                         for k, v in launch_data.items() if k != "launch_url")
        return f'<form method="post" action="{html.escape(launch_data["launch_url"])}">{inputs}</form>'


class _Ags(AssignmentsGradesService):
    def __init__(self, lms: TestLms, request: Request, conf: PlatformConf, url: str) -> None:
        super().__init__(request, conf, url)
        self.lms = lms

    def find_lineitems(self, page: int = 1, limit: int | None = None, line_item_id: str | None = None,
                       resource_link_id: str | None = None, resource_id: str | None = None,
                       tag: str | None = None) -> TPage:
        items = [i for i in self.lms.lineitems.values() if (tag is None or i.get("tag") == tag)
                 and (resource_id is None or i.get("resourceId") == resource_id)]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id: str) -> TLineItem:
        if line_item_id not in self.lms.lineitems:
            raise LineItemNotFoundException
        return t.cast(TLineItem, self.lms.lineitems[line_item_id])

    def create_lineitem(self, creation_data: TLineItem) -> TLineItem:
        return t.cast(TLineItem, self.lms.lineitem_add(dict(creation_data)))

    def update_lineitem(self, update_data: TLineItem) -> TLineItem:
        self.lms.lineitems[str(update_data["id"])].update(update_data)
        return update_data

    def delete_lineitem(self, line_item_id: str) -> None:
        self.lms.lineitems.pop(line_item_id, None)

    def update_score(self, line_item_id: str, score: TScore) -> UpdateScoreStatus:
        item_id = line_item_id.rsplit("/", 1)[-1]
        if item_id not in self.lms.lineitems:
            raise LineItemNotFoundException
        self.lms.scores.setdefault(item_id, []).append(dict(score))
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, page: int = 1, limit: int | None = None,
                    user_id: str | None = None) -> TPage:
        return {"content": [], "has_next": False, "next": None}


class _Nrps(NamesRoleProvisioningService):
    def __init__(self, lms: TestLms, request: Request, conf: PlatformConf, url: str) -> None:
        super().__init__(request, conf, url)
        self.lms = lms

    def get_member_data_page(self, page: int = 1, limit: int | None = None, role: str | None = None,
                             since: str | None = None) -> TPage:
        members = [{"user_id": m.user_id, "roles": m.roles, "name": m.name, "email": m.email, "status": m.status}
                   for m in self.lms.members.values()]
        return {"content": members, "has_next": False, "next": None}

    def get_context_by_id(self) -> NrpsContext:
        return NrpsContext(id="ctx-1", label="DS", title="Distributed Systems 2026")
