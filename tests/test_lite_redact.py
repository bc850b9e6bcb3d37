"""Secret redaction (memscribe.core.redact): secrets go, prose stays."""

from __future__ import annotations

import pytest

from memscribe.core.redact import REDACTED, redact


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("my password is hunter2", "hunter2"),
        ("My password for the wifi is correct-horse-battery", "correct-horse-battery"),
        ("password: s3cr3t!", "s3cr3t!"),
        ("my pin is 4821", "4821"),
        ("use sk-proj-abcdefghijklmnopqrstuvwxyz123456 for it", "sk-proj-abcdefghijklmnopqrstuvwxyz123456"),
        ("anthropic key sk-ant-api03-abcdefghijklmnopqrstuv", "sk-ant-api03-abcdefghijklmnopqrstuv"),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        ),
        ("glpat-abcdefghijklmnopqrst12", "glpat-abcdefghijklmnopqrst12"),
        ("AWS key AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("stripe sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"),
        ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
        ("postgres://admin:s3cr3tpw@db.example.com:5432/app", "s3cr3tpw"),
        ("Server=x;Database=y;User Id=u;Password=Pa55word;", "Pa55word"),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXk",
        ),
    ],
)
def test_secrets_are_redacted(text: str, secret: str) -> None:
    cleaned, count = redact(text)
    assert secret not in cleaned and REDACTED in cleaned and count >= 1


@pytest.mark.parametrize(
    "text",
    [
        "The password is in the drawer",
        "the secret to happiness is love",
        "I like pin ball",
        "My token of appreciation was a card",
        "I moved to Sydney last month",
    ],
)
def test_prose_is_left_alone(text: str) -> None:
    assert redact(text) == (text, 0)


def test_key_names_stay_readable() -> None:
    assert redact("postgres://admin:pw1234@host/db")[0] == f"postgres://admin:{REDACTED}@host/db"
    assert redact("my password is hunter2")[0] == f"my password is {REDACTED}"


def test_each_secret_is_counted_once() -> None:
    text = "key sk-proj-abcdefghijklmnopqrstuvwxyz123456 and my password is hunter2hunter2"
    assert redact(text) == (f"key {REDACTED} and my password is {REDACTED}", 2)
