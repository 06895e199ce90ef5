"""Third adversarial review of the redactor (branch ``adversary3``): today's shortcuts.

Each test is one finding and failed when written: a private value that survived in a bundle
called publishable, where the code before the shortcuts (``6ae849a``) redacted it.
"""

from __future__ import annotations

from unittest import mock

from evidence_kit.redact import redact_bundle, run

from . import corpus
from .conftest import KEY
from .leakcheck import survivors
from .test_adversary import _published
from .test_leak_classes import plant

# -- the ledger: the rewrite copies a batch on what discovery noted ----------------------------


def test_a_jsonl_file_that_changes_while_it_is_redacted_is_not_published_unredacted(tmp_path):
    # The rewrite takes the literals discovery noted for a JSONL batch "by place" (same index, same
    # line count, no digest) and copies the batch as it is when they were all clean. A file that is
    # rewritten in place between discovery and the rewrite (a status file a collector refreshes)
    # is copied on stale notes: the new line is never examined. The scan does examine it, but the
    # scan reads output, where a detector hit spelled like a pseudonym is one (hostname=gpu-2), so
    # a real host the rewrite's own examination would have replaced (it did before the ledger) is
    # published. The ledger's promise was: it "can make a leak fail the scan, never pass it".
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"telemetry/status.jsonl": '{"note": "warming up"}\n'})
    discover_files = run.discover_files

    def discovery_then_a_refresh(*args, **kwargs):
        discovered = discover_files(*args, **kwargs)
        (raw / "telemetry/status.jsonl").write_text('{"note": "hostname=gpu-2"}\n')  # same line count
        return discovered

    with mock.patch.object(run, "discover_files", discovery_then_a_refresh):
        result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert _published(result, ["gpu-2"]) == []


def test_a_value_glued_to_a_word_of_hex_digits_is_redacted_whole_not_refused(tmp_path):
    # Found by the hypothesis property: without a key the pseudonyms are counters (path-1), and a
    # known value glued to a word of hex digits (ckpt-falcon-secreta00000) came out as path-1a00000,
    # which the scan read as a fingerprint: a clean input was refused. The hex word now goes with
    # the value, as digits always did; a glued word that is not all hex digits stays (model-1band).
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "logs/run.txt": "ckpt /srv/projects/Project Bluebird/ckpt-falcon-secreta00000 ok\nhost gpu-node-17.lab.acme-corp.internalab12345 ok\n"
        },
    )
    for key in (None, KEY):
        result = redact_bundle(raw, tmp_path / f"out-{key is None}", key=key)
        assert result.publishable, [str(f) for f in result.findings]
        assert survivors(result.out, ["falcon-secret", "a00000", "ab12345"]) == []


def test_a_padded_or_hex_dotted_address_glued_to_other_characters_is_hunted(tmp_path):
    # Found by the hypothesis property: the view that reads 010.020.030.040 and 0x0a.0x14.0x1e.0x28
    # as 10.20.30.40 wanted no digit around the address, so glued to a counter (9010.…, …0409) or to
    # a hex word (00a00x0a.…) the private address was published as written.
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"), files={"logs/run.txt": "a 00a00x0a.0x14.0x1e.0x28 b 9010.020.030.040 c 010.020.030.0409 d\n"}
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    published = "".join(p.read_text() for p in result.out.rglob("*.txt")).lower()
    # (survivors() reads a number only as a whole number, so a glued one is looked for as written.)
    assert "0x0a.0x14.0x1e.0x28" not in published and "010.020.030.040" not in published


def test_a_value_glued_after_a_value_widened_over_a_hex_word_keeps_its_hit(tmp_path):
    # Found attacking the hex-word widening above: gpu-node-17 took "Deadbeef" with it (a hex word),
    # then the declared codename "Deadbeef Bazooka" started inside that widened run and was skipped,
    # so "Bazooka" was published and the scan (which sees "host-… Bazooka") agreed.
    for line in ("ckpt gpu-node-17Deadbeef Bazooka done\n", "m acme-labs/falcon-secret-70bdeadbeef Bazooka\n"):
        raw = plant(corpus.make_raw_trial(tmp_path / f"raw{len(line)}"), {"codename": "Deadbeef Bazooka"}, {"logs/run.txt": line})
        result = redact_bundle(raw, tmp_path / f"out{len(line)}", key=KEY)
        assert result.publishable, [str(f) for f in result.findings]
        assert survivors(result.out, ["Bazooka", "gpu-node-17", "falcon-secret"]) == []
