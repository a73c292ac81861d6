from __future__ import annotations

from rest_framework.exceptions import ValidationError

from accounts.models import User
from lib.churn_preview import churn_preview

from .models import Scenario


def _check(text: str) -> None:
    errors = churn_preview(text)["errors"]
    if errors:
        raise ValidationError({"text": [f"line {e['line']}" + (f", column {e['column']}" if e["column"] else "")
                                        + f": {e['message']}" for e in errors]})


def scenario_save(*, owner: User, name: str, text: str, description: str = "",
                  scenario: Scenario | None = None) -> Scenario:
    """Create or replace a library scenario; a scenario with errors is refused (400 on text)."""
    _check(text)
    if Scenario.objects.filter(name=name).exclude(id=scenario.id if scenario else None).exists():
        raise ValidationError({"name": [f"a scenario named '{name}' exists already"]})
    if scenario is None:
        return Scenario.objects.create(owner=owner, name=name, text=text, description=description)
    scenario.name, scenario.text, scenario.description = name, text, description
    scenario.save()
    return scenario
