"""Progress: attempts, history storage, scheduling and statistics. Headless: no Textual here."""
