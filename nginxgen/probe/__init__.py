"""`nginxgen probe`: what a live server negotiates, per name (issue 16)."""
