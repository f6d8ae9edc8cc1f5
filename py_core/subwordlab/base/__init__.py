"""The plumbing every layer above shares: the training events, JSON read and written within
bounds, math that rounds the same in every runtime, the registry that names each pipeline
component in a file, and the process pool for counting on several cores."""
