"""Question packs: the card model, loader, linter and the shipped packs."""
