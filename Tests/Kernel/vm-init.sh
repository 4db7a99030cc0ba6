#!/bin/bash
# PID 1 inside the kernel-test VM, after the initramfs made the shared root ours (see
# initramfs-init). Loads the kernel modules the checks need from the packages scripts/kernel-test
# extracted (the root has no /lib/modules for this kernel), runs Tests/Kernel/checks.py, writes
# <cache>/results/results.txt (.build-kernel, or .build-kernel-arm64) into the shared repository
# and powers the VM off. Whatever happens, the VM powers off: a hung check is bounded by the
# checks' own timeouts and, last, by scripts/kernel-test's timeout on qemu.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8 TERM=dumb
repo="$vigil_repo"
kver=$(uname -r)
cache="$repo/${vigil_cache:-.build-kernel}"
kroot="$cache/root-$kver"
results="$cache/results/results.txt"
busybox="$kroot/bin/busybox"

say() { echo "$*"; echo "$*" >> "$results"; }
finish() {
    sync
    echo "vigil-init: powering off"
    "$busybox" poweroff -f
}
trap finish EXIT

say "TIME boot ${vigil_boot_seconds%.*} (seconds from kernel start to init)"
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t configfs configfs /sys/kernel/config 2>/dev/null || true
mount -t tracefs tracefs /sys/kernel/tracing  # gpio_value events for the alarm-test count
hostname vigil-kernel-test
# Loopback for the TCP rig of the button check (nothing else brings interfaces up here).
"$busybox" ip link set lo up

# bluetooth + hci_vhci for part a, configfs + our gpio-sim for part b; -d: the extracted tree.
for module in bluetooth hci_vhci configfs gpio-sim; do
    if ! modprobe -d "$kroot" "$module" 2>>/tmp/modprobe.log; then
        say "FAIL modules: modprobe $module: $(tail -n1 /tmp/modprobe.log)"
    fi
done
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

"$vigil_python" "$repo/Tests/Kernel/checks.py" --repo "$repo" --results "$results" \
    --python "$vigil_python" --vigil "$repo/${vigil_binary:-.build/debug/vigil}" --arch "${vigil_arch:-x86_64}" \
    ${vigil_only:+--only "$vigil_only"} || say "FAIL checks.py: exited with status $?"
say "DONE"
