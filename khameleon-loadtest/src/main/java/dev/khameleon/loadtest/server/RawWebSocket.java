package dev.khameleon.loadtest.server;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A minimal blocking WebSocket client on a plain socket, for clients that misbehave on purpose: it
 * binds a chosen local address (the server's per-address limits key on it), writes only when told
 * and reads only when told, so it can stop reading altogether. One thread per instance, except
 * {@link #close()}, which any thread may call to unblock it.
 */
final class RawWebSocket implements Closeable {
    /** The server refused the connection before the WebSocket upgrade (closed it, or answered non-101). */
    static final class RefusedException extends IOException {
        RefusedException(String message) {
            super(message);
        }
    }

    /** One frame from the server: its opcode and payload. */
    record Frame(int opcode, byte[] payload) {
        static final int TEXT = 0x1;
        static final int BINARY = 0x2;
        static final int CLOSE = 0x8;

        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        /** The status of a close frame, or 1005 (none given). */
        int closeStatus() {
            return payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : 1005;
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private RawWebSocket(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = socket.getOutputStream();
    }

    /**
     * Connects from {@code local} to 127.0.0.1:{@code port} and upgrades to a WebSocket on {@code path}.
     *
     * @throws RefusedException if the server closes the connection or answers anything but 101
     */
    static RawWebSocket open(InetAddress local, int port, String path) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(local, 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            socket.setSoTimeout(10_000);
            RawWebSocket ws = new RawWebSocket(socket);
            ws.out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            ws.out.flush();
            String status = ws.readResponseHead();
            if (!status.startsWith("HTTP/1.1 101")) {
                throw new RefusedException(status);
            }
            return ws;
        } catch (IOException e) {
            socket.close();
            if (e instanceof RefusedException || e instanceof SocketTimeoutException) {
                throw e;
            }
            // A connection closed at accept (per-address limits) shows as EOF or a reset.
            throw new RefusedException("connection closed before the upgrade: " + e);
        }
    }

    /** Reads the response head; returns its status line. */
    private String readResponseHead() throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 16_384) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("closed");
            }
            head.append((char) b);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                return head.substring(0, head.indexOf("\r\n"));
            }
        }
        throw new IOException("response head too long");
    }

    void sendText(String text) throws IOException {
        send(0x1, text.getBytes(StandardCharsets.UTF_8));
    }

    void sendPing(byte[] payload) throws IOException {
        send(0x9, payload);
    }

    /** Writes one masked, final frame (clients must mask, RFC 6455 §5.3). */
    private void send(int opcode, byte[] payload) throws IOException {
        int n = payload.length;
        byte[] frame = new byte[n + 14];
        int i = 0;
        frame[i++] = (byte) (0x80 | opcode);
        if (n < 126) {
            frame[i++] = (byte) (0x80 | n);
        } else if (n < 65_536) {
            frame[i++] = (byte) (0x80 | 126);
            frame[i++] = (byte) (n >>> 8);
            frame[i++] = (byte) n;
        } else {
            throw new IllegalArgumentException("payload too large for this client: " + n);
        }
        int mask = ThreadLocalRandom.current().nextInt();
        int maskAt = i;
        for (int k = 0; k < 4; k++) {
            frame[i++] = (byte) (mask >>> (24 - 8 * k));
        }
        for (int k = 0; k < n; k++) {
            frame[i++] = (byte) (payload[k] ^ frame[maskAt + (k & 3)]);
        }
        out.write(frame, 0, i);
    }

    /**
     * Reads the next frame; {@code null} if none started within {@code waitMillis}. A frame once
     * started is read to its end (with the socket's 10 s timeout).
     */
    Frame readFrame(int waitMillis) throws IOException {
        socket.setSoTimeout(waitMillis);
        int b0;
        try {
            b0 = in.read();
        } catch (SocketTimeoutException e) {
            return null;
        }
        if (b0 < 0) {
            throw new EOFException("closed by the server");
        }
        socket.setSoTimeout(10_000);
        int b1 = in.readUnsignedByte();
        long len = b1 & 0x7f;
        if (len == 126) {
            len = in.readUnsignedShort();
        } else if (len == 127) {
            len = in.readLong();
        }
        if ((b1 & 0x80) != 0) {
            in.readInt(); // a server never masks; skip a mask anyway
        }
        if (len > (1 << 24)) {
            throw new IOException("frame too large: " + len);
        }
        byte[] payload = new byte[(int) len];
        in.readFully(payload);
        return new Frame(b0 & 0x0f, payload);
    }

    /**
     * Reads until the first text or close frame, skipping block frames and pongs, for at most
     * {@code waitMillis} per frame; {@code null} if the server sent nothing in that time.
     */
    Frame readMessage(int waitMillis) throws IOException {
        while (true) {
            Frame f = readFrame(waitMillis);
            if (f == null || f.opcode() == Frame.TEXT || f.opcode() == Frame.CLOSE) {
                return f;
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is best effort
        }
    }
}
