"""The linter: read the config (nginxgen.conf.load), build a config model, run the rules, report."""
