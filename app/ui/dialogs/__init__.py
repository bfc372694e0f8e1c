"""Modal dialogs that return a value through `dismiss`."""
