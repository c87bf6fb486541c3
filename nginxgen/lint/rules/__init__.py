"""The rule catalog: one module per rule, listed here explicitly (code -> module name)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache

from nginxgen.base.records import record
from nginxgen.lint.context import Context, Rule
from nginxgen.lint.findings import Finding

MODULES = (
    "ngx001_syntax_error",
    "ngx002_missing_include",
    "ngx003_include_cycle",
    "ngx004_suppression_without_reason",
    "ngx005_runaway_include",
    "ngx006_duplicate_directive",
    "ngx007_unknown_directive",
    "ngx008_directive_not_allowed_here",
    "ngx009_invalid_argument_count",
    "ngx010_invalid_value",
    "ngx011_unknown_variable",
    "ngx012_shared_memory_zone",
    "ngx013_duplicate_listen_options",
    "ngx014_protocol_options_redefined",
    "ngx015_headers_hash_not_optimal",
    "ngx016_unknown_log_format",
    "ngx017_conflicting_server_name",
    "ngx018_server_names_hash",
    "ngx019_no_events_section",
    "ngx020_address_in_two_blocks",
    "ngx021_module_not_loadable",
    "ngx022_block_entry_conflict",
    "ngx023_map_types_hash",
    "ngx024_regex_does_not_compile",
    "ngx025_location_placement",
    "ngx026_proxy_pass_uri_not_allowed",
    "ngx027_network_low_bits",
    "ngx028_dual_stack_port_taken",
    "ngx029_variable_defined_twice",
    "ngx101_curves_outside_default_server",
    "ngx102_session_outside_default_server",
    "ngx103_protocols_outside_default_server",
    "ngx104_early_data_outside_default_server",
    "ngx105_tickets_on_in_vhost",
    "ngx106_no_explicit_default_server",
    "ngx107_duplicate_default_server",
    "ngx108_reject_handshake_without_return",
    "ngx109_preread_outside_default_server",
    "ngx110_ech_file_outside_default_server",
    "ngx201_group_unavailable",
    "ngx202_group_syntax_unsupported",
    "ngx203_pq_not_enforced",
    "ngx204_group_not_recommended",
    "ngx301_directive_unavailable",
    "ngx302_directive_deprecated",
    "ngx303_default_protocols",
    "ngx304_security_advisories",
    "ngx401_legacy_protocol",
    "ngx402_weak_cipher",
    "ngx403_cbc_sha1_cipher",
    "ngx404_tls13_name_in_ssl_ciphers",
    "ngx405_tls13_suites_from_ssl_ciphers",
    "ngx406_prioritize_chacha_without_preference",
    "ngx407_quic_without_tls13",
    "ngx408_no_cipher_match",
    "ngx409_tls13_disabled",
    "ngx410_cipher_string_refused",
    "ngx411_seclevel_refuses_certificate",
    "ngx412_ech_without_tls13",
    "ngx413_no_suite_for_certificate",
    "ngx501_conf_command_unsupported",
    "ngx502_stapling_unsupported",
    "ngx503_early_data_ignored",
    "ngx504_conf_command_refused",
    "ngx505_ech_unsupported",
    "ngx601_no_session_cache",
    "ngx602_tickets_without_rotation",
    "ngx603_keepalive_off",
    "ngx604_low_keepalive_requests",
    "ngx605_ktls_cannot_engage",
    "ngx606_tickets_off_no_tls13_resumption",
    "ngx701_hsts_missing",
    "ngx702_hsts_not_always",
    "ngx703_hsts_short",
    "ngx704_hsts_dropped_in_location",
    "ngx711_stapling_without_resolver",
    "ngx712_stapling_verify_without_trusted",
    "ngx713_early_data_replay",
    "ngx714_certificate_key_pairs",
    "ngx715_listen_ssl_without_certificate",
    "ngx716_certificate_without_tls_listen",
    "ngx721_certificate_key_mismatch",
    "ngx722_certificate_chain_incomplete",
    "ngx723_certificate_chain_order",
    "ngx724_certificate_weak_key",
    "ngx725_certificate_expiry",
    "ngx726_stapling_without_ocsp_url",
    "ngx727_certificate_file_unloadable",
    "ngx728_certificate_weak_signature",
    "ngx731_dhparam_weak",
    "ngx732_dhe_without_dhparam",
    "ngx733_dhparam_unused",
    "ngx734_ticket_key_size",
    "ngx801_backend_not_verified",
    "ngx802_backend_no_sni",
    "ngx803_backend_name_is_upstream_block",
    "ngx804_backend_no_keepalive",
    "ngx805_backend_legacy_protocol",
    "ngx806_backend_not_post_quantum",
    "ngx807_backend_connection_shared",
    "ngx741_client_verify_unchecked",
    "ngx742_verify_depth_too_low",
    "ngx743_client_verify_misdirected",
    "ngx744_client_revocation_unchecked",
    "ngx751_ech_key_file_invalid",
    "ngx752_ech_public_name_not_served",
)


@record(frozen=True)
class RuleEntry:
    rule: Rule
    doc: str
    check: Callable[[Context], Iterator[Finding]]

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0]


@cache
def catalog() -> dict[str, RuleEntry]:
    """Every rule, each module imported."""
    return {entry.rule.code: entry for entry in map(_entry, MODULES)}


@cache
def _entry(module_name: str) -> RuleEntry:
    # __import__, not importlib.import_module: importing importlib (and warnings) is a cost
    # every pre-commit start would pay for one call
    module = __import__(f"{__name__}.{module_name}", fromlist=["check"])
    return RuleEntry(module.RULE, module.__doc__ or "", module.check)


def triggered(present: set[str], wanted: Callable[[str, str], bool]) -> Iterator[RuleEntry]:
    """The rules that may find something in a tree holding the directives `present`, of those
    `wanted(code, name)` picks: a rule with triggers (Rule.triggers) runs only where one of them
    is present. Read from the generated index (_index.py), so that a rule that cannot fire is not
    imported: most of a one-file lint's start-up was importing all of them."""
    from nginxgen.lint.rules._index import INDEX

    for code, name, module_name, triggers in INDEX:
        if wanted(code, name) and (not triggers or not present.isdisjoint(triggers)):
            yield _entry(module_name)


