"""A small JSON-schema validator for the subset our decision schemas use."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# JSON-schema type names -> Python checks; bool is excluded from the numeric types on purpose
# because json.loads gives True/False for `true`/`false`, which are not numbers in JSON schema.
_TYPE_CHECKS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}

SUPPORTED_KEYWORDS = frozenset(
    {
        "type", "enum", "const", "properties", "required", "additionalProperties", "items",
        "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "anyOf",
        "oneOf", "title", "description", "default", "$schema", "pattern",
    }
)


def schema_problems(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:  # JSON of any shape, checked as read
    """Every way `value` breaks `schema`, each "path: message"; empty when it conforms."""
    problems: list[str] = []
    unknown = set(schema) - SUPPORTED_KEYWORDS
    if unknown:
        # Refuse rather than silently accept: a keyword we do not check would pass bad output.
        raise ValueError(f"{path}: unsupported JSON-schema keyword(s): {', '.join(sorted(unknown))}")
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema.get("oneOf") or []
        matches = [option for option in options if not schema_problems(value, option, path)]
        if not matches:
            problems.append(f"{path}: matches none of the {len(options)} allowed forms")
            return problems
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_TYPE_CHECKS[name](value) for name in names):
            problems.append(f"{path}: expected {' or '.join(names)}, got {type(value).__name__}")
            return problems
    if "enum" in schema and not _in(value, schema["enum"]):
        problems.append(f"{path}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and not _in(value, [schema["const"]]):
        problems.append(f"{path}: {value!r} is not {schema['const']!r}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            problems.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{path}: longer than {schema['maxLength']} characters")
        # JSON-schema patterns search (ECMA-262); ours are anchored, and Python's re reads that subset alike
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            problems.append(f"{path}: does not match the pattern {schema['pattern']!r}")
    if _TYPE_CHECKS["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{path}: {value} < minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{path}: {value} > maximum {schema['maximum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            problems.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                problems.extend(schema_problems(item, schema["items"], f"{path}[{index}]"))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{path}: missing required field {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                problems.extend(schema_problems(item, properties[name], f"{path}.{name}"))
            elif extra is False:
                problems.append(f"{path}: unexpected field {name!r}")
            elif isinstance(extra, dict):
                problems.extend(schema_problems(item, extra, f"{path}.{name}"))
    return problems


def _in(value: object, allowed: list[object]) -> bool:
    """Membership that keeps True apart from 1 (Python's == does not)."""
    return any(type(value) is type(option) and value == option for option in allowed) or any(
        _TYPE_CHECKS["number"](value) and _TYPE_CHECKS["number"](option) and value == option
        for option in allowed
    )
