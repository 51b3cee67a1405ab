"""pkgplan: build planning for monorepo packages."""

__version__ = "0.4.0"
