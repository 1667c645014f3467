"""What is worked out across steps and sessions, beyond reading one: comparison, health,
statistics and evidence lineage."""
