#!/usr/bin/env bash
# The command that wrote nginxgen/knowledge/nginx_directives.json: MIRROR holds clones of
# nginx/nginx and of the third-party modules (the search tool's fetch puts them there).
set -euo pipefail
M="${MIRROR:-/work/.mirror}"
args=(--repo "$M/nginx+nginx/repo")
for repo in openresty/headers-more-nginx-module openresty/lua-nginx-module nginx/njs \
    openresty/set-misc-nginx-module openresty/echo-nginx-module \
    google/ngx_brotli leev/ngx_http_geoip2_module vozlt/nginx-module-vts \
    owasp-modsecurity/ModSecurity-nginx apache/incubator-pagespeed-ngx; do
    args+=(--third-party "$repo=$M/${repo/\//+}/repo")
done
exec python "$(dirname "$0")/build_directive_tables.py" "${args[@]}"
