"""Comparing two sessions: aligning their steps, the differences of each pair, and a
summary of A against B."""
