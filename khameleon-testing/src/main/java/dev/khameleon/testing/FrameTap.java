package dev.khameleon.testing;

import dev.khameleon.core.protocol.BlockFrame;

import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;

/**
 * A JDK {@link HttpClient} that records, for each WebSocket it opens, the block frames the
 * connection receives (sequence number, request, block index), before the client's own listener
 * sees them: what a test needs to check which frames a server pushed, and in which order.
 * Everything else is delegated to a plain client. Any thread may read {@link #frames}.
 */
public final class FrameTap extends BlockFrameTap {
    /** One block frame: the {@code connection}-th WebSocket opened (from 1) received it. */
    public record Frame(int connection, long seq, int requestId, int index) {
    }

    private final Recorder recorder;

    /** A tap on a new plain client. */
    public FrameTap() {
        this(new Recorder());
    }

    private FrameTap(Recorder recorder) {
        super(HttpClient.newHttpClient(), recorder);
        this.recorder = recorder;
    }

    /** The frames received so far, in order. */
    public List<Frame> frames() {
        synchronized (recorder) {
            return List.copyOf(recorder.frames);
        }
    }

    /** How many WebSockets have opened so far. */
    public int connections() {
        synchronized (recorder) {
            return recorder.connections;
        }
    }

    private static final class Recorder implements Observer {
        private final List<Frame> frames = new ArrayList<>();
        private int connections;

        @Override
        public synchronized void opened(int connection) {
            connections = Math.max(connections, connection);
        }

        @Override
        public synchronized void beforeListener(int connection, BlockFrame f) {
            frames.add(new Frame(connection, f.seq(), f.block().requestId(), f.block().index()));
        }
    }
}
