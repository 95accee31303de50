package dev.khameleon.bench.server;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/** CPU time of the server's own threads (named {@code khameleon-*}), apart from the clients in the same JVM. */
final class ServerCpu {
    private ServerCpu() {
    }

    /** CPU nanoseconds of each live server thread, by thread id. */
    static Map<Long, Long> snapshot() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new HashMap<>();
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("khameleon-")) {
                out.put(t.getThreadId(), mx.getThreadCpuTime(t.getThreadId()));
            }
        }
        return out;
    }

    /** CPU nanoseconds the server threads used between two snapshots (threads started since count from 0). */
    static long nanosBetween(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }
}
