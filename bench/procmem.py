"""Resident memory of this process from /proc (Linux only; no psutil): current size, peak, peak reset."""


def status_kb(field):
    """A kB field of /proc/self/status, such as ``VmRSS`` or ``VmHWM`` (the peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak():
    """Reset VmHWM to the current resident size (Linux >= 4.0); False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False
