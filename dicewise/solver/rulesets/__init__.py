"""The registry of rulesets by name."""
