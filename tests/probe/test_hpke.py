"""nginxgen/probe/hpke.py against the published test vectors of RFC 9180, Appendix A.1:
DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode (A.1.1 "Base Setup
Information", A.1.1.1 "Encryptions", A.1.1.2 "Exported Values").
Source: https://www.rfc-editor.org/rfc/rfc9180.html#appendix-A.1.1"""

from __future__ import annotations

import pytest

from nginxgen.probe import hpke

# RFC 9180 A.1.1, mode 0, kem_id 32, kdf_id 1, aead_id 1
INFO = "4f6465206f6e2061204772656369616e2055726e"
IKM_E = "7268600d403fce431561aef583ee1613527cff655c1343f29812e66706df3234"
PK_EM = "37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431"
SK_EM = "52c4a758a802cd8b936eceea314432798d5baf2d7e9235dc084ab1b9cfa2f736"
IKM_R = "6db9df30aa07dd42ee5e8181afdb977e538f5e1fec8a06223f33f7013e525037"
PK_RM = "3948cfe0ad1ddb695d780e59077195da6c56506b027329794ab02bca80815c4d"
SK_RM = "4612c550263fc8ad58375df3f557aac531d26850903e55a9f23f21d8534e8ac8"
ENC = "37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431"
SHARED_SECRET = "fe0e18c9f024ce43799ae393c7e8fe8fce9d218875e8227b0187c04e7d2ea1fc"
KEY_SCHEDULE_CONTEXT = (
    "00725611c9d98c07c03f60095cd32d400d8347d45ed67097bbad50fc56da742d07"
    "cb6cffde367bb0565ba28bb02c90744a20f5ef37f30523526106f637abb05449"
)
SECRET = "12fff91991e93b48de37e7daddb52981084bd8aa64289c3788471d9a9712f397"
KEY = "4531685d41d65f03dc48f6b8302c05b0"
BASE_NONCE = "56d890e5accaaf011cff4b7d"
EXPORTER_SECRET = "45ff1c2e220db587171952c0592d5f5ebe103f1561a2614e38f2ffd47e99e3f8"
# A.1.1.1: the same plaintext sealed at these sequence numbers, with these AADs and nonces
PT = "4265617574792069732074727574682c20747275746820626561757479"
ENCRYPTIONS = [
    (0, "436f756e742d30", "56d890e5accaaf011cff4b7d",
     "f938558b5d72f1a23810b4be2ab4f84331acc02fc97babc53a52ae8218a355a96d8770ac83d07bea87e13c512a"),
    (1, "436f756e742d31", "56d890e5accaaf011cff4b7c",
     "af2d7e9ac9ae7e270f46ba1f975be53c09f8d875bdc8535458c2494e8a6eab251c03d0c22a56b8ca42c2063b84"),
    (2, "436f756e742d32", "56d890e5accaaf011cff4b7f",
     "498dfcabd92e8acedc281e85af1cb4e3e31c7dc394a1ca20e173cb72516491588d96a19ad4a683518973dcc180"),
    (4, "436f756e742d34", "56d890e5accaaf011cff4b79",
     "583bd32bc67a5994bb8ceaca813d369bca7b2a42408cddef5e22f880b631215a09fc0012bc69fccaa251c0246d"),
    (255, "436f756e742d323535", "56d890e5accaaf011cff4b82",
     "7175db9717964058640a3a11fb9007941a5d1757fda1a6935c805c21af32505bf106deefec4a49ac38d71c9e0a"),
    (256, "436f756e742d323536", "56d890e5accaaf011cff4a7d",
     "957f9800542b0b8891badb026d79cc54597cb2d225b54c00c5238c25d05c30e3fbeda97d2e0e1aba483a2df9f2"),
]  # fmt: skip
# A.1.1.2: exported values of length 32
EXPORTS = [
    ("", "3853fe2b4035195a573ffc53856e77058e15d9ea064de3e59f4961d0095250ee"),
    ("00", "2e8f0b54673c7029649d4eb9d5e33bf1872cf76d623ff164ac185da9e88c21a5"),
    ("54657374436f6e74657874", "e9e43065102c3836401bed8c3c3c75ae46be1639869391d62c61f1ec7af54931"),
]


def b(text: str) -> bytes:
    return bytes.fromhex(text)


def test_derive_key_pair_gives_both_published_pairs() -> None:
    assert hpke.derive_key_pair(b(IKM_E)) == (b(SK_EM), b(PK_EM))
    assert hpke.derive_key_pair(b(IKM_R)) == (b(SK_RM), b(PK_RM))


def test_encap_and_decap_give_the_published_shared_secret() -> None:
    shared, enc = hpke.encap(b(PK_RM), b(SK_EM))
    assert (shared.hex(), enc.hex()) == (SHARED_SECRET, ENC)
    assert hpke.decap(b(ENC), b(SK_RM)).hex() == SHARED_SECRET


def test_the_key_schedule_gives_the_published_values() -> None:
    schedule = hpke.key_schedule(b(SHARED_SECRET), b(INFO))
    assert schedule.key_schedule_context.hex() == KEY_SCHEDULE_CONTEXT
    assert schedule.secret.hex() == SECRET
    assert (schedule.key.hex(), schedule.base_nonce.hex()) == (KEY, BASE_NONCE)
    assert schedule.exporter_secret.hex() == EXPORTER_SECRET


@pytest.mark.parametrize(("sequence", "aad", "nonce", "ct"), ENCRYPTIONS)
def test_seal_and_open_at_each_published_sequence_number(
    sequence: int, aad: str, nonce: str, ct: str
) -> None:
    enc, sender = hpke.setup_base_s(b(PK_RM), b(INFO), sk_e=b(SK_EM))
    receiver = hpke.setup_base_r(enc, b(SK_RM), b(INFO))
    sender.sequence = receiver.sequence = sequence
    assert sender._nonce().hex() == nonce
    assert sender.seal(b(aad), b(PT)).hex() == ct
    assert receiver.open(b(aad), b(ct)).hex() == PT
    assert sender.sequence == receiver.sequence == sequence + 1


@pytest.mark.parametrize(("exporter_context", "value"), EXPORTS)
def test_exported_values(exporter_context: str, value: str) -> None:
    context = hpke.setup_base_r(b(ENC), b(SK_RM), b(INFO))
    assert context.export(b(exporter_context), 32).hex() == value


def test_a_fresh_ephemeral_key_still_opens_on_the_receiver_side() -> None:
    enc, sender = hpke.setup_base_s(b(PK_RM), b"info")
    assert enc.hex() != ENC
    sealed = sender.seal(b"aad", b"hello")
    assert hpke.setup_base_r(enc, b(SK_RM), b"info").open(b"aad", sealed) == b"hello"
