"""Findings: what needs a person's decision. Pure functions over a Store; never imports Textual."""
