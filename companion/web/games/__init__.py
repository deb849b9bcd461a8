"""One module per game for the phone dashboard (games.js is the registry they join)."""
