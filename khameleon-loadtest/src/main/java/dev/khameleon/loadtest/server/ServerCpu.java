package dev.khameleon.loadtest.server;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of the server's own threads (named {@code khameleon-*}), apart from the clients in the same
 * JVM, whose threads are counted by their own name prefixes.
 */
final class ServerCpu {
    private ServerCpu() {
    }

    /** Thread names of the healthy clients: the JDK's WebSocket client, the raw clients' readers and the state ticker. */
    static final String[] HEALTHY_CLIENTS = {"HttpClient-", LoadClient.READER_THREAD, "load-states"};
    /** Thread names of the hostile clients. */
    static final String[] HOSTILE_CLIENTS = {"hostile-"};

    /** CPU nanoseconds of each live server thread, by thread id. */
    static Map<Long, Long> snapshot() {
        return snapshot("khameleon-");
    }

    /** CPU nanoseconds of each live thread whose name starts with one of {@code prefixes}, by thread id. */
    static Map<Long, Long> snapshot(String... prefixes) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new HashMap<>();
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && startsWithAny(t.getThreadName(), prefixes)) {
                out.put(t.getThreadId(), mx.getThreadCpuTime(t.getThreadId()));
            }
        }
        return out;
    }

    private static boolean startsWithAny(String name, String[] prefixes) {
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** CPU nanoseconds the threads used between two snapshots (threads started since count from 0). */
    static long nanosBetween(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }
}
