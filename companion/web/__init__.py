"""The phone dashboard: static HTML, CSS and JavaScript served by the table service."""
