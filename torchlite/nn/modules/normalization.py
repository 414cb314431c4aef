"""Placeholder: filled in by the nn modules work."""
__all__ = []
