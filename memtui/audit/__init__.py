"""Git: the store's repository, commits with trailers, history as events, and the write lock. Never imports Textual."""