INDEX_HEADER = '''"""Each rule's code, name, module and triggers (Rule.triggers), in catalog order: lint
imports a rule only for a tree that holds one of its triggers (nginxgen.lint.rules.triggered).
Generated from the rule modules by `python scripts/render_rule_docs.py`; tests/lint/test_rule_docs.py
fails when it is stale."""

# fmt: off
INDEX: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
'''


def render_index() -> str:
    """The text of _index.py, from the rule modules."""

    def quoted(words: tuple[str, ...]) -> str:
        return ", ".join(f'"{word}"' for word in words)

    rows = []
    for module_name in MODULES:
        rule = _entry(module_name).rule
        triggers = rule.triggers
        listed = f"({quoted(triggers)}{',' if len(triggers) == 1 else ''})"
        rows.append(f"    ({quoted((rule.code, rule.name, module_name))}, {listed}),\n")
    return INDEX_HEADER + "".join(rows) + ")\n# fmt: on\n"


def selector_problem(selector: str) -> str | None:
    """Why `selector` picks no rule, naming the nearest known code or name; None when it is a
    rule's name, its code, or a code prefix (NGX4) that at least one rule has. A typo must not
    switch the linter off in silence (--select NGX999 once selected nothing, exit 0)."""
    from nginxgen.lint.rules._index import INDEX

    codes = [code for code, _, _, _ in INDEX]
    names = {name for _, name, _, _ in INDEX}
    if selector in names or (
        re.fullmatch(r"NGX\d{0,3}", selector) and any(code.startswith(selector) for code in codes)
    ):
        return None
    from nginxgen.base.spelling import nearest  # only on the way to an error

    known = sorted(codes) if selector[:3].upper() == "NGX" else sorted(names)
    guess = nearest(selector, known)
    hint = f"; did you mean {guess}?" if guess else ""
    return f"no rule is {selector!r}{hint} (nginxgen rules lists them; a prefix like NGX4 works)"
