"""The table service: the live table, its durable history, and the phone dashboard's API.

``create_app(settings)`` builds the FastAPI app; ``companion serve`` runs it with uvicorn.
"""

from companion.service.app import create_app
from companion.service.settings import Settings, SettingsError

__all__ = ["Settings", "SettingsError", "create_app"]
