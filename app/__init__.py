"""grill: interview practice in the terminal (CLI and Textual UI)."""
