"""Evidence images: JPEG at most 150 kB a frame, stamped with table, round, attempt and UTC."""

from __future__ import annotations

import cv2
import numpy as np

from firmware_host.evidence import EvidenceStore
from firmware_host.simulation.rendered_camera import RenderedCamera
from vision.evidence import EVIDENCE_MAX_BYTES, EvidenceStamp, encode_evidence


class FixedClock:
    def utc(self) -> str:
        return "2026-05-01T20:14:09.480Z"


def test_a_rendered_table_frame_is_a_stamped_jpeg_under_150_kb(tmp_path):
    shot = RenderedCamera("craps", seed=3).throw("valid")
    store = EvidenceStore(tmp_path, 30, table="craps-1", clock=FixedClock())
    evidence = store.save_frame("craps", 42, 2, shot.image)
    data = (tmp_path / evidence.ref).read_bytes()
    assert evidence.ref == "evidence/craps-00000042-2.jpg" and data[:2] == b"\xff\xd8"
    assert len(data) <= EVIDENCE_MAX_BYTES
    assert b"craps-1  round 42  attempt 2  2026-05-01T20:14:09.480Z" in data[:200]  # the JPEG comment
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[0] == shot.image.shape[0] + 26 and image.shape[1] == shot.image.shape[1]
    assert image[-20:, :400].mean() > 3  # the stamp's text is drawn in the banner under the frame


def test_a_noisy_full_hd_frame_still_fits_by_lowering_the_quality():
    noise = np.random.default_rng(0).integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    smooth = cv2.GaussianBlur(noise, (0, 0), 2.0)
    data = encode_evidence(smooth, EvidenceStamp("t", 1, 1, "u"))
    assert len(data) <= EVIDENCE_MAX_BYTES, len(data)
