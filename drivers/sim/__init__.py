"""Device simulators speaking the real protocols over ptys, scriptable, with fault injection."""
