"""The domain: memories, stores, indexes and freshness. Never imports Textual."""
