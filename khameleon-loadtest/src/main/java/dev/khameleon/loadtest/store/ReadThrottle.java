package dev.khameleon.loadtest.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Caps this process's reads from one block device at a number of I/O operations and bytes per
 * second, with the kernel's block-I/O cgroup controller, so that a fast or host-cached disk
 * behaves like a slower device (a cloud volume's provisioned IOPS and throughput) while the
 * benchmark runs. The limit acts in the block layer, below the page cache: it throttles
 * {@code O_DIRECT} reads and page-cache misses, never page-cache hits.
 *
 * <p>Needs root and either cgroup v1's {@code blkio} controller (mounted at
 * {@code /sys/fs/cgroup/blkio}) or cgroup v2 with the {@code io} controller at
 * {@code /sys/fs/cgroup}. {@link #apply} creates a cgroup of its own, sets the limit and moves the
 * whole process into it; {@link #close} moves the process back and removes the cgroup.
 */
final class ReadThrottle implements AutoCloseable {
    private static final Path V1_ROOT = Path.of("/sys/fs/cgroup/blkio");
    private static final Path V2_ROOT = Path.of("/sys/fs/cgroup");
    /** Where Linux lists block devices by "MAJ:MIN". */
    static final Path SYS_DEV_BLOCK = Path.of("/sys/dev/block");

    private final Path group;
    private final Path home;
    private final String device;
    private final String description;

    private ReadThrottle(Path group, Path home, String device, String description) {
        this.group = group;
        this.home = home;
        this.device = device;
        this.description = description;
    }

    /**
     * A read limit parsed from {@code IOPS,MB/s}, e.g. {@code 3000,125}: both positive, MB being
     * 10^6 bytes.
     *
     * @param iops          read operations per second
     * @param bytesPerSecond read bytes per second
     */
    record Limit(long iops, long bytesPerSecond) {
        Limit {
            if (iops <= 0 || bytesPerSecond <= 0) {
                throw new IllegalArgumentException("a read limit needs positive IOPS and MB/s, was " + iops + " IOPS, "
                        + bytesPerSecond + " B/s");
            }
        }

        /**
         * Parses {@code IOPS,MB/s}.
         *
         * @throws IllegalArgumentException naming the text when it is not two positive numbers
         */
        static Limit parse(String text) {
            String[] parts = text.split(",", -1);
            if (parts.length != 2) {
                throw new IllegalArgumentException("'" + text + "' is not IOPS,MB/s such as 3000,125");
            }
            try {
                long iops = Long.parseLong(parts[0].trim());
                double mbps = Double.parseDouble(parts[1].trim());
                if (!(mbps > 0) || mbps > 1e6) {
                    throw new IllegalArgumentException("'" + text + "': MB/s must be in (0, 1000000]");
                }
                return new Limit(iops, Math.round(mbps * 1e6));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not IOPS,MB/s such as 3000,125");
            }
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d IOPS, %.0f MB/s", iops, bytesPerSecond / 1e6);
        }
    }

    /**
     * The whole disk ("MAJ:MIN") that holds {@code dir}, the device {@link #apply} takes.
     *
     * @throws IllegalArgumentException when {@code dir} is not on a block device (tmpfs, a network
     *     file system)
     */
    static String deviceOf(Path dir) {
        return wholeDisk(deviceNumber(dir), SYS_DEV_BLOCK);
    }

    /**
     * Limits this process's reads from {@code device} ("MAJ:MIN" of a whole disk, see {@link #deviceOf}).
     *
     * @throws IllegalArgumentException with what is missing, when neither controller can be used (not
     *     root, no {@code blkio}/{@code io} controller) or the device cannot be found
     */
    static ReadThrottle apply(String device, Limit limit) {
        long pid = ProcessHandle.current().pid();
        String name = "khameleon-loadtest-" + pid;
        Path group = null;
        try {
            List<String> own = Files.readAllLines(Path.of("/proc/self/cgroup"));
            if (Files.isRegularFile(V1_ROOT.resolve("blkio.throttle.read_iops_device"))) {
                Path home = V1_ROOT.resolve(ownGroup(own, "blkio"));
                group = Files.createDirectories(V1_ROOT.resolve(name));
                write(group.resolve("blkio.throttle.read_iops_device"), device + " " + limit.iops());
                write(group.resolve("blkio.throttle.read_bps_device"), device + " " + limit.bytesPerSecond());
                write(group.resolve("cgroup.procs"), Long.toString(pid));
                return new ReadThrottle(group, home, device, limit + " on block device " + device + " (cgroup v1 blkio)");
            }
            Path controllers = V2_ROOT.resolve("cgroup.controllers");
            if (Files.isRegularFile(controllers)
                    && List.of(Files.readString(controllers).trim().split("\\s+")).contains("io")) {
                Path home = V2_ROOT.resolve(ownGroup(own, ""));
                write(V2_ROOT.resolve("cgroup.subtree_control"), "+io");
                group = Files.createDirectories(V2_ROOT.resolve(name));
                write(group.resolve("io.max"), v2Line(device, limit));
                write(group.resolve("cgroup.procs"), Long.toString(pid));
                return new ReadThrottle(group, home, device, limit + " on block device " + device + " (cgroup v2 io.max)");
            }
        } catch (IOException e) {
            if (group != null) {
                try {
                    Files.deleteIfExists(group);
                } catch (IOException ignored) {
                    // The group is empty (the move failed) or the report below says enough.
                }
            }
            throw new IllegalArgumentException("--throttle-reads could not set up a cgroup (it needs root): " + e, e);
        }
        throw new IllegalArgumentException("--throttle-reads needs cgroup v1's blkio controller at " + V1_ROOT
                + " or cgroup v2's io controller at " + V2_ROOT + "; neither is available here");
    }

    /** The line cgroup v2's {@code io.max} takes for a read limit on {@code device} ("MAJ:MIN"). */
    static String v2Line(String device, Limit limit) {
        return device + " riops=" + limit.iops() + " rbps=" + limit.bytesPerSecond();
    }

    /**
     * This process's cgroup for {@code controller} ("" for the cgroup v2 hierarchy), relative to
     * that hierarchy's root, from the lines of {@code /proc/self/cgroup} ("ID:CONTROLLERS:/PATH").
     */
    static String ownGroup(List<String> procSelfCgroup, String controller) {
        for (String line : procSelfCgroup) {
            String[] f = line.split(":", 3);
            if (f.length == 3 && (controller.isEmpty() ? f[0].equals("0") && f[1].isEmpty()
                    : List.of(f[1].split(",")).contains(controller))) {
                return f[2].startsWith("/") ? f[2].substring(1) : f[2];
            }
        }
        throw new IllegalArgumentException("no " + (controller.isEmpty() ? "cgroup v2" : controller)
                + " entry in /proc/self/cgroup");
    }

    /** The {@code st_dev} of {@code dir}'s file system. */
    static long deviceNumber(Path dir) {
        try {
            return ((Number) Files.getAttribute(dir, "unix:dev")).longValue();
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalArgumentException("cannot tell which block device holds " + dir + ": " + e, e);
        }
    }

    /**
     * "MAJ:MIN" of the whole disk behind device number {@code dev}: the device itself, or its
     * parent when it is a partition (the throttle takes whole disks), found under {@code sysDevBlock}
     * ({@code /sys/dev/block}).
     */
    static String wholeDisk(long dev, Path sysDevBlock) {
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        String id = major + ":" + minor;
        Path entry = sysDevBlock.resolve(id);
        if (!Files.exists(entry)) {
            throw new IllegalArgumentException("device " + id + " is not a block device (" + entry
                    + " is missing): is the directory on tmpfs or a network file system?");
        }
        try {
            Path real = entry.toRealPath();
            if (Files.exists(real.resolve("partition"))) {
                return Files.readString(real.getParent().resolve("dev"), StandardCharsets.US_ASCII).trim();
            }
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value + "\n", StandardCharsets.US_ASCII);
    }

    /** What is limited, for the report. */
    @Override
    public String toString() {
        return description;
    }

    /** The device this throttle limits, "MAJ:MIN". */
    String device() {
        return device;
    }

    /** Moves the process back to where it was and removes the cgroup; best effort, for the end of a run. */
    @Override
    public void close() {
        try {
            write(home.resolve("cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
            Files.deleteIfExists(group);
        } catch (IOException e) {
            System.err.println("could not remove the read-throttle cgroup " + group + ": " + e);
        }
    }
}
