package dev.khameleon.server;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Per-address connection and handshake limits. */
class AddressLimitsTest {
    private static InetSocketAddress at(String ip, int port) throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    @Test
    void handshakes_areLimitedPerAddressAndFreedByTheHello() throws Exception {
        AddressLimits limits = new AddressLimits(3, 2);
        AddressLimits.Ticket a = limits.tryOpen(at("10.0.0.1", 1)).ticket();
        AddressLimits.Ticket b = limits.tryOpen(at("10.0.0.1", 2)).ticket();
        assertNotNull(a);
        assertNotNull(b);
        assertEquals(AddressLimits.Refusal.TOO_MANY_HANDSHAKES, limits.tryOpen(at("10.0.0.1", 3)).refusal());
        assertNotNull(limits.tryOpen(at("10.0.0.2", 1)).ticket(), "another address is not affected");
        a.handshakeDone();
        a.handshakeDone(); // idempotent
        assertNotNull(limits.tryOpen(at("10.0.0.1", 3)).ticket(), "a hello frees a handshake place");
        assertEquals(AddressLimits.Refusal.TOO_MANY_CONNECTIONS, limits.tryOpen(at("10.0.0.1", 4)).refusal());
        b.close();
        b.close(); // idempotent
        assertEquals(2, limits.connections(at("10.0.0.1", 9)));
    }

    @Test
    void ipv6Addresses_countByTheirSlash64() throws Exception {
        AddressLimits limits = new AddressLimits(2, 2);
        limits.tryOpen(at("2001:db8::1", 1));
        limits.tryOpen(at("2001:db8::ffff:2", 1));
        assertEquals(AddressLimits.Refusal.TOO_MANY_CONNECTIONS, limits.tryOpen(at("2001:db8::3", 1)).refusal());
        assertNotNull(limits.tryOpen(at("2001:db8:0:1::1", 1)).ticket(), "another /64");
    }

    @Test
    void closingEveryConnection_forgetsTheAddress() throws Exception {
        AddressLimits limits = new AddressLimits(1, 1);
        AddressLimits.Ticket t = limits.tryOpen(at("10.0.0.1", 1)).ticket();
        t.close();
        assertEquals(0, limits.connections(at("10.0.0.1", 1)));
        assertNotNull(limits.tryOpen(at("10.0.0.1", 1)).ticket());
    }
}
