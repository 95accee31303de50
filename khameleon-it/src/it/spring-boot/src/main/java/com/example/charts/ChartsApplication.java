package com.example.charts;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.server.Application;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot web application serving 64 charts as the Khameleon application {@code charts}, on
 * the web server's port (ws://localhost:8080/charts by default): each chart's series is encoded
 * coarse-to-fine on first use, and the server pushes the charts next to the one the user last
 * hovered.
 */
@SpringBootApplication
public class ChartsApplication {
    /** The number of charts; each is one request id. */
    public static final int CHARTS = 64;
    /** The horizons of the predictor's distributions, the application's defaults. */
    static final long[] HORIZONS = {50, 150, 250, 500};
    /** Points per series; 4,096 points of 12 bytes are 24 blocks of 2 KiB. */
    static final int POINTS = 4096;

    /** Runs the application; Khameleon serves on server.port (8080 by default), next to Spring MVC. */
    public static void main(String[] args) {
        SpringApplication.run(ChartsApplication.class, args);
    }

    /** Your backend: the series behind chart {@code id}. Here a stand-in for a database query. */
    public static double[] query(int id) {
        double[] series = new double[POINTS];
        for (int i = 0; i < series.length; i++) {
            series[i] = Math.sin(i * (id + 1) / 500.0);
        }
        return series;
    }

    /** The encoder of every chart's series. */
    @Bean
    SeriesEncoder seriesEncoder() {
        return new SeriesEncoder(2048);
    }

    /** Where encoding runs: never on the server's network threads. Spring shuts it down on close. */
    @Bean(destroyMethod = "shutdown")
    ExecutorService encodingExecutor() {
        return Executors.newFixedThreadPool(2);
    }

    /** The charts' blocks, encoded lazily; every series has the same length, so the same block count. */
    @Bean
    BlockSource chartBlocks(SeriesEncoder encoder, ExecutorService encodingExecutor) {
        int[] blockCounts = new int[CHARTS];
        Arrays.fill(blockCounts, encoder.encode(0, query(0)).size());
        return new EncodingBlockSource<>(encoder, ChartsApplication::query, blockCounts, encodingExecutor);
    }

    /** The Khameleon application; the starter serves it at ws://localhost:8080/charts. */
    @Bean
    Application charts(BlockSource chartBlocks) {
        return Application.builder("charts")
                .blockSource(chartBlocks)
                .predictor(new NeighbourPredictor(CHARTS, HORIZONS))
                .horizons(HORIZONS)
                .build();
    }
}
