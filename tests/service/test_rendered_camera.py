"""The simulated camera of `make run` renders each throw and reads it back through vision (issue 4, item 7)."""

from __future__ import annotations


from firmware_host.service_config import SimulationSection
from firmware_host.simulation.rendered_camera import RenderedCamera


def test_a_valid_rendered_throw_is_read_to_the_faces_rendered_and_its_evidence_is_an_image():
    camera = RenderedCamera("craps", seed=3)
    shot = camera.throw("valid")
    assert shot.verdict.valid, shot.verdict.detail
    assert sorted(shot.verdict.values) == sorted(shot.truth) and len(shot.truth) == 2
    assert shot.image.ndim == 3 and shot.image.shape[1] >= 640


def test_void_kinds_are_judged_by_the_reader_not_told_to_it():
    camera = RenderedCamera("banca_francesa", seed=4)
    shot = camera.throw("off_table")
    assert not shot.verdict.valid and shot.verdict.reason.value == "off_table"
    assert shot.verdict.values is None


def test_simulation_setting_camera_defaults_to_random_and_accepts_rendered():
    assert SimulationSection().camera == "random"
    assert SimulationSection(camera="rendered").camera == "rendered"
