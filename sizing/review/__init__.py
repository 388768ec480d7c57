"""What a change does to published numbers: snapshots, diffs, calibration, the estimate record."""
