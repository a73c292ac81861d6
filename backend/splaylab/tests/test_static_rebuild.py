"""splaylab.staticfiles: a frontend rebuilt while the web server runs is served without a
restart (new hashed assets answered 404 until then), and an asset the rebuild deleted is a
404, not a server error. The middleware is built once per Client, as in a running server."""
from pathlib import Path

from django.test import Client


def _dist(settings, tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text('<script src="/static/assets/index-old.js"></script>')
    (dist / "assets" / "index-old.js").write_text("old()")
    settings.FRONTEND_DIST = dist
    settings.STATICFILES_DIRS = [dist]
    settings.WHITENOISE_AUTOREFRESH = False  # as `make up` runs it
    return dist


def test_assets_written_after_startup_are_served(settings, tmp_path, db) -> None:
    dist = _dist(settings, tmp_path)
    client = Client()
    assert client.get("/static/assets/index-old.js").status_code == 200  # the index is built
    assert client.get("/static/assets/index-new.js").status_code == 404

    (dist / "assets" / "index-new.js").write_text("new()")  # npm run build, server running
    (dist / "index.html").write_text('<script src="/static/assets/index-new.js"></script>')
    assert b"index-new.js" in client.get("/jobs/3").content
    res = client.get("/static/assets/index-new.js")
    assert res.status_code == 200
    assert b"".join(res.streaming_content) == b"new()"


def test_an_asset_deleted_by_a_rebuild_is_404(settings, tmp_path, db) -> None:
    dist = _dist(settings, tmp_path)
    client = Client()
    assert client.get("/static/assets/index-old.js").status_code == 200
    (dist / "assets" / "index-old.js").unlink()
    assert client.get("/static/assets/index-old.js").status_code == 404


def test_the_lookup_stays_inside_the_static_folders(settings, tmp_path, db) -> None:
    _dist(settings, tmp_path)
    (tmp_path / "secret.txt").write_text("no")
    client = Client()
    for path in ("/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/assets/../../secret.txt"):
        assert client.get(path).status_code == 404, path
