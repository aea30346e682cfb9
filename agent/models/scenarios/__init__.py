"""Scenario files bundled with dsh-agent (a package so the JSON files ship in wheels)."""
