"""The shells: the command line over the features (the language server is
nginxgen/lsp/, the in-process API nginxgen/api/)."""
