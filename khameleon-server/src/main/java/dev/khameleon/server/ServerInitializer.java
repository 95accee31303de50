package dev.khameleon.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * Admits a new connection under the per-address limits (closing it at once otherwise) and
 * assembles its pipeline in protocol order: TLS (optional), HTTP codec, HTTP aggregator for the
 * upgrade request, then the {@link HandshakeGate}, which adds the WebSocket handlers of the
 * application the request's path names.
 */
final class ServerInitializer extends ChannelInitializer<Channel> {
    /** The largest upgrade request accepted, headers included. */
    static final int MAX_HANDSHAKE_BYTES = 16 * 1024;

    private final ServerRuntime server;

    ServerInitializer(ServerRuntime server) {
        this.server = server;
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!server.admit(ch)) {
            return;
        }
        ChannelPipeline p = ch.pipeline();
        server.config.sslContext().ifPresent(ssl -> p.addLast("tls", ssl.newHandler(ch.alloc())));
        // Ahead of the codec: bytes behind the upgrade request (a hello in the same packet) wait for the handshake.
        p.addLast("upgrade-head", new UpgradeHead(MAX_HANDSHAKE_BYTES + 4096));
        p.addLast("http", new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(4096)
                .setMaxHeaderSize(MAX_HANDSHAKE_BYTES)
                .setMaxChunkSize(8192)));
        p.addLast("http-aggregator", new HttpObjectAggregator(MAX_HANDSHAKE_BYTES));
        p.addLast("gate", new HandshakeGate(server));
    }
}
