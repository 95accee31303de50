package dev.khameleon.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on 127.0.0.1 standing in for a load balancer: it forwards each new connection to
 * the current target port, and {@link #cutAll} resets every open connection at once, as a node
 * killed with {@code kill -9} would (no close frame, an RST); {@link #freezeAll} silences them
 * instead, as a node gone from the network would (bytes are read and dropped, nothing is closed).
 * For tests.
 */
final class SwitchableRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket> open = new ArrayList<>();
    /** Sockets whose incoming bytes are dropped instead of forwarded. */
    private final Set<Socket> frozen = ConcurrentHashMap.newKeySet();
    private volatile int targetPort;
    private volatile boolean closed;
    private int accepted;

    SwitchableRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "relay-accept");
        t.setDaemon(true);
        t.start();
    }

    /** The port clients connect to. */
    int port() {
        return listener.getLocalPort();
    }

    /** Where new connections go from now on. */
    void target(int port) {
        targetPort = port;
    }

    /** Connections accepted so far. */
    synchronized int accepted() {
        return accepted;
    }

    /** Resets every open connection (both sides), without a close handshake. */
    synchronized void cutAll() {
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0);
                s.close();
            } catch (IOException e) {
                // already gone
            }
        }
        open.clear();
    }

    /** From now on drops whatever either side of every open connection sends; new connections are not affected. */
    synchronized void freezeAll() {
        frozen.addAll(open);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                synchronized (this) {
                    accepted++;
                    open.add(client);
                    open.add(upstream);
                }
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    if (!frozen.contains(from)) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // the other side went away
            } finally {
                try {
                    to.close();
                } catch (IOException e) {
                    // already closed
                }
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        cutAll();
    }
}
