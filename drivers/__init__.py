"""Device layer: serial boards, a commercial wheel, GPIO dome and console, camera — each emitting typed events."""
