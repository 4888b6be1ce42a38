"""Tests of the vision package: real photos, rendered tables, calibration, judgement, CLI."""
