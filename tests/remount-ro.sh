#!/bin/sh
# remount-ro.sh MOUNTPOINT PID: remount MOUNTPOINT read-only while the
# process PID is stopped, so that it happens mid-run for certain (harden_
# faults.sh, run-stress.sh).  The remount fails with EBUSY while a file
# is open for writing: then PID runs on a moment and it is tried again.
# Exit 0 once remounted, 1 if PID is gone or 200 tries failed.
for _ in $(seq 200); do
	kill -STOP "$2" 2>/dev/null || exit 1
	mount -o remount,ro "$1" 2>/dev/null && { kill -CONT "$2"; exit 0; }
	kill -CONT "$2"
	sleep 0.01
done
exit 1
