package dev.khameleon.testing;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A WebSocket client written against RFC 6455 on a plain socket, for what the JDK client cannot do:
 * stop reading entirely, with a small receive buffer, or send after the server's close frame.
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;

    /**
     * Connects to {@code 127.0.0.1:port} with a receive buffer of {@code receiveBufferBytes} and completes
     * the WebSocket handshake for {@code path}; throws if the server refuses it.
     */
    public RawClient(int port, String path, int receiveBufferBytes) throws IOException {
        this(port, path, receiveBufferBytes, new byte[0]);
    }

    /**
     * As {@link #RawClient(int, String, int)}, sending {@code afterUpgrade} (e.g. an encoded frame) in
     * the same write as the upgrade request, before the server has answered it.
     */
    public RawClient(int port, String path, int receiveBufferBytes, byte[] afterUpgrade) throws IOException {
        socket = new Socket();
        socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        String key = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        byte[] upgrade = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] both = java.util.Arrays.copyOf(upgrade, upgrade.length + afterUpgrade.length);
        System.arraycopy(afterUpgrade, 0, both, upgrade.length, afterUpgrade.length);
        out.write(both); // one write: the server reads the frame with the request
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed during the handshake: " + head);
            }
            head.append((char) b);
        }
        if (!head.toString().startsWith("HTTP/1.1 101")) {
            throw new IOException("handshake refused: " + head);
        }
    }

    /** Sends one masked text frame (payload below 65,536 bytes). */
    public void sendText(String text) throws IOException {
        sendFrame(true, 0x1, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends one masked ping with {@code payload} (at most 125 bytes). */
    public void sendPing(byte[] payload) throws IOException {
        sendFrame(true, 0x9, payload);
    }

    /**
     * Sends one masked frame (payload below 65,536 bytes): {@code fin} false starts or continues a
     * fragmented message, {@code opcode} as in RFC 6455 (0 continuation, 1 text, 8 close, 9 ping).
     */
    public void sendFrame(boolean fin, int opcode, byte[] payload) throws IOException {
        sendBytes(encodeFrame(fin, opcode, payload));
    }

    /** Writes {@code bytes} as they are, e.g. part of an {@linkplain #encodeFrame encoded frame}. */
    public void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** One masked frame as {@link #sendFrame} sends it (payload below 65,536 bytes). */
    public static byte[] encodeFrame(boolean fin, int opcode, byte[] payload) {
        byte[] mask = {1, 2, 3, 4};
        int headerLength = payload.length < 126 ? 2 : 4;
        byte[] frame = new byte[headerLength + 4 + payload.length];
        frame[0] = (byte) ((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            frame[1] = (byte) (0x80 | payload.length);
        } else {
            frame[1] = (byte) (0x80 | 126);
            frame[2] = (byte) (payload.length >>> 8);
            frame[3] = (byte) payload.length;
        }
        System.arraycopy(mask, 0, frame, headerLength, 4);
        for (int i = 0; i < payload.length; i++) {
            frame[headerLength + 4 + i] = (byte) (payload[i] ^ mask[i % 4]);
        }
        return frame;
    }

    /** A frame from the server: its opcode (1 text, 2 binary, 8 close, ...) and unmasked payload. */
    public record Frame(int opcode, byte[] payload) {
        /** The status code of a close frame, or -1 if it carries none. */
        public int closeStatus() {
            return payload.length >= 2 ? (payload[0] & 0xff) << 8 | payload[1] & 0xff : -1;
        }
    }

    /**
     * Reads the server's next frame (waiting up to the socket timeout), or returns null if the server
     * closed the connection cleanly at a frame boundary. A reset connection throws.
     */
    public Frame readFrame() throws IOException {
        socket.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int first = in.read();
        if (first < 0) {
            return null;
        }
        int second = in.readUnsignedByte();
        long length = second & 0x7f;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        if ((second & 0x80) != 0 || length > 1 << 24) {
            throw new IOException("not a frame a server sends: masked or " + length + " bytes");
        }
        byte[] payload = new byte[(int) length];
        in.readFully(payload);
        return new Frame(first & 0x0f, payload);
    }

    /** Reads frames until a close frame, and returns it; throws if the connection ends before one. */
    public Frame readUntilClose() throws IOException {
        for (Frame f = readFrame(); f != null; f = readFrame()) {
            if (f.opcode() == 0x8) {
                return f;
            }
        }
        throw new IOException("the connection ended without a close frame");
    }

    /** Whether the server has closed the connection (reads what is buffered to find out). */
    public boolean serverClosed() {
        try {
            socket.setSoTimeout(1);
            InputStream in = socket.getInputStream();
            byte[] sink = new byte[1 << 16];
            while (true) {
                if (in.read(sink) < 0) {
                    return true;
                }
            }
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
