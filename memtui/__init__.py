"""memtui: a terminal workstation for curating an AI agent's long-term memory."""

__version__ = "0.1.0"
