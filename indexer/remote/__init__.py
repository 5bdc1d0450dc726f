"""Object storage: publishing a writer's data directory to S3, following one (docs/scale-out.md)."""
