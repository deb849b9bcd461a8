"""Table Companion: keeps score and turn order for a real game table."""

__version__ = "0.1.0"
