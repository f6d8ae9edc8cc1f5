"""Trainers: generators of step events, fed with word counts (never raw text)."""
