"""nn.init: filled in next."""
