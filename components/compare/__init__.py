"""The compare page's widgets: picking two sessions and drawing what differs."""
