"""Reports: herd7-style text and JSON."""
