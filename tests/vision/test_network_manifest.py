"""The committed networks are loaded only as pinned by vision/weights/SHA256SUMS (vision/onnx_net.py).

A network file corrupted on the SD card, or swapped by a half-done update, reads dice differently from the
one measured in docs/vision.md; the reader refuses it and says which file and which hash.
"""

import hashlib
import shutil
from pathlib import Path

import pytest

from vision import onnx_net
from vision.errors import VisionError
from vision.face_classifier import DEFAULT_WEIGHTS, FaceClassifier
from vision.pose_net import DEFAULT_POSE_WEIGHTS, PoseNet


def test_the_manifest_pins_each_committed_network_and_they_load():
    lines = onnx_net.MANIFEST.read_text().splitlines()
    pinned = dict(reversed(line.split("  ")) for line in lines)
    assert sorted(pinned) == sorted(p.name for p in onnx_net.COMMITTED.glob("*.onnx"))
    for path, net in ((DEFAULT_WEIGHTS, FaceClassifier().net), (DEFAULT_POSE_WEIGHTS, PoseNet().net)):
        assert net.sha256 == pinned[path.name] == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def weights_dir(tmp_path, monkeypatch):
    """A copy of vision/weights standing in for the committed folder."""
    folder = tmp_path / "weights"
    shutil.copytree(onnx_net.COMMITTED, folder)
    monkeypatch.setattr(onnx_net, "COMMITTED", folder.resolve())
    monkeypatch.setattr(onnx_net, "MANIFEST", folder.resolve() / "SHA256SUMS")
    return folder


def test_a_changed_network_is_refused_naming_the_file_and_both_hashes(weights_dir):
    face = weights_dir / "face_net.onnx"
    content = bytearray(face.read_bytes())
    content[-100] ^= 0x01  # one bit flipped in a weight: still a loadable model, no longer the one measured
    face.write_bytes(bytes(content))
    with pytest.raises(VisionError, match=r"face classifier weights .*face_net.onnx: SHA-256 [0-9a-f]{64} "
                                          r"is not the 7844d880[0-9a-f]{56} pinned in .*SHA256SUMS"):
        FaceClassifier(face)
    assert PoseNet(weights_dir / "pose_net.onnx").net.sha256 == onnx_net.pinned_sha256(weights_dir / "pose_net.onnx")


def test_a_network_the_manifest_does_not_name_is_refused(weights_dir):
    shutil.copy(weights_dir / "pose_net.onnx", weights_dir / "pose_net_v2.onnx")
    with pytest.raises(VisionError, match=r"pose_net_v2.onnx is not in the networks' manifest"):
        PoseNet(weights_dir / "pose_net_v2.onnx")


def test_a_missing_or_malformed_manifest_is_refused(weights_dir):
    manifest = weights_dir / "SHA256SUMS"
    manifest.write_text("7844d88  face_net.onnx\n")
    with pytest.raises(VisionError, match=r"SHA256SUMS line 1: not `<sha256>  <file>`"):
        FaceClassifier(weights_dir / "face_net.onnx")
    manifest.unlink()
    with pytest.raises(VisionError, match=r"cannot read the networks' manifest"):
        FaceClassifier(weights_dir / "face_net.onnx")


def test_a_network_outside_the_committed_folder_is_not_checked(tmp_path):
    """Training and experiments load their own networks (vision/training); the product never does."""
    copy = Path(shutil.copy(DEFAULT_POSE_WEIGHTS, tmp_path / "candidate.onnx"))
    assert onnx_net.pinned_sha256(copy) is None
    assert PoseNet(copy).net.sha256 == hashlib.sha256(copy.read_bytes()).hexdigest()


def test_a_network_file_that_cannot_be_read_is_a_clear_error(tmp_path, monkeypatch):
    folder = tmp_path / "not-a-file.onnx"
    folder.mkdir()
    with pytest.raises(VisionError, match="pose network weights not found"):
        PoseNet(folder)
    unreadable = Path(shutil.copy(DEFAULT_POSE_WEIGHTS, tmp_path / "unreadable.onnx"))

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))  # what a file mode 000 gives a non-root service
    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(VisionError, match=r"cannot read pose network weights .*unreadable.onnx: .*Permission denied"):
        PoseNet(unreadable)
