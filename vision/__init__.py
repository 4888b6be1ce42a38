"""Vision: read dice from camera frames, judge the throw, calibrate the camera, render synthetic tables."""
