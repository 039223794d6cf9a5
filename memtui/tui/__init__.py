"""The Textual workstation: thin screens over the core and ops; no file or git logic of its own."""
