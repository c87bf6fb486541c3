"""nginxgen: nginx TLS configuration generator and linter."""

__version__ = "0.1.0"
