"""The Textual app: home, practice and code-task screens. Never imports torch."""
