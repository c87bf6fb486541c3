"""`nginxgen report`: read TLS access logs and summarize what clients negotiated."""
