"""Fuzzing harness shared by the seeded CI tests (tests/*/test_fuzz_*.py) and the long runs
(scripts/fuzz.py): strategies that draw inputs, and checks that state what must hold for each."""
