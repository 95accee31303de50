package dev.khameleon.client;

import dev.khameleon.core.Block;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.testkit.DocSnippets;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.CharsetUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/server.md's "Mounting on your own Netty server" snippet, compiled and run over loopback:
 * the Java client gets a complete response from Khameleon at {@code /ws} while the application's
 * own route answers on the same port. The page must quote the tagged region verbatim.
 */
@Timeout(60)
class MountedServerExampleTest {
    /** The application's own HTTP route in the example: every request gets a small page. */
    static final class MyRoutes extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            FullHttpResponse res = new DefaultFullHttpResponse(req.protocolVersion(), HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("<h1>charts</h1>\n", CharsetUtil.UTF_8));
            HttpUtil.setContentLength(res, res.content().readableBytes());
            HttpUtil.setKeepAlive(res, HttpUtil.isKeepAlive(req));
            ctx.writeAndFlush(res);
        }
    }

    @Test
    void mountedOnTheApplicationsNettyServer_servesTheJavaClientAndTheApplicationsRoutes() throws Exception {
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(1024);
        List<List<Block>> responses = new ArrayList<>();
        for (int id = 0; id < 20; id++) {
            byte[] chart = new byte[3000 + id];
            java.util.Arrays.fill(chart, (byte) id);
            responses.add(encoder.encode(id, chart));
        }
        BlockSource source = BlockSource.inMemory(encoder.blockSize(), responses);
        int port = 0;
        // tag::mount[]
        KhameleonServer khameleon = KhameleonServer.builder()
                .application(Application.builder("charts").path("/ws").blockSource(source).build())
                .build()
                .mount();                                           // no port of its own
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        Channel http = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec());
                        ch.pipeline().addLast(khameleon.newHandler());   // takes /ws and /healthz
                        ch.pipeline().addLast(new HttpObjectAggregator(65_536));
                        ch.pipeline().addLast(new MyRoutes());           // every other request
                    }
                })
                .bind("127.0.0.1", port).sync().channel();
        // end::mount[]
        try {
            int bound = ((InetSocketAddress) http.localAddress()).getPort();
            CompletableFuture<Response> complete = new CompletableFuture<>();
            try (KhameleonClient<PointerEvent> client = KhameleonClient.builder()
                    .uri(URI.create("ws://127.0.0.1:" + bound + "/ws"))
                    .application("charts")
                    .cacheBlocks(100)
                    .build()) {
                client.connect().get(10, TimeUnit.SECONDS);
                client.request(7, response -> {
                    if (response.isComplete()) {
                        complete.complete(response);
                    }
                });
                Response full = complete.get(30, TimeUnit.SECONDS);
                byte[] expected = new byte[3007];
                java.util.Arrays.fill(expected, (byte) 7);
                assertArrayEquals(expected, full.content());
                HttpResponse<String> page = HttpClient.newHttpClient().send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bound + "/index.html")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals("<h1>charts</h1>\n", page.body(), "the application's route answers on the same port");
                assertEquals(1, khameleon.metrics().activeSessions());
            }
        } finally {
            khameleon.close();                                           // Khameleon's sessions and threads only
            http.close().sync();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void serverPage_quotesTheSnippetVerbatim() throws IOException {
        Map<String, String> regions = DocSnippets.regions(DocSnippets.read(
                "khameleon-client/src/test/java/dev/khameleon/client/MountedServerExampleTest.java"));
        assertEquals(1, regions.size(), "snippets found: " + regions.keySet());
        String page = DocSnippets.read("docs/server.md");
        assertTrue(page.contains(regions.get("mount")),
                "docs/server.md does not quote 'mount' as compiled:\n" + regions.get("mount"));
    }
}
