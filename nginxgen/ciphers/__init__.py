"""Cipher strings evaluated the way the target's TLS library does (see engine.py)."""

from nginxgen.ciphers.engine import CipherList, allowed_at, evaluate, evaluate_ciphersuites
from nginxgen.ciphers.model import CipherModel, CipherSuite, load_model, model_for, model_names

__all__ = [
    "CipherList",
    "CipherModel",
    "CipherSuite",
    "allowed_at",
    "evaluate",
    "evaluate_ciphersuites",
    "load_model",
    "model_for",
    "model_names",
]
