"""Mock interviews: the draw, answer matching, the timed session, scoring and the report.

Headless on purpose: nothing here imports Textual or torch, so the logic is tested without a
terminal and the screens stay thin.
"""
