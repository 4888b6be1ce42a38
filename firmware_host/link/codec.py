"""Layer 1 of the link, the pure codec: re-exported from drivers.protocol, which the simulators share."""

from drivers.protocol import *  # noqa: F401,F403
from drivers.protocol import __all__  # noqa: F401
