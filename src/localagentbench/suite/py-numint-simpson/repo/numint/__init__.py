from numint.rules import integrate, simpson, trapezoid

__all__ = ["integrate", "simpson", "trapezoid"]
