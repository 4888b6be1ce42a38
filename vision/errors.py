"""Vision's error tree: one root (`VisionError`) that never depends on the service."""

from __future__ import annotations


class VisionError(Exception):
    """Root of every error the vision package raises."""


class ImageError(VisionError, ValueError):
    """An image that cannot be read or has the wrong shape; the message names the file or the array."""


class CalibrationError(VisionError, ValueError):
    """A calibration that cannot be computed or loaded; the message says which marker or key is wrong."""


class DatasetError(VisionError, ValueError):
    """A dataset folder or label file that cannot be scored; the message names the file and line."""


class GameRulesError(VisionError, ValueError):
    """An unknown game name or inconsistent validity rules for the throw judgement."""
