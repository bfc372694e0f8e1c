"""Practice: what home lists and filters, the reveal's order, time per phase, and the self-grade.

The twin of `app.mock`, headless on purpose: nothing here imports Textual or torch, so the
practice rules are tested without a terminal and the screens stay thin.
"""
