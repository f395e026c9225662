"""Code vendored from the family's shared packages."""
