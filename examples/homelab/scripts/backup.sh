#!/bin/sh
# Copies the local state files to the NAS.
rsync -a ../.state/ nas:/backups/state/
