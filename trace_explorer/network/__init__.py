"""The network's guard rails, for every source and service the explorer reaches over HTTP:
bounded reads (bytes and time), addresses pinned against DNS rebinding, the policy that admits
an endpoint, retries of idempotent reads, and secrets kept out of what is shown."""
