package dev.khameleon.server;

import io.netty.util.AttributeKey;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-client-address limits: how many connections one address may hold open, and how many of
 * them may be in their handshake at once (connected, but the hello not yet accepted). IPv6
 * addresses count by their /64 prefix, which one host usually controls entirely. Thread-safe:
 * each operation takes a short lock.
 */
final class AddressLimits {
    /** Where a connection keeps its {@link Ticket}. */
    static final AttributeKey<Ticket> TICKET = AttributeKey.valueOf(AddressLimits.class, "ticket");

    /** Why a connection was refused; the wire-style code goes into the refusal log. */
    enum Refusal {
        TOO_MANY_CONNECTIONS("too_many_connections"),
        TOO_MANY_HANDSHAKES("too_many_handshakes");

        final String code;

        Refusal(String code) {
            this.code = code;
        }
    }

    /** The outcome of {@link #tryOpen}: a ticket, or why there is none. */
    record Admission(Ticket ticket, Refusal refusal) {
    }

    private static final class Counts {
        int connections;
        int handshakes;
    }

    /** One admitted connection's place under the limits. */
    final class Ticket {
        private final Object key;
        private boolean handshaking = true;
        private boolean closed;

        private Ticket(Object key) {
            this.key = key;
        }

        /** The hello was accepted: the connection no longer counts as a handshake. Idempotent. */
        void handshakeDone() {
            synchronized (AddressLimits.this) {
                if (handshaking && !closed) {
                    handshaking = false;
                    counts.get(key).handshakes--;
                }
            }
        }

        /** The connection is closed: it frees its places. Idempotent. */
        void close() {
            synchronized (AddressLimits.this) {
                if (closed) {
                    return;
                }
                closed = true;
                Counts c = counts.get(key);
                c.connections--;
                if (handshaking) {
                    c.handshakes--;
                }
                if (c.connections == 0) {
                    counts.remove(key);
                }
            }
        }
    }

    private final int maxConnections;
    private final int maxHandshakes;
    private final Map<Object, Counts> counts = new HashMap<>();

    AddressLimits(int maxConnections, int maxHandshakes) {
        this.maxConnections = maxConnections;
        this.maxHandshakes = maxHandshakes;
    }

    /** Admits a new connection from {@code remote} as a handshake, or says which limit it would break. */
    synchronized Admission tryOpen(SocketAddress remote) {
        Object key = key(remote);
        Counts c = counts.computeIfAbsent(key, k -> new Counts());
        if (c.connections >= maxConnections) {
            return new Admission(null, Refusal.TOO_MANY_CONNECTIONS);
        }
        if (c.handshakes >= maxHandshakes) {
            return new Admission(null, Refusal.TOO_MANY_HANDSHAKES);
        }
        c.connections++;
        c.handshakes++;
        return new Admission(new Ticket(key), null);
    }

    /** Connections open from {@code remote}'s address (or /64); for tests. */
    synchronized int connections(SocketAddress remote) {
        Counts c = counts.get(key(remote));
        return c == null ? 0 : c.connections;
    }

    /** The unit the limits count by: the IPv4 address, the IPv6 /64, or the peer's own name. */
    static Object key(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            InetAddress a = inet.getAddress();
            if (a instanceof Inet6Address) {
                return Arrays.toString(Arrays.copyOf(a.getAddress(), 8));
            }
            return a;
        }
        return String.valueOf(remote);
    }
}
