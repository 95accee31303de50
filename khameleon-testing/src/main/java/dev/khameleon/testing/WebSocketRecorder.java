package dev.khameleon.testing;

import java.net.http.WebSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A JDK {@link WebSocket.Listener} that records what a test's connection sees: the text received
 * and how it closed. Thread-safe: the JDK calls it on its own thread, the test reads it on another.
 */
public final class WebSocketRecorder implements WebSocket.Listener {
    /** Completes with the close status the server sent, or exceptionally with the connection's error. */
    public final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private final StringBuilder text = new StringBuilder();

    /** The text received so far, all messages joined. */
    public String text() {
        synchronized (text) {
            return text.toString();
        }
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        synchronized (text) {
            text.append(data);
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closed.complete(statusCode);
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        closed.completeExceptionally(error);
    }
}
