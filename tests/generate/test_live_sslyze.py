"""sslyze's Mozilla checker against the served `modern` and `intermediate` presets."""

from __future__ import annotations

from pathlib import Path

import pytest
from sslyze import (
    CertificateInfoExtraArgument,
    ScanCommandsExtraArguments,
    Scanner,
    ServerNetworkConfiguration,
    ServerNetworkLocation,
    ServerScanRequest,
    ServerScanStatusEnum,
)
from sslyze.mozilla_tls_profile.tls_config_checker import (
    MozillaTlsConfiguration,
    ServerNotCompliantWithTlsConfiguration,
    TlsConfigurationEnum,
    check_server_against_tls_configuration,
)

from tests.builds import Build
from tests.generate.test_live_presets import NAME, Served, generate
from tests.live import Server


@pytest.mark.parametrize("preset", ["modern", "intermediate"])
def test_served_preset_is_mozilla_compliant(preset: str, client: Build, tmp_path: Path) -> None:
    # OpenSSL 3.5 (1.26.3): the build that serves what the presets are written for.
    served = generate(preset, client, tmp_path)
    assert isinstance(served, Served)
    # sslyze has to trust our throwaway roots (one per key type) to check the chains.
    roots = tmp_path / "roots.pem"
    roots.write_bytes(b"".join(p.read_bytes() for p in sorted(tmp_path.glob("certs/*/root.crt"))))
    request = ServerScanRequest(
        server_location=ServerNetworkLocation(NAME, served.port, ip_address="127.0.0.1"),
        network_configuration=ServerNetworkConfiguration(tls_server_name_indication=NAME),
        scan_commands_extra_arguments=ScanCommandsExtraArguments(
            certificate_info=CertificateInfoExtraArgument(custom_ca_file=roots)
        ),
    )
    with Server(client, served.conf, [served.port]):
        scanner = Scanner(per_server_concurrent_connections_limit=4)
        scanner.queue_scans([request])
        results = list(scanner.get_results())
    assert len(results) == 1 and results[0].scan_status == ServerScanStatusEnum.COMPLETED
    profile = MozillaTlsConfiguration.get(TlsConfigurationEnum(preset))
    try:
        check_server_against_tls_configuration(results[0], profile)
    except ServerNotCompliantWithTlsConfiguration as error:
        pytest.fail(f"{preset} is not Mozilla-compliant: {error.issues}")
