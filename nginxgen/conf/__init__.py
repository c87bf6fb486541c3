"""The model of an nginx config, below every command: reading it (lexer, parse, includes),
the tree (servers, listens, sockets, default servers) and what is in effect for a server and
a socket (effective.py). lint, probe, generate --into and report read it; none keeps its own."""
