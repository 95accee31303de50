package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import io.netty.channel.Channel;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A welcomed session's resume tokens: the first one, in the welcome, and a fresh one every half of
 * the tokens' time to live for a client that asked for them, so only a client away longer than the
 * time to live starts afresh. An application that binds requests per session gets none: its
 * bindings are not in a resume's manifest.
 *
 * <p><b>Threading.</b> Confined to the channel's event loop.
 */
final class ResumeTokenRefresh {
    private final ServerRuntime server;
    private final Channel channel;
    private final String id;
    private final Application application;
    private final int cacheBlocks;
    private final LoopTimer timer;
    private boolean stopped;

    ResumeTokenRefresh(ServerRuntime server, Channel channel, String id, Application application, int cacheBlocks) {
        this.server = server;
        this.channel = channel;
        this.id = id;
        this.application = application;
        this.cacheBlocks = cacheBlocks;
        this.timer = new LoopTimer(channel.eventLoop(), server::nanoTime, this::refresh);
    }

    /**
     * The welcome's token, if the application can resume; refreshes follow if {@code wanted} (the
     * hello supports resuming or resumed).
     */
    Optional<String> first(boolean wanted) {
        if (application.guardedScope() != null) {
            return Optional.empty();
        }
        if (wanted) {
            arm();
        }
        return Optional.of(issue());
    }

    /** No more tokens are sent. */
    void stop() {
        stopped = true;
        timer.cancel();
    }

    private String issue() {
        return server.resumeTokens().issue(id, application.path(), cacheBlocks,
                application.guardedSource().blockSize());
    }

    private void arm() {
        timer.armIn(TimeUnit.MILLISECONDS.toNanos(server.resumeTokens().ttlMillis() / 2));
    }

    private void refresh() {
        if (stopped) {
            return;
        }
        channel.writeAndFlush(new ControlMessage.ResumeToken(issue()));
        arm();
    }
}
