"""Session resumption's keys: whose session ticket keys serve a (default) server, whether every
worker shares them, and how many workers nginx runs."""

from __future__ import annotations

from nginxgen.conf.config import Config, Server
from nginxgen.knowledge import libraries, nginx
from nginxgen.knowledge.target import Target


class Sessions:
    def __init__(self, config: Config, target: Target) -> None:
        self.config = config
        self.target = target

    def ticket_keys_managed(self, server: Server) -> bool:
        """Whether this (default) server's ticket keys are the admin's or rotated by nginx:
        ssl_session_ticket_key files, or the keys nginx >= 1.23.2 keeps in a shared cache and
        rotates. Otherwise the library's own keys serve until the next reload."""
        if server.value("ssl_session_ticket_key"):
            return True
        cache = server.value("ssl_session_cache") or []
        shared = any(v.startswith("shared:") for v in cache)
        return shared and nginx.auto_ticket_rotation(self.target)

    def ticket_keys_shared(self, server: Server) -> bool:
        """Whether every worker encrypts this (default) server's tickets with the same keys, so
        that a ticket resumes on whichever worker takes the connection: managed keys, one
        worker, or a library that makes its keys with the context, in the master before the
        workers fork (knowledge: ticket_keys_made_with_context). Otherwise each worker makes
        its own on first use, and a ticket resumes only on the worker that issued it."""
        return (
            self.ticket_keys_managed(server)
            or self.single_worker()
            or libraries.has(self.target.library, "ticket_keys_made_with_context")
        )

    def single_worker(self) -> bool:
        """Whether nginx runs one worker: `worker_processes 1`, or no such line in a whole
        nginx.conf (nginx's default is 1). A file of http{} content alone cannot tell."""
        loaded = self.config.loaded
        if loaded.http_level_top:
            return False
        lines = [s for s in loaded.statements if s.directive == "worker_processes"]
        return (lines[-1].args if lines else ["1"]) == ["1"]
