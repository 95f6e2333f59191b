"""The Redis store's Lua scripts, package resources read by :mod:`govcore.backends.redis`."""
