"""The ranking methods, one module per family; the registry (../registry.py) lists them."""
