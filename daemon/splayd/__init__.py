"""splayd: the SplayLab daemon (connects out to the controller, runs sandboxed Lua nodes)."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 3
