"""tablehw firmware host: the Pi service that turns device readings into settled, published rounds."""
