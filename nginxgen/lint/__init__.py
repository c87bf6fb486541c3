"""The linter: parse with crossplane, build a config model, run the rules, report."""
