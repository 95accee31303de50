package com.example.mount;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A Netty HTTP server with a route of its own ({@code /hello}) and the Khameleon application
 * {@code charts} mounted at {@code /ws} on the same port.
 */
public final class ChartsServer implements AutoCloseable {
    /** The number of charts; each is one request id. */
    public static final int CHARTS = 64;
    /** The horizons of the predictor's distributions, the application's defaults. */
    static final long[] HORIZONS = {50, 150, 250, 500};

    private final KhameleonServer khameleon;
    private final EventLoopGroup group;
    private final Channel http;

    private ChartsServer(KhameleonServer khameleon, EventLoopGroup group, Channel http) {
        this.khameleon = khameleon;
        this.group = group;
        this.http = http;
    }

    /** Your backend: the series behind chart {@code id}. Here a stand-in for a database query. */
    public static double[] query(int id) {
        double[] series = new double[4096];
        for (int i = 0; i < series.length; i++) {
            series[i] = Math.sin(i * (id + 1) / 500.0);
        }
        return series;
    }

    /** Every chart encoded up front, in memory. */
    static BlockSource chartBlocks(SeriesEncoder encoder) {
        List<List<Block>> responses = new ArrayList<>();
        for (int id = 0; id < CHARTS; id++) {
            responses.add(encoder.encode(id, query(id)));
        }
        return BlockSource.inMemory(encoder.blockSize(), responses);
    }

    /** Starts the server on 127.0.0.1:{@code port} (0 picks a free port). */
    public static ChartsServer start(int port) throws InterruptedException {
        BlockSource source = chartBlocks(new SeriesEncoder(2048));
        KhameleonServer khameleon = KhameleonServer.builder()
                .application(Application.builder("charts").path("/ws").blockSource(source)
                        .predictor(Predictors.serverHalf(CHARTS, HORIZONS))
                        .horizons(HORIZONS)
                        .build())
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
        return new ChartsServer(khameleon, group, http);
    }

    /** The port the server listens on. */
    public int port() {
        return ((InetSocketAddress) http.localAddress()).getPort();
    }

    /** The mounted Khameleon server, for its metrics. */
    public KhameleonServer khameleon() {
        return khameleon;
    }

    /** Closes Khameleon's sessions first, then the HTTP server and its event loops. */
    @Override
    public void close() {
        khameleon.close();
        http.close().syncUninterruptibly();
        group.shutdownGracefully().syncUninterruptibly();
    }

    /** Serves on 127.0.0.1:8080 until the process is stopped. */
    public static void main(String[] args) throws InterruptedException {
        ChartsServer server = start(8080);
        System.out.println("http://127.0.0.1:" + server.port() + "/hello and ws://127.0.0.1:" + server.port() + "/ws");
        server.http.closeFuture().sync();
    }
}
