"""Static files (the built SPA in frontend/dist, the API docs' assets): WhiteNoise, plus a
lookup for files that appeared after startup.

WhiteNoise indexes the static files once, when the web process starts (without autorefresh,
which searches the file system on every request and is meant for development). A frontend
rebuilt while the stack runs (`npm run build` during `make up`) writes new hashed assets that
index.html, read afresh on each visit (views.spa_index), names at once: they answered 404
until a restart. Here a miss under STATIC_URL is looked up once the way autorefresh does
(Django's finders, canonical URLs only, so nothing outside the static folders), and a file
found is added to the index. An indexed file deleted since (the rebuild empties dist) is a
404, not a server error.
"""
from __future__ import annotations

from typing import Any

from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    def __call__(self, request: Any) -> Any:
        if self.autorefresh:
            return super().__call__(request)
        url = request.path_info
        static_file = self.files.get(url)
        if static_file is None and url.startswith(self.static_prefix):
            static_file = self._late_file(url)
        if static_file is not None:
            try:
                return self.serve(static_file, request)
            except FileNotFoundError:  # gone since it was indexed
                self.files.pop(url, None)
                static_file = self._late_file(url)
                if static_file is not None:
                    return self.serve(static_file, request)
        return self.get_response(request)

    def _late_file(self, url: str) -> Any:
        """A static file written since startup, indexed from now on; None if there is none."""
        static_file = self.find_file(url)
        if static_file is not None:
            self.files[url] = static_file
        return static_file
