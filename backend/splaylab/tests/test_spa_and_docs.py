"""The SPA catch-all, static files and the API docs."""
from django.test import Client


def test_spa_paths_get_503_text_when_frontend_not_built(settings, tmp_path, db) -> None:
    settings.FRONTEND_DIST = tmp_path / "missing"
    res = Client().get("/jobs/12")
    assert res.status_code == 503
    assert res["Content-Type"].startswith("text/plain")
    assert b"not built" in res.content


def test_spa_paths_get_index_html_and_a_csrf_cookie(settings, tmp_path, db) -> None:
    (tmp_path / "index.html").write_text("<div id=root></div>")
    settings.FRONTEND_DIST = tmp_path
    res = Client().get("/workspaces/3/edit")
    assert res.status_code == 200
    assert res.content == b"<div id=root></div>"
    assert res.cookies["csrftoken"].value


def test_unknown_api_paths_are_404_not_the_spa(settings, tmp_path, db) -> None:
    (tmp_path / "index.html").write_text("<div id=root></div>")
    settings.FRONTEND_DIST = tmp_path
    assert Client().get("/api/nope/").status_code == 404
    assert Client().get("/static/nope.js").status_code == 404


def test_schema_and_swagger_ui_are_served(db) -> None:
    schema = Client().get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/jobs/{job_id}/logs/" in schema.content
    assert Client().get("/api/docs/").status_code == 200


def test_swagger_ui_loads_nothing_from_a_cdn(db) -> None:
    page = Client().get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower()
