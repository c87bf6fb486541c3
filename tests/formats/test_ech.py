"""nginxgen/base/ech_configs.py: ECHConfigLists, OpenSSL 4.0's ECH key files and the HTTPS record's `ech=`.
The oracle for the key file and the config list is OpenSSL 4.0.3's own `openssl ech`: it writes
the files read here, and reads back (`-in FILE -text`) the ones written here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nginxgen.base import ech_configs as ech
from tests.builds import Build
from tests.conftest import require_build


@pytest.fixture(scope="module")
def openssl40(provisioned: tuple[dict[str, Build], dict[str, str]]) -> Build:
    return require_build(provisioned, "openssl40")


def _openssl_entries(build: Build, path: Path) -> list[tuple[str, int, str, str, str, int]]:
    """What `openssl ech -in FILE -text` says of each config: (version, config_id,
    public_name, suite, public key hex, maximum_name_length)."""
    done = build.openssl("ech", "-in", str(path), "-text")
    assert done.returncode == 0, done.stderr
    found = []
    said = done.stdout + done.stderr  # OpenSSL 4.0.3 prints the entries on stderr
    for line in said.splitlines():
        match = re.match(r"\s*\[(\w+),(\w+),([^,]+),\[(\w+),(\w+),(\w+)\],(\w+),(\w+),", line)
        if match:
            version, config_id, name, kem, kdf, aead, key, maximum = match.groups()
            found.append((version, int(config_id, 16), name, f"{kem},{kdf},{aead}", key,
                          int(maximum, 16)))  # fmt: skip
    assert found, said
    return found


def test_a_key_file_openssl_wrote_reads_as_openssl_reads_it(
    openssl40: Build, tmp_path: Path
) -> None:
    path = tmp_path / "ech.pem"
    done = openssl40.openssl("ech", "-public_name", "public.example", "-out", str(path))
    assert done.returncode == 0, done.stderr
    key_file = ech.read_key_file(path.read_text())
    [config] = key_file.config_list.configs
    [(version, config_id, name, suite, key, maximum)] = _openssl_entries(openssl40, path)
    assert (version, name, maximum) == ("fe0d", "public.example", 0)
    assert config.config_id == config_id and config.public_name == name
    assert config.public_key.hex() == key
    assert [(s.kdf_id, s.aead_id) for s in config.suites] == [(1, 1)]
    assert f"{config.kem_id:04x},0001,0001" == suite
    assert key_file.matches()
    # and the whole list survives a round trip, byte for byte
    assert ech.serialise_config_list([config.raw]) == key_file.config_list.raw
    block = re.search(r"BEGIN ECHCONFIG-----\n(.*?)-----END", path.read_text(), re.S)
    assert block and ech.decode_base64(block.group(1)).raw == key_file.config_list.raw


def test_a_key_file_written_here_reads_in_openssl(openssl40: Build, tmp_path: Path) -> None:
    path = tmp_path / "ours.pem"
    path.write_text(ech.new_key_file("cover.example", maximum_name_length=32))
    ours = ech.read_key_file(path.read_text())
    [config] = ours.config_list.configs
    [(version, config_id, name, suite, key, maximum)] = _openssl_entries(openssl40, path)
    assert (version, name, suite, maximum) == ("fe0d", "cover.example", "0020,0001,0001", 32)
    assert (config_id, key) == (config.config_id, config.public_key.hex())
    assert "(has private key)" in openssl40.openssl("ech", "-in", str(path), "-text").stderr
    assert ours.matches()


def _one_config(name: str = "public.example") -> ech.EchConfigList:
    raw = ech.serialise_config(7, bytes(range(32)), name)
    return ech.parse_config_list(ech.serialise_config_list([raw]))


def test_other_versions_are_kept_whole_and_skipped() -> None:
    ours = ech.serialise_config(1, b"\x01" * 32, "a.example")
    draft = (0xFE0A).to_bytes(2, "big") + (3).to_bytes(2, "big") + b"xyz"
    parsed = ech.parse_config_list(ech.serialise_config_list([draft, ours]))
    assert [c.public_name for c in parsed.configs] == ["a.example"]
    assert parsed.others == ((0xFE0A, draft),)


def test_mandatory_extensions_are_named() -> None:
    raw = ech.serialise_config(1, b"\x01" * 32, "a.example", extensions=((0x8001, b""), (2, b"x")))
    assert ech.parse_config(raw).mandatory_extensions == (0x8001,)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "ECHConfigList length: 2 bytes announced, 0 left"),
        (b"\x00\x00", "the ECHConfigList is empty"),
        (b"\x00\x05\xfe\x0d\x00\x10\x01", "ECHConfig: 16 bytes announced, 1 left"),
        (ech.serialise_config_list([ech.serialise_config(1, b"k", "a")]) + b"!",
         "1 byte after the ECHConfigList"),
    ],
)  # fmt: skip
def test_a_broken_list_is_one_line(data: bytes, message: str) -> None:
    with pytest.raises(ech.EchError) as caught:
        ech.parse_config_list(data)
    assert str(caught.value) == message


def test_records_in_presentation_and_generic_form() -> None:
    configs = _one_config()
    record = ech.https_record("example.com", configs, alpn=("h2", "http/1.1"))
    assert record == f'example.com. 3600 IN HTTPS 1 . alpn="h2,http/1.1" ech={configs.base64()}'
    assert ech.ech_from_record(record).raw == configs.raw
    # dig's spelling (quoted), the generic key name, and an HTTPS record with no owner
    assert ech.ech_from_record(f'1 . ech="{configs.base64()}"').raw == configs.raw
    assert ech.ech_from_record(f"1 . key5={configs.base64()} port=8443").raw == configs.raw
    # RFC 3597's generic form: priority 1, target "." (the root), then key 5
    wire = b"\x00\x01" + b"\x00" + b"\x00\x05" + len(configs.raw).to_bytes(2, "big") + configs.raw
    generic = f"example.com. 300 IN TYPE65 \\# {len(wire)} {wire.hex()}"
    assert ech.ech_from_record(generic).raw == configs.raw
    with pytest.raises(ech.EchError, match="no ech= parameter"):
        ech.ech_from_record('1 . alpn="h2"')


def test_zone_file_comments_are_skipped_and_errors_carry_their_line() -> None:
    """RFC 1035 section 5.1: `;` to the end of the line is a comment, but not inside quotes;
    parentheses continue a record over lines."""
    configs = _one_config()
    text = (
        "; records with ech= to publish (a comment: its ech= is no parameter)\n"
        "$TTL 300\n"
        'example.com. IN HTTPS 1 . ( alpn="h2;h3" ; the protocols\n'
        f"    ech={configs.base64()} )  ; the config list\n"
    )
    assert ech.ech_from_record(text).raw == configs.raw
    # the first record with ech= decides; an error names the line of its value
    broken = "; header\n; more\nexample.com. 300 IN HTTPS 1 . alpn=h2\n  ; x\na. 1 IN HTTPS 1 . ech=AAAA\n"
    with pytest.raises(ech.EchError) as caught:
        ech.ech_from_record(broken)
    assert (str(caught.value), caught.value.line) == (
        "ech=: not an ECHConfigList (1 byte after the ECHConfigList)",
        5,
    )
    with pytest.raises(ech.EchError, match=r"^no ech= parameter in any record$"):
        ech.ech_from_record("; ech=AAAA\na. IN HTTPS 1 . alpn=h2\nb. IN HTTPS 1 . port=1\n")
    with pytest.raises(ech.EchError, match="not closed") as caught:
        ech.ech_from_record('; x\na. IN HTTPS 1 . alpn="h2 ech=AAAA\n')
    assert caught.value.line == 2


def test_the_dns_file_generate_writes_is_read_back(tmp_path: Path) -> None:
    from nginxgen.generate.ech import _dns_text
    from nginxgen.generate.models import EchPolicy

    configs = _one_config()
    record = ech.https_record("a.example", configs, alpn=("h2",))
    path = tmp_path / "ech-dns.txt"
    path.write_text(_dns_text(EchPolicy(public_name="cover.example"), ["ech.pem"], [record]))
    assert "ech=" in path.read_text().splitlines()[0]  # the header mentions it, in a comment
    assert ech.read_config_list(str(path)).raw == configs.raw


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "empty: give a key file, an HTTPS record or a base64 ECHConfigList"),
        ("   ", "empty: give a key file, an HTTPS record or a base64 ECHConfigList"),
        ("/nonexistent/nofile.pem", "/nonexistent/nofile.pem: no such file"),
        ("nofile.pem", "nofile.pem: no such file"),
        ("AAAA", "not an ECHConfigList (1 byte after the ECHConfigList)"),
        ("AAQ=", "not an ECHConfigList (ECHConfigList: 4 bytes announced, 0 left)"),
        ("not base64!", "'not base64!' is not base64"),
    ],
)
def test_the_ech_config_argument_says_what_is_wrong(value: str, message: str) -> None:
    with pytest.raises(ech.EchError) as caught:
        ech.read_config_list(value)
    assert str(caught.value) == message


def test_a_directory_is_no_ech_config(tmp_path: Path) -> None:
    with pytest.raises(ech.EchError, match=r"is a directory: give a key file"):
        ech.read_config_list(str(tmp_path))


def test_the_ech_config_argument_takes_a_file_a_record_or_base64(tmp_path: Path) -> None:
    configs = _one_config()
    assert ech.read_config_list(configs.base64()).raw == configs.raw
    assert ech.read_config_list(f"1 . ech={configs.base64()}").raw == configs.raw
    key_file = tmp_path / "ech.pem"
    key_file.write_text(ech.new_key_file("cover.example"))
    assert ech.read_config_list(str(key_file)).configs[0].public_name == "cover.example"
    record_file = tmp_path / "record.txt"
    record_file.write_text(ech.https_record("example.com", configs) + "\n")
    assert ech.read_config_list(str(record_file)).raw == configs.raw
    with pytest.raises(ech.EchError, match="is not base64"):
        ech.read_config_list("not base64!")
    # base64's padding is no record parameter; a key=value without ech= is a record without it
    with pytest.raises(ech.EchError, match="4 bytes announced"):
        ech.read_config_list("AAQ=")
    with pytest.raises(ech.EchError, match="no ech= parameter"):
        ech.read_config_list("1 . alpn=h2")
    # a file that is none of them: its content is not repeated (it may be a key)
    other = tmp_path / "secret.txt"
    other.write_text("password=hunter2 and more\n")
    with pytest.raises(ech.EchError) as caught:
        ech.read_config_list(str(other))
    assert "hunter2" not in str(caught.value)
    other.write_text("hunter2\n")
    with pytest.raises(ech.EchError, match=r"^neither an ECH key file") as caught:
        ech.read_config_list(str(other))
    assert "hunter2" not in str(caught.value)


def test_a_key_file_without_its_config_is_refused_with_the_reason() -> None:
    text = ech.new_key_file("cover.example")
    with pytest.raises(ech.EchError, match="no ECHCONFIG block"):
        ech.read_key_file(text.split("-----BEGIN ECHCONFIG-----")[0])
    broken = text.replace(text.split("\n")[-3], "A" + text.split("\n")[-3][1:])
    with pytest.raises(ech.EchError) as caught:
        ech.read_key_file(
            broken.replace("-----BEGIN ECHCONFIG-----\n", "-----BEGIN ECHCONFIG-----\n!")
        )
    assert caught.value.line == 4 and "ECHCONFIG:" in str(caught.value)
