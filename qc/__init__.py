"""Quality checks: read a build folder, return findings; never modify it."""
