"""The dashboard's pages (its scripts and styles are mounted at ``/static`` by
``create_app``)."""

from __future__ import annotations

from fastapi.responses import FileResponse

from companion.service.routes.deps import WEB_DIR, router

routes = router()


@routes.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})


@routes.get("/manifest.webmanifest", include_in_schema=False)
def manifest() -> FileResponse:
    return FileResponse(WEB_DIR / "manifest.webmanifest",
                        media_type="application/manifest+json")
