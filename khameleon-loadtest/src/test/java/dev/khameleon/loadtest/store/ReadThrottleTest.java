package dev.khameleon.loadtest.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.khameleon.loadtest.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@link ReadThrottle}: its option's parsing, finding the whole disk, and a real cgroup where this machine allows one. */
class ReadThrottleTest {

    @Test
    void limit_parsesIopsAndDecimalMegabytes() {
        ReadThrottle.Limit limit = ReadThrottle.Limit.parse("3000,125");
        assertEquals(3000, limit.iops());
        assertEquals(125_000_000L, limit.bytesPerSecond());
        assertEquals(2_500_000L, ReadThrottle.Limit.parse(" 16000 , 2.5 ").bytesPerSecond());
    }

    @ParameterizedTest
    @ValueSource(strings = {"3000", "3000,125,1", "x,125", "3000,fast", "0,125", "3000,0", "-1,125", "3000,-5", "3000,NaN", ""})
    void limit_rejectsWhatIsNotTwoPositiveNumbers(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReadThrottle.Limit.parse(text));
        assertFalse(e.getMessage().isBlank());
    }

    @Test
    void badOption_isOneLineAndUsageStatus() {
        CommandLine cli = Cli.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true)).setOut(new PrintWriter(new StringWriter(), true));
        int status = cli.execute("store", "--throttle-reads", "lots");
        assertEquals(CommandLine.ExitCode.USAGE, status);
        assertTrue(err.toString().contains("'lots' is not IOPS,MB/s"), err.toString());
        assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
    }

    @Test
    void v2Line_namesDeviceReadIopsAndBytes() {
        assertEquals("259:0 riops=3000 rbps=125000000", ReadThrottle.v2Line("259:0", ReadThrottle.Limit.parse("3000,125")));
    }

    @Test
    void ownGroup_isTheControllersEntryWithoutItsLeadingSlash() {
        List<String> lines = List.of("7:blkio:/system.slice/ssh.service", "4:cpu,cpuacct:/x", "0::/user.slice/session-1.scope");
        assertEquals("user.slice/session-1.scope", ReadThrottle.ownGroup(lines, ""));
        assertEquals("system.slice/ssh.service", ReadThrottle.ownGroup(lines, "blkio"));
        assertEquals("x", ReadThrottle.ownGroup(lines, "cpuacct"));
        assertEquals("", ReadThrottle.ownGroup(List.of("0::/"), ""));
        assertThrows(IllegalArgumentException.class, () -> ReadThrottle.ownGroup(List.of("7:blkio:/"), ""));
        assertThrows(IllegalArgumentException.class, () -> ReadThrottle.ownGroup(List.of("0::/"), "blkio"));
    }

    @Test
    void wholeDisk_isThePartitionsParent(@TempDir Path sys) throws Exception {
        Path disk = Files.createDirectories(sys.resolve("devices/sda"));
        Files.writeString(disk.resolve("dev"), "8:0\n");
        Path part = Files.createDirectories(disk.resolve("sda1"));
        Files.writeString(part.resolve("partition"), "1\n");
        Files.writeString(part.resolve("dev"), "8:1\n");
        Path nvme = Files.createDirectories(sys.resolve("devices/nvme0n1"));
        Files.writeString(nvme.resolve("dev"), "259:0\n");
        Path byNumber = Files.createDirectories(sys.resolve("dev-block"));
        Files.createSymbolicLink(byNumber.resolve("8:1"), part);
        Files.createSymbolicLink(byNumber.resolve("8:0"), disk);
        Files.createSymbolicLink(byNumber.resolve("259:0"), nvme);

        assertEquals("8:0", ReadThrottle.wholeDisk((8 << 8) | 1, byNumber));
        assertEquals("8:0", ReadThrottle.wholeDisk(8 << 8, byNumber));
        assertEquals("259:0", ReadThrottle.wholeDisk(259 << 8, byNumber));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReadThrottle.wholeDisk((7 << 8) | 3, byNumber));
        assertTrue(e.getMessage().contains("7:3"), e.getMessage());
    }

    @Test
    void apply_putsThisProcessInALimitedCgroupAndCloseTakesItOut() throws Exception {
        Path v1 = Path.of("/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device");
        assumeTrue(Files.isWritable(v1.getParent()) && Files.isRegularFile(v1),
                "skipped: needs root and cgroup v1's blkio controller at " + v1.getParent());
        Path dir = Files.createDirectories(Path.of("target", "read-throttle-test"));
        String expectedDevice = ReadThrottle.wholeDisk(ReadThrottle.deviceNumber(dir), Path.of("/sys/dev/block"));
        Path group = Path.of("/sys/fs/cgroup/blkio", "khameleon-loadtest-" + ProcessHandle.current().pid());
        String home = ReadThrottle.ownGroup(Files.readAllLines(Path.of("/proc/self/cgroup")), "blkio");

        try (ReadThrottle throttle = ReadThrottle.apply(ReadThrottle.deviceOf(dir), ReadThrottle.Limit.parse("100000,2000"))) {
            assertEquals(expectedDevice, throttle.device());
            assertEquals(expectedDevice + " 100000",
                    Files.readString(group.resolve("blkio.throttle.read_iops_device")).trim());
            assertEquals(expectedDevice + " 2000000000",
                    Files.readString(group.resolve("blkio.throttle.read_bps_device")).trim());
            assertTrue(Files.readString(Path.of("/proc/self/cgroup")).contains(":blkio:/" + group.getFileName()),
                    "the process is in the throttled group");
        }
        assertFalse(Files.exists(group), "close removes the group");
        assertEquals(home, ReadThrottle.ownGroup(Files.readAllLines(Path.of("/proc/self/cgroup")), "blkio"),
                "close moves the process back");
    }
}
