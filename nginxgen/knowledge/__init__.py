"""The knowledge base: every nginx and TLS library fact nginxgen relies on, as data with sources.

The data lives in the TOML and JSON files of this folder; one module per topic answers questions
about it for a target ("has this library kTLS?", "how does it spell P-256?") with typed records,
and the generator's validation, the config model and the linter's rules all ask there and
nowhere else. Import the topic module (`from nginxgen.knowledge import tls_groups`): this
package runs nothing, so a command pays only for the topics it reads.

- `nginx`: releases, directives and features by release, defaults, what only the default server
  decides, what nginx does where its documentation is silent (nginx.toml);
- `upstream`: nginx as a client of a backend (nginx.toml upstream_tls, upstream_keepalive);
- `directives`: nginx's directives per release and which take a block (generated tables);
- `nginx_values`: how nginx reads values, and its custom setters' grammars (nginx_values.*);
- `libraries`: TLS libraries' capabilities and key strengths (libraries.toml);
- `library_tables`: what each library build accepted under `nginx -t` (tls_tables/);
- `tls_groups`: groups, their spellings and defaults per library (groups.toml);
- `cipher_suites`: the suite table and why a suite is weak (ciphers/, libraries.toml);
- `releases`, `advisories`: nginx's and the libraries' releases, nginx's security advisories;
- `ech`: Encrypted Client Hello in nginx: its directive, log variables, who can serve it;
- `logs`: the generated TLS access log (logging.toml); `web`: HSTS, legacy protocols (web.toml);
- `managers`: tools that manage nginx files (managers.toml); `pki`: CAs (pki.toml);
- `data`: the files themselves, read only by the modules above.
"""
