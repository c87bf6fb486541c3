"""`nginxgen lsp`: the linter, its fixes and the effective model in the editor (issue 28)."""
