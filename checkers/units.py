"""Bytes as people read them, for messages and the memory curve."""


def format_bytes(amount: float) -> str:
    if abs(amount) < 1024:
        return f"{amount:.0f} B"
    if abs(amount) < 1024**2:
        return f"{amount / 1024:.1f} KB"
    if abs(amount) < 1024**3:
        return f"{amount / 1024**2:.1f} MB"
    return f"{amount / 1024**3:.2f} GB"
