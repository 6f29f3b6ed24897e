"""Python function tools for the sample catalog (MCC-compatible)."""


def report(target: str, context: dict) -> dict:
    """Summarises a target for the calling user; remembers it as last_target."""
    context["last_target"] = target
    return {"target": target, "called_by": context["user"], "budget": context.get("budget")}


def add(a: int, b: int = 2) -> int:
    """Adds two integers."""
    return a + b
