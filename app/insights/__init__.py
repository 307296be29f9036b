"""Instructor insights: gap questions grouped by meaning, and the questions-per-day chart."""
